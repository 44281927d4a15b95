"""MCP client adapters for the conformance runner (official `mcp` SDK).

The runner needs only two things from a target: the advertised tools and a
way to call one and get back ``(isError, text)``. Keeping that seam this
small lets one runner certify any server, over stdio or Streamable HTTP,
and lets tests drive the runner with a scripted fake.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio

CONNECT_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 60.0
SLOW_CALL_TIMEOUT_S = 300.0  # synthesize may run several LLM calls
_STDERR_TAIL_CHARS = 800


@dataclass(frozen=True)
class ToolInfo:
    """One advertised tool, reduced to what conformance inspects."""

    name: str
    description: str
    annotations: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolReply:
    """A tool result: the error flag and all text blocks joined by newlines."""

    is_error: bool
    text: str


class ConformanceClient(Protocol):
    """What the runner needs from a connected target."""

    async def list_tools(self) -> list[ToolInfo]: ...

    async def call_tool(
        self, name: str, arguments: dict[str, Any], *, timeout_s: float = CALL_TIMEOUT_S
    ) -> ToolReply: ...


@dataclass(frozen=True)
class Target:
    """Where to find the server under test.

    ``kind`` is ``stdio`` (spawn ``command``) or ``http`` (connect to ``url``).
    ``env`` is the full environment of a spawned server; ``label`` names the
    target in reports (never includes the token).
    """

    kind: str
    label: str
    command: tuple[str, ...] = ()
    url: str = ""
    token: str | None = field(default=None, repr=False)
    env: Mapping[str, str] | None = field(default=None, repr=False)


def self_target(env: Mapping[str, str] | None = None) -> Target:
    """Our own stdio server, run with this interpreter and the given environment."""
    return Target(
        kind="stdio",
        label="self (stdio)",
        command=(sys.executable, "-m", "brainkeep", "serve"),
        env=dict(os.environ if env is None else env),
    )


def parse_target(
    target: str, *, token: str | None = None, env: Mapping[str, str] | None = None
) -> Target:
    """An ``http(s)://`` URL, or a command line split on whitespace (no shell quoting).

    Raises:
        ValueError: an empty target.
    """
    text = target.strip()
    if not text:
        raise ValueError("empty --target")
    if text.lower().startswith(("http://", "https://")):
        return Target(kind="http", label=text, url=text, token=token)
    # Plain whitespace split on purpose: a target is "CMD ARGS"; anything that
    # needs quoting belongs in a wrapper script.
    command = tuple(text.split())
    return Target(
        kind="stdio",
        label=shlex.join(command),
        command=command,
        env=dict(os.environ if env is None else env),
    )


class ConnectError(Exception):
    """The target could not be started or did not complete the MCP handshake."""


class _SessionClient:
    """`ConformanceClient` over an initialized `mcp.ClientSession`."""

    def __init__(self, session: Any) -> None:
        self._session = session

    async def list_tools(self) -> list[ToolInfo]:
        result = await self._session.list_tools()
        tools = []
        for tool in result.tools:
            annotations = {}
            if tool.annotations is not None:
                annotations = tool.annotations.model_dump(by_alias=True, exclude_none=True)
            tools.append(ToolInfo(tool.name, tool.description or "", annotations))
        return tools

    async def call_tool(
        self, name: str, arguments: dict[str, Any], *, timeout_s: float = CALL_TIMEOUT_S
    ) -> ToolReply:
        result = await self._session.call_tool(name, arguments, read_timeout_seconds=timeout_s)
        texts = [block.text for block in result.content if getattr(block, "type", "") == "text"]
        return ToolReply(is_error=bool(result.is_error), text="\n".join(texts))


@asynccontextmanager
async def connect(target: Target) -> AsyncIterator[ConformanceClient]:
    """Connect to ``target``, run the MCP handshake, and yield a client.

    The transport and any spawned process are always closed on exit.

    Raises:
        ConnectError: spawn, connection or handshake failed (with the server's
            stderr tail for stdio targets).
    """
    from mcp import ClientSession

    stack = AsyncExitStack()
    # The server's stderr goes to a temp file: it keeps banners out of our
    # output and lets a failed handshake report why the server died.
    errlog = stack.enter_context(tempfile.TemporaryFile(mode="w+", encoding="utf-8"))
    try:
        read, write = await stack.enter_async_context(_transport(target, errlog))
        session = await stack.enter_async_context(
            ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT_S)
        )
        # Only the handshake is timed: a cancel scope wrapped around the
        # transport's task group would have to outlive it (anyio forbids that).
        with anyio.fail_after(CONNECT_TIMEOUT_S):
            await session.initialize()
    except Exception as exc:  # noqa: BLE001 — any failure here means "cannot connect"
        message = _connect_message(target, exc, errlog)
        # Unwind BEFORE raising: raised inside the transports' task groups, the
        # error would come out wrapped in exception groups.
        with contextlib.suppress(Exception):
            await stack.aclose()
        raise ConnectError(message) from exc
    try:
        yield _SessionClient(session)
    finally:
        await stack.aclose()


@asynccontextmanager
async def _transport(target: Target, errlog: Any) -> AsyncIterator[tuple[Any, Any]]:
    if target.kind == "http":
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {target.token}"} if target.token else {}
        timeout = httpx2.Timeout(CALL_TIMEOUT_S, read=SLOW_CALL_TIMEOUT_S)
        async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http:
            async with streamable_http_client(target.url, http_client=http) as streams:
                yield streams[0], streams[1]
        return

    from mcp.client.stdio import StdioServerParameters, stdio_client

    if not target.command:
        raise ValueError("stdio target without a command")
    params = StdioServerParameters(
        command=target.command[0],
        args=list(target.command[1:]),
        env=dict(target.env) if target.env is not None else None,
    )
    async with stdio_client(params, errlog=errlog) as streams:
        yield streams[0], streams[1]


def _connect_message(target: Target, exc: BaseException, errlog: Any) -> str:
    reason = _describe(exc)
    tail = ""
    try:
        errlog.flush()
        errlog.seek(0)
        lines = errlog.read()[-_STDERR_TAIL_CHARS:].strip().splitlines()
        tail = " | ".join(line.strip() for line in lines if line.strip())
    except (OSError, ValueError):
        tail = ""
    message = f"cannot connect to {target.label}: {reason}"
    if target.kind == "http":
        message += " (check the URL, and that --token is valid for it)"
    return f"{message}; server stderr: {tail}" if tail else message


def _describe(exc: BaseException) -> str:
    """The innermost meaningful message (task groups wrap failures in groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        return f"no MCP handshake within {CONNECT_TIMEOUT_S:.0f}s"
    text = str(exc).strip()
    data = getattr(exc, "data", None)  # MCPError carries the HTTP/JSON-RPC specifics here
    if data:
        text = f"{text} ({str(data)[:200]})"
    return f"{exc.__class__.__name__}: {text}" if text else exc.__class__.__name__
