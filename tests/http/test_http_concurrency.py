"""20 concurrent agents x 100 mixed calls: no errors, and every acknowledged remember is kept.

Half the agents speak the handshake era (`ClientSession`, as the conformance
runner does), half let the SDK's `Client` negotiate (2026-07-28 single
exchange), so both code paths of the server carry load at once.
"""

from __future__ import annotations

import random

import anyio
import httpx2
from http_support import ServedBrain, ServerProc, call, mcp_session, run
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from brainkeep.brain import open_brain
from brainkeep.config import load_settings

CLIENTS = 20
CALLS = 100


def next_call(rng: random.Random, agent: int, n: int) -> tuple[str, dict]:
    roll = rng.random()
    if roll < 0.3:
        return "remember", {"fact": f"agent {agent} observation {n}",
                            "provenance": "concurrency test", "entity": f"people/agent-{agent}"}
    if roll < 0.55:
        return "recall", {"entity": f"people/agent-{agent}", "limit": 5}
    if roll < 0.75:
        return "entity", {"name": "Ada Example"}
    if roll < 0.9:
        return "context_pack", {"entities": "people/ada-example", "budget_tokens": 300}
    return "delta", {"since": "2020-01-01T00:00:00Z", "budget_tokens": 300}


def test_concurrent_agents(server: ServerProc, served: ServedBrain) -> None:
    acknowledged: list[int] = []
    failures: list[str] = []

    async def agent(i: int) -> None:
        rng = random.Random(i)
        if i % 2 == 0:
            async with mcp_session(server.url, served.tokens["rw"]) as session:
                for n in range(CALLS):
                    name, args = next_call(rng, i, n)
                    is_error, payload = await call(session, name, args)
                    record(name, is_error, payload)
            return
        headers = {"Authorization": f"Bearer {served.tokens['rw2']}"}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with Client(streamable_http_client(server.url, http_client=http)) as client:
                for n in range(CALLS):
                    name, args = next_call(rng, i, n)
                    result = await client.call_tool(name, args)
                    import json

                    record(name, bool(result.is_error), json.loads(result.content[0].text))

    def record(name: str, is_error: bool, payload: dict) -> None:
        if is_error:
            failures.append(f"{name}: {payload}")
        elif name == "remember":
            acknowledged.append(int(payload["id"]))

    async def body() -> None:
        async with anyio.create_task_group() as group:
            for i in range(CLIENTS):
                group.start_soon(agent, i)

    run(body)
    assert failures == []
    assert len(acknowledged) > 400
    opened = open_brain(load_settings(served.home, env={}))
    try:
        missing = [i for i in acknowledged if opened.store.get_memory(i) is None]
    finally:
        opened.close()
    assert missing == []
