"""Read the seeded world through each surface, once per reader and verb.

Each collector returns ``Observed``: the raw reply of every verb (JSON text,
searched for sentinels by the matrix rows) and the error of any verb that
failed — a failed verb must fail its rows, never pass them as "not visible".
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import grpc
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from tests.e2e.visibility_world import ENTITY, READ_SET, WORD, Reader, Seeded, run_cli
from tests.http.http_support import mcp_session

MCP_VERBS = ("recall_entity", "recall_query", "entity", "context_pack", "delta", "search")
CLI_VERBS = MCP_VERBS[:-1]  # `search` is an MCP page operation, not a CLI command
STRATEGIES = ("lexical", "semantic", "hybrid", "exact")
GRPC_RECALLS = tuple(f"Recall/{s}" for s in STRATEGIES)
THREAD_RPCS = ("Replay", "Verify", "TrajectoryAudit")


@dataclass
class Observed:
    """One reader's replies: verb -> text, and verb -> error."""

    text: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    writes: dict[str, tuple[bool, dict[str, Any]]] = field(default_factory=dict)


def mcp_calls(seeded: Seeded) -> dict[str, tuple[str, dict[str, Any]]]:
    """Verb row name -> (tool, arguments): every sentinel a reader may see, in one call."""
    return {
        "recall_entity": ("recall", {"entity": ENTITY, "limit": 100}),
        "recall_query": ("recall", {"query": WORD, "limit": 100}),
        "entity": ("entity", {"name": ENTITY}),
        "context_pack": ("context_pack", {"entities": ENTITY}),
        "delta": ("delta", {"since": seeded.since}),
        "search": ("search", {"query": WORD, "limit": 100}),
    }


def active_fact_count(text: str) -> int:
    """The entity card's count (the card lists no fact texts)."""
    payload = json.loads(text)
    return int(payload["card"]["active_fact_count"]) if payload.get("found") else 0


# ---- CLI (trusted local, in-process through click's runner) ----

def collect_cli(seeded: Seeded, reader: Reader) -> Observed:
    commands = {
        "recall_entity": ["recall", "--entity", ENTITY, "--limit", "100"],
        "recall_query": ["recall", "--query", WORD, "--limit", "100"],
        "entity": ["entity", ENTITY],
        "context_pack": ["context-pack", ENTITY, "--include-private"],
        "delta": ["delta", "--since", seeded.since, "--include-private"],
    }
    seen = Observed()
    for verb, args in commands.items():
        code, out = run_cli(seeded.home, reader.org, *args, "--json")
        if code == 0:
            seen.text[verb] = out
        else:
            seen.errors[verb] = f"exit {code}: {out.strip()[:400]}"
    return seen


# ---- MCP (stdio subprocess and HTTP server, the official client) ----

Write = tuple[str, str, dict[str, Any]]  # (name, tool, arguments)


async def _drive(client: ClientSession, seeded: Seeded, writes: list[Write]) -> Observed:
    seen = Observed()
    for verb, (tool, args) in mcp_calls(seeded).items():
        result = await client.call_tool(tool, args)
        text = "\n".join(b.text for b in result.content if getattr(b, "type", "") == "text")
        if result.is_error:
            seen.errors[verb] = text[:400]
        else:
            seen.text[verb] = text
    for name, tool, args in writes:  # after the reads: write targets never hold WORD
        result = await client.call_tool(tool, args)
        text = "\n".join(b.text for b in result.content if getattr(b, "type", "") == "text")
        seen.writes[name] = (bool(result.is_error), json.loads(text))
    return seen


def stdio_args(reader: Reader) -> list[str]:
    return [*(["--org", reader.org] if reader.org else []),
            *(["--agent", reader.agent] if reader.agent else [])]


def collect_stdio(seeded: Seeded, reader: Reader, writes: list[Write]) -> Observed:
    env = {k: v for k, v in os.environ.items() if k != "BRAINKEEP_ORG"}
    env["BRAINKEEP_HOME"] = str(seeded.home)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "brainkeep", "serve", *stdio_args(reader)], env=env
    )

    async def scenario() -> Observed:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            return await _drive(client, seeded, writes)

    return _or_failed(lambda: anyio.run(scenario), MCP_VERBS)


