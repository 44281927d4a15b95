"""`brainkeep embed` at scale: same vectors as one at a time, no text embedded twice,
resumable after a kill, and safe while `brainkeep serve` serves the same brain.

The in-process tests run on both engines; the subprocess ones drive the real
CLI (and a real stdio server) on a real brain home.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import numpy as np
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from brainkeep.brain import Brain
from brainkeep.core.embedding import task_text, text_hash
from brainkeep.core.embedding_jobs import backfill
from brainkeep.core.memory.facts import normalize_fact
from brainkeep.core.models import MemoryDraft
from brainkeep.core.retrieval import CHUNK, MEMORY
from brainkeep.core.transfer import import_dir
from brainkeep.providers.local_embeddings import LocalEmbeddingProvider
from tests.brain_engines import ENGINES, RawDatabase

from .conftest import OpenBrain, SwitchableEmbedder

TOPICS = ["garden", "roof", "boiler", "car", "bike", "fence", "gutter", "attic", "porch"]


@pytest.fixture(params=ENGINES)
def brain_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def bulk_model(model: LocalEmbeddingProvider) -> Iterator[LocalEmbeddingProvider]:
    """The model as `brainkeep embed` runs it: one thread per run, one run per CPU."""
    tuned = model.for_backfill()
    yield tuned
    tuned.close()


def insert_memories(brain: Brain, texts: list[str]) -> None:
    with brain.store.transaction():
        for text in texts:
            draft = MemoryDraft(text=text, origin="cli", provenance="test")
            brain.facts.insert(draft, normalize_fact(text), brain.clock.now_ts(), actor="test")


def vector_count(home: Path) -> int:
    raw = RawDatabase(home)
    try:
        return int(raw.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0])
    finally:
        raw.close()


def stored_vectors(brain: Brain) -> dict[tuple[str, int], tuple[str, np.ndarray]]:
    """(kind, item id) -> (the text the model saw, its stored vector), read back by hash."""
    assert brain.embeddings is not None
    found = {}
    for kind in (CHUNK, MEMORY):
        for task in brain.store.missing_embeddings("default", kind, "no-such-model", 384,
                                                   after_item=0, limit=10_000):
            text = task_text(task)
            blob = brain.store.stored_vectors_by_hash(brain.embeddings.model, 384,
                                                      [text_hash(text)])
            assert blob, f"{kind} {task.item_id} has no vector"
            vector = np.frombuffer(next(iter(blob.values())), dtype="<f4")
            found[(kind, task.item_id)] = (text, vector)
    return found


def test_length_batched_vectors_equal_one_at_a_time(
    open_home: OpenBrain, home: Path, model: LocalEmbeddingProvider,
    bulk_model: LocalEmbeddingProvider,
) -> None:
    plain = open_home(None, home=home)
    for i, topic in enumerate(TOPICS * 3):
        # Lengths from a few words to a long paragraph, so batches pad differently.
        plain.pages.put_page(f"notes/n{i}", f"# Note {i}\n\nThe {topic} " + "needs work. " * i)
    insert_memories(plain, [f"Call about the {t} {'soon ' * (i % 7)}" for i, t in
                            enumerate(TOPICS * 4)])
    brain = open_home(SwitchableEmbedder(bulk_model), home=home)
    assert brain.embeddings is not None
    report = backfill(brain.embeddings, batch=8)
    rows = stored_vectors(brain)
    assert report.embedded == len(rows) == report.plan.total and report.model_calls > 2
    texts = [text for text, _ in rows.values()]
    alone = np.stack([model.embed([t])[0] for t in texts])  # the server's provider, one by one
    batched = np.stack([v for _, v in rows.values()])
    assert np.min(np.sum(alone * batched, axis=1)) > 0.99999
    assert np.max(np.abs(alone - batched)) < 1e-4


def test_equal_and_already_stored_texts_are_not_embedded_again(
    open_home: OpenBrain, home: Path, bulk_model: LocalEmbeddingProvider
) -> None:
    plain = open_home(None, home=home)
    insert_memories(plain, [f"Water the {t} plants." for t in TOPICS[:4]] * 3)
    counting = SwitchableEmbedder(bulk_model)
    brain = open_home(counting, home=home)
    assert brain.embeddings is not None
    first = backfill(brain.embeddings)
    assert (first.embedded, first.reused, counting.texts) == (4, 8, 4)
    assert vector_count(home) == 12
    # Later rows whose text already has a vector are copied: the model never runs.
    insert_memories(plain, [f"Water the {t} plants." for t in TOPICS[:2]])
    second = backfill(brain.embeddings)
    assert (second.embedded, second.reused, second.model_calls, counting.texts) == (0, 2, 0, 4)
    assert vector_count(home) == 14


def test_reimport_embeds_only_the_chunks_that_changed(
    open_home: OpenBrain, home: Path, tmp_path: Path, bulk_model: LocalEmbeddingProvider
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    sections = [f"## {t.title()}\n\nThe {t} was checked in spring; " + "all fine. " * 70
                for t in TOPICS[:4]]
    (notes / "house.md").write_text("# House\n\n" + "\n\n".join(sections) + "\n")
    counting = SwitchableEmbedder(bulk_model)
    brain = open_home(counting, home=home)
    assert brain.embeddings is not None
    import_dir(brain.pages, notes)
    chunks = int(backfill(brain.embeddings).embedded)
    assert chunks >= 3, "the page must span several chunks for this test to mean anything"
    sections[1] = sections[1].replace("spring", "autumn")
    (notes / "house.md").write_text("# House\n\n" + "\n\n".join(sections) + "\n")
    before = counting.texts
    summary = import_dir(brain.pages, notes)
    assert summary.updated == 1
    report = backfill(brain.embeddings)
    # Only the edited section runs through the model; the rest kept their vectors.
    assert report.plan.missing_chunks == 1 and report.embedded == 1
    assert counting.texts - before == 1


def _cli_env(home: Path) -> dict[str, str]:
    return {**os.environ, "BRAINKEEP_HOME": str(home)}


def _seed_for_cli(open_home: OpenBrain, home: Path, count: int) -> None:
    plain = open_home(None, home=home)
    insert_memories(plain, [f"Memory {i}: the {TOPICS[i % 9]} {'and more ' * (i % 13)}"
                            for i in range(count)])
    plain.close()
    subprocess.run([sys.executable, "-m", "brainkeep", "config", "set", "embeddings.provider",
                    "local"], env=_cli_env(home), check=True, capture_output=True)


def test_a_killed_embed_resumes_where_it_stopped(open_home: OpenBrain, home: Path) -> None:
    total = 600
    _seed_for_cli(open_home, home, total)
    cmd = [sys.executable, "-m", "brainkeep", "embed", "--json", "--batch-size", "16"]
    proc = subprocess.Popen(cmd, env=_cli_env(home), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while vector_count(home) < 32 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)  # no cleanup at all: a power cut, not Ctrl-C
    proc.wait()
    saved = vector_count(home)
    assert 32 <= saved < total, f"kill landed at {saved} vectors; nothing to resume"
    again = subprocess.run(cmd, env=_cli_env(home), check=True, capture_output=True, text=True)
    report = json.loads(again.stdout)
    # Only what was not committed before the kill is embedded now.
    assert report["memories"] == total - saved == report["embedded"]
    assert vector_count(home) == total


@pytest.mark.parametrize("brain_engine", ["sqlite"], indirect=True)
def test_embed_runs_while_a_server_serves_the_same_brain(
    open_home: OpenBrain, home: Path
) -> None:
    total = 800
    _seed_for_cli(open_home, home, total)
    served: list[str] = []
    during = 0

    async def scenario() -> None:
        nonlocal during
        params = StdioServerParameters(command=sys.executable, args=["-m", "brainkeep", "serve"],
                                       env=_cli_env(home))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            embed = subprocess.Popen(
                [sys.executable, "-m", "brainkeep", "embed", "--json", "--batch-size", "32"],
                env=_cli_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                i = 0
                while embed.poll() is None or i < 3:
                    during += embed.poll() is None
                    fact = f"Served fact {i}: the server kept writing during the backfill."
                    result = await client.call_tool("remember", {"fact": fact,
                                                                 "provenance": "test"})
                    assert not result.is_error, result.content
                    found = await client.call_tool("recall", {"query": f"Served fact {i}"})
                    assert not found.is_error, found.content
                    served.append(fact)
                    i += 1
                    if i > 500:
                        break
                out, err = embed.communicate(timeout=300)
            finally:
                if embed.poll() is None:
                    embed.kill()
            assert embed.returncode == 0, err
            assert json.loads(out)["embedded"] >= total - len(served)

    anyio.run(scenario)
    assert len(served) >= 3 and during >= 1, "no call overlapped the backfill"
    # Every seeded memory got a vector, and so did every fact the server stored.
    assert vector_count(home) == total + len(served)


def test_a_model_switch_reembeds_everything_and_leaves_one_space(
    open_home: OpenBrain, home: Path, bulk_model: LocalEmbeddingProvider
) -> None:
    old = open_home(SwitchableEmbedder(bulk_model, model_id="model-a"), home=home)
    insert_memories(old, [f"Fix the {t} this week." for t in TOPICS] * 2)
    assert old.embeddings is not None
    backfill(old.embeddings)
    new = open_home(SwitchableEmbedder(bulk_model, model_id="model-b"), home=home)
    assert new.embeddings is not None
    report = backfill(new.embeddings)
    # Hash reuse never crosses spaces: model-a's vectors of the same texts are not copied.
    assert report.plan.switching and (report.embedded, report.reused) == (9, 9)
    raw = RawDatabase(home)
    try:
        models = raw.execute("SELECT model, COUNT(*) FROM embeddings GROUP BY model").fetchall()
    finally:
        raw.close()
    # Each row's model-a vector was replaced as its model-b vector was committed.
    assert [tuple(row) for row in models] == [("model-b", 18)]
    assert new.embeddings.recorded_space() == ("model-b", 384)
