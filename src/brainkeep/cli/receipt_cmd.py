"""Forget receipts on the CLI: `brainkeep verify --receipt FILE` and `brainkeep receipt SEQ`.

The rules are ``core.receipts.check`` and ``core.receipts.reissue``; this
module reads files and keys (the composition root reads the environment)
and renders the result.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.core import receipts, signing
from brainkeep.errors import InvalidInput


def check_receipt(cli: CliContext, path: Path, public_key: Path | None,
                  signing_key: Path | None) -> None:
    """Check the receipt in ``path``; exit 1 when it does not hold.

    The trusted key is ``--public-key``, else the configured signing key's
    public half; without either a signed receipt is checked against the
    key it names.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"Cannot read the receipt {str(path)!r}: {exc}.",
                           field="receipt") from exc
    receipt = receipts.load(text)
    key = signing.load_signing_key(signing_key, os.environ)
    trusted = signing.load_public_key(public_key) if public_key is not None else (
        key.public_key() if key is not None else None)
    verdict = receipts.check(cli.brain().store, receipt, trusted=trusted)
    data = {**verdict.to_dict(), "event": receipt.get("event"), "head": receipt.get("head"),
            "memory_count": receipt.get("memory_count"), "purged": receipt.get("purged")}

    def human() -> None:
        event = receipt.get("event") or {}
        head = data["head"] or {}
        click.echo(f"receipt of {receipt.get('operation')} ({receipt.get('strategy')}): "
                   + ("valid" if verdict.valid else "BROKEN"))
        click.echo(f"  event {event.get('seq')}:{event.get('hash')} ({event.get('kind')})")
        click.echo(f"  head at issue {head.get('seq')}:{head.get('hash')}")
        click.echo(f"  memories: {data['memory_count']}, purged: {data['purged']}")
        click.echo("  signed by " + str(verdict.key_fingerprint) + (
            "" if trusted is None else " (the trusted key)") if verdict.signed else "  unsigned")
        for problem in verdict.problems:
            click.echo(f"  problem: {problem}")

    emit(cli, data, human)
    if not verdict.valid:
        raise SystemExit(1)


pass_cli = click.make_pass_decorator(CliContext, ensure=True)


@click.command()
@click.argument("seq", type=click.IntRange(min=1))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the receipt to this file instead of printing it.")
@json_option
@pass_cli
def receipt(cli: CliContext, seq: int, out: Path | None) -> None:
    """Issue the forget receipt of the erasure logged as event SEQ (signed with a configured key).

    For an erasure whose receipt was not kept (a gRPC trailer nobody saved):
    the event's memory count and purge counts, today's chain head, and a
    signature when BRAINKEEP_SIGNING_KEY_FILE or BRAINKEEP_SIGNING_KEY is set.
    Check it with `brainkeep verify --receipt FILE`.
    """
    brain = cli.brain()
    issued = receipts.reissue(brain.store, brain.receipts, seq, now=brain.clock.now_ts())
    if out is None:
        click.echo(json.dumps(issued, indent=2))
        return
    out.write_text(json.dumps(issued, indent=2) + "\n", encoding="utf-8")
    emit(cli, {"receipt_file": str(out), "event": issued["event"]},
         f"receipt of event {seq} written to {out}")
