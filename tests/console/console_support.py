"""Helpers for the console tests: a seeded brain, real `brainkeep ui` and
`brainkeep serve --http` processes, and a signed-in httpx client.

Plain functions (not fixtures) so the browser tests can import them too.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.context import LOCAL
from brainkeep.core.tokens import TokenService
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from tests.http.http_support import (
    OPEN_LIMITS,
    ServerProc,
    make_home,
    server_env,
    start_server,
    stop_process,
)

# The URL `brainkeep ui` prints: its base and its key (console/local_auth.py).
UI_BANNER = re.compile(r"console at ((http://127\.0\.0\.1:\d+)/\?token=([A-Za-z0-9_-]+)) ")
START_TIMEOUT_S = 60.0
CSRF_INPUT = re.compile(r'name="csrf" value="([^"]+)"')

# Strings that must never reach a viewer who may not read them.
ORG_B_SENTINEL = "zq-orgb-sentinel-4412"
PRIVATE_SENTINEL = "zq-private-sentinel-9183"
PRIVATE_PAGE_SENTINEL = "zq-private-page-5521"


@dataclass(frozen=True)
class Seeded:
    """A seeded brain: its home, token secrets by role, and fact ids by name."""

    home: Path
    tokens: dict[str, str]
    facts: dict[str, str]


def call_as(home: Path, name: str, params: dict[str, Any], *, org: str | None = None
            ) -> dict[str, Any]:
    """Call an operation as the trusted local CLI of tenant ``org``."""
    brain = open_brain(load_settings(home, env={}))
    try:
        caller = LOCAL if org is None else replace(LOCAL, org_id=org)
        outcome = Dispatcher(build_catalog(), brain).call(name, params, caller)
        assert not outcome.is_error, outcome.payload
        return outcome.payload
    finally:
        brain.close()


def create_token(home: Path, name: str, scopes: str, *, org: str | None = None,
                 agent: str | None = None) -> str:
    brain = open_brain(load_settings(home, env={}))
    try:
        return TokenService(brain.store, brain.clock).create(name, scopes, org_id=org,
                                                             agent_id=agent).secret
    finally:
        brain.close()


MCP_ACCEPT = "application/json, text/event-stream"


def mcp_call(url: str, secret: str, tool: str, arguments: dict[str, Any]) -> httpx.Response:
    """One stateless ``tools/call`` on the real ``/mcp`` endpoint with a bearer token."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}
    return httpx.post(url, json=body, timeout=20,
                      headers={"Authorization": f"Bearer {secret}", "Accept": MCP_ACCEPT})


def seed(path: Path, engine: str = "sqlite") -> Seeded:
    """Pages with links, facts in two orgs, a private fact and page, a superseded fact.

    Org ``org-a`` holds the world facts the org-A viewer may see; ``org-b``
    and the private rows carry sentinels no org-A remote viewer may ever see.
    """
    home = make_home(path, OPEN_LIMITS, engine)
    pages = {
        "people/ada-example": "---\ntitle: Ada Example\ntype: person\naliases: [Ada]\n"
        "summary: Ada builds compilers.\n---\n# Ada Example\n\nAda works with "
        "[[companies/acme]] and knows [[people/bob-example]].\n",
        "people/bob-example": "---\ntitle: Bob Example\ntype: person\n---\n# Bob\n\n"
        "Bob is a friend of [[people/ada-example]] and [[people/cy-example]].\n",
        "people/cy-example": "---\ntitle: Cy Example\ntype: person\n---\n# Cy\n\nCy paints.\n",
        "companies/acme": "---\ntitle: Acme Corp\ntype: company\n---\n# Acme\n\n"
        "Acme makes rockets.\n",
        "people/hidden-person": f"---\ntitle: Hidden {PRIVATE_PAGE_SENTINEL}\ntype: person\n"
        f"visibility: private\n---\n# Hidden\n\n{PRIVATE_PAGE_SENTINEL} knows "
        "[[people/ada-example]].\n",
    }
    for slug, content in pages.items():
        call_as(home, "put_page", {"slug": slug, "content": content})
    facts: dict[str, str] = {}

    def remember(key: str, org: str | None, **params: Any) -> None:
        facts[key] = call_as(home, "remember", {"provenance": "console test", **params},
                             org=org)["id"]

    remember("tea", "org-a", fact="Ada prefers tea over coffee", entity="people/ada-example")
    remember("rockets", "org-a", fact="Acme launches rockets every Tuesday",
             entity="companies/acme", kind="event")
    remember("private", "org-a", fact=f"Ada's door code is {PRIVATE_SENTINEL}",
             entity="people/ada-example", visibility="private")
    remember("orgb", "org-b", fact=f"Org B secret plan {ORG_B_SENTINEL}",
             entity="people/ada-example")
    remember("forgettable", "org-a", fact="Bob collects stamps", entity="people/bob-example")
    tokens = {
        "a_read": create_token(home, "viewer-a", "read", org="org-a"),
        "a_write": create_token(home, "writer-a", "read,write", org="org-a"),
        "a_admin": create_token(home, "admin-a", "admin", org="org-a"),
        "b_read": create_token(home, "viewer-b", "read", org="org-b"),
    }
    return Seeded(home, tokens, facts)


