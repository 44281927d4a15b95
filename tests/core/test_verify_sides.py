"""The full walk's two halves (core/verify_halves.py), on both engines.

The log-and-pages half runs on the caller's thread (no side), on a worker
thread (``ThreadSide``), or in a child process that opens the brain again
(``ProcessSide``, brainkeep/verify_process.py). Wherever it runs it must
report the same walk, and a break it finds (an edited page, a forged event)
must reach the report: a child that quietly returned nothing would pass a
tampered brain.
"""

from __future__ import annotations

import threading

import pytest

from brainkeep.brain import Brain
from brainkeep.core import verify_halves
from brainkeep.core.memory.remember import RememberInput
from brainkeep.core.verify import verify_brain
from brainkeep.core.verify_halves import ThreadSide
from brainkeep.verify_process import ProcessSide
from tests.brain_engines import ENGINES, RawDatabase


@pytest.fixture(params=ENGINES)
def brain_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _fill(brain: Brain) -> None:
    brain.pages.put_page("notes/a", "---\ntitle: A\n---\nAlpha.\n")
    brain.pages.put_page("notes/b", "---\ntitle: B\n---\nBeta.\n")
    brain.mnemo.remember(RememberInput(content="carol likes tea", agent_id="carol"))


def _edit(brain: Brain, sql: str) -> None:
    raw = RawDatabase(brain.settings.home)
    try:
        raw.execute(sql)
        raw.commit()
    finally:
        raw.close()


def _summary(report: object) -> tuple[object, ...]:
    data = report.to_dict()  # type: ignore[attr-defined]
    return (data["valid"], data["events_checked"], data["pages_checked"],
            data["memories_checked"], data["head"])


def test_every_side_reports_the_same_walk(brain: Brain) -> None:
    _fill(brain)
    inline = _summary(verify_brain(brain.store))
    threads = _summary(verify_brain(brain.store, side=ThreadSide(brain.workers)))
    child = _summary(verify_brain(brain.store, side=ProcessSide(ThreadSide(None),
                                                                 min_events=0)))
    assert inline == threads == child
    assert inline[0] is True and inline[2] == 2 and inline[3] == 1


@pytest.mark.parametrize("edit, kind", [
    ("UPDATE pages SET content = 'Forged.' WHERE slug = 'notes/b'", "page"),
    ("UPDATE events SET actor = 'mallory' WHERE seq = 2", "event"),
])
def test_a_break_found_in_the_child_reaches_the_report(brain: Brain, edit: str,
                                                       kind: str) -> None:
    _fill(brain)
    _edit(brain, edit)
    report = verify_brain(brain.store, side=ProcessSide(ThreadSide(None), min_events=0))
    assert not report.valid and report.first_broken is not None
    assert report.first_broken.kind == kind


def test_the_half_runs_where_its_side_says(brain: Brain, monkeypatch: pytest.MonkeyPatch) -> None:
    _fill(brain)
    ran_on: list[str] = []
    real = verify_halves.log_and_pages

    def spy(*args: object) -> object:
        ran_on.append(threading.current_thread().name)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(verify_halves, "log_and_pages", spy)
    assert verify_brain(brain.store).valid
    assert verify_brain(brain.store, side=ThreadSide(brain.workers)).valid
    # Below min_events a ProcessSide stays in this process, on its threads.
    assert verify_brain(brain.store, side=ProcessSide(ThreadSide(brain.workers))).valid
    here = threading.current_thread().name
    assert ran_on[0] == here
    assert ran_on[1].startswith("brainkeep-arm") and ran_on[2].startswith("brainkeep-arm")
    # A child process runs its own copy of the function: the spy here sees nothing.
    assert verify_brain(brain.store, side=ProcessSide(ThreadSide(brain.workers),
                                                      min_events=0)).valid
    assert len(ran_on) == 3


def test_a_child_that_cannot_run_leaves_the_walk_to_this_process(brain: Brain) -> None:
    _fill(brain)
    _edit(brain, "UPDATE pages SET content = 'Forged.' WHERE slug = 'notes/b'")
    side = ProcessSide(ThreadSide(None), min_events=0, python="/bin/false")
    report = verify_brain(brain.store, side=side)
    assert not report.valid and report.first_broken is not None
    assert report.first_broken.kind == "page"
