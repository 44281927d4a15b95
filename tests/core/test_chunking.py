"""Chunking: size and overlap bounds, boundaries, page chunk order."""

from __future__ import annotations

import random

import pytest

from brainkeep.core.chunking import CHUNK_CHARS, OVERLAP_CHARS, page_chunks, split_text
from brainkeep.core.models import TimelineSpec


def _prose(words: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    vocab = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota"]
    out = []
    for i in range(words):
        out.append(rng.choice(vocab) + ("." if i % 11 == 10 else ""))
        if i % 60 == 59:
            out.append("\n\n")
    return " ".join(out)


def test_short_and_empty_text() -> None:
    assert split_text("") == []
    assert split_text("   \n ") == []
    assert split_text("  short text ") == ["short text"]


@pytest.mark.parametrize(("size", "overlap"), [(CHUNK_CHARS, OVERLAP_CHARS), (200, 40), (97, 0)])
def test_chunks_respect_size_and_cover_all_words(size: int, overlap: int) -> None:
    text = _prose(2_000)
    chunks = split_text(text, size=size, overlap=overlap)
    assert len(chunks) > 1
    assert all(0 < len(c) <= size for c in chunks)
    # Every word of the text survives, in order, across the chunks.
    joined_words = " ".join(chunks).split()
    assert set(text.split()) <= set(joined_words)
    assert chunks[0].split()[:5] == text.split()[:5]
    assert chunks[-1].split()[-5:] == text.split()[-5:]


def test_consecutive_chunks_overlap_by_about_the_overlap() -> None:
    text = _prose(1_500)
    chunks = split_text(text, size=400, overlap=80)
    for left, right in zip(chunks, chunks[1:], strict=False):
        head = right[:30]
        assert head in left, (left[-120:], right[:120])
        shared = len(left) - left.rindex(head)
        assert 0 < shared <= 80 + 1


def test_no_overlap_means_disjoint_chunks() -> None:
    text = _prose(800)
    chunks = split_text(text, size=300, overlap=0)
    assert sum(len(c.split()) for c in chunks) == len(text.split())


def test_prefers_paragraph_breaks() -> None:
    para = "word " * 50  # 250 chars
    text = (para.strip() + "\n\n") * 4
    chunks = split_text(text, size=600, overlap=0)
    assert all(c.endswith("word") for c in chunks)
    assert len(chunks) == 2


def test_unbreakable_text_is_cut_at_size() -> None:
    chunks = split_text("x" * 1000, size=300, overlap=50)
    assert all(len(c) <= 300 for c in chunks)
    assert chunks[0] == "x" * 300


def test_page_chunks_truth_then_timeline_then_title_fallback() -> None:
    timeline = (TimelineSpec("2024-01-01", "Joined"), TimelineSpec("2024-02-01", "Left"))
    chunks = page_chunks("Title", "Body text.", timeline)
    assert [(c.ord, c.kind, c.text) for c in chunks] == [
        (0, "truth", "Body text."),
        (1, "timeline", "2024-01-01: Joined\n2024-02-01: Left"),
    ]
    assert [(c.kind, c.text) for c in page_chunks("Only Title", "", ())] == [
        ("truth", "Only Title")
    ]
    assert page_chunks("", "", ()) == ()
