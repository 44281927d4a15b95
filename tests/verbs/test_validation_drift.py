"""One rule per parameter kind on the MCP surface and the CLI (issue 10, items 2 and 14).

Every case used to be answered `internal`, or silently replaced by a
default; now it is `invalid_params` with a suggestion (or, for an id that
names no row, `not_found`).
"""

from __future__ import annotations

from typing import Any

import pytest

from brainkeep.core import limits
from tests.conftest import RunCli
from tests.verbs.conftest import VerbHarness

BOMB = (
    "---\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    + "".join(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n" for i in range(1, 9))
    + "---\n# Bomb\n"
)


def invalid(harness: VerbHarness, op: str, **params: Any) -> dict[str, Any]:
    payload = harness.err(op, **params)
    assert payload["error"] == "invalid_params", payload
    assert payload["suggestion"], payload
    return payload


def _fact(harness: VerbHarness, **extra: Any) -> dict[str, Any]:
    return harness.ok("remember", fact="Alice prefers tea", provenance="chat", **extra)


# --- limit: below 1 is an error, above the max is the max, on every operation -------------


@pytest.mark.parametrize("limit", [0, -1, 2.5])
@pytest.mark.parametrize("op", ["recall", "search", "list_pages"])
def test_limit_below_one_or_fractional_is_invalid_everywhere(
    harness: VerbHarness, op: str, limit: float
) -> None:
    params: dict[str, Any] = {"query": "tea"} if op in ("recall", "search") else {}
    payload = invalid(harness, op, limit=limit, **params)
    assert "limit" in payload["message"]


def test_huge_limit_is_clamped_everywhere(harness: VerbHarness) -> None:
    # More matches than every maximum, so a clamp shows as exactly the maximum.
    for i in range(limits.LIST_LIMIT_MAX + 1):
        harness.page(f"notes/tea-{i:03}", f"# Tea {i}\n\nAlice likes tea number {i}.\n")
    for i in range(limits.RECALL_LIMIT_MAX + 1):
        harness.ok("remember", fact=f"Alice prefers tea {i}", provenance="chat")
    recalled = harness.ok("recall", query="tea", limit=10**12)
    assert len(recalled["facts"]) == limits.RECALL_LIMIT_MAX
    assert len(recalled["results"]) == limits.RECALL_LIMIT_MAX
    found = harness.ok("search", query="tea", limit=10**12)
    assert len(found["results"]) == limits.SEARCH_LIMIT_MAX
    listed = harness.ok("list_pages", limit=10**12)
    assert len(listed["pages"]) == limits.LIST_LIMIT_MAX
    assert listed["next_after"] == f"notes/tea-{limits.LIST_LIMIT_MAX - 1:03}"


def test_list_pages_clamped_limit_still_paginates(harness: VerbHarness) -> None:
    for i in range(3):
        harness.page(f"notes/n{i}", f"# N{i}\n")
    page = harness.ok("list_pages", limit=2)
    assert len(page["pages"]) == 2 and page["next_after"] == "notes/n1"


# --- values that overflowed into `internal` ---------------------------------------------


@pytest.mark.parametrize("ttl", ["99999999999d", "36501d", "0001-01-01T00:00:00+01:00"])
def test_remember_huge_ttl(harness: VerbHarness, ttl: str) -> None:
    assert invalid(harness, "remember", fact="f", provenance="p", ttl=ttl)["message"]


@pytest.mark.parametrize("since", ["999999999d", "0001-01-01T00:00:00+01:00", "0999-12-31"])
def test_recall_since_out_of_range(harness: VerbHarness, since: str) -> None:
    invalid(harness, "recall", since=since)


def test_delta_since_out_of_range(harness: VerbHarness) -> None:
    invalid(harness, "delta", since="0001-01-01T00:00:00+01:00")


@pytest.mark.parametrize("fact_id", [str(10**30), "²", "9" * 19])
def test_forget_id_that_names_no_row_is_not_found(harness: VerbHarness, fact_id: str) -> None:
    payload = harness.err("forget", id=fact_id)
    assert payload["error"] == "not_found", payload


# --- text: NUL is refused in every string parameter --------------------------------------


@pytest.mark.parametrize(
    ("op", "params", "field"),
    [
        ("remember", {"fact": "a\x00b", "provenance": "p"}, "fact"),
        ("remember", {"fact": "ok", "provenance": "p\x00"}, "provenance"),
        ("remember", {"fact": "ok", "provenance": "p", "session_id": "s\x00"}, "session_id"),
        ("recall", {"session_id": "s\x00"}, "session_id"),
        ("recall", {"query": "tea\x00"}, "query"),
        ("put_page", {"slug": "notes/x", "content": "# X\x00\n"}, "content"),
        ("search", {"query": "x\x00"}, "query"),
        ("entity", {"name": "Alice\x00"}, "name"),
    ],
    ids=["fact", "provenance", "remember-session", "recall-session", "recall-query",
         "page-content", "search-query", "entity-name"],
)
def test_nul_is_invalid(harness: VerbHarness, op: str, params: dict[str, Any], field: str
                        ) -> None:
    payload = invalid(harness, op, **params)
    assert "NUL" in payload["message"] and field in payload["message"]


def test_session_id_has_one_cap_on_every_verb(harness: VerbHarness) -> None:
    long_id = "s" * (limits.MAX_SESSION_CHARS + 1)
    invalid(harness, "remember", fact="f", provenance="p", session_id=long_id)
    invalid(harness, "recall", session_id=long_id)
    invalid(harness, "delta", session_id=long_id)
    _fact(harness, session_id="s" * limits.MAX_SESSION_CHARS)


def test_query_has_one_cap(harness: VerbHarness) -> None:
    long_query = "tea " * (limits.MAX_QUERY_CHARS // 4 + 1)
    invalid(harness, "search", query=long_query)
    invalid(harness, "recall", query=long_query)


def test_put_page_alias_bomb_is_invalid_params(harness: VerbHarness) -> None:
    payload = invalid(harness, "put_page", slug="notes/bomb", content=BOMB)
    assert "alias" in payload["message"]
    assert harness.err("get_page", slug="notes/bomb")["error"] == "not_found"


# --- CLI: no silent fallback --------------------------------------------------------------


@pytest.mark.parametrize("days", ["nonsense", "-5", "0", "3651"])
def test_protocol_stats_days_is_validated(run_cli: RunCli, days: str) -> None:
    result = run_cli("protocol", "stats", "--days", days, "--json")
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert "days" in (result.stderr + result.stdout)


def test_protocol_stats_days_in_range_works(run_cli: RunCli) -> None:
    assert run_cli("init").exit_code == 0
    result = run_cli("protocol", "stats", "--days", "7", "--json")
    assert result.exit_code == 0, result.output


def test_cli_list_limit_follows_the_same_rule(run_cli: RunCli) -> None:
    assert run_cli("init").exit_code == 0
    assert run_cli("list", "--limit", "0").exit_code == 2
    assert run_cli("list", "--limit", "100000", "--json").exit_code == 0
