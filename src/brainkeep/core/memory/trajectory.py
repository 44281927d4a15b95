"""TrajectoryAudit: four GEM-style signals over the event log of a scope.

(a) unregulated growth — the live bank (inserts minus deletes, expiries and
    redactions, tracked per memory) against ``active_bank_ceiling``;
(b) missing semantic revision — several memories carry the same
    ``metadata[fact_key]`` and the older ones were never retired;
(c) capacity-driven forgetting — delete/decay events whose ``strategy`` is
    missing or outside ``named_forget_strategies``;
(d) read-only retrieval — agents that recalled but never wrote.

Differences from the Mnemo reference (docs/grpc.md): (b) reads the fact key
from memory metadata (our events never copy metadata, for erasure's sake);
(d) keys scopes by agent, because Recall carries no thread; (a) tracks which
memories are live, so a redaction after a soft delete is not counted twice.
Memory events carry one payload whichever protocol wrote them (core/events.py),
so an agent's scope also covers MCP-side changes to its memories (an MCP
``forget`` is a ``memory.expire`` naming the memory's ``owner``).

Every signal covers only memories the reader may see (core/memory/thread_scope.py:
the agent in the no-org tenant, or that whole tenant for "all agents"). Reads
come from the read log (``memory_reads``, outside the hash chain, one row per
recall), merged with the chain's events in time order and limited to the
reader's tenant, so one org's audit never counts another org's reads. Brains
older than migration 0014 also hold ``memory.recall`` batch events in the
chain; they name agents, not a tenant, and are counted as before.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from brainkeep.core.memory import validation as v
from brainkeep.core.memory.context import MnemoContext
from brainkeep.core.memory.models import AuditEvent
from brainkeep.core.memory.reads import MemoryRead
from brainkeep.core.memory.thread_scope import reader_scope
from brainkeep.errors import InvalidInput

DEFAULT_CEILING = 1024
DEFAULT_FACT_KEY = "fact_id"
CANONICAL_STRATEGIES = ("soft_delete", "hard_delete", "decay", "consolidate", "archive")
TIMELINE_POINTS = 1000
FORGET_KINDS = ("memory.delete", "memory.decay")
REMOVING_KINDS = ("memory.delete", "memory.expire", "memory.redact")
WRITE_KINDS = ("memory.insert", "memory.delete", "memory.decay", "memory.redact",
               "memory.expire", "memory.scope", "acl.grant")


@dataclass(frozen=True)
class Finding:
    """Severity (ok | warn | fail) and the scalar count the proto carries."""

    severity: str
    count: int


@dataclass(frozen=True)
class AuditReport:
    """The four findings plus the full JSON-ready report."""

    scope_label: str
    event_count: int
    growth: Finding
    revision: Finding
    capacity: Finding
    read_only: Finding
    report: dict[str, Any]

    @property
    def all_ok(self) -> bool:
        return all(f.severity == "ok" for f in (self.growth, self.revision, self.capacity,
                                                  self.read_only))


def _tier(count: int, warn_max: int) -> str:
    return "ok" if count == 0 else "warn" if count <= warn_max else "fail"


def _thin(points: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """At most TIMELINE_POINTS samples, always keeping the last one."""
    if len(points) <= TIMELINE_POINTS:
        return points
    step = -(-len(points) // TIMELINE_POINTS)
    return points[::step] + ([points[-1]] if (len(points) - 1) % step else [])


def audit(ctx: MnemoContext, *, agent_id: str | None, thread_id: str | None,
          active_bank_ceiling: int | None, fact_key: str | None,
          named_forget_strategies: tuple[str, ...]) -> AuditReport:
    """Run the audit over the scope's events.

    Raises:
        InvalidInput: bad agent/thread/ceiling, or no event in the window.
    """
    agent = None if agent_id is None else v.agent_id(agent_id)
    thread = v.label(thread_id, "thread_id")
    if active_bank_ceiling is not None and active_bank_ceiling < 1:
        raise InvalidInput("`active_bank_ceiling` must be at least 1.",
                           field="active_bank_ceiling")
    ceiling = active_bank_ceiling or DEFAULT_CEILING
    key = v.label(fact_key, "fact_key") or DEFAULT_FACT_KEY
    named = set(named_forget_strategies or CANONICAL_STRATEGIES)
    ctx.reads.flush()  # buffered recalls are part of the trajectory
    # Findings and counts cover only memories the reader may see (no org_id on
    # the request: the no-org tenant; no agent: that whole tenant).
    scope, now = reader_scope(agent), ctx.clock.now_ts()

    live: set[str] = set()
    timeline: list[tuple[str, int]] = []
    peak = breaches = count = 0
    histogram: dict[str, int] = {}
    unlabelled: list[int] = []
    reads: dict[str, int] = {}
    writes: dict[str, int] = {}
    events = ctx.store.memory_audit_events(agent, thread, scope=scope, now=now)
    read_log = ctx.store.iter_reads(scope.org_id, agent, thread)
    merged: Iterator[AuditEvent | MemoryRead] = heapq.merge(
        events, read_log, key=lambda item: item.ts)
    for event in merged:
        count += 1
        if isinstance(event, MemoryRead):
            reads[event.agent_id] = reads.get(event.agent_id, 0) + 1
            continue
        if event.kind == "memory.recall":  # a pre-0014 read batch in the chain
            for reader in event.readers:
                if agent is None or reader == agent:
                    reads[reader] = reads.get(reader, 0) + 1
            continue
        if event.kind in WRITE_KINDS:
            writes[event.agent_id] = writes.get(event.agent_id, 0) + 1
        if event.kind in FORGET_KINDS:
            bucket = event.strategy or "<unlabelled>"
            histogram[bucket] = histogram.get(bucket, 0) + 1
            if event.strategy not in named:
                unlabelled.append(event.seq)
        if event.kind == "memory.insert":
            live.add(event.subject_id)
        elif event.kind in REMOVING_KINDS:
            live.discard(event.subject_id)
        else:
            continue
        peak = max(peak, len(live))
        breaches += len(live) > ceiling
        timeline.append((event.ts, len(live)))
    if count == 0:
        label = agent or "any agent"
        raise InvalidInput(
            f"No events to audit for {label}" + (f", thread {thread}" if thread else "") + ".",
            suggestion="Audit a scope that has remembered, recalled or forgotten something.",
            field="agent_id",
        )

    growth_sev = "ok" if breaches == 0 else "warn" if peak <= 2 * ceiling else "fail"
    facts: dict[str, list[Any]] = {}
    for write in ctx.store.fact_key_writes(agent, thread, key, scope=scope, now=now):
        facts.setdefault(write.fact_id, []).append(write)
    stale = []
    for fact_id, group in sorted(facts.items()):
        survivors = [w.uuid for w in group[:-1] if not w.retired]
        if len(group) > 1 and survivors:
            stale.append({"fact_id": fact_id, "memory_ids": [w.uuid for w in group],
                          "stale_memory_ids": survivors})
    read_only = sorted(a for a in reads if not writes.get(a))
    scope_label = (f"agent={agent},thread={thread}" if agent and thread else
                   f"agent={agent}" if agent else f"thread={thread}" if thread else "all")
    report = {
        "scope_label": scope_label,
        "event_count": count,
        "unregulated_growth": {"severity": growth_sev, "breach_count": breaches,
                               "peak_active_size": peak, "ceiling": ceiling,
                               "timeline": _thin(timeline)},
        "missing_semantic_revision": {"severity": _tier(len(stale), 5), "fact_key": key,
                                      "stale_facts": stale},
        "capacity_driven_forgetting": {"severity": _tier(len(unlabelled), 3),
                                       "unlabelled_forget_event_seqs": unlabelled,
                                       "strategy_histogram": histogram,
                                       "named_forget_strategies": sorted(named)},
        "read_only_retrieval": {"severity": _tier(len(read_only), 2),
                                "read_only_scopes": read_only},
    }
    return AuditReport(
        scope_label=scope_label,
        event_count=count,
        growth=Finding(growth_sev, breaches),
        revision=Finding(_tier(len(stale), 5), len(stale)),
        capacity=Finding(_tier(len(unlabelled), 3), len(unlabelled)),
        read_only=Finding(_tier(len(read_only), 2), len(read_only)),
        report=report,
    )
