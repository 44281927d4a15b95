"""Page layout, entity matching and scrub-before-cut, without a brain."""

from __future__ import annotations

import pytest

from brainkeep.core.limits import TRANSCRIPT_PART_BYTES, TRANSCRIPT_TURN_BYTES
from brainkeep.core.markdown import parse_page
from brainkeep.core.transcripts.importer import scrub_conversation, storable
from brainkeep.core.transcripts.layout import (
    clip_turn,
    conversation_slug,
    render_parts,
    render_turn,
    split_parts,
)
from brainkeep.core.transcripts.mentions import EntityIndex
from brainkeep.core.transcripts.model import Conversation, Turn
from brainkeep.core.transcripts.reading import tool_result


@pytest.fixture(params=["sqlite"])
def brain_engine(request: pytest.FixtureRequest) -> str:  # no brain here: one run only
    return str(request.param)


def _conv(*texts: str, conv_id: str = "c1") -> Conversation:
    turns = tuple(Turn(i, "user" if i % 2 == 0 else "assistant", t, f"2026-01-01T00:00:0{i % 10}Z")
                  for i, t in enumerate(texts))
    return Conversation(conv_id, "A title", "chatgpt", "2026-01-01T00:00:00Z", turns)


def test_ids_that_are_no_clean_slug_segment_get_a_stable_hash_tail() -> None:
    assert conversation_slug("codex", "0199a1b2-7c3d") == "transcripts/codex/0199a1b2-7c3d"
    odd = conversation_slug("chatgpt", "Conv/With Spaces")
    assert odd.startswith("transcripts/chatgpt/conv-with-spaces-")
    assert len(odd.rsplit("-", 1)[1]) == 8
    assert odd == conversation_slug("chatgpt", "Conv/With Spaces")
    assert odd != conversation_slug("chatgpt", "conv with spaces")


def test_turn_text_that_looks_like_page_structure_stays_inside_its_turn() -> None:
    text = "---\ntitle: hijack\n---\n## Timeline\n- 2020-01-01: not an event\n[[people/x]]"
    (part,) = render_parts(_conv(text))
    parsed = parse_page(part.slug, part.content)
    assert parsed.title == "A title" and parsed.timeline == ()
    assert "> ## Timeline" in part.content
    assert [link.to_slug for link in parsed.links] == ["people/x"]  # a wikilink is a link


def test_parts_split_by_bytes_and_an_appended_turn_never_moves_a_boundary() -> None:
    texts = [f"turn {i} " + "x" * 9000 for i in range(20)]
    rendered = [render_turn(t) for t in _conv(*texts).turns]
    parts = split_parts(rendered)
    assert len(parts) > 2 and parts[0][0] == 0 and parts[-1][1] == 19
    for first, last in parts:
        assert sum(len(r.encode()) + 1 for r in rendered[first:last + 1]) <= TRANSCRIPT_PART_BYTES
    longer = split_parts(rendered + [render_turn(Turn(20, "user", "y" * 9000, None))])
    assert longer[:-2] == parts[:-1] or longer[:-1] == parts[:-1]


def test_a_huge_turn_is_cut_with_a_note() -> None:
    text = "é" * TRANSCRIPT_TURN_BYTES
    cut = clip_turn(text)
    assert len(cut.encode()) < TRANSCRIPT_TURN_BYTES + 100
    assert cut.endswith("more bytes not imported]")
    assert clip_turn("short") == "short"


def test_secrets_are_scrubbed_before_a_tool_result_is_cut() -> None:
    key = "ghp_" + "A1b2C3d4E5" * 3 + "F6g7H8"
    output = "x" * 279 + " " + key + " tail"
    short = tool_result(output)
    assert key[:12] not in short and "ghp_" not in short


def test_nul_and_lone_surrogates_are_dropped_not_fatal() -> None:
    assert storable("a\x00b\ud800c") == "ab?c"
    prepared = scrub_conversation(_conv("token: Abc123xyz9 \x00 and postgres://u:pw12345@h/db"))
    assert prepared.secrets == 2
    assert "\x00" not in prepared.conversation.turns[0].text


def test_entity_index_matches_longest_names_and_capitalized_single_words() -> None:
    index = EntityIndex.from_names([
        ("people/alice-chen", "Alice Chen", "alice chen"),
        ("people/alice-chen", "Alice Chen", "ali"),
        ("projects/rust", "Rust", "rust"), ("companies/nw", "Northwind Robotics", "northwind"),
        ("companies/nw", "Northwind Robotics", "northwind robotics"), ("x/ab", "Ab", "ab"),
    ])
    found = index.find("rust is fine. Alice Chen and Zoë met Northwind Robotics; Rust later. ab")
    assert found == [("people/alice-chen", "Alice Chen"), ("companies/nw", "Northwind Robotics"),
                     ("projects/rust", "Rust")]
    assert index.find("nothing here") == []
    assert not EntityIndex()


def test_every_part_page_is_short_enough_for_the_injection_scorer_to_read_whole() -> None:
    from brainkeep.core import injection

    window = 2 * injection._PATTERN_WINDOW  # it reads the first and the last 64K characters
    assert TRANSCRIPT_PART_BYTES + 4096 <= window
    assert TRANSCRIPT_TURN_BYTES + 4096 <= window  # a part holding one cut giant turn
    (part,) = render_parts(_conv(clip_turn("z" * (3 * TRANSCRIPT_TURN_BYTES))))
    assert len(part.content) <= window
