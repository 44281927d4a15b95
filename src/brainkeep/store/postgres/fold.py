"""Accent folding of the ``tsv`` columns, derived from core's one folding rule.

Core folds query terms with ``core.slugs.strip_accents`` (NFKD, combining
marks dropped); SQLite's FTS5 folds documents with ``remove_diacritics``.
PostgreSQL's 'simple' configuration folds nothing, and the ``unaccent``
extension may not be installed on a managed server, so migration 0001
defines ``brainkeep_fold(text)``: an IMMUTABLE SQL function (usable in the
generated ``tsv`` columns) built from ``translate()`` and ``replace()`` of
the fixed table below. The table IS ``strip_accents`` applied to every
character of Latin-1 Supplement and Latin Extended-A (U+00A0–U+017F), plus
the combining marks (U+0300–U+036F) that a decomposed text carries, which
are deleted. ``fold_function_sql()`` renders the SQL; a test checks the
migration holds exactly that text and that the server's function agrees
with ``strip_accents`` on every character of the table.

Outside the table (Latin Extended-B, Vietnamese, Greek tonos, ...) a
document is not folded while its query is: such words match only when
typed as stored. Pure ASCII text skips the translation (the common case
costs one length comparison per write).
"""

from __future__ import annotations

import unicodedata

from brainkeep.core.slugs import strip_accents

# Latin-1 Supplement + Latin Extended-A, and the combining diacritical marks.
FOLDED_RANGES = (range(0x00A0, 0x0180), range(0x0300, 0x0370))


def fold_table() -> dict[str, str]:
    """Every character of ``FOLDED_RANGES`` that ``strip_accents`` changes -> its folding."""
    table: dict[str, str] = {}
    for block in FOLDED_RANGES:
        for cp in block:
            char = chr(cp)
            folded = strip_accents(char)
            if folded != char:
                table[char] = folded
    return table


def fold(text: str) -> str:
    """What ``brainkeep_fold`` returns for ``text`` (the table only, as the server does)."""
    if text.isascii():
        return text
    table = fold_table()
    return "".join(table.get(c, c) for c in text)


def _literal(text: str) -> str:
    # Marks, spaces and controls are invisible in an editor: escape them
    # (U&'\\XXXX'); letters stay readable. No quote or backslash is in the table.
    if all(map(_visible, text)):
        return f"'{text}'"
    return "U&'" + "".join(c if _visible(c) else f"\\{ord(c):04X}" for c in text) + "'"


def _visible(char: str) -> bool:
    return char == " " or unicodedata.category(char)[0] in "LNPS"


def fold_function_sql() -> str:
    """The ``CREATE FUNCTION brainkeep_fold`` statement of migration 0001."""
    table = fold_table()
    # translate() maps one character to one (or deletes it: `from` longer
    # than `to`); the few characters folding to several go through replace().
    single = {c: f for c, f in table.items() if len(f) == 1}
    deleted = [c for c, f in table.items() if f == ""]
    multi = {c: f for c, f in table.items() if len(f) > 1}
    expr = (f"translate(t, {_literal(''.join(single) + ''.join(deleted))}, "
            f"{_literal(''.join(single.values()))})")
    for char, folded in multi.items():
        expr = f"replace({expr}, {_literal(char)}, {_literal(folded)})"
    return (
        "CREATE FUNCTION brainkeep_fold(t text) RETURNS text\n"
        "LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$\n"
        f"  SELECT CASE WHEN octet_length(t) = char_length(t) THEN t ELSE\n  {expr} END\n$$;"
    )


if __name__ == "__main__":  # python -m brainkeep.store.postgres.fold: print the SQL
    print(fold_function_sql())
