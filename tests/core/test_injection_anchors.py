"""core/injection_anchors: anchored matching finds what one regex pass finds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brainkeep.core import injection_rules
from brainkeep.core.injection_anchors import head_literals, split_alternatives, words_of

ROOT = Path(__file__).resolve().parents[2]


def _long_texts() -> list[str]:
    corpus = json.loads((ROOT / "bench" / "data" / "poison_corpus.json").read_text())
    attacks = [t for items in corpus["attacks"].values() for t in items]
    benign = [t for items in corpus["benign"].values() for t in items]
    mixed = "\n\n".join(a + "\n\n" + b for a, b in zip(attacks, benign * 3, strict=False))
    return [mixed.lower()[i:i + 4000] for i in range(0, len(mixed), 4000)]


@pytest.mark.parametrize("rule", injection_rules.PATTERN_RULES, ids=lambda r: r.id)
def test_anchored_matches_equal_one_regex_pass(rule: injection_rules.PatternRule) -> None:
    for text in _long_texts():
        words = frozenset(words_of(text))
        want = [m.span() for m in rule.pattern.finditer(text)]
        got = [m.span() for m in rule.anchored.finditer(text, words)]
        assert got == want, rule.id


def test_heads_and_splitting() -> None:
    assert split_alternatives(r"a(?:b|c)|[|]d|e\|f") == ["a(?:b|c)", "[|]d", r"e\|f"]
    assert head_literals(r"\b(?:ignore|skip)\s+x")[0] == (("ignore", True), ("skip", True))
    assert head_literals(r"prompts?\b")[0] == (("prompt", False),)
    assert head_literals(r"(?:the\s+)?x")[0] == ()
