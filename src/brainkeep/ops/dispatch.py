"""Dispatch: the one path every transport takes into an operation.

Order (shared by stdio, HTTP and the CLI): surface gate, lookup, scope,
parameter types, handler; verb calls are logged to the usage log. Errors leave
as data (an ``Outcome`` with ``is_error``), in the verb envelope for verbs.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from typing import Any

from brainkeep.core import validate
from brainkeep.core.context import Caller
from brainkeep.core.origin import content_origin
from brainkeep.core.verbs.common import PROTOCOL_VERSION
from brainkeep.errors import BrainkeepError, InvalidInput, ScopeDenied
from brainkeep.ops.catalog import Catalog, Operation
from brainkeep.ops.context import OpContext
from brainkeep.ops.usage import UsageEvent, UsageLog, outcome_fields, usage_timestamp

log = logging.getLogger("brainkeep.dispatch")

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}
INTERNAL_MESSAGE = "Internal server error."
INTERNAL_SUGGESTION = (
    "This is a server-side failure, not a caller mistake. Retry once; if it persists, run "
    "`brainkeep doctor` and report the incident id to the operator (the server log has it)."
)


@dataclass(frozen=True)
class Outcome:
    """What a transport serializes: the JSON payload and whether it is an error."""

    payload: dict[str, Any]
    is_error: bool
    # The same call, repeated shortly, may succeed (``BrainkeepError.retryable``):
    # the CLI gives it its own exit code; the wire payload stays the MCP envelope.
    retryable: bool = False


def required_scope_met(op: Operation, caller: Caller) -> bool:
    """`write` implies `read`; `admin` implies everything."""
    return scope_allows(op.scope, caller)


def scope_allows(needed: str, caller: Caller) -> bool:
    """Whether ``caller``'s scopes cover ``needed`` (the console asks it per page too)."""
    scopes = caller.scopes
    if "admin" in scopes:
        return True
    if needed == "read":
        return bool({"read", "write"} & scopes)
    return needed in scopes


def check_params(op: Operation, params: dict[str, Any]) -> None:
    """Required params present and non-null; JSON types right (enums: handlers check)."""
    for param in op.params:
        value = params.get(param.name)
        if value is None:
            if param.required:
                raise InvalidInput(
                    f"Missing required parameter: {param.name}",
                    suggestion="Check the tool's input schema: required params and their types "
                    "are declared there.",
                    field=param.name,
                )
            continue
        allowed = _JSON_TYPES.get(param.type, (object,))
        bad_bool = isinstance(value, bool) and param.type in ("number", "integer")
        if bad_bool or not isinstance(value, allowed):
            raise InvalidInput(
                f'Parameter "{param.name}" must be a {param.type}.',
                suggestion="Check the tool's input schema: required params and their types "
                "are declared there.",
                field=param.name,
            )
        if isinstance(value, str):  # NUL / lone surrogates: one text rule for every string
            validate.text(value, param.name)


def verb_error(exc: BrainkeepError) -> dict[str, Any]:
    """The MEMORY_VERBS error envelope: the error's payload plus protocol_version."""
    return {**exc.payload(), "protocol_version": PROTOCOL_VERSION}


def opaque_internal(name: str, exc: BaseException) -> BrainkeepError:
    """A fixed internal error naming an incident id; the real one goes to the log.

    Exception text and class names describe our code (and may quote the
    caller's data or the database path), so they never reach a client: the
    operator finds them in the server log by the incident id.
    """
    incident = uuid.uuid4().hex[:12]
    detail = getattr(exc, "detail", None)
    log.error(
        "operation %s failed (incident %s)%s",
        name,
        incident,
        f": {detail}" if detail else "",
        exc_info=exc,
    )
    return BrainkeepError(
        INTERNAL_MESSAGE, suggestion=INTERNAL_SUGGESTION, detail=f"incident {incident}"
    )


@dataclass
class Dispatcher:
    """Routes a named call to its operation for one brain and surface."""

    catalog: Catalog
    brain: Any  # brainkeep.brain.Brain (typed loosely: ops must not import the composition root)
    surface: str = "full"
    usage: UsageLog | None = None

    def __post_init__(self) -> None:
        self._visible_names = frozenset(op.name for op in self.visible())

    def visible(self) -> tuple[Operation, ...]:
        return self.catalog.for_surface(self.surface)

    def offered(self, caller: Caller) -> tuple[Operation, ...]:
        """The operations ``caller`` may call on this surface (what tools/list shows it).

        The scope check of ``call`` is the same rule, so a listed tool never
        answers scope_denied and a tool not listed for lack of scope always
        does (not unknown_tool: the catalog is public, the missing scope is
        what the caller needs to know).
        """
        return tuple(op for op in self.visible() if required_scope_met(op, caller))

    def call(self, name: str, params: dict[str, Any] | None, caller: Caller) -> Outcome:
        """Run one operation and shape its result or error."""
        op = self.catalog.get(name)
        if op is None or name not in self._visible_names:
            # Same answer for hidden and nonexistent names: no leak of what exists.
            return Outcome({"error": "unknown_tool", "message": f"Unknown tool: {name}"}, True)
        started = time.perf_counter()
        result: dict[str, Any] | None = None
        try:
            if not required_scope_met(op, caller):
                raise ScopeDenied(op.name, op.scope)
            args = dict(params or {})
            check_params(op, args)
            ctx = OpContext(brain=self.brain, caller=caller, surface=self.surface)
            with self.brain.store.session():  # one pooled connection for the whole call
                result = op.handler(ctx, args)
            if op.scope == "read":
                # What a read returns is stored text: mark it as data (core/origin.py).
                result = {**result, "content_origin": content_origin()}
            outcome = Outcome(result, False)
        except BrainkeepError as exc:
            error = opaque_internal(name, exc) if exc.code == "internal" else exc
            payload = verb_error(error) if op.verb else error.payload()
            outcome = Outcome(payload, True, retryable=error.retryable)
        except Exception as exc:  # the edge: convert, never swallow
            internal = opaque_internal(name, exc)
            outcome = Outcome(verb_error(internal) if op.verb else internal.payload(), True)
        if op.verb and self.usage is not None:
            self._record(op, caller, outcome, started, result)
        return outcome

    def _record(
        self,
        op: Operation,
        caller: Caller,
        outcome: Outcome,
        started: float,
        result: dict[str, Any] | None,
    ) -> None:
        assert self.usage is not None
        brain = self.brain
        self.usage.record(
            UsageEvent(
                ts=usage_timestamp(),
                brain_id=str(brain.settings.home),
                verb=op.name,
                surface=self.surface,
                transport=caller.transport,
                remote=caller.remote,
                ok=not outcome.is_error,
                latency_ms=int(round((time.perf_counter() - started) * 1000)),
                source_id=brain.source_id,
                token_name=caller.token_name,
                **outcome_fields(op.name, not outcome.is_error, result),
            )
        )
