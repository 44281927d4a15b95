"""Sessions, cookies, CSRF and the forget form, over real sockets."""

from __future__ import annotations

import re

import httpx
from console_support import (
    PRIVATE_SENTINEL,
    Seeded,
    UiProc,
    csrf_of,
    refresh_target,
    sign_in,
)
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.console.app import build_console_app
from brainkeep.ops.registry import open_dispatcher
from tests.http.http_support import ServerProc


def console(remote: ServerProc) -> str:
    return remote.base + "/console"


def fact_state(seeded: Seeded, key: str) -> tuple[str | None, list[tuple[str, object]]]:
    """(expired_at, [(event kind, reason)]) of a seeded fact, read from the database."""
    brain = open_brain(load_settings(seeded.home, env={}))
    try:
        memory = brain.store.get_memory(int(seeded.facts[key]))
        assert memory is not None
        events = brain.store.events_for("memory", memory.uuid)
        return memory.expired_at, [(e.kind, e.payload.get("reason")) for e in events]
    finally:
        brain.close()


def test_anonymous_remote_viewer_is_sent_to_sign_in(remote: ServerProc) -> None:
    response = httpx.get(console(remote) + "/memories", timeout=30)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/console/login?next=%2Fmemories")


def test_session_cookie_flags(remote: ServerProc, seeded: Seeded) -> None:
    with httpx.Client(timeout=30) as client:
        response = sign_in(client, console(remote), seeded.tokens["a_read"])
        assert response.status_code == 303
        cookie = response.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert "Path=/console" in cookie
        assert "Secure" not in cookie  # plain HTTP on loopback



def test_cookies_are_secure_over_https_or_behind_an_https_public_url(seeded: Seeded) -> None:
    # In process: which proxy's X-Forwarded-Proto to believe is the server's
    # setting (docs/http.md); the console only reads the request's scheme.
    brain = open_brain(load_settings(seeded.home, env={}))
    try:
        for secure_cookies, base_url in ((False, "https://brain.example"),
                                         (True, "http://brain.example")):
            app = Starlette(routes=[Mount("/console", app=build_console_app(
                brain, open_dispatcher(brain, "full"), base="/console",
                secure_cookies=secure_cookies))])
            with TestClient(app, base_url=base_url, follow_redirects=False) as client:
                form = client.get("/console/login")
                assert "Secure" in form.headers["set-cookie"]
                if base_url.startswith("https:"):  # (a client sends Secure cookies over TLS)
                    signed = sign_in(client, "/console", seeded.tokens["a_read"])
                    assert signed.status_code == 303
                    assert all("Secure" in c for c in signed.headers.get_list("set-cookie"))
    finally:
        brain.close()


def test_wrong_token_is_refused(remote: ServerProc) -> None:
    with httpx.Client(timeout=30) as client:
        response = sign_in(client, console(remote), "bk_000000000000_" + "x" * 40)
        assert response.status_code == 401
        assert "not a valid token" in response.text
        assert client.get(console(remote) + "/").status_code == 303


def test_login_without_csrf_is_refused(remote: ServerProc, seeded: Seeded) -> None:
    with httpx.Client(timeout=30) as client:
        client.get(console(remote) + "/login")
        response = client.post(console(remote) + "/login",
                               data={"token": seeded.tokens["a_read"], "next": "/"})
        assert response.status_code == 403
        assert client.get(console(remote) + "/").status_code == 303  # not signed in


def test_forget_without_or_with_a_wrong_csrf_token_is_refused(
        remote: ServerProc, seeded: Seeded) -> None:
    url = f"{console(remote)}/memories/{seeded.facts['tea']}/forget"
    with httpx.Client(timeout=30) as client:
        assert sign_in(client, console(remote), seeded.tokens["a_write"]).status_code == 303
        missing = client.post(url, data={"reason": "csrf test"})
        wrong = client.post(url, data={"reason": "csrf test", "csrf": "not-the-token"})
        assert missing.status_code == 403 and wrong.status_code == 403
        assert "Refused" in wrong.text
    expired_at, events = fact_state(seeded, "tea")
    assert expired_at is None
    assert all(kind != "memory.expire" for kind, _ in events)


def test_local_forget_without_csrf_is_refused(ui: UiProc, seeded: Seeded) -> None:
    # The local console is trusted, but another site in the same browser must
    # not be able to submit its forms.
    with ui.client() as client:
        assert client.get("/").status_code == 200
        response = client.post(f"/memories/{seeded.facts['rockets']}/forget",
                               data={"reason": "cross-site"})
        assert response.status_code == 403
    assert fact_state(seeded, "rockets")[0] is None


