"""Plain helpers of the browser tests: sign in, call MCP, tamper the SQLite file.

``mcp_call`` is console_support's (re-exported: the browser tests import it from here).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from console_support import mcp_call as mcp_call
from playwright.sync_api import Page

from brainkeep.config import load_settings


def sign_in(page: Page, console: str, secret: str) -> None:
    """Sign in at ``console`` (``http://…/console``) by typing the secret into the form."""
    page.goto(f"{console}/login")
    page.fill("#token", secret)
    page.press("#token", "Enter")
    page.wait_for_url(lambda url: "/login" not in url)


def no_horizontal_scroll(page: Page) -> bool:
    """The phone-width rule: nothing wider than the viewport."""
    return bool(page.evaluate(
        "document.documentElement.scrollWidth <= window.innerWidth"))


def db_path(home: Path) -> Path:
    return Path(load_settings(home, env={}).db_path)


@contextmanager
def tampered_event(home: Path, seq: int) -> Iterator[str]:
    """Edit event ``seq``'s actor in the SQLite file behind the server's back; restore after.

    The brain is shared by the console tests, so the original value goes back
    even when the test fails.
    """
    with closing(sqlite3.connect(db_path(home), isolation_level=None)) as db:
        (actor,) = db.execute("SELECT actor FROM events WHERE seq = ?", (seq,)).fetchone()
        db.execute("UPDATE events SET actor = ? WHERE seq = ?", ("mallory", seq))
        try:
            yield str(actor)
        finally:
            db.execute("UPDATE events SET actor = ? WHERE seq = ?", (actor, seq))


@contextmanager
def tampered_memory(home: Path, fact_id: str) -> Iterator[int]:
    """Rewrite a fact's text in the SQLite file; yields the seq of its newest event."""
    with closing(sqlite3.connect(db_path(home), isolation_level=None)) as db:
        text, uuid = db.execute("SELECT text, uuid FROM memories WHERE id = ?",
                                (int(fact_id),)).fetchone()
        (seq,) = db.execute("SELECT MAX(seq) FROM events WHERE subject_type = 'memory' "
                            "AND subject_id = ?", (uuid,)).fetchone()
        db.execute("UPDATE memories SET text = ? WHERE id = ?", ("forged", int(fact_id)))
        try:
            yield int(seq)
        finally:
            db.execute("UPDATE memories SET text = ? WHERE id = ?", (text, int(fact_id)))


def event_head(home: Path) -> int:
    with closing(sqlite3.connect(db_path(home))) as db:
        return int(db.execute("SELECT MAX(seq) FROM events").fetchone()[0])
