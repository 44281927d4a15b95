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
import os
import re
import shutil
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brainkeep.errors import InvalidInput

HOSTS = ("claude-code", "codex", "claude-desktop", "cursor")
NAME = "brainkeep"


@dataclass(frozen=True)
class Target:
    """How the host reaches the brain: a local stdio command, or a remote URL.

    A local entry names the brain it was installed for (``--home``, and the
    PostgreSQL URL when it came from the environment) and an executable the
    host can run: the bare ``brainkeep`` only when that is what PATH finds
    for this installation, else its absolute path. The host starts the
    command with its own environment and PATH, not the shell's that ran
    `connect`.
    """

    url: str | None = None  # None: local brain over stdio
    token: str | None = None  # bearer token; None with a URL: the host runs OAuth
    command: str = "brainkeep"
    brain_args: tuple[str, ...] = ()  # e.g. ("--home", "/path/to/brain")
    env: tuple[tuple[str, str], ...] = ()  # e.g. BRAINKEEP_DATABASE_URL

    def stdio(self) -> dict[str, Any]:
        out: dict[str, Any] = {"command": self.command, "args": [*self.brain_args, "serve"]}
        if self.env:
            out["env"] = dict(self.env)
        return out

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    @property
    def secret(self) -> bool:
        """The entry carries a credential (a token, a database URL): its file is 0600."""
        return bool(self.token) or bool(self.env)


def launcher(env: Mapping[str, str] | None = None, *, absolute: bool = False) -> tuple[str, ...]:
    """The command that runs this installation of brainkeep, as a host should spell it.

    The console script beside this interpreter; bare ``brainkeep`` only when
    PATH resolves to that very file (a virtualenv not on the host's PATH is
    the common case where it does not); ``python -m brainkeep`` when there is
    no script. ``absolute``: always the path (hooks: a PATH shim such as
    pyenv's costs a shell start on every prompt).
    """
    script = Path(sys.executable).parent / NAME
    if not script.is_file():
        return (sys.executable, "-m", NAME)
    if absolute:
        return (str(script.absolute()),)
    path = (env or os.environ).get("PATH")
    found = shutil.which(NAME, path=path)
    try:
        if found and Path(found).resolve().samefile(script):
            return (NAME,)
    except OSError:
        pass
    return (str(script.absolute()),)


def local_target(home: Path, database_url_env: str | None,
                 env: Mapping[str, str] | None = None) -> Target:
    """The stdio target for the brain under ``home`` (``database_url_env``: a URL from the env)."""
    command = launcher(env)
    extra = (("BRAINKEEP_DATABASE_URL", database_url_env),) if database_url_env else ()
    return Target(command=command[0], brain_args=(*command[1:], "--home", str(home)),
                  env=extra)


@dataclass(frozen=True)
class Change:
    """One host's file: where, the new text, and whether it differs from today's."""

    host: str
    path: Path
    before: str | None
    after: str
    secret: bool = False  # holds a credential: written 0600
    drop_empty: bool = False  # a removal: a file left with nothing in it is deleted

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
    return Change(host, path, before, after, target.secret)


def write_private(path: Path, text: str, *, secret: bool) -> None:
    """Replace ``path`` atomically; 0600 when it holds a secret, else the old file's mode."""
    mode = 0o600 if secret else (path.stat().st_mode & 0o777 if path.exists() else 0o644)
    tmp = path.with_name(path.name + ".brainkeep.tmp")
    tmp.unlink(missing_ok=True)
    # Created with its final mode: a secret is never readable by others, even briefly.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.chmod(tmp, mode)  # the umask may have narrowed a non-secret file's mode
    tmp.replace(path)


def apply(change: Change) -> Path | None:
    """Write the change; the backup path when a file existed (None: new file or no-op)."""
    if not change.changed:
        return None
    change.path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if change.before is not None:
        backup = change.path.with_name(change.path.name + ".brainkeep.bak")
        shutil.copy2(change.path, backup)
        if change.secret:
            os.chmod(backup, 0o600)
    if change.drop_empty and change.after.strip() in ("", "{}"):
        change.path.unlink()
        return backup
    write_private(change.path, change.after, secret=change.secret)
    return backup


def _json_removed(before: str | None) -> str | None:
    data = json.loads(before) if before and before.strip() else {}
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict) or NAME not in servers:
        return before
    del servers[NAME]
    if not servers:
        del data["mcpServers"]
    return json.dumps(data, indent=2) + "\n"


def _toml_removed(before: str | None) -> str | None:
    text = before or ""
    pattern = re.compile(rf"^\[mcp_servers\.{NAME}\]\n(?:(?!\[).*\n?)*", re.MULTILINE)
    after = pattern.sub("", text, count=1)
    tomllib.loads(after)
    return after if after != text else before


def plan_removal(host: str, home: Path) -> Change:
    """The change ``--uninstall host`` makes to the MCP file: our entry goes, nothing else."""
    path = config_path(host, home)
    before = path.read_text(encoding="utf-8") if path.exists() else None
    try:
        after = _toml_removed(before) if host == "codex" else _json_removed(before)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise InvalidInput(f"Cannot read {path}.", suggestion="Fix or move the file, then "
                           "retry.", field="uninstall", detail=str(exc)) from exc
    if before is None or after is None:
        return Change(host, path, "", "")  # no file, or nothing of ours in it
    return Change(host, path, before, after, drop_empty=True)


def blocks(target: Target) -> dict[str, Any]:
    """What `connect --print` shows: the generic JSON entry plus each known host's."""
    generic = {"mcpServers": {NAME: entry("cursor", target)}}
    return {"generic": generic, **{host: entry(host, target) for host in HOSTS}}
