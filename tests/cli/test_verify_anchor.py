"""Issue 10, item 12: the chain head, anchors outside the database, signed checkpoints.

Attacks run as an attacker would: a second sqlite3 connection truncates the
tail, or rewrites a memory and recomputes every hash with the public
encoding (core/audit.py). Plain ``verify`` cannot see either; an anchor kept
outside the brain (``--expect-head``) and a trusted key can.
"""

from __future__ import annotations

import base64
import json
import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from brainkeep.core.audit import GENESIS, event_body, event_hash, memory_hash

RunCli = Callable[..., Result]


@pytest.fixture
def filled(run_cli: RunCli) -> None:
    assert run_cli("init").exit_code == 0
    run_cli("put", "people/alice", input="# Alice\n\nLikes tea.\n")
    for i in range(5):
        assert run_cli("remember", f"fact number {i}", "-p", "test").exit_code == 0


def connect(home: Path) -> sqlite3.Connection:
    return sqlite3.connect(home / "brain.db")


def verify_json(run_cli: RunCli, *args: str) -> tuple[int, dict[str, Any]]:
    result = run_cli("verify", "--json", *args)
    return result.exit_code, json.loads(result.stdout)


def tip(home: Path) -> tuple[int, str]:
    conn = connect(home)
    try:
        seq, digest = conn.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1"
                                   ).fetchone()
    finally:
        conn.close()
    return int(seq), str(digest)


def truncate_after(home: Path, seq: int) -> None:
    """Delete every event after ``seq`` and the memory rows those events inserted."""
    conn = connect(home)
    try:
        with conn:
            uuids = [r[0] for r in conn.execute(
                "SELECT subject_id FROM events WHERE seq > ? AND kind = 'memory.insert'",
                (seq,))]
            for uuid in uuids:
                conn.execute("DELETE FROM memories WHERE uuid = ?", (uuid,))
            conn.execute("DELETE FROM events WHERE seq > ?", (seq,))
    finally:
        conn.close()


def recompute_chain(conn: sqlite3.Connection) -> None:
    """Rewrite every event's prev_hash and hash, as an attacker with the spec would."""
    prev = GENESIS
    rows = conn.execute("SELECT seq, ts, source_id, kind, subject_type, subject_id, actor, "
                        "payload FROM events ORDER BY seq").fetchall()
    for seq, ts, source_id, kind, subject_type, subject_id, actor, payload in rows:
        body = event_body(seq=seq, ts=ts, source_id=source_id, kind=kind,
                          subject_type=subject_type, subject_id=subject_id, actor=actor,
                          payload=json.loads(payload))
        digest = event_hash(prev, body)
        conn.execute("UPDATE events SET prev_hash = ?, hash = ? WHERE seq = ?",
                     (prev, digest, seq))
        prev = digest


def rewrite_newest_memory(home: Path, text: str) -> None:
    """Change the newest memory's text and make every hash agree again."""
    conn = connect(home)
    try:
        with conn:
            uuid, agent, created = conn.execute(
                "SELECT uuid, agent_id, created_at FROM memories ORDER BY id DESC LIMIT 1"
            ).fetchone()
            digest = memory_hash(text, agent, created)
            conn.execute("UPDATE memories SET text = ?, normalized_text = ?, content_hash = ? "
                         "WHERE uuid = ?", (text, text.lower(), digest, uuid))
            for seq, payload in conn.execute(
                "SELECT seq, payload FROM events WHERE subject_id = ?", (uuid,)
            ).fetchall():
                body = json.loads(payload)
                body["content_hash"] = digest
                conn.execute("UPDATE events SET payload = ? WHERE seq = ?",
                             (json.dumps(body, ensure_ascii=False, sort_keys=True), seq))
            recompute_chain(conn)
    finally:
        conn.close()


# -- the head ---------------------------------------------------------------------------


def test_verify_prints_the_head(run_cli: RunCli, home: Path, filled: None) -> None:
    seq, digest = tip(home)
    code, report = verify_json(run_cli)
    assert code == 0
    assert report["head"] == {"seq": seq, "hash": digest, "anchor": f"{seq}:{digest}"}
    human = run_cli("verify")
    assert human.exit_code == 0
    assert f"head: {seq}:{digest}" in human.stdout


