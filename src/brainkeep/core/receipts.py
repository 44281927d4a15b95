"""Forget receipts: proof that an erasure happened, checkable later.

A purging forget returns a receipt (docs/audit.md, "Forgetting"): the event
that logged the erasure (its ``seq`` and ``hash``; its payload records the
memory ids and the counts purged per store, so both are under the chain's
hashes and the receipt stays a few hundred bytes however many memories it
covers), the chain head when it was issued, the counts again, and what the
engine did to its files after the commit (``scrub``). When a
signing key is configured the receipt is signed with it (Ed25519 over the
canonical JSON of every other field, domain-separated like chain
checkpoints), so a copy kept by the user cannot be forged or edited.

``check`` (``brainkeep verify --receipt FILE``) re-proves one against the
brain: the signature, the logged event and the head (both still in the
chain with the same hashes, so the log was not rewritten under the
receipt), the counts against the event, and that every memory it names is
still gone or redacted with no copy of its text in any index.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from brainkeep.core import signing
from brainkeep.core.audit import canonical
from brainkeep.core.erasure import Erasure
from brainkeep.core.models import DEFAULT_SOURCE, Event, NewEvent
from brainkeep.core.ports.composites import ErasureStore
from brainkeep.errors import InvalidInput, NotFound

FORMAT = "brainkeep forget receipt v1"
ERASE_KIND = "memory.erase"  # the summary event of a purging forget (ForgetSubject: subject.erase)
ERASE_SUBJECT = "erasure"
SUBJECT_ERASE_KIND = "subject.erase"


def erase_subject_id(memory_uuids: tuple[str, ...]) -> str:
    """The summary event's subject: a SHA-256 of the sorted memory ids it names."""
    return hashlib.sha256("\n".join(sorted(memory_uuids)).encode()).hexdigest()


def erase_event(erasure: Erasure, *, actor: str, strategy: str,
                source_id: str = DEFAULT_SOURCE) -> NewEvent:
    """The ``memory.erase`` event of a purging forget (MCP forget, gRPC Forget)."""
    return NewEvent(kind=ERASE_KIND, subject_type=ERASE_SUBJECT,
                    subject_id=erase_subject_id(erasure.memory_uuids),
                    payload=erase_payload(erasure, actor=actor, strategy=strategy),
                    source_id=source_id, actor=actor)


def erase_payload(erasure: Erasure, *, actor: str, strategy: str) -> dict[str, Any]:
    """What a receipt's event records: ids and counts, never text."""
    return {"agent_id": actor, "strategy": strategy,
            "memory_ids": list(erasure.memory_uuids), "purged": dict(erasure.purged)}


def _message(body: Mapping[str, Any]) -> bytes:
    return canonical({"purpose": FORMAT, "receipt": dict(body)})


def _unsigned(receipt: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in receipt.items() if k != "signature"}


@dataclass(frozen=True)
class ReceiptIssuer:
    """Builds (and, with a key, signs) receipts over one store.

    ``signing_key`` is asked at each issue, so a key configured for the
    process (``BRAINKEEP_SIGNING_KEY_FILE``/``BRAINKEEP_SIGNING_KEY``, read by
    the composition root) signs every receipt and none is read at start-up.
    """

    store: ErasureStore
    signing_key: Callable[[], Ed25519PrivateKey | None] = field(default=lambda: None)

    def issue(self, *, operation: str, strategy: str, event: Event, erasure: Erasure,
              scrub: Mapping[str, Any], now: str) -> dict[str, Any]:
        """The receipt of one committed erasure (``event``: its logged summary)."""
        tip = self.store.chain_tip()
        head = {"seq": tip[0], "hash": tip[1]} if tip else {"seq": event.seq, "hash": event.hash}
        receipt: dict[str, Any] = {
            "format": FORMAT,
            "operation": operation,
            "strategy": strategy,
            "issued_at": now,
            "event": {"seq": event.seq, "hash": event.hash, "kind": event.kind},
            "head": head,
            "memory_count": len(erasure.memory_uuids),
            "purged": dict(erasure.purged),
            "scrub": dict(scrub),
        }
        key = self.signing_key()
        if key is not None:
            public = key.public_key()
            receipt["signature"] = {
                "key_fingerprint": signing.fingerprint(public),
                "public_key": base64.b64encode(signing.public_bytes(public)).decode(),
                "signature": base64.b64encode(key.sign(_message(receipt))).decode(),
            }
        return receipt


