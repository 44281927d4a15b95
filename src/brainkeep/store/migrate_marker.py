"""The "migration in progress" marker a half-copied brain carries (see ``store/migrate.py``).

`brainkeep migrate` sets the marker in the target's ``meta`` in the same
transaction as the first copied rows and clears it in the transaction that
copies the last ones, so a target that was interrupted (killed, crashed,
connection lost) always still carries it. ``open_brain`` refuses such a
brain: a partial copy must never be served as if it were the whole brain.
"""

from __future__ import annotations

import json

from brainkeep.core.ports.store import Store
from brainkeep.errors import Unavailable

MARKER_KEY = "migration.in_progress"


def refuse_half_migrated(store: Store) -> None:
    """Raise ``Unavailable`` when ``store`` is the target of an unfinished migration.

    Raises:
        Unavailable: The marker is set; the message names the source.
    """
    raw = store.get_meta(MARKER_KEY)
    if raw is None:
        return
    try:
        source = str(json.loads(raw).get("from") or "another brain")
    except (ValueError, AttributeError):  # a hand-edited marker still blocks
        source = "another brain"
    raise Unavailable(
        f"This brain is the target of an unfinished migration from {source}.",
        suggestion="Re-run the same `brainkeep migrate --to ...` command: it continues where "
        "it stopped and opens the brain once every table is copied and verified.",
        detail=f"meta key {MARKER_KEY} is set",
    )
