"""Hostile input at the core: alias bombs, overflowing numbers, deep JSON, caps in one table.

Each case used to end as an internal error, a silent fallback or a
multi-gigabyte expansion (issue 10, items 1, 2, 4); now it is ``InvalidInput``
with a suggestion.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from brainkeep.brain import Brain
from brainkeep.core import limits, validate
from brainkeep.core.clock import format_ts, parse_ts
from brainkeep.core.context import LOCAL
from brainkeep.core.jsonlimits import loads_bounded
from brainkeep.core.markdown import split_frontmatter
from brainkeep.core.memory import validation as v
from brainkeep.core.transfer import import_dir
from brainkeep.core.ttl import parse_ttl
from brainkeep.core.verbs.common import iso_z, parse_since
from brainkeep.errors import InvalidInput

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
# Bounds a hang, not speed (speed belongs in bench/): an expanded 9-level alias
# bomb (9**9 strings) takes minutes and gigabytes, a refused one milliseconds,
# so a generous bound cannot flake on two busy cores and still fails the expansion.
HANG_BOUND_S = 30.0


def alias_bomb(levels: int) -> str:
    """The probe's frontmatter: each level is nine aliases of the one below."""
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "---\n" + "\n".join(lines) + "\n---\n# Bomb\n"


def refused(call, *args, **kwargs) -> InvalidInput:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInput) as info:
        call(*args, **kwargs)
    error = info.value
    assert error.suggestion, f"no suggestion for: {error.message}"
    return error


# --- 1. YAML alias bomb ----------------------------------------------------------------


@pytest.mark.parametrize(
    "frontmatter",
    [
        "a: &x [1, 2]\nb: *x\n",  # a plain alias
        "base: &b {k: v}\nother:\n  <<: *b\n",  # a merge key is an alias too
        "title: &t Alice\n",  # an anchor alone: the only use of one is an alias
    ],
    ids=["alias", "merge-key", "anchor"],
)
def test_frontmatter_with_anchors_or_aliases_is_refused(frontmatter: str) -> None:
    error = refused(split_frontmatter, f"---\n{frontmatter}---\nbody\n")
    assert "alias" in error.message and error.field == "content"


def test_an_ampersand_or_star_inside_a_value_is_not_an_anchor() -> None:
    data, _ = split_frontmatter('---\ntitle: "R&D *draft*"\nnote: a & b\n---\nx\n')
    assert data == {"title": "R&D *draft*", "note": "a & b"}


def test_alias_bomb_put_page_is_refused_before_expansion(brain: Brain) -> None:
    started = time.monotonic()
    error = refused(brain.pages.put_page, "notes/bomb", alias_bomb(9))  # 9**9 strings expanded
    assert time.monotonic() - started < HANG_BOUND_S
    assert "alias" in error.message
    assert brain.store.get_page(brain.pages.source_id, "notes/bomb") is None


def test_alias_bomb_import_fails_that_file_only(brain: Brain, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "bomb.md").write_text(alias_bomb(9), encoding="utf-8")
    (notes / "fine.md").write_text("# Fine\n", encoding="utf-8")
    started = time.monotonic()
    summary = import_dir(brain.pages, notes)
    assert time.monotonic() - started < HANG_BOUND_S
    assert summary.added == 1
    assert [rel for rel, _ in summary.failed] == ["bomb.md"]
    assert "alias" in summary.failed[0][1]


def test_deep_frontmatter_is_refused(brain: Brain) -> None:
    deep = "---\nk: " + "[" * 10_000 + "]" * 10_000 + "\n---\nbody\n"
    error = refused(brain.pages.put_page, "notes/deep", deep)
    assert str(limits.MAX_JSON_DEPTH) in error.message
    inner = limits.MAX_JSON_DEPTH - 1  # the top-level mapping is the first level
    ok = "---\nk: " + "[" * inner + "]" * inner + "\n---\nb\n"
    assert brain.pages.put_page("notes/deep", ok).status == "created"


def test_a_stored_bomb_page_is_served_without_its_expansion(brain: Brain) -> None:
    """A page stored by an older version (before aliases were refused) holds the
    expanded frontmatter; reading it must not decode or return tens of MB."""
    brain.pages.put_page("notes/old", "# Old\n")
    expanded = json.dumps({"a": [["lol"] * 9] * 600_000})  # ~ 39 MB, like 7 alias levels
    assert len(expanded) > limits.MAX_STORED_FRONTMATTER_CHARS
    conn = sqlite3.connect(brain.settings.db_path, isolation_level=None)
    try:
        conn.execute("UPDATE pages SET content = ?, frontmatter = ? WHERE slug = 'notes/old'",
                     (alias_bomb(7), expanded))
    finally:
        conn.close()
    started = time.monotonic()
    page = brain.pages.get_page("notes/old", LOCAL)
    assert time.monotonic() - started < HANG_BOUND_S
    assert page.frontmatter == {}
    assert page.content == alias_bomb(7)
    # Re-parsing the stored content (add_link rewrites frontmatter) refuses, not expands.
    refused(brain.pages.add_link, "notes/old", "people/x", "related_to", LOCAL)


def test_nul_in_page_content_is_refused(brain: Brain) -> None:
    error = refused(brain.pages.put_page, "notes/nul", "# A\x00B\n")
    assert "NUL" in error.message


# --- 2. caller input that ended as `internal` ---------------------------------------------


@pytest.mark.parametrize("ttl", ["99999999999d", "9" * 5000 + "m", "36501d", "876001h"])
def test_huge_ttl_is_invalid_input(ttl: str) -> None:
    error = refused(parse_ttl, ttl, NOW)
    assert error.field == "ttl"


def test_ttl_at_the_cap_is_accepted() -> None:
    assert parse_ttl(f"{limits.MAX_TTL_DAYS}d", NOW).startswith("2126-")


