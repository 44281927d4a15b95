"""Page `search_context`: read by the dense model with every chunk, never returned.

Both engines; the real local model and the real SPLADE encoder, wrapped only
to record the texts each one was given.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.context import LOCAL
from brainkeep.core.embedding import embedding_text
from brainkeep.core.embedding_jobs import backfill
from brainkeep.core.limits import MAX_SEARCH_CONTEXT_CHARS
from brainkeep.core.markdown import chunk_heading, parse_page
from brainkeep.core.retrieval import CHUNK
from brainkeep.core.sparse_jobs import backfill_sparse
from brainkeep.errors import InvalidInput, Unavailable
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from brainkeep.ops.usage import UsageLog
from brainkeep.providers.local_embeddings import LocalEmbeddingProvider
from brainkeep.providers.sparse_encoder import SparseEncoder
from tests.brain_engines import ENGINES

CONTEXT = "after Maya: did you ever go back to the observatory in the mountains?"
# A reply that only means something after the question it answers.
REPLY = "---\ntitle: Jon\nsearch_context: {ctx}\n---\nYes, twice last year, both times at night.\n"
OTHERS = ("I am baking sourdough bread this weekend.", "We went to the museum once, at night.",
          "Yes, the hike last year was long.", "Twice a week I visit my grandmother.",
          "The bakery near the station closed.")


@pytest.fixture(params=ENGINES)
def brain_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class Recording:
    """A real model that remembers what it was asked to read."""

    def __init__(self, inner: Any, method: str) -> None:
        self.inner, self.method = inner, method
        self.model_id = inner.model_id
        self.dimensions = getattr(inner, "dimensions", 0)
        self.texts: list[str] = []
        self.down = False

    def _read(self, texts: Sequence[str]) -> Any:
        if self.down:
            raise Unavailable("model down (test)")
        self.texts.extend(texts)
        return getattr(self.inner, self.method)(list(texts))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._read(texts))

    def encode(self, texts: Sequence[str]) -> Any:
        return self._read(texts)


@pytest.fixture(scope="module")
def encoder() -> SparseEncoder:
    return SparseEncoder()


@pytest.fixture
def dense(model: LocalEmbeddingProvider) -> Recording:
    return Recording(model, "embed")


@pytest.fixture
def sparse(encoder: SparseEncoder) -> Recording:
    return Recording(encoder, "encode")


@pytest.fixture
def brain(home: Path, dense: Recording, sparse: Recording) -> Iterator[Brain]:
    opened = open_brain(load_settings(home, env={}), embedder=dense, chat=None,
                        sparse_encoder=sparse)
    try:
        yield opened
    finally:
        opened.close()


def reply_page() -> str:
    return REPLY.format(ctx=json.dumps(CONTEXT))


def test_the_dense_model_reads_the_context_and_the_sparse_encoder_does_not(
    brain: Brain, dense: Recording, sparse: Recording
) -> None:
    brain.pages.put_page("turns/t2", reply_page(), caller=LOCAL)
    assert any(CONTEXT in t for t in dense.texts)
    assert sparse.texts and not any("observatory" in t for t in sparse.texts)


def test_the_context_lifts_its_page_and_recall_never_returns_it(brain: Brain) -> None:
    # The same reply twice: only one of the two pages knows what it answers.
    brain.pages.put_page("turns/t2", reply_page(), caller=LOCAL)
    brain.pages.put_page("turns/t3", REPLY.replace("search_context: {ctx}\n", ""),
                         caller=LOCAL)
    for i, text in enumerate(OTHERS, start=4):
        brain.pages.put_page(f"turns/t{i}", f"---\ntitle: Jon\n---\n{text}\n", caller=LOCAL)
    query = "going to the observatory"
    vector = dataclasses.replace(brain.search, mode="vector")
    scores = {r.slug: r.score for r in vector.search(query, include_private=True,
                                                      limit=10).results}
    assert scores["turns/t2"] > scores.get("turns/t3", 0.0)
    dispatcher = Dispatcher(build_catalog(), brain, surface="full",
                            usage=UsageLog(brain.settings.usage_path))
    payload = dispatcher.call("recall", {"query": query, "limit": 5}, LOCAL).payload
    assert "turns/t2" in [r["slug"] for r in payload["results"]]
    assert "observatory" not in json.dumps(payload)


def test_a_backfill_reads_what_an_inline_write_reads(
    brain: Brain, dense: Recording, sparse: Recording
) -> None:
    written = brain.pages.put_page("turns/t2", reply_page(), caller=LOCAL).page
    (said,) = (text for _, text in brain.store.page_chunk_texts(written.id))
    assert set(dense.texts) == {embedding_text(said, chunk_heading("Jon", CONTEXT))}
    assert set(sparse.texts) == {embedding_text(said, "Jon")}
    dense.down = sparse.down = True  # the next page is saved without vectors
    later = reply_page().replace("Yes, twice", "No, never")
    page = brain.pages.put_page("turns/t9", later, caller=LOCAL).page
    dense.down = sparse.down = False
    dense.texts.clear()
    sparse.texts.clear()
    assert brain.embeddings is not None and brain.sparse is not None
    (task,) = brain.store.missing_embeddings(
        brain.embeddings.source_id, CHUNK, dense.model_id, dense.dimensions,
        after_item=0, limit=10)
    assert task.page_id == page.id and task.context == CONTEXT
    backfill(brain.embeddings)
    backfill_sparse(brain.sparse)
    (chunk,) = (text for _, text in brain.store.page_chunk_texts(page.id))
    assert dense.texts == [embedding_text(chunk, chunk_heading("Jon", CONTEXT))]
    assert sparse.texts == [embedding_text(chunk, "Jon")]
    assert brain.store.count_missing_embeddings(
        brain.embeddings.source_id, dense.model_id, dense.dimensions)[CHUNK] == 0
    assert brain.sparse.index.count_missing()[CHUNK] == 0


@pytest.mark.parametrize("stored", [2023, {"after": "Maya"}])
def test_a_stored_context_that_is_not_text_is_no_context_for_a_backfill(
    brain: Brain, dense: Recording, stored: object
) -> None:
    # Writes refuse such a value; a page stored before that rule may still hold one.
    dense.down = True
    page = brain.pages.put_page("turns/t2", reply_page(), caller=LOCAL).page
    dense.down = False
    with brain.store.db.transaction():  # type: ignore[attr-defined]
        brain.store.sql.execute(  # type: ignore[attr-defined]
            "UPDATE pages SET frontmatter = ? WHERE id = ?",
            (json.dumps({"title": "Jon", "search_context": stored}), page.id))
    assert brain.embeddings is not None
    (task,) = brain.store.missing_embeddings(
        brain.embeddings.source_id, CHUNK, dense.model_id, dense.dimensions,
        after_item=0, limit=10)
    assert task.context is None
    backfill(brain.embeddings)
    (chunk,) = (text for _, text in brain.store.page_chunk_texts(page.id))
    assert dense.texts == [embedding_text(chunk, "Jon")]


def test_search_context_is_not_a_link_and_must_be_short_text() -> None:
    parsed = parse_page("turns/t2", "---\nsearch_context: people/maya\n---\nYes.\n")
    assert parsed.search_context == "people/maya" and parsed.links == ()
    for bad in ("search_context: [1, 2]", "search_context: 2023",
                f"search_context: {'x' * (MAX_SEARCH_CONTEXT_CHARS + 1)}"):
        with pytest.raises(InvalidInput, match="search_context"):
            parse_page("turns/t2", f"---\n{bad}\n---\nYes.\n")
