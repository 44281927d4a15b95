"""Markdown pages: frontmatter, typed links, body links, timeline."""

from __future__ import annotations

import pytest

from brainkeep.core.markdown import (
    append_timeline_line,
    default_type,
    link_target,
    parse_page,
    parse_timeline,
    split_frontmatter,
    split_timeline,
)
from brainkeep.core.models import LinkSpec, TimelineSpec
from brainkeep.errors import InvalidInput

ALICE = """---
title: Alice Example
type: person
aliases: [Ali, "Dr. A. Example"]
summary: Runs platform at Acme.
works_at: companies/acme-example
advises:
  - companies/globex
  - companies/initech
favourite_color: teal
born: 1990-04-01
ratio: 0.5
---
# Alice (heading is not the title when frontmatter has one)

Alice works with [[people/bob-example]] and [[people/carol|Carol C.]].
See [the Q1 plan](projects/q1-plan.md) and [site](https://example.com/x).

## Timeline

- 2024-01-15: Joined Acme
  Hired as staff engineer.
  Reports to Bob.
- 2024-13-40: not a real date
- 2024-06-01: Promoted
"""


def test_frontmatter_keys_understood_and_unknown_kept() -> None:
    page = parse_page("people/alice-example", ALICE)
    assert page.title == "Alice Example"
    assert page.type == "person"
    assert page.summary == "Runs platform at Acme."
    assert page.visibility == "world"
    assert page.aliases == ("Ali", "Dr. A. Example")
    assert page.frontmatter["favourite_color"] == "teal"
    assert page.frontmatter["ratio"] == 0.5
    assert page.frontmatter["born"] == "1990-04-01"  # dates become ISO strings


def test_typed_frontmatter_links_including_lists() -> None:
    links = parse_page("people/alice-example", ALICE).links
    typed = [link for link in links if link.link_source == "frontmatter"]
    assert typed == [
        LinkSpec("companies/acme-example", "works_at", "frontmatter"),
        LinkSpec("companies/globex", "advises", "frontmatter"),
        LinkSpec("companies/initech", "advises", "frontmatter"),
    ]


@pytest.mark.parametrize(
    "value",
    [
        "teal",  # no namespace
        "2024/01/02",  # looks like a path but starts with a digit
        "Companies/Acme",  # not a valid slug
        "https://example.com/a",
        "[companies/acme, not a slug]",  # a list with one non-slug
        "42",
    ],
)
def test_non_slug_frontmatter_values_are_not_links(value: str) -> None:
    page = parse_page("notes/x", f"---\nrel: {value}\n---\nbody\n")
    assert [link for link in page.links if link.link_source == "frontmatter"] == []


@pytest.mark.parametrize("key", ["title", "type", "summary", "visibility", "tags", "aliases"])
def test_reserved_keys_never_become_links(key: str) -> None:
    value = "world" if key == "visibility" else "people/bob"
    page = parse_page("notes/x", f"---\n{key}: {value}\n---\nbody\n")
    assert page.links == ()


def test_wikilinks_and_markdown_links() -> None:
    links = parse_page("people/alice-example", ALICE).links
    body = [
        (link.to_slug, link.link_type, link.link_source, link.context)
        for link in links
        if link.link_source != "frontmatter"
    ]
    assert body == [
        ("people/bob-example", "mentions", "mentions", ""),
        ("people/carol", "mentions", "mentions", "Carol C."),
        ("projects/q1-plan", "mentions", "markdown", "the Q1 plan"),
    ]


def test_links_dedupe_and_skip_self_links() -> None:
    content = "[[a/b]] and [[a/b|again]] and [[notes/self]] and [x](a/b.md)"
    page = parse_page("notes/self", content)
    assert [(link.to_slug, link.link_source) for link in page.links] == [("a/b", "mentions")]


def test_image_links_and_invalid_targets_ignored() -> None:
    content = "![img](images/a.png) [[Not A Slug]] [mail](mailto:a@b.c) [anchor](#top)"
    assert parse_page("notes/x", content).links == ()


