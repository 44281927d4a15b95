"""The local usage log, its stats (incl. TTHW) and the doctor line."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from brainkeep.ops.usage import (
    UsageEvent,
    UsageLog,
    doctor_usage_line,
    format_duration,
    outcome_fields,
    render_stats,
    usage_health,
    usage_stats,
    usage_timestamp,
)

NOW = datetime(2026, 6, 30, 12, 0, 0, tzinfo=UTC)


def event(verb: str = "recall", *, at: datetime = NOW, **overrides: Any) -> UsageEvent:
    fields: dict[str, Any] = {
        "ts": usage_timestamp(at),
        "brain_id": "/tmp/brain",
        "verb": verb,
        "surface": "verbs",
        "transport": "stdio",
        "remote": True,
        "ok": True,
        "latency_ms": 4,
        "source_id": "default",
    }
    fields.update(overrides)
    return UsageEvent(**fields)


def test_timestamp_shape() -> None:
    moment = datetime(2026, 1, 2, 3, 4, 5, 678_901, tzinfo=UTC)
    assert usage_timestamp(moment) == "2026-01-02T03:04:05.678Z"


def test_record_writes_one_json_line_in_key_order(tmp_path: Path) -> None:
    log = UsageLog(tmp_path / "nested" / "dir" / "usage.jsonl")  # mkdir -p
    log.record(event("entity", token_name="ci-bot", entity_found=True))
    log.record(event("recall", budget_dropped=2))
    lines = log.path.read_text().splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert list(first) == [
        "ts", "brain_id", "verb", "surface", "transport", "remote", "ok", "latency_ms",
        "source_id", "token_name", "entity_found",
    ]
    assert first["token_name"] == "ci-bot" and first["entity_found"] is True
    second = json.loads(lines[1])
    assert "token_name" not in second and second["budget_dropped"] == 2


def test_record_is_private_to_the_user(tmp_path: Path) -> None:
    log = UsageLog(tmp_path / "usage.jsonl")
    log.record(event())
    assert (log.path.stat().st_mode & 0o077) == 0


def test_record_never_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    UsageLog(blocker / "usage.jsonl").record(event())  # parent is a file: silently dropped
    directory = tmp_path / "adir"
    directory.mkdir()
    UsageLog(directory).record(event())  # the path itself is a directory


def test_rotation_moves_a_full_file_aside(tmp_path: Path) -> None:
    line_bytes = len(event().to_json()) + 1
    log = UsageLog(tmp_path / "usage.jsonl", rotate_bytes=3 * line_bytes)
    for _ in range(4):  # the 4th append sees exactly 3 lines: not over the limit yet
        log.record(event())
    assert not log.rotated_path.exists()
    log.record(event("forget"))  # sees 4 lines (> limit): rotate, then append
    assert len(log.rotated_path.read_text().splitlines()) == 4
    assert [e["verb"] for e in log.read()] == ["forget"]  # only the current file is read


def test_rotation_overwrites_the_previous_generation(tmp_path: Path) -> None:
    log = UsageLog(tmp_path / "usage.jsonl", rotate_bytes=10)
    log.rotated_path.write_text("old generation\n")
    log.record(event())
    log.record(event())
    assert "old generation" not in log.rotated_path.read_text()


def test_default_rotation_threshold_is_ten_megabytes(tmp_path: Path) -> None:
    assert UsageLog(tmp_path / "u").rotate_bytes == 10 * 1024 * 1024


def test_read_skips_malformed_lines(tmp_path: Path) -> None:
    log = UsageLog(tmp_path / "usage.jsonl")
    log.record(event("recall"))
    with log.path.open("a") as handle:
        handle.write("\n")
        handle.write("{not json\n")
        handle.write("[1, 2]\n")
        handle.write(json.dumps({"ts": "2026-06-30T00:00:00.000Z"}) + "\n")  # no verb
        handle.write(json.dumps({"verb": "recall", "ts": 5}) + "\n")  # ts not a string
        handle.write(json.dumps({"verb": "recall", "ts": "yesterday"}) + "\n")
    log.record(event("forget"))
    with log.path.open("a") as handle:
        handle.write('{"verb": "rem')  # a torn final line
    assert [e["verb"] for e in log.read()] == ["recall", "forget"]


def test_read_missing_file_is_empty(tmp_path: Path) -> None:
    assert UsageLog(tmp_path / "none.jsonl").read(7) == []


def test_read_days_window(tmp_path: Path) -> None:
    log = UsageLog(tmp_path / "usage.jsonl")
    log.record(event("old", at=NOW - timedelta(days=10)))
    log.record(event("new", at=NOW - timedelta(days=1)))
    assert [e["verb"] for e in log.read(7, now=NOW)] == ["new"]
    assert [e["verb"] for e in log.read(None, now=NOW)] == ["old", "new"]


def test_concurrent_appends_never_interleave(tmp_path: Path) -> None:
    log = UsageLog(tmp_path / "usage.jsonl")
    pids = []
    for worker in range(4):
        pid = os.fork()
        if pid == 0:  # child: append and leave without running pytest teardown
            for _ in range(200):
                log.record(event(f"w{worker}"))
            os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
    assert len(log.read()) == 800


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0s"), (59, "59s"), (60, "1m"), (125, "2m5s"), (3599, "59m59s"),
        (3600, "1h"), (3660, "1h1m"), (47 * 3600 + 59 * 60, "47h59m"),
        (48 * 3600, "2d"), (10 * 86400 + 5, "10d"),
    ],
)
def test_format_duration(seconds: int, text: str) -> None:
    assert format_duration(seconds) == text


def test_outcome_fields() -> None:
    assert outcome_fields("recall", True, {"dropped_count": 3}) == {
        "budget_dropped": 3, "entity_found": None,
    }
    assert outcome_fields("entity", True, {"found": False}) == {
        "budget_dropped": None, "entity_found": False,
    }
    assert outcome_fields("entity", False, {"error": "internal"}) == {
        "budget_dropped": None, "entity_found": None,
    }


def _events(*items: UsageEvent) -> list[dict[str, Any]]:
    return [json.loads(item.to_json()) for item in items]


def test_stats_aggregate_per_verb() -> None:
    events = _events(
        event("recall", latency_ms=2, budget_dropped=3),
        event("recall", latency_ms=5, ok=False),
        event("recall", latency_ms=4, budget_dropped=1),
        event("entity", latency_ms=1, entity_found=True),
        event("entity", latency_ms=2, entity_found=False),
        event("entity", latency_ms=3, entity_found=True),
        event("forget", at=NOW - timedelta(days=40)),  # outside the window
    )
    stats = usage_stats(events, None, 30, sidecar="/x/usage.jsonl", now=NOW)
    assert stats["days"] == 30
    assert stats["total_calls"] == 6
    assert list(stats["by_verb"]) == ["entity", "recall"]  # calls desc, then name
    assert stats["by_verb"]["recall"] == {
        "calls": 3, "errors": 1, "avg_latency_ms": 4, "budget_dropped_total": 4,
    }
    assert stats["by_verb"]["entity"] == {
        "calls": 3, "errors": 0, "avg_latency_ms": 2, "budget_dropped_total": 0,
        "found": 2, "miss": 1,
    }
    assert stats["sidecar"] == "/x/usage.jsonl"
    assert stats["privacy"] == "local JSONL only — never uploaded"
    assert stats["tthw_install_to_first_verb"] is None


def test_tthw_uses_the_first_call_ever_not_the_window() -> None:
    installed = NOW - timedelta(days=60)
    first = installed + timedelta(minutes=3, seconds=12)
    events = _events(event("recall", at=NOW), event("remember", at=first))
    stats = usage_stats(events, usage_timestamp(installed), 7, now=NOW)
    assert stats["total_calls"] == 1  # windowed
    assert stats["first_verb_call"] == usage_timestamp(first)
    assert stats["tthw_install_to_first_verb"] == "3m12s"
    assert stats["installed_at"] == usage_timestamp(installed)


def test_tthw_absent_when_first_call_predates_install_or_no_calls() -> None:
    events = _events(event("recall", at=NOW - timedelta(hours=1)))
    assert usage_stats(events, usage_timestamp(NOW), 30, now=NOW)[
        "tthw_install_to_first_verb"] is None
    empty = usage_stats([], usage_timestamp(NOW), 30, now=NOW)
    assert empty["tthw_install_to_first_verb"] is None and empty["first_verb_call"] is None


def test_render_stats() -> None:
    events = _events(event("entity", entity_found=True), event("entity", entity_found=False,
                                                              ok=False, latency_ms=8))
    installed = usage_timestamp(NOW - timedelta(seconds=30))
    text = render_stats(usage_stats(events, installed, 30, sidecar="/s", now=NOW))
    assert "last 30 days" in text and "never uploaded" in text
    assert "entity" in text and "2 calls" in text and "6 ms avg" in text
    assert "1 error" in text and "hit 1/2" in text
    assert "first verb call 30s after install" in text
    assert "sidecar: /s" in text
    empty = render_stats(usage_stats([], installed, 30, sidecar="/s", now=NOW))
    assert "no verb calls recorded yet" in empty
    assert "no verb calls since install" in empty


def test_doctor_line_states(tmp_path: Path) -> None:
    log = UsageLog(tmp_path / "usage.jsonl")
    assert doctor_usage_line(log) == "no verb calls recorded yet (appears on first verb call)"
    log.record(event("recall", at=NOW - timedelta(days=45)))
    assert doctor_usage_line(log, now=NOW) == (
        "sidecar present; no verb calls in the last 30 days"
    )
    log.record(event("recall", at=NOW - timedelta(days=2)))
    log.record(event("recall", at=NOW - timedelta(days=1)))
    log.record(event("entity", at=NOW - timedelta(hours=1)))
    line = doctor_usage_line(log, now=NOW)
    assert line.startswith("3 verb calls in 30d (recall:2 entity:1); last entity at ")
    assert line.endswith("local JSONL only — never uploaded")
    assert usage_health(log, now=NOW).ok


def test_doctor_warns_when_unreadable(tmp_path: Path) -> None:
    directory = tmp_path / "usage.jsonl"
    directory.mkdir()  # exists but cannot be read as a file
    health = usage_health(UsageLog(directory))
    assert not health.ok
    assert "unreadable" in health.message and "verbs unaffected" in health.message
