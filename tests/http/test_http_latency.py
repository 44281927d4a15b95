"""Small responses are not held back by Nagle's algorithm (issue 22 item 4).

The listening socket was made with protocol number 0, so asyncio did not set
TCP_NODELAY on accepted connections: uvicorn writes a response's headers and
body separately, the body waited for the ACK of the headers, and the client's
delayed ACK made every keep-alive response take ~40 ms.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator

import pytest
from conn_support import UiProc, keepalive_latencies, start_ui
from http_support import ServerProc, make_home, stopped_cleanly

REQUESTS = 20
# The bug costs ~40 ms per request; a loaded 2-core box answers /health in ~2 ms.
MEDIAN_LIMIT_S = 0.020


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiProc]:
    home = make_home(tmp_path_factory.mktemp("ui-latency") / "home")
    with stopped_cleanly(start_ui(home), "ui") as proc:
        yield proc


@pytest.mark.parametrize("path", ["/health", "/mcp"])
def test_keepalive_responses_are_not_delayed(server: ServerProc, path: str) -> None:
    times = keepalive_latencies(server.base, path, REQUESTS)
    assert statistics.median(times) < MEDIAN_LIMIT_S, [round(t * 1000, 1) for t in times]


def test_console_keepalive_responses_are_not_delayed(ui: UiProc) -> None:
    times = keepalive_latencies(ui.base, "/static/no-such-file.css", REQUESTS)
    assert statistics.median(times) < MEDIAN_LIMIT_S, [round(t * 1000, 1) for t in times]
