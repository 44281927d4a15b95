"""The orientation cache: a per-namespace context map that recall maintains (Mnemo v0.4.8).

A recall that sends ``orientation_cache`` (gRPC ``OrientationCacheRequest``)
distills the memories it returns (``distill.py``: entities, constants,
schemas; no LLM) into its namespace's map, kept in the brain so every server
process on one PostgreSQL brain shares it, and gets back a rendering that
fits ``token_budget``. The rules, in the order the proto states them:

- **namespace** — the operator's label, else derived from the request's
  tenant and agent: ``<agent>`` in the tenant without an org, else
  ``<org>/<agent>`` (neither id may contain ``/``). Namespaces are keyed by
  tenant as well as label: another org's ``ops`` is another map.
- **token_budget** — default 512, at most 8,192 (larger values are
  clamped, like ``limit``); 0 gives an empty map. The map's
  ``token_estimate`` (the sum of its entries' estimates) never exceeds
  ``budget``, which reports the budget applied.
- **distill** — default true: the namespace's ``hit_count`` grows by one
  and each returned memory's observations by one occurrence. False is
  read-only inspection: nothing is written.
- **include_in_response** — default true; false updates the map (when
  distilling) but returns nothing.

**Scope.** Entries are stored with the memory they came from, and a map is
always read through the reader's own recall filter (tenant, lifecycle,
access: the one read scope of ``store/sql/scope.py``), frequencies summed
over the rows that pass it. So a caller never sees an entry derived from a
row it cannot read now — another agent's private memory, another org's, a
quarantined, forgotten, expired or no-longer-shared one — whichever
namespace label it names; what a shared label shares is the hit count and
how often readable rows came back.

**Rendering.** Each entry is one line, ``key: value (freq)``; its
``token_estimate`` is that line's char/4 estimate (the one the verbs pack
by). Entries are taken round-robin across the three kinds, each kind most
frequent first (ties by key, then value), skipping any entry that would
overflow the budget, so one busy kind cannot crowd the others out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from brainkeep.core import validate
from brainkeep.core.limits import ORIENTATION_BUDGET_DEFAULT, ORIENTATION_BUDGET_MAX
from brainkeep.core.memory import validation as v
from brainkeep.core.memory.context import MnemoContext
from brainkeep.core.memory.distill import distill
from brainkeep.core.memory.models import MemoryFilter
from brainkeep.core.memory.orientation_map import (
    KINDS,
    Observation,
    OrientationEntry,
    OrientationMap,
    OrientationRequest,
    StoredEntry,
    StoredMap,
)
from brainkeep.core.models import Memory
from brainkeep.core.ports.orientation import OrientationRepository
from brainkeep.core.scope import ReadScope
from brainkeep.core.verbs.common import estimate_tokens

# The shortest line ("k: v (1)") is two tokens, so a budget holds at most
# budget // 2 entries; no kind needs more rows than that (or than this cap).
MIN_LINE_TOKENS = 2
MAX_ROWS_PER_KIND = 1024


@dataclass(frozen=True)
class OrientationPlan:
    """A validated request: the namespace resolved, the budget applied, the two switches."""

    namespace: str
    budget: int
    include: bool
    distill: bool


def default_namespace(org_id: str | None, agent_id: str) -> str:
    """The namespace of a request that names none: its agent, within its org."""
    return agent_id if org_id is None else f"{org_id}/{agent_id}"


def plan(req: OrientationRequest, filt: MemoryFilter) -> OrientationPlan:
    """Validate ``req`` for a recall under ``filt`` (before the recall runs).

    Raises:
        InvalidInput: a blank, over-long or control-character namespace label.
    """
    label = v.label(req.namespace, "orientation_cache.namespace")
    budget = ORIENTATION_BUDGET_DEFAULT
    if req.token_budget is not None:
        # A result size: clamped above the cap (validate.limit's rule), but 0 is
        # a valid budget here (the hit count alone).
        budget = min(validate.bounded_int(req.token_budget, field="orientation_cache.token_budget",
                                          minimum=0, maximum=2**32 - 1), ORIENTATION_BUDGET_MAX)
    return OrientationPlan(
        namespace=label or default_namespace(filt.org_id, filt.reader),
        budget=budget,
        include=req.include_in_response is not False,
        distill=req.distill is not False,
    )


def line(key: str, value: str, freq: int) -> str:
    """How an entry renders (and so what its ``token_estimate`` counts)."""
    return f"{key}: {value} ({freq})"


def render(stored: StoredMap, namespace: str, budget: int) -> OrientationMap:
    """The map within ``budget`` tokens: round-robin over the kinds, most frequent first."""
    queues: dict[str, list[StoredEntry]] = {kind: [] for kind in KINDS}
    for entry in stored.entries:
        queues[entry.kind].append(entry)
    for queue in queues.values():
        queue.sort(key=lambda e: (-e.freq, e.key, e.value))
    taken: dict[str, list[OrientationEntry]] = {kind: [] for kind in KINDS}
    used = 0
    for rank in range(max((len(q) for q in queues.values()), default=0)):
        if budget - used < MIN_LINE_TOKENS:
            break  # no line fits any more
        for kind in KINDS:
            if rank >= len(queues[kind]):
                continue
            e = queues[kind][rank]
            cost = estimate_tokens(line(e.key, e.value, e.freq))
            if used + cost <= budget:
                taken[kind].append(OrientationEntry(e.key, e.value, e.freq, cost))
                used += cost
    return OrientationMap(
        namespace=namespace, entities=tuple(taken["entity"]),
        constants=tuple(taken["constant"]), schemas=tuple(taken["schema"]),
        token_estimate=used, budget=budget, hit_count=stored.hit_count,
    )


def observations(memories: Sequence[Memory]) -> list[tuple[int, Observation]]:
    """What the returned memories contribute, as (memory id, observation), in a fixed order.

    Sorted so that concurrent writers touch rows in one order (no deadlock
    between two PostgreSQL transactions incrementing the same entries).
    """
    pairs = {(m.id, o) for m in memories for o in distill(m)}
    return sorted(pairs, key=lambda p: (p[0], p[1].kind, p[1].key, p[1].value))


def maintain(ctx: MnemoContext, filt: MemoryFilter, memories: Sequence[Memory],
             plan: OrientationPlan) -> OrientationMap | None:
    """Distill ``memories`` into the namespace's map (unless inspecting) and render it.

    ``filt`` is the recall's filter: its tenant and reader decide which
    entries the rendering may count. Returns None when the request asked
    not to include the map.
    """
    if plan.distill:
        found = observations(memories)
        now = ctx.clock.now_ts()
        ctx.transact(lambda: ctx.store.orientation_record(filt.org_id, plan.namespace,
                                                          found, now))
    if not plan.include:
        return None
    # The reader's scope only, live now: the recall's own filters (type, tags,
    # as_of) narrow what it returns, not what the map may count.
    scope = MemoryFilter(source_id=filt.source_id, reader=filt.reader, now=filt.now,
                         org_id=filt.org_id).read_scope
    return read_map(ctx.store, plan.namespace, source_id=filt.source_id, scope=scope,
                    now=ctx.clock.now_ts(), budget=plan.budget)


def read_map(store: OrientationRepository, namespace: str, *, source_id: str,
             scope: ReadScope, now: str, budget: int) -> OrientationMap:
    """A namespace's map as ``scope`` may see it, within ``budget`` (no write)."""
    per_kind = min(budget // MIN_LINE_TOKENS, MAX_ROWS_PER_KIND)
    stored = store.orientation_read(namespace, source_id=source_id, scope=scope, now=now,
                                    per_kind=per_kind)
    return render(stored, namespace, budget)
