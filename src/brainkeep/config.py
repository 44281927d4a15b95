"""Brain home, config file and settings.

Only composition roots (the CLI entry point, server start-up) call
``load_settings``; everything else receives the resulting ``Settings``.

The config file is ``<home>/config.json``: a flat mapping of dotted keys
(``mcp_surface``, ``embeddings.provider``, …) to values. ``KNOWN_KEYS`` lists
every key with its default and meaning; `brainkeep config` reads and writes it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brainkeep import brain_home
from brainkeep.brain_home import CONFIG_FILENAME, DB_FILENAME, default_home
from brainkeep.errors import InvalidInput

USAGE_FILENAME = "usage.jsonl"


@dataclass(frozen=True)
class ConfigKey:
    """One documented config key."""

    name: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    kind: type = str


KNOWN_KEYS: dict[str, ConfigKey] = {
    k.name: k
    for k in (
        ConfigKey("mcp_surface", "full", "Default MCP surface for `serve`.", ("full", "verbs")),
        ConfigKey(
            "store.durability",
            "full",
            "full: every acknowledged write is fsynced (survives power loss); normal: "
            "survives a crashed process, not a power cut, and commits ~10x faster.",
            ("full", "normal"),
        ),
        ConfigKey(
            "store.busy_timeout_ms",
            30_000,
            "How long a write waits for another process's lock on the brain before it "
            "fails as retryable `unavailable` (CLI exit 6).",
            kind=int,
        ),
        ConfigKey(
            "database.url",
            "",
            "PostgreSQL brain (`postgresql://user@host:port/db`, never with a password: it "
            "comes from BRAINKEEP_DATABASE_URL, PGPASSWORD or ~/.pgpass). Blank: the SQLite "
            "file brain.db in the brain home.",
        ),
        ConfigKey(
            "database.pool_min", 1, "PostgreSQL connections each process keeps open.", kind=int
        ),
        ConfigKey(
            "database.pool_max",
            10,
            "Most PostgreSQL connections one process opens (gRPC workers + HTTP handler "
            "threads; see docs/postgres.md for sizing N replicas).",
            kind=int,
        ),
        ConfigKey(
            "embeddings.provider", "none", "Embedding provider.", ("none", "local", "http")
        ),
        ConfigKey(
            "embeddings.model",
            "",
            "Embedding model (http: required; local: blank = all-MiniLM-L6-v2).",
        ),
        ConfigKey("embeddings.base_url", "", "OpenAI-compatible base URL (http provider)."),
        ConfigKey("embeddings.dimensions", 0, "Embedding dimensions (http provider).", kind=int),
        ConfigKey(
            "embeddings.api_key_env", "", "Environment variable holding the embeddings API key."
        ),
        ConfigKey(
            "embeddings.timeout_s", 30.0, "Embedding request timeout (http provider).", kind=float
        ),
        ConfigKey("embeddings.batch_size", 32, "Texts per embedding call or request.", kind=int),
        ConfigKey(
            "embeddings.worker",
            "process",
            "Where the local model runs: process (in each brainkeep process) or host (one "
            "worker process per user and machine, shared over a Unix socket; saves ~190 MiB "
            "per extra server process).",
            ("process", "host"),
        ),
        ConfigKey(
            "sparse.provider",
            "none",
            "Learned-sparse search arm: none, or local (SPLADE-tiny, shipped with brainkeep; "
            "`brainkeep embed` backfills it).",
            ("none", "local"),
        ),
        ConfigKey(
            "search.mode",
            "hybrid",
            "Page search arms: hybrid (every arm the brain has, fused), keyword (BM25 only), "
            "vector (cosine only), sparse (learned-sparse only), or a pair such as "
            "keyword+sparse; keyword answers when no chosen arm can.",
            ("hybrid", "keyword", "vector", "sparse", "keyword+vector", "keyword+sparse",
             "vector+sparse"),
        ),
        ConfigKey("chat.provider", "none", "Chat model provider.", ("none", "openai", "anthropic")),
        ConfigKey("chat.model", "", "Chat model id."),
        ConfigKey("chat.base_url", "", "Chat API base URL (blank: the provider's default)."),
        ConfigKey("chat.api_key_env", "", "Environment variable holding the chat API key."),
        ConfigKey("chat.timeout_s", 60.0, "Chat request timeout in seconds.", kind=float),
        ConfigKey(
            "chat.max_tokens", 1024, "Answer length cap for `synthesize`, in tokens.", kind=int
        ),
        ConfigKey("http.rate_per_minute", 600, "Per-token request rate limit.", kind=int),
        ConfigKey("http.ip_rate_per_minute", 1200, "Per-IP request rate limit.", kind=int),
        ConfigKey("http.max_body_bytes", 1_048_576 * 2, "HTTP request body cap.", kind=int),
        ConfigKey("http.request_timeout_s", 30.0, "Per-request timeout in seconds.", kind=float),
        ConfigKey(
            "http.header_timeout_s",
            10.0,
            "Seconds a connection gets to send complete request headers (`serve --http`, "
            "`ui`); then it is closed. 0: no limit.",
            kind=float,
        ),
        ConfigKey(
            "http.max_connections_per_address",
            64,
            "Open connections one client address may hold (`serve --http`, `ui`); more get "
            "503. Trusted proxies are exempt. 0: no cap.",
            kind=int,
        ),
        ConfigKey(
            "http.forwarded_allow_ips",
            "",
            "Reverse proxies (comma-separated IPs or networks) whose X-Forwarded-For/-Proto "
            "`serve --http` believes; blank: nobody's (the socket peer is the client).",
        ),
        ConfigKey("grpc.token", "", "Shared bearer token for gRPC (or BRAINKEEP_GRPC_TOKEN)."),
    )
}


@dataclass(frozen=True)
class Settings:
    """Everything an entry point needs to open and serve a brain."""

    home: Path
    values: dict[str, Any] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)

    @property
    def db_path(self) -> Path:
        return self.home / DB_FILENAME

    @property
    def database_url(self) -> str | None:
        """The PostgreSQL brain to open (None: the SQLite file ``db_path``)."""
        return brain_home.database_url(self.values, self.env)

    @property
    def has_brain(self) -> bool:
        """True when a brain was set up here: a PostgreSQL URL, or the SQLite file."""
        return brain_home.has_brain(self.home, self.values, self.env)

    @property
    def config_path(self) -> Path:
        return self.home / CONFIG_FILENAME

    @property
    def usage_path(self) -> Path:
        return self.home / USAGE_FILENAME

    def get(self, key: str) -> Any:
        if key in self.values:
            return self.values[key]
        spec = KNOWN_KEYS.get(key)
        return None if spec is None else spec.default


def load_settings(home: Path | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Read the config file of ``home`` (missing file: defaults)."""
    environ = dict(os.environ if env is None else env)
    root = (home or default_home(environ)).expanduser().resolve()
    return Settings(home=root, values=brain_home.read_config(root), env=environ)


