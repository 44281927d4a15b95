"""Shared CLI plumbing: the per-invocation context, output, and error edge."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import click

from brainkeep.brain import Brain, open_brain
from brainkeep.config import Settings, load_settings
from brainkeep.core.context import LOCAL, Caller
from brainkeep.errors import BrainkeepError, InvalidInput

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

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = load_settings(self.home)
        return self._settings

    @property
    def caller(self) -> Caller:
        """The trusted local caller, in the tenant `--org` chose (default: no org)."""
        return LOCAL if self.org_id is None else replace(LOCAL, org_id=self.org_id)

    def brain(self, *, must_exist: bool = True) -> Brain:
        """Open the brain (once per invocation)."""
        if self._brain is None:
            if must_exist and not self.settings.db_path.exists():
                raise BrainkeepError(
                    f"No brain at {self.settings.home}.",
                    suggestion="Run `brainkeep init` first (or pass --home / set BRAINKEEP_HOME).",
                )
            self._brain = open_brain(self.settings)
        return self._brain

    def close(self) -> None:
        if self._brain is not None:
            self._brain.close()
            self._brain = None


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


class BrainkeepGroup(click.Group):
    """The root group: turns our errors into stderr text and an exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrainkeepError as exc:
            cli = ctx.ensure_object(CliContext)
            ctx.exit(report_error(cli, exc.payload(), retryable=exc.retryable))
        finally:
            ctx.ensure_object(CliContext).close()


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
