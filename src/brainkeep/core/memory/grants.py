"""Grant lookups behind ``core/scope.py``'s rules, shared by the verbs and the RPCs."""

from __future__ import annotations

from brainkeep.core.memory.models import IMPLIED
from brainkeep.core.models import Memory
from brainkeep.core.ports.sharing import SharingRepository
from brainkeep.core.scope import ReadScope


def holds(store: SharingRepository, memory: Memory, scope: ReadScope, permission: str,
          now: str) -> bool:
    """Whether the scope's reader holds a live ACL or delegation implying ``permission``."""
    if not scope.reader:
        return False
    return any(
        permission in IMPLIED[g.permission]
        for g in store.grants_for(memory, scope.reader, now)
    )


def any_live_acl(store: SharingRepository, memory: Memory, now: str) -> bool:
    """Whether any ACL on ``memory`` is live (``core/scope.py`` ``shares_live`` asks)."""
    return store.has_live_acl(memory.id, now)
