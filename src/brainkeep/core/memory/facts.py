"""Facts: remember, list, forget — the MCP side of the one memories table."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from brainkeep.core.clock import Clock
from brainkeep.core.context import Caller
from brainkeep.core.entity_resolution import EntityResolution, resolve_fact_entity
from brainkeep.core.ids import is_uuid
from brainkeep.core.memory import grants, writes
from brainkeep.core.memory.drafts import MAX_FACT_CHARS, fact_draft
from brainkeep.core.memory.group_commit import GroupCommit
from brainkeep.core.memory.writes import normalize_fact
from brainkeep.core.models import (
    DEFAULT_SOURCE,
    Memory,
    MemoryDraft,
)
from brainkeep.core.ports.composites import FactStore
from brainkeep.core.retrieval import FactFilter
from brainkeep.core.scope import can_see, may_change
from brainkeep.errors import InvalidInput, NotFound, PermissionDenied

FACT_LIMIT_MAX = 100
# Integer fact ids fit SQLite's signed 64-bit column; longer digit strings cannot name one.
MAX_ID_DIGITS = 18
__all__ = ["MAX_FACT_CHARS", "FactService", "normalize_fact"]


@dataclass(frozen=True)
class SimilarFact:
    """The nearest active fact of the same entity, by embedding cosine."""

    memory: Memory
    cosine: float


class FactSimilarity(Protocol):
    """Similarity seam for dedup and supersession (needs an embedding provider).

    ``prepare`` runs the model before the write transaction and returns an
    opaque value (None when the provider failed); ``nearest`` and ``index``
    run inside it.
    """

    def prepare(self, draft: MemoryDraft, caller: Caller, now: str) -> Any | None: ...
    def nearest(
        self, draft: MemoryDraft, prepared: Any, caller: Caller, now: str
    ) -> SimilarFact | None: ...
    def index(self, memory: Memory, prepared: Any) -> None: ...


class FactRanker(Protocol):
    """Ranks facts for a query (``core.hybrid.FactSearch``)."""

    def search(self, query: str, filt: FactFilter, *, limit: int) -> list[Memory]: ...


def same_text(a: str, b: str) -> bool:
    """The same fact key (the supersede/duplicate line: one rule with exact duplicates)."""
    return normalize_fact(a) == normalize_fact(b)


@dataclass(frozen=True)
class RememberResult:
    """Outcome of `remember`: status is inserted, duplicate or superseded."""

    memory: Memory
    status: str
    superseded: Memory | None = None
    degraded_dedup: bool = False
    entity: EntityResolution | None = None  # how the `entity` input was resolved


@dataclass(frozen=True)
class ForgetResult:
    """Outcome of `forget`: ``expired`` is False when it was already expired."""

    memory: Memory
    expired: bool
    reason: str | None


@dataclass(frozen=True)
class FactService:
    """Fact operations over a Store, for one source."""

    store: FactStore
    clock: Clock
    source_id: str = DEFAULT_SOURCE
    similarity: FactSimilarity | None = None
    ranker: FactRanker | None = None
    duplicate_threshold: float = 0.95
    # The brain's one group commit (shared with MnemoContext): every fact write runs in it.
    writer: GroupCommit = field(kw_only=True, compare=False, repr=False)

    def build_draft(
        self,
        fact: str,
        provenance: str | None,
        caller: Caller,
        *,
        entity: str | None = None,
        kind: str | None = None,
        ttl: str | None = None,
        visibility: str | None = None,
        session_id: str | None = None,
    ) -> MemoryDraft:
        """Validate inputs into a draft (raises ``InvalidInput`` / ``ProvenanceRequired``).

        ``entity`` is a slug already resolved (``resolve_entity``).
        """
        return fact_draft(
            self.clock, self.source_id, fact, provenance, caller,
            entity_slug=entity, kind=kind, ttl=ttl, visibility=visibility, session_id=session_id,
        )

    def resolve_entity(self, name: str | None, caller: Caller) -> EntityResolution | None:
        """The slug facts about ``name`` are filed and read under, and how it was found."""
        return resolve_fact_entity(
            self.store, self.source_id, name, include_private=caller.include_private
        )

    def remember(
        self,
        fact: str,
        provenance: str | None,
        caller: Caller,
        *,
        entity: str | None = None,
        kind: str | None = None,
        ttl: str | None = None,
        visibility: str | None = None,
        session_id: str | None = None,
    ) -> RememberResult:
        """Save one fact, answering `duplicate` instead of inserting it twice.

        ``entity`` is resolved here, for every surface (``core.entity_resolution``);
        the result's ``entity`` says how.
        """
        draft = self.build_draft(
            fact, provenance, caller, kind=kind, ttl=ttl, visibility=visibility,
            session_id=session_id,
        )
        resolution = self.resolve_entity(entity, caller)
        if resolution is not None:
            draft = replace(draft, entity_slug=resolution.slug)
        return replace(self._remember(draft, caller), entity=resolution)

    def _remember(self, draft: MemoryDraft, caller: Caller) -> RememberResult:
        normalized = normalize_fact(draft.text)
        prepared = None
        if self.similarity is not None:
            prepared = self.similarity.prepare(draft, caller, self.clock.now_ts())
        # Degraded = similarity could not run: no provider, or it failed just now.
        degraded = prepared is None

        def work() -> RememberResult:
            now = self.clock.now_ts()
            existing = self.store.find_active_duplicate(
                self.source_id, draft.entity_slug, normalized, now, caller.read_scope
            )
            if existing is not None and self._may_absorb(existing, draft, caller):
                return RememberResult(existing, "duplicate", degraded_dedup=degraded)
            superseded: Memory | None = None
            if self.similarity is not None and prepared is not None and draft.entity_slug:
                near = self.similarity.nearest(draft, prepared, caller, now)
                # Another agent's fact is never replaced by this caller's write.
                if (
                    near is not None
                    and near.cosine >= self.duplicate_threshold
                    and self._may_change(near.memory, caller, "write", now)
                ):
                    if near.memory.kind == draft.kind and not same_text(
                        near.memory.text, draft.text
                    ):
                        superseded = near.memory
                    else:
                        # Same text, or the same claim under another kind: the
                        # reference rule answers duplicate and writes nothing.
                        return RememberResult(near.memory, "duplicate")
            memory = self.insert(draft, normalized, now, actor=caller.client_id)
            if self.similarity is not None and prepared is not None:
                self.similarity.index(memory, prepared)
            # A held write replaces nothing: poisoning must not expire a good fact.
            if superseded is not None and not memory.quarantined:
                self.expire(superseded, now, f"superseded by fact #{memory.id}",
                            superseded_by=memory.id, actor=caller.client_id)
                return RememberResult(memory, "superseded", superseded)
            return RememberResult(memory, "inserted", degraded_dedup=degraded)

        # The brain's one group commit, as every gRPC write: answered only after
        # the commit that holds this write (core/memory/group_commit.py).
        return self.writer.run(work)

    @staticmethod
    def _may_absorb(existing: Memory, draft: MemoryDraft, caller: Caller) -> bool:
        """Whether ``draft`` may be answered with ``existing`` as its duplicate.

        Never a private fact for a remote caller (its id would leak), and
        never a private fact for a world draft (remote readers would lose it).
        Never another tenant's fact (its writer could not read it back), and
        a non-world fact only for its own owner.
        """
        if existing.org_id != draft.org_id:
            return False
        if existing.visibility == "world":
            return True
        return (not caller.remote and draft.visibility != "world"
                and existing.agent_id == draft.agent_id)

    def insert(self, draft: MemoryDraft, normalized: str, now: str, *, actor: str) -> Memory:
        """Insert a memory and its audit event (call inside a ``writer`` job)."""
        return writes.insert(self.store, draft, now, actor=actor, normalized=normalized)[0]

    def expire(
        self,
        memory: Memory,
        now: str,
        reason: str | None,
        *,
        superseded_by: int | None = None,
        actor: str = "local",
    ) -> Memory:
        """Expire a memory and log it (call inside a ``writer`` job); the expired row."""
        return writes.expire(self.store, memory, now, reason, actor=actor,
                             superseded_by=superseded_by)[0]

    def find(self, fact_id: str, caller: Caller) -> Memory:
        """A fact by its opaque id (integer or UUID) visible to ``caller``.

        Raises:
            NotFound: unknown, another source's or tenant's, or not readable
                by the caller (core/scope.py) — one answer, never a hint.
        """
        raw = str(fact_id).strip() if fact_id is not None else ""
        memory: Memory | None = None
        # isascii: str.isdigit() is true for "²", which int() refuses (an internal error).
        if raw.isascii() and raw.isdigit() and len(raw) <= MAX_ID_DIGITS:
            memory = self.store.get_memory(int(raw))
        elif is_uuid(raw):
            memory = self.store.get_memory_by_uuid(raw.lower())
        now = self.clock.now_ts()
        scope = caller.read_scope
        if (
            memory is None
            or memory.source_id != self.source_id
            or memory.deleted_at
            or not can_see(
                memory, scope, lambda: grants.holds(self.store, memory, scope, "read", now),
                lambda: grants.any_live_acl(self.store, memory, now),
            )
        ):
            raise NotFound(
                f"No fact with id {raw!r}.",
                suggestion="Use a `fact_id` from `recall` or the `id` returned by `remember` "
                "(never a page slug).",
                field="id",
            )
        return memory

    def _may_change(self, memory: Memory, caller: Caller, permission: str, now: str) -> bool:
        scope = caller.read_scope
        return may_change(
            memory, scope, lambda p: grants.holds(self.store, memory, scope, p, now), permission
        )

    def forget(self, fact_id: str, caller: Caller, *, reason: str | None = None) -> ForgetResult:
        """Expire a fact; idempotent (``expired`` False when already expired).

        Raises:
            NotFound: the caller cannot read the fact.
            PermissionDenied: it can read it but may not delete it (another
                agent's memory without a `delete` grant), whichever protocol asks.
        """
        def work() -> ForgetResult:
            memory = self.find(fact_id, caller)
            now = self.clock.now_ts()
            if not self._may_change(memory, caller, "delete", now):
                raise PermissionDenied(
                    f"Fact {memory.id} belongs to agent {memory.agent_id!r}; this caller may "
                    "read it but not forget it.",
                    suggestion="Forget it as its owner, or ask the owner to Share `delete`.",
                    field="id",
                )
            if not memory.is_active(now):
                return ForgetResult(memory, False, memory.expired_reason)
            expired = self.expire(memory, now, reason or "forgotten", actor=caller.client_id)
            return ForgetResult(expired, True, reason)

        return self.writer.run(work)

    def list_facts(
        self,
        caller: Caller,
        *,
        entity: str | None = None,
        since: str | None = None,
        session_id: str | None = None,
        include_expired: bool = False,
        grep: str | None = None,
        limit: int = 50,
        query: str | None = None,
        resolved: EntityResolution | None = None,
    ) -> list[Memory]:
        """Facts matching every filter given (entity, since, session and grep compose).

        With ``query`` (and a ranker), facts matching the query come first,
        best first. Without other filters only those are returned; with
        filters the remaining filter matches follow in the usual order, so
        adding a query never hides a fact the filters select. ``resolved``:
        ``entity`` already resolved by ``resolve_entity`` (not resolved again).
        """
        if not 1 <= limit <= FACT_LIMIT_MAX:
            raise InvalidInput(
                f"limit must be between 1 and {FACT_LIMIT_MAX}.", field="limit"
            )
        if resolved is None:
            resolved = self.resolve_entity(entity, caller)
        entity_slug = resolved.slug if resolved is not None else None
        now = self.clock.now_ts()
        ranked: list[Memory] = []
        filt = FactFilter(
            now=now,
            scope=caller.read_scope,
            entity_slug=entity_slug,
            since=since,
            session_id=session_id,
            include_expired=include_expired,
            text_contains=grep,
        )
        if query and query.strip() and self.ranker is not None:
            ranked = self.ranker.search(query.strip(), filt, limit=limit)
            if not filt.narrowed:
                return ranked
        listed = self.store.list_memories(
            self.source_id,
            now=now,
            entity_slug=entity_slug,
            since=since,
            session_id=session_id,
            scope=caller.read_scope,
            include_expired=include_expired,
            text_contains=grep,
            limit=limit,
        )
        if not ranked:
            return listed
        seen = {m.id for m in ranked}
        return (ranked + [m for m in listed if m.id not in seen])[:limit]
