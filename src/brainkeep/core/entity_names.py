"""Name shapes that point at one page without naming it: a leading part, a typo.

Pure string rules on ``normalize_alias`` forms (lowercase ASCII words), used
by ``core.entity_resolution`` after the exact tiers (alias, title, slug) found
nothing. Both err towards "not the same name": a fact glued to the wrong
person is worse than one filed under a new slug with a "did you mean" note.

* A **leading part** is the first word(s) of a title or alias: "Alice" of
  "Alice Chen", "Northwind" of "Northwind Robotics". Never a later word
  ("Chen" is not taken for "Alice Chen"): surnames and generic words
  ("Robotics") name too many things.
* A **typo** is one slip of the keyboard in one word of a long name
  (``TYPO_MIN_LETTERS``), every other word spelt right: two neighbouring
  letters swapped ("Alcie"); or, first and last letters kept, an inner
  letter replaced by a key next to it ("Chwn"), a key pressed twice
  ("Allice"), or in a long word (``TYPO_LONG_WORD``) an inner letter
  dropped or added ("Dmtri"). Edits that make another real name are
  refused: a changed first or last letter ("Chen" / "Cheng", "Hans" /
  "Hana"), a dropped letter in a short word ("Diana" / "Dana", "Anna" /
  "Ana"), vowel for vowel in a short word ("Lina" / "Luna"), and anything in
  a word with digits ("2025" / "2026"). The caller also refuses a typed word
  that is itself a word of some other page's name (``Kirsten`` when the brain
  has a Kirsten): that is a real name, not a slip. What is left can still be
  a real, different name ("Kristen" typed when the page is Kirsten, "Marin"
  for Martin): such a fact lands on the page, and the response's note says
  which name it was taken for.
"""

from __future__ import annotations

TYPO_MIN_LETTERS = 8  # letters of the whole name (spaces not counted)
TYPO_MIN_WORD = 4  # the word with the slip (as the page spells it) has at least this many
TYPO_LONG_WORD = 6  # from this length also a dropped or added letter, or vowel for vowel
_VOWELS = frozenset("aeiouy")
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def _neighbours() -> dict[str, frozenset[str]]:
    # A staggered QWERTY: key (row r, column c) touches c±1 on its row,
    # c and c+1 on the row above, c-1 and c on the row below.
    found: dict[str, set[str]] = {}
    for r, row in enumerate(_ROWS):
        for c, key in enumerate(row):
            near = found.setdefault(key, set())
            for rr, cols in ((r, (c - 1, c + 1)), (r - 1, (c, c + 1)), (r + 1, (c - 1, c))):
                if 0 <= rr < len(_ROWS):
                    near.update(_ROWS[rr][cc] for cc in cols if 0 <= cc < len(_ROWS[rr]))
    return {key: frozenset(near) for key, near in found.items()}


NEIGHBOURS = _neighbours()


def is_leading_part(typed: list[str], name: list[str]) -> bool:
    """Whether the words ``typed`` are the first words of ``name`` (and not all of it)."""
    return 0 < len(typed) < len(name) and name[: len(typed)] == typed


def typo_word(typed: str, name: str) -> str | None:
    """The mistyped word if ``typed`` is ``name`` with one typo (both normalized), else None.

    ``typed`` and ``name`` must have the same words except one, which
    ``word_typo`` accepts; ``name`` must have ``TYPO_MIN_LETTERS`` letters.
    """
    typed_words, name_words = typed.split(), name.split()
    if len(typed_words) != len(name_words) or len(name.replace(" ", "")) < TYPO_MIN_LETTERS:
        return None
    differ = [(a, b) for a, b in zip(typed_words, name_words, strict=True) if a != b]
    if len(differ) != 1 or not word_typo(*differ[0]):
        return None
    return differ[0][0]


def word_typo(typed: str, word: str) -> bool:
    """Whether ``typed`` is ``word`` with one keyboard slip the module docstring allows."""
    if len(word) < TYPO_MIN_WORD or not (typed.isalpha() and word.isalpha()):
        return False
    if typed[0] != word[0] and typed[:2] != word[1::-1]:
        return False  # a new first letter (only a swap of the first two may move it)
    long_word = len(word) >= TYPO_LONG_WORD
    if len(typed) == len(word):
        at = [i for i, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
        if len(at) == 2:
            i, j = at
            return j == i + 1 and typed[i] == word[j] and typed[j] == word[i]
        if len(at) != 1 or not 0 < at[0] < len(word) - 1:
            return False
        a, b = typed[at[0]], word[at[0]]
        return b in NEIGHBOURS.get(a, frozenset()) and (
            long_word or not (a in _VOWELS and b in _VOWELS))
    if abs(len(typed) - len(word)) != 1 or typed[-1] != word[-1]:
        return False
    if len(typed) > len(word):  # one letter added: a doubled key anywhere inside, else long
        inner = range(1, len(typed) - 1)
        fits = [i for i in inner if typed[:i] + typed[i + 1:] == word]
        return any(typed[i] in (typed[i - 1], typed[i + 1]) for i in fits) or (
            long_word and bool(fits))
    return long_word and any(word[:i] + word[i + 1:] == typed for i in range(1, len(word) - 1))
