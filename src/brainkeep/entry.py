"""The `brainkeep` console script: `brainkeep hook ...` skips click, the rest is the CLI.

A hook is a fresh process per prompt with a budget of tens of milliseconds;
click and the command registry cost a good part of that before a hook could
read its stdin. `brainkeep hook --help` still goes through click, so the help
stays the command's own.
"""

from __future__ import annotations

import sys

HELP_FLAGS = frozenset({"-h", "--help"})


def main() -> None:
    argv = sys.argv
    if len(argv) > 2 and argv[1] == "hook" and not HELP_FLAGS & set(argv[2:]):
        from brainkeep.hooks.entry import main as hook_main

        raise SystemExit(hook_main())
    from brainkeep.cli.main import main as cli_main

    cli_main()
