"""Home (``/``): what the viewer can see at a glance, and where to go next."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from brainkeep.console.env import ConsoleEnv, ConsolePage, NavItem
from brainkeep.console.web import Viewer, page, render
from brainkeep.core.memory_browse import BROWSE_LIMIT_MAX, MemoryQuery, browse_memories

RECENT = 10
PAGES_COUNTED = 100


def routes(env: ConsoleEnv) -> list[BaseRoute]:
    brain = env.brain

    def show(request: Request, viewer: Viewer) -> Response:
        caller = viewer.caller
        # Counted through the reader's own scope: brain-wide totals would tell a
        # remote viewer how much other tenants and private rows hold.
        facts = browse_memories(brain.facts, caller, MemoryQuery(limit=BROWSE_LIMIT_MAX))
        pages = brain.pages.list_pages(caller, limit=PAGES_COUNTED)
        counts = {
            "pages": (len(pages), len(pages) >= PAGES_COUNTED),
            "facts": (len(facts), len(facts) >= BROWSE_LIMIT_MAX),
        }
        totals = brain.store.counts() if not caller.remote else None
        recent = sorted(pages, key=lambda p: p.updated_at, reverse=True)[:RECENT]
        return render(env, request, viewer, "home.html", title="Home", counts=counts,
                      totals=totals, recent_facts=facts[:RECENT], recent_pages=recent)

    return [Route("/", page(env, show), methods=["GET"])]


PAGE = ConsolePage(NavItem("/", "Home"), routes)
