"""Banking a transcript into a remote brain: scrubbed here, sent as pages over MCP.

The machine running the agent holds the transcript; the brain is elsewhere
(`serve --http`). The hook reads the file, replaces every secret and lays the
conversation out as transcript pages exactly as `brainkeep transcripts
import` does (core/transcripts), then writes the pages with `put_page` under
the hook's bearer token (which needs the ``write`` scope). Secrets are
scrubbed before anything leaves this machine.

Idempotent at two levels: the server's `put_page` leaves an unchanged page
alone, and a small state file per (brain URL, transcript) remembers the hash
of each part this machine sent, so an appended transcript sends only its
changed last part and new ones.

A ``stop`` (end of turn) must not wait on the network: ``spawn`` starts a
detached ``python -m brainkeep.hooks.remote_bank_run`` that banks with the
bank events' deadline and writes its own heartbeat line (event
``remote-bank``). The token reaches it in its environment, never argv.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from brainkeep import hook_log
from brainkeep.hook_log import StateFile

BANK_DEADLINE_S = 60.0  # what a `bank` event (pre-compact, session end) allows

Call = Callable[[str, dict[str, Any]], dict[str, Any]]


def state_for(home: Path, url: str, path: str) -> StateFile:
    key = hashlib.sha256(f"{url}\0{Path(path).resolve()}".encode()).hexdigest()[:32]
    return StateFile(hook_log.hooks_dir(home) / "banked" / f"{key}.json")


def bank_remotely(call: Call, path: str, fmt: str, state: StateFile) -> dict[str, Any]:
    """Send the transcript's changed pages through ``call`` (MCP tools/call); counts."""
    from brainkeep.core.transcripts.formats import parse
    from brainkeep.core.transcripts.importer import scrub_conversation
    from brainkeep.core.transcripts.layout import render_parts

    if not path or not Path(path).is_file():
        return {"turns_added": 0, "missing": True}
    sent: dict[str, str] = dict(state.data.get("sent") or {})
    written = unchanged = secrets = turns = held = 0
    try:
        for conv in parse(Path(path), fmt).conversations:
            prepared = scrub_conversation(conv)
            secrets += prepared.secrets
            for part in render_parts(prepared.conversation):
                digest = hashlib.sha256(part.content.encode()).hexdigest()
                if sent.get(part.slug) == digest:
                    unchanged += 1
                    continue
                answer = call("put_page", {"slug": part.slug, "content": part.content})
                sent[part.slug] = digest
                if answer.get("status") == "unchanged":
                    unchanged += 1
                    continue
                written += 1
                turns += part.last_turn - part.first_turn + 1
                held += int(bool(answer.get("quarantined")))
    finally:  # what was sent before a failure (a timeout) is not sent again
        state.data["sent"] = sent
        state.save()
    return {"pages_written": written, "pages_unchanged": unchanged,
            "turns_sent": turns, "secrets_scrubbed": secrets, "quarantined": held}


def spawn(url: str, token: str, path: str, fmt: str, home: Path) -> None:
    """Bank in a detached process (its own session: the host's turn does not wait)."""
    subprocess.Popen(
        [sys.executable, "-m", "brainkeep.hooks.remote_bank_run", url, path, fmt, str(home)],
        env={**os.environ, "BRAINKEEP_HOOK_TOKEN": token}, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
