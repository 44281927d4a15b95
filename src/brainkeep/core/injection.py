"""Write-time injection scoring: one zero-LLM score for every text a write stores.

A memory is text a later agent reads as context, so every write path
(``core/memory/writes.insert`` for MCP ``remember``, gRPC ``Remember`` and
``Consolidate``, the CLI; ``core/pages.PageService`` for ``put_page`` and
imports) asks ``scan`` for a ``Verdict``. A text scoring at or above
``INJECTION_THRESHOLD`` is stored quarantined, never dropped: the
operator reviews it (``brainkeep quarantine``). The rules and their weights
are in ``core/injection_rules.py`` and published in docs/security.md.

Cheap by design (bench/poison_detect.py: well under 0.3 ms per write): an
ASCII text skips every Unicode check, and each rule is one compiled regex.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import filterfalse

from brainkeep.core import injection_rules as r
from brainkeep.core.injection_anchors import WORD_TABLE

# The score at which a write is stored quarantined: one strong rule, or two weak ones.
INJECTION_THRESHOLD = 1.0
# A page or memory longer than this is scored on its head and tail: an
# injection hidden in the middle of a megabyte page is still found by the
# character rules, which read everything.
_PATTERN_WINDOW = 65_536
# In a text longer than this a rule's pattern is tried only where one of its
# alternatives' literal heads occurs (core/injection_anchors.py): Python's
# regex engine tries every alternative at every position, so one pass per
# rule over a 4,000-character fact would cost milliseconds. The matches are
# the same; a short text is cheaper matched in one pass.
_LONG = 1024


@dataclass(frozen=True)
class Verdict:
    """How a text scored: the total, the rules that fired, and whether to quarantine."""

    score: float
    rules: tuple[str, ...]

    @property
    def quarantined(self) -> bool:
        return self.score >= INJECTION_THRESHOLD


CLEAN = Verdict(0.0, ())


def scan(text: str) -> Verdict:
    """Score ``text`` against every rule (docs/security.md).

    Returns:
        The verdict: ``score`` (sum of the weights of the rules that fired,
        rounded to 2 places), ``rules`` (their ids, in rule order) and
        ``quarantined`` (score >= ``INJECTION_THRESHOLD``).
    """
    hits: dict[str, float] = {}
    folded = text
    # One C-speed scan for any character a character rule counts or the
    # folding maps; accents and dashes (the usual non-ASCII) find none, and
    # such a text needs only NFKC.
    if not text.isascii():
        if r.SUSPECT_CHARS.search(text) is None:
            folded = unicodedata.normalize("NFKC", text)
        else:
            hidden = r.HIDDEN_CHARS.search(text) is not None
            _characters(text, hidden, hits)
            folded = _fold(text, hidden)
    if len(folded) > 2 * _PATTERN_WINDOW:
        folded = folded[:_PATTERN_WINDOW] + "\n" + folded[-_PATTERN_WINDOW:]
    data = folded.encode("utf-8", "surrogatepass")
    # Two bytes.translate passes (~1 ns a byte): a base64 run needs 80
    # base64 bytes in a row, and the gates need the text's words.
    runs = data.translate(r.BASE64_TABLE)
    if r.BASE64_SEED in runs:
        _base64(folded, data, runs, hits)
    _patterns(folded.lower(), frozenset(data.translate(WORD_TABLE).split()), hits)
    if not hits:
        return CLEAN
    return Verdict(round(sum(hits.values()), 2), tuple(hits))


def _fold(text: str, hidden: bool) -> str:
    """The text the pattern rules read: invisible characters out, NFKC, homoglyphs to Latin."""
    folded = unicodedata.normalize("NFKC", r.HIDDEN_CHARS.sub("", text) if hidden else text)
    # str.translate with a dict walks every character in Python-object steps
    # (~150 ns each): only the runs of look-alikes are translated.
    return r.CONFUSABLE_RUNS.sub(_unconfuse, folded)


def _unconfuse(match: re.Match[str]) -> str:
    return match.group().translate(r.CONFUSABLES)


def _quoted(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` lies inside one quoted span (``QUOTED``).

    A quoted span holds no line break but as its first character (the space
    before a single quote), so the spans of the match's own line are those a
    scan of the whole text finds there: only that line is scanned.
    """
    if "\n" in text[start + 1:end]:
        return False
    line = max(text.rfind("\n", 0, start), 0)
    stop = text.find("\n", end)
    return any(a <= start and end <= b for a, b in (
        m.span() for m in r.QUOTED.finditer(text, line, len(text) if stop < 0 else stop)))


