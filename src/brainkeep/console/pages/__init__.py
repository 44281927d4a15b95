"""The console's pages, in navigation order: each module exports ``PAGE``."""

from __future__ import annotations

from brainkeep.console.env import ConsolePage
from brainkeep.console.pages import (
    access,
    audit,
    entities,
    home,
    live,
    memories,
    review,
    search,
    usage,
)

PAGES: tuple[ConsolePage, ...] = (
    home.PAGE,
    entities.PAGE,
    memories.PAGE,
    search.PAGE,
    audit.PAGE,
    usage.PAGE,
    access.PAGE,
    review.PAGE,
    live.PAGE,
)
