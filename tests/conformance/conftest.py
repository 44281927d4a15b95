"""The conformance kit certifies brainkeep on both engines (``test_x[sqlite]``, ``[postgres]``)."""

from __future__ import annotations

import pytest

from tests.brain_engines import ENGINES


@pytest.fixture(params=ENGINES)
def brain_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)
