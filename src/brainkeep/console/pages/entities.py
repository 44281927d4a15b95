"""Pages and entities: browse or search pages; one entity's card, links and graph."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from brainkeep.console.env import ConsoleEnv, ConsolePage, NavItem
from brainkeep.console.svg import layout
from brainkeep.console.web import Viewer, page, render
from brainkeep.core.link_graph import neighbourhood
from brainkeep.core.verbs.cards import build_card

PAGE_SIZE = 50
FACTS_SHOWN = 20


def _text(request: Request, name: str) -> str | None:
    value = request.query_params.get(name, "").strip()
    return value or None


def routes(env: ConsoleEnv) -> list[BaseRoute]:
    brain = env.brain

    def browse(request: Request, viewer: Viewer) -> Response:
        query = _text(request, "q")
        kind = _text(request, "type")
        prefix = _text(request, "prefix")
        after = _text(request, "after")
        if query:
            outcome = brain.search.search(query, include_private=viewer.caller.include_private,
                                          limit=PAGE_SIZE)
            rows = [{"slug": r.slug, "title": r.title, "type": None, "updated_at": r.updated_at,
                     "snippet": r.chunk, "evidence": r.evidence} for r in outcome.results]
            next_after = None
        else:
            pages = brain.pages.list_pages(viewer.caller, type=kind, prefix=prefix,
                                           after_slug=after, limit=PAGE_SIZE)
            rows = [{"slug": p.slug, "title": p.title, "type": p.type,
                     "updated_at": p.updated_at, "snippet": None, "evidence": None}
                    for p in pages]
            next_after = pages[-1].slug if len(pages) == PAGE_SIZE else None
        return render(env, request, viewer, "entities.html", title="Pages", rows=rows,
                      q=query or "", type=kind or "", prefix=prefix or "",
                      next_after=next_after)

    def view(request: Request, viewer: Viewer) -> Response:
        slug = request.path_params["slug"]
        caller = viewer.caller
        found = brain.pages.get_page(slug, caller)  # NotFound: missing or private to this reader
        card = build_card(brain.verbs, found, caller).card
        backlinks = brain.pages.backlinks(slug, caller)
        facts = brain.facts.list_facts(caller, entity=slug, limit=FACTS_SHOWN)
        hops = 2 if request.query_params.get("hops") == "2" else 1
        graph = neighbourhood(brain.store, brain.source_id, slug,
                              include_private=caller.include_private, hops=hops)
        return render(env, request, viewer, "entity.html", title=found.title or slug,
                      page=found, card=card, backlinks=backlinks, facts=facts, hops=hops,
                      graph=graph, picture=layout(graph), centre=found.title or slug)

    return [
        Route("/entities", page(env, browse), methods=["GET"]),
        Route("/entities/{slug:path}", page(env, view), methods=["GET"]),
    ]


PAGE = ConsolePage(NavItem("/entities", "Pages"), routes)
