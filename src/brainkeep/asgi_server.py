"""uvicorn for brainkeep's HTTP servers (`serve --http`, `ui`): one hardened connection layer.

Both servers are built with ``server_config``, which gives them the same
connection handling, on top of uvicorn's defaults:

- **Forwarded headers** (``X-Forwarded-For``/``-Proto``) are trusted only from
  the proxy addresses the operator names (``ConnectionLimits.forwarded_allow_ips``;
  none by default). uvicorn's own default trusts them from loopback, so any
  local process or tunnel could choose the address every per-IP limit
  (``/mcp``, the consent sign-in) is keyed on, and never be limited.
- **Header timeout.** A connection must deliver complete request headers
  within ``header_timeout_s`` of being accepted, and of the first byte of each
  further keep-alive request, or it is closed. uvicorn has none: a client
  trickling one header line at a time held its connection (and a slot of
  ``limit_concurrency``) forever.
- **Per-address connection cap.** At most ``max_per_address`` open connections
  from one peer address; more are answered 503 and closed, so one host cannot
  take every slot. Trusted proxies are exempt (every client behind them
  shares their address).
- **TCP_NODELAY** on every connection: asyncio sets it only for sockets whose
  protocol number is ``IPPROTO_TCP``, which a socket made with the default 0
  is not, and Nagle plus the peer's delayed ACK then held each small
  response ~40 ms.
- **A signal means a clean stop** (``QuietExitServer``).

The protocol is uvicorn's h11 one, pinned: the guard hooks its connection
callbacks, so uvicorn must not swap in httptools when it happens to be installed.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import signal
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from brainkeep.config import Settings
from brainkeep.errors import BrainkeepError, InvalidInput

log = logging.getLogger("brainkeep.http")

# What an over-cap connection reads before it is closed.
_REFUSAL = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"retry-after: 1\r\nconnection: close\r\ncontent-length: 43\r\n\r\n"
            b"Too many open connections from this address")


@dataclass(frozen=True)
class ConnectionLimits:
    """Connection handling of one server, read once from config (``http.*``).

    ``header_timeout_s`` and ``max_per_address``: 0 turns the check off.
    ``forwarded_allow_ips``: proxy addresses or networks whose forwarded
    headers are believed; empty: nobody's.
    """

    header_timeout_s: float = 10.0
    max_per_address: int = 64
    forwarded_allow_ips: tuple[str, ...] = ()


def parse_forwarded_allow_ips(raw: str, *, field_name: str) -> tuple[str, ...]:
    """The comma-separated proxy list of the flag or config key, checked.

    uvicorn would silently treat a mistyped address as a literal that never
    matches, leaving the operator's proxy untrusted without a word.

    Raises:
        InvalidInput: an entry is neither an IP address, a network nor ``*``.
    """
    entries = tuple(item.strip() for item in raw.split(",") if item.strip())
    for entry in entries:
        if entry == "*":
            continue
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError as exc:
            raise InvalidInput(
                f"{entry!r} is not an IP address or network ({field_name}).",
                suggestion="Name the reverse proxy's address, e.g. 127.0.0.1 or 10.0.0.0/8 "
                "(comma-separated for several).",
                field=field_name,
            ) from exc
    return entries


def connection_limits(settings: Settings, *, forwarded_allow_ips: str | None = None
                      ) -> ConnectionLimits:
    """The ``http.*`` connection keys; ``forwarded_allow_ips`` (a flag) wins over the key.

    Raises:
        InvalidInput: a malformed proxy list.
    """
    if forwarded_allow_ips is None:
        raw, name = str(settings.get("http.forwarded_allow_ips") or ""), \
            "http.forwarded_allow_ips"
    else:
        raw, name = forwarded_allow_ips, "forwarded-allow-ips"
    return ConnectionLimits(
        header_timeout_s=float(settings.get("http.header_timeout_s")),
        max_per_address=int(settings.get("http.max_connections_per_address")),
        forwarded_allow_ips=parse_forwarded_allow_ips(raw, field_name=name),
    )


@dataclass
class ConnectionGuard:
    """Open connections per peer address, shared by every connection of one server."""

    limits: ConnectionLimits
    open: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        allowed = self.limits.forwarded_allow_ips
        self._trust_all = "*" in allowed
        self._proxies = [ipaddress.ip_network(a, strict=False) for a in allowed if a != "*"]

    def exempt(self, host: str) -> bool:
        if self._trust_all:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in net for net in self._proxies)

    def admit(self, host: str | None) -> bool:
        """Count a new connection from ``host``; False: over the cap (not counted)."""
        cap = self.limits.max_per_address
        if host is None or cap <= 0 or self.exempt(host):
            return True
        if self.open[host] >= cap:
            return False
        self.open[host] += 1
        return True

    def release(self, host: str) -> None:
        self.open[host] -= 1
        if self.open[host] <= 0:
            del self.open[host]


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol plus the header timeout, the address cap and TCP_NODELAY.

    A subclass per server (``guarded_protocol``) carries that server's guard.
    """

    guard: ConnectionGuard

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._counted: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as uvicorn
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):  # the peer may already be gone
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        host = self.client[0] if self.client else None
        if not self.guard.admit(host):
            log.warning("refused a connection from %s: %d already open from that address",
                        host, self.guard.limits.max_per_address)
            transport.write(_REFUSAL)
            transport.close()  # flushes the refusal first
            return
        if host is not None and not self.guard.exempt(host):
            self._counted = host
        self._await_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_header_timer()
        if self._counted is not None:
            self.guard.release(self._counted)
            self._counted = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.transport.is_closing():
            return  # refused or timed out: nothing more is parsed
        super().data_received(data)
        # Still IDLE on their side: the headers of the next request are not
        # complete yet. This byte may be its first (after a keep-alive pause).
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self._await_headers()
        else:
            self._stop_header_timer()

    def _await_headers(self) -> None:
        """Arm the header deadline, unless it already runs for this request."""
        timeout = self.guard.limits.header_timeout_s
        if timeout > 0 and self._header_timer is None:
            self._header_timer = self.loop.call_later(timeout, self._headers_overdue)

    def _stop_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_overdue(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            log.info("closed a connection from %s: request headers incomplete after %.1f s",
                     self.client[0] if self.client else "?", self.guard.limits.header_timeout_s)
            self.transport.close()


def guarded_protocol(limits: ConnectionLimits) -> type[GuardedH11Protocol]:
    """A protocol class for one server: its own connection counts."""

    class ServerProtocol(GuardedH11Protocol):
        guard = ConnectionGuard(limits)

    return ServerProtocol


def server_config(app: Any, limits: ConnectionLimits, **options: Any) -> uvicorn.Config:
    """The uvicorn config of every brainkeep HTTP server (see the module doc)."""
    trusted = ",".join(limits.forwarded_allow_ips)
    return uvicorn.Config(
        app,
        http=guarded_protocol(limits),
        # Neither app speaks WebSocket; an upgrade would also hand the
        # connection to a protocol that never releases its address count.
        ws="none",
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or None,
        **options,
    )


def listen(bind: str, port: int, *, backlog: int, suggestion: str) -> socket.socket:
    """Bind the listening socket ourselves: a clear error, and the real port for port 0."""
    host = bind.strip("[]")
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY on accepted sockets
    # only when their protocol number says TCP (0, the default, does not).
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM,
                         socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # inherited on Linux
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise BrainkeepError(f"Cannot listen on {bind}:{port}.", suggestion=suggestion,
                             detail=str(exc)) from exc
    sock.listen(backlog)
    return sock


class QuietExitServer(uvicorn.Server):
    """uvicorn, except that SIGINT/SIGTERM mean "drain and exit 0".

    uvicorn re-raises the captured signal after its graceful shutdown, which
    would turn a clean stop into a KeyboardInterrupt or a signal exit status.
    ``stop`` is the event `brainkeep serve` sets on a signal that arrived
    before uvicorn installed its own handlers; each tick checks it.
    """

    def __init__(self, config: uvicorn.Config, stop: threading.Event | None = None) -> None:
        super().__init__(config)
        self._stop = stop

    async def on_tick(self, counter: int) -> bool:
        if self._stop is not None and self._stop.is_set():
            self.should_exit = True
        return await super().on_tick(counter)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        handled = (signal.SIGINT, signal.SIGTERM)
        originals = {sig: signal.signal(sig, self.handle_exit) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in originals.items():
                signal.signal(sig, handler)
