"""The MEMORY_VERBS v1 conformance runner.

Certifies SHAPE (required fields, enums, consts), CONTRACT BEHAVIOUR (error
codes with fixes, idempotent forget, entity miss is not an error, privacy
fence) and ROUND-TRIPS (remember → recall by entity). It never judges ranking
quality. It is a live test that WRITES: it seeds a marker-named page (when
the target exposes ``put_page``) and marker-named facts, and leaves them
unless ``cleanup`` is asked for (then it forgets the facts it remembered and
deletes the page it seeded, through the same protocol).
"""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Sequence
from typing import Any

import anyio

from brainkeep.conformance.cases import Case, load_cases
from brainkeep.conformance.clients import (
    SLOW_CALL_TIMEOUT_S,
    ConformanceClient,
    ConnectError,
    Target,
    ToolReply,
    connect,
)
from brainkeep.conformance.expect import check_expectation, lookup, substitute
from brainkeep.conformance.report import FAIL, PASS, SKIP, CaseResult, ConformanceReport
from brainkeep.ops.response_schemas import (
    ADDITIVE_VERBS,
    ERROR_SCHEMA,
    RESPONSE_SCHEMAS,
    VERB_NAMES,
)
from brainkeep.ops.schema_check import validate

log = logging.getLogger("brainkeep.conformance")

EXPENSIVE_PREFIX = "[EXPENSIVE"
_MAX_PROBLEMS = 3
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def new_marker(now_ms: int | None = None) -> str:
    """A per-run marker, ``run-<base36 milliseconds>``, so runs never collide."""
    value = int(time.time() * 1000) if now_ms is None else now_ms
    digits = ""
    while True:
        value, rest = divmod(value, 36)
        digits = _BASE36[rest] + digits
        if value == 0:
            return f"run-{digits}"


def entity_slug(marker: str) -> str:
    return f"people/conformance-{marker}"


def seed_content(marker: str) -> str:
    """Markdown for the synthetic entity page the entity cases resolve."""
    return (
        "---\n"
        f"title: Conformance {marker}\n"
        "type: person\n"
        "---\n"
        f"# Conformance {marker}\n\n"
        "Synthetic entity seeded by a MEMORY_VERBS conformance run; safe to delete.\n"
    )


async def run_cases(
    client: ConformanceClient,
    *,
    marker: str,
    synthesize: bool = False,
    cases: Sequence[Case] | None = None,
    cleanup: bool = False,
) -> list[CaseResult]:
    """Seed, check tools/list, run every fixture case in order, then optionally clean up."""
    seeded = await _seed(client, marker)
    results, advertised = await _check_tools(client)
    ids: dict[str, str] = {}
    written: list[str] = []
    for case in load_cases() if cases is None else cases:
        results.append(await _run_case(client, case, marker, ids, advertised, seeded, synthesize,
                                       written))
    if cleanup:
        results.append(await _cleanup(client, marker, written, seeded))
    return results


async def _cleanup(client: ConformanceClient, marker: str, written: list[str], seeded: bool
                   ) -> CaseResult:
    """Forget every fact this run remembered and delete the page it seeded.

    Forgetting expires a fact (the audit trail keeps it, as for any forget);
    it no longer answers recall. A fact already forgotten by a case is fine.
    """
    problems: list[str] = []
    unreachable: list[str] = []
    calls = [("forget", {"id": fact_id, "reason": "conformance --cleanup"}) for fact_id in written]
    if seeded:
        calls.append(("delete_page", {"slug": entity_slug(marker)}))
    for tool, params in calls:
        try:
            reply = await client.call_tool(tool, params)
        except Exception as exc:  # noqa: BLE001 — reported, the rest still gets cleaned
            problems.append(f"{tool} {params}: {exc.__class__.__name__}: {exc}")
            continue
        body = _parse(reply)
        if reply.is_error and isinstance(body, dict) and body.get("error") == "not_found":
            # A private fact is invisible to a remote caller, so it cannot forget it either.
            unreachable.append(str(params.get("id") or params.get("slug")))
        elif reply.is_error:
            problems.append(f"{tool} {params}: {reply.text[:120]}")
    if problems:
        return CaseResult("cleanup", None, FAIL, "; ".join(problems[:_MAX_PROBLEMS]))
    detail = f"forgot {len(written) - len(unreachable)} facts" + (
        ", deleted the seeded page" if seeded else "")
    if unreachable:
        detail += (f"; not visible to this caller (private), left: {', '.join(unreachable)} "
                   "(forget them with `brainkeep forget ID` on the target's machine)")
    return CaseResult("cleanup", None, PASS, detail)


