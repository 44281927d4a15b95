"""The runner against real server processes: it passes an honest one and FAILS liars.

The fake server (fake_verbs_server.py) is a separate implementation on the
official MCP SDK, spawned over stdio or served over Streamable HTTP, so these
tests exercise the same client adapters `--target` uses.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from brainkeep.cli.main import cli
from brainkeep.conformance import parse_target, run_conformance
from brainkeep.conformance.report import ConformanceReport

from .servers import free_port
from .servers import http_server as http_server_process

FAKE = Path(__file__).with_name("fake_verbs_server.py")
PYTHON = sys.executable


def stdio_target(*flags: str) -> str:
    # The target string is split on whitespace, so no path here may contain a space.
    assert " " not in PYTHON and " " not in str(FAKE)
    return " ".join([PYTHON, str(FAKE), *flags])


def failed_names(report: ConformanceReport) -> set[str]:
    return {result.name for result in report.failures()}


def test_honest_stdio_server_is_conformant() -> None:
    report = run_conformance(parse_target(stdio_target()), synthesize=True, marker="run-honest")
    assert report.ok, report.render()
    assert report.skipped == 0 and report.passed == 31


def test_lying_stdio_server_fails_the_right_cases() -> None:
    target = parse_target(
        stdio_target("--lie", "drop-status,numeric-fact-id,no-protocol-version")
    )
    report = run_conformance(target, marker="run-liar")
    assert not report.ok
    failed = failed_names(report)
    assert {
        "remember: writes a fact (string id, status enum, protocol_version)",
        "remember: ttl shorthand sets valid_until",
        "recall: remember -> recall by entity round-trip",
        "entity: a miss is found:false with suggestions, not an error",
        "forget: expires a fact",
        "context_pack: unknown entities give an empty pack, not an error",
        "delta: since is echoed normalized to ISO with milliseconds",
    } <= failed
    by_name = {result.name: result for result in report.results}
    round_trip = str(by_name["recall: remember -> recall by entity round-trip"].detail)
    assert "fact_id: expected string, got integer" in round_trip
    remember = str(by_name["remember: writes a fact (string id, status enum, protocol_version)"]
                   .detail)
    assert "missing required field 'status'" in remember
    # the checks a lie does not touch still pass: the verdict is specific, not blanket
    assert by_name["remember: blank provenance is provenance_required with a fix"].status == "pass"


def test_absorbed_status_fails() -> None:
    report = run_conformance(parse_target(stdio_target("--lie", "absorbed")), marker="run-abs")
    assert failed_names(report) == {
        "remember: writes a fact (string id, status enum, protocol_version)",
        "remember: ttl shorthand sets valid_until",
        "remember: private commitment accepted (setup for the privacy fence)",
    }


def test_verbs_only_target_skips_entity_card_cases() -> None:
    report = run_conformance(parse_target(stdio_target("--verbs-only")), marker="run-vo")
    assert report.ok, report.render()
    skipped = {r.name for r in report.results if r.status == "skip"}
    assert "entity: the seeded page resolves to a card" in skipped


def test_unstartable_target_is_a_failed_connect_check() -> None:
    report = run_conformance(parse_target(f"{PYTHON} -c pass"), marker="run-dead")
    assert not report.ok
    assert [r.name for r in report.results] == ["connect"]


def test_cli_exit_codes_and_json() -> None:
    runner = CliRunner()
    liar = runner.invoke(cli, ["protocol", "conformance", "--target",
                               stdio_target("--lie", "absorbed")])
    assert liar.exit_code == 1, liar.output
    assert "NOT CONFORMANT" in liar.output
    assert "✗ remember: writes a fact" in liar.output

    honest = runner.invoke(cli, ["protocol", "conformance", "--json", "--target", stdio_target()])
    assert honest.exit_code == 0, honest.output
    doc = json.loads(honest.output)
    assert doc["ok"] is True and doc["failed"] == 0 and doc["skipped"] == 2
    assert doc["target"].endswith("fake_verbs_server.py")
    assert {"name", "verb", "status", "detail"} == set(doc["results"][0])


# ── Streamable HTTP with a bearer token ────────────────────────────────────


@pytest.fixture
def http_server() -> Iterator[str]:
    port = free_port()
    argv = [PYTHON, str(FAKE), "--http", str(port), "--token", "s3cret"]
    with http_server_process(argv, port, startup_s=20) as url:
        yield url


def test_http_target_with_bearer_token(http_server: str) -> None:
    report = run_conformance(parse_target(http_server, token="s3cret"), marker="run-http")
    assert report.ok, report.render()
    assert report.target == http_server  # the token never appears in the label


def test_http_target_with_wrong_token_fails_to_connect(http_server: str) -> None:
    result = CliRunner().invoke(
        cli, ["protocol", "conformance", "--target", http_server, "--token", "wrong"]
    )
    assert result.exit_code == 1
    assert "✗ connect — cannot connect to " in result.output
    assert "wrong" not in result.output
