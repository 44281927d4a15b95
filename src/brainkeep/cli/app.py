"""Shared CLI plumbing: the per-invocation context, output, and error edge."""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from brainkeep.cli.lazy import LazyGroup
from brainkeep.config import Settings, load_settings
from brainkeep.errors import BrainkeepError, InvalidInput, NotFound

if TYPE_CHECKING:  # the brain loads when a command opens it, not for `--help`
    from brainkeep.brain import Brain
    from brainkeep.core.context import Caller
    from brainkeep.core.ports.store import Store

# CLI exit codes per error code (documented in docs/cli.md).
EXIT_CODES = {
    "internal": 1,
    "invalid_params": 2,
    "provenance_required": 2,
    "not_found": 3,
    "scope_denied": 4,
    "unavailable": 5,
}
# A retryable error (``Busy``: another writer held the lock past the busy
# timeout) shares the wire code `unavailable` with a missing provider, but a
# script must tell "retry now" from "fix the config", so it exits 6.
EXIT_RETRYABLE = 6
# The reader of stdout went away (`brainkeep list | head -3`): the output was
# cut short on purpose, nothing failed. 128 + SIGPIPE, as a shell reports it.
EXIT_BROKEN_PIPE = 141

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class CliContext:
    """Per-invocation state: where the brain lives, output mode, the tenant, the open brain."""

    home: Path | None = None
    json_mode: bool = False
    # Root `--org` (already validated): the tenant memory commands act in.
    org_id: str | None = None
    _settings: Settings | None = None
    _brain: Brain | None = field(default=None, repr=False)
    _store: Store | None = field(default=None, repr=False)

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = load_settings(self.home)
        return self._settings

    @property
    def caller(self) -> Caller:
        """The trusted local caller, in the tenant `--org` chose (default: no org)."""
        from brainkeep.core.context import LOCAL

        return LOCAL if self.org_id is None else replace(LOCAL, org_id=self.org_id)

    def brain(self, *, must_exist: bool = True) -> Brain:
        """Open the brain (once per invocation)."""
        if self._brain is None:
            self._require_brain(must_exist)
            if self._store is not None:  # the brain opens its own store
                self._store.close()
                self._store = None
            from brainkeep.brain import open_brain

            self._brain = open_brain(self.settings)
        return self._brain

    def store(self, *, must_exist: bool = True) -> Store:
        """Only the brain's store, for commands that need no provider or search (init, doctor).

        Opening just the store skips loading an embedding model and building
        the search index, which `doctor` must not depend on.
        """
        if self._brain is not None:
            return self._brain.store
        if self._store is None:
            self._require_brain(must_exist)
            from brainkeep.brain import open_store

            self._store = open_store(self.settings)
        return self._store

    def require_brain(self) -> None:
        """Fail (the usual `No brain` error) unless a brain exists, without opening it."""
        self._require_brain(True)

    def _require_brain(self, must_exist: bool) -> None:
        if must_exist and not self.settings.has_brain:
            # Not a bug of ours: the brain the user named does not exist (exit 3).
            raise NotFound(
                f"No brain at {self.settings.home}.",
                suggestion="Run `brainkeep init` first (or pass --home / set BRAINKEEP_HOME).",
            )

    def close(self) -> None:
        if self._brain is not None:
            self._brain.close()
            self._brain = None
        if self._store is not None:
            self._store.close()
            self._store = None


def _set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.ensure_object(CliContext).json_mode = True
    return value


def json_option(func: F) -> F:
    """Add `--json`: print machine-readable JSON instead of human output."""
    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=_set_json,
        help="Print JSON instead of human-readable output.",
    )(func)


def emit(cli: CliContext, data: Any, human: Callable[[], None] | str | None = None) -> None:
    """Print ``data`` as JSON in --json mode, else the human rendering."""
    if cli.json_mode or human is None:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
    elif isinstance(human, str):
        click.echo(human)
    else:
        human()


def report_error(cli: CliContext, payload: dict[str, Any], *, retryable: bool = False) -> int:
    """Print an error payload to stderr (JSON in --json mode); return its exit code."""
    if cli.json_mode:
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False), err=True)
    else:
        click.echo(f"error: {payload['message']}", err=True)
        click.echo(f"  fix: {payload['suggestion']}", err=True)
        if payload.get("detail"):
            click.echo(f"  detail: {payload['detail']}", err=True)
    return EXIT_RETRYABLE if retryable else EXIT_CODES.get(payload["error"], 1)


class BrainkeepGroup(LazyGroup):
    """The root group, the CLI's error edge: every failure becomes stderr text and an exit code.

    Our errors map through ``EXIT_CODES``; a closed stdout exits quietly with
    ``EXIT_BROKEN_PIPE``; anything else is reported as `internal` (exit 1)
    with its type and message, the traceback only under ``BRAINKEEP_DEBUG=1``.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # Undecodable argv bytes arrive as lone surrogates (PEP 383) and would
        # fail deep inside SQLite or an encoder; refuse them before any command.
        for arg in args:
            if not _is_utf8(arg):
                cli = ctx.ensure_object(CliContext)
                cli.json_mode = "--json" in args
                shown = arg.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
                error = InvalidInput(
                    f"The argument '{shown}' is not valid UTF-8 text.",
                    suggestion="Pass slugs, queries and values as UTF-8 (check the shell's "
                    "locale or the script's encoding).",
                    field="argv",
                )
                ctx.exit(report_error(cli, error.payload()))
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrainkeepError as exc:
            cli = ctx.ensure_object(CliContext)
            ctx.exit(report_error(cli, exc.payload(), retryable=exc.retryable))
        except BrokenPipeError:
            _discard_stdout()
            ctx.exit(EXIT_BROKEN_PIPE)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as exc:  # noqa: BLE001 — the edge converts, never swallows
            if os.environ.get("BRAINKEEP_DEBUG"):
                traceback.print_exc()
            cli = ctx.ensure_object(CliContext)
            error = BrainkeepError(
                "Internal error: brainkeep hit a bug.",
                suggestion="Retry; if it persists, run `brainkeep doctor` and report this "
                "message (BRAINKEEP_DEBUG=1 prints the traceback).",
                detail=f"{type(exc).__name__}: {exc}",
            )
            ctx.exit(report_error(cli, error.payload()))
        finally:
            ctx.ensure_object(CliContext).close()


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _discard_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real descriptor (click's test runner): nothing will flush
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def read_text_arg(path: str | None) -> str:
    """Read content from a file path, or from stdin when path is None or '-'."""
    if path in (None, "-"):
        if sys.stdin.isatty():
            raise InvalidInput(
                "No content given.",
                suggestion="Pass --file PATH, or pipe the markdown on stdin.",
            )
        try:
            return sys.stdin.read()
        except UnicodeDecodeError as exc:
            raise InvalidInput(
                "stdin is not UTF-8 text.",
                suggestion="Pipe UTF-8 markdown, or pass --file PATH.",
                detail=str(exc),
            ) from exc
    file = Path(path)
    if not file.is_file():
        raise InvalidInput(
            f"No such file: {path}", suggestion="Check the path and retry.", field="file"
        )
    try:
        return file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{path} is not UTF-8 text.",
            suggestion="Save the file as UTF-8 (markdown) and retry.",
            detail=str(exc),
            field="file",
        ) from exc
    except OSError as exc:
        raise InvalidInput(
            f"Cannot read {path}.", suggestion="Check the file's permissions.", detail=str(exc),
            field="file",
        ) from exc
