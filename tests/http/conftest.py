"""Real `brainkeep serve --http` processes shared by the HTTP tests.

Servers start once per session (each start costs ~2 s of imports): one on the
full surface and one on the verbs surface over the same brain, plus a
separate brain with tight limits. Every server must exit 0 on SIGTERM.
``pg_served``/``pg_server`` are the same seeded brain and full-surface server
on PostgreSQL, for the tests that must hold on both engines (conformance).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from http_support import (
    OPEN_LIMITS,
    SENTINEL,
    ServedBrain,
    ServerProc,
    create_token,
    local_call,
    make_home,
    past_clock,
    revoke_token,
    start_server,
    stopped_cleanly,
)


def _seed_private(home: Path) -> None:
    """A private fact and a private page, written as the trusted local CLI."""
    local_call(home, "put_page", {
        "slug": "people/ada-example",
        "content": "---\ntitle: Ada Example\ntype: person\n---\n# Ada Example\n\nA world page.\n",
    })
    local_call(home, "put_page", {
        "slug": "people/secret-sentinel",
        "content": (
            f"---\ntitle: Hidden {SENTINEL}\ntype: person\nvisibility: private\n"
            f"aliases: [{SENTINEL}-alias]\n---\n# Hidden {SENTINEL}\n\n"
            f"Private notes {SENTINEL} about people/ada-example.\n"
        ),
    })
    local_call(home, "remember", {
        "fact": f"Ada's door code is {SENTINEL}",
        "provenance": "local test",
        "entity": "people/ada-example",
        "visibility": "private",
    })
    local_call(home, "remember", {
        "fact": "Ada prefers tea over coffee",
        "provenance": "local test",
        "entity": "people/ada-example",
    })


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> ServedBrain:
    return _served_brain(tmp_path_factory, "sqlite")


@pytest.fixture(scope="session")
def pg_served(tmp_path_factory: pytest.TempPathFactory) -> ServedBrain:
    return _served_brain(tmp_path_factory, "postgres")


def _served_brain(tmp_path_factory: pytest.TempPathFactory, engine: str) -> ServedBrain:
    home = make_home(tmp_path_factory.mktemp(f"http-brain-{engine}") / "home", OPEN_LIMITS,
                     engine)
    tokens = {
        "admin": create_token(home, "admin-agent", "admin"),
        "rw": create_token(home, "rw-agent", "read,write"),
        "rw2": create_token(home, "rw-agent-2", "read,write"),
        "ro": create_token(home, "ro-agent", "read"),
        "expired": create_token(home, "old-agent", "read", expires="1d", clock=past_clock(2)),
        "revoked": create_token(home, "gone-agent", "read,write"),
    }
    revoke_token(home, "gone-agent")
    _seed_private(home)
    return ServedBrain(home, tokens)


def _serve(home: Path, *args: str) -> Iterator[ServerProc]:
    with stopped_cleanly(start_server(home, *args), "server") as server:
        yield server


@pytest.fixture(scope="session")
def server(served: ServedBrain) -> Iterator[ServerProc]:
    """The full surface (the default)."""
    yield from _serve(served.home)


@pytest.fixture(scope="session")
def pg_server(pg_served: ServedBrain) -> Iterator[ServerProc]:
    """The full surface over the PostgreSQL brain."""
    yield from _serve(pg_served.home)


@pytest.fixture(scope="session")
def verbs_server(served: ServedBrain) -> Iterator[ServerProc]:
    """The same brain behind `--surface verbs`."""
    yield from _serve(served.home, "--surface", "verbs")


@pytest.fixture(scope="session")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProc, ServedBrain]]:
    """A brain with tight limits: 3 requests/min per token, 6 per IP, 4 KB bodies."""
    home = make_home(
        tmp_path_factory.mktemp("http-limited") / "home",
        {
            "http.rate_per_minute": 3,
            "http.ip_rate_per_minute": 6,
            "http.max_body_bytes": 4096,
        },
    )
    tokens = {
        "a": create_token(home, "limit-a", "read,write"),
        "b": create_token(home, "limit-b", "read,write"),
    }
    for proc in _serve(home):
        yield proc, ServedBrain(home, tokens)
