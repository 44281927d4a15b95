"""What a fact is now, in one word: the status every console page shows.

A fact's row is never removed by ``forget`` or a supersession; its columns
say what happened to it:

* ``superseded``: a newer fact replaced it (``superseded_by``: a remember
  that updated it, or a consolidation's next version);
* ``forgotten``: expired on purpose (``expired_at``: the ``forget`` verb,
  with its reason in ``expired_reason``), or deleted;
* ``expired``: its lifetime ran out (``valid_until`` passed, from a ``ttl``);
* ``active``: none of these (``Memory.is_active``).
"""

from __future__ import annotations

from brainkeep.core.models import Memory

FACT_STATUSES = ("active", "expired", "superseded", "forgotten")


def fact_status(memory: Memory, now: str) -> str:
    """One of ``FACT_STATUSES`` for ``memory`` at ``now`` (a canonical timestamp)."""
    if memory.superseded_by is not None:
        return "superseded"
    if memory.expired_at or memory.deleted_at:
        return "forgotten"
    if memory.valid_until and memory.valid_until <= now:
        return "expired"
    return "active"