def collect_http(seeded: Seeded, url: str, secret: str, writes: list[Write]) -> Observed:
    async def scenario() -> Observed:
        async with mcp_session(url, secret) as client:
            return await _drive(client, seeded, writes)

    return _or_failed(lambda: anyio.run(scenario), MCP_VERBS)


def _or_failed(work: Any, verbs: tuple[str, ...]) -> Observed:
    """The observation, or one whose every verb failed with the reason (server refused...)."""
    try:
        return work()  # type: ignore[no-any-return]
    except BaseException as exc:  # noqa: BLE001 — ExceptionGroup from anyio included
        if isinstance(exc, KeyboardInterrupt):
            raise
        return Observed(errors={v: f"session failed: {exc!r}"[:400] for v in verbs})


def create_token(home: Path, name: str, org: str | None, agent: str | None) -> str:
    """`brainkeep token create --name NAME --scopes read,write [--org] [--agent]` -> secret."""
    args = ["token", "create", "--name", name, "--scopes", "read,write", "--json",
            *(["--org", org] if org else []), *(["--agent", agent] if agent else [])]
    code, out = run_cli(home, None, *args)
    if code != 0:
        raise RuntimeError(f"token create exit {code}: {out.strip()[:300]}")
    return str(json.loads(out)["secret"])


# ---- gRPC (in-process server, generated stubs) ----

def _who(reader: Reader) -> dict[str, str]:
    fields = {"agent_id": reader.agent} if reader.agent else {}
    return {**fields, **({"org_id": reader.org} if reader.org else {})}


def collect_grpc(stub: pb_grpc.MnemoServiceStub, reader: Reader) -> Observed:
    seen = Observed()
    for strategy in STRATEGIES:
        verb = f"Recall/{strategy}"
        try:
            reply = stub.Recall(pb.RecallRequest(query=WORD, strategy=strategy, limit=100,
                                                 **_who(reader)))
            seen.text[verb] = "\n".join(f"{m.id} {m.content}" for m in reply.memories)
        except grpc.RpcError as exc:
            seen.errors[verb] = f"{exc.code().name}: {exc.details()}"
    return seen


def collect_threads(stub: pb_grpc.MnemoServiceStub, seeded: Seeded, reader: Reader,
                    as_of: str) -> Observed:
    """Replay, Verify (one thread per memory) and TrajectoryAudit for one agent.

    These RPCs carry no ``org_id``: their reader is the agent in the no-org tenant.
    An empty thread or window answers NOT_FOUND / INVALID_ARGUMENT: nothing seen.
    """
    seen = Observed()
    who = {"agent_id": reader.agent} if reader.agent else {}
    replay: list[str] = []
    verified: list[str] = []
    threaded = [m for m in READ_SET if m.via_grpc and m.key in seeded.uuids]
    try:
        for m in threaded:
            try:
                out = stub.Replay(pb.ReplayRequest(thread_id=m.key, as_of=as_of, **who))
                replay.extend(f"{r.id} {r.content}" for r in out.memories)
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.NOT_FOUND:
                    raise
        seen.text["Replay"] = "\n".join(replay)
    except grpc.RpcError as exc:
        seen.errors["Replay"] = f"{exc.code().name}: {exc.details()}"
    try:
        for m in threaded:
            total = stub.Verify(pb.VerifyRequest(thread_id=m.key, **who)).total_records
            if total:
                verified.append(m.token)
        seen.text["Verify"] = " ".join(verified)
    except grpc.RpcError as exc:
        seen.errors["Verify"] = f"{exc.code().name}: {exc.details()}"
    try:
        report = stub.TrajectoryAudit(pb.TrajectoryAuditRequest(**who)).report_json
        seen.text["TrajectoryAudit"] = " ".join(
            m.token for m in READ_SET if seeded.uuids.get(m.key, "-") in report)
    except grpc.RpcError as exc:
        if exc.code() == grpc.StatusCode.INVALID_ARGUMENT and "No events" in str(exc.details()):
            seen.text["TrajectoryAudit"] = ""
        else:
            seen.errors["TrajectoryAudit"] = f"{exc.code().name}: {exc.details()}"
    return seen
