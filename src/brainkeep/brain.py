"""Composition: build the services of one brain from its settings.

Each entry point (CLI command, MCP server, gRPC server) calls ``open_brain``
once and hands the resulting ``Brain`` down explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from brainkeep.config import Settings
from brainkeep.core.clock import Clock
from brainkeep.core.facts import FactService
from brainkeep.core.models import DEFAULT_SOURCE
from brainkeep.core.pages import PageService
from brainkeep.core.search import SearchService
from brainkeep.store import SQLiteStore
from brainkeep.store.base import Store


@dataclass
class Brain:
    """One open brain: its store and the domain services over it."""

    settings: Settings
    store: Store
    clock: Clock = field(default_factory=Clock)
    source_id: str = DEFAULT_SOURCE
    # The chat model behind `synthesize` (a providers.chat.ChatProvider); None = not configured.
    chat: Any = None

    def __post_init__(self) -> None:
        self.pages = PageService(self.store, self.clock, self.source_id)
        self.facts = FactService(self.store, self.clock, self.source_id)
        self.search = SearchService(self.store, self.source_id)

    def close(self) -> None:
        self.store.close()


def open_brain(settings: Settings, *, clock: Clock | None = None) -> Brain:
    """Open (and migrate) the brain under ``settings.home``."""
    store = SQLiteStore(settings.db_path)
    return Brain(settings=settings, store=store, clock=clock or Clock())