@dataclass
class UiProc:
    """A running `brainkeep ui` subprocess.

    ``base`` is ``http://127.0.0.1:PORT``; ``url`` the URL it printed (with
    ``?token=``); ``cookies`` the session cookie that URL minted, for httpx.
    """

    proc: subprocess.Popen[bytes]
    base: str
    url: str
    token: str
    stderr_path: Path
    cookies: dict[str, str]

    def client(self) -> httpx.Client:
        """An httpx client signed in to the console (its own copy of the cookie)."""
        return httpx.Client(base_url=self.base, cookies=self.cookies, timeout=30)

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def stop(self, timeout: float = 15.0) -> int:
        return stop_process(self.proc, timeout)


def start_ui(home: Path, *args: str, org: str | None = None) -> UiProc:
    """`brainkeep [--org ORG] ui --port 0 --no-browser` and wait for its banner."""
    err_path = home / f"ui-{time.monotonic_ns()}.stderr"
    root = ["--org", org] if org else []
    with err_path.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "brainkeep", *root, "ui", "--port", "0", "--no-browser",
             *args],
            env=server_env(home), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=err,
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        match = UI_BANNER.search(err_path.read_text(encoding="utf-8", errors="replace"))
        if match:
            return UiProc(proc, match.group(2), match.group(1), match.group(3), err_path,
                          exchange(match.group(1)))
        if proc.poll() is not None:
            raise RuntimeError(f"ui exited early: {err_path.read_text()}")
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"ui did not start: {err_path.read_text()}")


REFRESH = re.compile(r'http-equiv="refresh" content="0;url=([^"]*)"')


def refresh_target(page: str) -> str:
    """Where the page the URL key answers with sends the browser on."""
    match = REFRESH.search(page)
    assert match, page
    return html.unescape(match.group(1))


def exchange(url: str) -> dict[str, str]:
    """Open the printed URL once: its token buys a session cookie and a move to a clean URL."""
    answer = httpx.get(url, timeout=30)
    assert answer.status_code == 200, answer.text
    assert "token=" not in refresh_target(answer.text)
    return {"bk_console": answer.cookies["bk_console"]}


def start_remote(home: Path, *args: str) -> ServerProc:
    """`brainkeep serve --http --port 0`: the console is at ``server.base + "/console"``."""
    return start_server(home, *args)


def csrf_of(page: str) -> str:
    """The CSRF token of the first form on a rendered page."""
    match = CSRF_INPUT.search(page)
    assert match, "no CSRF field on the page"
    return html.unescape(match.group(1))


def sign_in(client: httpx.Client, console: str, secret: str) -> httpx.Response:
    """Sign ``client`` in at ``console`` (``.../console``) with a token secret."""
    form = client.get(f"{console}/login")
    assert form.status_code == 200, form.text
    return client.post(f"{console}/login", data={"csrf": csrf_of(form.text), "token": secret,
                                                 "next": "/"})
