"""delta session cursors are namespaced by token: two tokens never share a lane."""

from __future__ import annotations

from http_support import ServedBrain, ServerProc, call, local_call, mcp_session, run

from brainkeep.brain import open_brain
from brainkeep.config import load_settings


def test_two_tokens_never_share_a_cursor(server: ServerProc, served: ServedBrain) -> None:
    session_id = "heartbeat-shared-name"

    async def wake(role: str) -> dict:
        async with mcp_session(server.url, served.tokens[role]) as session:
            is_error, payload = await call(session, "delta", {"session_id": session_id})
            assert not is_error, payload
            return payload

    first_a = run(wake, "rw")
    assert first_a["pages"] == []  # first wake establishes A's cursor
    local_call(served.home, "put_page", {"slug": "projects/delta-probe",
                                        "content": "# Delta probe\n\nChanged after A's wake.\n"})
    # If B shared A's lane it would now see (and consume) the change.
    first_b = run(wake, "rw2")
    assert first_b["pages"] == []
    second_a = run(wake, "rw")
    assert "projects/delta-probe" in [p["slug"] for p in second_a["pages"]]

    opened = open_brain(load_settings(served.home, env={}))
    try:
        store = opened.store
        for lane in ("token:rw-agent", "token:rw-agent-2"):
            assert store.get_session_cursor(opened.source_id, lane, session_id) is not None
        # Neither the trusted local lane nor the shared stdio lane was touched.
        for lane in ("local", "remote"):
            assert store.get_session_cursor(opened.source_id, lane, session_id) is None
    finally:
        opened.close()
