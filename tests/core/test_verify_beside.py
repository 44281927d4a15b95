"""The full walk's two halves: beside each other on the brain's workers, or one after the other."""

from __future__ import annotations

import threading
from pathlib import Path

from brainkeep.brain import open_brain
from brainkeep.config import Settings
from brainkeep.core import verify


def test_the_walk_runs_its_log_half_on_the_given_workers_only(tmp_path: Path,
                                                                monkeypatch) -> None:
    brain = open_brain(Settings(home=tmp_path / "brain"))
    try:
        brain.pages.put_page("notes/a", "---\ntitle: A\n---\nA.\n")
        ran_on: list[str] = []
        real = verify._log_and_pages

        def spy(*args: object) -> object:
            ran_on.append(threading.current_thread().name)
            return real(*args)  # type: ignore[arg-type]

        monkeypatch.setattr(verify, "_log_and_pages", spy)
        assert verify.verify_brain(brain.store).valid  # no workers: the caller's thread
        assert brain.workers is not None
        assert verify.verify_brain(brain.store, beside=brain.workers).valid
        assert ran_on == [threading.current_thread().name, ran_on[1]]
        assert ran_on[1].startswith("brainkeep-arm")
    finally:
        brain.close()
