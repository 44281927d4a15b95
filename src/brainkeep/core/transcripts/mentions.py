"""Which known entities a text names: the entity pages' titles and aliases.

The index is built once per import from the brain's entity pages (every
type but notes and transcripts; world pages only: ``Store.entity_names``)
and matched by words, longest name first, in one pass over the text: a
dictionary lookup per word, so a 50 MB export is not scanned once per
entity. A one-word name must be capitalized in the text
("Rust", not "rust"), so common words that happen to title a page do not
link every transcript to it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from brainkeep.core.slugs import normalize_alias, strip_accents

SKIPPED_TYPES = frozenset({"note", "transcript"})
MIN_NAME_CHARS = 3
MAX_NAME_WORDS = 6
_WORD = re.compile(r"[A-Za-z0-9]+")


@dataclass
class EntityIndex:
    """Normalized names -> (slug, display name); and each name's first word."""

    names: dict[str, tuple[str, str]] = field(default_factory=dict)
    first_words: dict[str, int] = field(default_factory=dict)  # word -> longest name (words)

    def add(self, slug: str, name: str, display: str) -> None:
        norm = normalize_alias(name)
        words = norm.split()
        if len(norm) < MIN_NAME_CHARS or not words or len(words) > MAX_NAME_WORDS:
            return
        self.names.setdefault(norm, (slug, display))
        self.first_words[words[0]] = max(self.first_words.get(words[0], 0), len(words))

    @classmethod
    def from_names(cls, rows: Iterable[tuple[str, str, str]]) -> EntityIndex:
        """From ``Store.entity_names`` rows: (slug, title, normalized name)."""
        index = cls()
        for slug, title, name in rows:
            index.add(slug, name, title)
        return index

    def __bool__(self) -> bool:
        return bool(self.names)

    def find(self, text: str) -> list[tuple[str, str]]:
        """The (slug, name) of each entity ``text`` names, in order of first mention."""
        if not self.names:
            return []
        folded = text if text.isascii() else strip_accents(text)
        lowered = _WORD.findall(folded.lower())
        # Most text names no entity: one set intersection (in C) says so.
        if self.first_words.keys().isdisjoint(lowered):
            return []
        tokens: list[str] = []  # the original spelling, read only for one-word names
        first_words = self.first_words
        found: dict[str, str] = {}
        i, count = 0, len(lowered)
        while i < count:
            longest = first_words.get(lowered[i])
            if not longest:
                i += 1
                continue
            step = 1
            for n in range(min(longest, count - i), 0, -1):
                hit = self.names.get(" ".join(lowered[i:i + n]) if n > 1 else lowered[i])
                if hit is None:
                    continue
                if n == 1:
                    tokens = tokens or _WORD.findall(folded)
                    if not (tokens[i][0].isupper() or tokens[i][0].isdigit()):
                        continue
                found.setdefault(hit[0], hit[1])
                step = n
                break
            i += step
        return list(found.items())
