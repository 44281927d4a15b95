"""What the integrity scans hand the verifier: a row beside what the log recorded.

Engines fill these (one query per scan, streamed); ``core/verify.py`` and
``core/access_checks.py`` recompute the hashes and compare.

The full walk reads lean rows (``EventDigest``, ``MemoryCheck``,
``PageCheck``: tuples, no domain objects) in which the engine has already
*rendered* the exact bytes a hash covers (``hashed``, ``content_input``,
``state_input``), e.g. SQLite with its own JSON functions in C. A rendering
is only a candidate: the verifier accepts a row when the candidate hashes to
the hash the log recorded, and otherwise decides with the exact rule on the
full row (``MemoryState``, ``PageState``, ``Event``). That is sound as long
as a rendering never maps different values onto the same text: a candidate
that hashes to the recorded hash *is* the canonical text that was hashed
(sha256), so every value rendered into it equals the value hashed then.
docs/audit.md, "How the full walk stays fast", lists what each engine
renders and why each rendering is faithful.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from brainkeep.core.models import Memory


@dataclass(frozen=True)
class MemoryState:
    """One stored memory with the newest hashes its events recorded."""

    memory: Memory
    recorded_content: str | None  # newest payload.content_hash
    recorded_state: str | None  # newest payload.state_hash (None: none recorded)
    last_seq: int | None  # newest event about it (None: no event at all)
    tag_rows: tuple[str, ...]  # memory_tags rows (what tag filters and delegations read)


@dataclass(frozen=True)
class PageState:
    """One page row with the newest hashes its events recorded."""

    id: str
    source_id: str
    slug: str
    content: str
    content_hash: str
    visibility: str
    deleted_at: str | None
    recorded_content: str | None
    recorded_state: str | None
    last_seq: int | None


@dataclass(frozen=True)
class AclState:
    """One ``mnemo_acls`` row with the newest ``acl_hash`` its events recorded."""

    id: str
    memory_uuid: str | None  # None: the memory row is gone
    grantee: str
    permission: str
    granted_by: str
    created_at: str
    expires_at: str | None
    revoked_at: str | None
    recorded: str | None
    last_seq: int | None


@dataclass(frozen=True)
class DelegationState:
    """One ``mnemo_delegations`` row, its items, and what its events recorded."""

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
    revoked_at: str | None
    tags: tuple[str, ...]
    item_uuids: tuple[str | None, ...]  # None: an item naming no stored memory
    logged_memory_ids: tuple[str, ...] | None  # memory_ids of its delegation.create
    recorded: str | None
    last_seq: int | None


@dataclass(frozen=True)
class Vanished:
    """A subject the log says exists whose row is gone.

    ``removed`` is True when its newest event says the row was removed on
    purpose (a hash key recorded as null, or a ``*.revoke`` kind).
    """

    subject_type: str
    subject_id: str
    label: str | None  # page slug, ACL memory uuid
    removed: bool


@dataclass(frozen=True)
class VerifiedCheckpoint:
    """A head a verify walk proved (``verify_checkpoints``), where the next walk may start.

    ``signature`` (base64, with ``key_fingerprint``) signs the head exactly as a
    ``chain.checkpoint`` event does (core/anchor.py ``head_message``); None when
    the walk ran without a signing key (gRPC Verify, a keyless CLI).
    """

    seq: int
    hash: str
    verified_at: str
    mode: str  # full | incremental
    from_seq: int  # the seq the proving walk started after (0: a full walk)
    key_fingerprint: str | None = None
    signature: str | None = None


class EventDigest(NamedTuple):
    """One event of the full walk: its link, and the text its hash must cover."""

    seq: int
    kind: str
    prev_hash: str
    hash: str
    # Candidate for ``prev_hash + "\n" + canonical(body)`` (core/audit.py
    # ``event_input``); None: the engine could not render it (the exact rule decides).
    hashed: bytes | None


class MemoryCheck(NamedTuple):
    """One memory of the full walk, chain order, with candidates for its two hashes."""

    uuid: str
    agent_id: str
    thread_id: str | None
    content_hash: str
    prev_hash: str | None
    redacted_at: str | None
    text_if_redacted: str | None  # the text when ``redacted_at`` is not NULL, else None
    # Candidates for ``memory_input`` and ``state_input`` (core/audit.py); None: not rendered.
    content_input: bytes | None
    state_input: bytes | None
    recorded_content: str | None  # as ``MemoryState``
    recorded_state: str | None
    last_seq: int | None
    tags: str  # the ``tags`` column (JSON text)
    tag_rows: str | None  # JSON array of the ``memory_tags`` rows (None: none)


class PageCheck(NamedTuple):
    """One page of the full walk (deleted ones too), with a candidate for its state hash."""

    id: str
    slug: str
    content: bytes  # UTF-8, as ``page_hash`` hashes it
    content_hash: str
    state_input: bytes | None  # candidate for ``state_input(page_state(...))``
    recorded_content: str | None
    recorded_state: str | None
    last_seq: int | None

