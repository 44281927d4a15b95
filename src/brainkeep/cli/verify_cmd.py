"""`brainkeep verify`: the chain walk, its head, anchors and signed checkpoints."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.core import signing
from brainkeep.core.anchor import ChainHead, sign_head
from brainkeep.core.verify import VerifyReport, verify_brain
from brainkeep.errors import InvalidInput

pass_cli = click.make_pass_decorator(CliContext, ensure=True)
FILE = click.Path(dir_okay=False, path_type=Path)


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def _keygen(cli: CliContext, path: Path) -> None:
    # The brain must never hold its own signing key: whoever can edit the
    # database could then re-sign a rewritten chain.
    if _inside(path, cli.settings.home):
        raise InvalidInput(
            f"{str(path)!r} is inside the brain folder {str(cli.settings.home)!r}.",
            suggestion="Keep the signing key outside the brain (another disk, a secret store).",
            field="keygen")
    key = signing.write_key_file(path)
    data = {"key_file": str(path), "public_key_file": str(path) + ".pub",
            "key_fingerprint": signing.fingerprint(key.public_key())}
    emit(cli, data, lambda: click.echo(
        f"Created signing key {path} (mode 0600) and public key {path}.pub\n"
        f"  fingerprint: {data['key_fingerprint']}\n"
        f"  sign:   brainkeep verify --sign --signing-key {path}\n"
        f"  verify: brainkeep verify --public-key {path}.pub"))


def _human(report: VerifyReport, data: dict[str, Any]) -> None:
    if report.valid:
        click.echo(
            f"valid: {report.events_checked} events, {report.pages_checked} pages, "
            f"{report.memories_checked} memories, {report.grants_checked} grants checked"
        )
    else:
        broken = report.first_broken
        assert broken is not None
        name = f" ({broken.slug})" if broken.slug else ""
        click.echo(f"INVALID: {broken.kind} {broken.id}{name}: {broken.reason}")
    if report.mode == "full":
        walked = "full walk" + (" (--since-verified: no proved head to start from)"
                                if data.get("since_verified") else "")
    else:
        walked = f"since verified head {report.from_seq} (--since-verified)"
    click.echo(f"mode: {walked}, {report.seconds:.3f} s")
    for item in report.skipped:
        click.echo(f"not checked: {item}")
    if report.skipped:
        click.echo("  (plain `brainkeep verify` checks every row again)")
    if data["head"]:
        click.echo(f"head: {data['head']['anchor']}")
    if report.checkpoints_checked:
        trust = ("against the trusted key" if report.checkpoints_trusted
                 else "against the keys they name only (pass --public-key to trust one)")
        click.echo(f"checkpoints: {report.checkpoints_checked} signatures checked {trust}")
    anchor = data.get("expect_head")
    if anchor:
        verdict = "extended" if anchor["ok"] else f"BROKEN: {anchor['reason']}"
        click.echo(f"anchor {anchor['seq']}:{anchor['hash']}: {verdict}")
    signed = data.get("signed")
    if signed:
        click.echo(f"signed: head {signed['head']['anchor']} with {signed['key_fingerprint']}"
                   f" (checkpoint event {signed['checkpoint_seq']}); store the head above "
                   "outside the brain")


@click.command()
@click.option("--expect-head", "expect_head", metavar="SEQ:HASH", default=None,
              help="Fail (exit 1) unless event SEQ still exists with HASH: an anchor kept "
              "outside the brain detects truncation and a recomputed chain.")
@click.option("--sign", is_flag=True,
              help="After a valid walk, append a chain.checkpoint event signing the head.")
@click.option("--signing-key", "signing_key", type=FILE, default=None,
              help="Ed25519 private key file (default: $BRAINKEEP_SIGNING_KEY_FILE, else "
              "$BRAINKEEP_SIGNING_KEY as PEM/base64). Never stored in the brain.")
@click.option("--public-key", "public_key", type=FILE, default=None,
              help="Trusted Ed25519 public key: every checkpoint must be signed by it "
              "(default: derived from the signing key, if one is configured).")
@click.option("--keygen", type=FILE, default=None, metavar="PATH",
              help="Create a signing key at PATH (mode 0600) and PATH.pub, then exit.")
@click.option("--since-verified", "since_verified", is_flag=True,
              help="Check less: start from the newest head an earlier clean walk proved "
              "(signed by the trusted key, if one is given) and check only the newer events "
              "and the rows they name. Rows no newer event names are NOT re-checked; the "
              "output says so.")
@click.option("--full", is_flag=True,
              help="The default full walk (accepted for older scripts).")
@click.option("--receipt", type=FILE, default=None, metavar="FILE",
              help="Check the forget receipt in FILE (a purging forget's JSON) instead of "
              "walking: its signature, its event and head still in the chain, the memories "
              "still erased. Exit 1 when it does not hold.")
@json_option
@pass_cli
def verify(cli: CliContext, expect_head: str | None, sign: bool, signing_key: Path | None,
           public_key: Path | None, keygen: Path | None, since_verified: bool,
           full: bool, receipt: Path | None) -> None:
    """Walk the hash-chained event log and check pages, memories and grants against it.

    By default the full walk: every event, and every row-deciding column of
    every page, memory, ACL and delegation, so a direct database edit of any
    of them is found. A clean walk records its head; --since-verified then
    starts from it and checks only the newer events and the rows they name
    (fast, but a row edited that no newer event names is not re-checked).
    """
    if keygen is not None:
        _keygen(cli, keygen)
        return
    if receipt is not None:
        from brainkeep.cli.receipt_cmd import check_receipt

        check_receipt(cli, receipt, public_key, signing_key)
        return
    if full and since_verified:
        raise InvalidInput("--full and --since-verified exclude each other.",
                           suggestion="Drop --full: the full walk is the default.",
                           field="since_verified")
    anchor = ChainHead.parse(expect_head) if expect_head is not None else None
    key = signing.load_signing_key(signing_key, os.environ)
    if sign and key is None:
        raise InvalidInput("--sign needs a signing key.", field="signing_key",
                           suggestion="Pass --signing-key PATH (create one with "
                           "`brainkeep verify --keygen PATH`) or set BRAINKEEP_SIGNING_KEY_FILE.")
    trusted = signing.load_public_key(public_key) if public_key is not None else (
        key.public_key() if key is not None else None)
    brain = cli.brain()
    store = brain.store
    report = verify_brain(store, trusted_key=trusted, since_verified=since_verified,
                          side=brain.verify_side,
                          anchor=anchor, signer=key, now=brain.clock.now_ts())
    data = report.to_dict()
    data["since_verified"] = since_verified
    failed = not report.valid
    if anchor is not None:
        problem = report.anchor_problem
        data["expect_head"] = {"seq": anchor.seq, "hash": anchor.hash, "ok": problem is None,
                               "reason": problem}
        failed = failed or problem is not None
    if sign and key is not None and not failed:
        event = sign_head(store, key, now=cli.brain().clock.now_ts())
        data["signed"] = {"head": ChainHead(event.payload["seq"], event.payload["hash"]).to_dict(),
                          "checkpoint_seq": event.seq,
                          "key_fingerprint": event.payload["key_fingerprint"]}
        data["head"] = ChainHead(event.seq, event.hash).to_dict()
    data["valid"] = not failed
    emit(cli, data, lambda: _human(report, data))
    if failed:
        raise SystemExit(1)
