"""The memory checks of the one verifier (core/verify.py): each row against its record.

Per (agent, thread) chain, oldest first: the text against ``content_hash``
(or the redaction placeholder), ``content_hash`` against its newest event,
``prev_hash`` against the previous row (bridged only by logged hard
deletes), the access state against its newest ``state_hash``, and the
``memory_tags`` rows against the tags. ``walk_memories`` streams a slice
as lean rows (core/integrity_rows.py) and re-reads in full only a row the
lean check does not accept, so ``memory_reason`` alone decides every break;
``touched_memories`` checks only the rows newer events touched (an
incremental verify, core/verify_since.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from hashlib import sha256

from brainkeep.core.access_checks import unrecorded_ok
from brainkeep.core.audit import memory_hash, memory_state_hash
from brainkeep.core.integrity_rows import MemoryCheck, MemoryState
from brainkeep.core.memory.models import REDACTED_TEXT
from brainkeep.core.ports.composites import MemoryLog
from brainkeep.core.verify_since import Touched


@dataclass(frozen=True)
class BrokenRecord:
    """One thing that failed verification."""

    kind: str  # event | page | memory | acl | delegation
    id: str
    reason: str
    slug: str | None = None

    @property
    def label(self) -> str:
        """The id the gRPC ``first_broken_at`` carries (memory uuid, ``event:<seq>``, …)."""
        if self.kind == "memory":
            return self.id
        return f"{self.kind}:{self.slug or self.id}"



def links(actual: str | None, expected: str | None, bridge: dict[str, str | None]) -> bool:
    """True when ``actual`` reaches ``expected`` through hard-deleted rows only."""
    seen: set[str] = set()
    hop = actual
    while hop != expected:
        if hop is None or hop in seen or hop not in bridge:
            return False
        seen.add(hop)
        hop = bridge[hop]
    return True



def memory_reason(state: MemoryState, previous: str | None, bridge: dict[str, str | None],
                   marker: int | None) -> str | None:
    row = state.memory
    if row.redacted_at:
        if row.text != REDACTED_TEXT:
            return "redacted row does not hold the redaction placeholder"
    elif memory_hash(row.text, row.agent_id, row.created_at) != row.content_hash:
        return "text does not match its stored content_hash"
    if state.recorded_content != row.content_hash:
        return "content_hash does not match the hash recorded in the event log"
    if not links(row.prev_hash, previous, bridge):
        return "prev_hash does not link to the previous memory of its chain"
    if state.recorded_state is None:
        if not unrecorded_ok(state.last_seq, marker):
            return "no access state recorded in the event log for this memory"
    elif state.recorded_state != memory_state_hash(row):
        return ("access state (scope, visibility, tenant, owner, lifecycle, tags, …) does not "
                "match the state recorded in the event log")
    if sorted(set(state.tag_rows)) != sorted(set(row.tags)):
        return "memory_tags rows do not match the memory's tags"
    return None


def accepted(row: MemoryCheck, previous: str | None, bridge: dict[str, str | None],
             marker: int | None) -> bool:
    """True when the lean row passes every check ``memory_reason`` makes.

    Each test is ``memory_reason``'s on the engine's rendering of the hash
    inputs: a rendering that hashes to the stored or recorded hash is the
    text that was hashed (core/integrity_rows.py), so the exact rule would
    find the same. False only means "let the exact rule decide".
    """
    if row.redacted_at:
        if row.text_if_redacted != REDACTED_TEXT:
            return False
    elif row.content_input is None or sha256(row.content_input).hexdigest() != row.content_hash:
        return False
    if row.recorded_content != row.content_hash or not links(row.prev_hash, previous, bridge):
        return False
    if row.recorded_state is None:
        if not unrecorded_ok(row.last_seq, marker):
            return False
    elif row.state_input is None or sha256(row.state_input).hexdigest() != row.recorded_state:
        return False
    if row.tags == "[]" and row.tag_rows in (None, "[]"):
        return True
    return sorted(set(json.loads(row.tag_rows or "[]"))) == sorted(set(json.loads(row.tags)))


def walk_memories(store: MemoryLog, agent_id: str | None, thread_id: str | None,
                   created_before: str | None, check_log: bool, marker: int | None,
                   bridge: dict[str, str | None]) -> tuple[int, int, list[BrokenRecord]]:
    """(memories checked, verified, breaks) of the chains in scope."""
    broken: list[BrokenRecord] = []
    checked = verified = 0
    chain_key: tuple[str, str | None] | None = None
    previous: str | None = None
    for row in store.iter_memory_checks(agent_id, thread_id, created_before=created_before):
        checked += 1
        if (row.agent_id, row.thread_id) != chain_key:
            chain_key, previous = (row.agent_id, row.thread_id), None
        if accepted(row, previous, bridge, marker):
            verified += 1
        else:
            reason = _exact_reason(store, row.uuid, previous, bridge, marker)
            if reason:
                broken.append(BrokenRecord("memory", row.uuid, reason))
            else:
                verified += 1
        previous = row.content_hash
    if check_log:
        for uuid in store.iter_vanished_memories(agent_id, thread_id):
            checked += 1
            broken.append(BrokenRecord(
                "memory", uuid, "memory row is gone but no hard_delete was logged"))
    return checked, verified, broken


def _exact_reason(store: MemoryLog, uuid: str, previous: str | None,
                  bridge: dict[str, str | None], marker: int | None) -> str | None:
    """``memory_reason`` of the full row (None: it passes, or it is gone since)."""
    for state in store.iter_memory_states(None, None, uuids=[uuid]):
        return memory_reason(state, previous, bridge, marker)
    return None  # removed meanwhile: the vanished-row check judges that


def touched_memories(store: MemoryLog, touched: Touched, agent_id: str | None,
                      thread_id: str | None, marker: int | None, bridge: dict[str, str | None],
                      hard_deleted: set[str]) -> tuple[int, int, list[BrokenRecord], int]:
    """(checked, verified, breaks in the slice, breaks outside it) of the touched memories.

    Each touched row is checked with its chain successor (a hard delete
    changes what the next row must link through); a touched uuid with no row
    and no logged hard delete vanished behind the server's back.
    """
    def in_slice(agent: str, thread: str | None) -> bool:
        return (agent_id is None or agent == agent_id) and (thread_id is None
                                                             or thread == thread_id)

    anchors = [(o, t, i) for o, t, i in touched.memories.values() if i is not None]
    checked = verified = outside = 0
    broken: list[BrokenRecord] = []
    seen: set[str] = set()
    for state, previous in store.iter_chain_states_near(anchors):
        row = state.memory
        seen.add(row.uuid)
        reason = memory_reason(state, previous, bridge, marker)
        if not in_slice(row.agent_id, row.thread_id):
            outside += reason is not None
            continue
        checked += 1
        if reason:
            broken.append(BrokenRecord("memory", row.uuid, reason))
        else:
            verified += 1
    for uuid, (owner, thread, _) in touched.memories.items():
        if uuid in seen or uuid in hard_deleted or store.get_memory_by_uuid(uuid) is not None:
            continue
        if in_slice(owner, thread):
            checked += 1
            broken.append(BrokenRecord(
                "memory", uuid, "memory row is gone but no hard_delete was logged"))
        else:
            outside += 1
    return checked, verified, broken, outside
