"""Drift checks: every CLI command has help, and every one-shot command a --json mode."""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from brainkeep.cli.lazy import LazyGroup
from brainkeep.cli.main import COMMANDS as REGISTRY
from brainkeep.cli.main import cli

# Long-running servers print no result document, so they have no --json mode.
# `serve` speaks MCP; `hook` answers in its host's documented format (JSON already).
NO_JSON = {"serve", "hook"}


def subcommands(group: click.Group) -> dict[str, click.Command]:
    """A group's commands, lazy ones imported (``group.commands`` holds only loaded ones)."""
    if isinstance(group, LazyGroup):
        return group.loaded_commands(click.Context(group))
    return dict(group.commands)


def walk(
    group: click.Group, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    for name, command in sorted(subcommands(group).items()):
        yield path + (name,), command
        if isinstance(command, click.Group):
            yield from walk(command, path + (name,))


COMMANDS = list(walk(cli))
IDS = [" ".join(path) for path, _ in COMMANDS]


def test_the_issue_2_commands_exist() -> None:
    names = set(subcommands(cli))
    assert {
        "init",
        "put",
        "get",
        "list",
        "delete",
        "import",
        "export",
        "remember",
        "recall",
        "forget",
        "verify",
        "doctor",
        "config",
    } <= names


def test_root_help() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.output
    for name in ("init", "import", "remember", "recall", "verify"):
        assert name in result.output


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=IDS)
def test_every_command_has_help(path: tuple[str, ...], command: click.Command) -> None:
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output and path[-1] in result.output
    assert (command.help or command.short_help or "").strip(), f"{path} has no help text"


@pytest.mark.parametrize(
    ("path", "command"),
    [(p, c) for p, c in COMMANDS if not isinstance(c, click.Group) and p[0] not in NO_JSON],
    ids=[
        i
        for i, (p, c) in zip(IDS, COMMANDS, strict=True)
        if not isinstance(c, click.Group) and p[0] not in NO_JSON
    ],
)
def test_every_command_has_a_json_mode(path: tuple[str, ...], command: click.Command) -> None:
    flags = {opt for param in command.params for opt in getattr(param, "opts", [])}
    assert "--json" in flags, f"`brainkeep {' '.join(path)}` has no --json"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_the_registry_summary_is_the_commands_short_help(name: str) -> None:
    """The root help lists registry summaries without importing: they must not drift."""
    command = subcommands(cli)[name]
    assert command.name == name
    assert REGISTRY[name].summary == command.get_short_help_str(limit=10_000)


def test_the_summary_check_can_fail() -> None:
    group = LazyGroup(lazy={"serve": type(REGISTRY["serve"])(
        REGISTRY["serve"].target, "Something else entirely.")})
    command = subcommands(group)["serve"]
    assert command.get_short_help_str(limit=10_000) != group.lazy["serve"].summary
