"""Query terms reduced exactly the way the brain's FTS5 tokenizer indexes them.

The full-text tables stem (``porter``, migration 0011), so their fts5vocab
views list stems ("run", "activ"), while core hands over whole words
("running", "activities"). Looking a word up unstemmed finds no row, and the
planner then drops it as unmatchable. Rather than re-implement FTS5's Porter
stemmer in Python (any disagreement would silently drop terms), the words are
run through the same tokenizer: a private in-memory FTS5 table and its
``instance`` vocabulary, which reports each indexed token by row.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable

# The tokenizer of chunks_fts, pages_fts and memories_fts (migration 0011).
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"
STEM_CACHE_SIZE = 50_000


class TermStems:
    """word -> the tokens FTS5 indexes it as (usually one stem; ``foo_bar`` gives two)."""

    def __init__(self, tokenizer: str = FTS_TOKENIZER) -> None:
        # One connection for the process, guarded by a lock: stemming a few
        # words is microseconds, and the cache below serves repeats.
        self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._db.execute(f"CREATE VIRTUAL TABLE probe USING fts5 (t, tokenize = '{tokenizer}')")
        self._db.execute("CREATE VIRTUAL TABLE probe_tokens USING fts5vocab(probe, instance)")
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[str, ...]] = {}

    def tokens(self, words: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """Each word's indexed tokens, in order (empty: the tokenizer keeps nothing of it)."""
        words = list(dict.fromkeys(words))
        cache = self._cache
        known = {w: hit for w in words if (hit := cache.get(w)) is not None}
        missing = [w for w in words if w not in known]
        if missing:
            fresh = self._tokenize(missing)
            if len(cache) > STEM_CACHE_SIZE:
                cache.clear()
            cache.update(fresh)
            known.update(fresh)
        return {w: known[w] for w in words}

    def _tokenize(self, words: list[str]) -> dict[str, tuple[str, ...]]:
        found: dict[int, list[str]] = {i: [] for i in range(1, len(words) + 1)}
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany(
                    "INSERT INTO probe (rowid, t) VALUES (?, ?)", list(enumerate(words, start=1))
                )
                rows = self._db.execute(
                    "SELECT doc, term FROM probe_tokens ORDER BY doc, offset"
                ).fetchall()
            finally:
                # Nothing is ever kept: the table only exists to run the tokenizer.
                self._db.execute("ROLLBACK")
        for doc, term in rows:
            found[int(doc)].append(str(term))
        return {word: tuple(found[i]) for i, word in enumerate(words, start=1)}


_shared: TermStems | None = None
_shared_lock = threading.Lock()


def shared_stems() -> TermStems:
    """The process-wide stemmer (every brain of a process uses the same tokenizer)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = TermStems()
        return _shared
