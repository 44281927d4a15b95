"""Console fixtures: one seeded brain, a `brainkeep ui` and a `serve --http` over it.

Servers start once per session (each start costs seconds of imports). Tests
that write (forget) use their own fact ids from ``Seeded.facts`` so that
order does not matter.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from console_support import Seeded, UiProc, seed, start_remote, start_ui

from tests.http.http_support import ServerProc


@pytest.fixture(scope="session")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    return seed(tmp_path_factory.mktemp("console-brain") / "home")


@pytest.fixture(scope="session")
def ui(seeded: Seeded) -> Iterator[UiProc]:
    """`brainkeep --org org-a ui`: the trusted local console of tenant org-a."""
    proc = start_ui(seeded.home, org="org-a")
    try:
        yield proc
    finally:
        code = proc.stop()
        assert code == 0, f"ui exit {code} on SIGTERM:\n{proc.stderr()}"
        assert "Traceback" not in proc.stderr(), proc.stderr()


@pytest.fixture(scope="session")
def remote(seeded: Seeded) -> Iterator[ServerProc]:
    """`brainkeep serve --http`; the console is at ``remote.base + "/console"``."""
    proc = start_remote(seeded.home)
    try:
        yield proc
    finally:
        code = proc.stop()
        assert code == 0, f"server exit {code} on SIGTERM:\n{proc.stderr()}"
        assert "Traceback" not in proc.stderr(), proc.stderr()


# The PostgreSQL brain: one per module (the page and browser modules each write to theirs).
@pytest.fixture(scope="module")
def pg_seeded(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    return seed(tmp_path_factory.mktemp("console-pg") / "home", "postgres")


@pytest.fixture(scope="module")
def pg_remote(pg_seeded: Seeded) -> Iterator[ServerProc]:
    proc = start_remote(pg_seeded.home)
    try:
        yield proc
    finally:
        assert proc.stop() == 0, proc.stderr()
