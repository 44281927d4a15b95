"""Every verb response and error carries protocol_version; errors use only the seven codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from brainkeep.core.context import STDIO
from brainkeep.ops.catalog import Catalog, Operation
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import VERB_NAMES, build_catalog
from tests.brain_engines import RawDatabase

from .conftest import VerbHarness

CODES = {
    "invalid_params",
    "provenance_required",
    "not_found",
    "scope_denied",
    "unavailable",
    "budget_unsatisfiable",
    "internal",
}

GOOD_CALLS = {
    "recall": {},
    "remember": {"fact": "Ada likes tea", "provenance": "test"},
    "entity": {"name": "nobody"},
    "forget": {"id": "1"},
    "context_pack": {"entities": "nobody"},
    "delta": {"since": "2026-01-01"},
}
BAD_CALLS = {
    "recall": {"since": "not a date"},
    "remember": {"fact": "x", "provenance": "   "},
    "entity": {},
    "synthesize": {"question": "why?"},
    "forget": {"id": "no-such-fact"},
    "context_pack": {"entities": "x", "since": "yesterday-ish"},
    "delta": {},
}


def test_catalog_declares_exactly_the_seven_verbs() -> None:
    catalog = build_catalog()
    assert tuple(op.name for op in catalog.verbs) == VERB_NAMES


@pytest.mark.parametrize("verb", sorted(GOOD_CALLS))
def test_success_carries_protocol_version(harness: VerbHarness, verb: str) -> None:
    if verb == "forget":
        harness.ok("remember", fact="to forget", provenance="t")
    payload = harness.ok(verb, **GOOD_CALLS[verb])
    assert payload["protocol_version"] == 1


@pytest.mark.parametrize("verb", sorted(BAD_CALLS))
def test_errors_have_the_envelope(harness: VerbHarness, verb: str) -> None:
    payload = harness.err(verb, **BAD_CALLS[verb])
    assert payload["error"] in CODES
    assert isinstance(payload["message"], str) and payload["message"]
    assert isinstance(payload["suggestion"], str) and payload["suggestion"].strip()
    assert payload["protocol_version"] == 1
    assert set(payload) <= {"error", "message", "suggestion", "detail", "protocol_version"}


def test_wrong_param_type_is_invalid_params(harness: VerbHarness) -> None:
    payload = harness.err("forget", id=123)
    assert payload["error"] == "invalid_params"
    assert "string" in payload["message"]


def test_uncaught_failure_becomes_internal(harness: VerbHarness) -> None:
    def explode(ctx: object, params: dict[str, object]) -> dict[str, object]:
        raise ZeroDivisionError("division by zero")

    boom = Operation("boom", "fails", (), "read", explode, verb=True)
    dispatcher = Dispatcher(Catalog((boom,)), harness.brain)
    outcome = dispatcher.call("boom", {}, STDIO)
    assert outcome.is_error
    assert outcome.payload["error"] == "internal"
    # Issue 9: no exception text or class name on the wire (the log has them).
    assert "division by zero" not in str(outcome.payload)
    assert "ZeroDivisionError" not in str(outcome.payload)
    assert outcome.payload["suggestion"]
    assert outcome.payload["protocol_version"] == 1


def test_store_failure_is_internal_with_envelope(
    harness: VerbHarness, brain_engine: str, verb_home: Path
) -> None:
    if brain_engine == "sqlite":
        harness.brain.store.close()
        harness.brain.store.db.path = "/nonexistent-dir/for/sure/brain.db"
    else:
        # A closed pool or a server that is down is the retryable `unavailable`
        # there; a schema broken behind the brain's back is a plain store failure.
        raw = RawDatabase(verb_home)
        raw.execute("DROP TABLE memories CASCADE")
        raw.close()
    payload = harness.err("recall", entity="x")
    assert payload["error"] == "internal"
    assert payload["protocol_version"] == 1


def test_unknown_tool(harness: VerbHarness) -> None:
    payload = harness.err("no_such_tool")
    assert payload == {"error": "unknown_tool", "message": "Unknown tool: no_such_tool"}
