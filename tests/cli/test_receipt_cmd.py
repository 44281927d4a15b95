"""Forget receipts on the CLI: forget --redact, verify --receipt FILE, receipt SEQ.

In-process through click's runner on a real brain file; the signing key
comes from the environment the way a server's would.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from brainkeep.core import signing

RunCli = Callable[..., Result]


@pytest.fixture
def erased(run_cli: RunCli, tmp_path: Path) -> tuple[Path, dict[str, object]]:
    """A fact erased with forget --redact; its --json output saved to a file."""
    assert run_cli("init").exit_code == 0
    assert run_cli("remember", "the locker code is 4417", "-p", "chat").exit_code == 0
    result = run_cli("forget", "1", "--redact", "--json")
    assert result.exit_code == 0, result.output
    response = json.loads(result.output)
    path = tmp_path / "forget.json"
    path.write_text(result.output)
    return path, response


def test_forget_redact_prints_the_receipt_and_verify_checks_it(run_cli: RunCli, erased) -> None:
    path, response = erased
    assert response["redacted"] is True and response["receipt"]["event"]["kind"] == "memory.erase"
    checked = run_cli("verify", "--receipt", str(path))
    assert checked.exit_code == 0, checked.output
    assert "valid" in checked.output and "unsigned" in checked.output
    assert run_cli("recall", "--grep", "4417", "--include-expired", "--json").output.count(
        "4417") == 0


def test_an_edited_receipt_fails_with_its_problem(run_cli: RunCli, erased, tmp_path) -> None:
    path, response = erased
    receipt = dict(response["receipt"])  # type: ignore[call-overload]
    receipt["purged"] = {**receipt["purged"], "vectors": 3}
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(receipt))
    result = run_cli("verify", "--receipt", str(edited), "--json")
    assert result.exit_code == 1
    assert json.loads(result.output)["problems"] == [
        "the purged counts differ from the ones the event logged"]
    not_json = tmp_path / "bad.json"
    not_json.write_text("{}")
    assert run_cli("verify", "--receipt", str(not_json)).exit_code == 2


def test_receipt_seq_reissues_a_signed_receipt(run_cli: RunCli, erased, tmp_path,
                                               monkeypatch) -> None:
    _, response = erased
    seq = response["receipt"]["event"]["seq"]  # type: ignore[index]
    key_path = tmp_path / "keys" / "signing"
    key_path.parent.mkdir()
    key = signing.write_key_file(key_path)
    monkeypatch.setenv(signing.ENV_KEY_FILE, str(key_path))
    out = tmp_path / "again.json"
    assert run_cli("receipt", str(seq), "--out", str(out)).exit_code == 0
    again = json.loads(out.read_text())
    assert again["signature"]["key_fingerprint"] == signing.fingerprint(key.public_key())
    assert again["purged"] == response["receipt"]["purged"]  # type: ignore[index]
    assert again["scrub"] == {"reissued": True}
    checked = run_cli("verify", "--receipt", str(out), "--public-key", f"{key_path}.pub")
    assert checked.exit_code == 0, checked.output
    assert "(the trusted key)" in checked.output
    # Not an erasure event: not_found.
    assert run_cli("receipt", "1").exit_code == 3
