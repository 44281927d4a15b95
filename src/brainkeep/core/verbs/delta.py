"""delta: what changed since a cursor — pages, facts, thread events — at least once.

Pages page through a keyset ``(updated_at, slug)`` so a cluster sharing one
timestamp drains deterministically; facts page through ``(created_at, id)``
with a +1 probe so an overflow sets ``has_more`` (the reference silently lost
them). A session cursor advances only past what was delivered.
"""

from __future__ import annotations

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
from brainkeep.errors import InvalidInput, StoreError

if TYPE_CHECKING:
    from brainkeep.brain import Brain

FETCH_LIMIT = 50
CURSOR_IDLE_DAYS = 7
SAFETY_LAG = timedelta(seconds=2)  # in-flight writes may land just behind "now"
MAX_SESSION_CHARS = 200
_AFTER_ALL_IDS = 1 << 62  # keyset id meaning "strictly after this timestamp"


@dataclass(frozen=True)
class _Window:
    """The cursor in force for this wake."""

    since: str  # as reported (normalized)
    since_us: str  # storage precision
    slug: str
    fact_ts: str
    fact_id: int


def cursor_lane(caller: Caller) -> str:
    """`local` only for the trusted CLI; remote callers use their client id or `remote`."""
    if not caller.remote:
        return "local"
    client = (caller.client_id or "").strip()[:MAX_SESSION_CHARS]
    return client if client and client != "local" else "remote"


def delta(
    brain: Brain,
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

    window = _window(explicit, since_slug, stored)
    now_ts = brain.clock.now_ts()
    pages = brain.store.pages_changed_since(
        brain.source_id, window.since_us, window.slug,
        include_private=viewer.include_private, limit=FETCH_LIMIT + 1,
    )
    facts = brain.store.facts_created_after(
        brain.source_id, window.fact_ts, window.fact_id, now=now_ts,
        include_private=viewer.include_private, limit=FETCH_LIMIT + 1,
    )
    pages_overflow, facts_overflow = len(pages) > FETCH_LIMIT, len(facts) > FETCH_LIMIT
    pages, facts = pages[:FETCH_LIMIT], facts[:FETCH_LIMIT]
    names = parse_entities(entities)
    threads = threads_after(cards_for(brain, viewer, names), window.since_us) if names else []

    kept_pages, kept_facts = pages, facts
    response: dict[str, Any] = {"protocol_version": PROTOCOL_VERSION, "since": window.since}
    if budget is not None:
        packed = pack_pair(
            pages, lambda p: estimate_tokens(f"{p.title} {p.slug}"),
            facts, lambda m: estimate_tokens(m.text),
            budget,
        )
        kept_pages, kept_facts = packed.first, packed.second
        used, dropped = packed.used, packed.dropped
        response.update(budget_tokens=budget, budget_used=used, dropped_count=dropped)

    facts_pending = facts_overflow or len(kept_facts) < len(facts)
    has_more = pages_overflow or len(kept_pages) < len(pages) or facts_pending
    next_since, next_slug = _next_cursor(window, kept_pages, facts, kept_facts, facts_pending)
    if session:
        _advance(brain, lane, session, window, kept_pages, kept_facts, has_more, names)

    page_items = [
        {"slug": p.slug, "source_id": p.source_id, "title": p.title, "updated_at": p.updated_at}
        for p in kept_pages
    ]
    fact_items = [pack_fact(m) for m in kept_facts]
    suffix = f" since {window.since}"
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


def _window(explicit: str | None, since_slug: str | None, stored: SessionCursor | None) -> _Window:
    if explicit is not None:
        since_us = storage_ts(explicit)
        slug = since_slug if since_slug is not None else (stored.page_slug if stored else "")
        return _Window(explicit, since_us, slug or "", since_us, _AFTER_ALL_IDS)
    assert stored is not None
    slug = since_slug if since_slug is not None else stored.page_slug
    fact_ts = stored.fact_created_at or stored.last_wake_at
    fact_id = stored.fact_id if stored.fact_created_at else _AFTER_ALL_IDS
    return _Window(stored.last_wake_at, stored.last_wake_at, slug or "", fact_ts, fact_id or 0)


def _next_cursor(
    window: _Window,
    kept_pages: list[Page],
    facts: list[Memory],
    kept_facts: list[Memory],
    facts_pending: bool,
) -> tuple[str, str]:
    """Where a stateless caller resumes; never past an undelivered fact."""
    if kept_pages:
        since, slug = kept_pages[-1].updated_at, kept_pages[-1].slug
    else:
        since, slug = window.since, window.slug
    if facts_pending:
        oldest_undelivered = facts[len(kept_facts)].created_at if len(kept_facts) < len(facts) \
            else None
        if oldest_undelivered is not None and storage_ts(since) >= oldest_undelivered:
            moment = parse_ts(oldest_undelivered) - timedelta(microseconds=1)
            since, slug = format_ts(moment), ""
    return since, slug


def _page_line(page: dict[str, Any]) -> str:
    return f"- **{clean_line(page['title'])}** → `{page['slug']}` ({page['updated_at']})"


def _read_cursor(brain: Brain, lane: str, session: str) -> SessionCursor | None:
    # Fail-open: a cursor outage must not fail the heartbeat.
    try:
        return brain.store.get_session_cursor(brain.source_id, lane, session)
    except StoreError:
        return None


def _write_cursor(brain: Brain, cursor: SessionCursor, *, gc: bool = False) -> None:
    try:
        with brain.store.transaction():
            brain.store.put_session_cursor(cursor)
            if gc:
                idle_before = format_ts(brain.clock.now() - timedelta(days=CURSOR_IDLE_DAYS))
                brain.store.gc_session_cursors(idle_before)
    except StoreError:
        pass


def _first_wake(brain: Brain, lane: str, session: str, budget: int | None) -> dict[str, Any]:
    """First call of a session: establish the cursor at now and deliver nothing."""
    now = brain.clock.now()
    now_us = format_ts(now)
    _write_cursor(
        brain,
        SessionCursor(brain.source_id, lane, session, last_wake_at=now_us, updated_at=now_us),
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
    brain: Brain,
    lane: str,
    session: str,
    window: _Window,
    kept_pages: list[Page],
    kept_facts: list[Memory],
    has_more: bool,
    names: list[str],
) -> None:
    """Move the session cursor past what was delivered, and no further."""
    now = brain.clock.now()
    if kept_pages:
        wake, slug = kept_pages[-1].updated_at, kept_pages[-1].slug
    elif not has_more:
        wake, slug = format_ts(now - SAFETY_LAG), ""
    else:
        wake, slug = window.since_us, window.slug  # nothing delivered: do not move
    if kept_facts:
        fact_ts, fact_id = kept_facts[-1].created_at, kept_facts[-1].id
    else:
        fact_ts, fact_id = window.fact_ts, window.fact_id
        if not has_more and fact_id == _AFTER_ALL_IDS:
            fact_ts = max(fact_ts, format_ts(now - SAFETY_LAG))
    _write_cursor(
        brain,
        SessionCursor(
            brain.source_id, lane, session, last_wake_at=wake, page_slug=slug,
            fact_created_at=fact_ts, fact_id=fact_id, standing_entities=tuple(names),
            updated_at=format_ts(now),
        ),
    )
