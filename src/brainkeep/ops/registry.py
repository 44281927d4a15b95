"""The one catalog of brainkeep: the seven verbs first, then page operations."""

from __future__ import annotations

from brainkeep.ops.catalog import Catalog
from brainkeep.ops.page_ops import PAGE_OPERATIONS
from brainkeep.ops.verb_ops import VERB_OPERATIONS

VERB_NAMES = ("recall", "remember", "entity", "synthesize", "forget", "context_pack", "delta")


def build_catalog() -> Catalog:
    """Every operation, declared once."""
    return Catalog(VERB_OPERATIONS + PAGE_OPERATIONS)
