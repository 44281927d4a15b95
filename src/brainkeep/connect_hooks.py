"""Hook entries written by `brainkeep connect --install HOST --hooks` (and removed by --uninstall).

Claude Code reads hooks from ``~/.claude/settings.json``, Codex from
``~/.codex/hooks.json``; both as ``{"hooks": {Event: [{"matcher", "hooks":
[{"type": "command", "command", "timeout"}]}]}}``. Our entries are the ones
whose command runs ``hook <host> <event>`` of brainkeep: installing replaces
them (idempotent), uninstalling removes exactly them and any group or event
list left empty, nothing else.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from brainkeep.connect import NAME, Change, Target, launcher
from brainkeep.errors import InvalidInput

# host -> (its event name, our event name, seconds the host waits) per hook.
HOOK_EVENTS: dict[str, tuple[tuple[str, str, int], ...]] = {
    "claude-code": (("SessionStart", "session-start", 15), ("UserPromptSubmit", "user-prompt", 15),
                    ("PreCompact", "pre-compact", 90), ("Stop", "stop", 10),
                    ("SessionEnd", "session-end", 90)),
    "codex": (("SessionStart", "session-start", 15), ("UserPromptSubmit", "user-prompt", 15),
              ("PreCompact", "pre-compact", 90), ("Stop", "stop", 10)),
}
HOOK_HOSTS = tuple(HOOK_EVENTS)
_OURS = re.compile(r"brainkeep\S*'?\s.*\bhook (claude-code|codex|generic) [a-z-]+")


def hooks_path(host: str, home: Path) -> Path:
    if host == "claude-code":
        return home / ".claude" / "settings.json"
    if host == "codex":
        return home / ".codex" / "hooks.json"
    raise InvalidInput(f"{host} has no hooks brainkeep can install.",
                       suggestion=f"--hooks works with {', '.join(HOOK_HOSTS)}.", field="hooks")


def hook_command(host: str, event: str, target: Target, brain_home: Path,
                 token_file: Path | None = None) -> str:
    """The shell command line of one hook (hosts run hook commands through a shell)."""
    runner = list(target.brain_args)
    if runner[-2:-1] == ["--home"]:
        runner = runner[:-2]  # the hook names its brain after the event (fast path)
    command = target.command
    if command == NAME:  # the bare name: hooks get the absolute path (no PATH shim per prompt)
        command, *runner = [*launcher(absolute=True), *runner]
    words = [command, *runner, "hook", host, event, "--home", str(brain_home)]
    if target.url:
        words += ["--url", target.url]
        if token_file is not None:
            words += ["--token-file", str(token_file)]
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in target.env)
    line = " ".join(shlex.quote(w) for w in words)
    return f"{env} {line}" if env else line


def is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("command"), str) \
        and bool(_OURS.search(entry["command"]))


def _load(before: str | None, path: Path) -> dict[str, Any]:
    try:
        data = json.loads(before) if before and before.strip() else {}
    except ValueError as exc:
        raise InvalidInput(f"Cannot read {path}.", suggestion="Fix or move the file, then "
                           "retry.", field="hooks", detail=str(exc)) from exc
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise InvalidInput(f"{path} is not a JSON object with a hooks object.", field="hooks")
    return data


def _without_ours(data: dict[str, Any]) -> dict[str, Any]:
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return data
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                inner = [h for h in group["hooks"] if not is_ours(h)]
                if not inner and group["hooks"]:
                    continue  # a group that held only ours goes with them
                group = {**group, "hooks": inner}
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del data["hooks"]
    return data


def plan_hooks(host: str, target: Target, home: Path, brain_home: Path,
               token_file: Path | None = None) -> Change:
    """The change that installs ``host``'s hook entries (ours replaced, others kept)."""
    path = hooks_path(host, home)
    before = path.read_text(encoding="utf-8") if path.exists() else None
    data = _without_ours(_load(before, path))
    hooks = data.setdefault("hooks", {})
    for host_event, event, timeout in HOOK_EVENTS[host]:
        command = hook_command(host, event, target, brain_home, token_file)
        hooks.setdefault(host_event, []).append(
            {"hooks": [{"type": "command", "command": command, "timeout": timeout}]})
    return Change(host, path, before, json.dumps(data, indent=2) + "\n", bool(target.env))


def plan_hooks_removal(host: str, home: Path) -> Change:
    """The change that removes our hook entries from ``host``'s file (nothing else)."""
    path = hooks_path(host, home)
    before = path.read_text(encoding="utf-8") if path.exists() else None
    if before is None:
        return Change(host, path, "", "")  # no file: nothing to remove
    data = _load(before, path)
    cleaned = _without_ours(json.loads(json.dumps(data)))
    return Change(host, path, before,
                  before if cleaned == data else json.dumps(cleaned, indent=2) + "\n",
                  drop_empty=True)
