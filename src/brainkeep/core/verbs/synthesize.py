"""synthesize: the deliberately expensive verb — an LLM answer over gathered evidence."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from brainkeep.core.clock import format_ts
from brainkeep.core.context import Caller
from brainkeep.core.synthesis import SYSTEM_PROMPT, Window, gather, parse_answer, user_prompt
from brainkeep.core.verbs.common import PROTOCOL_VERSION, parse_iso
from brainkeep.errors import InvalidInput, Unavailable

if TYPE_CHECKING:
    from brainkeep.core.verbs.services import VerbServices

DEFAULT_MAX_TOKENS = 1024
_NO_CHAT_FIX = (
    "Configure one (`brainkeep config set chat.provider openai|anthropic`, plus chat.model "
    "and chat.api_key_env) and retry; recall and entity work without it."
)


def _window(since: str | None, until: str | None) -> Window:
    """The window as stored timestamps; a date-only `until` includes that whole day."""
    start = format_ts(parse_iso(since, field="since")) if since else None
    end = None
    if until:
        moment = parse_iso(until, field="until")
        if len(until.strip()) == 10:  # YYYY-MM-DD
            moment += timedelta(days=1, microseconds=-1)
        end = format_ts(moment)
    if start and end and start > end:
        raise InvalidInput(
            "`since` is after `until`.",
            suggestion="Pass a window whose start comes first, e.g. since 2026-01-01 until "
            "2026-06-30.",
            field="until",
        )
    return Window(start, end)


def synthesize(
    brain: VerbServices,
    caller: Caller,
    *,
    question: str,
    since: str | None = None,
    until: str | None = None,
) -> dict[str, Any]:
    """Answer a broad question from the brain with one chat call.

    Raises:
        InvalidInput: empty question, unparseable or inverted window.
        Unavailable: no chat model configured, or it failed (timeout,
            refusal, malformed output) — never a made-up answer.
    """
    text = question.strip() if isinstance(question, str) else ""
    if not text:
        raise InvalidInput(
            "`question` is empty.",
            suggestion='Ask a question that needs several pages, e.g. "What has Acme decided '
            'about pricing this year?"',
            field="question",
        )
    window = _window(since, until)
    if brain.chat is None:
        error = brain.chat_error
        raise Unavailable(
            "synthesize needs a chat model and none is configured."
            if error is None
            else "synthesize needs a chat model and its configuration is incomplete.",
            suggestion=_NO_CHAT_FIX if error is None else error.suggestion,
            detail="missing dependency: chat provider (chat.provider = none)"
            if error is None
            else f"chat provider not built: {error.message}",
        )
    evidence = gather(
        brain.search, brain.fact_search, text, scope=caller.read_scope,
        window=window, now=brain.clock.now_ts(),
    )
    model = str(getattr(brain.chat, "model", "") or "")
    if not evidence:
        # Nothing to reason over: say so without paying for a model call.
        return {
            "answer": f"The brain holds nothing relevant to this question ({window.describe()}).",
            "sources": [],
            "gaps": [f"No page or fact matches: {text}"],
            "cost": {"model": model, "input_tokens": 0, "output_tokens": 0, "usd_estimate": 0.0},
            "protocol_version": PROTOCOL_VERSION,
        }
    max_tokens = int(brain.chat_max_tokens or DEFAULT_MAX_TOKENS)
    result = brain.chat.complete(
        SYSTEM_PROMPT, user_prompt(text, evidence, window), max_tokens=max_tokens
    )
    answer = parse_answer(result.text, evidence, model=result.model)
    return {
        "answer": answer.answer,
        "sources": answer.sources,
        "gaps": answer.gaps,
        "cost": {
            "model": result.model,
            "input_tokens": result.input_tokens,
            "output_tokens": result.output_tokens,
            "usd_estimate": result.usd_estimate,
        },
        "protocol_version": PROTOCOL_VERSION,
    }
