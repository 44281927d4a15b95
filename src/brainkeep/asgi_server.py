"""uvicorn for brainkeep's HTTP servers (`serve --http`, `ui`): a signal means a clean stop."""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Iterator

import uvicorn

from brainkeep.errors import BrainkeepError


def listen(bind: str, port: int, *, backlog: int, suggestion: str) -> socket.socket:
    """Bind the listening socket ourselves: a clear error, and the real port for port 0."""
    host = bind.strip("[]")
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
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
