"""delta: what changed since a cursor — pages, facts, thread events — at least once.

A session cursor is a pair of event seqs (pages, facts): seq is assigned
inside the write transaction, so it is commit order even when writers'
clocks disagree, and a scan bounded by a head read first cannot pass an
in-flight write. That replaces the application-clock cursor and its 2 s lag,
which lost a write stamped older than a delta read but committed after it.

Stateless callers keep the wire keyset: pages page through ``(updated_at,
slug)`` so a cluster sharing one timestamp drains deterministically; facts
page through ``(created_at, id)``. Both streams fetch one extra row so an
overflow sets ``has_more`` (the reference silently lost facts). A cursor
advances only past what was delivered.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from brainkeep.core.clock import format_ts, parse_ts
from brainkeep.core.context import Caller
from brainkeep.core.models import Memory, Page, SessionCursor
from brainkeep.core.verbs.common import (
    PROTOCOL_VERSION,
    clean_line,
    estimate_tokens,
    iso_z,
    normalize_cursor,
    pack_pair,
    parse_budget,
    parse_entities,
    render_envelope,
    storage_ts,
)
from brainkeep.core.verbs.context_pack import (
    cards_for,
    render_fact_line,
    render_thread_line,
    threads_after,
    view_caller,
)
from brainkeep.core.verbs.views import pack_fact
from brainkeep.errors import Busy, InvalidInput, StoreError

if TYPE_CHECKING:
    from brainkeep.core.verbs.services import VerbServices

log = logging.getLogger("brainkeep.delta")

FETCH_LIMIT = 50
CURSOR_IDLE_DAYS = 7
MAX_SESSION_CHARS = 200
_AFTER_ALL_IDS = 1 << 62  # keyset id meaning "strictly after this timestamp"


@dataclass(frozen=True)
class _Fetched:
    """What one wake read, before the budget: at most FETCH_LIMIT of each stream."""

    since: str  # as reported (normalized)
    since_us: str  # storage precision; thread events are dated against it
    slug: str  # the time keyset's slug (stateless reads only)
    pages: list[Page]
    facts: list[Memory]
    pages_overflow: bool
    facts_overflow: bool
    page_seqs: tuple[int, ...] = ()  # session reads: each page's change seq
    fact_seqs: tuple[int, ...] = ()


def cursor_lane(caller: Caller) -> str:
    """`local` only for the trusted CLI; remote callers use their client id or `remote`."""
    if not caller.remote:
        return "local"
    client = (caller.client_id or "").strip()[:MAX_SESSION_CHARS]
    return client if client and client != "local" else "remote"


def delta(
    brain: VerbServices,
    caller: Caller,
    *,
    since: str | None = None,
    since_slug: str | None = None,
    entities: Any = None,
    budget_tokens: Any = None,
    session_id: str | None = None,
    include_private: Any = None,
) -> dict[str, Any]:
    """Pages, facts and thread events after the cursor; see the module docstring."""
    explicit = normalize_cursor(since) if since else None
    viewer = view_caller(caller, include_private)
    lane = cursor_lane(caller)
    session = session_id.strip()[:MAX_SESSION_CHARS] if session_id and session_id.strip() else None
    budget = parse_budget(budget_tokens)
    stored = _read_cursor(brain, lane, session) if session else None

    if explicit is None and stored is None:
        if session is None:
            raise InvalidInput(
                "delta requires `since` (ISO 8601) or a `session_id` with an established cursor.",
                suggestion="Pass since (e.g. \"2026-06-01T00:00:00Z\") for stateless use, or a "
                "stable session_id: the first call establishes the cursor.",
                field="since",
            )
        return _first_wake(brain, lane, session, budget)

    # The head is read before any scan: every seq up to it is committed, and
    # a write committing meanwhile gets a larger seq, left for the next wake.
    head = brain.store.event_head()
    now_ts = brain.clock.now_ts()
    if explicit is not None:
        fetched = _fetch_by_time(brain, viewer, explicit, since_slug or "", now_ts)
    else:
        assert stored is not None
        fetched = _fetch_by_seq(brain, viewer, stored, head, now_ts)
    pages, facts = fetched.pages, fetched.facts
    names = parse_entities(entities)
    threads = threads_after(cards_for(brain, viewer, names), fetched.since_us) if names else []

    kept_pages, kept_facts = pages, facts
    response: dict[str, Any] = {"protocol_version": PROTOCOL_VERSION, "since": fetched.since}
    if budget is not None:
        packed = pack_pair(
            pages, lambda p: estimate_tokens(f"{p.title} {p.slug}"),
            facts, lambda m: estimate_tokens(m.text),
            budget,
        )
        kept_pages, kept_facts = packed.first, packed.second
        used, dropped = packed.used, packed.dropped
        response.update(budget_tokens=budget, budget_used=used, dropped_count=dropped)

    pages_pending = fetched.pages_overflow or len(kept_pages) < len(pages)
    facts_pending = fetched.facts_overflow or len(kept_facts) < len(facts)
    has_more = pages_pending or facts_pending
    if explicit is not None:
        next_since, next_slug = _next_cursor(fetched, kept_pages, kept_facts, facts_pending)
        if session:
            _rebase(brain, lane, session, next_since, head, names, now_ts)
    else:
        assert stored is not None
        # Session callers resume by seq; the time keyset handed to a caller
        # that turns stateless is where this wake started until it drains.
        next_since, next_slug = (fetched.since if has_more else now_ts), ""
        _advance(
            brain, stored, names, now_ts,
            page_seq=_seq_after(stored.page_seq, head, fetched.page_seqs, len(kept_pages),
                                pages_pending),
            fact_seq=_seq_after(stored.fact_seq, head, fetched.fact_seqs, len(kept_facts),
                                facts_pending),
            drained=not has_more,
        )

    page_items = [
        {"slug": p.slug, "source_id": p.source_id, "title": p.title, "updated_at": p.updated_at}
        for p in kept_pages
    ]
    fact_items = [pack_fact(m) for m in kept_facts]
    suffix = f" since {fetched.since}"
    response.update(
        pages=page_items,
        facts=fact_items,
        threads=threads,
        has_more=has_more,
        next_cursor={"since": next_since, "slug": next_slug},
        text=render_envelope(
            [
                ("Pages changed" + suffix, [_page_line(p) for p in page_items]),
                ("New facts" + suffix, [render_fact_line(f) for f in fact_items]),
                ("Thread updates" + suffix, [render_thread_line(t) for t in threads]),
            ]
        ),
    )
    return response


def _fetch_by_time(
    brain: VerbServices, viewer: Caller, since: str, slug: str, now_ts: str
) -> _Fetched:
    """A stateless read: the wire keysets ``(updated_at, slug)`` and ``(created_at, id)``."""
    since_us = storage_ts(since)
    pages = brain.store.pages_changed_since(
        brain.source_id, since_us, slug,
        include_private=viewer.include_private, limit=FETCH_LIMIT + 1,
    )
    facts = brain.store.facts_created_after(
        brain.source_id, since_us, _AFTER_ALL_IDS, now=now_ts,
        scope=viewer.read_scope, limit=FETCH_LIMIT + 1,
    )
    return _Fetched(
        since, since_us, slug, pages[:FETCH_LIMIT], facts[:FETCH_LIMIT],
        pages_overflow=len(pages) > FETCH_LIMIT, facts_overflow=len(facts) > FETCH_LIMIT,
    )


def _fetch_by_seq(
    brain: VerbServices, viewer: Caller, stored: SessionCursor, head: int, now_ts: str
) -> _Fetched:
    """A session read: what was committed after each stream's seq, up to ``head``."""
    pages = brain.store.pages_changed_after_seq(
        brain.source_id, stored.page_seq, upto_seq=head,
        include_private=viewer.include_private, limit=FETCH_LIMIT + 1,
    )
    facts = brain.store.facts_created_after_seq(
        brain.source_id, stored.fact_seq, upto_seq=head, now=now_ts,
        scope=viewer.read_scope, limit=FETCH_LIMIT + 1,
    )
    return _Fetched(
        stored.last_wake_at, stored.last_wake_at, "",
        [p for _, p in pages[:FETCH_LIMIT]], [m for _, m in facts[:FETCH_LIMIT]],
        pages_overflow=len(pages) > FETCH_LIMIT, facts_overflow=len(facts) > FETCH_LIMIT,
        page_seqs=tuple(s for s, _ in pages[:FETCH_LIMIT]),
        fact_seqs=tuple(s for s, _ in facts[:FETCH_LIMIT]),
    )


