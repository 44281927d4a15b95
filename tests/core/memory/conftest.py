"""A real SQLite brain in tmp_path for the Mnemo domain services (no gRPC)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from brainkeep.brain import Brain, open_brain
from brainkeep.config import Settings
from brainkeep.core.memory.mnemo import MnemoService


@pytest.fixture
def brain(tmp_path: Path) -> Iterator[Brain]:
    opened = open_brain(Settings(home=tmp_path / "home"))
    yield opened
    opened.mnemo.flush_reads()  # buffered recall stats, before the store closes
    opened.close()


@pytest.fixture
def mnemo(brain: Brain) -> MnemoService:
    return brain.mnemo
