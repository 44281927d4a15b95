"""What every console page receives: the brain, the dispatcher, templates, sessions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.routing import BaseRoute

from brainkeep.brain import Brain
from brainkeep.console.session import LoginTokens, SessionStore
from brainkeep.core.context import Caller
from brainkeep.ops.dispatch import Dispatcher


@dataclass(frozen=True)
class NavItem:
    """One entry of the top navigation.

    Attributes:
        path: Path below the console root (``/`` for home, ``/audit``, ...).
        label: Link text.
        needs: Scope a viewer must hold to see the link (``read``, ``write``, ``admin``).
    """

    path: str
    label: str
    needs: str = "read"


@dataclass(frozen=True)
class ConsolePage:
    """A page module's registration: its nav entry and its routes.

    ``routes`` is called once with the ``ConsoleEnv`` when the app is built;
    handlers close over it (explicit dependencies, no globals).
    """

    nav: NavItem | None
    routes: Callable[[ConsoleEnv], list[BaseRoute]]


@dataclass(frozen=True)
class ConsoleEnv:
    """One console app's dependencies.

    Attributes:
        brain: The open brain (services: ``brain.facts``, ``brain.pages``,
            ``brain.search``, ``brain.verbs``, ``brain.store`` ...).
        dispatcher: The operation catalog every transport calls through
            (``dispatcher.call(name, params, viewer.caller)``: scope checks and
            usage logging included).
        templates: The Jinja2 environment over ``console/templates``.
        sessions: Server-side sessions (signed-in browsers only).
        login_tokens: The sign-in form's stateless CSRF tokens (no session
            exists before sign-in).
        base: URL prefix of the console (``""`` for ``brainkeep ui``,
            ``"/console"`` on ``serve --http``).
        local_caller: The trusted caller of ``brainkeep ui`` (no login); None
            on ``serve --http``, where each session signs in with a token.
        secure_cookies: Mark the session cookie ``Secure`` even on a plain
            HTTP request (the server sits behind an HTTPS ``--public-url``).
        nav: The navigation, in order (filled by ``app.build_console_app``).
    """

    brain: Brain
    dispatcher: Dispatcher
    templates: jinja2.Environment
    sessions: SessionStore
    login_tokens: LoginTokens = field(default_factory=LoginTokens)
    base: str = ""
    local_caller: Caller | None = None
    secure_cookies: bool = False
    nav: tuple[NavItem, ...] = field(default=())

    @property
    def local(self) -> bool:
        return self.local_caller is not None

    def href(self, path: str, **query: Any) -> str:
        """An absolute console URL for ``path`` (``/entities``), with query params."""
        url = f"{self.base}{path}" if path != "/" or not self.base else f"{self.base}/"
        clean = {k: v for k, v in query.items() if v not in (None, "")}
        return f"{url}?{urlencode(clean)}" if clean else url
