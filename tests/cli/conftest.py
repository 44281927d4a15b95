"""Fixtures shared by the CLI tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh ``$HOME`` (where MCP hosts keep their config files)."""
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home
