"""A click group whose subcommands are imported only when one of them runs.

`brainkeep --help` and every one-shot command used to import every command
module, and with them the whole brain (numpy, the providers, psycopg, the
MCP SDK for `serve`): 0.6-0.7 s before anything happened. Here a command is a
registry entry ``name -> LazyCommand("module:attr", summary)``: the module is
imported when the command is invoked or its own help is asked for, and the
root help lists the summaries without importing anything.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import click


@dataclass(frozen=True)
class LazyCommand:
    """Where a command lives and the one line the root help shows for it.

    ``target`` is ``"module:attr"``; ``attr`` is a ``click.Command``, or a
    factory ``(name) -> click.Command`` (the verb commands are generated from
    the catalog). ``summary`` must equal the loaded command's short help
    (``tests/cli/test_help.py`` checks it, so the listing cannot drift).
    """

    target: str
    summary: str

    def load(self, name: str) -> click.Command:
        module_name, _, attr = self.target.partition(":")
        found = getattr(importlib.import_module(module_name), attr)
        command = found if isinstance(found, click.Command) else found(name)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.target} did not give a click command for {name!r}")
        return command


class LazyGroup(click.Group):
    """A group of registry commands (``lazy``) plus any added eagerly with ``add_command``."""

    def __init__(self, *args: Any, lazy: Mapping[str, LazyCommand] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, LazyCommand] = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = self.commands.get(cmd_name)
        if command is None and cmd_name in self.lazy:
            command = self.lazy[cmd_name].load(cmd_name)
            self.commands[cmd_name] = command  # load once per process
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The root listing from the registry's summaries: nothing is imported for it."""
        names = [name for name in self.list_commands(ctx)
                 if name in self.commands or name in self.lazy]
        shown = [name for name in names
                 if not (name in self.commands and self.commands[name].hidden)]
        if not shown:
            return
        limit = formatter.width - 6 - max(len(name) for name in shown)
        rows = []
        for name in shown:
            if name in self.commands:
                text = self.commands[name].get_short_help_str(limit)
            else:
                # Shortened exactly as click shortens a help text (never imports the command).
                text = click.Command(name, help=self.lazy[name].summary).get_short_help_str(limit)
            rows.append((name, text))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def loaded_commands(self, ctx: click.Context) -> dict[str, click.Command]:
        """Every command, imported (drift tests and docs checks walk them all)."""
        commands = {name: self.get_command(ctx, name) for name in self.list_commands(ctx)}
        return {name: command for name, command in commands.items() if command is not None}
