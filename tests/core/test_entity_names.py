"""The name shapes a fact's entity may take for a page it does not name exactly."""

from __future__ import annotations

import pytest

from brainkeep.core.entity_names import NEIGHBOURS, is_leading_part, typo_word, word_typo


@pytest.mark.parametrize(("typed", "word"), [
    ("alcie", "alice"),       # two neighbours swapped
    ("laice", "alice"),       # ... the first two too
    ("chne", "chen"),         # ... the last two too
    ("chwn", "chen"),         # a neighbouring key inside the word
    ("allice", "alice"),      # a key pressed twice
    ("cheen", "chen"),
    ("dmtri", "dmitri"),      # a dropped letter in a long word
    ("underhull", "underhill"),  # vowel for vowel, neighbouring keys, long word
])
def test_keyboard_slips_are_typos(typed: str, word: str) -> None:
    assert word_typo(typed, word)


@pytest.mark.parametrize(("typed", "word"), [
    ("alicia", "alice"),      # two letters
    ("cheng", "chen"),        # a letter added at the end
    ("chan", "chen"),         # vowel for a vowel that is no neighbour
    ("luna", "lina"),         # neighbouring vowels in a short word: another name
    ("hana", "hans"),         # the last letter
    ("shen", "chen"),         # the first letter
    ("dana", "diana"),        # a letter dropped from a short word
    ("ana", "anna"),
    ("alce", "alice"),
    ("2026", "2025"),         # digits are never a typo
    ("bo", "bob"),            # too short
])
def test_other_names_are_not_typos(typed: str, word: str) -> None:
    assert not word_typo(typed, word)


def test_a_typo_needs_a_long_name_and_every_other_word_right() -> None:
    assert typo_word("alcie chen", "alice chen") == "alcie"
    assert typo_word("alcie", "alice") is None  # 5 letters: too short to guess
    assert typo_word("alcie chan", "alice chen") is None  # two words differ
    assert typo_word("alcie chen wu", "alice chen") is None


def test_a_leading_part_is_the_first_words_only() -> None:
    assert is_leading_part(["alice"], ["alice", "chen"])
    assert is_leading_part(["northwind"], ["northwind", "robotics"])
    assert not is_leading_part(["chen"], ["alice", "chen"])
    assert not is_leading_part(["alice", "chen"], ["alice", "chen"])  # the whole name
    assert not is_leading_part(["ali"], ["alice", "chen"])  # words, not letters


def test_neighbours_follow_the_keyboard() -> None:
    assert NEIGHBOURS["s"] == frozenset("awedxz")
    assert NEIGHBOURS["e"] == frozenset("wrsd")
    assert "a" not in NEIGHBOURS["e"]
