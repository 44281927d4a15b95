"""put, import and export where a newcomer trips: an empty pipe, a missing folder, an old export."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from brainkeep.brain import open_brain
from brainkeep.config import Settings


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "brain"
    brain = open_brain(Settings(home=home))
    try:
        brain.pages.put_page("people/alice-chen", "---\ntitle: Alice Chen\n---\nAlice.\n")
        brain.pages.put_page("notes/plan", "---\ntitle: Plan\n---\nThe plan.\n")
    finally:
        brain.close()
    return home


def run(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI in a subprocess; stdin is ``stdin``'s text, or /dev/null."""
    feed: dict[str, Any] = {"stdin": subprocess.DEVNULL} if stdin is None else {"input": stdin}
    return subprocess.run([sys.executable, "-m", "brainkeep", *args], text=True, timeout=60,
                          env={**os.environ, "BRAINKEEP_HOME": str(home)},
                          capture_output=True, **feed)


def test_put_from_an_empty_pipe_is_refused_and_writes_nothing(home: Path) -> None:
    done = run(home, "put", "notes/empty")  # stdin is /dev/null
    assert done.returncode == 2, done.stderr
    assert "No content on stdin" in done.stderr and "Traceback" not in done.stderr
    assert run(home, "get", "notes/empty").returncode == 3
    # An existing page is not blanked either.
    assert run(home, "put", "notes/plan", stdin="  \n").returncode == 2
    assert "The plan." in run(home, "get", "notes/plan").stdout


def test_put_from_a_pipe_with_content_still_works(home: Path) -> None:
    done = run(home, "put", "notes/new", stdin="# New\n\nText.\n")
    assert done.returncode == 0, done.stderr
    assert "Text." in run(home, "get", "notes/new").stdout


def test_import_of_a_missing_folder_fails_before_any_progress(home: Path, tmp_path: Path) -> None:
    done = run(home, "import", str(tmp_path / "nowhere"))
    assert done.returncode == 2
    assert "is not a directory" in done.stderr
    assert "importing" not in done.stderr and "0/?" not in done.stderr, done.stderr


def test_export_over_an_older_export_warns_about_files_it_left(home: Path,
                                                                tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "notes").mkdir(parents=True)
    (out / "notes" / "deleted-since.md").write_text("old page\n")
    (out / "mine.md").write_text("my own note\n")
    done = run(home, "export", str(out))
    assert done.returncode == 0, done.stderr
    assert "2 .md file(s)" in done.stderr and "mine.md" in done.stderr
    assert (out / "mine.md").read_text() == "my own note\n"  # never deleted
    data = json.loads(run(home, "export", "--json", str(out)).stdout)
    assert data["exported"] == 2
    assert data["stale"] == ["mine.md", "notes/deleted-since.md"]
    clean = json.loads(run(home, "export", "--json", str(tmp_path / "fresh")).stdout)
    assert clean["stale"] == []