def _seq_after(stored: int, head: int, seqs: tuple[int, ...], kept: int, pending: bool) -> int:
    """A stream's next seq: the head once drained, else its last delivered change."""
    if not pending:
        # Rows skipped in (stored, head] (other kinds, private, deleted) need no rescan.
        return max(stored, head)
    return seqs[kept - 1] if kept else stored  # nothing delivered: do not move


def _next_cursor(
    fetched: _Fetched,
    kept_pages: list[Page],
    kept_facts: list[Memory],
    facts_pending: bool,
) -> tuple[str, str]:
    """Where a stateless caller resumes; never past an undelivered fact."""
    facts = fetched.facts
    if kept_pages:
        since, slug = kept_pages[-1].updated_at, kept_pages[-1].slug
    else:
        since, slug = fetched.since, fetched.slug
    if facts_pending:
        oldest_undelivered = facts[len(kept_facts)].created_at if len(kept_facts) < len(facts) \
            else None
        if oldest_undelivered is not None and storage_ts(since) >= oldest_undelivered:
            moment = parse_ts(oldest_undelivered) - timedelta(microseconds=1)
            since, slug = format_ts(moment), ""
    return since, slug


def _page_line(page: dict[str, Any]) -> str:
    return f"- **{clean_line(page['title'])}** → `{page['slug']}` ({page['updated_at']})"


