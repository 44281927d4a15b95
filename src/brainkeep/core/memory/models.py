"""Domain values of the Mnemo side: vocabularies, filters, results.

Inputs arrive as plain values (``None`` = the caller did not set the field);
the services validate them, so the rules live here and not in the gRPC edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from brainkeep.core.memory.orientation_map import OrientationMap
from brainkeep.core.models import Memory
from brainkeep.core.scope import OPEN_SCOPES, ReadScope

# The agent a request acts as when it names none (the Mnemo reference's
# server-side default agent).
DEFAULT_AGENT = "default"
DEFAULT_BRANCH = "main"

RECALL_STRATEGIES = ("auto", "hybrid", "lexical", "semantic", "exact", "graph", "reconstruct")
FORGET_STRATEGIES = ("soft_delete", "hard_delete", "decay", "archive", "consolidate", "redact")
SUBJECT_STRATEGIES = ("redact", "hard_delete", "soft_delete")
MERGE_STRATEGIES = ("full_merge", "cherry_pick", "squash")
PERMISSIONS = ("read", "write", "delete", "share", "delegate", "admin")

# What holding a permission lets an agent do. Every grant implies read;
# admin implies everything.
IMPLIED: dict[str, frozenset[str]] = {
    "read": frozenset({"read"}),
    "write": frozenset({"read", "write"}),
    "delete": frozenset({"read", "delete"}),
    "share": frozenset({"read", "share"}),
    "delegate": frozenset({"read", "delegate"}),
    "admin": frozenset(PERMISSIONS),
}

REDACTED_TEXT = "[REDACTED]"


def visibility_for_scope(scope: str) -> str:
    """The MCP ``visibility`` of a gRPC ``scope`` (one brain, two protocols)."""
    return "world" if scope in OPEN_SCOPES else "private"


@dataclass(frozen=True)
class MemoryFilter:
    """Who reads, and which memories a recall may return.

    ``reader`` is the agent asking; ``org_id`` is the tenant (``None`` = the
    tenant without an org, where MCP facts live). ``as_of`` switches from
    "active now" to "active at that instant".
    """

    source_id: str
    reader: str
    now: str
    org_id: str | None = None
    as_of: str | None = None
    memory_type: str | None = None
    scope: str | None = None
    min_importance: float | None = None
    tags: tuple[str, ...] = ()

    @property
    def read_scope(self) -> ReadScope:
        """The gRPC reader as the one read scope (never trusted: gRPC callers are remote)."""
        return ReadScope(org_id=self.org_id, reader=self.reader, as_of=self.as_of)


@dataclass(frozen=True)
class Grant:
    """A permission an agent holds on one memory, and where it came from."""

    permission: str
    via: str  # owner | acl | delegation
    delegation_id: str | None = None
    depth: int = 0
    max_depth: int = 0
    expires_at: str | None = None


@dataclass(frozen=True)
class Delegation:
    """A stored delegation (see migrations/0003_mnemo.sql)."""

    id: str
    owner: str
    delegator: str
    delegate: str
    permission: str
    selector: str
    depth: int
    max_depth: int
    parent_id: str | None
    created_at: str
    expires_at: str | None
    tags: tuple[str, ...] = ()  # selector ``tags``: the tags it covers (as listed)

    def status(self, now: str) -> str:
        """``expired`` or ``active`` at ``now`` (a revoked delegation has no row)."""
        return grant_status(self.expires_at, now)


@dataclass(frozen=True)
class Acl:
    """A stored ACL row (Share) with its memory's ids (migrations 0003, 0010)."""

    id: str
    memory_id: int
    memory_uuid: str
    owner: str
    grantee: str
    permission: str
    granted_by: str
    created_at: str
    expires_at: str | None

    def status(self, now: str) -> str:
        """``expired`` or ``active`` at ``now`` (a revoked ACL has no row)."""
        return grant_status(self.expires_at, now)


def grant_status(expires_at: str | None, now: str) -> str:
    """One status rule for ACLs and delegations (the SQL form: ``visibility.acl_live``)."""
    if expires_at is not None and expires_at <= now:
        return "expired"
    return "active"


