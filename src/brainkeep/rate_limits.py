"""Request-rate limits for the HTTP transport: one token bucket per key.

Keys are a client IP or a token id. Buckets hold up to ``per_minute``
requests and refill continuously at ``per_minute / 60`` per second, so a
client may burst up to its minute's allowance and then sustains exactly the
configured rate. Everything runs on the event loop thread (no locking).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

# Past this many keys, full (idle) buckets are dropped: a full bucket is
# indistinguishable from a fresh one, so forgetting it changes nothing, and a
# scan of addresses cannot grow memory without bound.
MAX_TRACKED_KEYS = 10_000


@dataclass
class RateLimiter:
    """A token bucket per key; ``per_minute <= 0`` disables the limit."""

    per_minute: int
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict, repr=False)

    @property
    def enabled(self) -> bool:
        return self.per_minute > 0

    def acquire(self, key: str) -> float:
        """Take one request from ``key``'s bucket.

        Returns:
            0.0 when allowed, else the seconds until a request would be allowed
            (the value for ``Retry-After``).
        """
        if not self.enabled:
            return 0.0
        capacity = float(self.per_minute)
        rate = capacity / 60.0
        now = self.clock()
        tokens, last = self._buckets.get(key, (capacity, now))
        tokens = min(capacity, tokens + (now - last) * rate)
        if tokens >= 1.0:
            self._buckets[key] = (tokens - 1.0, now)
            if len(self._buckets) > MAX_TRACKED_KEYS:
                self._prune(now, capacity, rate)
            return 0.0
        self._buckets[key] = (tokens, now)
        return (1.0 - tokens) / rate

    def _prune(self, now: float, capacity: float, rate: float) -> None:
        full = [
            key
            for key, (tokens, last) in self._buckets.items()
            if tokens + (now - last) * rate >= capacity
        ]
        for key in full:
            del self._buckets[key]


def retry_after_header(seconds: float) -> str:
    """``Retry-After`` is whole seconds; round up so a client that obeys it succeeds."""
    return str(max(1, math.ceil(seconds)))
