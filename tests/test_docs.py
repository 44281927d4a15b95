"""Docs cannot drift from the code: commands, verbs and links are all documented."""

from __future__ import annotations

import re
from pathlib import Path

import click

from brainkeep.cli.lazy import LazyGroup
from brainkeep.cli.main import cli
from brainkeep.ops.registry import build_catalog

ROOT = Path(__file__).resolve().parents[1]


def test_every_cli_command_is_in_docs_cli() -> None:
    doc = (ROOT / "docs" / "cli.md").read_text()
    assert isinstance(cli, LazyGroup)
    commands = cli.loaded_commands(click.Context(cli))
    missing = [name for name in commands if f"`{name}" not in doc]
    assert missing == []
    for name, command in commands.items():
        if isinstance(command, click.Group):
            for sub in command.commands:
                assert f"{name} {sub}" in doc, f"`{name} {sub}` is not in docs/cli.md"


def test_every_operation_is_in_docs_protocol() -> None:
    doc = (ROOT / "docs" / "protocol.md").read_text()
    for op in build_catalog().operations:
        assert f"{op.name}(" in doc or f"`{op.name}" in doc, op.name


def test_readme_links_point_at_files() -> None:
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#:]+)\)", readme)
    assert targets
    for target in targets:
        assert (ROOT / target).exists(), target