@dataclass(frozen=True)
class ReceiptCheck:
    """The verdict on one receipt: ``problems`` empty means it holds."""

    problems: tuple[str, ...]
    signed: bool
    key_fingerprint: str | None

    @property
    def valid(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {"valid": self.valid, "signed": self.signed,
                "key_fingerprint": self.key_fingerprint, "problems": list(self.problems)}


def load(text: str) -> dict[str, Any]:
    """A receipt from JSON: the receipt itself, or a forget response carrying one.

    Raises:
        InvalidInput: not JSON, or no receipt in it.
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InvalidInput("The receipt file is not JSON.", field="receipt") from exc
    if isinstance(data, dict) and isinstance(data.get("receipt"), dict):
        data = data["receipt"]
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InvalidInput("The file holds no forget receipt.", field="receipt",
                           suggestion=f"Pass the JSON a purging forget returned ({FORMAT!r}).")
    return data


def _signature_problem(receipt: Mapping[str, Any],
                       trusted: Ed25519PublicKey | None) -> tuple[str | None, str | None]:
    sig = receipt.get("signature")
    if sig is None:
        return None, ("the receipt is unsigned, but a trusted key was given"
                      if trusted is not None else None)
    if not isinstance(sig, dict):
        return None, "the signature block is malformed"
    fingerprint = sig.get("key_fingerprint")
    try:
        named = signing.parse_public_key(str(sig.get("public_key", "")).encode())
        raw = base64.b64decode(str(sig.get("signature", "")), validate=True)
    except (InvalidInput, binascii.Error, ValueError):
        return None, "the signature block is malformed"
    if signing.fingerprint(named) != fingerprint:
        return None, "the signature's key does not match its fingerprint"
    if trusted is not None and signing.fingerprint(trusted) != fingerprint:
        return str(fingerprint), "the receipt is signed by another key than the trusted one"
    if not signing.verifies(named, raw, _message(_unsigned(receipt))):
        return str(fingerprint), "the signature does not match the receipt (edited?)"
    return str(fingerprint), None


def _linked(store: ErasureStore, what: str, ref: Any) -> tuple[Event | None, str | None]:
    if not isinstance(ref, dict) or not isinstance(ref.get("seq"), int):
        return None, f"the receipt's {what} is malformed"
    event = store.event_at(ref["seq"])
    if event is None:
        return None, f"the {what} (event {ref['seq']}) is not in the chain (truncated?)"
    if event.hash != ref.get("hash"):
        return None, f"the {what} (event {ref['seq']}) has another hash (chain rewritten?)"
    return event, None


def check(store: ErasureStore, receipt: Mapping[str, Any], *,
          trusted: Ed25519PublicKey | None = None) -> ReceiptCheck:
    """Check one receipt against the brain (see the module docstring)."""
    problems: list[str] = []
    fingerprint, problem = _signature_problem(receipt, trusted)
    if problem:
        problems.append(problem)
    event, problem = _linked(store, "erasure event", receipt.get("event"))
    if problem:
        problems.append(problem)
    _, problem = _linked(store, "head", receipt.get("head"))
    if problem:
        problems.append(problem)
    uuids: list[str] = []
    if event is not None and event.kind not in (ERASE_KIND, SUBJECT_ERASE_KIND):
        problems.append(f"event {event.seq} is a {event.kind}, not an erasure")
    if event is not None:
        logged = event.payload
        uuids = [str(u) for u in logged.get("memory_ids") or []]
        if logged.get("purged") != receipt.get("purged"):
            problems.append("the purged counts differ from the ones the event logged")
        if len(uuids) != receipt.get("memory_count"):
            problems.append("the memory count differs from the ids the event logged")
    rows = store.memories_by_uuid(uuids) if uuids else {}
    for uuid, memory in sorted(rows.items()):
        if memory.redacted_at is None:
            problems.append(f"memory {uuid} is no longer redacted")
    left = store.memory_copies([m.id for m in rows.values()])
    if not left.empty:
        problems.append(f"copies of the forgotten text are stored again: {left.counts()}")
    return ReceiptCheck(tuple(problems), receipt.get("signature") is not None, fingerprint)


def reissue(store: ErasureStore, issuer: ReceiptIssuer, seq: int, *, now: str) -> dict[str, Any]:
    """A receipt for an erasure logged earlier (`brainkeep receipt SEQ`), against today's head.

    Everything comes from the hash-chained event; what the engine did to its
    files after that commit was not logged, so ``scrub`` says it was reissued.

    Raises:
        NotFound: no event ``seq``, or it is not an erasure with purge counts.
    """
    event = store.event_at(seq)
    if event is None or event.kind not in (ERASE_KIND, SUBJECT_ERASE_KIND) \
            or not isinstance(event.payload.get("purged"), dict):
        raise NotFound(f"Event {seq} is not a logged erasure.", field="seq",
                       suggestion="Pass the seq of a memory.erase or a purging subject.erase "
                       "event (the receipt's event.seq).")
    erasure = Erasure((), tuple(str(u) for u in event.payload.get("memory_ids") or []),
                      dict(event.payload["purged"]))
    operation = "ForgetSubject" if event.kind == SUBJECT_ERASE_KIND else "forget"
    return issuer.issue(operation=operation, strategy=str(event.payload.get("strategy")),
                        event=event, erasure=erasure, scrub={"reissued": True}, now=now)


def settle(store: ErasureStore, issuer: ReceiptIssuer | None, *, operation: str, strategy: str,
           event: Event, erasure: Erasure, now: str) -> dict[str, Any] | None:
    """After the erasure committed: scrub the engine's files, then issue the receipt.

    Call outside any transaction (SQLite checkpoints its write-ahead log here).
    """
    scrub = store.scrub_files(erasure.memory_ids)
    if issuer is None:
        return None
    return issuer.issue(operation=operation, strategy=strategy, event=event, erasure=erasure,
                        scrub=scrub, now=now)
