"""MCP over stdio: the official client against a real `brainkeep serve` subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from brainkeep.core.limits import MAX_PROVENANCE_CHARS
from brainkeep.ops.registry import VERB_NAMES


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "brain"
    subprocess.run(
        [sys.executable, "-m", "brainkeep", "--home", str(home), "init"],
        check=True, capture_output=True,
    )
    return home


@asynccontextmanager
async def session(home: Path, *args: str) -> AsyncIterator[ClientSession]:
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "brainkeep", "serve", *args], env=env
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        yield client


async def call(
    client: ClientSession, tool: str, /, **arguments: Any
) -> tuple[dict[str, Any], bool]:
    result = await client.call_tool(tool, arguments)
    assert len(result.content) == 1 and result.content[0].type == "text"
    return json.loads(result.content[0].text), bool(result.is_error)


def run(fn: Callable[[], Any]) -> None:
    anyio.run(fn)


def test_full_surface_round_trip(home: Path) -> None:
    async def scenario() -> None:
        async with session(home) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(VERB_NAMES) <= set(tools) and "put_page" in tools
            assert tools["forget"].annotations.destructive_hint is True
            assert tools["recall"].annotations.read_only_hint is True
            page, err = await call(client, "put_page", slug="people/ada-example",
                                   content="---\ntitle: Ada Example\naliases: [Ada]\n---\n"
                                           "Ada runs the lab.\n")
            assert not err and page["status"] == "created"
            saved, err = await call(client, "remember", fact="Ada prefers email",
                                    provenance="test chat", entity="Ada")
            assert not err and saved["entity_slug"] == "people/ada-example"
            recalled, err = await call(client, "recall", entity="people/ada-example")
            assert not err and recalled["facts"][0]["fact_id"] == saved["id"]
            card, err = await call(client, "entity", name="Ada")
            assert not err and card["found"] and card["card"]["active_fact_count"] == 1
            missing, err = await call(client, "forget", id="424242")
            assert err and missing["error"] == "not_found" and missing["protocol_version"] == 1

    run(scenario)


def test_provenance_errors_over_stdio(home: Path) -> None:
    # Blank provenance is `provenance_required`; one over the cap is a plain
    # `invalid_params` (the reference's codes), on the wire as in core.
    async def scenario() -> None:
        async with session(home, "--surface", "verbs") as client:
            blank, err = await call(client, "remember", fact="Ada likes tea", provenance="  ")
            assert err and blank["error"] == "provenance_required"
            long, err = await call(client, "remember", fact="Ada likes tea",
                                   provenance="p" * (MAX_PROVENANCE_CHARS + 1))
            assert err and long["error"] == "invalid_params"
            assert long["protocol_version"] == 1 and long["suggestion"]

    run(scenario)


def test_stdio_callers_are_remote(home: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "brainkeep", "--home", str(home), "remember", "PRIV-SENTINEL-77",
         "--provenance", "cli", "--entity", "people/x", "--visibility", "private"],
        check=True, capture_output=True,
    )

    async def scenario() -> None:
        async with session(home) as client:
            payload, err = await call(client, "recall", entity="people/x")
            assert not err and payload["total"] == 0
            assert "PRIV-SENTINEL-77" not in json.dumps(payload)

    run(scenario)


def test_verbs_surface_filters_list_and_dispatch(home: Path) -> None:
    async def scenario() -> None:
        async with session(home, "--surface", "verbs") as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == list(VERB_NAMES)
            payload, err = await call(client, "put_page", slug="a/b", content="x")
            assert err and payload == {"error": "unknown_tool", "message": "Unknown tool: put_page"}

    run(scenario)


def test_config_default_surface(home: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "brainkeep", "--home", str(home), "config", "set", "mcp_surface",
         "verbs"],
        check=True, capture_output=True,
    )

    async def scenario() -> None:
        async with session(home) as client:
            assert len((await client.list_tools()).tools) == len(VERB_NAMES)

    run(scenario)


def test_usage_log_records_stdio_calls(home: Path) -> None:
    async def scenario() -> None:
        async with session(home) as client:
            await call(client, "entity", name="nobody")
            await call(client, "recall", since="garbage")

    run(scenario)
    lines = [json.loads(line) for line in (home / "usage.jsonl").read_text().splitlines()]
    assert [(ln["verb"], ln["ok"], ln["transport"], ln["remote"]) for ln in lines] == [
        ("entity", True, "stdio", True),
        ("recall", False, "stdio", True),
    ]
    assert lines[0]["entity_found"] is False
