"""The README quickstart, run as real `brainkeep` processes on a temp BRAINKEEP_HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "notes"


def brainkeep(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, BRAINKEEP_HOME=str(home))
    return subprocess.run(
        [sys.executable, "-m", "brainkeep", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def test_help_starts_and_exits_cleanly(tmp_path: Path) -> None:
    result = brainkeep(tmp_path / "home", "--help")
    assert result.returncode == 0
    assert "Usage: " in result.stdout and "remember" in result.stdout
    assert result.stderr == ""
    assert not (tmp_path / "home").exists()  # --help touches nothing


def console_script() -> Path | None:
    """The ``brainkeep`` script installed for this interpreter (not whatever PATH finds first)."""
    folders = [Path(sys.executable).parent, Path(sysconfig.get_path("scripts")),
               Path(sysconfig.get_path("scripts", f"{os.name}_user"))]
    for folder in folders:
        for name in ("brainkeep", "brainkeep.exe"):
            if (folder / name).is_file():
                return folder / name
    return None


def test_console_script_is_installed() -> None:
    # A missing script is a broken install (pyproject's [project.scripts]): fail, never skip.
    # No fallback to `python -m brainkeep` either: the other tests here run that already.
    script = console_script()
    assert script is not None, f"no brainkeep script beside {sys.executable}: reinstall"
    result = subprocess.run([str(script), "--version"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"brainkeep, version {version('brainkeep')}"


def test_readme_flow(tmp_path: Path) -> None:
    home = tmp_path / "home"
    init = brainkeep(home, "init")
    assert init.returncode == 0, init.stderr
    assert "Next steps" in init.stdout
    assert (home / "brain.db").is_file()

    imported = brainkeep(home, "import", str(EXAMPLES))
    assert imported.returncode == 0, imported.stderr
    assert "failed 0" in imported.stdout

    saved = brainkeep(
        home,
        "remember",
        "Alice Chen prefers async updates",
        "--provenance",
        "quickstart",
        "--entity",
        "Alice Chen",
        "--json",
    )
    assert saved.returncode == 0, saved.stderr
    fact = json.loads(saved.stdout)
    assert fact["status"] == "inserted"
    assert fact["entity_slug"] == "people/alice-chen"  # the name resolved to the imported page

    recalled = brainkeep(home, "recall", "--entity", "people/alice-chen", "--json")
    assert recalled.returncode == 0, recalled.stderr
    facts = json.loads(recalled.stdout)["facts"]
    assert [(f["fact"], f["fact_id"]) for f in facts] == [
        ("Alice Chen prefers async updates", fact["id"])
    ]

    verified = brainkeep(home, "verify", "--json")
    assert verified.returncode == 0
    assert json.loads(verified.stdout)["valid"] is True


def test_agent_demo_round_trip(tmp_path: Path) -> None:
    """The README's agent demo: remember -> recall -> entity through the real stdio server."""
    home = tmp_path / "home"
    assert brainkeep(home, "init").returncode == 0
    assert brainkeep(home, "import", str(EXAMPLES)).returncode == 0
    demo = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "agent_demo.py")],
        env=dict(os.environ, BRAINKEEP_HOME=str(home)),
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert demo.returncode == 0, demo.stderr
    assert "remember -> inserted" in demo.stdout
    assert "entity   -> Alice Chen (people/alice-chen)" in demo.stdout
