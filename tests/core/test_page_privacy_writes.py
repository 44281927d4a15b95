"""A private page does not exist for a remote caller, for writes as for reads.

Issue 10 item 6: `put_page` from a remote caller on a private page answered
`updated` (confirming the page) and replaced it with world-visible content.
Every page write op must answer exactly what `get_page` answers (not_found)
and change nothing: no content, no event, no link, no timeline line.
"""

from __future__ import annotations

from typing import Any

import pytest

from brainkeep.brain import Brain
from brainkeep.core.context import LOCAL, STDIO, Caller
from brainkeep.errors import NotFound
from brainkeep.ops.registry import open_dispatcher

SECRET = "---\ntitle: Diagnosis\nvisibility: private\n---\nThe diagnosis is confidential.\n"
OVERWRITE = "---\ntitle: Diagnosis\n---\nNothing to see, world-visible now.\n"
HTTP = Caller(remote=True, client_id="token-a", transport="http", scopes=frozenset({"write"}))

# Each page write op of the catalog, aimed at the private page.
WRITE_CALLS: dict[str, dict[str, Any]] = {
    "put_page": {"slug": "health/diagnosis", "content": OVERWRITE},
    "put_page_same_bytes": {"slug": "health/diagnosis", "content": SECRET},
    "delete_page": {"slug": "health/diagnosis"},
    "add_link": {"from": "health/diagnosis", "to": "people/bob", "link_type": "seen_by"},
    "add_timeline_entry": {"slug": "health/diagnosis", "date": "2024-05-01", "summary": "Leaked"},
}


@pytest.fixture
def secret_brain(brain: Brain) -> Brain:
    assert brain.pages.put_page("health/diagnosis", SECRET).status == "created"
    return brain


def snapshot(brain: Brain) -> tuple[Any, ...]:
    page = brain.pages.get_page("health/diagnosis", LOCAL)
    return (
        page.content,
        page.content_hash,
        page.updated_at,
        brain.store.counts()["events"],
        brain.pages.links("health/diagnosis", LOCAL),
        brain.pages.timeline("health/diagnosis", LOCAL),
    )


@pytest.mark.parametrize("caller", [STDIO, HTTP], ids=["stdio", "http"])
@pytest.mark.parametrize("call", sorted(WRITE_CALLS))
def test_remote_write_op_answers_not_found_and_changes_nothing(
    secret_brain: Brain, call: str, caller: Caller
) -> None:
    dispatcher = open_dispatcher(secret_brain, "full")
    before = snapshot(secret_brain)
    read = dispatcher.call("get_page", {"slug": "health/diagnosis"}, caller)
    assert read.is_error and read.payload["error"] == "not_found"

    op = call.removesuffix("_same_bytes")
    outcome = dispatcher.call(op, WRITE_CALLS[call], caller)

    assert outcome.is_error, outcome.payload
    assert outcome.payload["error"] == "not_found"
    # The very answer a missing slug gets: nothing tells the two apart.
    missing = dict(WRITE_CALLS[call])
    for key in ("slug", "from"):
        if key in missing:
            missing[key] = "health/nobody-here"
    absent = dispatcher.call(op, missing, caller) if op != "put_page" else None
    if absent is not None:
        assert absent.payload["error"] == "not_found"
        assert absent.payload["message"].replace("nobody-here", "diagnosis") == (
            outcome.payload["message"]
        )
    assert snapshot(secret_brain) == before
    assert secret_brain.pages.get_page("health/diagnosis", LOCAL).is_private


def test_core_put_page_refuses_remote_caller(secret_brain: Brain) -> None:
    """The rule lives in core: a service caller gets it without any transport."""
    before = snapshot(secret_brain)
    with pytest.raises(NotFound) as caught:
        secret_brain.pages.put_page("health/diagnosis", OVERWRITE, caller=STDIO)
    with pytest.raises(NotFound) as read:
        secret_brain.pages.get_page("health/diagnosis", STDIO)
    assert str(caught.value) == str(read.value)
    assert snapshot(secret_brain) == before


def test_remote_caller_still_writes_world_pages_and_new_slugs(secret_brain: Brain) -> None:
    dispatcher = open_dispatcher(secret_brain, "full")
    created = dispatcher.call("put_page", {"slug": "notes/open", "content": "Hello."}, STDIO)
    assert created.payload["status"] == "created"
    updated = dispatcher.call("put_page", {"slug": "notes/open", "content": "Hello again."}, STDIO)
    assert updated.payload["status"] == "updated"
    linked = dispatcher.call("add_link", {"from": "notes/open", "to": "notes/other"}, STDIO)
    assert not linked.is_error, linked.payload


def test_local_caller_still_updates_private_page(secret_brain: Brain) -> None:
    result = secret_brain.pages.put_page(
        "health/diagnosis", SECRET.replace("confidential", "known"), caller=LOCAL
    )
    assert result.status == "updated"
    assert secret_brain.pages.get_page("health/diagnosis", LOCAL).is_private


def test_soft_deleted_private_slug_is_free_for_a_remote_caller(secret_brain: Brain) -> None:
    """A deleted page is missing for everyone: writing the slug creates a new page."""
    secret_brain.pages.delete_page("health/diagnosis", LOCAL)
    result = secret_brain.pages.put_page("health/diagnosis", OVERWRITE, caller=STDIO)
    assert result.status == "created"
    assert not secret_brain.pages.get_page("health/diagnosis", STDIO).is_private
