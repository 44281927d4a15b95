"""`brainkeep verify --receipt FILE`: check one forget receipt against the brain.

The rule is ``core.receipts.check``; this module reads the file and the
keys (the composition root reads the environment) and renders the verdict.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from brainkeep.cli.app import CliContext, emit
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
