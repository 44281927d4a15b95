"""Runner decisions, driven in-process through a scripted client (no subprocess)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
import pytest

from brainkeep.conformance.cases import Case, load_cases
from brainkeep.conformance.clients import ToolInfo, ToolReply
from brainkeep.conformance.report import CaseResult, ConformanceReport
from brainkeep.conformance.runner import new_marker, run_cases, seed_content

from .fake_verbs_server import VERBS, Brain, respond, tool_names

Hook = Callable[[str, dict[str, Any], ToolReply], ToolReply]


class ScriptedClient:
    """The fake verbs server in-process, with knobs to break the transport."""

    def __init__(
        self,
        *,
        lies: set[str] | None = None,
        verbs_only: bool = False,
        hide: set[str] | None = None,
        describe: dict[str, str] | None = None,
        hook: Hook | None = None,
        list_fails: bool = False,
    ) -> None:
        self.brain = Brain(lies or set())
        self.names = tool_names(verbs_only)
        self.hide = hide or set()
        self.describe = describe or {}
        self.hook = hook
        self.list_fails = list_fails
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def list_tools(self) -> list[ToolInfo]:
        if self.list_fails:
            raise RuntimeError("boom")
        default = {"synthesize": "[EXPENSIVE] x"}
        return [
            ToolInfo(name, self.describe.get(name, default.get(name, "x")))
            for name in self.names
            if name not in self.hide
        ]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], *, timeout_s: float = 60.0
    ) -> ToolReply:
        self.calls.append((name, arguments))
        is_error, text = respond(self.brain, self.names, name, arguments)
        reply = ToolReply(is_error, text)
        return self.hook(name, arguments, reply) if self.hook else reply


def run(
    client: ScriptedClient, *, synthesize: bool = False, cases: Any = None
) -> dict[str, CaseResult]:
    results = anyio.run(
        lambda: run_cases(client, marker="run-test", synthesize=synthesize, cases=cases)
    )
    return {result.name: result for result in results}


def statuses(results: dict[str, CaseResult], status: str) -> set[str]:
    return {name for name, result in results.items() if result.status == status}


CASES = {case.name: case for case in load_cases()}
SEEDED = {name for name, case in CASES.items() if case.requires_seeded_entity}
SYNTH = {name for name, case in CASES.items() if case.requires_synthesize_flag}


def test_honest_target_passes_everything_but_the_cost_gated_cases() -> None:
    results = run(ScriptedClient())
    assert statuses(results, "fail") == set()
    assert statuses(results, "skip") == SYNTH
    assert len(results) == 23 + 8  # cases + 7 tools/list checks + the expensive marker


def test_synthesize_flag_runs_the_gated_cases() -> None:
    client = ScriptedClient()
    results = run(client, synthesize=True)
    assert statuses(results, "skip") == set() and statuses(results, "fail") == set()
    assert sum(1 for name, _ in client.calls if name == "synthesize") == 2


def test_seed_page_and_marker_substitution() -> None:
    client = ScriptedClient()
    run(client)
    name, args = client.calls[0]
    assert name == "put_page"
    assert args == {"slug": "people/conformance-run-test", "content": seed_content("run-test")}
    assert "title: Conformance run-test" in args["content"]
    remembered = [a for n, a in client.calls if n == "remember" and "entity" in a]
    assert remembered[0]["entity"] == "people/conformance-run-test"
    forgets = [a["id"] for n, a in client.calls if n == "forget"]
    assert forgets[:2] == ["2", "2"]  # {{id:fact2}} = the ttl fact's id
    assert forgets[2] == "999999999"


def test_verbs_only_target_skips_seeded_entity_cases_honestly() -> None:
    results = run(ScriptedClient(verbs_only=True))
    assert statuses(results, "skip") == SYNTH | SEEDED
    assert statuses(results, "fail") == set()


def test_additive_verbs_not_advertised_are_skipped() -> None:
    results = run(ScriptedClient(hide={"context_pack", "delta"}))
    skipped = statuses(results, "skip")
    assert "tools/list advertises context_pack" in skipped
    assert {n for n, c in CASES.items() if c.verb in ("context_pack", "delta")} <= skipped
    assert statuses(results, "fail") == set()


def test_core_verb_missing_fails_and_unexpensive_synthesize_fails() -> None:
    results = run(ScriptedClient(hide={"forget"}, describe={"synthesize": "cheap and fast"}))
    failed = statuses(results, "fail")
    assert "tools/list advertises forget" in failed
    assert "synthesize is marked expensive" in failed


def test_tools_list_failure_is_one_failed_check() -> None:
    results = run(ScriptedClient(list_fails=True))
    assert results["tools/list"].status == "fail"
    assert "boom" in str(results["tools/list"].detail)


@pytest.mark.parametrize(
    ("lie", "must_fail"),
    [
        ("drop-status", {"remember: writes a fact (string id, status enum, protocol_version)",
                         "remember: ttl shorthand sets valid_until"}),
        ("absorbed", {"remember: writes a fact (string id, status enum, protocol_version)"}),
        ("numeric-fact-id", {"recall: remember -> recall by entity round-trip"}),
        ("no-protocol-version", {"delta: since is echoed normalized to ISO with milliseconds",
                                 "entity: a miss is found:false with suggestions, not an error"}),
        ("forget-not-idempotent", {"forget: forgetting again is idempotent (expired:false)"}),
    ],
)
def test_each_lie_is_caught(lie: str, must_fail: set[str]) -> None:
    results = run(ScriptedClient(lies={lie}))
    failed = statuses(results, "fail")
    assert must_fail <= failed, failed


def test_a_broken_field_does_not_cascade_into_later_cases() -> None:
    # The id is still saved although the remember case failed on `status`,
    # so the forget cases judge forget, not a missing id.
    results = run(ScriptedClient(lies={"absorbed"}))
    assert results["forget: expires a fact"].status == "pass"


def _replace(verb: str, reply: ToolReply) -> Hook:
    def hook(name: str, args: dict[str, Any], original: ToolReply) -> ToolReply:
        return reply if name == verb else original

    return hook


def test_non_json_reply_fails_with_a_preview() -> None:
    results = run(ScriptedClient(hook=_replace("entity", ToolReply(False, "hello, not json"))))
    detail = results["entity: a miss is found:false with suggestions, not an error"].detail
    assert detail is not None and detail.startswith("response not JSON: 'hello, not json'")


def test_transport_exception_fails_only_that_case() -> None:
    def hook(name: str, args: dict[str, Any], reply: ToolReply) -> ToolReply:
        if name == "delta":
            raise ConnectionError("pipe closed")
        return reply

    results = run(ScriptedClient(hook=hook))
    failed = statuses(results, "fail")
    assert failed == {n for n, c in CASES.items() if c.verb == "delta"}
    assert all("transport: ConnectionError: pipe closed" in str(results[n].detail) for n in failed)


def test_success_where_an_error_is_expected_fails() -> None:
    ok = ToolReply(False, json.dumps({"id": "1", "protocol_version": 1}))
    results = run(ScriptedClient(hook=_replace("forget", ok)))
    assert results["forget: an unknown id is not_found with a fix"].status == "fail"


def test_error_without_suggestion_fails_when_one_is_required() -> None:
    bare = ToolReply(True, json.dumps({"error": "provenance_required", "message": "m",
                                       "protocol_version": 1}))
    results = run(ScriptedClient(hook=_replace("remember", bare)))
    assert results["remember: blank provenance is provenance_required with a fix"].status == "fail"
    # the missing-provenance case does not require a suggestion, but does require its code
    first = results["remember: missing provenance is invalid_params"]
    assert first.status == "fail" and "expected error 'invalid_params'" in str(first.detail)


@pytest.mark.parametrize(
    ("body", "is_error", "ok"),
    [
        ({"error": "unavailable", "message": "no LLM", "suggestion": "configure one",
          "protocol_version": 1}, True, True),
        ({"error": "unavailable", "message": "no LLM", "suggestion": " ",
          "protocol_version": 1}, True, False),
        ({"error": "internal", "message": "x", "suggestion": "y", "protocol_version": 1},
         True, False),
        ({"answer": "a", "sources": [], "gaps": [], "protocol_version": 1,
          "cost": {"model": "m", "input_tokens": 3, "output_tokens": None,
                   "usd_estimate": None}}, False, True),
        ({"answer": "a", "sources": [], "protocol_version": 1}, False, False),  # no cost block
    ],
)
def test_synthesize_dual_rule(body: dict[str, Any], is_error: bool, ok: bool) -> None:
    results = run(
        ScriptedClient(hook=_replace("synthesize", ToolReply(is_error, json.dumps(body)))),
        synthesize=True,
    )
    synth = [results[name] for name in SYNTH]
    assert all((r.status == "pass") is ok for r in synth), synth


def test_save_as_requires_a_string() -> None:
    case = Case(name="save", verb="remember",
                params={"fact": "f", "provenance": "p"}, save_as=("k", "status_text_missing"))
    results = run(ScriptedClient(), cases=[case])
    assert results["save"].status == "fail"
    assert "saveAs k" in str(results["save"].detail)


def test_new_marker_is_base36_milliseconds() -> None:
    assert new_marker(0) == "run-0"
    assert new_marker(35) == "run-z"
    assert new_marker(36) == "run-10"
    assert new_marker().startswith("run-") and len(new_marker()) > 8


def test_report_document_and_rendering() -> None:
    report = ConformanceReport(
        target="self (stdio)",
        marker="run-x",
        results=(
            CaseResult("a", "recall", "pass"),
            CaseResult("b", "entity", "fail", "$.found: missing"),
            CaseResult("c", "synthesize", "skip", "costs money"),
        ),
    )
    doc = report.to_dict()
    assert doc["protocol_version"] == 1
    assert (doc["passed"], doc["failed"], doc["skipped"], doc["ok"]) == (1, 1, 1, False)
    assert doc["results"][1] == {"name": "b", "verb": "entity", "status": "fail",
                                 "detail": "$.found: missing"}
    text = report.render()
    assert text.splitlines()[0] == "MEMORY_VERBS v1 conformance — target: self (stdio)"
    assert "  ✓ a" in text and "  ✗ b — $.found: missing" in text and "  − c — costs money" in text
    assert "1 passed, 1 failed, 1 skipped" in text
    assert text.endswith("NOT CONFORMANT")
    assert ConformanceReport("t", "m", (CaseResult("a", None, "pass"),)).render().endswith(
        "\nCONFORMANT"
    )


def test_verbs_tuple_matches_the_protocol() -> None:
    from brainkeep.ops.response_schemas import VERB_NAMES

    assert VERBS == VERB_NAMES
