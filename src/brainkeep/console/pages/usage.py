"""Usage (``/usage``): verb traffic from the local usage log, as SVG charts and tables.

The numbers come from the JSONL log the dispatcher appends to
(``ops/usage.py``; local only, never uploaded), aggregated by
``ops/usage_series.py`` and drawn by ``console/charts.py`` on the server:
no chart library and no script. The log names callers by token name and
spans every org, so remote viewers need ``admin``, and an admin bound to an
org counts only its org's calls (``ops/usage_scope.py``).
"""

from __future__ import annotations

from datetime import timedelta

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from brainkeep.console.charts import Series, line_chart
from brainkeep.console.env import ConsoleEnv, ConsolePage, NavItem
from brainkeep.console.web import Viewer, page, render
from brainkeep.ops.usage import PRIVACY_NOTE, UsageLog
from brainkeep.ops.usage_scope import UsageScope
from brainkeep.ops.usage_series import DEFAULT_WINDOW, WINDOWS, UsageView, build_view

# Verbs drawn as their own line in the calls chart; the rest are summed as "other".
CHART_VERBS = 5


def _labels(view: UsageView) -> list[str]:
    if view.bucket < timedelta(hours=6):
        fmt = "%H:%M"
    elif view.bucket < timedelta(days=1):
        fmt = "%m-%d %Hh"
    else:
        fmt = "%m-%d"
    return [b.start.strftime(fmt) for b in view.buckets]


def _percent(rate: float | None) -> float | None:
    return None if rate is None else round(100 * rate, 1)


def charts(view: UsageView) -> dict[str, object]:
    """The three charts of the page: calls per verb, error rate per caller kind, latency."""
    labels = _labels(view)
    shown = [row.verb for row in view.verbs[:CHART_VERBS]]
    calls = [Series(verb, tuple(float(b.calls.get(verb, 0)) for b in view.buckets))
             for verb in shown]
    if len(view.verbs) > CHART_VERBS:
        calls.append(Series("other", tuple(
            float(sum(n for v, n in b.calls.items() if v not in shown)) for b in view.buckets)))
    # One line per caller kind: a shell typo is not an agent's failure.
    errors = [Series(row.label, tuple(_percent(b.kind_error_rate(row.kind))
                                      for b in view.buckets)) for row in view.kinds]
    if not errors:
        errors = [Series("error rate", tuple(_percent(b.error_rate) for b in view.buckets))]
    latency = [
        Series("p50", tuple(None if b.p50_ms is None else float(b.p50_ms) for b in view.buckets)),
        Series("p99", tuple(None if b.p99_ms is None else float(b.p99_ms) for b in view.buckets)),
    ]
    return {
        "calls": line_chart(calls, labels, title="Calls per verb", chart_id="chart-calls"),
        "errors": line_chart(errors, labels, title="Error rate by caller kind", unit="%",
                             chart_id="chart-errors"),
        "latency": line_chart(latency, labels, title="Latency p50 and p99", unit="ms",
                              chart_id="chart-latency"),
    }


def _days(raw: str | None) -> int:
    try:
        days = int(raw or DEFAULT_WINDOW)
    except ValueError:
        return DEFAULT_WINDOW
    return days if days in WINDOWS else DEFAULT_WINDOW


def routes(env: ConsoleEnv) -> list[BaseRoute]:
    log = UsageLog(env.brain.settings.usage_path)

    def show(request: Request, viewer: Viewer) -> Response:
        days = _days(request.query_params.get("days"))
        scope = UsageScope(env.brain.store, viewer.scope)
        view = build_view([line for line in log.read(days) if scope.visible(line)], days)
        return render(env, request, viewer, "usage.html", title="Usage", view=view,
                      charts=charts(view), windows=sorted(WINDOWS), privacy=PRIVACY_NOTE)

    return [Route("/usage", page(env, show, needs="admin"), methods=["GET"])]


PAGE = ConsolePage(NavItem("/usage", "Usage", needs="admin"), routes)
