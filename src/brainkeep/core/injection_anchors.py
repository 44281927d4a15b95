"""Anchored matching: a rule's pattern tried only where one of its matches can begin.

Python's regex engine runs a pattern that opens with ``\\b(?:ignore|...)``
by trying every alternative at every position of the text (~500 ns a
character for the larger rules), while a pattern that opens with a literal
is searched in C by that literal (``fastsearch``, ~1 ns a character). So a
rule's pattern is split once, at import, into its top-level alternatives,
and each alternative that opens with literals is cut into *probes*: one per
literal head, the head's option followed by the rest of the alternative,
with the leading ``\\b`` and lookbehinds left out (they are what stops the
literal search). In a long text a probe runs only if its head's words are in
the text at all (a set look-up in the text's words), and each place it
matches is confirmed by matching the whole alternative there. Alternatives
with no literal head (``(?:^|\\n)\\s*...``, ``<``) are kept as one residual
pattern, run as before. The rules stay written as one regex each
(core/injection_rules.py); this is how they run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from types import MappingProxyType

# How a text is cut into words for the gates: lower-case ASCII letters,
# digits, ``_`` and ``'`` (and every UTF-8 byte of a non-ASCII letter) are
# word bytes, everything else separates. One ``bytes.translate`` and one
# ``split`` cost a few ns a character, against a regex pass per rule.
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_'")
WORD_TABLE = bytes(
    c + 32 if 65 <= c <= 90 else (c if c >= 128 or c in _WORD_BYTES else 32) for c in range(256)
)


def words_of(text: str) -> list[bytes]:
    """The gate words of ``text`` (core/injection.py reads a whole text this way, once)."""
    return text.encode("utf-8", "surrogatepass").translate(WORD_TABLE).split()


_META = frozenset("\\()[]{}?*+.|^$")
_QUANT = frozenset("?*{")
# Escapes of letters that stand for one literal character (an escaped
# punctuation mark is itself).
_ESCAPED = MappingProxyType({"n": "\n", "t": "\t"})


@dataclass(frozen=True)
class Anchor:
    """One alternative and the literal words a match of it starts with."""

    pattern: re.Pattern[str]
    # (the head's words for the set test, its probe; None: a match at the text's start)
    probes: tuple[tuple[frozenset[bytes], re.Pattern[str] | None], ...]
    needs: tuple[frozenset[bytes], ...]  # a match holds a word of each (needed_words)


@dataclass(frozen=True)
class Anchored:
    """A pattern as anchored alternatives plus the residual that has no literal head."""

    anchors: tuple[Anchor, ...]
    residual: re.Pattern[str] | None

    @classmethod
    def of(cls, pattern: re.Pattern[str]) -> Anchored:
        anchors: list[Anchor] = []
        rest: list[str] = []
        for alt in split_alternatives(pattern.pattern):
            heads = head_literals(alt)
            if not heads:
                rest.append(alt)
                continue
            # A whole-word head is tried only when its words are in the
            # text; a prefix has no word to look up (an empty set: always).
            anchors.append(Anchor(re.compile(alt, pattern.flags), tuple(
                (frozenset(words_of(literal)) if whole else frozenset(),
                 None if probe is None else re.compile(probe, pattern.flags))
                for literal, whole, probe in heads), needed_words(alt)))
        residual = re.compile("|".join(rest), pattern.flags) if rest else None
        return cls(tuple(anchors), residual)

    def finditer(self, text: str, words: frozenset[bytes]) -> Iterator[re.Match[str]]:
        """Non-overlapping matches in text order, as ``pattern.finditer`` would find them."""
        found: list[re.Match[str]] = []
        for anchor in self.anchors:
            if any(need.isdisjoint(words) for need in anchor.needs):
                continue  # "the" is everywhere, "the real instructions" is not
            for needed, probe in anchor.probes:
                if not needed <= words:
                    continue
                if probe is None:
                    match = anchor.pattern.match(text, 0)
                    if match is not None:
                        found.append(match)
                    continue
                # Every place the probe matches (not only the non-overlapping
                # ones): the whole alternative, lookbehinds and all, may hold
                # at a place inside an earlier probe match.
                hit = probe.search(text)
                while hit is not None:
                    match = anchor.pattern.match(text, hit.start())
                    if match is not None:
                        found.append(match)
                    hit = probe.search(text, hit.start() + 1)
        if self.residual is not None:
            found += self.residual.finditer(text)
        found.sort(key=lambda m: m.start())
        end = -1
        for match in found:
            if match.start() >= end:
                end = max(match.end(), match.start() + 1)
                yield match


def split_alternatives(source: str) -> list[str]:
    """``source`` cut at its top-level ``|`` (not inside a group, a class or an escape)."""
    parts: list[str] = []
    depth, start, i, in_class = 0, 0, 0, False
    while i < len(source):
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if source[i + 1: i + 2] == "]":
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(source[start:i])
            start = i + 1
        i += 1
    parts.append(source[start:])
    return parts


def head_literals(alt: str) -> tuple[tuple[str, bool, str | None], ...]:
    """The literals every match of ``alt`` starts with: (literal, whole word, probe).

    Understood heads: lookbehinds and ``\\b`` first (they do not consume),
    then either a literal or a non-capturing group whose every option opens
    with a literal. A literal cut by a quantifier loses its last character
    ("prompts?" -> "prompt"); a literal not followed by a space, ``\\s``,
    ``\\b`` or the end is only a prefix ("ignor(?:ez|e)"), found by substring
    alone. () when the alternative has no such head (it is run unanchored).

    The probe is the search pattern for the head: ``(?:o1|o2)rest`` is
    ``o1rest|o2rest``, so each option with what follows the group opens with
    its own literal, which the regex engine searches in C. The leading
    ``\\b`` and lookbehinds are left out of it and checked when the whole
    alternative is matched at the probe's place. An ``^`` option has no
    probe (None): it is a match at the text's start.
    """
    rest = _past_assertions(alt)
    if rest is None:
        return ()
    if not rest.startswith("(?:"):
        (literal, whole), _ = _literal(rest, "")
        return ((literal, whole, rest),) if literal else ()
    close = _group_end(rest)
    if close < 0 or rest[close + 1: close + 2] in _QUANT:
        return ()
    after = rest[close + 1:]
    heads: list[tuple[str, bool, str | None]] = []
    for option in split_alternatives(rest[3:close]):
        if option == "^":
            heads.append(("^", False, None))
            continue
        (literal, whole), _ = _literal(option, after)
        if not literal:
            return ()
        heads.append((literal, whole, option + after))
    return tuple(heads)


def _past_assertions(alt: str) -> str | None:
    """``alt`` past its leading ``\\b`` and lookbehinds (they do not consume); None: unreadable."""
    rest = alt
    while True:
        if rest.startswith("\\b"):
            rest = rest[2:]
        elif rest.startswith(("(?<!", "(?<=")):
            close = _group_end(rest)
            if close < 0:
                return None
            rest = rest[close + 1:]
        else:
            return rest


def _literal(text: str, after: str) -> tuple[tuple[str, bool], str]:
    """((the literal ``text`` opens with, whether a word ends there), the rest of ``text``)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        escaped = text[i + 1: i + 2] if c == "\\" else ""
        if escaped and (not escaped.isalnum() or escaped in _ESCAPED):
            out.append(_ESCAPED.get(escaped, escaped))
            i += 2
            continue
        if c in _META:
            if c in _QUANT:
                return ("".join(out[:-1]), False), ""
            return ("".join(out), _ends_word(text[i:])), text[i:]
        out.append(c)
        i += 1
    return ("".join(out), _ends_word(after)), ""


