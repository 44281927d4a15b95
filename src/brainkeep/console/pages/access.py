"""Access (``/access``): bearer tokens (create, list, revoke) and OAuth clients.

Tokens go through ``core.tokens.TokenService``, the service behind
``brainkeep token …``: same name rules, same ``token.create`` /
``token.revoke`` events. A new secret is shown once: the create POST keeps
it in a one-time slot bound to the creating session and redirects; the page
that follows takes it out, so a reload (or anyone else) finds nothing.

A remote viewer needs ``admin``. An org-bound admin manages its own tenant
only: it lists, creates and revokes tokens of its token's org (it cannot
mint a token for another org or none), and sees that org's OAuth clients.
An unbound admin (a token made without ``--org``) covers every org, like the
local console: ``core/tenant_fence.operator_covers``, the rule OAuth consent
and the audit log use.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from brainkeep.console.env import ConsoleEnv, ConsolePage, NavItem
from brainkeep.console.web import Viewer, action, page, redirect, render
from brainkeep.core.oauth.service import OAuthService
from brainkeep.core.tenant_fence import operator_covers
from brainkeep.core.tokens import SCOPES, TokenService
from brainkeep.errors import InvalidInput, NotFound

# How long a created secret waits for the page that shows it.
REVEAL_TTL_S = 300.0


@dataclass(frozen=True)
class _Reveal:
    session_id: str
    name: str
    secret: str
    at: float


class OneTimeSecrets:
    """Created secrets waiting to be shown once to the session that created them."""

    def __init__(self) -> None:
        self._items: dict[str, _Reveal] = {}
        self._lock = threading.Lock()

    def put(self, session_id: str, name: str, secret: str) -> str:
        """Hold ``secret`` for ``session_id``; returns the key the redirect carries."""
        key = secrets.token_urlsafe(16)
        now = time.monotonic()
        with self._lock:
            self._items = {k: v for k, v in self._items.items() if now - v.at < REVEAL_TTL_S}
            self._items[key] = _Reveal(session_id, name, secret, now)
        return key

    def take(self, key: str | None, session_id: str) -> _Reveal | None:
        """The held secret, removed on first look; None if gone, expired or not this session's."""
        if not key:
            return None
        with self._lock:
            item = self._items.get(key)
            if item is None or item.session_id != session_id:
                return None
            del self._items[key]
        return item if time.monotonic() - item.at < REVEAL_TTL_S else None


def _operator_org(viewer: Viewer, local: bool) -> str | None:
    """The org this viewer operates for: None (unbound) for the local console."""
    return None if local else viewer.caller.org_id


def _mine(viewer: Viewer, local: bool, org_id: str | None) -> bool:
    """Whether a token or client of ``org_id`` is this viewer's to manage.

    The rule OAuth consent and the audit log use (``core/tenant_fence``): an
    unbound operator (the local console, or a remote admin token made
    without ``--org``) covers every org; a bound one, its own org only.
    """
    return operator_covers(_operator_org(viewer, local), org_id)


def _form_text(form: FormData, name: str) -> str | None:
    value = form.get(name)
    return value.strip() or None if isinstance(value, str) else None


def _scopes(form: FormData) -> list[str]:
    return [s for s in form.getlist("scopes") if isinstance(s, str)]


def _public(items: Iterable[Any], now: str) -> list[dict[str, Any]]:
    return [t.public(now) for t in items]


def routes(env: ConsoleEnv) -> list[BaseRoute]:
    tokens = TokenService(env.brain.store, env.brain.clock)
    oauth = OAuthService(env.brain.store, env.brain.clock)
    reveals = OneTimeSecrets()

    def show(request: Request, viewer: Viewer, *, error: Any = None,
             form: dict[str, Any] | None = None, status: int = 200) -> Response:
        now = env.brain.clock.now_ts()
        everything = request.query_params.get("all") == "1"
        listed = [t for t in tokens.list_tokens(include_revoked=everything)
                  if _mine(viewer, env.local, t.org_id)]
        clients = [c for c in oauth.list_clients(include_revoked=everything)
                   if _mine(viewer, env.local, c.org_id)]
        created = reveals.take(request.query_params.get("created"), viewer.session.id)
        return render(env, request, viewer, "access.html", status=status, title="Access",
                      tokens=_public(listed, now), clients=clients, created=created,
                      revoked=request.query_params.get("revoked"),
                      scopes=SCOPES, error=error, form=form or {}, show_all=everything,
                      fixed_org=_operator_org(viewer, env.local))

    def create(request: Request, viewer: Viewer, form: FormData) -> Response:
        bound = _operator_org(viewer, env.local)
        # An unbound operator picks the new token's org; a bound one mints for its own.
        org = _form_text(form, "org_id") if bound is None else bound
        name, scopes = _form_text(form, "name") or "", _scopes(form)
        expires, agent = _form_text(form, "expires"), _form_text(form, "agent_id")
        values = {"name": name, "scopes": scopes, "expires": expires, "org_id": org,
                  "agent_id": agent}
        try:
            made = tokens.create(name, scopes, expires=expires, org_id=org, agent_id=agent)
        except InvalidInput as exc:  # the form again, with the service's own words
            return show(request, viewer, error=exc, form=values, status=400)
        key = reveals.put(viewer.session.id, made.token.name, made.secret)
        return redirect(env, "/access", created=key)

    def revoke(request: Request, viewer: Viewer, form: FormData) -> Response:
        name = _form_text(form, "name") or ""
        live = {t.name: t for t in tokens.list_tokens()}
        token = live.get(name)
        if token is None or not _mine(viewer, env.local, token.org_id):
            # Another org's token reads as absent: no probing names across tenants.
            raise NotFound(f"No live token named {name!r}.",
                           suggestion="Reload the Access page to see the current tokens.",
                           field="name")
        tokens.revoke(name)
        return redirect(env, "/access", revoked=name)

    return [
        Route("/access", page(env, show, needs="admin"), methods=["GET"]),
        Route("/access/tokens", action(env, create, needs="admin"), methods=["POST"]),
        Route("/access/revoke", action(env, revoke, needs="admin"), methods=["POST"]),
    ]


PAGE = ConsolePage(NavItem("/access", "Access", needs="admin"), routes)
