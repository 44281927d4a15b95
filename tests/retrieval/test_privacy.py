"""Private pages and facts never reach a remote caller through the vector arm."""

from __future__ import annotations

import json

from brainkeep.core.context import LOCAL, STDIO

from .conftest import Verbs

SENTINEL = "PRIVATE-SENTINEL"
SECRET_PAGE = f"""---
title: Medical notes
visibility: private
---
{SENTINEL}: my cardiologist appointment is on the ninth; blood pressure medication twice a day.
"""
QUERIES = ("doctor visit for my heart", "which pills do I take", "cardiologist appointment")


def seed(verbs: Verbs) -> None:
    verbs.brain.pages.put_page("health/medical", SECRET_PAGE)
    verbs.brain.pages.put_page("notes/gym", "I go to the gym on Mondays and run on Thursdays.")
    verbs.local("remember", fact=f"{SENTINEL} I take blood pressure pills every morning.",
                provenance="doctor", entity="people/me", visibility="private")
    verbs.local("remember", fact="I run five kilometres on Thursdays.", provenance="chat",
                entity="people/me")


def test_vector_hits_respect_privacy_on_every_read_path(verbs: Verbs) -> None:
    seed(verbs)
    for query in QUERIES:
        for op, params in (
            ("recall", {"query": query}),
            ("recall", {"query": query, "entity": "people/me"}),
            ("search", {"query": query}),
            ("entity", {"name": query}),
        ):
            payload = verbs.ok(op, STDIO, **params)
            assert SENTINEL not in json.dumps(payload), (op, query)
            assert "health/medical" not in json.dumps(payload), (op, query)


def test_local_callers_do_find_private_material_semantically(verbs: Verbs) -> None:
    seed(verbs)
    payload = verbs.ok("recall", LOCAL, query="doctor visit for my heart")
    assert payload["results"][0]["slug"] == "health/medical"
    facts = verbs.ok("recall", LOCAL, query="which pills do I take")["facts"]
    assert facts and SENTINEL in facts[0]["fact"]


def test_grpc_vector_candidates_are_filtered_by_the_store(verbs: Verbs) -> None:
    seed(verbs)
    from brainkeep.core.memory.recall import RecallInput

    search = verbs.brain.memory_vectors
    assert search is not None
    # The arm returns candidates (private ones included); visibility is the
    # Mnemo store's job, checked here through a real recall.
    assert search.search_memories("blood pressure pills", None, 5)
    result = verbs.brain.mnemo.recall(
        RecallInput(query="blood pressure pills", agent_id="agent-x", strategy="semantic")
    )
    assert all(SENTINEL not in s.memory.text for s in result.memories)
    assert result.degraded is None
    jog = verbs.brain.mnemo.recall(
        RecallInput(query="jogging schedule", agent_id="agent-x", strategy="semantic")
    )
    assert jog.memories[0].memory.text == "I run five kilometres on Thursdays."
