"""Shared fixtures: a real brain on a temp folder, and the CLI through click's runner.

Subfolders may add their own conftest; keep this one small.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from tests.brain_engines import engine_home

RunCli = Callable[..., Result]


@pytest.fixture(autouse=True)
def _no_ambient_brain(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may read or write the developer's real brain."""
    monkeypatch.delenv("BRAINKEEP_HOME", raising=False)
    monkeypatch.delenv("BRAINKEEP_DATABASE_URL", raising=False)  # nor a real database


@pytest.fixture
def brain_engine() -> str:
    """The engine of the ``home``/``brain`` fixtures: SQLite here.

    A folder whose tests must hold on both engines overrides it with
    ``@pytest.fixture(params=ENGINES)`` (tests/brain_engines.py).
    """
    return "sqlite"


@pytest.fixture
def home(tmp_path: Path, brain_engine: str) -> Iterator[Path]:
    """An empty brain home folder (on PostgreSQL: its config names a fresh database)."""
    with engine_home(tmp_path / "brain", brain_engine) as path:
        yield path


@pytest.fixture
def brain(home: Path) -> Iterator[Brain]:
    """A migrated brain (a SQLite file, or the home's database) under ``home``, closed after."""
    opened = open_brain(load_settings(home, env={}))
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def run_cli(home: Path) -> RunCli:
    """Invoke ``brainkeep --home HOME ARGS...`` in-process; stdout and stderr kept apart."""
    from brainkeep.cli.main import cli

    def run(*args: str, input: str | bytes | None = None) -> Result:
        result = CliRunner().invoke(cli, ["--home", str(home), *args], input=input)
        # Errors are translated into an exit code at the CLI edge; an exception
        # escaping the runner is a crash, so surface it with its traceback.
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result

    return run
