"""The pure parts behind Usage and Live: bucketing, percentiles, SVG charts, the log tail."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from brainkeep.console.charts import Series, line_chart
from brainkeep.console.pages.live import read_from, recent
from brainkeep.ops.usage import UsageEvent, UsageLog, usage_timestamp
from brainkeep.ops.usage_series import build_view, caller_kind, percentile

NOW = datetime(2026, 3, 10, 12, 30, tzinfo=UTC)


def _line(minutes_ago: float, verb: str, *, ok: bool = True, ms: int = 5,
          token: str | None = None, found: bool | None = None) -> dict[str, object]:
    ts = usage_timestamp(NOW - timedelta(minutes=minutes_ago))
    line: dict[str, object] = {"ts": ts, "verb": verb, "ok": ok, "latency_ms": ms,
                               "transport": "http" if token else "cli"}
    if token:
        line["token_name"] = token
    if found is not None:
        line["entity_found"] = found
    return line


def test_percentile_is_nearest_rank() -> None:
    assert percentile([], 50) is None
    assert percentile([7], 99) == 7
    values = list(range(1, 101))
    assert percentile(values, 50) == 50
    assert percentile(values, 99) == 99
    assert percentile([1, 1000], 99) == 1000


def test_view_buckets_errors_latency_callers_and_hit_rate() -> None:
    lines = [
        _line(5, "recall", ms=10, token="a"),
        _line(6, "recall", ms=30, token="a", ok=False),
        _line(70, "entity", ms=4, token="b", found=True),
        _line(71, "entity", ms=6, found=False),
        _line(60 * 30, "recall"),  # 30 hours ago: outside the 1-day window
        {"ts": "not a time", "verb": "recall"},
    ]
    view = build_view(lines, 1, now=NOW)
    assert view.total == 4
    assert len(view.buckets) == 24 and view.bucket == timedelta(hours=1)
    last, before = view.buckets[-1], view.buckets[-2]
    assert last.calls == {"recall": 2} and last.errors == 1 and last.error_rate == 0.5
    assert (last.p50_ms, last.p99_ms) == (10, 30)
    assert before.calls == {"entity": 2} and before.error_rate == 0.0
    assert view.buckets[0].total == 0 and view.buckets[0].error_rate is None
    assert [(r.verb, r.calls, r.errors) for r in view.verbs] == [("entity", 2, 0),
                                                                  ("recall", 2, 1)]
    assert [(c.name, c.calls, c.errors) for c in view.callers] == [
        ("a", 2, 1), ("(cli)", 1, 0), ("b", 1, 0)]
    assert view.entity_hit_rate == 0.5


def test_each_caller_kind_has_its_own_error_and_hit_rate() -> None:
    lines = [
        _line(1, "recall", ok=False), _line(2, "entity", found=False),  # the shell: typos
        _line(3, "recall", ok=False), _line(4, "recall"),
        _line(5, "entity", token="agent", found=True), _line(6, "recall", token="agent"),
        {**_line(7, "entity", found=False), "transport": "stdio"},
        {**_line(8, "recall", token="oauth:web"), "transport": "http"},
        {**_line(9, "recall"), "transport": "carrier-pigeon"},
    ]
    view = build_view(lines, 1, now=NOW)
    rows = {row.kind: row for row in view.kinds}
    assert [row.kind for row in view.kinds] == ["cli", "stdio", "http", "oauth", "other"]
    assert (rows["cli"].calls, rows["cli"].errors, rows["cli"].error_rate) == (4, 2, 0.5)
    assert rows["cli"].entity_hit_rate == 0.0
    assert (rows["http"].error_rate, rows["http"].entity_hit_rate) == (0.0, 1.0)
    assert rows["stdio"].entity_hit_rate == 0.0 and rows["oauth"].entity_hit_rate is None
    assert rows["oauth"].label == "MCP over HTTP, OAuth" and rows["other"].calls == 1
    last = view.buckets[-1]  # every line is in the last hour
    assert last.kind_error_rate("cli") == 0.5 and last.kind_error_rate("http") == 0.0
    assert last.kind_error_rate("grpc") is None
    assert caller_kind({"transport": "grpc"}) == "grpc"
    assert caller_kind({"transport": "oauth"}) == "other"  # not a transport of its own
    assert caller_kind({}) == "other"


def test_unknown_window_falls_back_to_seven_days() -> None:
    view = build_view([], 3, now=NOW)
    assert view.days == 7 and len(view.buckets) == 28


def test_chart_escapes_names_and_leaves_gaps() -> None:
    svg = str(line_chart([Series("<b>x</b>", (1.0, None, 3.0, 4.0))], ["a", "b", "c", "d"],
                         title='t"<', unit="ms", chart_id="c1"))
    assert "<b>" not in svg and "&lt;b&gt;x&lt;/b&gt;" in svg
    assert 'aria-label="t&quot;&lt;"' in svg
    # Values 3 and 4 join; the lone 1 before the gap is a dot, not a line.
    assert svg.count("<polyline") == 1 and svg.count("<circle") == 3
    assert "style=" not in svg  # the console's CSP forbids inline style


def test_tail_reads_whole_lines_resumes_and_survives_rotation(tmp_path: Path) -> None:
    log = UsageLog(tmp_path / "usage.jsonl")
    event = UsageEvent(ts=usage_timestamp(NOW), brain_id=str(tmp_path), verb="recall",
                       surface="full", transport="http", remote=True, ok=True, latency_ms=3,
                       source_id="default", token_name="agent-1")
    log.record(event)
    first = read_from(log.path, 0)
    assert [i["caller"] for i in first.items] == ["agent-1"]
    assert "brain_id" not in first.items[0]  # the feed never shows the brain's path
    with log.path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"ts": event.ts, "verb": "entity"})[:-3])  # half a line
    assert read_from(log.path, first.offset).items == ()
    with log.path.open("a", encoding="utf-8") as handle:
        handle.write('y"}\n')
    resumed = read_from(log.path, first.offset)
    assert [i["verb"] for i in resumed.items] == ["entity"]
    log.path.write_text(event.to_json() + "\n", encoding="utf-8")  # rotated: shorter now
    again = read_from(log.path, resumed.offset)
    assert [i["verb"] for i in again.items] == ["recall"]
    assert recent(tmp_path / "missing.jsonl").items == ()
    assert [i["verb"] for i in recent(log.path).items] == ["recall"]
