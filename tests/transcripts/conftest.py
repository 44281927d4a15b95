"""Transcript import tests run on both engines: ``test_x[sqlite]``, ``test_x[postgres]``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.brain_engines import ENGINES

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(params=ENGINES)
def brain_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)
