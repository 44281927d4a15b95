"""Review (``/review``): the writes the injection scorer held, and the operator's decision.

The page calls the one service ``brainkeep quarantine`` calls
(core/quarantine/review.py): same tenant rule (an org-bound admin token sees
its org's memories only; held pages belong to no org), same audited
``release``/``reject`` events. A remote viewer needs ``admin``; the held
text is shown escaped, as data, never rendered as markdown or HTML.
"""

from __future__ import annotations

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from brainkeep.console.env import ConsoleEnv, ConsolePage, NavItem
from brainkeep.console.web import Viewer, action, page, redirect, render
from brainkeep.core.quarantine.models import STATUSES
from brainkeep.errors import InvalidInput

LIST_LIMIT = 100


def _entry_id(form: FormData) -> int:
    raw = form.get("id")
    if not isinstance(raw, str) or not raw.isascii() or not raw.isdigit() or len(raw) > 18:
        raise InvalidInput("The form names no held write.", suggestion="Reload the page.",
                           field="id")
    return int(raw)


def routes(env: ConsoleEnv) -> list[BaseRoute]:
    review = env.brain.quarantine

    def show(request: Request, viewer: Viewer) -> Response:
        status = request.query_params.get("status") or "pending"
        if status not in (*STATUSES, "all"):
            status = "pending"
        entries = review.entries(viewer.caller, status=None if status == "all" else status,
                                 limit=LIST_LIMIT)
        items = [review.show(e.id, viewer.caller) for e in entries]
        return render(env, request, viewer, "review.html", title="Review", items=items,
                      shown=status, statuses=(*STATUSES, "all"),
                      decided=request.query_params.get("decided"),
                      decision=request.query_params.get("decision"))

    def decide(request: Request, viewer: Viewer, form: FormData) -> Response:
        entry_id = _entry_id(form)
        if form.get("decision") == "release":
            review.release(entry_id, viewer.caller)
            return redirect(env, "/review", decided=entry_id, decision="released")
        review.reject(entry_id, viewer.caller)
        return redirect(env, "/review", decided=entry_id, decision="rejected")

    return [
        Route("/review", page(env, show, needs="admin"), methods=["GET"]),
        Route("/review/decide", action(env, decide, needs="admin"), methods=["POST"]),
    ]


PAGE = ConsolePage(NavItem("/review", "Review", needs="admin"), routes)
