"""A hook's two reads as plain data in, plain data out: one prompt's context, a session's digest.

The local ambient server runs them for a hook (it has these modules loaded
already: a hook process that imported them would spend ~9 ms of its ~80 on
imports every prompt), and a hook on a remote brain runs them itself over
MCP calls. Both go through these functions, so both answer alike. A request
field that is missing or empty takes the default; the hook sends only what
its environment overrides.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from brainkeep.core.ambient.digest import START_BUDGET, session_digest
from brainkeep.core.ambient.prompt import PROMPT_BUDGET, RELEVANCE_FLOOR, Ask, prompt_context


def _number(value: Any, default: float) -> float:
    return default if value is None or value == "" else float(value)


def _keys(value: Any) -> list[str]:
    return [str(key) for key in value or []]


def prompt_request(ask: Ask, request: Mapping[str, Any]) -> dict[str, Any]:
    """``{"prompt", "seen", "budget", "floor"}`` -> what to inject and the accounting."""
    found = prompt_context(
        str(request.get("prompt") or ""), ask, seen=_keys(request.get("seen")),
        budget=max(0, int(_number(request.get("budget"), PROMPT_BUDGET))),
        floor=_number(request.get("floor"), RELEVANCE_FLOOR))
    chosen = found.selection
    return {"text": found.text, "keys": list(found.keys), "entities": list(found.entities),
            "calls": found.calls, "tokens": chosen.tokens,
            "below_floor": chosen.below_floor, "repeated": chosen.repeated,
            "over_budget": chosen.over_budget}


def digest_request(ask: Ask, request: Mapping[str, Any]) -> dict[str, Any]:
    """``{"workspace", "standing", "seen", "budget"}`` -> the session-start digest."""
    digest = session_digest(
        ask, workspace=str(request.get("workspace") or "-"),
        standing=_keys(request.get("standing")),
        budget=max(0, int(_number(request.get("budget"), START_BUDGET))),
        seen=_keys(request.get("seen")))
    return {"text": digest.text, "keys": list(digest.keys), "tokens": digest.tokens,
            "calls": digest.calls}
