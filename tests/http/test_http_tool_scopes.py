"""tools/list over HTTP offers each token the tools its scopes allow (issue 22).

One rule decides both what a token is offered and what it may call
(``Dispatcher.offered`` and the dispatcher's scope check): a read token is
offered no write or admin tool, a read,write token no admin tool, and a tool
kept off the list for lack of scope still answers ``scope_denied`` when
called — it exists (the catalog is public), the caller lacks the scope.
"""

from __future__ import annotations

from http_support import ServedBrain, ServerProc, call, mcp_session, run

from brainkeep.ops.registry import build_catalog

CATALOG = build_catalog().operations
READ = {op.name for op in CATALOG if op.scope == "read"}
WRITE = {op.name for op in CATALOG if op.scope == "write"}
ADMIN = {op.name for op in CATALOG if op.scope == "admin"}
VERBS = {op.name for op in CATALOG if op.verb}
# A well-formed call of one tool per scope (so only the scope can refuse it).
SAMPLE_ARGS = {
    "remember": {"fact": "Ada likes tea", "provenance": "tool-scope test",
                 "entity": "people/ada-example"},
    "put_page": {"slug": "people/tool-scope-test", "content": "# Tool scope test\n"},
    "revoke_grant": {"kind": "acl", "id": "no-such-grant"},
}


def listed(url: str, token: str) -> set[str]:
    async def body() -> set[str]:
        async with mcp_session(url, token) as session:
            return {tool.name for tool in (await session.list_tools()).tools}

    names: set[str] = run(body)
    return names


def test_the_catalog_has_tools_of_every_scope() -> None:
    assert {"remember", "put_page"} <= WRITE and "revoke_grant" in ADMIN and "recall" in READ


def test_read_token_is_offered_only_read_tools(server: ServerProc, served: ServedBrain) -> None:
    assert listed(server.url, served.tokens["ro"]) == READ


def test_read_write_token_is_offered_writes_but_no_admin_tool(
    server: ServerProc, served: ServedBrain
) -> None:
    assert listed(server.url, served.tokens["rw"]) == READ | WRITE


def test_admin_token_is_offered_everything(server: ServerProc, served: ServedBrain) -> None:
    assert listed(server.url, served.tokens["admin"]) == READ | WRITE | ADMIN


def test_the_verbs_surface_narrows_by_scope_too(
    verbs_server: ServerProc, served: ServedBrain
) -> None:
    assert listed(verbs_server.url, served.tokens["ro"]) == VERBS & READ


def test_a_tool_not_offered_still_answers_scope_denied(
    server: ServerProc, served: ServedBrain
) -> None:
    cases = [("ro", "remember"), ("ro", "put_page"), ("ro", "revoke_grant"),
             ("rw", "revoke_grant")]

    async def body() -> None:
        for token, tool in cases:
            async with mcp_session(server.url, served.tokens[token]) as session:
                offered = {t.name for t in (await session.list_tools()).tools}
                assert tool not in offered
                is_error, payload = await call(session, tool, SAMPLE_ARGS[tool])
                assert is_error, (token, tool, payload)
                assert payload["error"] == "scope_denied", (token, tool, payload)

    run(body)
