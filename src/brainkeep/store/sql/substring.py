"""Substring filters ("grep") over memory text: the rule both engines follow.

MCP ``recall`` with ``grep``, gRPC ``exact`` recall and the ``as_of`` lexical
scan select memories whose text contains a needle (case-insensitive, as
``lower()`` folds in each engine). Each engine answers a needle of
``MIN_INDEXED`` or more characters through a trigram index (SQLite: an FTS5
trigram table, migration 0013; PostgreSQL: a GIN index over the text's
trigrams, migration 0013) and rechecks the exact predicate, so the results
are those of a full scan without reading every row.

A needle shorter than ``MIN_INDEXED`` has no trigram to look up. It is
matched against the newest ``SHORT_WINDOW`` memories that pass every other
filter (read scope, lifecycle, entity, since, session, kind) and no further:
the cost stays bounded whatever the brain's size, and in a brain (or a
filtered view) of up to ``SHORT_WINDOW`` memories the answer is the full one
(docs/search.md, "Grep").
"""

from __future__ import annotations

from collections.abc import Sequence

# A trigram index can only look up needles of at least three characters.
MIN_INDEXED = 3
# Memories a short needle is matched against (newest first, after the other filters).
SHORT_WINDOW = 5_000


def indexed(needles: Sequence[str]) -> bool:
    """Whether every needle can be looked up in a trigram index.

    NUL never reaches an index query: FTS5 query strings end at it.
    """
    return bool(needles) and all(len(n) >= MIN_INDEXED and "\x00" not in n for n in needles)
