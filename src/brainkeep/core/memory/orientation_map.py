"""Values of the orientation cache (Mnemo v0.4.8 ``RecallRequest.orientation_cache``).

A namespace's *context map*: the entities, constants and schemas that the
memories its recalls returned contain, each with how often it came back.
What a recall asks for (``OrientationRequest``), what the store keeps and
reads back (``Observation``, ``StoredEntry``, ``StoredMap``) and what a
caller gets (``OrientationMap``) are plain frozen values; the rules live in
``orientation.py`` (namespace, budget, rendering) and ``distill.py``
(extraction).
"""

from __future__ import annotations

from dataclasses import dataclass

# The three lists of the map, in the proto's field order.
KINDS = ("entity", "constant", "schema")


@dataclass(frozen=True)
class OrientationRequest:
    """An ``OrientationCacheRequest`` as plain values (``None`` = field not sent)."""

    namespace: str | None = None
    token_budget: int | None = None
    include_in_response: bool | None = None
    distill: bool | None = None


@dataclass(frozen=True)
class Observation:
    """One entry a memory contains: (``kind``, ``key``, ``value``), ``kind`` in ``KINDS``."""

    kind: str
    key: str
    value: str


@dataclass(frozen=True)
class StoredEntry:
    """An entry as the store reads it back: its frequency over the reader's visible rows."""

    kind: str
    key: str
    value: str
    freq: int


@dataclass(frozen=True)
class StoredMap:
    """A namespace as stored: its hit count and its most frequent entries per kind."""

    hit_count: int
    entries: tuple[StoredEntry, ...] = ()


@dataclass(frozen=True)
class OrientationEntry:
    """One rendered entry: ``token_estimate`` is the cost of its line (``orientation.line``)."""

    key: str
    value: str
    freq: int
    token_estimate: int


@dataclass(frozen=True)
class OrientationMap:
    """The rendering returned in ``RecallResponse.orientation_cache``.

    ``token_estimate`` is the sum of the entries' estimates and never
    exceeds ``budget``.
    """

    namespace: str
    entities: tuple[OrientationEntry, ...]
    constants: tuple[OrientationEntry, ...]
    schemas: tuple[OrientationEntry, ...]
    token_estimate: int
    budget: int
    hit_count: int
