"""Validating an MCP/CLI fact into a memory draft: the rules every surface shares."""

from __future__ import annotations

from brainkeep.core.clock import Clock
from brainkeep.core.context import Caller
from brainkeep.core.limits import MAX_FACT_CHARS, MAX_PROVENANCE_CHARS
from brainkeep.core.memory.writes import require_utf8
from brainkeep.core.models import FACT_KINDS, VISIBILITIES, MemoryDraft
from brainkeep.core.ttl import parse_ttl
from brainkeep.errors import InvalidInput, ProvenanceRequired

__all__ = ["MAX_FACT_CHARS", "MAX_PROVENANCE_CHARS", "fact_draft"]


def fact_draft(
    clock: Clock,
    source_id: str,
    fact: str,
    provenance: str | None,
    caller: Caller,
    *,
    entity_slug: str | None = None,
    kind: str | None = None,
    ttl: str | None = None,
    visibility: str | None = None,
    session_id: str | None = None,
) -> MemoryDraft:
    """Validate a fact's inputs into a draft owned by ``caller`` (its agent, its tenant).

    ``entity_slug`` is already resolved (``core.entity_resolution``): the
    caller reports how, so it resolves the name once.

    Raises:
        InvalidInput: empty or oversized text, oversized provenance, bad kind or
            visibility, bad ttl.
        ProvenanceRequired: provenance missing or blank (only those: an
            oversized one is `invalid_params`, as in the reference server).
    """
    text = (fact or "").strip() if isinstance(fact, str) else ""
    if not text:
        raise InvalidInput(
            "The fact is empty.",
            suggestion="Pass `fact`: one self-contained statement, e.g. "
            '"Alice prefers email over phone".',
            field="fact",
        )
    if len(text) > MAX_FACT_CHARS:
        raise InvalidInput(
            f"The fact is {len(text)} characters; the limit is {MAX_FACT_CHARS}.",
            suggestion="Save one short fact per call, or put long material in a page.",
            field="fact",
        )
    require_utf8(text, "fact")
    prov = provenance.strip() if isinstance(provenance, str) else ""
    if not prov:
        raise ProvenanceRequired("`provenance` is required.", field="provenance")
    if len(prov) > MAX_PROVENANCE_CHARS:
        raise InvalidInput(
            f"`provenance` is {len(prov)} characters; the limit is {MAX_PROVENANCE_CHARS}.",
            suggestion="Shorten the attribution: provenance is a pointer to where the fact "
            'came from (e.g. "chat 2026-06-12"), not a transcript.',
            field="provenance",
        )
    require_utf8(prov, "provenance")
    if isinstance(session_id, str):
        require_utf8(session_id, "session_id")
    kind = kind or "fact"
    if kind not in FACT_KINDS:
        raise InvalidInput(
            f"Unknown kind {kind!r}.",
            suggestion=f"Use one of: {', '.join(FACT_KINDS)}.",
            field="kind",
        )
    visibility = visibility or "world"
    if visibility not in VISIBILITIES:
        raise InvalidInput(
            f"Unknown visibility {visibility!r}.",
            suggestion="Use `world` (default, every agent) or `private` (local CLI only).",
            field="visibility",
        )
    valid_until = parse_ttl(ttl, clock.now()) if ttl else None
    return MemoryDraft(
        text=text,
        source_id=source_id,
        kind=kind,
        entity_slug=entity_slug,
        visibility=visibility,
        provenance=prov,
        session_id=session_id,
        valid_until=valid_until,
        origin=caller.transport if caller.transport in ("cli", "grpc") else "mcp",
        # An unbound caller's fact has no gRPC owner: the empty agent id
        # can never be claimed by a gRPC caller (agent ids must be
        # non-empty). A caller bound to an agent (token, `serve --agent`)
        # owns its facts, in its tenant, exactly as over gRPC.
        agent_id=caller.agent_id or "",
        org_id=caller.org_id,
        scope="global" if visibility == "world" else "private",
        memory_type="semantic",
    )
