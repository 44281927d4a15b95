"""Erasure: a forget that purges leaves the memory's text in no store.

A purging forget (MCP ``forget`` with ``redact``, gRPC ``Forget`` with
``redact`` or ``hard_delete``, ``ForgetSubject`` with either) replaces or
removes the row; the engine's triggers and hooks then drop its keyword,
substring and vector index entries. This module adds what a row-level change
does not reach and counts the result, inside the forget's own transaction:

* topic documents (Consolidate) copied their members' text: each topic
  document that names a purged member is redacted too (``cascade``);
* ``store.purge_text_indexes()`` merges the full-text indexes, so a
  deleted entry is not kept in an older index segment (SQLite FTS5);
* ``store.memory_copies`` counts what still holds each row's text before
  and after; anything left after the purge fails the forget (nothing is
  committed) rather than issuing a receipt that is not true.

After the commit ``store.scrub_files`` removes what a transaction cannot:
the SQLite write-ahead log and ANN base files that still hold old bytes
(docs/audit.md, "Forgetting").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from brainkeep.core import events
from brainkeep.core.memory.models import REDACTED_TEXT
from brainkeep.core.models import Memory
from brainkeep.core.ports.erasure import MemoryCopies
from brainkeep.errors import StoreError

if TYPE_CHECKING:
    from brainkeep.core.ports.composites import ErasureStore

# The strategies that take the text away (the others keep it for as_of reads).
PURGING = frozenset({"redact", "hard_delete"})


@dataclass(frozen=True)
class Erasure:
    """What one purging forget removed: the rows and the counts per store."""

    memory_ids: tuple[int, ...]  # row ids, topic documents included
    memory_uuids: tuple[str, ...]
    purged: dict[str, int] = field(default_factory=dict)


class Purge:
    """A purge in progress inside one transaction (``begin``, ``cascade``, ``finish``)."""

    def __init__(self, store: ErasureStore, source_id: str, targets: Sequence[Memory],
                 counted: MemoryCopies | None = None) -> None:
        self.store = store
        self.source_id = source_id
        self.before = (counted or store.memory_copies([m.id for m in targets])).counts()
        self.topics: tuple[Memory, ...] = ()

    def cascade(self, forgotten: Sequence[Memory], redact: Callable[[Memory], bool]) -> None:
        """Redact every topic document whose members include a forgotten memory.

        ``redact`` forgets one topic document with the caller's event builder
        (False: nothing to do). Already redacted topic documents are left.
        """
        done = {m.id for m in forgotten}
        topics = [t for t in self.store.topics_containing(self.source_id,
                                                          [m.uuid for m in forgotten])
                  if t.id not in done and t.redacted_at is None]
        counted = self.store.memory_copies([t.id for t in topics]).counts()
        self.before = {k: v + counted[k] for k, v in self.before.items()}
        self.topics = tuple(t for t in topics if redact(t))

    def finish(self, forgotten: Sequence[Memory]) -> Erasure:
        """Merge the text indexes, check nothing is left, and count what went.

        Raises:
            StoreError: a copy of a forgotten memory's text is still in a store
                (the transaction rolls back: no receipt for an erasure that
                did not happen).
        """
        rows = tuple(forgotten) + self.topics
        self.store.purge_text_indexes([m.id for m in rows])
        after = self.store.memory_copies([m.id for m in rows])
        if not after.empty:
            raise StoreError("A forgotten memory's text is still stored.",
                             detail=f"left after the purge: {after.counts()}")
        purged = {"memories": len(forgotten), "topic_documents": len(self.topics),
                  **self.before}
        return Erasure(tuple(m.id for m in rows), tuple(m.uuid for m in rows), purged)


def begin(store: ErasureStore, source_id: str, targets: Sequence[Memory],
          counted: MemoryCopies | None = None) -> Purge:
    """Count what holds the targets' text now (call first, inside the transaction).

    ``counted``: the targets' copies counted earlier, before a step of the
    same forget that already dropped some (MCP ``forget`` expires first).
    """
    return Purge(store, source_id, targets, counted)


def redact_row(store: ErasureStore, memory: Memory, *, actor: str, now: str) -> bool:
    """Replace one memory's text by the placeholder and log it (inside a transaction).

    The one redaction of both protocols (MCP ``forget`` with ``redact``, gRPC
    ``redact``); False when the row is already redacted.
    """
    if memory.redacted_at:
        return False
    store.redact_memory(memory.id, now, REDACTED_TEXT)
    store.append_event(events.memory_redact(
        memory, actor=actor, after=store.get_memory(memory.id) or memory), now)
    return True
