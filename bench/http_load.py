"""Load-test `brainkeep serve --http` on a 20K-page brain over loopback.

Run: ``python bench/http_load.py`` (16 clients, 30 s, 70% recall/entity and
30% remember). The corpus is built once with ``bench/seed_corpus.py`` into
``--brain`` (default ``$TMPDIR/brainkeep-bench-20k``) and reused afterwards.

The server is the real one (a `brainkeep serve --http` subprocess, the
official SDK's Streamable HTTP app behind our gate). The load is raw
JSON-RPC over HTTP, not the official MCP client, whose own CPU cost would
take most of this 2-core machine from the server under test: by default a
minimal keep-alive HTTP/1.1 client (``--client httpx`` uses httpx, itself
about as costly per request as the server). ``--protocol`` picks the MCP
revision: ``2025-11-25`` (handshake era, what `ClientSession` speaks; each
client initializes one session, or none with ``--stateless``) or
``2026-07-28`` (single exchange, what the SDK's ``Client`` negotiates by
default). After the run every acknowledged remember is looked up in the
database ("nothing lost").

Target (issue 4): >= 300 calls/s with zero errors on a 2-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from brainkeep.brain import open_brain
from brainkeep.config import load_settings, write_values
from brainkeep.core.tokens import TokenService

BANNER = re.compile(r"MCP over HTTP at (http://\S+/mcp)")
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "brainkeep-http-load", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def ensure_corpus(home: Path, scale: float, seed: int) -> dict[str, Any]:
    """Build the corpus into ``home`` unless it is already there; return its manifest."""
    manifest_path = home / "bench-manifest.json"
    if (home / "brain.db").exists() and manifest_path.exists():
        manifest: dict[str, Any] = json.loads(manifest_path.read_text())
        print(f"reusing corpus at {home} ({manifest['counts']['pages']:,} pages)")
        return manifest
    if (home / "brain.db").exists():
        sys.exit(f"{home} holds a brain without a bench manifest; pass an empty --brain folder")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from seed_corpus import build_corpus

    print(f"building the corpus at {home} (scale {scale}) …", flush=True)
    home.mkdir(parents=True, exist_ok=True)
    manifest = build_corpus(home, scale, seed)
    manifest_path.write_text(json.dumps(manifest, indent=2))
    print(f"built in {manifest['seconds']['total']:.1f} s")
    return manifest


def prepare(home: Path) -> tuple[str, str]:
    """Open the limits for this (copied) bench brain and mint a read+write token."""
    settings = load_settings(home, env={})
    values = dict(settings.values)
    values.update({"http.rate_per_minute": 10**9, "http.ip_rate_per_minute": 10**9})
    write_values(settings, values)
    brain = open_brain(settings)
    try:
        name = f"bench-{int(time.time())}"
        return name, TokenService(brain.store, brain.clock).create(name, "read,write").secret
    finally:
        brain.close()


def start_server(home: Path) -> tuple[subprocess.Popen[bytes], str, Path]:
    err_path = home / "bench-server.stderr"
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    with err_path.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "brainkeep", "serve", "--http", "--port", "0"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        match = BANNER.search(err_path.read_text(errors="replace"))
        if match:
            return proc, match.group(1), err_path
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    sys.exit(f"server did not start:\n{err_path.read_text(errors='replace')}")


def cpu_seconds(pid: int) -> float:
    """User+system CPU of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Tally:
    """What the clients saw."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    remembered: list[int] = field(default_factory=list)

    def add(self, verb: str, seconds: float) -> None:
        self.latencies.setdefault(verb, []).append(seconds)

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


class Workload:
    """70% reads (half recall, half entity by title/alias), 30% remember.

    ``recall`` is entity-scoped (the facts arm, how agents read memory);
    ``query_share`` of the recalls also pass a one-word ``query``, which adds
    the page-search arm, a heavier cost class measured separately.
    """

    def __init__(
        self, manifest: dict[str, Any], write_ratio: float, seed: int, query_share: float
    ) -> None:
        sample = manifest["sample"]
        self.slugs: list[str] = sample["slugs"]
        self.names: list[str] = sample["titles"] + sample["aliases"]
        self.words = sorted({w for t in sample["titles"] for w in t.split() if len(w) > 3})
        self.write_ratio = write_ratio
        self.query_share = query_share
        self.rng = random.Random(seed)
        self.counter = itertools.count()

    def next_call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if roll < self.write_ratio:
            n = next(self.counter)
            return "remember", {
                "fact": f"load fact {n}: prefers option {self.rng.randint(0, 10**6)}",
                "provenance": "bench/http_load.py",
                "entity": self.rng.choice(self.slugs),
            }
        if roll < self.write_ratio + (1 - self.write_ratio) / 2:
            if self.rng.random() >= self.query_share:
                return "recall", {"entity": self.rng.choice(self.slugs), "limit": 10}
            return "recall", {"query": self.rng.choice(self.words), "limit": 5}
        return "entity", {"name": self.rng.choice(self.names)}


def request_for(protocol: str, rid: int, verb: str, args: dict[str, Any]) -> tuple[bytes, dict]:
    params: dict[str, Any] = {"name": verb, "arguments": args}
    headers = {"mcp-protocol-version": protocol}
    if protocol == MODERN:
        params["_meta"] = _META
        headers.update({"mcp-method": "tools/call", "mcp-name": verb})
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
    return json.dumps(body).encode(), headers


class RawHTTP:
    """A minimal keep-alive HTTP/1.1 POST client over asyncio streams.

    httpx costs about as much CPU per request as the server under test; on a
    2-core machine that would halve what we can measure. This speaks just
    enough HTTP/1.1 for JSON responses with Content-Length (all /mcp answers).
    """

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        parsed = urlsplit(url)
        self.host, self.port, self.path = parsed.hostname or "", parsed.port or 80, parsed.path
        fixed = {"Host": f"{self.host}:{self.port}", "Connection": "keep-alive", **headers}
        self.head = "".join(f"{k}: {v}\r\n" for k, v in fixed.items())
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, body: bytes, extra: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        lines = "".join(f"{k}: {v}\r\n" for k, v in extra.items())
        self.writer.write(
            f"POST {self.path} HTTP/1.1\r\n{self.head}{lines}Content-Length: {len(body)}\r\n\r\n"
            .encode() + body
        )
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            key, _, value = line.decode("latin-1").partition(":")
            headers[key.strip().lower()] = value.strip()
        payload = await self.reader.readexactly(int(headers.get("content-length", 0)))
        if "close" in headers.get("connection", "").lower():
            await self.aclose()
        return status, headers, payload

    async def aclose(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None


async def post_with(kind: str, url: str, headers: dict[str, str]) -> Any:
    """A ``post(body, extra) -> (status, bytes)`` callable and its closer."""
    if kind == "raw":
        raw = RawHTTP(url, headers)
        return raw.post, raw.aclose
    http = httpx.AsyncClient(headers=headers, timeout=60.0)

    async def post(body: bytes, extra: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        response = await http.post(url, content=body, headers=extra)
        return response.status_code, dict(response.headers), response.content

    return post, http.aclose


async def open_session(post: Any) -> dict[str, str]:
    """The handshake a `ClientSession` does; returns the headers later calls carry."""
    init = {
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {},
                   "clientInfo": {"name": "brainkeep-http-load", "version": "1"}},
    }
    status, headers, _ = await post(json.dumps(init).encode(), {})
    if status != 200 or "mcp-session-id" not in headers:
        raise RuntimeError(f"initialize failed: HTTP {status}")
    extra = {"mcp-session-id": headers["mcp-session-id"], "mcp-protocol-version": LEGACY}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await post(json.dumps(note).encode(), extra)
    return extra


async def client(
    kind: str, url: str, secret: str, protocol: str, sessions: bool, work: Workload,
    tally: Tally, until: float,
) -> None:
    headers = {
        "Authorization": f"Bearer {secret}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    post, close = await post_with(kind, url, headers)
    rid = 0
    try:
        session = await open_session(post) if sessions and protocol == LEGACY else {}
        while time.perf_counter() < until:
            rid += 1
            verb, args = work.next_call()
            body, extra = request_for(protocol, rid, verb, args)
            extra.update(session)
            started = time.perf_counter()
            try:
                status, _headers, content = await post(body, extra)
            except (OSError, asyncio.IncompleteReadError, httpx.HTTPError) as exc:
                tally.error(f"transport:{type(exc).__name__}")
                continue
            tally.add(verb, time.perf_counter() - started)
            if status != 200:
                tally.error(f"http:{status}")
                continue
            message = json.loads(content)
            result = message.get("result")
            if result is None:
                tally.error(f"jsonrpc:{message.get('error', {}).get('code')}")
                continue
            payload = json.loads(result["content"][0]["text"])
            if result.get("isError"):
                tally.error(f"verb:{payload.get('error')}")
            elif verb == "remember":
                tally.remembered.append(int(payload["id"]))
    finally:
        await close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0


async def drive(args: argparse.Namespace, url: str, secret: str, manifest: dict, pid: int) -> Tally:
    load_before = os.getloadavg()[0]  # other work on this machine skews every number
    work = Workload(manifest, args.write_ratio, args.seed, args.query_share)
    warm = Tally()
    await asyncio.gather(
        *(client(args.client, url, secret, args.protocol, not args.stateless, work, warm,
                 time.perf_counter() + args.warmup) for _ in range(args.clients))
    )
    tally = Tally()
    tally.remembered.extend(warm.remembered)
    cpu0, wall0, own0 = cpu_seconds(pid), time.perf_counter(), time.process_time()
    until = wall0 + args.duration
    await asyncio.gather(
        *(client(args.client, url, secret, args.protocol, not args.stateless, work, tally,
                 until) for _ in range(args.clients))
    )
    wall = time.perf_counter() - wall0
    calls = sum(len(v) for v in tally.latencies.values())
    everything = [x for v in tally.latencies.values() for x in v]
    server_cpu = cpu_seconds(pid) - cpu0
    print(f"\n{args.clients} clients x {wall:.1f} s over loopback, protocol {args.protocol}, "
          f"{os.cpu_count()} cores, load average before the run {load_before:.1f}")
    mode = "stateless" if args.stateless or args.protocol == MODERN else "one MCP session each"
    print(f"client       {args.client} JSON-RPC over HTTP/1.1 keep-alive, one connection and "
          f"{mode} per client")
    print(f"mix          {args.write_ratio:.0%} remember, rest recall/entity; "
          f"{args.query_share:.0%} of recalls add a search query")
    print(f"calls        {calls:,}")
    print(f"throughput   {calls / wall:,.1f} calls/s")
    print(f"latency      p50 {percentile(everything, 0.5):.1f} ms   "
          f"p90 {percentile(everything, 0.9):.1f} ms   p99 {percentile(everything, 0.99):.1f} ms")
    for verb, values in sorted(tally.latencies.items()):
        print(f"  {verb:<9} {len(values):>7,} calls  p50 {percentile(values, 0.5):6.1f} ms  "
              f"p99 {percentile(values, 0.99):6.1f} ms")
    print(f"errors       {sum(tally.errors.values())} {tally.errors or ''}")
    per_call_ms = server_cpu / max(calls, 1) * 1000
    print(f"server CPU   {server_cpu:.1f} s ({per_call_ms:.2f} ms/call, "
          f"{server_cpu / wall:.0%} of one core); "
          f"load generator CPU {time.process_time() - own0:.1f} s")
    # The server's Python work holds the GIL, so one core bounds it; when other
    # processes starve it, this is what the same code would do with a core free.
    print(f"capacity     ~{1000 / max(per_call_ms, 1e-9):,.0f} calls/s at one full core "
          f"(1000 / ms per call)")
    return tally


def check_nothing_lost(home: Path, ids: list[int]) -> int:
    brain = open_brain(load_settings(home, env={}))
    try:
        return sum(1 for i in ids if brain.store.get_memory(i) is None)
    finally:
        brain.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brain", type=Path,
                        default=Path(tempfile.gettempdir()) / "brainkeep-bench-20k")
    parser.add_argument("--scale", type=float, default=1.0, help="corpus scale (1 = 20K pages)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--write-ratio", type=float, default=0.3)
    parser.add_argument(
        "--query-share", type=float, default=0.0,
        help="share of recalls that also run the page-search arm (default 0)",
    )
    parser.add_argument("--protocol", choices=(LEGACY, MODERN), default=LEGACY)
    parser.add_argument(
        "--stateless", action="store_true",
        help="never initialize: every call is a stateless exchange (default for 2025-11-25: "
        "each client initializes one session, as mcp.ClientSession does)",
    )
    parser.add_argument(
        "--client", choices=("raw", "httpx"), default="raw",
        help="load generator: minimal keep-alive HTTP/1.1 (default, cheap) or httpx",
    )
    args = parser.parse_args()

    manifest = ensure_corpus(args.brain, args.scale, args.seed)
    # Every run starts from the same pristine corpus: a copy, so facts written
    # by earlier runs never make later entity cards (and numbers) heavier.
    work = Path(tempfile.mkdtemp(prefix="brainkeep-http-load-"))
    try:
        copy_brain(args.brain, work)
        run(args, work, manifest)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def copy_brain(source: Path, target: Path) -> None:
    """Copy a closed brain (database, WAL if any, config) into ``target``."""
    for name in ("brain.db", "brain.db-wal", "config.json"):
        if (source / name).exists():
            shutil.copy2(source / name, target / name)


def run(args: argparse.Namespace, home: Path, manifest: dict[str, Any]) -> None:
    _name, secret = prepare(home)
    proc, url, err_path = start_server(home)
    try:
        tally = asyncio.run(drive(args, url, secret, manifest, proc.pid))
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(30)
    lost = check_nothing_lost(home, tally.remembered)
    print(f"remembers    {len(tally.remembered):,} acknowledged, {lost} missing afterwards")
    print(f"server exit  {code} (graceful SIGTERM)")
    if code != 0:
        print(err_path.read_text(errors="replace")[-2000:])


if __name__ == "__main__":
    main()
