"""`--surface` over HTTP: the verbs surface hides page ops in the list AND in dispatch."""

from __future__ import annotations

from http_support import ServedBrain, ServerProc, call, mcp_session, run

VERBS = {"recall", "remember", "entity", "synthesize", "forget", "context_pack", "delta"}


def test_verbs_surface_lists_exactly_the_verbs(
    verbs_server: ServerProc, served: ServedBrain
) -> None:
    async def body() -> None:
        async with mcp_session(verbs_server.url, served.tokens["admin"]) as session:
            names = {tool.name for tool in (await session.list_tools()).tools}
            assert names == VERBS
            for hidden in ("put_page", "get_page", "no_such_tool"):
                is_error, payload = await call(session, hidden, {"slug": "people/ada-example"})
                assert is_error
                assert payload == {"error": "unknown_tool", "message": f"Unknown tool: {hidden}"}

    run(body)


def test_full_surface_lists_page_operations(server: ServerProc, served: ServedBrain) -> None:
    async def body() -> None:
        # admin: a narrower token is offered only what its scopes allow (test_http_tool_scopes.py)
        async with mcp_session(server.url, served.tokens["admin"]) as session:
            names = [tool.name for tool in (await session.list_tools()).tools]
            assert set(names) >= VERBS | {"put_page", "get_page", "search"}
            assert names[0] == "recall"  # verbs first

    run(body)
