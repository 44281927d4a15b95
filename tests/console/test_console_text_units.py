"""The pure parts behind what a person reads: times, page text as HTML, a fact's status."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from console_support import call_as

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.console.markdown_html import render_markdown, safe_href
from brainkeep.console.times import full_time, human_time, time_html
from brainkeep.core.clock import format_ts
from brainkeep.core.fact_status import fact_status
from tests.http.http_support import make_home

NOW = datetime(2026, 6, 15, 14, 3, 30, tzinfo=UTC)


def _ago(**delta: float) -> str:
    return format_ts(NOW - timedelta(**delta))


@pytest.mark.parametrize(("value", "words"), [
    (_ago(seconds=20), "just now"),
    (_ago(minutes=1), "1 minute ago"),
    (_ago(minutes=5, seconds=30), "5 minutes ago"),
    (_ago(hours=3), "3 hours ago"),
    (_ago(days=3, hours=2), "3 days ago"),
    (format_ts(NOW + timedelta(hours=2, minutes=1)), "in 2 hours"),
    (_ago(days=8), "2026-06-07 14:03"),
    ("2026-06-12T14:03:05.123456Z", "3 days ago"),
    ("2025-01-02T03:04:05.000001Z", "2025-01-02 03:04"),
    ("2026-06-12", "2026-06-12"),  # a day stays a day
    ("not a time", "not a time"),
    (None, ""),
])
def test_human_time_words(value: str | None, words: str) -> None:
    assert human_time(value, NOW) == words


def test_human_time_styles_and_the_time_element() -> None:
    stored = "2026-06-12T14:03:05.123456Z"
    assert human_time(stored, NOW, style="exact") == "2026-06-12 14:03"
    assert human_time(stored, NOW, style="clock") == "14:03:05"
    assert full_time(stored) == "2026-06-12 14:03:05 UTC"
    html = str(time_html(stored, NOW))
    assert html == ('<time datetime="2026-06-12T14:03:05.123456Z" '
                    'title="2026-06-12 14:03:05 UTC">3 days ago</time>')
    assert str(time_html(None, NOW)) == "—"
    assert str(time_html("", NOW, empty="never")) == "never"
    assert str(time_html("<b>", NOW)) == "&lt;b&gt;"  # not a time: escaped text
    with pytest.raises(ValueError):
        time_html(stored, NOW, style="fancy")


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "JaVaScRiPt:alert(1)", "java\tscript:alert(1)",
    " javascript:alert(1)", "\x01javascript:alert(1)", "data:text/html,<b>x</b>",
    "vbscript:msgbox", "file:///etc/passwd", "mailto:a@example.com",
])
def test_unsafe_link_schemes_are_refused(url: str) -> None:
    assert safe_href(url) is None


@pytest.mark.parametrize("url", [
    "https://example.com/a?b=1", "http://example.com", "HTTPS://EXAMPLE.COM",
    "notes/readme.txt", "/static/x", "#top", "?q=1", "1javascript:x",
])
def test_safe_links_are_kept(url: str) -> None:
    assert safe_href(url) == url


def _href(slug: str) -> str:
    return f"/console/entities/{slug}"


HOSTILE = """# Dee Example

Intro with <script>alert(1)</script> and <img src=x onerror=alert(2)>.
A [bad](javascript:alert(3)) link, a [data](data:text/html,x) one,
a [good](https://example.com/?a=1&b=2) one.
Quote breakout [q](https://x.example/"onmouseover="alert) and `<b>code</b>`.
"""


def test_page_text_never_passes_html_or_unsafe_links() -> None:
    html = str(render_markdown(HOSTILE, _href, title="Dee Example"))
    tags = set(re.findall(r"<([a-z0-9]+)", html))
    assert tags <= {"p", "a", "code", "strong", "em"}, tags
    assert "&lt;script&gt;" in html and "&lt;img src=x onerror=alert(2)&gt;" in html
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert hrefs == ["https://example.com/?a=1&amp;b=2",
                     "https://x.example/&#34;onmouseover=&#34;alert"]
    assert "[bad](javascript:alert(3))" in html  # shown as the text it was, not a link
    assert "<code>&lt;b&gt;code&lt;/b&gt;</code>" in html
    assert "<h3>" not in html  # the first "# Title" equal to the page title is dropped
    assert re.findall(r"<a [^>]*>", html)[0].count("rel=") == 1


def test_markdown_subset_and_wikilinks() -> None:
    text = ("## Work\n\nShe works at [[companies/acme]] with [[people/bob|Bob **B**]]; "
            "see [the notes](projects/plan.md) and **bold**, *em*, _em too_, snake_case.\n\n"
            "- one\n- two [[people/cy]]\n  - nested\n- three\n\n1. first\n2. second\n\n"
            "> quoted *words*\n\n```\n[[not/a-link]] <b>\n```\n\n---\n\n[[Not A Slug!]]\n")
    html = str(render_markdown(text, _href))
    assert "<h4>Work</h4>" in html
    assert '<a class="wikilink" href="/console/entities/companies/acme">companies/acme</a>' in html
    assert '<a class="wikilink" href="/console/entities/people/bob">Bob **B**</a>' in html
    assert '<a class="wikilink" href="/console/entities/projects/plan">the notes</a>' in html
    assert "<strong>bold</strong>" in html and "<em>em</em>" in html
    assert "<em>em too</em>" in html and "snake_case" in html
    assert "<ul><li>one</li><li>two " in html and "<ul><li>nested</li></ul></li>" in html
    assert "<ol><li>first</li><li>second</li></ol>" in html
    assert "<blockquote><p>quoted <em>words</em></p></blockquote>" in html
    assert "<pre><code>[[not/a-link]] &lt;b&gt;</code></pre>" in html
    assert "<hr>" in html and "<p>[[Not A Slug!]]</p>" in html


def test_unmatched_emphasis_stays_linear() -> None:
    text = "**a " * 20_000  # a paragraph of openers with no closer
    assert len(str(render_markdown(text, _href))) > 60_000


def test_fact_status_names_what_happened(tmp_path: Path) -> None:
    home = make_home(tmp_path / "home")
    kept = call_as(home, "remember", {"fact": "Ada likes tea", "provenance": "t"})["id"]
    gone = call_as(home, "remember", {"fact": "Ada likes cocoa", "provenance": "t"})["id"]
    call_as(home, "forget", {"id": gone, "reason": "wrong"})
    brain = open_brain(load_settings(home, env={}))
    try:
        now = brain.clock.now_ts()
        active = brain.store.get_memory(int(kept))
        forgotten = brain.store.get_memory(int(gone))
        assert active is not None and forgotten is not None
        assert fact_status(active, now) == "active"
        assert fact_status(forgotten, now) == "forgotten"
        assert fact_status(replace(active, valid_until=now), now) == "expired"
        assert fact_status(replace(forgotten, superseded_by=active.id), now) == "superseded"
    finally:
        brain.close()