def require_known(key: str) -> ConfigKey:
    """The spec of ``key``, or ``InvalidInput`` naming the way to list keys."""
    spec = KNOWN_KEYS.get(key)
    if spec is None:
        raise InvalidInput(
            f"Unknown config key {key!r}.",
            suggestion="Run `brainkeep config list` to see the known keys.",
            field="key",
        )
    return spec


def coerce_value(key: str, raw: str) -> Any:
    """Check and convert a config value given as text.

    Raises:
        InvalidInput: unknown key, bad choice, or wrong type.
    """
    spec = require_known(key)
    if spec.choices and raw not in spec.choices:
        raise InvalidInput(
            f"{key} must be one of {', '.join(spec.choices)}.",
            suggestion=f"Use e.g. `brainkeep config set {key} {spec.choices[0]}`.",
            field="value",
        )
    try:
        return spec.kind(raw)
    except ValueError as exc:
        raise InvalidInput(
            f"{key} expects a {spec.kind.__name__}.", suggestion="Pass a number.", field="value"
        ) from exc


def write_values(settings: Settings, values: dict[str, Any]) -> None:
    """Write the config file atomically (write a temp file, then rename)."""
    settings.home.mkdir(parents=True, exist_ok=True)
    tmp = settings.config_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(values, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, settings.config_path)
