"""delta: cursors, first wake, has_more, keyset drains, lanes, GC."""

from __future__ import annotations

import dataclasses

from brainkeep.core.context import LOCAL, STDIO
from brainkeep.core.models import NewEvent

from .conftest import VerbHarness


def test_since_is_normalized(harness: VerbHarness) -> None:
    payload = harness.ok("delta", since="1970-01-01T00:00:00Z", budget_tokens=500)
    assert payload["since"] == "1970-01-01T00:00:00.000Z"
    assert payload["budget_used"] == 0 and payload["dropped_count"] == 0


def test_since_or_session_required_and_bad_dates_rejected(harness: VerbHarness) -> None:
    assert harness.err("delta")["error"] == "invalid_params"
    assert harness.err("delta", since="2026-02-31")["error"] == "invalid_params"
    assert harness.err("delta", since="whenever")["error"] == "invalid_params"


def test_first_wake_then_changes(harness: VerbHarness) -> None:
    first = harness.ok("delta", session_id="s", budget_tokens=100)
    assert first["pages"] == [] and first["facts"] == [] and first["has_more"] is False
    assert first["budget_used"] == 0 and first["text"] == ""
    harness.time.advance(seconds=10)
    harness.page("notes/a", "# A\n")
    harness.ok("remember", fact="new fact", provenance="t")
    second = harness.ok("delta", session_id="s")
    assert [p["slug"] for p in second["pages"]] == ["notes/a"]
    assert [f["fact"] for f in second["facts"]] == ["new fact"]
    harness.time.advance(seconds=10)
    third = harness.ok("delta", session_id="s")
    assert third["pages"] == [] and third["facts"] == []


def test_budget_dropped_pages_arrive_next_wake(harness: VerbHarness) -> None:
    harness.ok("delta", session_id="s")
    harness.time.advance(seconds=5)
    for name in ("a", "b", "c", "d"):
        harness.page(f"notes/{name}", f"# {name.upper()}\n")
    seen: list[str] = []
    for _ in range(10):
        payload = harness.ok("delta", session_id="s", budget_tokens=8)
        seen += [p["slug"] for p in payload["pages"]]
        assert payload["budget_used"] <= 8
        if not payload["has_more"]:
            break
    assert seen == ["notes/a", "notes/b", "notes/c", "notes/d"]


def test_zero_delivery_does_not_move_the_cursor(harness: VerbHarness) -> None:
    harness.ok("delta", session_id="s")
    harness.time.advance(seconds=5)
    harness.page("notes/a", "# A\n")
    starved = harness.ok("delta", session_id="s", budget_tokens=1)
    assert starved["pages"] == [] and starved["has_more"] is True
    assert [p["slug"] for p in harness.ok("delta", session_id="s")["pages"]] == ["notes/a"]


def test_fact_overflow_sets_has_more_and_nothing_is_lost(harness: VerbHarness) -> None:
    # Reference bug: facts beyond the fetch limit were silently lost.
    harness.ok("delta", session_id="s")
    harness.time.advance(seconds=5)
    for i in range(60):
        harness.ok("remember", fact=f"fact number {i}", provenance="t")
    first = harness.ok("delta", session_id="s")
    assert len(first["facts"]) == 50 and first["has_more"] is True
    second = harness.ok("delta", session_id="s")
    assert second["has_more"] is False
    got = [f["fact"] for f in first["facts"] + second["facts"]]
    assert got == [f"fact number {i}" for i in range(60)]


def test_tie_cluster_drains_with_the_slug_keyset(harness: VerbHarness) -> None:
    frozen = harness.time.now
    harness.brain.clock.now_fn = lambda: frozen  # every page gets the same updated_at
    for i in range(55):
        harness.page(f"bulk/p{i:02d}", f"# P{i}\n")
    harness.brain.clock.now_fn = harness.time
    slugs: list[str] = []
    since, slug = "2000-01-01T00:00:00Z", ""
    for _ in range(10):
        payload = harness.ok("delta", since=since, since_slug=slug)
        slugs += [p["slug"] for p in payload["pages"]]
        since, slug = payload["next_cursor"]["since"], payload["next_cursor"]["slug"]
        if not payload["has_more"]:
            break
    assert slugs == sorted(f"bulk/p{i:02d}" for i in range(55))


def test_private_pages_never_reach_remote_delta(harness: VerbHarness) -> None:
    # Reference bug: delta listed private page titles to remote callers.
    harness.page("people/secret", "---\ntitle: SENTINEL title\nvisibility: private\n---\n")
    remote = harness.ok("delta", since="2000-01-01", include_private=True)
    assert "SENTINEL" not in str(remote)
    local = harness.ok("delta", LOCAL, since="2000-01-01", include_private=True)
    assert "SENTINEL" in local["text"]
    assert "SENTINEL" not in str(harness.ok("delta", LOCAL, since="2000-01-01"))


def test_cursor_lanes_are_isolated(harness: VerbHarness) -> None:
    token_a = dataclasses.replace(STDIO, client_id="token-a", transport="http")
    token_b = dataclasses.replace(STDIO, client_id="token-b", transport="http")
    for caller in (token_a, token_b, LOCAL, STDIO):
        harness.ok("delta", caller, session_id="shared")
    harness.time.advance(seconds=5)
    harness.page("notes/x", "# X\n")
    assert len(harness.ok("delta", token_a, session_id="shared")["pages"]) == 1
    # token-a advancing its cursor must not consume token-b's, local's or remote's view.
    assert len(harness.ok("delta", token_b, session_id="shared")["pages"]) == 1
    assert len(harness.ok("delta", LOCAL, session_id="shared")["pages"]) == 1
    assert len(harness.ok("delta", STDIO, session_id="shared")["pages"]) == 1
    local_as_remote = dataclasses.replace(STDIO, client_id="local")
    harness.time.advance(seconds=5)
    harness.page("notes/y", "# Y\n")
    assert len(harness.ok("delta", local_as_remote, session_id="shared")["pages"]) == 1
    assert len(harness.ok("delta", LOCAL, session_id="shared")["pages"]) == 1


def test_idle_cursors_are_garbage_collected(harness: VerbHarness) -> None:
    harness.ok("delta", session_id="old")
    store = harness.brain.store
    assert store.get_session_cursor("default", "remote", "old") is not None
    harness.time.advance(days=8)
    harness.ok("delta", session_id="new")  # a first wake runs the GC
    assert store.get_session_cursor("default", "remote", "old") is None
    assert store.get_session_cursor("default", "remote", "new") is not None


def test_threads_for_entities(harness: VerbHarness) -> None:
    harness.page("people/ada", "# Ada\n\n## Timeline\n- 2026-06-14: Signed the deal\n")
    payload = harness.ok("delta", since="2026-06-01", entities="people/ada")
    assert [t["text"] for t in payload["threads"]] == ["Signed the deal"]
    assert "Thread updates since" in payload["text"]


def test_event_unrelated_writes_do_not_break_delta(harness: VerbHarness) -> None:
    with harness.brain.store.transaction():
        harness.brain.store.append_event(
            NewEvent("custom.note", "note", "1", {"x": 1}), harness.brain.clock.now_ts()
        )
    assert harness.ok("delta", since="2026-01-01")["pages"] == []
