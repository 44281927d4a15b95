"""An entity's neighbourhood: the pages one or two links away, privacy fenced.

The console draws it as a picture. Edges go both ways (links out of a page
and backlinks into it); ``mentions`` links count like any other here, since
the picture is about what is connected, not the card's typed edges. The page
rule is the card's (core/verbs/cards.py): a reader without private access
never sees a private page, neither as a node nor as the far end of an edge.
"""

from __future__ import annotations

from dataclasses import dataclass

from brainkeep.core.ports.pages import PageRepository

MAX_HOPS = 2
# A hub page can have thousands of links; the picture stays readable and cheap.
NODE_CAP = 40
LINKS_PER_PAGE = 60


@dataclass(frozen=True)
class GraphNode:
    """A page in the neighbourhood: ``hop`` 0 is the centre; ``exists`` False: a dangling link."""

    slug: str
    title: str
    type: str | None
    hop: int
    exists: bool


@dataclass(frozen=True)
class GraphEdge:
    """A directed link between two nodes of the neighbourhood."""

    from_slug: str
    to_slug: str
    link_type: str


@dataclass(frozen=True)
class LinkGraph:
    """Nodes (centre first, then by hop) and the edges among them."""

    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    truncated: bool


def neighbourhood(store: PageRepository, source_id: str, slug: str, *, include_private: bool,
                  hops: int = 1, node_cap: int = NODE_CAP) -> LinkGraph:
    """The pages within ``hops`` (1 or 2) links of ``slug`` that the reader may see.

    The centre itself must already be visible to the reader (callers fetch
    it through ``PageService.get_page`` first).
    """
    hops = max(1, min(MAX_HOPS, hops))
    hop_of: dict[str, int] = {slug: 0}
    edges: dict[tuple[str, str, str], GraphEdge] = {}
    frontier = [slug]
    truncated = False
    for hop in range(1, hops + 1):
        found: list[str] = []
        for current in frontier:
            outgoing = store.links_from(source_id, current)[:LINKS_PER_PAGE]
            incoming = store.links_to(source_id, current, include_private=include_private,
                                      limit=LINKS_PER_PAGE)
            pairs = [(ln.from_slug, ln.to_slug, ln.link_type) for ln in outgoing + incoming]
            hidden = _hidden(store, source_id, [ln.to_slug for ln in outgoing],
                             include_private)
            for a, b, kind in pairs:
                if a in hidden or b in hidden:
                    continue
                other = b if a == current else a
                if other not in hop_of:
                    if len(hop_of) >= node_cap:
                        truncated = True
                        continue
                    hop_of[other] = hop
                    found.append(other)
                edges[(a, b, kind)] = GraphEdge(a, b, kind)
        frontier = found
    pages = store.get_pages(source_id, list(hop_of))
    nodes = []
    for name, hop in sorted(hop_of.items(), key=lambda item: (item[1], item[0])):
        page = pages.get(name)
        if page is not None and page.is_private and not include_private:
            continue  # a private page reached by a backlink query of a trusted reader only
        nodes.append(GraphNode(name, (page.title if page else "") or name,
                               page.type if page else None, hop, page is not None))
    kept = {n.slug for n in nodes}
    return LinkGraph(
        tuple(nodes),
        tuple(e for e in edges.values() if e.from_slug in kept and e.to_slug in kept),
        truncated,
    )


def _hidden(store: PageRepository, source_id: str, targets: list[str],
            include_private: bool) -> set[str]:
    """Link targets that are private pages (hidden from readers without private access)."""
    if include_private or not targets:
        return set()
    pages = store.get_pages(source_id, targets)
    return {s for s, page in pages.items() if page.is_private}