def _patterns(text: str, words: frozenset[bytes], hits: dict[str, float]) -> None:
    """The pattern rules over ``text`` (lower-cased: the patterns are written in lower case).

    ``words`` are the text's words (injection_anchors.words_of): each gate is
    a few set look-ups instead of a substring search of the whole text.
    """
    discussed: bool | None = None
    for rule in r.PATTERN_RULES:
        if not rule.opened_by(words, text):
            continue
        if rule.prefilter is not None and rule.prefilter.search(text) is None:
            continue
        weight = 0.0
        for match in _matches(rule, text, words):
            factor = 1.0
            if rule.directive:
                start, end = match.span()
                if _quoted(text, start, end):
                    factor = r.MENTION_QUOTED
                else:
                    if discussed is None:
                        discussed = r.DISCUSSION.search(text) is not None
                    if discussed and not _speaks_to_reader(text, start, end):
                        factor = r.MENTION_DISCUSSED
            # Matches add up: a note may quote one phrase, an attack repeats itself.
            weight = min(rule.weight, weight + rule.weight * factor)
            if weight >= rule.weight:
                break
        if weight:
            hits[rule.id] = weight


def _matches(rule: r.PatternRule, text: str,
             words: frozenset[bytes]) -> Iterator[re.Match[str]]:
    """The rule's matches: one regex pass over a short text, anchored ones in a long one."""
    if len(text) <= _LONG:
        return rule.pattern.finditer(text)
    return rule.anchored.finditer(text, words)


def _speaks_to_reader(text: str, start: int, end: int) -> bool:
    """Whether the sentence holding ``text[start:end]`` says "you" or "your"."""
    head = text.rfind("\n", 0, start)
    for mark in ".!?":
        head = max(head, text.rfind(mark, 0, start))
    tail = r.SENTENCE_END.search(text, end)
    sentence = text[head + 1: tail.start() if tail else len(text)]
    return r.SECOND_PERSON.search(sentence) is not None


def _base64(text: str, data: bytes, runs: bytes, hits: dict[str, float]) -> None:
    """The longest encoded-looking run (``data``: text's UTF-8; ``runs``: it by BASE64_TABLE)."""
    longest = 0
    at = runs.find(r.BASE64_SEED)
    while at != -1:
        start = runs.rfind(b" ", 0, at) + 1
        end = runs.find(b" ", at)
        # A run's bytes are ASCII: its place in the text is the length of what precedes it.
        place = start if len(data) == len(text) else len(
            data[:start].decode("utf-8", "surrogatepass"))
        match = r.BASE64_RUN.match(text, place)
        at = -1 if end == -1 else runs.find(r.BASE64_SEED, end)
        if match is None:
            continue
        run = match.group()
        if r.HEX_ONLY.fullmatch(run.rstrip("=")) or "://" in text[max(0, place - 8): place]:
            continue
        if run.lower() == run or run.upper() == run or not any(c.isdigit() for c in run):
            continue  # a word-like run (a long path or identifier), not an encoding
        longest = max(longest, len(run))
    if longest:
        hits["base64_blob"] = 1.0 if longest >= r.BASE64_STRONG else 0.5


def _characters(text: str, hidden: bool, hits: dict[str, float]) -> None:
    """The character rules (``hidden``: whether HIDDEN_CHARS found a bidi or invisible one)."""
    if hidden:
        if r.BIDI_CHARS.search(text):
            hits["bidi_control"] = 1.0
        invisible = len(r.INVISIBLE_CHARS.findall(text)) - text.startswith("\ufeff")
        if invisible > 0:
            hits["invisible"] = 1.0 if invisible >= r.INVISIBLE_STRONG else 0.5
    homoglyph = _homoglyph_weight(text)
    if homoglyph:
        hits["homoglyph"] = homoglyph


def _homoglyph_weight(text: str) -> float:
    # Accents and dashes are the usual non-ASCII: one C-speed scan for a
    # Greek, Cyrillic or styled letter spares the word-by-word loop.
    if r.MIXABLE_SCRIPTS.search(text) is None:
        return 0.0
    weight = 0.0
    for word in filterfalse(str.isascii, text.split()):
        scripts: set[str] = set()
        for c in word:
            if not c.isalpha():
                continue
            code = ord(c)
            if c.isascii():
                scripts.add("latin")
            elif 0x0400 <= code <= 0x04FF:
                scripts.add("cyrillic")
            elif 0x0370 <= code <= 0x03FF and c not in r.GREEK_SYMBOLS:
                scripts.add("greek")
            elif 0xFF21 <= code <= 0xFF5A or 0x1D400 <= code <= 0x1D7FF:
                scripts.add("styled")
        if "latin" in scripts and "cyrillic" in scripts:
            return 1.0
        if "styled" in scripts or ("latin" in scripts and "greek" in scripts):
            weight = 0.5
    return weight
