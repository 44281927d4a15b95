"""Server-side console sessions: an opaque cookie names one, the token stays here.

The cookie carries only a random session id; the session records the token
id it logged in with (never the secret) and its CSRF token. Every request
re-reads the token row, so revoking or expiring a token ends its console
sessions at once. Sessions live in memory: a restart signs everyone out,
which loses nothing (the brain is in the database).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace

COOKIE = "bk_console"
# Idle and absolute lifetimes: a forgotten tab stops being a key to the brain.
IDLE_S = 8 * 3600
ABSOLUTE_S = 24 * 3600
MAX_SESSIONS = 5000


@dataclass(frozen=True)
class Session:
    """One browser's session.

    Attributes:
        id: The cookie value (256 random bits).
        csrf: The token every writing form must echo (session-bound).
        token_id: The API token this session signed in with (None: not signed
            in; the local console never needs one).
        created: Monotonic creation time.
        seen: Monotonic time of the last request.
    """

    id: str
    csrf: str
    token_id: str | None
    created: float
    seen: float


class SessionStore:
    """Sessions by id, bounded (oldest evicted first), thread-safe."""

    def __init__(self, *, max_sessions: int = MAX_SESSIONS) -> None:
        self._items: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_sessions

    def new(self, token_id: str | None = None) -> Session:
        """A fresh session (a new id on every sign-in: no session fixation)."""
        now = time.monotonic()
        session = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), token_id,
                          now, now)
        with self._lock:
            self._items[session.id] = session
            while len(self._items) > self._max:
                self._items.popitem(last=False)
        return session

    def get(self, session_id: str | None) -> Session | None:
        """The live session with this id (touching it), or None."""
        if not session_id:
            return None
        now = time.monotonic()
        with self._lock:
            session = self._items.get(session_id)
            if session is None:
                return None
            if now - session.seen > IDLE_S or now - session.created > ABSOLUTE_S:
                del self._items[session_id]
                return None
            session = replace(session, seen=now)
            self._items[session_id] = session
            self._items.move_to_end(session_id)
            return session

    def drop(self, session_id: str | None) -> None:
        with self._lock:
            self._items.pop(session_id or "", None)