def test_expect_head_passes_while_the_chain_extends_it(run_cli: RunCli, home: Path,
                                                       filled: None) -> None:
    seq, digest = tip(home)
    assert run_cli("remember", "a later fact", "-p", "test").exit_code == 0
    code, report = verify_json(run_cli, "--expect-head", f"{seq}:{digest}")
    assert code == 0
    assert report["expect_head"]["ok"] is True
    assert report["head"]["seq"] == seq + 1


def test_expect_head_rejects_a_malformed_anchor(run_cli: RunCli, filled: None) -> None:
    result = run_cli("verify", "--expect-head", "12:nothex")
    assert result.exit_code == 2
    assert "not a chain head" in result.stderr


# -- attacks plain verify cannot see ------------------------------------------------------


def test_tail_truncation_fails_expect_head(run_cli: RunCli, home: Path, filled: None) -> None:
    seq, digest = tip(home)
    truncate_after(home, seq - 2)  # the two newest memories and their events

    code, _ = verify_json(run_cli)
    assert code == 0  # consistent on its own: only the anchor can tell
    code, report = verify_json(run_cli, "--expect-head", f"{seq}:{digest}")
    assert code == 1
    assert report["valid"] is False
    assert report["expect_head"]["ok"] is False
    assert "truncated" in report["expect_head"]["reason"]
    human = run_cli("verify", "--expect-head", f"{seq}:{digest}")
    assert human.exit_code == 1
    assert "BROKEN" in human.stdout


def test_full_recompute_fails_expect_head(run_cli: RunCli, home: Path, filled: None) -> None:
    seq, digest = tip(home)
    rewrite_newest_memory(home, "fact number 4, rewritten")

    code, _ = verify_json(run_cli)
    assert code == 0  # every hash agrees again
    code, report = verify_json(run_cli, "--expect-head", f"{seq}:{digest}")
    assert code == 1
    assert "rewritten" in report["expect_head"]["reason"]


# -- signed checkpoints -------------------------------------------------------------------


@pytest.fixture
def key_file(run_cli: RunCli, tmp_path: Path) -> Path:
    path = tmp_path / "keys" / "brainkeep.key"
    path.parent.mkdir()
    result = run_cli("verify", "--keygen", str(path))
    assert result.exit_code == 0, result.output
    return path


def _seed(path: Path) -> bytes:
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    return key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                             serialization.NoEncryption())


def test_keygen_writes_a_private_file_outside_the_brain(run_cli: RunCli, home: Path,
                                                        key_file: Path, filled: None) -> None:
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert (key_file.parent / "brainkeep.key.pub").exists()
    assert run_cli("verify", "--keygen", str(key_file)).exit_code == 2  # never overwrites
    inside = run_cli("verify", "--keygen", str(home / "brainkeep.key"))
    assert inside.exit_code == 2
    assert not (home / "brainkeep.key").exists()


def test_sign_appends_a_checkpoint_and_verify_checks_it(
    run_cli: RunCli, home: Path, key_file: Path, filled: None
) -> None:
    seq, digest = tip(home)
    code, report = verify_json(run_cli, "--sign", "--signing-key", str(key_file))
    assert code == 0
    assert report["signed"]["head"] == {"seq": seq, "hash": digest, "anchor": f"{seq}:{digest}"}
    assert report["head"]["seq"] == seq + 1 == report["signed"]["checkpoint_seq"]
    conn = connect(home)
    try:
        kind, payload = conn.execute("SELECT kind, payload FROM events WHERE seq = ?",
                                     (seq + 1,)).fetchone()
    finally:
        conn.close()
    assert kind == "chain.checkpoint"
    payload = json.loads(payload)
    assert {"seq", "hash", "signature", "key_fingerprint"} <= set(payload)
    assert (payload["seq"], payload["hash"]) == (seq, digest)

    pub = str(key_file) + ".pub"
    code, report = verify_json(run_cli, "--public-key", pub)
    assert code == 0
    assert report["checkpoints_checked"] == 1
    assert report["checkpoints_trusted"] is True
    assert "1 signatures checked against the trusted key" in run_cli(
        "verify", "--public-key", pub).stdout

    # The private key is in no file of the brain folder, in any encoding.
    seed = _seed(key_file)
    needles = [seed, base64.b64encode(seed), key_file.read_bytes().strip()]
    for root, _dirs, files in os.walk(home):
        for name in files:
            data = (Path(root) / name).read_bytes()
            assert not any(n in data for n in needles), name


