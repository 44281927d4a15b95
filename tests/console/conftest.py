"""Console fixtures: one seeded brain, a `brainkeep ui` and a `serve --http` over it.

Servers start once per session (each start costs seconds of imports). Tests
that write (forget) use their own fact ids from ``Seeded.facts`` so that
order does not matter.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from console_support import Seeded, UiProc, seed, start_remote, start_ui

from tests.http.http_support import ServerProc, stopped_cleanly


@pytest.fixture(scope="session")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    return seed(tmp_path_factory.mktemp("console-brain") / "home")


@pytest.fixture(scope="session")
def ui(seeded: Seeded) -> Iterator[UiProc]:
    """`brainkeep --org org-a ui`: the trusted local console of tenant org-a."""
    with stopped_cleanly(start_ui(seeded.home, org="org-a"), "ui") as proc:
        yield proc


@pytest.fixture(scope="session")
def remote(seeded: Seeded) -> Iterator[ServerProc]:
    """`brainkeep serve --http`; the console is at ``remote.base + "/console"``."""
    with stopped_cleanly(start_remote(seeded.home), "server") as proc:
        yield proc


# The PostgreSQL brain: one per module (the page and browser modules each write to theirs).
@pytest.fixture(scope="module")
def pg_seeded(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    return seed(tmp_path_factory.mktemp("console-pg") / "home", "postgres")


@pytest.fixture(scope="module")
def pg_remote(pg_seeded: Seeded) -> Iterator[ServerProc]:
    with stopped_cleanly(start_remote(pg_seeded.home), "server") as proc:
        yield proc
