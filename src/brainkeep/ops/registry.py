"""The one catalog of brainkeep: the seven verbs first, then page operations."""

from __future__ import annotations

from typing import Any

from brainkeep.ops.catalog import Catalog
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.grant_ops import GRANT_OPERATIONS
from brainkeep.ops.page_ops import PAGE_OPERATIONS
from brainkeep.ops.response_schemas import VERB_NAMES
from brainkeep.ops.usage import UsageLog
from brainkeep.ops.verb_ops import VERB_OPERATIONS

__all__ = ["VERB_NAMES", "build_catalog", "open_dispatcher"]


def build_catalog() -> Catalog:
    """Every operation, declared once."""
    return Catalog(VERB_OPERATIONS + PAGE_OPERATIONS + GRANT_OPERATIONS)


def open_dispatcher(brain: Any, surface: str) -> Dispatcher:
    """The dispatcher every front end uses: the full catalog, the brain's usage log."""
    return Dispatcher(
        build_catalog(), brain, surface=surface, usage=UsageLog(brain.settings.usage_path)
    )
