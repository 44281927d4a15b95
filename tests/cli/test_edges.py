"""The CLI's error edge: clear messages and documented exit codes, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from brainkeep.brain import open_brain
from brainkeep.cli.app import EXIT_BROKEN_PIPE
from brainkeep.config import Settings


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "brain"
    brain = open_brain(Settings(home=home))
    try:
        for i in range(300):
            brain.pages.put_page(f"notes/page-{i:03d}", f"---\ntitle: Page {i}\n---\nbody {i}\n")
        big = "\n".join(f"line {n}" for n in range(40_000))
        brain.pages.put_page("notes/big", f"---\ntitle: Big\n---\n{big}\n")
    finally:
        brain.close()
    return home


def run(home: Path, *args: str | bytes) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "brainkeep", *args], env=env,
                          capture_output=True, timeout=60)


def test_undecodable_argument_is_invalid_params_not_a_traceback(home: Path) -> None:
    done = run(home, "get", b"a\xff")
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert "not valid UTF-8" in err and "Traceback" not in err
    as_json = run(home, "get", "--json", b"a\xff")
    assert as_json.returncode == 2
    assert json.loads(as_json.stderr)["error"] == "invalid_params"


def test_export_into_a_dangling_symlink_is_a_clear_refusal(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "out"
    (target / "notes").mkdir(parents=True)
    (target / "notes" / "big.md").symlink_to(tmp_path / "missing" / "file.md")
    done = run(home, "export", str(target))
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert "symbolic link" in err and "Traceback" not in err
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("args", [("list", "--limit", "500"), ("get", "notes/big"),
                                  ("get", "notes/big", "--json")])
def test_a_closed_pipe_exits_quietly(home: Path, args: tuple[str, ...]) -> None:
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    proc = subprocess.Popen([sys.executable, "-m", "brainkeep", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(16)  # like `| head -c 16`: read a little, then go away
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    code = proc.wait(timeout=60)
    assert err == "", err
    # The whole output may fit the pipe buffer before we close it: then it is a clean 0.
    assert code in (0, EXIT_BROKEN_PIPE)


def test_a_closed_pipe_that_interrupts_output_exits_141(home: Path) -> None:
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    proc = subprocess.Popen([sys.executable, "-m", "brainkeep", "get", "notes/big"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # closed before anything is written: the write must hit EPIPE
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == EXIT_BROKEN_PIPE, err
    assert err == ""


def test_conformance_cleanup_removes_what_the_run_wrote(tmp_path: Path) -> None:
    home = tmp_path / "fresh"
    open_brain(Settings(home=home)).close()
    done = run(home, "protocol", "conformance", "--cleanup", "--json")
    report = json.loads(done.stdout)
    assert done.returncode == 0, done.stderr.decode()
    cleanup = [r for r in report["results"] if r["name"] == "cleanup"]
    assert cleanup and cleanup[0]["status"] == "pass", cleanup
    listed = json.loads(run(home, "list", "--json").stdout)
    assert listed["pages"] == [], "the seeded marker page was left behind"
    recalled = json.loads(run(home, "recall", "--query", report["marker"], "--json").stdout)
    left = [f for f in recalled.get("facts", []) if report["marker"] in f.get("fact", "")]
    # Only the private fact stays: no remote caller can see (so forget) it; the line says so.
    assert all(f.get("visibility") == "private" for f in left), left
    assert len(left) <= 1 and ("private" in cleanup[0]["detail"] or not left)


def test_the_json_claim_in_the_docs_matches_the_cli() -> None:
    root = Path(__file__).resolve().parents[2]
    for doc in ("README.md", "docs/cli.md"):
        text = root.joinpath(doc).read_text(encoding="utf-8")
        assert "Every command has `--help` and" not in text, f"{doc} overclaims --json"
        assert "`serve`" in text


def test_no_doc_or_hint_points_at_a_missing_notes_folder_or_seed() -> None:
    root = Path(__file__).resolve().parents[2]
    assert (root / "examples" / "notes").is_dir()
    grpc_doc = (root / "docs" / "grpc.md").read_text(encoding="utf-8")
    assert "`seeds/mnemo.proto`" not in grpc_doc
    assert "src/brainkeep/grpc/proto/mnemo.proto" in grpc_doc
    assert (root / "src" / "brainkeep" / "grpc" / "proto" / "mnemo.proto").is_file()
    for source in ("src/brainkeep/cli/admin_cmds.py", "src/brainkeep/core/transfer.py"):
        assert "import ./notes" not in (root / source).read_text(encoding="utf-8"), source
