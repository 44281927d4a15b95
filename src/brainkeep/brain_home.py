"""Where a brain lives, read without the settings machinery: its folder, config file and URL.

The one place these rules are written: ``config.Settings`` answers through
them, and so does a hook process, which reads them before anything else and
must not import ``config`` (its dataclasses import ``inspect``, ~7 ms of a
hook run that is a fresh process per prompt).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from brainkeep.errors import InvalidInput

DB_FILENAME = "brain.db"
CONFIG_FILENAME = "config.json"
# The run-time PostgreSQL URL: wins over config `database.url` and may carry
# the password (which the config file never does).
DATABASE_URL_ENV = "BRAINKEEP_DATABASE_URL"


def default_home(env: Mapping[str, str]) -> Path:
    """``$BRAINKEEP_HOME`` or ``~/.brainkeep``."""
    raw = env.get("BRAINKEEP_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".brainkeep"


def read_config(home: Path) -> dict[str, Any]:
    """The config file's values (missing file: none); ``InvalidInput`` when it is unreadable."""
    path = home / CONFIG_FILENAME
    if not path.exists():
        return {}
    try:
        values = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInput(
            f"Cannot read config file {path}.",
            suggestion="Fix or delete the file, then run `brainkeep init` again.",
            detail=str(exc),
        ) from exc
    return dict(values)


def database_url(values: Mapping[str, Any], env: Mapping[str, str]) -> str | None:
    """The PostgreSQL brain to open (None: the SQLite file in the home).

    ``BRAINKEEP_DATABASE_URL`` wins over config ``database.url``: it is how a
    password reaches the process without touching the config file.
    """
    url = env.get(DATABASE_URL_ENV) or values.get("database.url") or ""
    return str(url).strip() or None


def has_brain(home: Path, values: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """True when a brain was set up here: a PostgreSQL URL, or the SQLite file."""
    return database_url(values, env) is not None or (home / DB_FILENAME).exists()