def _read_cursor(brain: VerbServices, lane: str, session: str) -> SessionCursor | None:
    # Fail-open: a cursor outage must not fail the heartbeat.
    try:
        return brain.store.get_session_cursor(brain.source_id, lane, session)
    except (StoreError, Busy) as exc:
        log.warning("delta: session cursor unreadable, treating as a first wake: %s", exc.detail)
        return None


def _write_cursor(brain: VerbServices, cursor: SessionCursor, *, gc: bool = False) -> None:
    try:
        with brain.store.transaction():
            brain.store.put_session_cursor(cursor)
            if gc:
                idle_before = format_ts(brain.clock.now() - timedelta(days=CURSOR_IDLE_DAYS))
                brain.store.gc_session_cursors(idle_before)
    except (StoreError, Busy) as exc:
        # Fail-open like the read: the next heartbeat redelivers from the old cursor.
        log.warning("delta: session cursor not saved: %s %s", exc.message, exc.detail or "")


def _first_wake(brain: VerbServices, lane: str, session: str, budget: int | None) -> dict[str, Any]:
    """First call of a session: establish the cursor at the event head and deliver nothing."""
    head = brain.store.event_head()
    now = brain.clock.now()
    now_us = format_ts(now)
    _write_cursor(
        brain,
        SessionCursor(brain.source_id, lane, session, last_wake_at=now_us, page_seq=head,
                      fact_seq=head, updated_at=now_us),
        gc=True,
    )
    response: dict[str, Any] = {
        "protocol_version": PROTOCOL_VERSION,
        "since": iso_z(now),
        "pages": [],
        "facts": [],
        "threads": [],
        "text": "",
        "has_more": False,
        "next_cursor": {"since": now_us, "slug": ""},
    }
    if budget is not None:
        response.update(budget_tokens=budget, budget_used=0, dropped_count=0)
    return response


def _advance(
    brain: VerbServices,
    stored: SessionCursor,
    names: list[str],
    now_ts: str,
    *,
    page_seq: int,
    fact_seq: int,
    drained: bool,
) -> None:
    """Move the session cursor past what was delivered, and no further.

    No lag is needed: a write still in flight when the head was read commits
    with a larger seq, whatever timestamp its clock gave it.
    """
    _write_cursor(
        brain,
        SessionCursor(
            stored.source_id, stored.client_id, stored.session_id,
            last_wake_at=now_ts if drained else stored.last_wake_at,
            page_seq=page_seq, fact_seq=fact_seq, standing_entities=tuple(names),
            updated_at=now_ts,
        ),
    )


def _rebase(
    brain: VerbServices,
    lane: str,
    session: str,
    next_since: str,
    head: int,
    names: list[str],
    now_ts: str,
) -> None:
    """An explicit ``since`` with a session: resume the session where the caller got to.

    The time keyset becomes the first seq stamped at or after it, capped at
    the head read before the scan (at least once: some rows may repeat).
    """
    resume_ts = storage_ts(next_since)
    try:
        resume = min(brain.store.seq_before_ts(resume_ts), head)
    except (StoreError, Busy) as exc:
        log.warning("delta: session cursor not rebased: %s", exc.detail)
        return
    _write_cursor(
        brain,
        SessionCursor(
            brain.source_id, lane, session, last_wake_at=resume_ts, page_seq=resume,
            fact_seq=resume, standing_entities=tuple(names), updated_at=now_ts,
        ),
    )
