"""Several real processes writing one brain at once: nothing lost, chain valid."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.context import LOCAL
from brainkeep.core.verify import verify_brain

WORKERS = Path(__file__).with_name("workers.py")
ROOT = Path(__file__).resolve().parents[2]


def spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKERS), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def wait_for(path: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"timed out waiting for {path}"
        time.sleep(0.01)


def finish(proc: subprocess.Popen[str], timeout: float = 120) -> tuple[str, str]:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    return out, err


def test_four_processes_remember_1000_facts(home: Path, tmp_path: Path, brain: Brain) -> None:
    sync = tmp_path / "sync"
    sync.mkdir()
    procs = [spawn("remember_many", str(home), str(w), "250", str(sync)) for w in range(4)]
    for w in range(4):
        wait_for(sync / f"ready-{w}")
    (sync / "go").touch()  # all four start writing at the same moment
    for proc in procs:
        _, err = finish(proc)
        assert err == ""

    counts = brain.store.counts()
    assert counts["memories"] == 1000
    assert counts["events"] == 1000
    for w in range(4):
        facts = brain.store.list_memories(
            "default", now=brain.clock.now_ts(), entity_slug=f"people/w{w}", limit=1000,
            scope=LOCAL.read_scope,
        )
        assert sorted(m.text for m in facts) == sorted(f"worker {w} fact {i}" for i in range(250))
    ids = sorted(
        m.id for m in brain.store.list_memories(
            "default", now=brain.clock.now_ts(), limit=2000, scope=LOCAL.read_scope
        )
    )
    assert ids == list(range(1, 1001))
    report = verify_brain(brain.store)
    assert report.valid, report.first_broken
    assert (report.events_checked, report.memories_checked) == (1000, 1000)


def test_cli_writes_while_another_process_holds_the_brain(
    home: Path, tmp_path: Path, brain: Brain
) -> None:
    sync = tmp_path / "sync"
    sync.mkdir()
    holder = spawn("hold_and_write", str(home), str(sync), "1.5")
    try:
        wait_for(sync / "holding")
        env = dict(os.environ, BRAINKEEP_HOME=str(home))
        started = time.monotonic()
        cli = subprocess.run(
            [sys.executable, "-m", "brainkeep", "remember", "CLI fact while busy", "-p", "cli"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
        waited = time.monotonic() - started
        assert cli.returncode == 0, cli.stderr
        assert cli.stdout.startswith("remembered as fact #")
        put = subprocess.run(
            [sys.executable, "-m", "brainkeep", "put", "notes/busy"],
            input="# Written by the CLI\n",
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
        assert put.returncode == 0, put.stderr
    finally:
        (sync / "done").touch()
    finish(holder)

    assert waited > 0.5  # the CLI waited for the lock instead of failing
    texts = {m.text for m in brain.facts.list_facts(LOCAL, limit=100)}
    assert "CLI fact while busy" in texts
    assert {f"holder fact {i}" for i in range(20)} <= texts
    assert "holder fact (inside the long transaction)" in texts
    assert brain.pages.get_page("notes/busy", LOCAL).title == "Written by the CLI"
    assert brain.store.counts()["events"] == 23
    assert verify_brain(brain.store).valid


def test_a_returned_write_is_on_disk_without_close(home: Path) -> None:
    count = 25
    open_brain(load_settings(home, env={})).close()
    proc = spawn("remember_then_die", str(home), str(count))
    out, _ = finish(proc)
    returned = [int(line) for line in out.split()]
    assert len(returned) == count
    brain = open_brain(load_settings(home, env={}))
    try:
        for memory_id in returned:
            assert brain.store.get_memory(memory_id) is not None
        assert verify_brain(brain.store).valid
    finally:
        brain.close()
