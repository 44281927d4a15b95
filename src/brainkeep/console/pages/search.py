"""Search playground: run recall(query) and see why each result ranked where it did."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from brainkeep.console.env import ConsoleEnv, ConsolePage, NavItem
from brainkeep.console.web import Viewer, page, render
from brainkeep.core.search_explain import explain_search
from brainkeep.errors import InvalidInput

LIMIT = 20


def routes(env: ConsoleEnv) -> list[BaseRoute]:
    brain = env.brain

    def playground(request: Request, viewer: Viewer) -> Response:
        query = request.query_params.get("q", "").strip()
        recall = explanation = None
        if query:
            # recall itself (scope check, privacy, usage log) for what an agent would get …
            outcome = env.dispatcher.call("recall", {"query": query, "limit": LIMIT},
                                          viewer.caller)
            if outcome.is_error:
                raise InvalidInput(str(outcome.payload.get("message")),
                                   suggestion=str(outcome.payload.get("suggestion") or ""))
            recall = outcome.payload
            # … and the same page search again, arm by arm, for the why.
            explanation = explain_search(brain.search, query,
                                         include_private=viewer.caller.include_private,
                                         limit=LIMIT)
        return render(env, request, viewer, "search.html", title="Search", q=query,
                      recall=recall, explanation=explanation)

    return [Route("/search", page(env, playground), methods=["GET"])]


PAGE = ConsolePage(NavItem("/search", "Search"), routes)
