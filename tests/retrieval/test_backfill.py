"""`brainkeep embed`: backfill, resume after interruption, re-embed on a model switch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brainkeep.brain import Brain
from brainkeep.core.context import LOCAL
from brainkeep.core.embedding_jobs import backfill, plan_backfill
from brainkeep.core.memory.remember import RememberInput
from brainkeep.core.search import DEGRADED_NO_VECTORS
from brainkeep.errors import Unavailable
from brainkeep.providers.local_embeddings import LocalEmbeddingProvider

from .conftest import OpenBrain, SwitchableEmbedder

NOTES = {
    f"notes/n{i}": f"Note {i}: the {topic} needs attention before Friday."
    for i, topic in enumerate(
        ["garden", "roof", "boiler", "car", "bike", "fence", "gutter", "attic"]
    )
}


def fill(brain: Brain) -> None:
    for slug, text in NOTES.items():
        brain.pages.put_page(slug, text)
    for i in range(4):
        brain.facts.remember(f"Reminder {i}: call the plumber about the leak.", "chat", LOCAL)


def count(brain: Brain, model: str | None = None) -> int:
    sql = "SELECT COUNT(*) FROM embeddings" + (" WHERE model = ?" if model else "")
    return int(brain.store.db.scalar(sql, (model,) if model else ()))  # type: ignore[attr-defined]


def test_backfill_embeds_everything_missing_and_records_the_space(
    open_home: OpenBrain, embedder: SwitchableEmbedder
) -> None:
    fill(open_home(None))
    brain = open_home(embedder)
    assert brain.search.search("boiler", include_private=True, limit=3).degraded == (
        DEGRADED_NO_VECTORS
    )
    assert brain.embeddings is not None
    plan = plan_backfill(brain.embeddings)
    assert (plan.missing_chunks, plan.missing_memories, plan.switching) == (8, 4, False)
    report = backfill(brain.embeddings, batch=5)
    # Four identical-length reminders differ in text, so all 12 ran through the model.
    assert report.embedded + report.reused == 12 and count(brain) == 12
    assert brain.embeddings.recorded_space() == ("all-MiniLM-L6-v2-onnx-int8", 384)
    outcome = brain.search.search("heating system repair", include_private=True, limit=3)
    assert outcome.degraded is None and outcome.results[0].slug == "notes/n2"
    assert plan_backfill(brain.embeddings).total == 0
    assert backfill(brain.embeddings).embedded == 0  # idempotent


def test_an_interrupted_backfill_resumes_where_it_stopped(
    open_home: OpenBrain, embedder: SwitchableEmbedder
) -> None:
    fill(open_home(None))
    brain = open_home(embedder)
    assert brain.embeddings is not None
    embedder.fail_after_calls = 2  # the provider dies during the third batch
    with pytest.raises(Unavailable):
        backfill(brain.embeddings, batch=3)
    assert count(brain) == 6  # two committed batches survive
    embedder.fail_after_calls = None
    before = embedder.texts
    report = backfill(brain.embeddings, batch=3)
    assert report.plan.total == 6 and count(brain) == 12
    assert embedder.texts - before == 6  # nothing embedded twice


def test_switching_models_reembeds_instead_of_mixing_spaces(
    open_home: OpenBrain, model: LocalEmbeddingProvider
) -> None:
    old = SwitchableEmbedder(model, model_id="model-a")
    brain_a = open_home(old)
    fill(brain_a)
    assert count(brain_a, "model-a") == 12

    new = SwitchableEmbedder(model, model_id="model-b")
    brain_b = open_home(new)
    # Before `embed`, model-b sees no vectors at all: never model-a's.
    assert brain_b.search.search("boiler", include_private=True, limit=3).degraded == (
        DEGRADED_NO_VECTORS
    )
    assert brain_b.embeddings is not None
    plan = plan_backfill(brain_b.embeddings)
    assert plan.switching and plan.previous == ("model-a", 384) and plan.total == 12
    report = backfill(brain_b.embeddings)
    assert report.embedded == 12
    assert count(brain_b, "model-b") == 12 and count(brain_b, "model-a") == 0
    assert brain_b.embeddings.recorded_space() == ("model-b", 384)
    # A process still configured with model-a now finds nothing to compare with.
    assert brain_a.search.search("boiler", include_private=True, limit=3).degraded == (
        DEGRADED_NO_VECTORS
    )


def test_grpc_memories_are_embedded_on_write(brain: Brain) -> None:
    memory = brain.mnemo.remember(
        RememberInput(content="The staging database password rotates monthly.",
                      agent_id="agent-x", scope="public")
    )
    assert count(brain) == 1  # the vector is stored with the memory, in its transaction
    assert brain.memory_vectors is not None
    hits = brain.memory_vectors.search_memories("credential rotation schedule", None, 3)
    assert hits and hits[0][0] == memory.id
    assert count(brain) == 1


def test_cli_init_local_and_embed(run_cli, home: Path) -> None:  # type: ignore[no-untyped-def]
    first = run_cli("init", "--embeddings", "none", "--json")
    assert first.exit_code == 0, first.stderr
    for slug, text in list(NOTES.items())[:3]:
        assert run_cli("put", slug, input=text).exit_code == 0

    refused = run_cli("embed", "--json")
    assert refused.exit_code == 2 and "embeddings.provider" in refused.stderr

    init = run_cli("init", "--embeddings", "local", "--json")
    assert init.exit_code == 0, init.stderr
    data = json.loads(init.stdout)["embeddings"]
    assert data["provider"] == "local" and data["embedded"] == 3
    assert json.loads((home / "config.json").read_text())["embeddings.provider"] == "local"

    assert run_cli("put", "notes/extra", input="The porch light flickers.").exit_code == 0
    again = run_cli("embed", "--json")
    assert again.exit_code == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["embedded"] == 0 and report["chunks"] == 0  # put embedded it already
    recalled = json.loads(run_cli("recall", "--query", "lamp outside the house", "--json").stdout)
    assert recalled["results"][0]["slug"] == "notes/extra"
    assert "search_degraded" not in recalled
