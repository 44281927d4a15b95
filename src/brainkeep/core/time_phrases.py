"""Time phrases in text ("last week", "in March", "on 12 June 2026") as day windows.

One grammar serves both sides of time-aware recall (``core/time_recall.py``):
a query's phrases are resolved against the caller's clock, and the phrases a
stored text states ("Caroline (8 May 2023): ... yesterday") against that
text's own date, so "when did she go?" meets "yesterday" as 7 May 2023.
Windows are whole days, ``[start, end)``; nothing here reads the brain.

A phrase that names a month or a day without a year ("in June", "on 12
June") cannot be pinned to one year from the words alone: it is kept
year-free (``any_year``) and matches that month or day in every year, which
is why recall only ever *boosts* with these windows, never filters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}  # first month
_WEEKDAY_ALT = "|".join(d[:3] + f"(?:{d[3:]}|{d[3]}|{d[3:5]})?" for d in WEEKDAYS)
_MONTH_ALT = "|".join(m[:3] + (m[3:] and f"(?:{m[3:]})?") for m in MONTHS)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_FEW = r"(?:a\s+)?(?:few|couple(?:\s+of)?|several)"
_COUNT = r"(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_M = rf"({_MONTH_ALT})\.?"

# What the regexes' IGNORECASE takes for an ASCII letter besides its other
# case: "thıs week" (dotless ı), "laſt week" (long s), the Kelvin sign for k.
# Matched words are folded with it before they are looked up, so such a text
# resolves instead of raising.
_FOLD = (("\u0130", "i"), ("\u0131", "i"), ("\u017f", "s"), ("\u212a", "k"))


def fold(text: str) -> str:
    """``text`` in lower case with ``_FOLD`` applied: what IGNORECASE would match it as."""
    # str.replace, not translate with a table: translate walks every
    # character in Python-object steps, and an ASCII text needs no folding.
    if not text.isascii():
        for odd, plain in _FOLD:
            if odd in text:
                text = text.replace(odd, plain)
    return text.lower()


# Each pattern comes with gates: something every match of it contains (a
# digit, a month's name, "ago"), checked first with a plain substring test
# on the folded text, so a text without, say, any month name is not walked by
# the six month patterns. A gate only skips scans that could not match, so
# what is found is the same.
_DIGIT = re.compile(r"\d")
_YEAR_DIGITS = re.compile(r"(?:19|20)\d\d")
_GATE_WORDS: dict[str, tuple[str, ...]] = {
    "season": tuple(SEASONS),
    "ago": ("ago",),
    "relative": ("last", "this", "next", "past"),
    "day_word": ("yesterday", "today", "tonight", "tomorrow", "last", "this"),
    "dash": ("-",),
}
# Month and weekday names are gated by the text's runs of letters, not by
# substrings: "dec" is in "decide", "mon" in "month", "nov" in "Novak". A
# match always holds its name as a whole run ("june", "jun", "fri", "frid"),
# or after "mid" ("in midjune"), since the patterns put a word boundary,
# white space or a dot on both sides of it.
_LETTER_RUNS = re.compile(r"[a-z]+")
_MONTH_FORMS = frozenset(f for m in MONTHS for f in (m, m[:3]))
_WEEKDAY_FORMS = frozenset(f for d in WEEKDAYS for f in (d, d[:3], d[:4], d[:5]))


def _gate_open(gate: str, text: str, lowered: str, runs: frozenset[str]) -> bool:
    if gate == "digit":
        return _DIGIT.search(text) is not None
    if gate == "year":  # a substring test first: the regex walks a text without one
        return ("19" in text or "20" in text) and _YEAR_DIGITS.search(text) is not None
    if gate == "month":
        return not runs.isdisjoint(_MONTH_FORMS) or any(
            r.startswith("mid") and r[3:] in _MONTH_FORMS for r in runs)
    if gate == "weekday":
        return not runs.isdisjoint(_WEEKDAY_FORMS)
    return any(map(lowered.__contains__, _GATE_WORDS[gate]))


# Most specific first: a span claimed by one pattern is not read again by a
# later one ("12 June 2023" is one day, not also "June 2023" and "2023").
# Each is compiled twice: case-sensitive, for the folded text (lower case,
# ``_FOLD`` applied), which the regex engine walks ~1.6x faster than it walks
# the same text with IGNORECASE; and with IGNORECASE for the rare text whose
# lower case has another length (then positions would not line up).
_GRAMMAR = (
        ("iso", r"\b(\d{4})-(\d{2})-(\d{2})\b", ("dash", "digit")),
        ("day_month_year", rf"\b{_DAY}\s+(?:of\s+)?{_M},?\s+{_YEAR}\b",
         ("year", "month")),
        ("month_day_year", rf"\b{_M}\s+{_DAY},?\s+{_YEAR}\b", ("year", "month")),
        ("day_month", rf"\b{_DAY}\s+(?:of\s+)?{_M}\b", ("digit", "month")),
        ("month_day", rf"\b{_M}\s+{_DAY}\b(?!\s*(?:[:.]\d|am\b|pm\b))",
         ("digit", "month")),
        ("month_year", rf"\b{_M},?\s+(?:of\s+)?{_YEAR}\b", ("year", "month")),
        ("ago", rf"\b{_COUNT}\s+(day|week|weekend|month|year)s?\s+ago\b", ("ago",)),
        ("few_ago", rf"\b{_FEW}\s+(day|week|month|year)s\s+ago\b", ("ago",)),
        ("season", rf"\b(last|this|next|in\s+the|during\s+the|in|during)\s+"
                   rf"({'|'.join(SEASONS)})\b(?:\s+(?:of\s+)?{_YEAR})?", ("season",)),
        ("past", rf"\b(?:past|last)\s+{_COUNT}\s+(day|week|month|year)s\b", ("relative",)),
        ("relative", r"\b(last|this|next|past)\s+(week|weekend|month|year)\b",
         ("relative",)),
        ("weekday", rf"\b(last|this|next|on)\s+({_WEEKDAY_ALT})\.?(?=\W|$)", ("weekday",)),
        ("day_word", r"\b(yesterday|today|tonight|tomorrow|last\s+night|this\s+morning)\b",
         ("day_word",)),
        ("year", rf"\b(?:in|during|of)\s+{_YEAR}\b", ("year",)),
        ("month", rf"\b(?:in|during|of)\s+(?:early\s+|late\s+|mid-?\s*)?({_MONTH_ALT})\b",
         ("month",)),
)
_PATTERNS: tuple[tuple[str, re.Pattern[str], re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (name, re.compile(rx), re.compile(rx, re.IGNORECASE), gates) for name, rx, gates in _GRAMMAR
)


@dataclass(frozen=True)
class TimeWindow:
    """Days ``[start, end)`` a phrase names; ``any_year``: the month/day in every year."""

    phrase: str
    start: date
    end: date
    any_year: bool = False

    def overlaps(self, other: TimeWindow) -> bool:
        """Whether the two windows share a day (year-free windows match in any year)."""
        if not (self.any_year or other.any_year):
            return self.start < other.end and other.start < self.end
        fixed, free = (other, self) if self.any_year else (self, other)
        if fixed.any_year:  # both year-free: compare on one common leap year
            fixed = _in_year(fixed, 2000)
        for year in range(fixed.start.year, (fixed.end - timedelta(days=1)).year + 1):
            moved = _in_year(free, year)
            if moved.start < fixed.end and fixed.start < moved.end:
                return True
        return False

    def describe(self) -> dict[str, object]:
        """The window as recall shows it (``end`` inclusive: the last day)."""
        last = self.end - timedelta(days=1)

        def shown(day: date) -> str:
            return day.strftime("--%m-%d") if self.any_year else day.isoformat()

        return {"phrase": self.phrase, "start": shown(self.start), "end": shown(last),
                "any_year": self.any_year}


def _in_year(window: TimeWindow, year: int) -> TimeWindow:
    """A year-free window placed in ``year`` (29 February falls back to the 28th)."""
    length = window.end - window.start
    start = _safe_date(year, window.start.month, window.start.day) or date(year, 2, 28)
    return TimeWindow(window.phrase, start, start + length, False)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _month(token: str) -> int:
    return [m[:3] for m in MONTHS].index(fold(token)[:3]) + 1


def _month_window(phrase: str, year: int, month: int, any_year: bool = False) -> TimeWindow:
    start = date(year, month, 1)
    end = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return TimeWindow(phrase, start, end, any_year)


def _day(phrase: str, day: date | None, any_year: bool = False) -> TimeWindow | None:
    return None if day is None else TimeWindow(phrase, day, day + timedelta(days=1), any_year)


def _week_of(phrase: str, day: date) -> TimeWindow:
    monday = day - timedelta(days=day.weekday())
    return TimeWindow(phrase, monday, monday + timedelta(days=7))


def _shift_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _unit_window(phrase: str, unit: str, day: date, shift: int) -> TimeWindow:
    """The calendar week/month/year ``shift`` units from the one holding ``day``."""
    if unit == "day":
        return TimeWindow(phrase, day + timedelta(days=shift), day + timedelta(days=shift + 1))
    if unit == "week":
        return _week_of(phrase, day + timedelta(weeks=shift))
    if unit == "weekend":
        saturday = day - timedelta(days=day.weekday()) + timedelta(days=5, weeks=shift)
        return TimeWindow(phrase, saturday, saturday + timedelta(days=2))
    if unit == "month":
        first = _shift_months(day, shift)
        return _month_window(phrase, first.year, first.month)
    return TimeWindow(phrase, date(day.year + shift, 1, 1), date(day.year + shift + 1, 1, 1))


def _resolve(name: str, g: tuple[str, ...], phrase: str, anchor: date) -> TimeWindow | None:
    """One matched phrase as a window; ``anchor`` is the day "today" means."""
    if name == "iso":
        return _day(phrase, _safe_date(int(g[0]), int(g[1]), int(g[2])))
    if name == "day_month_year":
        return _day(phrase, _safe_date(int(g[2]), _month(g[1]), int(g[0])))
    if name == "month_day_year":
        return _day(phrase, _safe_date(int(g[2]), _month(g[0]), int(g[1])))
    if name in ("day_month", "month_day"):
        day, month = (g[0], g[1]) if name == "day_month" else (g[1], g[0])
        return _day(phrase, _safe_date(2000, _month(month), int(day)), any_year=True)
    if name == "month_year":
        return _month_window(phrase, int(g[1]), _month(g[0]))
    if name == "month":
        if g[0] == "may":  # "in may" written lowercase is the verb far more often
            return None
        return _month_window(phrase, 2000, _month(g[0]), any_year=True)
    if name == "year":
        return TimeWindow(phrase, date(int(g[0]), 1, 1), date(int(g[0]) + 1, 1, 1))
    if name == "day_word":
        shift = {"yesterday": -1, "tomorrow": 1}.get(fold(g[0]), 0)
        shift = -1 if fold(g[0]).startswith("last") else shift
        return _unit_window(phrase, "day", anchor, shift)
    if name == "ago":
        count = _NUMBERS.get(fold(g[0])) or int(g[0])
        return _unit_window(phrase, fold(g[1]), anchor, -count)
    if name == "few_ago":  # "a few days ago": two to five units back, loosely
        unit = fold(g[0])
        latest = _unit_window(phrase, unit, anchor, -2)
        return TimeWindow(phrase, _unit_window(phrase, unit, anchor, -5).start, latest.end)
    if name == "season":
        return _season(phrase, g, anchor)
    if name == "past":
        count = _NUMBERS.get(fold(g[0])) or int(g[0])
        days = {"day": 1, "week": 7, "month": 30, "year": 365}[fold(g[1])] * count
        return TimeWindow(phrase, anchor - timedelta(days=days), anchor + timedelta(days=1))
    if name == "relative":
        which, unit = fold(g[0]), fold(g[1])
        if which == "past":  # "the past week": a rolling window ending today
            days = {"week": 7, "weekend": 3, "month": 30, "year": 365}[unit]
            return TimeWindow(phrase, anchor - timedelta(days=days), anchor + timedelta(days=1))
        return _unit_window(phrase, unit, anchor, {"last": -1, "this": 0, "next": 1}[which])
    if name == "weekday":
        # "on Friday" is read as the last one: stored notes mostly tell the past.
        which = "last" if fold(g[0]) == "on" else fold(g[0])
        target = [d[:3] for d in WEEKDAYS].index(fold(g[1])[:3])
        back = (anchor.weekday() - target) % 7 or 7  # "last Friday" is never today
        if which == "last":
            return _unit_window(phrase, "day", anchor, -back)
        ahead = (target - anchor.weekday()) % 7
        return _unit_window(phrase, "day", anchor, ahead if which == "this" else ahead or 7)
    return None


def _season(phrase: str, g: tuple[str, ...], anchor: date) -> TimeWindow:
    """Three months from a season's first (northern hemisphere; winter runs into the
    next year); with no "last/this/next" and no year, the season of every year."""
    which, first = fold(g[0]), SEASONS[fold(g[1])]
    if g[2]:
        year = int(g[2])
    elif which in ("last", "this", "next"):
        year = anchor.year + {"last": -1, "this": 0, "next": 1}[which]
        if which == "last" and _shift_months(date(anchor.year, first, 1), 3) <= anchor:
            year += 1  # "last summer" in December is this year's
    else:
        start = date(2000, first, 1)
        return TimeWindow(phrase, start, _shift_months(start, 3), any_year=True)
    start = date(year, first, 1)
    return TimeWindow(phrase, start, _shift_months(start, 3))


@dataclass(frozen=True)
class Phrase:
    """One time phrase found in a text: where it is and what it said."""

    start: int
    end: int
    name: str
    groups: tuple[str, ...]
    text: str


_ANY_DAY = date(2000, 1, 1)  # an anchor to test a match's validity against (any would do)


def find_phrases(text: str, *, gated: bool = True, folded: bool = True) -> list[Phrase]:
    """Every time phrase of ``text``, in text order, before any date is fixed.

    Which phrases count does not depend on the anchor: ``_resolve`` refuses
    a match only for what it says ("31 June", a lowercase "may"), never for
    the day it is read against, so one scan serves every anchor a caller
    resolves against. ``gated=False`` runs every pattern, ``folded=False``
    matches the text as written with IGNORECASE (tests compare both).
    """
    lowered = fold(text)
    folded = folded and len(lowered) == len(text)
    subject = lowered if folded else text
    gate_hits: dict[str, bool] = {}
    # Read once: the "month" pattern's only gate is the month names, so every text asks.
    runs = frozenset(_LETTER_RUNS.findall(lowered))

    def opened(gates: tuple[str, ...]) -> bool:
        for gate in gates:
            if gate not in gate_hits:
                gate_hits[gate] = _gate_open(gate, text, lowered, runs)
            if not gate_hits[gate]:
                return False
        return True

    taken: list[tuple[int, int]] = []
    found: list[Phrase] = []
    for name, on_folded, ignoring_case, gates in _PATTERNS:
        if gated and not opened(gates):
            continue
        for m in (on_folded if folded else ignoring_case).finditer(subject):
            start, end = m.span()
            if any(start < e and s < end for s, e in taken):
                continue
            # The words as written: "may" in lower case is the verb (_resolve);
            # None for a group that took no part, as Match.groups() gives it.
            groups: tuple[Any, ...] = tuple(None if a < 0 else text[a:b] for a, b in m.regs[1:])
            if _resolve(name, groups, text[start:end], _ANY_DAY) is not None:
                taken.append((start, end))
                found.append(Phrase(start, end, name, groups, text[start:end]))
    return sorted(found, key=lambda p: p.start)


def resolve(phrases: list[Phrase], anchor: date) -> list[TimeWindow]:
    """The phrases as windows, "today" meaning ``anchor``."""
    return [w for p in phrases if (w := _resolve(p.name, p.groups, p.text, anchor)) is not None]


def find_windows(text: str, anchor: date) -> list[TimeWindow]:
    """Every time phrase of ``text``, in text order, resolved against ``anchor``."""
    return resolve(find_phrases(text), anchor)


def query_window(query: str, today: date) -> TimeWindow | None:
    """The one window a query asks about, or None when it names none or several.

    Two different windows ("between March and May", "in 2022 or 2023") are
    left alone: guessing one of them could bury the answer, so recall then
    behaves as if the query named no time.
    """
    windows = find_windows(query, today)
    distinct = {(w.start, w.end, w.any_year) for w in windows}
    return windows[0] if len(distinct) == 1 else None
