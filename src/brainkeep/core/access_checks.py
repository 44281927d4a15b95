"""Verifier checks of the rows that decide readability beside memories.

Pages (content, visibility, deletion), ACL rows and delegations each hash the
columns that decide who may read what into their events (``state_hash``,
``acl_hash``, ``delegation_hash``, core/audit.py); these checks recompute
them from the rows and compare with the newest recorded one, and look for
rows the log records that are gone. ``core/verify.py`` runs them.

Rows whose events all predate the first event that records such a hash (an
old brain, before this check existed) are accepted without one: see
``unrecorded_ok`` and docs/audit.md, "Old brains".
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from brainkeep.core.audit import (
    acl_state_hash,
    delegation_state_hash,
    page_hash,
    page_state_hash,
)
from brainkeep.core.integrity_rows import PageCheck, PageState, Vanished
from brainkeep.core.ports.events import EventLog


@dataclass(frozen=True)
class Problem:
    """One failed check: what (``kind``, ``id``, ``slug``) and why."""

    kind: str  # page | acl | delegation | memory
    id: str
    reason: str
    slug: str | None = None


def unrecorded_ok(last_seq: int | None, marker: int | None) -> bool:
    """A row without a recorded state hash is accepted only as a legacy row.

    Legacy: it has events, and all of them predate ``marker`` (the first
    event recording any state hash; None: the log has none yet). A row with
    no event at all was inserted behind the server's back; one with an event
    after the marker should have recorded its state.
    """
    return last_seq is not None and (marker is None or last_seq < marker)


def page_reason(page: PageState, marker: int | None) -> str | None:
    """Why one page row fails (None: it passes)."""
    actual = page_hash(page.content)
    if actual != page.content_hash:
        return "content does not match its stored hash"
    if page.recorded_content != actual:
        return "content does not match the hash recorded in the event log"
    if page.recorded_state is None:
        if not unrecorded_ok(page.last_seq, marker):
            return "no access state recorded in the event log for this page"
    elif page.recorded_state != page_state_hash(source_id=page.source_id, slug=page.slug,
                                                visibility=page.visibility,
                                                deleted_at=page.deleted_at):
        return "visibility, deletion or slug does not match the state recorded in the event log"
    return None


def _accepted(page: PageCheck, marker: int | None) -> bool:
    """True when the lean row passes every check ``page_reason`` makes (else it decides)."""
    if hashlib.sha256(page.content).hexdigest() != page.content_hash:
        return False
    if page.recorded_content != page.content_hash:
        return False
    if page.recorded_state is None:
        return unrecorded_ok(page.last_seq, marker)
    return (page.state_input is not None
            and hashlib.sha256(page.state_input).hexdigest() == page.recorded_state)


def check_pages(store: EventLog, marker: int | None,
                only: dict[str, str | None] | None = None) -> tuple[int, list[Problem]]:
    """(pages checked, problems): content, recorded content, state, vanished rows.

    ``only`` (page id -> slug): just those pages, the ones newer events
    touched (an incremental verify, core/verify_since.py); one of them with no
    row is a vanished page, and no other row is scanned. Without it, every
    page as a lean row (core/integrity_rows.py); one the lean check does not
    accept is re-read and judged by ``page_reason``.
    """
    checked, problems = 0, []
    seen: set[str] = set()
    if only is None:
        for lean in store.iter_page_checks():
            checked += 1
            if not _accepted(lean, marker):
                for page in store.iter_page_states([lean.id]):
                    reason = page_reason(page, marker)
                    if reason:
                        problems.append(Problem("page", page.id, reason, slug=page.slug))
    else:
        for page in store.iter_page_states(sorted(only)):
            seen.add(page.id)
            checked += 1
            reason = page_reason(page, marker)
            if reason:
                problems.append(Problem("page", page.id, reason, slug=page.slug))
    gone_pages = (store.iter_vanished_pages() if only is None else
                  (Vanished("page", i, slug, False) for i, slug in only.items() if i not in seen))
    for gone in gone_pages:
        checked += 1
        problems.append(Problem("page", gone.subject_id,
                                "page row is gone but the event log records it",
                                slug=gone.label))
    return checked, problems


def check_grants(store: EventLog, marker: int | None, hard_deleted: set[str],
                 only: dict[tuple[str, str], tuple[bool, str | None]] | None = None,
                 ) -> tuple[int, list[Problem]]:
    """(rows checked, problems) of ACLs and delegations, live set against the log.

    ``hard_deleted``: memory uuids removed by logged hard deletes (their ACL
    rows and delegation items go with them on purpose). ``only``: just those
    ((kind, id) -> (removed on purpose, label), as ``check_pages``).
    """
    checked, problems = 0, []
    seen: set[tuple[str, str]] = set()

    def ids(kind: str) -> list[str] | None:
        return None if only is None else sorted(i for k, i in only if k == kind)

    for acl in store.iter_acl_states(ids("acl")):
        seen.add(("acl", acl.id))
        checked += 1
        reason = None
        if acl.last_seq is None:
            reason = "ACL row has no logged grant"
        elif acl.memory_uuid is None:
            reason = "ACL row names no stored memory"
        elif acl.recorded is None:
            if not unrecorded_ok(acl.last_seq, marker):
                reason = "no acl_hash recorded in the event log for this ACL row"
        elif acl.recorded != acl_state_hash(
            id=acl.id, memory_uuid=acl.memory_uuid, grantee=acl.grantee,
            permission=acl.permission, granted_by=acl.granted_by, created_at=acl.created_at,
            expires_at=acl.expires_at, revoked_at=acl.revoked_at,
        ):
            reason = "ACL row does not match the grant recorded in the event log"
        if reason:
            problems.append(Problem("acl", acl.id, reason))
    for d in store.iter_delegation_states(ids("delegation")):
        seen.add(("delegation", d.id))
        checked += 1
        reason = None
        items = set(d.item_uuids)
        if d.last_seq is None:
            reason = "delegation row has no logged event"
        elif d.recorded is None and not unrecorded_ok(d.last_seq, marker):
            reason = "no delegation_hash recorded in the event log for this delegation"
        elif d.recorded is not None and d.recorded != delegation_state_hash(
            id=d.id, owner=d.owner, delegator=d.delegator, delegate=d.delegate,
            permission=d.permission, selector=d.selector, depth=d.depth,
            max_depth=d.max_depth, parent_id=d.parent_id, created_at=d.created_at,
            expires_at=d.expires_at, tags=list(d.tags), revoked_at=d.revoked_at,
        ):
            reason = "delegation row does not match the grant recorded in the event log"
        elif None in items:
            reason = "delegation item names no stored memory"
        elif d.logged_memory_ids is not None and items != set(d.logged_memory_ids) - hard_deleted:
            reason = "delegation items differ from the memory_ids logged when it was created"
        if reason:
            problems.append(Problem("delegation", d.id, reason))
    gone_grants = (store.iter_vanished_grants() if only is None else
                   (Vanished(k, i, label, removed) for (k, i), (removed, label) in only.items()
                    if (k, i) not in seen))
    for gone in gone_grants:
        checked += 1
        if gone.removed or (gone.subject_type == "acl" and gone.label in hard_deleted):
            continue
        problems.append(Problem(gone.subject_type, gone.subject_id,
                                f"{gone.subject_type} row is gone but no revocation was logged"))
    return checked, problems
