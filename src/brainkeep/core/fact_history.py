"""One fact's history: the versions that replaced one another, and its events.

Supersession links a newer fact to the one it replaced
(``superseded_by``); consolidation links a topic document to its members.
Every memory shown is fetched through ``FactService.find`` or listed with the
reader's ``ReadScope``, so the history never reveals a version the reader may
not read (a private predecessor of a world fact stays hidden remotely).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from brainkeep.core.context import Caller
from brainkeep.core.memory.facts import FactService
from brainkeep.core.models import Memory
from brainkeep.errors import NotFound

CHAIN_CAP = 25
SIBLINGS_SCANNED = 100


@dataclass(frozen=True)
class HistoryStep:
    """One audit event of one version (``seq`` orders them along the chain)."""

    seq: int
    ts: str
    kind: str
    fact_id: str
    actor: str
    detail: dict[str, Any]


@dataclass(frozen=True)
class FactHistory:
    """The fact, its versions oldest first (it included), members, and events."""

    memory: Memory
    versions: tuple[Memory, ...]
    members: tuple[Memory, ...]
    steps: tuple[HistoryStep, ...]


def _visible(facts: FactService, ref: str | int, caller: Caller) -> Memory | None:
    try:
        return facts.find(str(ref), caller)
    except NotFound:
        return None


def fact_history(facts: FactService, fact_id: str, caller: Caller) -> FactHistory:
    """The history of ``fact_id`` as ``caller`` may see it.

    Raises:
        NotFound: the caller cannot read the fact.
    """
    store = facts.store
    memory = facts.find(fact_id, caller)
    older: list[Memory] = []
    current = memory
    now = facts.clock.now_ts()
    while len(older) < CHAIN_CAP:
        # Predecessors share the entity (supersession compares facts of one entity).
        siblings = store.list_memories(
            facts.source_id, now=now, entity_slug=current.entity_slug, scope=caller.read_scope,
            include_expired=True, limit=SIBLINGS_SCANNED,
        ) if current.entity_slug else []
        previous = next((m for m in siblings if m.superseded_by == current.id), None)
        if previous is None:
            break
        older.append(previous)
        current = previous
    newer: list[Memory] = []
    current = memory
    while current.superseded_by is not None and len(newer) < CHAIN_CAP:
        following = _visible(facts, current.superseded_by, caller)
        if following is None:
            break
        newer.append(following)
        current = following
    members: list[Memory] = []
    if memory.consolidation_state == "topic":
        for uuid in store.topic_members(memory.id)[:CHAIN_CAP]:
            member = _visible(facts, uuid, caller)
            if member is not None:
                members.append(member)
    versions = tuple(reversed(older)) + (memory,) + tuple(newer)
    steps = [
        HistoryStep(e.seq, e.ts, e.kind, m.fact_id, e.actor,
                    {k: v for k, v in e.payload.items()
                     if k in ("reason", "superseded_by", "strategy", "visibility", "kind")
                     and v is not None})
        for m in versions for e in store.events_for("memory", m.uuid)
    ]
    return FactHistory(memory, versions, tuple(members), tuple(sorted(steps, key=lambda s: s.seq)))
