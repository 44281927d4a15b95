"""remember and forget: one fact in, one fact out, with provenance and an audit trail."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brainkeep.core.context import Caller
from brainkeep.core.forgetting import redact_fact
from brainkeep.core.verbs.common import PROTOCOL_VERSION
from brainkeep.core.verbs.views import entity_resolution_object

if TYPE_CHECKING:
    from brainkeep.core.verbs.services import VerbServices

_STATUS_TEXT = {
    "inserted": "remembered as fact #{id}",
    "duplicate": "already knew this — kept fact #{id}",
    "superseded": "updated — fact #{id} supersedes the previous version",
}
_HELD_TEXT = ("held for review as fact #{id}: it reads like instructions to an AI, so no "
              "remote reader sees it until an operator releases it")


def remember(
    brain: VerbServices,
    caller: Caller,
    *,
    fact: str,
    provenance: str | None,
    ttl: str | None = None,
    entity: str | None = None,
    kind: str | None = None,
    visibility: str | None = None,
    session_id: str | None = None,
) -> dict[str, Any]:
    """Save ONE fact; status tells inserted, duplicate (existing id) or superseded.

    With an ``entity``, ``entity_resolution`` says which page (or new slug)
    it was filed under and how the name was matched (docs/protocol.md).
    """
    result = brain.facts.remember(
        fact,
        provenance,
        caller,
        entity=entity.strip() if entity and entity.strip() else None,
        kind=kind,
        ttl=ttl.strip() if isinstance(ttl, str) and ttl.strip() else None,
        visibility=visibility,
        session_id=session_id,
    )
    memory = result.memory
    response: dict[str, Any] = {
        "id": memory.fact_id,
        "status": result.status,
        "status_text": _STATUS_TEXT[result.status].format(id=memory.fact_id),
        "entity_slug": memory.entity_slug,
        "valid_until": memory.valid_until,
        "protocol_version": PROTOCOL_VERSION,
    }
    if memory.quarantined:
        # Additive (MEMORY_VERBS v1 clients ignore it); status stays a v1 value.
        response["quarantined"] = True
        response["status_text"] = _HELD_TEXT.format(id=memory.fact_id)
    if result.degraded_dedup:
        response["degraded_dedup"] = True
    if result.entity is not None:
        response["entity_resolution"] = entity_resolution_object(result.entity, writing=True)
    return response


def forget(
    brain: VerbServices, caller: Caller, *, id: str, reason: str | None = None,
    redact: bool = False,
) -> dict[str, Any]:
    """Expire a fact by its opaque id; repeating it answers `expired: false`.

    ``redact`` (a brainkeep extension) also erases the text from every store
    and adds ``redacted`` and the forget ``receipt`` (docs/audit.md,
    "Forgetting"); a redacted fact is gone, so forgetting it again is
    ``not_found``.
    """
    fact_id = str(id).strip()
    reason = reason.strip() if isinstance(reason, str) and reason.strip() else None
    # Counted before the expiry drops the keyword entry and vector (the receipt counts them).
    counted = brain.store.memory_copies([brain.facts.find(fact_id, caller).id]) if redact \
        else None
    result = brain.facts.forget(fact_id, caller, reason=reason)
    response: dict[str, Any] = {
        "id": fact_id,
        "expired": result.expired,
        "reason": reason,
        "protocol_version": PROTOCOL_VERSION,
    }
    if redact:
        redacted, receipt = redact_fact(brain.store, brain.clock, brain.source_id,
                                        result.memory, actor=caller.client_id,
                                        issuer=brain.receipts, writer=brain.facts.writer,
                                        counted=counted)
        response["redacted"] = redacted
        response["receipt"] = receipt
    return response
