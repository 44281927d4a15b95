"""End to end: our own `brainkeep serve` (a real stdio subprocess) certifies itself.

Also covers the rest of `brainkeep protocol` on a real brain: the summary,
the JSON document, usage stats written by those verb calls, and doctor's line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from brainkeep.cli.main import cli
from brainkeep.ops.response_schemas import VERB_NAMES
from tests.brain_engines import engine_home

from .servers import free_port, http_server


def invoke(home: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--home", str(home), *args])


@pytest.fixture
def home(tmp_path: Path, brain_engine: str) -> Iterator[Path]:
    # On postgres the config names a fresh database before `init` (conftest.py).
    with engine_home(tmp_path / "brain", brain_engine) as brain:
        result = invoke(brain, "init")
        assert result.exit_code == 0, result.output
        yield brain


def test_self_certification_passes_and_is_recorded(home: Path) -> None:
    plain = invoke(home, "protocol", "conformance")
    assert plain.exit_code == 0, plain.output
    assert plain.output.splitlines()[0] == "MEMORY_VERBS v1 conformance — target: self (stdio)"
    assert plain.output.rstrip().endswith("\nCONFORMANT")

    # --synthesize with no chat model: synthesize must answer the clean `unavailable`.
    synth = invoke(home, "protocol", "conformance", "--synthesize", "--json")
    assert synth.exit_code == 0, synth.output
    doc = json.loads(synth.output)
    assert doc["ok"] is True and doc["failed"] == 0 and doc["skipped"] == 0
    synth_results = [r for r in doc["results"] if r["verb"] == "synthesize"]
    assert synth_results and all(r["status"] == "pass" for r in synth_results)

    # Every verb call above went through dispatch and landed in the usage log.
    stats = invoke(home, "protocol", "stats", "--json")
    assert stats.exit_code == 0, stats.output
    data = json.loads(stats.output)
    assert set(data["by_verb"]) == set(VERB_NAMES)
    assert data["total_calls"] == 2 * 21 + 2  # 21 non-synthesize cases per run, 2 synthesize
    assert data["by_verb"]["synthesize"]["errors"] == 2
    assert data["by_verb"]["entity"]["found"] == 4 and data["by_verb"]["entity"]["miss"] == 2
    assert data["tthw_install_to_first_verb"] is not None
    assert data["sidecar"] == str(home.resolve() / "usage.jsonl")

    human = invoke(home, "protocol", "stats", "--days", "7")
    assert human.exit_code == 0 and "last 7 days" in human.output
    assert "after install" in human.output

    doctor = invoke(home, "doctor", "--json")
    assert doctor.exit_code == 0, doctor.output
    usage = json.loads(doctor.output)["memory_verbs_usage"]
    assert usage["ok"] is True and "44 verb calls in 30d" in usage["message"]


def test_the_home_is_on_the_engine_under_test(home: Path, brain_engine: str) -> None:
    described = invoke(home, "doctor", "--json")
    assert described.exit_code == 0, described.output
    assert json.loads(described.output)["engine"] == brain_engine


def test_self_certification_needs_a_brain(tmp_path: Path) -> None:
    result = invoke(tmp_path / "nothing-here", "protocol", "conformance")
    assert result.exit_code != 0
    assert "brainkeep init" in result.output


def test_protocol_summary_and_json_document(home: Path) -> None:
    summary = invoke(home, "protocol")
    assert summary.exit_code == 0, summary.output
    assert summary.output.startswith("MEMORY_VERBS v1 — 7 memory verbs over MCP")
    assert "  remember(fact, provenance, " in summary.output
    assert "  entity(name)" in summary.output
    assert "brainkeep protocol --json" in summary.output

    document = invoke(home, "protocol", "--json")
    assert document.exit_code == 0, document.output
    doc = json.loads(document.output)
    assert doc["protocol"] == "MEMORY_VERBS" and doc["protocol_version"] == 1
    assert list(doc["verbs"]) == list(VERB_NAMES)
    assert doc["verbs"]["synthesize"]["description"].startswith("[EXPENSIVE")
    assert doc["error_schema"]["required"] == ["error", "message"]


def test_stats_without_calls(home: Path) -> None:
    # An unparseable --days is a caller mistake (exit 2), never a silent 30.
    assert invoke(home, "protocol", "stats", "--days", "nonsense").exit_code == 2
    result = invoke(home, "protocol", "stats")
    assert result.exit_code == 0, result.output
    assert "last 30 days" in result.output
    assert "no verb calls recorded yet" in result.output
    assert "no verb calls since install" in result.output


def test_python_dash_m_runs_the_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "brainkeep", "--version"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("brainkeep")


# ── our own Streamable HTTP transport, certified with a bearer token ───────


def _create_token(home: Path, name: str, scopes: str) -> str:
    result = invoke(home, "token", "create", "--name", name, "--scopes", scopes, "--json")
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["secret"])


@pytest.fixture
def http_url(home: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    argv = [sys.executable, "-m", "brainkeep", "serve", "--http", "--port", str(port)]
    with http_server(argv, port, env=env) as url:
        yield url


def test_http_self_certification_with_a_write_token(home: Path, http_url: str) -> None:
    secret = _create_token(home, "conformance", "write")
    result = invoke(home, "protocol", "conformance", "--synthesize", "--json",
                    "--target", http_url, "--token", secret)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["ok"] is True and doc["skipped"] == 0
    assert secret not in result.output


def test_http_read_only_token_is_not_enough(home: Path, http_url: str) -> None:
    secret = _create_token(home, "reader", "read")
    result = invoke(home, "protocol", "conformance", "--target", http_url, "--token", secret)
    assert result.exit_code == 1
    assert "the run needs a token with the write scope" in result.output
