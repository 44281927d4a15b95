"""Time-aware page search: a query's time window and "when" shape as ranking boosts.

``SearchService.search`` hands its fused candidates here before it cuts the
shortlist. Two signals, both boosts (never filters), both zero-LLM:

* **window** — the query names one time ("last week", "in March", "on 12 June
  2026"; ``core/time_phrases.py``), resolved against the caller's clock. A
  candidate whose text states a day in that window (its own dates, and the
  relative phrases it uses resolved against its own date: a note dated 8 May
  saying "yesterday" means 7 May), or whose page was last written in it,
  gains ``window_boost``. A boost, because a phrase read from free text can
  be wrong ("in May" may not be the month) or year-free, and a filter would
  then hide the answer; a page outside the window still ranks on its words.
* **when** — the query asks for a time ("when did we ...", "what year ...").
  A candidate that states when something happened — a relative phrase or a
  date other than the page's own dateline (a date in its title) — gains
  ``when_boost``: of the pages about the thing, the one that says when it was.

What fired is returned as a ``TimeNote`` for recall's ``explanation``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from brainkeep.core.clock import parse_ts
from brainkeep.core.fusion import PageScore
from brainkeep.core.retrieval import ChunkView
from brainkeep.core.time_phrases import TimeWindow, find_phrases, fold, query_window, resolve

_WHEN = re.compile(
    r"^\W*(?:when\b|what\s+(?:date|day|time|year|month|week)\b|"
    r"which\s+(?:date|day|year|month|week)\b|in\s+which\s+(?:year|month)\b|how\s+long\b|"
    r"since\s+when\b)",
    re.IGNORECASE,
)


# Phrases that say when or how long without naming days: they mark a text as
# stating a time (the "when" boost) but give no window. Matched on the
# folded text (time_phrases.fold), after substring tests for words every
# match holds: most texts hold none, and the regex would walk all of them.
_TIME_MARKERS = re.compile(
    r"\b(?:recently|lately|the\s+other\s+day|(?:for|since)\s+(?:\d+|a\s+few|a\s+couple\s+of|"
    r"several|many|two|three|four|five|six|seven|eight|nine|ten)\s+(?:years?|months?|weeks?|days?)|"
    r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten)\s+years\s+now|since\s+(?:19|20)\d\d)\b"
)
_MARKER_WORDS = ("recently", "lately", "other", "now", "since")
_UNITS = ("year", "month", "week", "day")


def _states_a_time(text: str) -> bool:
    """Whether ``text`` holds a duration or recency marker (``_TIME_MARKERS``)."""
    low = fold(text)
    if not any(map(low.__contains__, _MARKER_WORDS)) and not (
            "for" in low and any(map(low.__contains__, _UNITS))):
        return False
    return _TIME_MARKERS.search(low) is not None


@dataclass(frozen=True)
class TimeRanking:
    """The two boosts (fused scores are ~0-1.3) and how many candidates get them."""

    window_boost: float = 0.5  # swept on the LoCoMo dev half (docs/search.md)
    when_boost: float = 0.2
    candidates: int = 60  # best fused pages read and checked (one chunk read)


@dataclass(frozen=True)
class TimeQuery:
    """What a query asks about time; falsy when it asks nothing."""

    window: TimeWindow | None
    asks_when: bool

    def __bool__(self) -> bool:
        return self.window is not None or self.asks_when

    @classmethod
    def of(cls, query: str, today: date) -> TimeQuery:
        return cls(query_window(query, today), bool(_WHEN.match(query)))


@dataclass(frozen=True)
class TextTimes:
    """The days a stored text is about: every window, and those that date an event."""

    windows: tuple[TimeWindow, ...]
    events: tuple[TimeWindow, ...]
    states_time: bool  # an event window, or a marker such as "recently", "for 4 years"


def _fixed_day(windows: list[TimeWindow]) -> date | None:
    for w in windows:
        if not w.any_year and (w.end - w.start).days == 1:
            return w.start
    return None


# Joins title and text for one scan: no pattern's separators (spaces, commas,
# dots) match it, so no phrase spans the two and each keeps its own phrases.
_JOIN = "\x00"


def text_times(title: str, text: str, written: date) -> TextTimes:
    """Windows a page's chunk states, its relative phrases anchored to its own date.

    The anchor is the first full date in the title or text (a dateline, a
    session date), else the day the page was last written. Title and text are
    scanned once, together; the anchor only changes what the phrases resolve to.
    """
    phrases = find_phrases(f"{title}{_JOIN}{text}")
    anchor = _fixed_day(resolve(phrases, written)) or written
    split = len(title)
    in_title = {(w.start, w.end, w.any_year)
                for w in resolve([p for p in phrases if p.end <= split], anchor)}
    windows = resolve([p for p in phrases if p.start > split], anchor)
    events = tuple(w for w in windows if (w.start, w.end, w.any_year) not in in_title)
    return TextTimes(tuple(windows), events, bool(events) or _states_a_time(text))


@dataclass(frozen=True)
class TimeNote:
    """What time-aware ranking did for one search (recall's ``explanation.time``)."""

    asked: TimeQuery
    gains: dict[int, float] = field(default_factory=dict)  # page id -> boost added

    @property
    def boosted(self) -> int:
        """Candidates that gained a boost."""
        return len(self.gains)

    def describe(self) -> dict[str, object]:
        out: dict[str, object] = {"applied": "boost", "asks_when": self.asked.asks_when,
                                  "boosted_candidates": self.boosted}
        if self.asked.window is not None:
            out["window"] = self.asked.window.describe()
        return out


def _day_of(ts: str) -> date | None:
    try:
        return parse_ts(ts).date()
    except ValueError:
        return None


def boost_by_time(
    asked: TimeQuery,
    scored: dict[int, PageScore],
    read_chunks: Callable[[list[int]], dict[int, ChunkView]],
    ranking: TimeRanking,
    today: date,
) -> TimeNote:
    """Add the boosts to the best ``ranking.candidates`` pages of ``scored`` in place."""
    best = sorted(scored.items(), key=lambda item: item[1].score, reverse=True)
    chosen = [(pid, c) for pid, e in best[: ranking.candidates] if (c := e.chunk_id) is not None]
    views = read_chunks([c for _, c in chosen])
    gains: dict[int, float] = {}
    for page_id, chunk_id in chosen:
        view = views.get(chunk_id)
        if view is None:
            continue
        written = _day_of(view.updated_at) or today
        times = text_times(view.title, view.text, written)
        gain = 0.0
        if asked.window is not None:
            stamp = TimeWindow("written", written, date.fromordinal(written.toordinal() + 1))
            if any(asked.window.overlaps(w) for w in (*times.windows, stamp)):
                gain += ranking.window_boost
        if asked.asks_when and times.states_time:
            gain += ranking.when_boost
        if gain:
            scored[page_id].score += gain
            gains[page_id] = gain
    return TimeNote(asked, gains)