@pytest.mark.parametrize(
    ("raw", "slug"),
    [
        ("people/a.md", "people/a"),
        ("/people/a", "people/a"),
        ("./people/a.md#section", "people/a"),
        ("http://x.org/a", None),
        ("#frag", None),
        ("Bad Target", None),
        ("", None),
    ],
)
def test_link_target(raw: str, slug: str | None) -> None:
    assert link_target(raw) == slug


def test_timeline_section_with_detail_lines_and_invalid_dates() -> None:
    page = parse_page("people/alice-example", ALICE)
    assert page.timeline == (
        TimelineSpec("2024-01-15", "Joined Acme", "Hired as staff engineer.\nReports to Bob."),
        TimelineSpec("2024-06-01", "Promoted", ""),
    )
    assert "## Timeline" not in page.body
    assert "Alice works with" in page.body


def test_timeline_section_ends_at_next_heading() -> None:
    body = "Intro.\n\n## Timeline\n- 2024-02-02: A\n\n## Notes\nMore text.\n"
    truth, section = split_timeline(body)
    assert parse_timeline(section) == [TimelineSpec("2024-02-02", "A")]
    assert truth == "Intro.\n\n## Notes\nMore text."


def test_timeline_star_bullets_and_free_text_between() -> None:
    section = (
        "* 2023-05-05: Star bullet\nsome prose\n  indented after prose\n- 2023-06-06 : Spaced\n"
    )
    assert parse_timeline(section) == [
        TimelineSpec("2023-05-05", "Star bullet"),
        TimelineSpec("2023-06-06", "Spaced"),
    ]


@pytest.mark.parametrize(
    "content",
    [
        "---\ntitle: [unclosed\n---\nbody\n",
        "---\ntitle: a: b: c\n---\nbody\n",
        "---\n\tbad: tab indent\n---\n",
        "---\nkey: value\n  nested: wrong\n---\n",
    ],
)
def test_malformed_yaml_is_invalid_input(content: str) -> None:
    with pytest.raises(InvalidInput) as info:
        parse_page("notes/x", content)
    assert "Malformed YAML frontmatter" in info.value.message
    assert info.value.field == "content"


@pytest.mark.parametrize("content", ["---\n- a\n- b\n---\nbody", "---\njust text\n---\n"])
def test_frontmatter_must_be_a_mapping(content: str) -> None:
    with pytest.raises(InvalidInput, match="mapping"):
        parse_page("notes/x", content)


def test_unknown_visibility_rejected_private_understood() -> None:
    with pytest.raises(InvalidInput, match="visibility"):
        parse_page("notes/x", "---\nvisibility: secret\n---\n")
    assert parse_page("notes/x", "---\nvisibility: Private\n---\n").visibility == "private"


def test_no_frontmatter_title_from_heading_or_slug() -> None:
    assert split_frontmatter("no frontmatter\n---\n") == ({}, "no frontmatter\n---\n")
    assert parse_page("notes/x", "# Real Title\n\ntext").title == "Real Title"
    assert parse_page("notes/weekly-sync", "text only").title == "Weekly Sync"
    assert parse_page("notes/x", "---\n---\nempty frontmatter").frontmatter == {}


def test_default_type_from_namespace() -> None:
    assert default_type("people/a") == "person"
    assert default_type("companies/a") == "company"
    assert default_type("projects/a") == "project"
    assert default_type("meetings/a") == "meetings"
    assert default_type("toplevel") == "note"


def test_append_timeline_line_creates_then_extends_section() -> None:
    once = append_timeline_line("# Page\n\nText.\n", "2024-01-01", "First")
    assert once == "# Page\n\nText.\n\n## Timeline\n\n- 2024-01-01: First\n"
    twice = append_timeline_line(once + "\n## Later\nx\n", "2024-02-02", "Second", "why\nhow")
    _, section = split_timeline(twice)
    assert parse_timeline(section) == [
        TimelineSpec("2024-01-01", "First"),
        TimelineSpec("2024-02-02", "Second", "why\nhow"),
    ]
    assert twice.rstrip().endswith("## Later\nx")
