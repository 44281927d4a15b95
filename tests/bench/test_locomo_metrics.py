"""The LoCoMo bench's scoring, on a tiny synthetic conversation (never the real data)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from locomo_support import (  # noqa: E402
    NaiveBM25,
    QueryRow,
    conversation,
    evidence_ids,
    first_hit,
    summarize,
)

SAMPLE = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Bo",
        "session_2_date_time": "2 May, 2023",
        "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "My kayak sprang a leak."}],
        "session_1_date_time": "1 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat named Miso."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "I bought a red kayak."},
        ],
    },
    "qa": [
        {"question": "What is the cat called?", "evidence": ["D1:1"], "category": 1},
        {"question": "What about the kayak?", "evidence": ["D1:2; D2:1"], "category": 2},
        {"question": "Lost evidence", "evidence": ["D9:9"], "category": 3},
        {"question": "Adversarial", "evidence": ["D1:1"], "category": 5},
    ],
}


def test_turns_are_pages_in_session_order_with_counter_slugs() -> None:
    conv = conversation(SAMPLE)
    assert [t.slug for t in conv.turns] == ["turns/t00001", "turns/t00002", "turns/t00003"]
    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D2:1"]
    assert conv.turns[0].text == "Ana (1 May, 2023): I adopted a cat named Miso."
    assert conv.turns[0].title == "Ana, 1 May, 2023"
    assert 'title: "Ana, 1 May, 2023"' in conv.turns[0].markdown()
    assert all("D" not in t.slug for t in conv.turns)


def test_questions_keep_categories_1_to_4_with_resolvable_evidence() -> None:
    conv = conversation(SAMPLE)
    assert [q.text for q in conv.questions] == ["What is the cat called?", "What about the kayak?"]
    assert conv.questions[1].gold == frozenset({"turns/t00002", "turns/t00003"})
    assert evidence_ids(["D8:6; D9:17", "D1:3"]) == ["D8:6", "D9:17", "D1:3"]


def test_first_hit_is_the_best_ranked_gold_page() -> None:
    gold = frozenset({"b", "d"})
    assert first_hit(["a", "b", "c", "d"], gold) == 2
    assert first_hit(["a", "c"], gold) is None


def test_summary_metrics() -> None:
    rows = [QueryRow("c", 1, 1, 10, 1.0), QueryRow("c", 1, 4, 20, 3.0),
            QueryRow("c", 2, 7, 30, 2.0), QueryRow("c", 2, None, 40, 9.0)]
    s = summarize(rows)
    assert s["R@1"] == 0.25 and s["R@5"] == 0.5 and s["R@10"] == 0.75
    assert s["MRR"] == pytest.approx((1 + 1 / 4 + 1 / 7) / 4)
    assert s["tokens/query"] == 25 and s["p50 ms"] == 2.5 and s["queries"] == 4


def test_naive_bm25_ranks_the_matching_turn_first() -> None:
    conv = conversation(SAMPLE)
    bm25 = NaiveBM25(conv.turns)
    ranked = bm25.search(conv.questions[0].text)
    assert first_hit(ranked, conv.questions[0].gold) == 1
    assert bm25.search("!!!") == []
