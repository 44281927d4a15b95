"""MCP client configuration for `brainkeep connect --install/--print`.

Each known host keeps its MCP servers in one file under the user's home; we
add or replace a single ``brainkeep`` entry, leave everything else alone, back
the file up before the first change, and write nothing when the entry is
already what it should be (idempotent). Hosts: Claude Code (``~/.claude.json``),
Codex (``~/.codex/config.toml``), Claude Desktop (its ``claude_desktop_config
.json``; remote brains through the ``mcp-remote`` bridge, since Desktop's file
only launches local commands) and Cursor (``~/.cursor/mcp.json``).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brainkeep.errors import InvalidInput

HOSTS = ("claude-code", "codex", "claude-desktop", "cursor")
NAME = "brainkeep"


@dataclass(frozen=True)
class Target:
    """How the host reaches the brain: a local stdio command, or a remote URL."""

    url: str | None = None  # None: local brain over stdio
    token: str | None = None  # bearer token; None with a URL: the host runs OAuth

    def stdio(self) -> dict[str, Any]:
        return {"command": "brainkeep", "args": ["serve"]}

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}


@dataclass(frozen=True)
class Change:
    """One host's file: where, the new text, and whether it differs from today's."""

    host: str
    path: Path
    before: str | None
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


def config_path(host: str, home: Path) -> Path:
    if host == "claude-code":
        return home / ".claude.json"
    if host == "codex":
        return home / ".codex" / "config.toml"
    if host == "cursor":
        return home / ".cursor" / "mcp.json"
    if host == "claude-desktop":
        if sys.platform == "darwin":
            return home / "Library" / "Application Support" / "Claude" / \
                "claude_desktop_config.json"
        return home / ".config" / "Claude" / "claude_desktop_config.json"
    raise InvalidInput(f"Unknown host {host!r}.", suggestion=f"Use one of {', '.join(HOSTS)}, "
                       "or `brainkeep connect --print` for any other host.", field="install")


def entry(host: str, target: Target) -> dict[str, Any]:
    """The ``brainkeep`` server entry for ``host`` (JSON-shaped, also for Codex)."""
    if target.url is None:
        return ({"type": "stdio", **target.stdio()} if host == "claude-code"
                else target.stdio())
    if host == "claude-code":
        return {"type": "http", "url": target.url,
                **({"headers": target.headers()} if target.token else {})}
    if host == "codex":
        return {"url": target.url,
                **({"http_headers": target.headers()} if target.token else {})}
    if host == "claude-desktop":
        args = ["-y", "mcp-remote", target.url]
        if target.token:
            args += ["--header", f"Authorization:Bearer {target.token}"]
        return {"command": "npx", "args": args}
    return {"url": target.url, **({"headers": target.headers()} if target.token else {})}


def _json_after(before: str | None, server: dict[str, Any]) -> str:
    data = json.loads(before) if before and before.strip() else {}
    if not isinstance(data, dict):
        raise InvalidInput("The config file is not a JSON object.", field="install")
    servers = data.setdefault("mcpServers", {})
    servers[NAME] = server
    return json.dumps(data, indent=2) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}"
                                for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(value)  # strings: JSON escapes are valid TOML basic strings


def _toml_after(before: str | None, server: dict[str, Any]) -> str:
    text = before or ""
    tomllib.loads(text)  # refuse to edit a file we cannot read
    block = f"[mcp_servers.{NAME}]\n" + "".join(
        f"{key} = {_toml_value(value)}\n" for key, value in server.items())
    pattern = re.compile(rf"^\[mcp_servers\.{NAME}\]\n(?:(?!\[).*\n?)*", re.MULTILINE)
    if pattern.search(text):
        after = pattern.sub(block, text, count=1)
    else:
        after = text + ("\n" if text and not text.endswith("\n\n") else "") + block
    tomllib.loads(after)
    return after


def plan(host: str, target: Target, home: Path) -> Change:
    """The change ``--install host`` would make (nothing is written)."""
    path = config_path(host, home)
    before = path.read_text(encoding="utf-8") if path.exists() else None
    server = entry(host, target)
    try:
        after = _toml_after(before, server) if host == "codex" else _json_after(before, server)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise InvalidInput(f"Cannot read {path}.", suggestion="Fix or move the file, then "
                           "retry.", field="install", detail=str(exc)) from exc
    return Change(host, path, before, after)


def apply(change: Change) -> Path | None:
    """Write the change; the backup path when a file existed (None: new file or no-op)."""
    if not change.changed:
        return None
    change.path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if change.before is not None:
        backup = change.path.with_name(change.path.name + ".brainkeep.bak")
        shutil.copy2(change.path, backup)
    tmp = change.path.with_name(change.path.name + ".brainkeep.tmp")
    tmp.write_text(change.after, encoding="utf-8")
    tmp.replace(change.path)
    return backup


def blocks(target: Target) -> dict[str, Any]:
    """What `connect --print` shows: the generic JSON entry plus each known host's."""
    generic = {"mcpServers": {NAME: entry("cursor", target)}}
    return {"generic": generic, **{host: entry(host, target) for host in HOSTS}}
