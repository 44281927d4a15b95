"""The one write path of the memories table: insert and expire, each with its event.

MCP ``remember``/``forget``, the CLI and gRPC Remember/Consolidate all come
through here, so a row and its audit event are always written together, in
the caller's transaction, with the one payload per kind of ``core/events.py``.
The engine links ``prev_hash`` and assigns the event ``seq`` (writes are
serialized by the store's contract). Every insert is scored for injection
here (core/injection.py): a text at or above the threshold is stored
quarantined and queued for review (core/quarantine/holds.py), never dropped.
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from brainkeep.core import events, injection, validate
from brainkeep.core.audit import memory_hash
from brainkeep.core.ids import uuid7
from brainkeep.core.models import Event, Memory, MemoryDraft
from brainkeep.core.ports.composites import MemoryLog, MemoryWrites
from brainkeep.core.quarantine.holds import hold_memory


def normalize_fact(text: str) -> str:
    """The exact-duplicate key of a fact: whitespace collapsed and case folded, nothing else.

    Unlike ``normalize_alias`` (names, where punctuation is noise), a fact's
    signs, digit punctuation, symbols and accents carry its meaning: "-500 EUR"
    is not "500 EUR", "C++" is not "C", "10:30" is not "10.30". NFC before and
    after ``casefold`` (which can decompose) so composed and decomposed
    spellings of one letter share a key; not NFKC, which turns "m²" into "m2".
    Migration 0009 recomputed the key of rows stored before this rule.
    """
    if text.isascii():  # NFC is the identity and casefold() equals lower() on ASCII
        folded = text.lower()
    else:
        folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())
    return " ".join(folded.split())


def require_utf8(value: str, field: str) -> None:
    """Reject lone surrogates (JSON allows them; SQLite and the hash chain cannot store
    them) and NUL: the one text rule of every surface, ``core.validate.text``."""
    validate.text(value, field)


def insert(store: MemoryWrites, draft: MemoryDraft, now: str, *, actor: str,
           normalized: str | None = None, topic_version: int | None = None
           ) -> tuple[Memory, Event]:
    """Insert ``draft`` and its ``memory.insert`` event (call inside a transaction).

    ``content_hash`` covers text, owner and creation time; ``normalized`` is
    the duplicate key (computed from the text when not given). A text the
    injection scorer flags (or a draft already marked ``quarantined``) is
    stored quarantined and queued for review; the returned row says so.
    """
    verdict = injection.scan(draft.text)
    if verdict.quarantined and not draft.quarantined:
        draft = replace(draft, quarantined=True)
    memory = store.insert_memory(
        draft,
        uuid=uuid7(),
        now=now,
        normalized_text=normalize_fact(draft.text) if normalized is None else normalized,
        content_hash=memory_hash(draft.text, draft.agent_id, now),
    )
    event = store.append_event(
        events.memory_insert(memory, actor=actor, topic_version=topic_version), now
    )
    if memory.quarantined:
        hold_memory(store, memory, verdict, now, actor=actor)
    return memory, event


def expire(store: MemoryLog, memory: Memory, now: str, reason: str | None, *, actor: str,
           superseded_by: int | None = None) -> tuple[Memory, Event]:
    """Expire ``memory`` (the row and its history stay) and log it (inside a transaction).

    Returns the expired row as stored, and its event.
    """
    after = store.expire_memory(memory.id, now, reason, superseded_by=superseded_by) or memory
    event = store.append_event(
        events.memory_expire(memory, actor=actor, reason=reason, superseded_by=superseded_by,
                             after=after),
        now,
    )
    return after, event
