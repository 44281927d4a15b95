"""The learned-sparse arm on both engines: expansion, privacy, deletion, backfill, doctor."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings, write_values
from brainkeep.core.context import LOCAL
from brainkeep.core.retrieval import CHUNK
from brainkeep.core.sparse_jobs import backfill_sparse
from brainkeep.providers.sparse_encoder import SparseEncoder
from tests.brain_engines import ENGINES

CAR = "---\ntitle: Garage notes\n---\nI finally bought a red automobile from the dealer.\n"
LUNCH = "---\ntitle: Lunch\n---\nWe had pasta and a green salad at noon.\n"
BOOKS = "---\ntitle: Reading\n---\nThe novel about the lighthouse keeper was slow.\n"


@pytest.fixture(params=ENGINES)
def brain_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def encoder() -> SparseEncoder:
    made = SparseEncoder()
    made.encode(["warm up"])
    return made


def opened(home: Path, encoder: SparseEncoder | None, mode: str = "hybrid") -> Brain:
    settings = load_settings(home, env={})
    write_values(settings, {**settings.values, "search.mode": mode})
    return open_brain(load_settings(home, env={}), embedder=None, sparse_encoder=encoder)


@pytest.fixture
def sparse_brain(home: Path, encoder: SparseEncoder) -> Iterator[Brain]:
    brain = opened(home, encoder)
    try:
        for slug, text in (("notes/car", CAR), ("notes/lunch", LUNCH), ("notes/books", BOOKS)):
            brain.pages.put_page(slug, text, caller=LOCAL)
        yield brain
    finally:
        brain.close()


def slugs(brain: Brain, query: str, *, mode: str, include_private: bool = True) -> list[str]:
    import dataclasses

    service = dataclasses.replace(brain.search, mode=mode)
    return [r.slug for r in service.search(query, include_private=include_private,
                                           limit=5).results]


def test_the_sparse_arm_finds_a_page_by_a_word_it_never_says(sparse_brain: Brain) -> None:
    # "vehicle" occurs on no page: BM25 cannot match it, the learned expansion does.
    assert "notes/car" not in slugs(sparse_brain, "vehicle purchase", mode="keyword")
    assert slugs(sparse_brain, "vehicle purchase", mode="sparse")[:1] == ["notes/car"]
    assert slugs(sparse_brain, "vehicle purchase", mode="hybrid")[:1] == ["notes/car"]


def test_written_pages_are_encoded_inline(sparse_brain: Brain) -> None:
    assert sparse_brain.sparse is not None
    assert sparse_brain.sparse.index.count()[CHUNK] == 3
    assert sparse_brain.sparse.index.count_missing()[CHUNK] == 0


def test_private_pages_are_left_out_unless_asked_for(sparse_brain: Brain) -> None:
    sparse_brain.pages.put_page(
        "notes/secret", "---\ntitle: Secret\nvisibility: private\n---\nA hidden motorcar.\n",
        caller=LOCAL)
    assert "notes/secret" in slugs(sparse_brain, "vehicle", mode="sparse")
    assert "notes/secret" not in slugs(sparse_brain, "vehicle", mode="sparse",
                                       include_private=False)


def test_a_deleted_or_rewritten_page_is_not_found_by_its_old_text(sparse_brain: Brain) -> None:
    assert sparse_brain.sparse is not None

    def score(query: str) -> float:
        assert sparse_brain.sparse is not None
        hits = sparse_brain.sparse.chunk_hits(query, 5, include_private=True)
        return max((h.score for h in hits if h.page_id == car_id), default=0.0)

    car = sparse_brain.store.get_page(sparse_brain.source_id, "notes/car")
    assert car is not None
    car_id = car.id
    assert score("vehicle purchase") > 1.0
    sparse_brain.pages.put_page("notes/car", "---\ntitle: Notes\n---\nThe pen is blue.\n",
                                caller=LOCAL)
    assert score("vehicle purchase") < 0.1  # what is left is the new text's faint overlap
    sparse_brain.pages.put_page("notes/lunch2", LUNCH.replace("Lunch", "Dinner"), caller=LOCAL)
    sparse_brain.pages.delete_page("notes/lunch", LOCAL)
    found = slugs(sparse_brain, "pasta salad", mode="sparse")
    assert found[0] == "notes/lunch2" and "notes/lunch" not in found


def test_backfill_fills_what_is_missing_and_resumes(home: Path, encoder: SparseEncoder) -> None:
    plain = opened(home, None)
    try:
        for n in range(40):
            plain.pages.put_page(f"notes/n{n}", f"---\ntitle: Note {n}\n---\nItem number {n} "
                                 f"about topic {n % 7}.\n", caller=LOCAL)
    finally:
        plain.close()
    brain = opened(home, encoder)
    try:
        assert brain.sparse is not None
        assert brain.sparse.index.count_missing()[CHUNK] == 40

        def stop(done: int, total: int) -> None:
            if done >= 8:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            backfill_sparse(brain.sparse, batch=4, workers=1, progress=stop)
        left = brain.sparse.index.count_missing()[CHUNK]
        assert 0 < left < 40
        report = backfill_sparse(brain.sparse, batch=4)
        assert report.encoded == left and report.stored == left
        assert brain.sparse.index.count_missing()[CHUNK] == 0
        assert backfill_sparse(brain.sparse).encoded == 0
    finally:
        brain.close()


def test_doctor_shows_coverage(home: Path, encoder: SparseEncoder, run_cli) -> None:  # type: ignore[no-untyped-def]
    plain = opened(home, None)
    try:
        plain.pages.put_page("notes/car", CAR, caller=LOCAL)
    finally:
        plain.close()
    settings = load_settings(home, env={})
    write_values(settings, {**settings.values, "sparse.provider": "local"})
    before = json.loads(run_cli("doctor", "--json").stdout)["sparse"]
    assert (before["chunks"], before["missing_chunks"]) == (0, 1)
    assert "1 missing" in run_cli("doctor").stdout
    embedded = run_cli("embed", "--json")
    assert embedded.exit_code == 0, embedded.stderr
    assert json.loads(embedded.stdout)["sparse"]["encoded"] == 1
    after = json.loads(run_cli("doctor", "--json").stdout)["sparse"]
    assert (after["chunks"], after["missing_chunks"]) == (1, 0)


def test_recall_finds_a_fact_by_a_word_it_never_says(sparse_brain: Brain, tmp_path: Path) -> None:
    from brainkeep.ops.dispatch import Dispatcher
    from brainkeep.ops.registry import build_catalog
    from brainkeep.ops.usage import UsageLog

    for text in ("Dana drives a battered old pickup truck", "Dana prefers tea to coffee",
                 "The team meets on Tuesdays"):
        sparse_brain.facts.remember(text, "chat", LOCAL)
    dispatcher = Dispatcher(build_catalog(), sparse_brain, surface="full",
                            usage=UsageLog(tmp_path / "usage.jsonl"))

    def facts(query: str) -> list[str]:
        outcome = dispatcher.call("recall", {"query": query, "limit": 5}, LOCAL)
        assert not outcome.is_error, outcome.payload
        return [f["fact"] for f in outcome.payload["facts"]]

    # No fact says "vehicle": BM25 alone has nothing, the sparse list has the truck.
    assert facts("which vehicle")[:1] == ["Dana drives a battered old pickup truck"]
    plain = dataclasses.replace(sparse_brain.fact_search, sparse=None)
    sparse_brain.facts = dataclasses.replace(sparse_brain.facts, ranker=plain)
    assert "Dana drives a battered old pickup truck" not in facts("which vehicle")


def test_search_modes_name_their_arms() -> None:
    from brainkeep.core.search import SEARCH_MODES, arms_of

    assert arms_of("hybrid") == {"keyword", "vector", "sparse"}
    assert arms_of("keyword+sparse") == {"keyword", "sparse"}
    assert all(arms_of(mode) <= {"keyword", "vector", "sparse"} for mode in SEARCH_MODES)
    assert len({arms_of(mode) for mode in SEARCH_MODES}) == len(SEARCH_MODES)
