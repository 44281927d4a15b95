"""delta session cursors key on the event seq (commit order), not on application-clock time.

Two brains open the same file, each with its own clock, the way two
processes whose clocks disagree would.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.clock import Clock
from brainkeep.core.context import LOCAL, STDIO
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from brainkeep.ops.usage import UsageLog
from brainkeep.store import SQLiteStore
from brainkeep.store.sqlite.engine import SQLiteEngine, _statements

from .conftest import FakeTime, VerbHarness


@dataclass
class SkewedTime:
    """A second process's clock: the first one's time plus a settable skew."""

    base: FakeTime
    skew: timedelta = field(default_factory=timedelta)

    def __call__(self) -> datetime:
        return self.base() + self.skew


@dataclass
class Pair:
    reader: VerbHarness  # runs delta
    writer: VerbHarness  # another process on the same file, with its own clock
    writer_time: SkewedTime
    home: Path

    def reopen_reader(self) -> VerbHarness:
        """The reader process restarts: a fresh brain on the same file and clock."""
        self.reader.brain.close()
        self.reader = _harness(self.home, self.reader.time, Clock(self.reader.time))
        return self.reader


def _harness(home: Path, time: FakeTime, clock: Clock) -> VerbHarness:
    settings = load_settings(home, env={})
    brain = open_brain(settings, clock=clock)
    dispatcher = Dispatcher(
        build_catalog(), brain, surface="full", usage=UsageLog(settings.usage_path)
    )
    return VerbHarness(brain, dispatcher, time)


@pytest.fixture
def pair(verb_home: Path) -> Iterator[Pair]:
    home = verb_home
    time = FakeTime()
    reader = _harness(home, time, Clock(time))
    writer_time = SkewedTime(time)
    writer = _harness(home, time, Clock(writer_time))
    made = Pair(reader, writer, writer_time, home)
    yield made
    made.writer.brain.close()
    made.reader.brain.close()


def _slugs(payload: dict[str, Any]) -> list[str]:
    return [p["slug"] for p in payload["pages"]]


def _facts(payload: dict[str, Any]) -> list[str]:
    return [f["fact"] for f in payload["facts"]]


def test_write_stamped_older_but_committed_after_a_read_arrives_once(pair: Pair) -> None:
    # The old time cursor (now - 2 s) skipped a write whose clock ran behind.
    reader = pair.reader
    reader.ok("delta", session_id="hb")
    reader.time.advance(seconds=10)
    reader.page("notes/first", "# First\n")
    assert _slugs(reader.ok("delta", session_id="hb")) == ["notes/first"]

    pair.writer_time.skew = -timedelta(minutes=5)  # stamped before the read above
    pair.writer.page("notes/late", "# Late\n")
    pair.writer.ok("remember", fact="late fact", provenance="skewed writer")
    late = pair.writer.brain.store.get_page("default", "notes/late")
    assert late is not None and late.updated_at < reader.brain.clock.now_ts()

    second = reader.ok("delta", session_id="hb")
    assert _slugs(second) == ["notes/late"] and _facts(second) == ["late fact"]
    assert second["has_more"] is False
    third = reader.ok("delta", session_id="hb")
    assert third["pages"] == [] and third["facts"] == []  # exactly once


def test_a_writer_whose_clock_runs_ahead_does_not_hide_later_writes(pair: Pair) -> None:
    # The old cursor jumped to the future stamp and skipped honest writes until then.
    reader = pair.reader
    reader.ok("delta", session_id="hb")
    pair.writer_time.skew = timedelta(hours=1)
    pair.writer.page("notes/future", "# Future\n")
    pair.writer.ok("remember", fact="future fact", provenance="fast clock")
    first = reader.ok("delta", session_id="hb")
    assert _slugs(first) == ["notes/future"] and _facts(first) == ["future fact"]

    reader.time.advance(seconds=5)
    reader.page("notes/now", "# Now\n")
    reader.ok("remember", fact="honest fact", provenance="t")
    second = reader.ok("delta", session_id="hb")
    assert _slugs(second) == ["notes/now"] and _facts(second) == ["honest fact"]


def test_session_cursor_survives_a_restart_and_resumes_by_seq(pair: Pair) -> None:
    reader = pair.reader
    reader.ok("delta", session_id="hb")
    store = reader.brain.store
    cursor = store.get_session_cursor("default", "remote", "hb")
    assert cursor is not None and cursor.page_seq == cursor.fact_seq == store.event_head()

    for name in ("a", "b", "c"):
        reader.page(f"notes/{name}", f"# {name.upper()}\n")
    # One page per wake: the cursor stops at the seq of the page it delivered.
    first = reader.ok("delta", session_id="hb", budget_tokens=4)
    assert _slugs(first) == ["notes/a"] and first["has_more"] is True
    page_a = store.get_page("default", "notes/a")
    assert page_a is not None
    put_a = store.events_for("page", str(page_a.id))[-1].seq
    cursor = store.get_session_cursor("default", "remote", "hb")
    assert cursor is not None and cursor.page_seq == put_a

    reader = pair.reopen_reader()
    pair.writer_time.skew = -timedelta(hours=1)  # even a stamp older than every other
    pair.writer.page("notes/d", "# D\n")
    seen: list[str] = []
    for _ in range(10):
        payload = reader.ok("delta", session_id="hb", budget_tokens=4)
        seen += _slugs(payload)
        if not payload["has_more"]:
            break
    assert seen == ["notes/b", "notes/c", "notes/d"]  # commit order, each once
    assert reader.ok("delta", session_id="hb")["pages"] == []


def test_a_page_changed_twice_arrives_once_and_a_deleted_one_not_at_all(pair: Pair) -> None:
    reader = pair.reader
    reader.ok("delta", session_id="hb")
    reader.page("notes/twice", "# One\n")
    reader.page("notes/gone", "# Gone\n")
    reader.page("notes/twice", "# Two\n")
    reader.brain.pages.delete_page("notes/gone", LOCAL)
    payload = reader.ok("delta", session_id="hb")
    assert _slugs(payload) == ["notes/twice"]
    assert payload["pages"][0]["title"] == "Two"


def test_private_pages_and_facts_never_reach_a_remote_session(pair: Pair) -> None:
    reader = pair.reader
    reader.ok("delta", session_id="hb")
    reader.ok("delta", LOCAL, session_id="hb")
    reader.page("people/secret", "---\ntitle: SENTINEL page\nvisibility: private\n---\n")
    reader.local("remember", fact="SENTINEL fact", provenance="t", visibility="private")
    reader.page("notes/open", "# Open\n")
    remote = reader.ok("delta", STDIO, session_id="hb", include_private=True)
    assert "SENTINEL" not in str(remote) and _slugs(remote) == ["notes/open"]
    local = reader.ok("delta", LOCAL, session_id="hb", include_private=True)
    assert "SENTINEL page" in local["text"] and "SENTINEL fact" in local["text"]


def test_explicit_since_with_a_session_rebases_without_losing_a_write(pair: Pair) -> None:
    reader = pair.reader
    reader.page("notes/a", "# A\n")
    reader.page("notes/b", "# B\n")
    stateless = reader.ok("delta", since="2000-01-01", session_id="hb")
    assert _slugs(stateless) == ["notes/a", "notes/b"]
    pair.writer_time.skew = -timedelta(minutes=5)
    pair.writer.page("notes/late", "# Late\n")
    resumed = _slugs(reader.ok("delta", session_id="hb"))
    assert "notes/late" in resumed and "notes/a" not in resumed  # at least once, no rewind


def test_a_legacy_time_cursor_migrates_to_a_seq_cursor(tmp_path: Path) -> None:
    db = tmp_path / "brain.db"
    ours = next(v for v, name, _ in SQLiteEngine.available_migrations() if name == "delta_seq")
    conn = sqlite3.connect(db)
    try:
        with conn:
            conn.execute(
                "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                "name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            for version, name, sql in SQLiteEngine.available_migrations():
                if version >= ours:
                    break
                for statement in _statements(sql):
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01')",
                             (version, name))
            stamps = ["2026-06-01T00:00:01.000000Z", "2026-06-01T00:00:03.000000Z",
                      "2026-06-01T00:00:02.000000Z"]  # seq 3 was stamped before seq 2
            for seq, stamp in enumerate(stamps, start=1):
                conn.execute(
                    "INSERT INTO events (seq, ts, source_id, kind, subject_type, subject_id, "
                    "actor, payload, prev_hash, hash) VALUES (?, ?, 'default', 'page.put', "
                    "'page', ?, 'local', '{}', '', ?)",
                    (seq, stamp, str(seq), f"h{seq}"),
                )
            conn.execute(
                "INSERT INTO session_cursors (source_id, client_id, session_id, last_wake_at, "
                "page_slug, fact_created_at, fact_id, updated_at) VALUES ('default', 'remote', "
                "'hb', '2026-06-01T00:00:02.000000Z', '', '2026-06-01T00:00:03.000000Z', 1, "
                "'2026-06-01T00:00:03.000000Z')"
            )
    finally:
        conn.close()
    store = SQLiteStore(db)
    try:
        cursor = store.get_session_cursor("default", "remote", "hb")
        assert cursor is not None
        # Everything stamped at or after the old cursor lies after the new seq.
        assert (cursor.page_seq, cursor.fact_seq) == (1, 1)
        assert cursor.last_wake_at == "2026-06-01T00:00:02.000000Z"
    finally:
        store.close()
