"""The hooks' local files: heartbeat log, per-session and per-workspace state.

Everything lives under ``<brain home>/hooks/`` and never holds prompt or
transcript text: the heartbeat has one line per hook run (event, outcome
code, duration, counts), the state files hold item keys and counters.
`brainkeep doctor` reads the heartbeat (``summary``); the hooks front writes
all three. Writing never raises: a hook fails open, and so does its log.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HOOKS_DIR = "hooks"
HEARTBEAT = "heartbeat.jsonl"
ROTATE_BYTES = 1024 * 1024
SEEN_CAP = 4000  # item keys kept per session (oldest dropped first)
# Outcome codes: `ok` did its work (injected or not), the rest failed open.
FAILURE_CODES = ("no_brain", "bad_payload", "too_large", "timeout", "unavailable",
                 "locked", "bad_args", "error")


def hooks_dir(home: Path) -> Path:
    return home / HOOKS_DIR


def heartbeat_path(home: Path) -> Path:
    return hooks_dir(home) / HEARTBEAT


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:24]


def record(home: Path, line: dict[str, Any]) -> None:
    """Append one heartbeat line (rotating past ROTATE_BYTES); never raises."""
    try:
        path = heartbeat_path(home)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > ROTATE_BYTES:
            os.replace(path, path.with_name(HEARTBEAT + ".1"))
        entry = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **line}
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry, separators=(",", ":")) + "\n")
    except OSError:
        pass


def read_heartbeat(home: Path, *, last: int = 500) -> list[dict[str, Any]]:
    """The newest ``last`` heartbeat lines (unreadable lines skipped)."""
    path = heartbeat_path(home)
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[-last:]
    except OSError:
        return []
    out = []
    for raw in lines:
        try:
            item = json.loads(raw)
        except ValueError:
            continue
        if isinstance(item, dict):
            out.append(item)
    return out


def _percentile(values: list[int], share: float) -> int | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def summary(lines: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Hook health for doctor: runs, failures by code, latency per event, last run."""
    items = list(lines)
    by_event: dict[str, list[int]] = {}
    failures: dict[str, int] = {}
    injected = 0
    for item in items:
        code = str(item.get("code") or "ok")
        if code != "ok":
            failures[code] = failures.get(code, 0) + 1
        by_event.setdefault(str(item.get("event")), []).append(int(item.get("ms") or 0))
        injected += int(item.get("items") or 0)
    last = items[-1] if items else None
    return {
        "runs": len(items),
        "failed_open": sum(failures.values()),
        "failures": dict(sorted(failures.items())),
        "items_injected": injected,
        "events": {event: {"runs": len(ms), "p50_ms": _percentile(ms, 0.5),
                           "p99_ms": _percentile(ms, 0.99)}
                   for event, ms in sorted(by_event.items())},
        "last": None if last is None else {k: last.get(k) for k in
                                           ("at", "host", "event", "code", "ms")},
        "healthy": bool(items) and (last or {}).get("code", "ok") in ("ok",),
    }


class StateFile:
    """One small JSON state file (a session's or a workspace's), rewritten atomically."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        self.data: dict[str, Any] = data if isinstance(data, dict) else {}

    def save(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(self.data, separators=(",", ":")), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            pass


def session_state(home: Path, host: str, session_id: str) -> StateFile:
    return StateFile(hooks_dir(home) / "sessions" / f"{_digest(host + chr(0) + session_id)}.json")


def workspace_state(home: Path, workspace: str) -> StateFile:
    return StateFile(hooks_dir(home) / "workspaces" / f"{_digest(workspace)}.json")


def prune_sessions(home: Path, *, max_age_days: float = 14.0) -> int:
    """Delete session state files untouched for ``max_age_days`` (run at session start)."""
    cutoff = time.time() - max_age_days * 86_400
    removed = 0
    try:
        for path in (hooks_dir(home) / "sessions").glob("*.json"):
            if path.stat().st_mtime < cutoff:
                path.unlink(missing_ok=True)
                removed += 1
    except OSError:
        pass
    return removed


def remember_seen(state: StateFile, keys: Iterable[str]) -> None:
    seen = list(state.data.get("seen") or [])
    seen += [k for k in keys if k not in set(seen)]
    state.data["seen"] = seen[-SEEN_CAP:]


def standing_entities(state: StateFile, workspace: str, *, top: int = 6) -> list[str]:
    """The entities this workspace's prompts named most, after its folder's name."""
    counts: dict[str, int] = state.data.get("entities") or {}
    ranked = sorted(counts, key=lambda slug: (-int(counts[slug]), slug))[:top]
    name = Path(workspace).name if workspace else ""
    return [n for n in [name, *ranked] if n]


def count_entities(state: StateFile, slugs: Iterable[str]) -> None:
    counts: dict[str, int] = dict(state.data.get("entities") or {})
    for slug in slugs:
        counts[slug] = int(counts.get(slug, 0)) + 1
    if len(counts) > 200:  # keep the file small: the 200 most named
        counts = dict(sorted(counts.items(), key=lambda kv: -kv[1])[:200])
    state.data["entities"] = counts