def needed_words(alt: str) -> tuple[frozenset[bytes], ...]:
    """Word sets of which a match of ``alt`` holds one each (a necessary condition).

    Read off the alternative's top level: a group of whole-word options that
    is not optional (``(?:instructions|rules)\\s``), met after anything else.
    An optional element is stepped over: what follows it is still required.
    """
    needed: list[frozenset[bytes]] = []
    i = 0
    while i < len(alt):
        c = alt[i]
        if c == "\\":
            i += 2
        elif c == "[":
            close = alt.find("]", i + 2)
            i = len(alt) if close < 0 else close + 1
        elif c == "(":
            close = _group_end(alt[i:])
            if close < 0:
                break
            end = i + close + 1
            # "s?" after the group: the plural counts too ("(?:ai|llm)s?").
            plural = alt.startswith("s?", end)
            after = alt[end + 2 if plural else end:]
            glued = i > 0 and alt[i - 1].isalnum() and alt[i - 2: i - 1] != "\\"
            if alt.startswith("(?:", i) and after[:1] not in _QUANT | {"+"} and not glued:
                options = [_literal(o, after) for o in split_alternatives(alt[i + 3: end - 1])]
                if all(head and whole and not tail for (head, whole), tail in options):
                    words = {w for (head, _), _ in options for w in words_of(head)[:1]}
                    needed.append(frozenset(words | {w + b"s" for w in words} if plural
                                            else words))
            i = end
        else:
            i += 1
    return tuple(x for x in needed if x)


def _ends_word(follows: str) -> bool:
    return follows == "" or follows.startswith((" ", "\\s", "\\b", ",", ":", ";"))


def _group_end(text: str) -> int:
    """The index of the ``)`` closing the group that opens ``text``, or -1."""
    depth, i, in_class = 0, 0, False
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1