def test_a_checkpoint_signed_by_another_key_fails(
    run_cli: RunCli, home: Path, key_file: Path, tmp_path: Path, filled: None
) -> None:
    other = tmp_path / "keys" / "mallory.key"
    assert run_cli("verify", "--keygen", str(other)).exit_code == 0
    assert verify_json(run_cli, "--sign", "--signing-key", str(other))[0] == 0

    code, report = verify_json(run_cli, "--public-key", str(key_file) + ".pub")
    assert code == 1
    assert report["first_broken"]["kind"] == "event"
    assert "another key" in report["first_broken"]["reason"]


def test_a_forged_signature_fails_even_without_a_trusted_key(
    run_cli: RunCli, home: Path, key_file: Path, filled: None
) -> None:
    assert verify_json(run_cli, "--sign", "--signing-key", str(key_file))[0] == 0
    conn = connect(home)
    try:
        with conn:
            seq, payload = conn.execute(
                "SELECT seq, payload FROM events WHERE kind = 'chain.checkpoint'").fetchone()
            body = json.loads(payload)
            body["signature"] = base64.b64encode(b"\0" * 64).decode()
            conn.execute("UPDATE events SET payload = ? WHERE seq = ?",
                         (json.dumps(body, sort_keys=True), seq))
            recompute_chain(conn)
    finally:
        conn.close()
    code, report = verify_json(run_cli)
    assert code == 1
    assert report["first_broken"]["reason"] == "checkpoint signature does not verify"


def test_truncation_below_a_signed_checkpoint_needs_the_outside_head(
    run_cli: RunCli, home: Path, key_file: Path, filled: None
) -> None:
    code, report = verify_json(run_cli, "--sign", "--signing-key", str(key_file))
    assert code == 0
    anchored = report["head"]["anchor"]  # the head to store outside the brain
    truncate_after(home, report["signed"]["head"]["seq"] - 2)  # checkpoint goes too

    pub = str(key_file) + ".pub"
    assert verify_json(run_cli, "--public-key", pub)[0] == 0  # no checkpoint left to fail
    code, report = verify_json(run_cli, "--public-key", pub, "--expect-head", anchored)
    assert code == 1
    assert "truncated" in report["expect_head"]["reason"]


def test_signing_key_from_the_environment(
    run_cli: RunCli, home: Path, key_file: Path, filled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAINKEEP_SIGNING_KEY", base64.b64encode(_seed(key_file)).decode())
    code, report = verify_json(run_cli, "--sign")
    assert code == 0
    # The key in the environment is also the trusted one for later checks.
    code, report = verify_json(run_cli)
    assert code == 0 and report["checkpoints_trusted"] is True
    monkeypatch.delenv("BRAINKEEP_SIGNING_KEY")
    monkeypatch.setenv("BRAINKEEP_SIGNING_KEY_FILE", str(key_file))
    code, report = verify_json(run_cli, "--sign", "--full")  # full: walks the first checkpoint
    assert code == 0 and report["checkpoints_checked"] == 1


def test_sign_refuses_a_broken_chain_and_needs_a_key(
    run_cli: RunCli, home: Path, key_file: Path, filled: None
) -> None:
    assert run_cli("verify", "--sign").exit_code == 2  # no key configured
    conn = connect(home)
    try:
        with conn:
            conn.execute("UPDATE memories SET text = 'edited' WHERE text = 'fact number 1'")
    finally:
        conn.close()
    before = tip(home)
    assert run_cli("verify", "--sign", "--signing-key", str(key_file)).exit_code == 1
    assert tip(home) == before  # nothing signed