def test_read_token_cannot_forget(remote: ServerProc, seeded: Seeded) -> None:
    with httpx.Client(timeout=30) as client:
        assert sign_in(client, console(remote), seeded.tokens["a_read"]).status_code == 303
        detail = client.get(f"{console(remote)}/memories/{seeded.facts['rockets']}")
        assert "needs the <code>write</code> scope" in detail.text
        response = client.post(f"{console(remote)}/memories/{seeded.facts['rockets']}/forget",
                               data={"reason": "no scope", "csrf": csrf_of(detail.text)})
        assert response.status_code == 403
    assert fact_state(seeded, "rockets")[0] is None


def test_forget_through_the_form_expires_the_fact_and_audits_it(
        remote: ServerProc, seeded: Seeded) -> None:
    fact = seeded.facts["forgettable"]
    with httpx.Client(timeout=30) as client:
        assert sign_in(client, console(remote), seeded.tokens["a_write"]).status_code == 303
        before = client.get(console(remote) + "/memories")
        assert "Bob collects stamps" in before.text
        detail = client.get(f"{console(remote)}/memories/{fact}")
        response = client.post(f"{console(remote)}/memories/{fact}/forget",
                               data={"reason": "user asked", "csrf": csrf_of(detail.text)})
        assert response.status_code == 303
        assert response.headers["location"] == f"/console/memories?forgot={fact}"
        after = client.get(console(remote) + response.headers["location"].removeprefix(
            "/console"))
        assert f"Fact #{fact} forgotten" in after.text
        assert "Bob collects stamps" not in after.text
    expired_at, events = fact_state(seeded, "forgettable")
    assert expired_at is not None
    assert ("memory.expire", "user asked") in events


def test_sign_out_ends_the_session(remote: ServerProc, seeded: Seeded) -> None:
    with httpx.Client(timeout=30) as client:
        assert sign_in(client, console(remote), seeded.tokens["a_read"]).status_code == 303
        home = client.get(console(remote) + "/")
        assert home.status_code == 200 and "viewer-a" in home.text
        out = client.post(console(remote) + "/logout", data={"csrf": csrf_of(home.text)})
        assert out.status_code == 303
        assert client.get(console(remote) + "/").status_code == 303


def test_local_console_refuses_foreign_host_names(ui: UiProc) -> None:
    port = re.search(r":(\d+)$", ui.base)
    assert port
    response = httpx.get(ui.base + "/", headers={"Host": f"evil.example:{port.group(1)}"},
                         timeout=30)
    assert response.status_code == 421


# -- brainkeep ui: the key in the URL it printed ------------------------------------

def test_local_console_refuses_a_request_without_its_key(ui: UiProc, seeded: Seeded) -> None:
    # Another account on this machine reaches 127.0.0.1 too; before the key it
    # read private facts and could mint an admin token here.
    with httpx.Client(base_url=ui.base, timeout=30) as stranger:
        for path in ("/", "/memories", f"/memories/{seeded.facts['private']}", "/access",
                     "/live/events", "/static/console.css", "/login"):
            answer = stranger.get(path)
            assert answer.status_code == 401, (path, answer.status_code)
            assert "Open the URL <code>brainkeep ui</code> printed" in answer.text
            assert PRIVATE_SENTINEL not in answer.text
        made = stranger.post("/access/tokens", data={"name": "stolen", "scopes": "admin"})
        assert made.status_code == 401
        assert "set-cookie" not in made.headers
    with ui.client() as owner:
        assert 'data-token="stolen"' not in owner.get("/access").text


def test_local_console_refuses_a_wrong_key(ui: UiProc) -> None:
    wrong = ui.token[:-4] + ("AAAA" if not ui.token.endswith("AAAA") else "BBBB")
    for url in (f"{ui.base}/?token={wrong}", f"{ui.base}/?token=", f"{ui.base}/?token=x"):
        answer = httpx.get(url, timeout=30)
        assert answer.status_code == 403, url
        assert "Wrong console key" in answer.text
        assert "set-cookie" not in answer.headers


def test_local_key_buys_a_strict_cookie_and_leaves_the_url(ui: UiProc) -> None:
    with httpx.Client(timeout=30) as browser:
        answer = browser.get(f"{ui.base}/memories?kind=event&token={ui.token}")
        assert answer.status_code == 200
        target = refresh_target(answer.text)
        assert target == "/memories?kind=event"  # the key is gone
        assert ui.token not in answer.text
        cookie = answer.headers["set-cookie"]
        assert cookie.startswith("bk_console=")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
        page = browser.get(ui.base + target)
        assert page.status_code == 200 and "local (trusted)" in page.text
    # The key stays good for the life of the process, to mint a cookie for a
    # second browser; it never shows in the server's output beyond its banner.
    with httpx.Client(timeout=30) as second:
        assert second.get(ui.url).status_code == 200
        assert second.get(ui.base + "/").status_code == 200
    assert ui.stderr().count(ui.token) == 1


def test_a_planted_path_cannot_send_the_browser_elsewhere(ui: UiProc) -> None:
    answer = httpx.get(f"{ui.base}//evil.example/?token={ui.token}", timeout=30)
    assert answer.status_code == 200
    assert refresh_target(answer.text) == "/"
