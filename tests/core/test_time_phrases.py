"""The time-phrase resolver (core/time_phrases.py) and the text side (core/time_recall.py).

The clock is fixed: "today" is Monday 15 June 2026, so every relative phrase
has one right answer.
"""

from __future__ import annotations

from datetime import date

import pytest

from brainkeep.core.time_phrases import TimeWindow, find_phrases, find_windows, query_window
from brainkeep.core.time_recall import TimeQuery, text_times

TODAY = date(2026, 6, 15)  # a Monday


def days(window: TimeWindow | None) -> tuple[str, str, bool] | None:
    """(first day, last day, any_year) as recall shows them."""
    if window is None:
        return None
    shown = window.describe()
    return str(shown["start"]), str(shown["end"]), bool(shown["any_year"])


@pytest.mark.parametrize(("query", "expected"), [
    ("what did we decide last week?", ("2026-06-08", "2026-06-14", False)),
    ("what happened yesterday", ("2026-06-14", "2026-06-14", False)),
    ("notes from today", ("2026-06-15", "2026-06-15", False)),
    ("what did I plan for tomorrow", ("2026-06-16", "2026-06-16", False)),
    ("what did we pick 2 days ago", ("2026-06-13", "2026-06-13", False)),
    ("the call three weeks ago", ("2026-05-25", "2026-05-31", False)),
    ("what did we ship last month", ("2026-05-01", "2026-05-31", False)),
    ("goals for this year", ("2026-01-01", "2026-12-31", False)),
    ("what we did last year", ("2025-01-01", "2025-12-31", False)),
    ("what did we decide in 2023", ("2023-01-01", "2023-12-31", False)),
    ("who called last Friday", ("2026-06-12", "2026-06-12", False)),
    ("plans for last weekend", ("2026-06-13", "2026-06-14", False)),  # just gone
    ("changes in the past 3 days", ("2026-06-12", "2026-06-15", False)),
    ("what is due in March", ("--03-01", "--03-31", True)),
    ("what happened on 12 June", ("--06-12", "--06-12", True)),
    ("what happened on June 12th", ("--06-12", "--06-12", True)),
    ("what happened on 12 June 2026", ("2026-06-12", "2026-06-12", False)),
    ("dinner on May 3, 2023", ("2023-05-03", "2023-05-03", False)),
    ("the movie on 1 May, 2022", ("2022-05-01", "2022-05-01", False)),
    ("trip in July 2022", ("2022-07-01", "2022-07-31", False)),
    ("the 2026-02-11 outage", ("2026-02-11", "2026-02-11", False)),
    ("what did we decide in December", ("--12-01", "--12-31", True)),
])
def test_each_phrase_resolves_against_the_clock(query: str, expected: tuple[str, str, bool]
                                                ) -> None:
    assert days(query_window(query, TODAY)) == expected


@pytest.mark.parametrize("query", [
    "what did we decide about billing",  # no time at all
    "between March and May",  # two windows: which one is meant is a guess
    "in 2022 or in 2023",
    "we may go in may",  # lowercase "may" is the verb
    "the 12 apostles",  # a number is not a date
    "meet at 3 pm",
])
def test_absent_or_ambiguous_phrases_give_no_window(query: str) -> None:
    assert query_window(query, TODAY) is None


def test_year_free_windows_match_in_any_year_and_fixed_ones_do_not() -> None:
    june = query_window("in June", TODAY)
    assert june is not None
    assert june.overlaps(TimeWindow("x", date(2023, 6, 20), date(2023, 6, 21)))
    assert not june.overlaps(TimeWindow("x", date(2023, 7, 1), date(2023, 7, 2)))
    fixed = query_window("in June 2024", TODAY)
    assert fixed is not None
    assert not fixed.overlaps(TimeWindow("x", date(2023, 6, 20), date(2023, 6, 21)))


def test_a_texts_relative_phrases_resolve_against_its_own_date() -> None:
    times = text_times("Caroline, 1:56 pm on 8 May, 2023",
                       "Caroline (1:56 pm on 8 May, 2023): I went to a support group yesterday.",
                       written=TODAY)
    # The dateline (also the title's date) is not an event; "yesterday" is 7 May 2023.
    assert [days(w) for w in times.events] == [("2023-05-07", "2023-05-07", False)]
    assert ("2023-05-08", "2023-05-08", False) in [days(w) for w in times.windows]


