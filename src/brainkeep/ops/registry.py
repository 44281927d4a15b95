"""The one catalog of brainkeep: the seven verbs first, then page operations."""

from __future__ import annotations

from brainkeep.ops.catalog import Catalog
from brainkeep.ops.page_ops import PAGE_OPERATIONS
from brainkeep.ops.response_schemas import VERB_NAMES
from brainkeep.ops.verb_ops import VERB_OPERATIONS

__all__ = ["VERB_NAMES", "build_catalog"]


def build_catalog() -> Catalog:
    """Every operation, declared once."""
    return Catalog(VERB_OPERATIONS + PAGE_OPERATIONS)
