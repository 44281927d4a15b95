"""The secret scrubber against a corpus of real-format secrets and of look-alikes.

The corpus (bench/secret_corpus.py) is generated: vendor prefixes, lengths
and alphabets of real credentials, never real ones.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from brainkeep.core.secrets import RULES, marker, safe_cut, scrub

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from secret_corpus import ACCEPTED_RULES, SECRETS, lookalikes, planted  # noqa: E402

PLANTED = planted(random.Random(24), per_rule=40)
LOOKALIKES = lookalikes(random.Random(42), per_kind=40)


@pytest.mark.parametrize("rule", sorted(SECRETS))
def test_every_planted_secret_of_a_rule_is_replaced_by_its_marker(rule: str) -> None:
    samples = [p for p in PLANTED if p.rule == rule]
    assert samples
    for sample in samples:
        result = scrub(sample.text)
        assert sample.secret not in result.text, sample.text
        expected = ACCEPTED_RULES.get(rule, frozenset({rule}))
        assert any(hit.rule in expected for hit in result.hits), (sample.text, result.hits)
        assert any(marker(hit.rule) in result.text for hit in result.hits)


@pytest.mark.parametrize("kind", sorted({kind for kind, _ in LOOKALIKES}))
def test_look_alikes_survive_untouched(kind: str) -> None:
    for _, text in (item for item in LOOKALIKES if item[0] == kind):
        result = scrub(text)
        assert result.text == text and result.hits == (), (text, result.hits)


def test_hits_name_the_rule_and_the_span_in_the_original_text_never_the_secret() -> None:
    text = "key AKIAQ7RZ3KLM5NOPW2XY and PASSWORD=hunter22 end"
    result = scrub(text)
    assert [(h.rule, text[h.start:h.end]) for h in result.hits] == [
        ("aws-access-key", "AKIAQ7RZ3KLM5NOPW2XY"), ("assignment", "hunter22")]
    assert result.text == "key [secret:aws-access-key] and PASSWORD=[secret:assignment] end"
    assert result.count == 2
    assert "hunter22" not in repr(result.hits)


def test_scrubbing_is_idempotent_and_markers_are_never_rescrubbed() -> None:
    for sample in PLANTED[::7]:
        once = scrub(sample.text).text
        twice = scrub(once)
        assert twice.text == once and twice.hits == ()


def test_the_more_specific_rule_wins_where_two_overlap() -> None:
    key = "sk-ant-api03-" + "A1b2C3d4" * 11 + "AA"
    result = scrub(f"ANTHROPIC_API_KEY={key}")
    assert [h.rule for h in result.hits] == ["anthropic-key"]


def test_a_pem_block_without_its_end_line_is_still_removed() -> None:
    cut = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn\nqL8uGx7Ahzpxk9Xw2vB1"
    result = scrub(f"pasted: {cut}")
    assert "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn" not in result.text
    assert result.text == "pasted: [secret:private-key]"


def test_a_cut_never_ends_inside_a_marker() -> None:
    text = "db postgres://a:[secret:url-password]@h"
    assert safe_cut(text, 24) == "db postgres://a:"
    assert safe_cut(text, len(text)) == text


def test_every_rule_is_published_in_docs_agents() -> None:
    doc = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Secret scrubbing"):]
    missing = [rule.name for rule in RULES if f"`{rule.name}`" not in section]
    assert missing == []


def test_assignments_inside_escaped_json_are_found() -> None:
    nested = r'{"output": "{\"password\": \"hunter22x\", \"user\": \"bob\"}"}'
    result = scrub(nested)
    assert "hunter22x" not in result.text and r'\"user\": \"bob\"' in result.text
    assert scrub('cfg = {"token": "Zq8\\nabc9"}').text == 'cfg = {"token": "[secret:assignment]"}'
