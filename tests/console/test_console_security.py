"""Sessions, cookies, CSRF and the forget form, over real sockets."""

from __future__ import annotations

import re

import httpx
from console_support import Seeded, UiProc, csrf_of, sign_in

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
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
    # Behind an HTTPS proxy (uvicorn trusts X-Forwarded-Proto from loopback): Secure.
    with httpx.Client(timeout=30, headers={"X-Forwarded-Proto": "https"}) as client:
        form = client.get(console(remote) + "/login")
        assert "Secure" in form.headers["set-cookie"]


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
    with httpx.Client(timeout=30) as client:
        client.get(ui.base + "/")
        response = client.post(f"{ui.base}/memories/{seeded.facts['rockets']}/forget",
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
