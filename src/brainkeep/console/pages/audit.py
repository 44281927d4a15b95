"""Audit (``/audit``): the hash-chained event log, paged, and "verify now".

Verification is ``core.verify.verify_brain``, the walk ``brainkeep verify``
runs, with the same trusted key (derived from a configured signing key), so
the console can never say "valid" where the CLI says "INVALID". On a break
the page opens at the first broken event and highlights it: the event
itself when the chain breaks, else the newest event of the row whose state
no longer matches the log (the event whose recorded hash the row fails).

The log is brain-wide (every org's events), so the page needs ``admin``
from a remote viewer, and an admin bound to an org sees only that org's
events (``core.event_scope.event_visible``; pages are filled from the
visible events, newest first). The verify walk stays brain-wide: such an
admin learns whether the chain holds, but where it breaks only when the
broken event is one of theirs. The local console is trusted like the CLI.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from brainkeep.console.env import ConsoleEnv, ConsolePage, NavItem
from brainkeep.console.times import worded
from brainkeep.console.web import Viewer, action, page, render
from brainkeep.core import signing
from brainkeep.core.event_scope import EventSubjects, event_visible, log_visible
from brainkeep.core.models import Event
from brainkeep.core.ports.store import Store
from brainkeep.core.verify import BrokenRecord, VerifyReport, verify_brain

PAGE_SIZE = 50
# Events a page examines at most when the viewer sees only some (a bounded
# request however sparse the viewer's org is; "Older" goes on from there).
SCAN_LIMIT = 5000
_SUMMARY_CHARS = 90


@dataclass(frozen=True)
class EventRow:
    """One event as the table shows it."""

    seq: int
    ts: str
    kind: str
    subject: str
    actor: str
    summary: str  # the payload without its hashes, shortened
    payload: str  # the whole payload (JSON)
    hash: str
    prev_hash: str


@dataclass(frozen=True)
class LogPage:
    """A page of the log, newest first, and where the neighbouring pages start."""

    rows: tuple[EventRow, ...]
    head: int
    newer: int | None  # ``before`` of the newer page (None: this is the newest)
    older: int | None  # ``before`` of the older page (None: this is the oldest)


def _row(event: Event) -> EventRow:
    payload = json.dumps(event.payload, ensure_ascii=False, sort_keys=True, indent=1)
    # Hashes are for the verifier, not for reading: the summary leaves them out.
    summary = ", ".join(f"{k}={worded(v)}" for k, v in sorted(event.payload.items())
                        if not k.endswith("hash") and v not in (None, "", [], {}))
    if len(summary) > _SUMMARY_CHARS:
        summary = summary[: _SUMMARY_CHARS - 1] + "…"
    return EventRow(event.seq, event.ts, event.kind, f"{event.subject_type}:{event.subject_id}",
                    event.actor, summary, payload, event.hash, event.prev_hash)


def log_page(store: Store, before: int | None,
             visible: Callable[[Event], bool] = lambda _e: True) -> LogPage:
    """The ``PAGE_SIZE`` visible events with ``seq < before`` (None: the newest), newest first.

    ``older`` continues below the oldest event examined and ``newer`` above
    the ``PAGE_SIZE``-th visible event after ``before``; each walk examines at
    most ``SCAN_LIMIT`` events.
    """
    head = store.event_head()
    end = head + 1 if before is None else max(1, min(before, head + 1))
    shown: list[Event] = []
    low = end  # every event in [low, end) has been examined
    while low > 1 and len(shown) < PAGE_SIZE and end - low < SCAN_LIMIT:
        start = max(1, low - PAGE_SIZE)
        batch = [e for e in itertools.islice(store.iter_events(after_seq=start - 1,
                                                               batch=low - start), low - start)
                 if e.seq < low]
        for event in reversed(batch):
            low = event.seq
            if visible(event):
                shown.append(event)
                if len(shown) == PAGE_SIZE:
                    break
        else:
            low = start
    return LogPage(tuple(_row(e) for e in shown), head, _newer(store, end, head, visible),
                   low if low > 1 else None)


def _newer(store: Store, end: int, head: int, visible: Callable[[Event], bool]) -> int | None:
    """``before`` of the page above one that ends at ``end`` (None: it is the newest)."""
    if end > head:
        return None
    count = 0
    for event in itertools.islice(store.iter_events(after_seq=end - 1, batch=PAGE_SIZE),
                                  SCAN_LIMIT):
        if visible(event):
            count += 1
            if count == PAGE_SIZE:
                return min(event.seq + 1, head + 1)
    return head + 1


def broken_seq(store: Store, broken: BrokenRecord | None) -> int | None:
    """The event to highlight for a break: the broken event, or the row's newest event."""
    if broken is None:
        return None
    if broken.kind == "event":
        return int(broken.id)
    events = store.events_for(broken.kind, broken.id)
    return events[-1].seq if events else None


def _visible_seq(store: Store, seq: int, visible: Callable[[Event], bool]) -> bool:
    event = store.event_at(seq)
    return event is not None and visible(event)


def _trusted_key(env: ConsoleEnv) -> Any:
    """The public key ``brainkeep verify`` would trust: the configured signing key's."""
    key = signing.load_signing_key(None, env.brain.settings.env)
    return None if key is None else key.public_key()


def _before(raw: str | None) -> int | None:
    try:
        return int(raw) if raw else None
    except ValueError:
        return None


def routes(env: ConsoleEnv) -> list[BaseRoute]:
    store = env.brain.store

    def show(request: Request, viewer: Viewer, report: VerifyReport | None = None,
             before: int | None = None) -> Response:
        subjects = EventSubjects(store)

        def visible(event: Event) -> bool:
            return event_visible(event, viewer.scope, subjects)

        highlight = broken_seq(store, report.first_broken) if report else None
        if highlight is not None and not _visible_seq(store, highlight, visible):
            highlight = None
        # Where the chain breaks is shown only to a viewer who may see that event.
        hide_break = highlight is None and not log_visible(viewer.scope)
        if highlight is not None:
            before = highlight + 1 + PAGE_SIZE // 2  # the break sits mid-page
        elif before is None:
            before = _before(request.query_params.get("before"))
        return render(env, request, viewer, "audit.html", title="Audit",
                      log=log_page(store, before, visible), report=report, highlight=highlight,
                      hide_break=hide_break, whole_log=log_visible(viewer.scope))

    def verify(request: Request, viewer: Viewer, form: FormData) -> Response:
        report = verify_brain(store, trusted_key=_trusted_key(env), side=env.brain.verify_side)
        return show(request, viewer, report)

    return [
        Route("/audit", page(env, lambda r, v: show(r, v), needs="admin"), methods=["GET"]),
        Route("/audit/verify", action(env, verify, needs="admin"), methods=["POST"]),
    ]


PAGE = ConsolePage(NavItem("/audit", "Audit", needs="admin"), routes)
