"""Every MCP operation of the catalog, fuzzed through the dispatcher in-process.

Arguments come from each tool's ``inputSchema`` (exactly what ``tools/list``
and ``brainkeep protocol --json`` advertise) plus hostile values. Each answer
must be a result (verbs: matching their registered response schema) or a
documented error code, never ``internal``; no message may carry traceback or
exception text; no call may take longer than CALL_TIMEOUT_S; every answer
must be encodable as the UTF-8 JSON the transports write; and the brain must
still verify afterwards.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.context import LOCAL, STDIO, Caller
from brainkeep.core.verify import verify_brain
from brainkeep.ops.catalog import Param
from brainkeep.ops.dispatch import Dispatcher, Outcome
from brainkeep.ops.registry import build_catalog, open_dispatcher
from brainkeep.ops.response_schemas import RESPONSE_SCHEMAS
from brainkeep.ops.schema_check import validate
from tests.fuzz.hostile import (
    HOSTILE_FLOATS,
    HOSTILE_INTS,
    HOSTILE_STRINGS,
    NAMED_VALUES,
    PAGE_CONTENTS,
    arguments_for,
    deep_dict,
    deep_list,
)
from tests.fuzz.support import MCP_ERROR_CODES, bounded, fuzz_settings, leaked_markers, short

CATALOG = build_catalog()
OPERATIONS = tuple(op.name for op in CATALOG.operations)

CALLERS = (
    STDIO,
    LOCAL,
    # An HTTP token bound to a tenant and agent, holding read only: writes are scope_denied.
    Caller(remote=True, client_id="reader", transport="http", scopes=frozenset({"read"}),
           token_name="reader", org_id="acme", agent_id="alice"),
    Caller(remote=True, client_id="writer", transport="http",
           scopes=frozenset({"read", "write"}), token_name="writer"),
)


def seed(dispatcher: Dispatcher) -> None:
    """A few pages and facts, so ids, slugs and entities in the strategies exist."""
    for slug, content in (
        ("people/alice-example", PAGE_CONTENTS[0]),
        ("fuzz/private", PAGE_CONTENTS[1]),
        ("companies/acme", "---\ntitle: Acme\ntype: company\n---\nAcme makes anvils.\n"),
    ):
        assert not dispatcher.call("put_page", {"slug": slug, "content": content}, LOCAL).is_error
    for fact, visibility in (("Alice likes tea", "world"), ("Alice's PIN is 1234", "private"),
                             ("Acme ships on Fridays", "world")):
        outcome = dispatcher.call("remember", {"fact": fact, "provenance": "fuzz seed",
                                               "entity": "Alice", "visibility": visibility,
                                               "session_id": "s1"}, LOCAL)
        assert not outcome.is_error, outcome.payload


@pytest.fixture(scope="module")
def fuzz_brain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Brain]:
    home: Path = tmp_path_factory.mktemp("fuzz-mcp") / "brain"
    brain = open_brain(load_settings(home, env={}))
    try:
        yield brain
    finally:
        brain.close()


@pytest.fixture(scope="module")
def dispatcher(fuzz_brain: Brain) -> Dispatcher:
    dispatcher = open_dispatcher(fuzz_brain, "full")
    seed(dispatcher)
    return dispatcher


def check_outcome(name: str, args: dict[str, Any], outcome: Outcome) -> None:
    """The properties every answer has, whatever the input."""
    payload = outcome.payload
    where = f"{name}({short(args)})"
    assert isinstance(payload, dict), f"{where}: payload {short(payload)}"
    # The transports write UTF-8 JSON: NaN, infinities or a lone surrogate in an
    # answer would break the wire (or the client) after the work was done.
    try:
        wire = json.dumps(payload, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (ValueError, UnicodeEncodeError) as exc:
        raise AssertionError(f"{where}: answer not encodable as UTF-8 JSON ({exc}): "
                             f"{short(payload)}") from None
    sent = short(args, 300_000)
    leaks = leaked_markers(wire.decode("utf-8"), sent)
    assert not leaks, f"{where}: answer leaks {leaks}: {short(payload)}"
    op = CATALOG.get(name)
    assert op is not None
    if outcome.is_error:
        code = payload.get("error")
        assert code != "internal", f"{where}: internal error {short(payload)}"
        assert code in MCP_ERROR_CODES, f"{where}: undocumented error code {short(payload)}"
        assert isinstance(payload.get("message"), str) and payload["message"], where
        if code != "unknown_tool":
            assert payload.get("suggestion"), f"{where}: error without suggestion"
        if op.verb:
            assert payload.get("protocol_version") == 1, where
    elif op.verb:
        problems = validate(payload, RESPONSE_SCHEMAS[name])
        assert not problems, f"{where}: response breaks its schema: {problems[:5]}"


@pytest.mark.parametrize("name", OPERATIONS)
def test_every_operation_answers_a_result_or_a_documented_error(
    name: str, dispatcher: Dispatcher, fuzz_brain: Brain
) -> None:
    op = CATALOG.get(name)
    assert op is not None
    schema = op.tool_definition()["inputSchema"]

    @fuzz_settings(60)
    @given(args=arguments_for(schema), caller=st.sampled_from(CALLERS))
    def fuzz(args: dict[str, Any], caller: Caller) -> None:
        outcome = bounded(lambda: dispatcher.call(name, args, caller), f"{name}({short(args)})")
        check_outcome(name, args, outcome)

    fuzz()
    report = verify_brain(fuzz_brain.store)
    assert report.valid, f"verify failed after fuzzing {name}: {report.first_broken}"


def test_unknown_and_hidden_names_answer_unknown_tool(fuzz_brain: Brain) -> None:
    verbs_only = open_dispatcher(fuzz_brain, "verbs")
    hidden = [op.name for op in CATALOG.operations if not op.verb]

    @fuzz_settings(30)
    @given(name=st.one_of(st.sampled_from(hidden), st.text(max_size=30)),
           args=st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=2))
    def fuzz(name: str, args: dict[str, Any]) -> None:
        outcome = bounded(lambda: verbs_only.call(name, args, STDIO), f"tool {name!r}")
        if name in {op.name for op in CATALOG.verbs}:
            return
        assert outcome.is_error and outcome.payload["error"] == "unknown_tool", outcome.payload

    fuzz()


def baseline(op_name: str) -> dict[str, Any]:
    """Plausible values for every required parameter of ``op_name``."""
    op = CATALOG.get(op_name)
    assert op is not None
    args: dict[str, Any] = {}
    for param in op.params:
        if param.required:
            args[param.name] = (NAMED_VALUES.get(param.name, ("Alice",))[0]
                                if param.type == "string" else 10)
    return args


def hostile_values(param: Param) -> tuple[Any, ...]:
    if param.type == "string":
        extra = PAGE_CONTENTS if param.name == "content" else ()
        return (*HOSTILE_STRINGS, *extra, deep_list(), None, 1)
    if param.type in ("number", "integer"):
        return (*HOSTILE_INTS, *HOSTILE_FLOATS, True, "10", deep_list())
    return (None, "yes", 1, deep_list(), deep_dict())


@pytest.mark.parametrize("name", OPERATIONS)
def test_every_hostile_value_in_every_parameter(
    name: str, dispatcher: Dispatcher, fuzz_brain: Brain
) -> None:
    """A deterministic sweep: one hostile value at a time, in each parameter in turn.

    The generated run above samples; this makes sure every hostile value meets
    every parameter at least once, whatever the seed and budget.
    """
    op = CATALOG.get(name)
    assert op is not None
    failures: list[str] = []  # every one, not just the first: each is a separate hole
    for param in op.params:
        for number, value in enumerate(hostile_values(param)):
            args = {**baseline(name), param.name: value}
            if name == "put_page" and param.name != "slug":
                # A fresh page each time: a private one written earlier would answer
                # not_found to this remote caller and hide every later content.
                args["slug"] = f"sweep/{param.name}-{number}"
            try:
                outcome = bounded(lambda a=args: dispatcher.call(name, a, STDIO),  # type: ignore[misc]
                                  f"{name}({short(args)})")
                check_outcome(name, args, outcome)
            except AssertionError as exc:
                failures.append(str(exc)[:600])
    assert not failures, f"{len(failures)} failing inputs:\n" + "\n".join(failures)
    report = verify_brain(fuzz_brain.store)
    assert report.valid, f"verify failed after sweeping {name}: {report.first_broken}"
