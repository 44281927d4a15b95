"""The shipped SPLADE-tiny encoder: pinned file, deterministic vectors, real expansion."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from brainkeep.errors import Unavailable
from brainkeep.providers.sparse_encoder import (
    MODEL_PATH,
    MODEL_SHA256,
    SparseEncoder,
    load_tokenizer,
    read_safetensors,
    write_safetensors,
)


@pytest.fixture(scope="module")
def encoder() -> SparseEncoder:
    return SparseEncoder()


def terms_of(encoder: SparseEncoder, text: str) -> dict[str, float]:
    vocab = {i: w for w, i in load_tokenizer().get_vocab().items()}
    return {vocab[t]: w for t, w in encoder.encode([text])[0].as_dict().items()}


def test_the_shipped_file_is_the_pinned_one() -> None:
    assert hashlib.sha256(MODEL_PATH.read_bytes()).hexdigest() == MODEL_SHA256


def test_a_different_file_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    tensors = read_safetensors(MODEL_PATH)
    tensors["cls.predictions.bias"] = tensors["cls.predictions.bias"] + 0.01
    other = tmp_path / "model.safetensors"
    write_safetensors(other, tensors)
    with pytest.raises(Unavailable) as caught:
        SparseEncoder(path=other).encode(["hello"])
    assert "not the one brainkeep was built for" in caught.value.message
    assert MODEL_SHA256 in (caught.value.detail or "")


def test_a_missing_file_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(Unavailable, match="cannot be read"):
        SparseEncoder(path=tmp_path / "absent.safetensors").encode(["hello"])


def test_encoding_is_deterministic_and_batch_independent(encoder: SparseEncoder) -> None:
    texts = ["the cat sat on the mat", "a much longer sentence about the quarterly budget "
             "review that finance asked for", "hi"]
    together = encoder.encode(texts)
    alone = [encoder.encode([t])[0] for t in texts]
    again = encoder.encode(texts)
    for a, b, c in zip(together, alone, again, strict=True):
        assert np.array_equal(a.terms, c.terms) and np.array_equal(a.weights, c.weights)
        assert np.array_equal(a.terms, b.terms)
        assert np.allclose(a.weights, b.weights, atol=1e-4)
        assert (a.weights > 0).all() and (np.diff(a.terms) > 0).all()


def test_the_vector_expands_beyond_the_words_of_the_text(encoder: SparseEncoder) -> None:
    terms = terms_of(encoder, "what is the capital of france")
    assert {"capital", "france"} <= set(terms)
    assert "paris" in terms  # never said, but the model knows it
    assert terms["capital"] > terms.get("is", 0.0)


def test_empty_input_and_a_bare_string(encoder: SparseEncoder) -> None:
    assert encoder.encode([]) == []
    with pytest.raises(TypeError):
        encoder.encode("not a list")
