"""Times as a person reads them: one helper for every console page.

Stored timestamps are canonical UTC strings with microseconds
(``2026-06-12T14:03:05.123456Z``, ``core/clock.format_ts``): right for
sorting, hard to read. Every page shows a time through ``when`` (the Jinja
filter ``|when``, or ``human_time`` for the live feed's script), so each
reads the same way:

* ``auto``: within a week of now, relative ("just now", "5 minutes ago",
  "3 days ago", "in 2 hours"); further away, ``2026-06-12 14:03``.
* ``exact``: always ``2026-06-12 14:03`` (windows and dates a reader compares).
* ``clock``: ``14:03:05`` (the live feed, where rows are seconds apart).

The HTML is a ``<time datetime="…">`` element holding the stored value, with
the full UTC time in its ``title`` (hover), so nothing is lost by rounding.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import jinja2
from markupsafe import Markup, escape

from brainkeep.core.clock import Clock, parse_ts

STYLES = ("auto", "exact", "clock")
RELATIVE_WITHIN = timedelta(days=7)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_STORED = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})")
_UNITS = ((timedelta(days=1), "day"), (timedelta(hours=1), "hour"),
          (timedelta(minutes=1), "minute"))


def _parsed(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return parse_ts(value)
    except (ValueError, OverflowError):
        return None


def _relative(moment: datetime, now: datetime) -> str:
    delta = now - moment
    ahead = delta < timedelta(0)
    size = -delta if ahead else delta
    if size < timedelta(minutes=1):
        return "just now"
    for unit, name in _UNITS:
        if size >= unit:
            count = int(size // unit)
            words = f"{count} {name}{'' if count == 1 else 's'}"
            return f"in {words}" if ahead else f"{words} ago"
    raise AssertionError("unreachable: a minute or more matches a unit")


def human_time(value: Any, now: datetime, *, style: str = "auto") -> str:
    """The words for ``value`` (a stored timestamp) as of ``now``; ``""`` for none.

    A value that is not a timestamp comes back as it was (still text: the
    caller escapes it).
    """
    moment = _parsed(value)
    if moment is None:
        return "" if value is None else str(value)
    if isinstance(value, str) and _DATE.fullmatch(value.strip()):
        return value.strip()  # a day (a timeline entry's): no hour to show or round
    moment = moment.astimezone(UTC)
    if style == "clock":
        return moment.strftime("%H:%M:%S")
    if style == "auto" and abs(now - moment) < RELATIVE_WITHIN:
        return _relative(moment, now)
    return f"{moment.year:04d}" + moment.strftime("-%m-%d %H:%M")


def worded(value: Any) -> Any:
    """``value`` in words (``exact``) when it is a stored timestamp, else unchanged.

    For timestamps inside other text, such as an audit event's payload summary.
    """
    if isinstance(value, str) and _STORED.fullmatch(value):
        return human_time(value, datetime.now(UTC), style="exact")
    return value


def full_time(value: Any) -> str:
    """The whole UTC time to the second (a ``<time>``'s ``title``)."""
    moment = _parsed(value)
    if moment is None:
        return ""
    moment = moment.astimezone(UTC)
    return f"{moment.year:04d}" + moment.strftime("-%m-%d %H:%M:%S UTC")


def time_html(value: Any, now: datetime, *, style: str = "auto", empty: str = "—") -> Markup:
    """``<time datetime="VALUE" title="FULL">WORDS</time>``, or ``empty`` when there is no time."""
    if style not in STYLES:
        raise ValueError(f"unknown time style {style!r}")
    if _parsed(value) is None:
        return Markup(escape(empty if value in (None, "") else str(value)))
    return Markup('<time datetime="{}" title="{}">{}</time>').format(
        str(value), full_time(value), human_time(value, now, style=style))


def install(environment: jinja2.Environment, clock: Clock) -> None:
    """Register ``|when`` (``{{ m.created_at|when }}``, ``|when('exact')``) on ``environment``.

    ``now`` is read from the brain's clock at each use, so relative words
    match the clock the services decide with (tests pin it).
    """

    def when(value: Any, style: str = "auto", empty: str = "—") -> Markup:
        return time_html(value, clock.now(), style=style, empty=empty)

    environment.filters["when"] = when
