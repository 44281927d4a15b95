"""MCP ``forget`` with ``redact``: expire, then erase the fact's text everywhere.

``forget`` alone expires a fact and keeps its text (as_of reads and the
console's forgotten toggle still show it). With ``redact`` the fact (already
expired by ``FactService.forget``, which decided the caller may delete it)
is redacted in one more transaction: the row's text becomes the
placeholder, topic documents that copied it are redacted too, the indexes
are purged and checked (core/erasure.py), and a ``memory.erase`` event
records the ids and counts a forget receipt then carries.
"""

from __future__ import annotations

from typing import Any

from brainkeep.core import erasure, receipts
from brainkeep.core.clock import Clock
from brainkeep.core.memory.group_commit import GroupCommit
from brainkeep.core.models import Event, Memory
from brainkeep.core.ports.composites import ErasureStore
from brainkeep.core.ports.erasure import MemoryCopies


def redact_fact(store: ErasureStore, clock: Clock, source_id: str, memory: Memory, *, actor: str,
                issuer: receipts.ReceiptIssuer | None, writer: GroupCommit,
                counted: MemoryCopies | None = None,
                ) -> tuple[bool, dict[str, Any] | None]:
    """Redact an expired fact: (whether this call redacted it, its receipt).

    The caller checked the permission (``FactService.forget``) and committed
    the expiry; a rerun after a failure here redacts then. ``counted``: the
    fact's copies counted before the expiry (which drops its keyword entry
    and vector), so the receipt counts them.
    """
    def work() -> tuple[erasure.Erasure, Event] | None:
        fresh = store.get_memory(memory.id)
        if fresh is None or fresh.redacted_at is not None:
            return None
        now = clock.now_ts()
        purge = erasure.begin(store, source_id, [fresh], counted)
        erasure.redact_row(store, fresh, actor=actor, now=now)
        purge.cascade([fresh], lambda t: erasure.redact_row(store, t, actor=actor, now=now))
        done = purge.finish([fresh])
        event = store.append_event(
            receipts.erase_event(done, actor=actor, strategy="redact", source_id=source_id), now)
        return done, event

    # The brain's one group commit, as every memory write of either protocol.
    redacted = writer.run(work)
    if redacted is None:
        return False, None
    done, event = redacted
    return True, receipts.settle(store, issuer, operation="forget", strategy="redact",
                                 event=event, erasure=done, now=clock.now_ts())
