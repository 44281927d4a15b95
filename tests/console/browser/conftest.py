"""Browser fixtures: Debian's Chromium driven by Playwright, one browser per test module.

The servers and the seeded brain are tests/console/conftest.py's (``seeded``,
``ui``: ``brainkeep --org org-a ui``, ``remote``: ``serve --http`` with
``/console``), real subprocesses on free ports. Each test gets a fresh
browser context (its own cookies) at 1280×800; ``phone`` contexts are
390×844. Every page a test opens is watched: a JavaScript error or a
Content-Security-Policy violation (Chromium reports both on the console)
fails the test. Screenshots go to ``$BRAINKEEP_ARTIFACTS`` or
``test-artifacts/console/`` at the repository root (gitignored).

The browser runs headless, without sandbox (containers), and with every
background service off: this machine's network refuses connections the
browser would otherwise open on its own (updates, sync, QUIC probes).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from console_support import UiProc
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
TIMEOUT_MS = 10_000
REPO = Path(__file__).resolve().parents[3]

def artifacts_dir() -> Path:
    """Where screenshots go: ``$BRAINKEEP_ARTIFACTS/console`` or ``test-artifacts/console``."""
    root = os.environ.get("BRAINKEEP_ARTIFACTS")
    folder = Path(root) / "console" if root else REPO / "test-artifacts" / "console"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# Module scope, not session: Playwright's sync API keeps an event loop
# running in this thread while it is open, and later tests that start their
# own (anyio, asyncio.run) must not find it. (Package scope would do, but
# this directory is not a package.)
@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the whole session (a fresh profile: Playwright's temp dir)."""
    if not CHROMIUM.exists():
        if os.environ.get("BRAINKEEP_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{CHROMIUM} is missing (apt-get install -y chromium)")
        pytest.skip(f"{CHROMIUM} is missing: `apt-get install -y chromium` to run the "
                    "browser tests (.ci/run does)")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                          args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


class PageErrors:
    """JavaScript errors and console errors (CSP violations among them) of watched pages."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def watch(self, page: Page) -> None:
        page.on("pageerror", lambda exc: self.items.append(f"pageerror: {exc}"))
        page.on("console", self._console)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.items.append(f"console: {message.text}")


def _context(browser: Browser, viewport: dict[str, int], errors: PageErrors) -> BrowserContext:
    context = browser.new_context(viewport={"width": viewport["width"],
                                            "height": viewport["height"]})
    context.set_default_timeout(TIMEOUT_MS)
    context.on("page", errors.watch)
    return context


NewPage = Callable[..., Page]


@pytest.fixture
def open_page(browser: Browser) -> Iterator[NewPage]:
    """``open_page(phone=False, ui=None)``: a page in a new context (own cookies), errors
    watched; with ``ui``, signed in to that `brainkeep ui` through the URL it printed.

    At teardown the contexts close (ending any live-feed stream) and the test
    fails if a watched page logged a JavaScript or CSP error.
    """
    errors = PageErrors()
    contexts: list[BrowserContext] = []

    def make(*, phone: bool = False, ui: UiProc | None = None) -> Page:
        context = _context(browser, PHONE if phone else DESKTOP, errors)
        contexts.append(context)
        page = context.new_page()
        if ui is not None:  # open the URL `brainkeep ui` printed: its key buys the cookie
            page.goto(ui.url)
            page.wait_for_url(f"{ui.base}/")
        return page

    yield make
    for context in contexts:
        context.close()
    # 4xx answers a test provokes on purpose show up as "Failed to load resource".
    real = [e for e in errors.items if "Failed to load resource" not in e]
    assert not real, "browser errors:\n" + "\n".join(real)


@pytest.fixture
def shot() -> Callable[[Page, str], Path]:
    """``shot(page, name)``: save a viewport screenshot as a test artifact."""

    def save(page: Page, name: str) -> Path:
        path = artifacts_dir() / f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', name)}.png"
        page.screenshot(path=str(path))
        return path

    return save
