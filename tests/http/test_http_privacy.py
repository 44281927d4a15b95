"""Privacy fences over HTTP: private facts and pages never reach a remote caller."""

from __future__ import annotations

import pytest
from http_support import SENTINEL, ServedBrain, ServerProc, call, mcp_session, run

PROBES = [
    ("recall", {"entity": "people/ada-example", "limit": 50}),
    ("recall", {"query": SENTINEL}),
    ("recall", {"query": "Hidden", "since": "2000-01-01"}),
    ("entity", {"name": "Ada Example"}),
    ("entity", {"name": f"Hidden {SENTINEL}"}),
    ("entity", {"name": f"{SENTINEL}-alias"}),
    ("context_pack", {"entities": "people/ada-example,people/secret-sentinel",
                      "include_private": True}),
    ("delta", {"since": "2000-01-01T00:00:00Z", "include_private": True}),
    ("search", {"query": SENTINEL}),
    ("search", {"query": "Hidden"}),
    ("list_pages", {"limit": 100}),
    ("get_page", {"slug": "people/ada-example"}),
]


@pytest.mark.parametrize(("name", "args"), PROBES, ids=[f"{n}-{i}" for i, (n, _) in
                                                        enumerate(PROBES)])
def test_sentinel_never_leaks(
    server: ServerProc, served: ServedBrain, name: str, args: dict
) -> None:
    async def body() -> None:
        async with mcp_session(server.url, served.tokens["admin"]) as session:
            result = await session.call_tool(name, args)
            text = "\n".join(b.text for b in result.content if getattr(b, "type", "") == "text")
            assert not result.is_error, text
            assert SENTINEL not in text
            if "secret-sentinel" not in str(args):  # context_pack echoes what was asked
                assert "secret-sentinel" not in text

    run(body)


def test_private_page_reads_as_missing(server: ServerProc, served: ServedBrain) -> None:
    async def body() -> None:
        async with mcp_session(server.url, served.tokens["admin"]) as session:
            is_error, payload = await call(session, "get_page", {"slug": "people/secret-sentinel"})
            assert is_error
            assert SENTINEL not in str(payload)

    run(body)
