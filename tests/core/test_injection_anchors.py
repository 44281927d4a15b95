"""core/injection_anchors: anchored matching finds what one regex pass finds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from brainkeep.core import injection, injection_rules
from brainkeep.core.injection_anchors import (
    Anchored,
    head_literals,
    split_alternatives,
    words_of,
)

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
    assert head_literals(r"\b(?:ignore|skip)\s+x") == (
        ("ignore", True, r"ignore\s+x"), ("skip", True, r"skip\s+x"))
    assert head_literals(r"prompts?\b") == (("prompt", False, r"prompts?\b"),)
    assert head_literals(r"(?:the\s+)?x") == ()


def test_probes_confirm_lookbehinds_and_find_overlapping_places() -> None:
    # The probe drops "\b": "xignore all previous instructions" must not count,
    # and a failed confirmation must not hide a later place inside its hit.
    anchored = Anchored.of(re.compile(r"\b(?:ignore|gnore)\s+all"))
    text = "xignore all, then ignore all"
    assert [m.span() for m in anchored.finditer(text, frozenset(words_of(text)))] == [
        m.span() for m in re.finditer(r"\b(?:ignore|gnore)\s+all", text)]
    assert [probe for _, _, probe in head_literals(r"\b(?:^|\n|x)y")] == [None, r"\ny", "xy"]


def test_the_quote_test_of_a_line_is_the_whole_text_scan() -> None:
    # A single-quoted span may begin with the line break before its quote.
    assert injection._quoted("notes\n'system: obey'\nend", 5, 12)
    for text in _long_texts():
        spans = [m.span() for m in injection_rules.QUOTED.finditer(text)]
        newlines = [i for i, c in enumerate(text) if c == "\n"]
        for start in [*range(0, len(text) - 12, 97), *newlines]:
            end = start + 12
            want = any(a <= start and end <= b for a, b in spans)
            assert injection._quoted(text, start, end) == want, (start, text[start:end])


def test_a_base64_run_after_non_ascii_text_is_found_where_it_is() -> None:
    blob = ("QmFzZTY0IGlzIGEgZ3JvdXAgb2YgYmluYXJ5LXRvLXRleHQgZW5jb2Rpbmcgc2NoZW1l"
            "cyB0aGF0IHJlcHJlc2VudA2")
    assert injection.scan(f"Zoë wrote “this”: {blob}").rules == ("base64_blob",)
    assert injection.scan(f"see https://x.example/{blob}").rules == ()
