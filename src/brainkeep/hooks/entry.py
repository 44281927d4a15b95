"""`brainkeep hook HOST EVENT`: read the host's payload, answer in its format, fail open.

Whatever goes wrong (no brain, a locked database, a timeout, a malformed or
oversized payload, invalid UTF-8, a server that is down) the hook exits 0
with empty output and writes one heartbeat line (outcome code, duration,
counts; never prompt text). ``BRAINKEEP_HOOKS=0`` turns every hook off.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import IO, Any

from brainkeep import brain_home, hook_log
from brainkeep.errors import InvalidInput
from brainkeep.hooks import hosts
from brainkeep.hooks.backend import Deadline, HookFailure, LocalBackend, RemoteBackend

USAGE = ("usage: brainkeep hook HOST EVENT [PAYLOAD] [--home DIR] [--url URL --token-file F]\n"
         "  HOST: claude-code | codex | generic   (see `brainkeep hook --help`)")
MAX_PAYLOAD = 1024 * 1024  # a hook payload is a few KB; a bigger one is refused, not parsed
DRAIN_CAP = 64 * 1024 * 1024
# Seconds each kind of run may take before it fails open (a cold ambient
# server needs about one of them to open the brain).
TIMEOUTS = {"prompt": 2.0, "start": 5.0, "bank": 60.0, "bank_async": 2.0, "turn": 2.0}
OFF = frozenset({"0", "false", "off", "no"})


def disabled(env: dict[str, str] | os._Environ[str]) -> bool:
    return env.get("BRAINKEEP_HOOKS", "").strip().lower() in OFF


def parse_argv(argv: list[str]) -> dict[str, Any]:
    """The options, and HOST EVENT [PAYLOAD] when valid (``opts["error"]`` says when not)."""
    opts: dict[str, Any] = {"home": None, "url": None, "token_file": None, "error": False}
    names = {"--home": "home", "--url": "url", "--token-file": "token_file"}
    positional: list[str] = []
    items = iter(argv)
    for arg in items:
        key, eq, value = arg.partition("=")
        if key in names:
            opts[names[key]] = value if eq else next(items, None)
            opts["error"] = opts["error"] or opts[names[key]] is None
        elif arg.startswith("--"):
            opts["error"] = True
        else:
            positional.append(arg)
    if len(positional) not in (2, 3) or positional[0] not in hosts.EVENTS \
            or positional[1] not in hosts.EVENTS[positional[0]]:
        opts["error"] = True
        positional = [*positional, "", ""][:2]
    opts["host"], opts["event"] = positional[0], positional[1]
    opts["payload"] = positional[2] if len(positional) == 3 else None
    return opts


def home_of(opts: dict[str, Any], env: dict[str, str] | os._Environ[str]) -> Path:
    home = opts.get("home")
    return (Path(home).expanduser() if home else brain_home.default_home(env)).resolve()


def read_payload(stream: IO[bytes]) -> bytes:
    data = stream.read(MAX_PAYLOAD + 1)
    if len(data) > MAX_PAYLOAD:
        drained = len(data)
        while drained < DRAIN_CAP and stream.read(1 << 20):  # let the host finish writing
            drained += 1 << 20
        raise HookFailure("too_large")
    return data


def backend_for(opts: dict[str, Any], home: Path, env: dict[str, str] | os._Environ[str],
                deadline: Deadline) -> LocalBackend | RemoteBackend:
    if opts.get("url"):
        token = env.get("BRAINKEEP_HOOK_TOKEN", "")
        if opts.get("token_file"):
            try:
                token = Path(opts["token_file"]).read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise HookFailure("bad_args") from exc
        return RemoteBackend(str(opts["url"]), token, deadline, home)
    try:
        values = brain_home.read_config(home)
    except InvalidInput as exc:
        raise HookFailure("no_brain") from exc
    if not brain_home.has_brain(home, values, env):
        raise HookFailure("no_brain")
    return LocalBackend(home, env, deadline)


def _number(env: dict[str, str] | os._Environ[str], name: str, default: float) -> float:
    try:
        return float(env.get(name) or default)
    except ValueError:
        return default


def run(argv: list[str], *, stdin: IO[bytes], stdout: IO[str],
        env: dict[str, str] | os._Environ[str]) -> int:
    """One hook run; always 0 (a failing hook must never break the host's turn)."""
    started = time.perf_counter()
    if disabled(env):
        return 0
    line: dict[str, Any] = {"host": None, "event": None}
    home: Path | None = None
    output, code = "", "ok"
    backend = None
    try:
        opts = parse_argv(argv)
        home = home_of(opts, env)  # known even for bad arguments: the log goes there
        if opts["error"]:
            raise HookFailure("bad_args")
        line.update(host=opts["host"], event=opts["event"])
        raw = b"" if opts["payload"] else read_payload(stdin)
        try:
            event = hosts.parse(opts["host"], opts["event"], raw, opts["payload"])
        except hosts.PayloadError as exc:
            raise HookFailure("bad_payload") from exc
        budget = _number(env, "BRAINKEEP_HOOK_TIMEOUT_S", TIMEOUTS[event.action])
        backend = backend_for(opts, home, env, Deadline(budget))
        line["backend"] = backend.kind
        from brainkeep.hooks.actions import act

        context, counts = act(event, backend, home, env)
        line.update(counts)
        output = hosts.render(event, context, {k: counts[k] for k in ("items", "tokens")
                                               if k in counts})
    except HookFailure as failure:
        code = failure.code
    except Exception as exc:  # noqa: BLE001 - the hook's edge: fail open, log the kind
        code, line["error"] = "error", type(exc).__name__
    finally:
        if backend is not None:
            backend.close()
    if output:
        try:
            stdout.write(output + "\n")
            stdout.flush()
        except OSError:
            code = "error"
    line.update(code=code, ms=round((time.perf_counter() - started) * 1000))
    hook_log.record(home if home is not None else home_of({}, env), line)
    if code == "bad_args":
        sys.stderr.write(USAGE + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """The console-script fast path: ``brainkeep hook ...`` without click."""
    return run(sys.argv[2:] if argv is None else argv, stdin=sys.stdin.buffer,
               stdout=sys.stdout, env=os.environ)
