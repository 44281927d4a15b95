"""Pages and entities: browse or search pages; one entity's facts, page, card and graph.

An entity view lists the entity's facts first (with provenance, time and
status; forgotten, expired and superseded ones behind ``?forgotten=1``),
then its page text rendered as markdown (``console/markdown_html.py``), its
card and its neighbourhood. An entity with facts or links but no page (a
dashed node of the graph, a fact's entity) gets the same view without the
page parts, instead of a 404.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from brainkeep.brain import Brain
from brainkeep.console.env import ConsoleEnv, ConsolePage, NavItem
from brainkeep.console.markdown_html import render_markdown
from brainkeep.console.svg import layout
from brainkeep.console.web import Viewer, page, render
from brainkeep.core.context import Caller
from brainkeep.core.fact_status import fact_status
from brainkeep.core.link_graph import neighbourhood
from brainkeep.core.memory.facts import FACT_LIMIT_MAX
from brainkeep.core.models import Memory
from brainkeep.core.slugs import is_valid_slug, slug_title
from brainkeep.core.verbs.cards import build_card
from brainkeep.errors import NotFound

PAGE_SIZE = 50
# Facts read for one entity, newest first, every status (the "show forgotten" toggle
# only hides rows): all of them but for an entity with very many facts.
FACTS_READ = FACT_LIMIT_MAX


@dataclass(frozen=True)
class FactRow:
    """One fact on an entity page and its status (``core/fact_status.py``)."""

    memory: Memory
    status: str


@dataclass(frozen=True)
class EntityFacts:
    """An entity's facts as the page lists them.

    Attributes:
        rows: Newest first, every status.
        capped: More facts exist than were read (the Memories page has them all).
    """

    rows: tuple[FactRow, ...]
    capped: bool

    @property
    def active(self) -> tuple[FactRow, ...]:
        return tuple(r for r in self.rows if r.status == "active")

    @property
    def inactive(self) -> int:
        """How many are forgotten, expired or superseded (hidden until asked for)."""
        return len(self.rows) - len(self.active)


def entity_facts(brain: Brain, caller: Caller, slug: str) -> EntityFacts:
    """The facts filed under ``slug`` that ``caller`` may read, whatever their status."""
    if not is_valid_slug(slug):
        return EntityFacts((), False)
    now = brain.clock.now_ts()
    found = brain.facts.list_facts(caller, entity=slug, include_expired=True,
                                   limit=FACTS_READ)
    rows = tuple(FactRow(m, fact_status(m, now)) for m in found if m.entity_slug == slug)
    return EntityFacts(rows, len(found) == FACTS_READ)


def _text(request: Request, name: str) -> str | None:
    value = request.query_params.get(name, "").strip()
    return value or None


def routes(env: ConsoleEnv) -> list[BaseRoute]:
    brain = env.brain

    def entity_href(slug: str) -> str:
        return env.href(f"/entities/{slug}")

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
        show_forgotten = request.query_params.get("forgotten") == "1"
        hops = 2 if request.query_params.get("hops") == "2" else 1
        facts = entity_facts(brain, caller, slug)
        try:
            found = brain.pages.get_page(slug, caller)  # missing, or private to this reader
        except NotFound:
            return pageless(request, viewer, slug, facts, show_forgotten)
        card = build_card(brain.verbs, found, caller).card
        graph = neighbourhood(brain.store, brain.source_id, slug,
                              include_private=caller.include_private, hops=hops)
        title = found.title or slug
        text = render_markdown(found.body, entity_href, title=title)
        return render(env, request, viewer, "entity.html", title=title, slug=slug,
                      page=found, card=card, backlinks=brain.pages.backlinks(slug, caller),
                      facts=facts, show_forgotten=show_forgotten, hops=hops, graph=graph,
                      picture=layout(graph), centre=title, text=text,
                      summary=render_markdown(card["summary"] or "", entity_href))

    def pageless(request: Request, viewer: Viewer, slug: str, facts: EntityFacts,
                 show_forgotten: bool) -> Response:
        """An entity with facts or links but no page (or none this reader may see)."""
        backlinks = brain.pages.backlinks(slug, viewer.caller)
        if not facts.rows and not backlinks:
            raise NotFound(
                f"Nothing is known about {slug!r}: no page, no facts, no links to it.",
                suggestion=f"Write its page (`brainkeep put {slug} --file page.md`) or "
                f"remember a fact about it (`brainkeep remember \"...\" -p SOURCE -e {slug}`).",
                field="slug")
        return render(env, request, viewer, "entity.html", title=slug_title(slug), slug=slug,
                      page=None, card=None, backlinks=backlinks, facts=facts,
                      show_forgotten=show_forgotten, hops=1, graph=None, picture=None,
                      centre=slug_title(slug), text=None, summary=None)

    return [
        Route("/entities", page(env, browse), methods=["GET"]),
        Route("/entities/{slug:path}", page(env, view), methods=["GET"]),
    ]


PAGE = ConsolePage(NavItem("/entities", "Pages"), routes)
