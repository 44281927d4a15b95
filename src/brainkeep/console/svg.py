"""Server-side pictures: the link graph laid out for an inline SVG (no JavaScript).

Layout only; the template (``templates/_graph.html``) draws it, so every
label goes through Jinja's escaping.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from brainkeep.core.link_graph import LinkGraph

WIDTH = 720
HEIGHT = 520
RINGS = (0.0, 150.0, 240.0)  # radius of hop 0, 1, 2
LABEL_CHARS = 22
# Label size in user units. The stylesheet never draws the picture narrower
# than MIN_WIDTH_PX (a narrower screen scrolls it in its own box), so a label
# is at least LABEL_SIZE * MIN_WIDTH_PX / WIDTH = 11.7 px on screen; in a third
# of a desktop page (360 px) 13 units were 6.5 px.
LABEL_SIZE = 14
MIN_WIDTH_PX = 600


@dataclass(frozen=True)
class PlacedNode:
    slug: str
    label: str
    title: str
    x: float
    y: float
    hop: int
    exists: bool


@dataclass(frozen=True)
class PlacedEdge:
    x1: float
    y1: float
    x2: float
    y2: float
    link_type: str
    title: str


@dataclass(frozen=True)
class GraphPicture:
    width: int
    height: int
    nodes: tuple[PlacedNode, ...]
    edges: tuple[PlacedEdge, ...]
    label_size: int = LABEL_SIZE


def _label(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def layout(graph: LinkGraph) -> GraphPicture:
    """The centre in the middle, each hop on its own ring, evenly spread."""
    cx, cy = WIDTH / 2, HEIGHT / 2
    by_hop: dict[int, list[str]] = {}
    for node in graph.nodes:
        by_hop.setdefault(node.hop, []).append(node.slug)
    where: dict[str, tuple[float, float]] = {}
    for hop, slugs in by_hop.items():
        radius = RINGS[min(hop, len(RINGS) - 1)]
        offset = 0.0 if hop % 2 else math.pi / max(len(slugs), 1)
        for i, slug in enumerate(slugs):
            angle = offset + 2 * math.pi * i / max(len(slugs), 1) - math.pi / 2
            where[slug] = (round(cx + radius * math.cos(angle), 1),
                           round(cy + radius * math.sin(angle) * 0.85, 1))
    nodes = tuple(
        PlacedNode(n.slug, _label(n.title), n.title, *where[n.slug], n.hop, n.exists)
        for n in graph.nodes
    )
    edges = tuple(
        PlacedEdge(*where[e.from_slug], *where[e.to_slug], e.link_type,
                   f"{e.from_slug} → {e.to_slug} ({e.link_type})")
        for e in graph.edges if e.from_slug in where and e.to_slug in where
    )
    return GraphPicture(WIDTH, HEIGHT, nodes, edges)
