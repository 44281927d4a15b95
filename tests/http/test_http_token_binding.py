"""A token bound to an org and an agent: its HTTP caller writes as that tenant and agent.

Through a real `brainkeep serve --http` and the official MCP client; the
stored rows are read back through the store.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from http_support import OPEN_LIMITS, ServerProc, call, make_home, mcp_session, run, start_server

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.models import Memory
from brainkeep.core.scope import ReadScope
from brainkeep.core.token_callers import caller_for_token
from brainkeep.core.tokens import ApiToken, TokenService


def _token(home: Path, name: str, *, org: str | None = None, agent: str | None = None) -> str:
    brain = open_brain(load_settings(home, env={}))
    try:
        service = TokenService(brain.store, brain.clock)
        return service.create(name, "read,write", org_id=org, agent_id=agent).secret
    finally:
        brain.close()


def _stored(home: Path, fact_id: str) -> Memory:
    brain = open_brain(load_settings(home, env={}))
    try:
        memory = brain.store.get_memory(int(fact_id))
    finally:
        brain.close()
    assert memory is not None
    return memory


@pytest.fixture(scope="module")
def bound(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProc, Path]]:
    home = make_home(tmp_path_factory.mktemp("http-bound") / "home", OPEN_LIMITS)
    server = start_server(home)
    try:
        yield server, home
    finally:
        assert server.stop() == 0, server.stderr()
        assert "Traceback" not in server.stderr(), server.stderr()


def _remember(server: ServerProc, secret: str, fact: str, **extra: str) -> str:
    async def body() -> str:
        async with mcp_session(server.url, secret) as session:
            is_error, payload = await call(
                session, "remember", {"fact": fact, "provenance": "http test", **extra}
            )
            assert not is_error, payload
            return str(payload["id"])

    result: str = run(body)
    return result


def test_bound_token_writes_as_its_org_and_agent(bound: tuple[ServerProc, Path]) -> None:
    server, home = bound
    # Created while the server runs: tokens are read per request, never cached by name.
    secret = _token(home, "acme-bot", org="acme", agent="bot-1")
    fact_id = _remember(server, secret, "Acme deploys on Tuesdays")
    memory = _stored(home, fact_id)
    assert (memory.org_id, memory.agent_id) == ("acme", "bot-1")
    private_id = _remember(server, secret, "bot-1 keeps its own notes", visibility="private")
    private = _stored(home, private_id)
    assert (private.org_id, private.agent_id, private.scope) == ("acme", "bot-1", "private")


def test_unbound_token_writes_to_the_no_org_tenant(bound: tuple[ServerProc, Path]) -> None:
    server, home = bound
    fact_id = _remember(server, _token(home, "plain-agent"), "The office closes at six")
    memory = _stored(home, fact_id)
    assert (memory.org_id, memory.agent_id) == (None, "")


def test_same_text_in_another_org_is_a_new_fact(bound: tuple[ServerProc, Path]) -> None:
    """Dedup never answers with another tenant's fact (its id would leak across orgs)."""
    server, home = bound
    text = "The standup starts at ten"
    first = _remember(server, _token(home, "org-a", org="org-a", agent="a"), text)
    second = _remember(server, _token(home, "org-b", org="org-b", agent="b"), text)
    assert first != second
    assert _stored(home, second).org_id == "org-b"


def test_a_bound_token_maps_to_one_remote_read_scope() -> None:
    token = ApiToken(id="0" * 12, name="acme-bot", secret_hash="x", scopes=("read",),
                     created_at="2026-01-01T00:00:00Z", org_id="acme", agent_id="bot-1")
    caller = caller_for_token(token)
    assert (caller.org_id, caller.agent_id, caller.remote) == ("acme", "bot-1", True)
    assert caller.read_scope == ReadScope(org_id="acme", reader="bot-1", trusted=False)
