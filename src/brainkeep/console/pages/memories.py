"""Memories: filter, read one fact's provenance and history, forget it (write scope)."""

from __future__ import annotations

from dataclasses import replace

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from brainkeep.console.env import ConsoleEnv, ConsolePage, NavItem
from brainkeep.console.web import Viewer, action, page, redirect, render
from brainkeep.core import validate
from brainkeep.core.clock import format_ts
from brainkeep.core.fact_history import fact_history
from brainkeep.core.fact_status import fact_status
from brainkeep.core.memory import validation
from brainkeep.core.memory_browse import MemoryQuery, browse_memories
from brainkeep.core.models import FACT_KINDS, SCOPES, VISIBILITIES
from brainkeep.errors import BrainkeepError, InvalidInput

FILTERS = ("entity", "kind", "agent", "org", "visibility", "since", "until", "q", "expired")


def _arg(request: Request, name: str) -> str | None:
    value = request.query_params.get(name, "").strip()
    return value or None


def _when(value: str | None, name: str) -> str | None:
    return format_ts(validate.date_or_time(value, name)) if value else None


def routes(env: ConsoleEnv) -> list[BaseRoute]:
    brain = env.brain

    def listing(request: Request, viewer: Viewer) -> Response:
        caller = viewer.caller
        org = _arg(request, "org")
        # The trusted local console may look into another tenant, as `brainkeep --org`
        # does; a remote viewer's tenant is its token's, whatever the form says.
        if org is not None and not caller.remote:
            caller = replace(caller, org_id=validation.org_id(None if org == "-" else org))
        kind = _arg(request, "kind")
        if kind is not None and kind not in FACT_KINDS:
            raise InvalidInput(f"Unknown kind {kind!r}.", field="kind",
                               suggestion=f"Pick one of {', '.join(FACT_KINDS)}.")
        query = MemoryQuery(
            entity=_arg(request, "entity"), kind=kind, agent=_arg(request, "agent"),
            visibility=_arg(request, "visibility"), since=_when(_arg(request, "since"), "since"),
            until=_when(_arg(request, "until"), "until"), text=_arg(request, "q"),
            include_expired=request.query_params.get("expired") == "1",
            limit=int(raw) if (raw := _arg(request, "limit") or "").isdigit() else 50,
        )
        rows = browse_memories(brain.facts, caller, query)
        values = {name: request.query_params.get(name, "") for name in FILTERS}
        return render(env, request, viewer, "memories.html", title="Memories", rows=rows,
                      values=values, kinds=FACT_KINDS, visibilities=VISIBILITIES + SCOPES,
                      now=brain.clock.now_ts(), fact_status=fact_status,
                      tenant=caller.org_id, forgot=_arg(request, "forgot"))

    def detail(request: Request, viewer: Viewer) -> Response:
        history = fact_history(brain.facts, request.path_params["fact_id"], viewer.caller)
        now = brain.clock.now_ts()
        return render(env, request, viewer, "memory.html",
                      title=f"Fact #{history.memory.fact_id}", history=history,
                      memory=history.memory, now=now,
                      state=fact_status(history.memory, now), error=None)

    def forget(request: Request, viewer: Viewer, form: FormData) -> Response:
        fact_id = request.path_params["fact_id"]
        reason = str(form.get("reason") or "").strip()
        if not reason:
            raise InvalidInput("Say why the fact is being forgotten.", field="reason",
                               suggestion="Fill in the reason: it is kept on the audit trail.")
        # The forget verb itself: scope check, ownership rule, audit event, usage log.
        outcome = env.dispatcher.call("forget", {"id": fact_id, "reason": reason},
                                      viewer.caller)
        if outcome.is_error:
            raise _as_error(outcome.payload)
        return redirect(env, "/memories", forgot=fact_id)

    return [
        Route("/memories", page(env, listing), methods=["GET"]),
        Route("/memories/{fact_id}", page(env, detail), methods=["GET"]),
        Route("/memories/{fact_id}/forget", action(env, forget, needs="write"),
              methods=["POST"]),
    ]


class _ShownError(BrainkeepError):
    """A verb's error envelope, re-raised so the console shows it as an error page."""

    def __init__(self, code: str, message: str, suggestion: str | None) -> None:
        super().__init__(message, suggestion=suggestion)
        self.code = code


def _as_error(payload: dict[str, object]) -> BrainkeepError:
    return _ShownError(str(payload.get("error") or "internal"), str(payload.get("message")),
                       str(payload.get("suggestion") or "") or None)


PAGE = ConsolePage(NavItem("/memories", "Memories"), routes)
