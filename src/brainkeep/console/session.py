"""Console sessions: signed-in browsers only; before sign-in, a signed cookie and no state.

A session exists only once a browser has signed in (a token on ``serve
--http``, the URL token on ``brainkeep ui``). Its cookie carries only a
random session id; the session records the token id it signed in with
(never the secret) and its CSRF token. Every request re-reads the token row,
so revoking or expiring a token ends its console sessions at once. Sessions
live in memory: a restart signs everyone out, which loses nothing (the brain
is in the database).

An anonymous browser gets no session at all: the sign-in form's CSRF token
is an HMAC of a random, timestamped nonce kept in its own cookie
(``LoginTokens``), so anonymous requests cost no memory and can never push
a signed-in session out of the bounded store. Each principal (token, or the
local console) holds at most ``MAX_PER_OWNER`` sessions, so one token
signing in over and over evicts only its own oldest sessions.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace

COOKIE = "bk_console"
LOGIN_COOKIE = "bk_console_login"
# Idle and absolute lifetimes: a forgotten tab stops being a key to the brain.
IDLE_S = 8 * 3600
ABSOLUTE_S = 24 * 3600
MAX_SESSIONS = 5000
MAX_PER_OWNER = 64
# How long a sign-in form stays submittable.
LOGIN_TTL_S = 3600


@dataclass(frozen=True)
class Session:
    """One signed-in browser's session.

    Attributes:
        id: The cookie value (256 random bits).
        csrf: The token every writing form must echo (session-bound).
        token_id: The API token this session signed in with (None: the local
            console, signed in with the URL token ``brainkeep ui`` printed).
        created: Monotonic creation time.
        seen: Monotonic time of the last request.
    """

    id: str
    csrf: str
    token_id: str | None
    created: float
    seen: float


class SessionStore:
    """Signed-in sessions by id, bounded (oldest evicted first), thread-safe."""

    def __init__(self, *, max_sessions: int = MAX_SESSIONS,
                 max_per_owner: int = MAX_PER_OWNER) -> None:
        self._items: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_sessions
        self._per_owner = max_per_owner

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def new(self, token_id: str | None = None) -> Session:
        """A fresh session for a browser that just signed in (a new id: no fixation)."""
        now = time.monotonic()
        session = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), token_id,
                          now, now)
        with self._lock:
            self._prune(now)
            mine = [s.id for s in self._items.values() if s.token_id == token_id]
            for stale in mine[: max(0, len(mine) - self._per_owner + 1)]:
                del self._items[stale]
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
            if _expired(session, now):
                del self._items[session_id]
                return None
            session = replace(session, seen=now)
            self._items[session_id] = session
            self._items.move_to_end(session_id)
            return session

    def drop(self, session_id: str | None) -> None:
        with self._lock:
            self._items.pop(session_id or "", None)

    def _prune(self, now: float) -> None:
        for stale in [k for k, s in self._items.items() if _expired(s, now)]:
            del self._items[stale]


def _expired(session: Session, now: float) -> bool:
    return now - session.seen > IDLE_S or now - session.created > ABSOLUTE_S


class LoginTokens:
    """Stateless CSRF tokens for the sign-in form (nothing is stored before sign-in).

    The browser's ``LOGIN_COOKIE`` holds ``TIMESTAMP.NONCE``; the form's token
    is the HMAC of that value under a per-process secret. A POST must bring
    both, matching and unexpired: a page elsewhere can neither read the
    cookie nor (``SameSite=Strict``) make the browser send it.
    """

    def __init__(self, key: bytes | None = None, *, ttl_s: float = LOGIN_TTL_S) -> None:
        self._key = key or secrets.token_bytes(32)
        self._ttl = ttl_s

    def issue(self) -> str:
        """A new cookie value (``TIMESTAMP.NONCE``)."""
        return f"{int(time.time())}.{secrets.token_urlsafe(16)}"

    def form_token(self, cookie: str | None) -> str | None:
        """The form token for a cookie value, or None when it is malformed or expired."""
        if not cookie or cookie.count(".") != 1:
            return None
        stamp = cookie.split(".", 1)[0]
        if not stamp.isdigit() or not 0 <= time.time() - int(stamp) <= self._ttl:
            return None
        return hmac.new(self._key, cookie.encode(), hashlib.sha256).hexdigest()

    def check(self, cookie: str | None, sent: object) -> bool:
        """Whether ``sent`` is the form token of the (live) ``cookie`` (constant-time)."""
        expected = self.form_token(cookie)
        return (expected is not None and isinstance(sent, str)
                and hmac.compare_digest(sent.encode(), expected.encode()))
