"""The detached run a remote ``stop`` starts (``remote_bank.spawn``): bank, then one heartbeat line.

Apart from ``remote_bank`` so that module and the backend it is called from
do not import each other.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from brainkeep import hook_log
from brainkeep.hooks.backend import Deadline, HookFailure, RemoteBackend
from brainkeep.hooks.remote_bank import BANK_DEADLINE_S


def main(argv: list[str]) -> int:
    """Bank the transcript of argv (url, path, format, home); always exits 0."""
    url, path, fmt, raw_home = argv
    home = Path(raw_home)
    started = time.monotonic()
    line: dict[str, Any] = {"host": "remote", "event": "remote-bank", "backend": "remote"}
    try:
        backend = RemoteBackend(url, os.environ.get("BRAINKEEP_HOOK_TOKEN", ""),
                                Deadline(BANK_DEADLINE_S), home)
        line.update(backend.bank(path, fmt, wait=True), code="ok")
    except HookFailure as failure:
        line["code"] = failure.code
    except Exception:  # noqa: BLE001 - fail open: a heartbeat code, never a traceback
        line["code"] = "internal"
    line["ms"] = int((time.monotonic() - started) * 1000)
    hook_log.record(home, line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
