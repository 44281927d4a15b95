"""A fact's duplicate key folds whitespace and case only (issue 10 item 10).

The old key was the alias normaliser, which drops every non-alphanumeric
character: "Account balance is -500 EUR" then "... 500 EUR" answered
`duplicate` and the second fact was lost. Signs, digit punctuation, symbols
and accents are meaning; only spacing and letter case are not.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.context import LOCAL
from brainkeep.core.memory.facts import SimilarFact, normalize_fact, same_text
from brainkeep.core.models import Memory, MemoryDraft
from brainkeep.core.slugs import normalize_alias
from brainkeep.store.sqlite.engine import SQLiteEngine, _statements

DISTINCT = [
    ("Account balance is -500 EUR", "Account balance is 500 EUR"),
    ("Alice writes C++", "Alice writes C"),
    ("The flag is +", "The flag is -"),
    ("Standup at 10:30", "Standup at 10.30"),
    ("Rate is 1,5%", "Rate is 15%"),
    ("Area is 10 m²", "Area is 10 m2"),  # NFKC would merge these
    ("Il a un résumé", "Il a un resume"),
    ("x = a/b", "x = a b"),
]
SAME = [
    ("Account balance is -500 EUR", "  account   BALANCE is -500 eur "),
    ("Tabs\tand\nnewlines", "tabs and newlines"),
    ("Die Straße", "DIE STRASSE"),  # full Unicode casefold, not lower()
    ("Zoë " + "\u00a0" + "likes tea", "zoë likes tea"),  # NBSP is whitespace
    (unicodedata.normalize("NFC", "Zoë"), unicodedata.normalize("NFD", "ZOË")),
]


@pytest.mark.parametrize(("a", "b"), DISTINCT)
def test_meaningful_characters_keep_facts_apart(a: str, b: str) -> None:
    assert normalize_fact(a) != normalize_fact(b)
    assert not same_text(a, b)


@pytest.mark.parametrize(("a", "b"), SAME)
def test_whitespace_and_case_fold(a: str, b: str) -> None:
    assert normalize_fact(a) == normalize_fact(b)


def test_aliases_keep_their_own_normaliser() -> None:
    """normalize_alias is untouched: names still fold punctuation and accents."""
    assert normalize_alias("Dr. Zoë O'Brien-Smith") == "dr zoe o brien smith"


@pytest.mark.parametrize(("first", "second"), DISTINCT)
def test_remember_stores_both_facts(brain: Brain, first: str, second: str) -> None:
    a = brain.facts.remember(first, "test", LOCAL, entity="people/alice")
    b = brain.facts.remember(second, "test", LOCAL, entity="people/alice")
    assert (a.status, b.status) == ("inserted", "inserted")
    assert b.memory.id != a.memory.id
    texts = {m.text for m in brain.facts.list_facts(LOCAL, entity="people/alice")}
    assert texts == {first, second}


def test_restated_fact_is_still_a_duplicate(brain: Brain) -> None:
    a = brain.facts.remember("Account balance is -500 EUR", "test", LOCAL, entity="people/alice")
    b = brain.facts.remember("account balance  is -500 EUR", "test", LOCAL, entity="people/alice")
    assert (b.status, b.memory.id) == ("duplicate", a.memory.id)


class AlwaysNearest:
    """A similarity seam that calls the last stored fact a perfect match (cosine 1.0)."""

    def __init__(self) -> None:
        self.last: Memory | None = None

    def prepare(self, draft: MemoryDraft, caller: Any, now: str) -> object:
        return object()

    def nearest(self, draft: MemoryDraft, prepared: Any, caller: Any, now: str
                ) -> SimilarFact | None:
        return SimilarFact(self.last, 1.0) if self.last is not None else None

    def index(self, memory: Memory, prepared: Any) -> None:
        self.last = memory


def test_similarity_dedup_supersedes_instead_of_swallowing(brain: Brain) -> None:
    """Even at cosine 1.0 a sign flip is new text: it supersedes, never `duplicate`."""
    facts = dataclasses.replace(brain.facts, similarity=AlwaysNearest())
    old = facts.remember("Account balance is -500 EUR", "test", LOCAL, entity="people/alice")
    new = facts.remember("Account balance is 500 EUR", "test", LOCAL, entity="people/alice")
    assert new.status == "superseded"
    assert new.superseded is not None and new.superseded.id == old.memory.id
    assert [m.text for m in facts.list_facts(LOCAL, entity="people/alice")] == [
        "Account balance is 500 EUR"
    ]


def build_v8_brain(home: Path) -> None:
    """A brain as migration 0008 left it, its keys made by the old normaliser."""
    home.mkdir(parents=True)
    conn = sqlite3.connect(home / "brain.db")
    try:
        with conn:
            conn.execute(
                "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                "name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            for version, name, sql in SQLiteEngine.available_migrations():
                if version > 8:
                    break
                for statement in _statements(sql):
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_migrations VALUES (?, ?, '2025-01-01')",
                             (version, name))
            conn.execute("INSERT INTO sources VALUES ('default', 'default', '2025-01-01')")
            rows = [
                (1, "Account balance is -500 EUR", normalize_alias("Account balance is -500 EUR"),
                 None),
                (2, "Alice prefers e-mail.", normalize_alias("Alice prefers e-mail."), None),
                (3, "[redacted]", "", "2025-01-02T00:00:00.000000Z"),
            ]
            for memory_id, text, key, redacted_at in rows:
                conn.execute(
                    "INSERT INTO memories (id, uuid, source_id, text, normalized_text, "
                    "entity_slug, provenance, created_at, updated_at, content_hash, redacted_at) "
                    "VALUES (?, ?, 'default', ?, ?, 'people/alice', 'v8 era', "
                    "'2025-01-01T00:00:00.000000Z', '2025-01-01T00:00:00.000000Z', ?, ?)",
                    (memory_id, f"01940000-0000-7000-8000-00000000000{memory_id}", text, key,
                     f"hash{memory_id}", redacted_at),
                )
    finally:
        conn.close()


def keys(db: Path) -> dict[int, str]:
    conn = sqlite3.connect(db)
    try:
        return dict(conn.execute("SELECT id, normalized_text FROM memories").fetchall())
    finally:
        conn.close()


def test_migration_recomputes_old_keys(tmp_path: Path) -> None:
    home = tmp_path / "old"
    build_v8_brain(home)
    assert keys(home / "brain.db")[1] == "account balance is 500 eur"  # the lossy old key

    brain = open_brain(load_settings(home, env={}))
    try:
        assert keys(home / "brain.db") == {
            1: "account balance is -500 eur",
            2: "alice prefers e-mail.",
            3: "",  # a redacted row never becomes matchable
        }
        # A restated old fact still finds its row ...
        again = brain.facts.remember("account balance is -500 eur", "t", LOCAL,
                                     entity="people/alice")
        assert (again.status, again.memory.id) == ("duplicate", 1)
        # ... and the fact the old key swallowed is stored now.
        flipped = brain.facts.remember("Account balance is 500 EUR", "t", LOCAL,
                                       entity="people/alice")
        assert flipped.status == "inserted"
    finally:
        brain.close()