async def _seed(client: ConformanceClient, marker: str) -> bool:
    try:
        reply = await client.call_tool(
            "put_page", {"slug": entity_slug(marker), "content": seed_content(marker)}
        )
    except Exception as exc:  # noqa: BLE001 — a verbs-only target simply cannot be seeded
        # Seed-dependent cases then SKIP; say why, in case it was not verbs-only.
        log.info("conformance seed via put_page failed: %s: %s", type(exc).__name__, exc)
        return False
    return not reply.is_error


async def _check_tools(client: ConformanceClient) -> tuple[list[CaseResult], set[str]]:
    try:
        tools = {tool.name: tool for tool in await client.list_tools()}
    except Exception as exc:  # noqa: BLE001 — reported as a failed check, the run goes on
        return [CaseResult("tools/list", None, FAIL, f"tools/list failed: {exc}")], set()
    results = []
    for verb in VERB_NAMES:
        name = f"tools/list advertises {verb}"
        if verb in tools:
            results.append(CaseResult(name, verb, PASS))
        elif verb in ADDITIVE_VERBS:
            results.append(CaseResult(name, verb, SKIP, "optional additive verb not advertised"))
        else:
            # brainkeep lists only what the token's scopes allow (so may others).
            results.append(CaseResult(name, verb, FAIL, "a core v1 verb is missing (or the "
                                      "token's scopes do not cover it: run with a write token)"))
    synth = tools.get("synthesize")
    if synth is not None and synth.description.startswith(EXPENSIVE_PREFIX):
        results.append(CaseResult("synthesize is marked expensive", "synthesize", PASS))
    else:
        detail = (
            "synthesize is not advertised"
            if synth is None
            else f"description must start with {EXPENSIVE_PREFIX!r}"
        )
        results.append(CaseResult("synthesize is marked expensive", "synthesize", FAIL, detail))
    return results, set(tools)


async def _run_case(
    client: ConformanceClient,
    case: Case,
    marker: str,
    ids: dict[str, str],
    advertised: set[str],
    seeded: bool,
    synthesize: bool,
    written: list[str],
) -> CaseResult:
    def result(status: str, detail: str | None = None) -> CaseResult:
        return CaseResult(case.name, case.verb, status, detail)

    if case.requires_synthesize_flag and not synthesize:
        return result(SKIP, "costs money — pass --synthesize")
    if case.verb in ADDITIVE_VERBS and case.verb not in advertised:
        return result(SKIP, f"target does not advertise {case.verb}")
    if case.requires_seeded_entity and not seeded:
        return result(SKIP, "needs a seeded page (no put_page on this target)")

    params = substitute(case.params, marker, ids)
    timeout = SLOW_CALL_TIMEOUT_S if case.verb == "synthesize" else None
    try:
        reply = await (
            client.call_tool(case.verb, params, timeout_s=timeout)
            if timeout
            else client.call_tool(case.verb, params)
        )
    except Exception as exc:  # noqa: BLE001 — the target failed this case, not the runner
        return result(FAIL, f"transport: {exc.__class__.__name__}: {exc}")
    body = _parse(reply)
    if body is None:
        return result(FAIL, f"response not JSON: {reply.text[:120]!r}")

    problems = _judge(case, reply, body)
    if case.verb == "remember" and not reply.is_error and isinstance(body, dict):
        if isinstance(body.get("id"), str):
            written.append(body["id"])  # for --cleanup
    if case.save_as is not None and not reply.is_error:
        # Saved even when another check failed, so one broken field does not
        # cascade into spurious failures of the cases that reuse the id.
        key, path = case.save_as
        found, value = lookup(body, path)
        if found and isinstance(value, str):
            ids[key] = value
        else:
            problems.append(f"saveAs {key}: {path} must be a string")
    if problems:
        if reply.is_error and isinstance(body, dict) and body.get("error") == "scope_denied":
            # The kit writes; a read-only token fails every write case for that reason alone.
            problems.insert(0, "the run needs a token with the write scope")
        return result(FAIL, "; ".join(problems[:_MAX_PROBLEMS]))
    return result(PASS)


