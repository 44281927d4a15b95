"""What each kind of hook run does, over a backend and the local state files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from brainkeep import hook_log
from brainkeep.hooks.backend import LocalBackend, RemoteBackend
from brainkeep.hooks.hosts import HookEvent

Env = dict[str, str] | os._Environ[str]
# A SessionStart after these starts from an empty context: what was injected
# before is gone from it, so it may be injected again.
FRESH_CONTEXT = frozenset({"startup", "clear", "compact", ""})


def _override(env: Env, name: str, kind: type[int] | type[float]) -> int | float | None:
    """A budget or floor the environment sets; None (the default) when unset or not a number."""
    try:
        return kind(env[name]) if env.get(name) else None
    except ValueError:
        return None


def act(event: HookEvent, backend: LocalBackend | RemoteBackend, home: Path,
        env: Env) -> tuple[str, dict[str, Any]]:
    """Run ``event``: the context to inject ('' for none) and the heartbeat counts."""
    session = hook_log.session_state(home, event.host, event.session_id)
    if event.action == "start":
        return _start(event, backend, home, env, session)
    if event.action == "prompt":
        return _prompt(event, backend, home, env, session)
    return "", _bank(event, backend, session)


def _start(event: HookEvent, backend: LocalBackend | RemoteBackend, home: Path, env: Env,
           session: hook_log.StateFile) -> tuple[str, dict[str, Any]]:
    workspace = hook_log.workspace_state(home, event.cwd)
    hook_log.prune_sessions(home)
    if event.source in FRESH_CONTEXT:
        session.data["seen"] = []
    digest = backend.digest({
        "workspace": event.cwd or "-",
        "standing": hook_log.standing_entities(workspace, event.cwd),
        "budget": _override(env, "BRAINKEEP_HOOK_START_BUDGET", int),
        "seen": session.data.get("seen") or []})
    hook_log.remember_seen(session, digest["keys"])
    counts = {"items": len(digest["keys"]), "tokens": digest["tokens"], "calls": digest["calls"]}
    _count(session, counts["items"], counts["tokens"])
    session.save()
    return digest["text"], counts


def _prompt(event: HookEvent, backend: LocalBackend | RemoteBackend, home: Path, env: Env,
            session: hook_log.StateFile) -> tuple[str, dict[str, Any]]:
    found = backend.prompt({
        "prompt": event.prompt, "seen": session.data.get("seen") or [],
        "budget": _override(env, "BRAINKEEP_HOOK_BUDGET", int),
        "floor": _override(env, "BRAINKEEP_HOOK_FLOOR", float)})
    if found["keys"]:
        hook_log.remember_seen(session, found["keys"])
    counts = {"items": len(found["keys"]), **{k: found[k] for k in (
        "tokens", "calls", "below_floor", "repeated", "over_budget")}}
    _count(session, counts["items"], counts["tokens"])
    session.save()
    if found["entities"]:
        workspace = hook_log.workspace_state(home, event.cwd)
        hook_log.count_entities(workspace, found["entities"])
        workspace.save()
    return found["text"], counts


def _count(session: hook_log.StateFile, items: int, tokens: int) -> None:
    session.data["runs"] = int(session.data.get("runs") or 0) + 1
    session.data["items"] = int(session.data.get("items") or 0) + items
    session.data["tokens"] = int(session.data.get("tokens") or 0) + tokens


def _bank(event: HookEvent, backend: LocalBackend | RemoteBackend,
          session: hook_log.StateFile) -> dict[str, Any]:
    """Bank the transcript's new part; the counts include what this session injected."""
    counts: dict[str, Any] = {"session_items": int(session.data.get("items") or 0),
                              "session_tokens": int(session.data.get("tokens") or 0)}
    path = event.transcript_path or (_codex_rollout(event.session_id)
                                     if event.action == "turn" else "")
    if not path:
        return counts
    report = backend.bank(path, event.transcript_format, wait=event.action == "bank")
    counts.update({k: report[k] for k in ("turns_added", "turns_sent", "secrets_scrubbed",
                                          "queued") if k in report})
    return counts


def _codex_rollout(thread_id: str) -> str:
    """Codex's session log of ``thread_id`` (``notify`` names no transcript path)."""
    if not thread_id or thread_id == "default" or "/" in thread_id:
        return ""
    root = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex") / "sessions"
    found = sorted(root.glob(f"*/*/*/rollout-*{thread_id}.jsonl"))
    return str(found[-1]) if found else ""