def test_an_undated_text_anchors_on_the_day_it_was_written() -> None:
    times = text_times("standup", "We picked Stripe last week.", written=date(2026, 3, 4))
    assert [days(w) for w in times.events] == [("2026-02-23", "2026-03-01", False)]
    assert text_times("standup", "We picked Stripe.", written=TODAY).events == ()


@pytest.mark.parametrize(("query", "asks_when"), [
    ("When did Melanie paint a sunrise?", True),
    ("what year did Tim go to the Smoky Mountains?", True),
    ("In which month did John score?", True),
    ("how long ago was the wedding", True),
    ("what did Melanie paint?", False),
    ("whenever possible", False),
])
def test_when_questions(query: str, asks_when: bool) -> None:
    asked = TimeQuery.of(query, TODAY)
    assert asked.asks_when is asks_when
    assert bool(asked) is asks_when  # none of these names a window


# Texts that open some gates and not others, and phrases at the edges of a
# title and its text: the gated scan must find exactly what every pattern finds.
GATE_TEXTS = [
    "", "ok", "We met on 2023-05-08 and again 2023-02-30.", "on 12 June 2023, then June 14",
    "in may we may go; In May we went", "Mid-June, in midjune, during late March",
    "three weeks ago, a few days ago, 10 years ago", "last summer, in the winter of 2021",
    "the past 3 months, past week, this weekend", "last Fri. on Tuesday, this Sat",
    "yesterday; last night; this morning; tonight", "in 1999, of 2024, during 2030",
    "monthly satisfaction sunny wedding", "no dates, only digits 12 34 and a dash -",
    "March 3:30 pm and May 5th", "ſeptember 9 and \u212aing",
    "thıs week, laſt month, İn 2020, on ſaturday, ſix days ago, the ſummer of 2021",
    "we decided in Novak's office; Dec. 5, the 5th of may, MID-JUNE, Frid. and Tues",
    "ON FRIDAY IN MAY 2020, 3 WEEKS AGO, Last Summer", "mon-day sun-day wed_nesday june5 5june",
    "we met in midjune",
]


@pytest.mark.parametrize("text", GATE_TEXTS)
def test_gates_skip_only_scans_that_cannot_match(text: str) -> None:
    assert find_phrases(text) == find_phrases(text, gated=False)
    # The case-sensitive passes over the folded text read what IGNORECASE reads.
    for variant in (text, text.upper(), text.title(), text.swapcase()):
        assert find_phrases(variant) == find_phrases(variant, gated=False, folded=False)
    find_windows(text, TODAY)  # and every phrase found resolves (a long s once raised)


@pytest.mark.parametrize(("title", "text"), [
    ("Caroline, 1:56 pm on 8 May, 2023", "Caroline: I went yesterday, in June, last week."),
    ("standup 12", "June 2023 plans: ship on Friday"),
    ("notes from March", "12 of March we met; 3 days ago"),
    ("", "in 2022 and yesterday"),
    ("2023-01-05", ""),
])
def test_one_scan_of_title_and_text_reads_what_two_scans_read(title: str, text: str) -> None:
    written = date(2024, 2, 29)
    times = text_times(title, text, written)
    # Scanned apart, no phrase can run from the title into the text.
    anchor = next((w.start for w in [*find_windows(title, written), *find_windows(text, written)]
                   if not w.any_year and (w.end - w.start).days == 1), written)
    in_title = {(w.start, w.end, w.any_year) for w in find_windows(title, anchor)}
    windows = find_windows(text, anchor)
    assert times.windows == tuple(windows)
    assert times.events == tuple(w for w in windows
                                 if (w.start, w.end, w.any_year) not in in_title)


@pytest.mark.parametrize(("text", "expected"), [
    ("laſt week", ("2026-06-08", "2026-06-14", False)),
    ("thıs month", ("2026-06-01", "2026-06-30", False)),
    ("on 9 ſeptember", ("--09-09", "--09-09", True)),
    ("in the ſummer of 2021", ("2021-06-01", "2021-08-31", False)),
])
def test_letters_the_regex_folds_resolve_instead_of_raising(
        text: str, expected: tuple[str, str, bool]) -> None:
    # IGNORECASE takes ſ for s and ı for i; the word lookups once raised on them,
    # which failed the whole recall of a page holding such a text.
    assert days(query_window(text, TODAY)) == expected