def _parse(reply: ToolReply) -> Any:
    try:
        return json.loads(reply.text)
    except ValueError:
        return None


def _judge(case: Case, reply: ToolReply, body: Any) -> list[str]:
    """Every problem with ``body`` as an answer to ``case`` (empty = pass)."""
    if case.verb == "synthesize" and case.expect_error_code is None:
        return _judge_synthesize(reply, body)
    if case.expect_error_code is not None:
        return _judge_error(case, reply, body)
    if reply.is_error:
        if isinstance(body, dict):
            return [f"unexpected error {body.get('error')!r}: {str(body.get('message'))[:120]}"]
        return ["unexpected error response"]
    problems = []
    if case.validate_schema:
        problems.extend(validate(body, RESPONSE_SCHEMAS[case.verb]))
    for check in case.expect:
        message = check_expectation(body, check)
        if message:
            problems.append(message)
    return problems


def _judge_error(case: Case, reply: ToolReply, body: Any) -> list[str]:
    if not reply.is_error:
        return [f"expected an error {case.expect_error_code!r}, got a success (isError unset)"]
    if not isinstance(body, dict):
        return ["error body must be a JSON object"]
    problems = []
    if body.get("error") != case.expect_error_code:
        problems.append(f"expected error {case.expect_error_code!r}, got {body.get('error')!r}")
    if case.expect_suggestion and not _non_blank(body.get("suggestion")):
        problems.append("error suggestion must be a non-empty string")
    problems.extend(validate(body, ERROR_SCHEMA))
    return problems


def _judge_synthesize(reply: ToolReply, body: Any) -> list[str]:
    """Cost-gated synthesize: a real answer, or the clean keyless ``unavailable`` error."""
    if not reply.is_error:
        return validate(body, RESPONSE_SCHEMAS["synthesize"])
    if not isinstance(body, dict):
        return ["error body must be a JSON object"]
    problems = []
    if body.get("error") != "unavailable":
        problems.append(f"synthesize may only fail with 'unavailable', got {body.get('error')!r}")
    if not _non_blank(body.get("suggestion")):
        problems.append("unavailable must carry a non-empty suggestion")
    problems.extend(validate(body, ERROR_SCHEMA))
    return problems


def _non_blank(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


async def run_conformance_async(
    target: Target,
    *,
    synthesize: bool = False,
    marker: str | None = None,
    cases: Sequence[Case] | None = None,
    cleanup: bool = False,
) -> ConformanceReport:
    """Connect to ``target`` and run the whole kit; connection failure is a failed check."""
    run_marker = marker or new_marker()
    results: list[CaseResult] = []
    try:
        async with connect(target) as client:
            results.extend(
                await run_cases(client, marker=run_marker, synthesize=synthesize, cases=cases,
                                cleanup=cleanup)
            )
    except ConnectError as exc:
        results.append(CaseResult("connect", None, FAIL, str(exc)))
    except Exception as exc:  # noqa: BLE001 — e.g. the server died mid-run; keep what ran
        results.append(CaseResult("transport", None, FAIL, f"{exc.__class__.__name__}: {exc}"))
    return ConformanceReport(target=target.label, marker=run_marker, results=tuple(results))


def run_conformance(
    target: Target,
    *,
    synthesize: bool = False,
    marker: str | None = None,
    cases: Sequence[Case] | None = None,
    cleanup: bool = False,
) -> ConformanceReport:
    """Blocking wrapper around `run_conformance_async` for the CLI and tests."""
    return anyio.run(
        functools.partial(
            run_conformance_async, target, synthesize=synthesize, marker=marker, cases=cases,
            cleanup=cleanup,
        )
    )