@dataclass(frozen=True)
class Checkpoint:
    """A stored checkpoint of one agent's thread on one branch."""

    seq: int
    id: str
    agent_id: str
    thread_id: str
    branch_name: str
    parent_id: str | None
    merge_parent_id: str | None
    kind: str
    label: str | None
    state_snapshot: Any
    metadata: dict[str, Any]
    memory_refs: tuple[str, ...]
    event_cursor: int
    created_at: str


@dataclass(frozen=True)
class ChainRow:
    """The hashed fields of one memory, for chain verification."""

    id: int
    uuid: str
    agent_id: str
    thread_id: str | None
    text: str
    created_at: str
    content_hash: str
    prev_hash: str | None
    redacted_at: str | None


@dataclass(frozen=True)
class Scored:
    """A recalled memory with its fused score and per-list contributions."""

    memory: Memory
    score: float
    vector: float = 0.0
    bm25: float = 0.0
    graph: float = 0.0
    recency: float = 0.0
    rank: int = 0
    # Accesses counted but not yet written to the row (see core.memory.reads).
    unwritten_accesses: int = 0

    @property
    def access_count(self) -> int:
        return self.memory.access_count + self.unwritten_accesses


@dataclass(frozen=True)
class Reconstruction:
    """The belief-state node `reconstruct` builds from the top memories."""

    cue: str
    summary: str
    source_ids: tuple[str, ...]
    linked_context_ids: tuple[str, ...]
    confidence: float


@dataclass(frozen=True)
class RecallResult:
    """Ranked memories, plus why the ranking is weaker than asked (if it is)."""

    memories: tuple[Scored, ...]
    degraded: str | None = None
    reconstruction: Reconstruction | None = None
    # The orientation cache's rendering, when the recall asked for one.
    orientation: OrientationMap | None = None


@dataclass(frozen=True)
class ForgetOutcome:
    """Ids forgotten, and per-id failures (never a failure of the whole call)."""

    forgotten: tuple[str, ...]
    errors: tuple[tuple[str, str], ...]
    events: int = 0
    # A purging strategy's forget receipt (core/receipts.py); None otherwise.
    receipt: dict[str, Any] | None = None


# The events TrajectoryAudit reads (what the engines' audit scans select):
# memory lifecycle, scope changes, shares, recall batches.
AUDIT_EVENT_KINDS = (
    "memory.insert", "memory.delete", "memory.decay", "memory.redact", "memory.expire",
    "memory.scope", "memory.recall", "acl.grant",
)


@dataclass(frozen=True)
class AuditEvent:
    """The fields of one log event TrajectoryAudit needs."""

    seq: int
    ts: str
    kind: str
    subject_id: str
    agent_id: str
    thread_id: str | None
    strategy: str | None
    # memory.recall events: the agents whose reads the event records.
    readers: tuple[str, ...] = ()


@dataclass(frozen=True)
class FactWrite:
    """One memory row as signal (b) sees it: its fact key and whether it is retired."""

    uuid: str
    fact_id: str
    created_at: str
    retired: bool


@dataclass(frozen=True)
class VerifyOutcome:
    """Result of recomputing memory hash chains."""

    valid: bool
    total: int
    verified: int
    first_broken_id: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class ShareOutcome:
    """ACL ids created, the memories and agents they cover."""

    acl_ids: tuple[str, ...]
    memory_ids: tuple[str, ...]
    targets: tuple[str, ...]
    permission: str


@dataclass(frozen=True)
class TopicOutcome:
    """A consolidated topic document."""

    memory: Memory
    topic_name: str
    member_ids: tuple[str, ...]
    version: int
    consolidation_event: int
    superseded_id: str | None = None
    revision_event: int | None = None


@dataclass(frozen=True)
class MergeOutcome:
    """The checkpoint a merge wrote and how many memory refs it brought in."""

    checkpoint: Checkpoint
    merged_memory_count: int


@dataclass(frozen=True)
class ReplayOutcome:
    """A checkpoint (stored or virtual) with its memories and chain status."""

    checkpoint_json: dict[str, Any]
    memories: tuple[Memory, ...]
    event_count: int
    chain: VerifyOutcome


@dataclass(frozen=True)
class SubjectOutcome:
    """ForgetSubject result."""

    subject_id: str
    strategy: str
    matched: int
    forgotten: tuple[str, ...]
    events: int
    errors: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    # A purging strategy's forget receipt (core/receipts.py); None otherwise.
    receipt: dict[str, Any] | None = None
