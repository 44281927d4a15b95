"""Server-side SVG charts: no chart library, no JavaScript, readable without network.

Each chart is a self-contained ``<svg>`` with a ``viewBox`` (it scales to the
column's width, phone or desktop), a ``<title>`` for screen readers, and
numbers only from the caller (everything is escaped). Pages put the same
numbers in a table next to the chart, so nothing is conveyed by the picture
alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

from markupsafe import Markup

WIDTH = 640
HEIGHT = 200
_PAD_LEFT, _PAD_RIGHT, _PAD_TOP, _PAD_BOTTOM = 48, 12, 12, 28
# A palette with enough contrast on white, distinguishable without colour
# vision too because each series also gets its own dash pattern.
COLOURS = ("#1f5fbf", "#c2410c", "#15803d", "#7e22ce", "#b91c1c", "#0e7490", "#a16207")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "1 2", "10 4", "4 4")


@dataclass(frozen=True)
class Series:
    """One line: a name and one value per x position (None: no data there)."""

    name: str
    values: tuple[float | None, ...]


def _nice_max(value: float) -> float:
    """A round axis maximum at or above ``value`` (1, 2, 5 × 10^n)."""
    if value <= 0:
        return 1.0
    step = 10 ** len(str(int(value))) / 10 if value >= 1 else 1.0
    for factor in (1, 2, 5, 10):
        if value <= factor * step:
            return float(factor * step)
    return float(value)


def _fmt(value: float, unit: str) -> str:
    if unit == "%":
        return f"{value:.0f}%"
    if value >= 1000:
        return f"{value / 1000:.1f}k{unit}"
    return f"{value:.0f}{unit}" if value == int(value) else f"{value:.1f}{unit}"


def line_chart(series: Sequence[Series], labels: Sequence[str], *, title: str,
               unit: str = "", chart_id: str = "") -> Markup:
    """A line chart of ``series`` over ``labels`` (x axis), with a legend.

    Args:
        series: The lines; all have ``len(labels)`` values.
        labels: One x label per position (only a few are printed).
        title: The accessible name of the chart.
        unit: Appended to axis numbers (``ms``, ``%``).
        chart_id: The ``id`` of the ``<svg>`` (tests and links find it).
    """
    points = max(1, len(labels))
    top = _nice_max(max((v for s in series for v in s.values if v is not None), default=0))
    plot_w = WIDTH - _PAD_LEFT - _PAD_RIGHT
    plot_h = HEIGHT - _PAD_TOP - _PAD_BOTTOM

    def x(i: int) -> float:
        return _PAD_LEFT + (plot_w * i / (points - 1) if points > 1 else plot_w / 2)

    def y(v: float) -> float:
        return _PAD_TOP + plot_h * (1 - v / top)

    parts = [
        f'<svg class="chart" id="{escape(chart_id)}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="{escape(title)}" preserveAspectRatio="xMidYMid meet">',
        f"<title>{escape(title)}</title>",
    ]
    for tick in (0.0, top / 2, top):
        ty = y(tick)
        parts.append(f'<line x1="{_PAD_LEFT}" x2="{WIDTH - _PAD_RIGHT}" y1="{ty:.1f}" '
                     f'y2="{ty:.1f}" stroke="#d4d4d8" stroke-width="1"/>')
        parts.append(f'<text x="{_PAD_LEFT - 6}" y="{ty + 4:.1f}" text-anchor="end" '
                     f'font-size="13" fill="#52525b">{escape(_fmt(tick, unit))}</text>')
    every = max(1, points // 5)
    for i, label in enumerate(labels):
        # Every ``every``-th label and the last, never one crowding the last.
        if (i % every == 0 and points - 1 - i >= every) or i == points - 1:
            anchor = "end" if i == points - 1 and points > 1 else "middle"
            parts.append(f'<text x="{x(i):.1f}" y="{HEIGHT - 8}" text-anchor="{anchor}" '
                         f'font-size="13" fill="#52525b">{escape(label)}</text>')
    for n, line in enumerate(series):
        colour, dash = COLOURS[n % len(COLOURS)], DASHES[n % len(DASHES)]
        parts.append(_path(line, x, y, colour, dash))
    parts.append("</svg>")
    # Swatches are tiny SVGs, not styled spans: the CSP forbids inline style.
    legend = "".join(
        f'<li><svg class="swatch" viewBox="0 0 24 10" width="24" height="10" aria-hidden="true">'
        f'<line x1="0" x2="24" y1="5" y2="5" stroke="{COLOURS[n % len(COLOURS)]}" '
        f'stroke-width="3"{_dash(DASHES[n % len(DASHES)])}/></svg>{escape(line.name)}</li>'
        for n, line in enumerate(series)
    )
    return Markup("".join(parts) + f'<ul class="legend">{legend}</ul>')


def _path(line: Series, x: Callable[[int], float], y: Callable[[float], float], colour: str,
          dash: str) -> str:
    """One series as a polyline per run of known values (gaps stay gaps), plus dots."""
    runs: list[list[str]] = [[]]
    dots = []
    for i, value in enumerate(line.values):
        if value is None:
            if runs[-1]:
                runs.append([])
            continue
        point = f"{x(i):.1f},{y(value):.1f}"
        runs[-1].append(point)
        dots.append(f'<circle cx="{x(i):.1f}" cy="{y(value):.1f}" r="2.5" fill="{colour}">'
                    f"<title>{escape(line.name)}: {value:g}</title></circle>")
    dash_attr = _dash(dash)
    lines = "".join(
        f'<polyline points="{" ".join(run)}" fill="none" stroke="{colour}" '
        f'stroke-width="2"{dash_attr}/>'
        for run in runs if len(run) > 1
    )
    return f'<g class="series" data-series="{escape(line.name)}">{lines}{"".join(dots)}</g>'


def _dash(dash: str) -> str:
    return f' stroke-dasharray="{dash}"' if dash else ""