@pytest.mark.parametrize("since", ["999999999d", "99999999999999 hours ago", "36501d"])
def test_huge_relative_since_is_invalid_input(since: str) -> None:
    assert refused(parse_since, since, NOW).field == "since"


@pytest.mark.parametrize("since", ["0001-01-01T00:00:00+01:00", "0999-01-01", "since\x00"])
def test_out_of_range_or_nul_since_is_invalid_input(since: str) -> None:
    assert refused(parse_since, since, NOW).field == "since"


def test_parse_ts_overflow_is_a_value_error() -> None:
    # OverflowError escaped every `except ValueError` around parse_ts.
    with pytest.raises(ValueError):
        parse_ts("0001-01-01T00:00:00+01:00")


@pytest.mark.parametrize(
    "text",
    [
        "[" * 10_000 + "]" * 10_000,
        '{"a": ' * 65 + "1" + "}" * 65,
        '{"a": NaN}',
        '{"a": Infinity}',
        '{"a": -Infinity}',
        '{"a": 1e400}',
        '{"a": ' + "1" * 5000 + "}",
        '{"a": "x\\u0000y"}',
        '{"a\\u0000": 1}',
        '{"a": "\\ud800"}',
        "x" * (limits.MAX_JSON_CHARS + 1),
    ],
    ids=["deep-10000", "depth-65", "nan", "inf", "-inf", "1e400", "5000-digits", "nul",
         "nul-key", "surrogate", "too-long"],
)
def test_hostile_json_is_invalid_input(text: str) -> None:
    refused(loads_bounded, text, "metadata")
    refused(v.json_object, text, "metadata")


def test_json_at_the_depth_cap_and_brackets_in_strings_pass() -> None:
    at_cap = '{"a": ' * (limits.MAX_JSON_DEPTH - 1) + "[1]" + "}" * (limits.MAX_JSON_DEPTH - 1)
    assert loads_bounded(at_cap, "m")
    assert loads_bounded('{"s": "[[[[{{{{\\" ]]"}', "m") == {"s": '[[[[{{{{" ]]'}


# --- 14 (core side). one rule per kind ---------------------------------------------------


def test_timestamps_render_four_digit_years() -> None:
    moment = datetime(1, 1, 1, tzinfo=UTC)
    assert format_ts(moment) == "0001-01-01T00:00:00.000000Z"
    assert iso_z(moment) == "0001-01-01T00:00:00.000Z"


@pytest.mark.parametrize(
    "value",
    ["2026-06-01T12:00:00", "2026-06-01", "0001-01-01T00:00:00Z", "10000-01-01T00:00:00Z",
     "2026-06-01T12:00:00Z\x00", "yesterday"],
    ids=["no-offset", "date-only", "year-1", "year-10000", "nul", "words"],
)
def test_an_instant_needs_an_offset_and_a_four_digit_year(value: str) -> None:
    assert refused(validate.instant, value, "as_of").field == "as_of"


def test_an_instant_with_an_offset_is_canonical() -> None:
    assert validate.instant("2026-06-01T14:00:00+02:00", "as_of") == "2026-06-01T12:00:00.000000Z"


@pytest.mark.parametrize("value", [0, -1, 2.5, float("nan"), float("inf"), True, "10"])
def test_limit_rule_refuses_below_one_and_non_integers(value: object) -> None:
    refused(validate.limit, value, default=50, maximum=100)


def test_limit_rule_defaults_and_clamps() -> None:
    assert validate.limit(None, default=50, maximum=100) == 50
    assert validate.limit(10**12, default=50, maximum=100) == 100
    assert validate.limit(7.0, default=50, maximum=100) == 7


# --- 4. caps in one table -----------------------------------------------------------------


def test_every_cap_is_documented_in_docs_limits() -> None:
    doc = (ROOT / "docs" / "limits.md").read_text(encoding="utf-8")
    names = [n for n in vars(limits) if re.fullmatch(r"[A-Z][A-Z0-9_]+", n)]
    assert len(names) > 20
    assert [n for n in names if f"`{n}`" not in doc] == []
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/limits.md)" in readme


def test_caps_kept_elsewhere_agree_with_the_table() -> None:
    """Modules that still define a cap locally must hold the documented value."""
    from brainkeep.core import pages
    from brainkeep.core.memory import drafts, facts
    from brainkeep.core.memory import recall as mnemo_recall
    from brainkeep.core.memory import remember as mnemo_remember
    from brainkeep.core.verbs import delta

    assert drafts.MAX_FACT_CHARS == limits.MAX_FACT_CHARS
    assert drafts.MAX_PROVENANCE_CHARS == limits.MAX_PROVENANCE_CHARS
    assert facts.MAX_ID_DIGITS == limits.MAX_ID_DIGITS
    assert pages.MAX_PAGE_BYTES == limits.MAX_PAGE_BYTES
    assert pages.LIST_LIMIT_MAX == limits.LIST_LIMIT_MAX
    assert mnemo_recall.MAX_LIMIT == limits.GRPC_RECALL_LIMIT_MAX
    assert mnemo_recall.DEFAULT_LIMIT == limits.GRPC_RECALL_LIMIT_DEFAULT
    assert mnemo_recall.MAX_QUERY_CHARS == limits.MAX_QUERY_CHARS
    assert mnemo_remember.MAX_CONTENT_CHARS == limits.MAX_CONTENT_CHARS
    assert mnemo_remember.MAX_TTL_SECONDS == limits.MAX_TTL_SECONDS
    assert delta.MAX_SESSION_CHARS == limits.MAX_SESSION_CHARS
    assert v.MAX_IDS_PER_CALL == limits.MAX_IDS_PER_CALL
