"""`brainkeep serve --org ORG --agent AGENT`: the stdio client writes as that tenant and agent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.models import Memory


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "brain"
    subprocess.run(
        [sys.executable, "-m", "brainkeep", "--home", str(home), "init"],
        check=True, capture_output=True, timeout=60,
    )
    return home


@asynccontextmanager
async def session(home: Path, *args: str) -> AsyncIterator[ClientSession]:
    env = {k: v for k, v in os.environ.items() if k != "BRAINKEEP_ORG"}
    env["BRAINKEEP_HOME"] = str(home)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "brainkeep", "serve", *args], env=env
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        yield client


def remember_over_stdio(home: Path, *args: str) -> str:
    async def scenario() -> str:
        async with session(home, *args) as client:
            result = await client.call_tool(
                "remember", {"fact": "Acme ships on Fridays", "provenance": "stdio test"}
            )
            payload = json.loads(result.content[0].text)  # type: ignore[union-attr]
            assert not result.is_error, payload
            return str(payload["id"])

    fact_id: str = anyio.run(scenario)
    return fact_id


def stored(home: Path, fact_id: str) -> Memory:
    brain = open_brain(load_settings(home, env={}))
    try:
        memory = brain.store.get_memory(int(fact_id))
    finally:
        brain.close()
    assert memory is not None
    return memory


def test_bound_stdio_caller_writes_as_its_org_and_agent(home: Path) -> None:
    fact_id = remember_over_stdio(home, "--org", "acme", "--agent", "desk-agent")
    memory = stored(home, fact_id)
    assert (memory.org_id, memory.agent_id, memory.origin) == ("acme", "desk-agent", "mcp")


def test_unbound_stdio_caller_writes_to_the_no_org_tenant(home: Path) -> None:
    memory = stored(home, remember_over_stdio(home))
    assert (memory.org_id, memory.agent_id) == (None, "")
