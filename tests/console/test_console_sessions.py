"""Anonymous traffic cannot sign anyone out, and /console shares /mcp's per-address limit.

Before the fix every cookieless GET stored a session, so ~5,000 of them
evicted a signed-in admin's. Now nothing is stored before sign-in (the
form's CSRF token is an HMAC of a nonce in the browser's own cookie).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import httpx
import pytest
from console_support import Seeded, csrf_of, sign_in
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.console.app import build_console_app
from brainkeep.console.session import MAX_SESSIONS, SessionStore
from brainkeep.http_app import build_http_app
from brainkeep.ops.registry import open_dispatcher
from tests.http.http_support import ServerProc, make_home

ANONYMOUS_GETS = 6000
assert ANONYMOUS_GETS > MAX_SESSIONS  # enough to have evicted the admin before the fix


@pytest.fixture
def brain(seeded: Seeded) -> Iterator[Brain]:
    opened = open_brain(load_settings(seeded.home, env={}))
    try:
        yield opened
    finally:
        opened.close()


# Redirects to the sign-in page and the sign-in page itself: each stored a session before.
ANONYMOUS_PATHS = ("/", "/memories", "/login", "/access")


def _anonymous_gets(console: str, count: int, *, workers: int = 4) -> None:
    """``count`` cookieless GETs over real sockets (a few clients at once: the server
    process works while the clients parse)."""

    def run(share: int) -> None:
        with httpx.Client(timeout=30) as client:
            for i in range(share):
                client.cookies.clear()  # a new stranger every time
                answer = client.get(console + ANONYMOUS_PATHS[i % len(ANONYMOUS_PATHS)])
                assert answer.status_code in (200, 303), answer.text[:300]

    with ThreadPoolExecutor(workers) as pool:
        for done in [pool.submit(run, count // workers) for _ in range(workers)]:
            done.result()


async def _anonymous_gets_in_process(app: Starlette, count: int) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        for i in range(count):
            client.cookies.clear()
            answer = await client.get("/console" + ANONYMOUS_PATHS[i % len(ANONYMOUS_PATHS)])
            assert answer.status_code in (200, 303), answer.text[:300]


def test_anonymous_requests_store_no_session_in_process(brain: Brain, seeded: Seeded) -> None:
    store = SessionStore()
    console = build_console_app(brain, open_dispatcher(brain, "full"), base="/console",
                                sessions=store)
    app = Starlette(routes=[Mount("/console", app=console)])
    with TestClient(app, follow_redirects=False) as admin:
        assert sign_in(admin, "/console", seeded.tokens["a_admin"]).status_code == 303
        assert len(store) == 1
        anyio.run(_anonymous_gets_in_process, app, ANONYMOUS_GETS)
        assert len(store) == 1  # the admin's, and no anonymous one
        page = admin.get("/console/access")
        assert page.status_code == 200 and "admin-a" in page.text


def test_anonymous_requests_do_not_sign_the_admin_out(remote: ServerProc,
                                                       seeded: Seeded) -> None:
    console = remote.base + "/console"
    with httpx.Client(timeout=30) as admin:
        assert sign_in(admin, console, seeded.tokens["a_admin"]).status_code == 303
        _anonymous_gets(console, ANONYMOUS_GETS)
        page = admin.get(console + "/access")
        assert page.status_code == 200, page.headers.get("location")
        assert "signed in as <strong>admin-a</strong>" in page.text


def test_the_sign_in_form_sets_a_nonce_cookie_not_a_session(remote: ServerProc,
                                                            seeded: Seeded) -> None:
    console = remote.base + "/console"
    with httpx.Client(timeout=30) as client:
        form = client.get(console + "/login")
        assert set(client.cookies.keys()) == {"bk_console_login"}
        # A nonce minted by another browser (or guessed) does not go with this form.
        with httpx.Client(timeout=30) as other:
            other.get(console + "/login")
            planted = other.cookies["bk_console_login"]
        client.cookies.set("bk_console_login", planted, path="/console")
        refused = client.post(console + "/login", data={
            "csrf": csrf_of(form.text), "token": seeded.tokens["a_read"], "next": "/"})
        assert refused.status_code == 403
        assert sign_in(client, console, seeded.tokens["a_read"]).status_code == 303
        assert "bk_console" in client.cookies.keys()


def _limited_app(tmp_path: Path, per_minute: int) -> tuple[Brain, TestClient]:
    home = make_home(tmp_path / "home", {"http.ip_rate_per_minute": per_minute,
                                         "http.rate_per_minute": 1000})
    settings = load_settings(home, env={})
    brain = open_brain(settings)
    app = build_http_app(brain, settings, surface="full", bind="127.0.0.1")
    return brain, TestClient(app, follow_redirects=False)


def test_console_is_rate_limited_per_address_with_mcp(tmp_path: Path) -> None:
    brain, client = _limited_app(tmp_path, 5)
    try:
        answers = [client.get("/console/login") for _ in range(5)]
        assert [a.status_code for a in answers] == [200] * 5
        limited = client.get("/console/")
        assert limited.status_code == 429
        assert int(limited.headers["retry-after"]) >= 1
        assert limited.headers["x-frame-options"] == "DENY"  # refusals keep the headers
        # One budget per address: /mcp is out of requests too.
        mcp = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert mcp.status_code == 429
    finally:
        client.close()
        brain.close()


def test_mcp_traffic_spends_the_console_budget_too(tmp_path: Path) -> None:
    brain, client = _limited_app(tmp_path, 3)
    try:
        for _ in range(3):
            assert client.post("/mcp", json={"jsonrpc": "2.0", "id": 1,
                                             "method": "ping"}).status_code == 401
        assert client.get("/console/login").status_code == 429
        assert client.get("/health").status_code == 200  # health stays open
    finally:
        client.close()
        brain.close()
