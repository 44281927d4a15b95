"""synthesize: the deliberately expensive verb — an LLM answer over gathered evidence."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brainkeep.core.context import Caller
from brainkeep.core.verbs.common import parse_iso
from brainkeep.errors import InvalidInput, Unavailable

if TYPE_CHECKING:
    from brainkeep.brain import Brain


def synthesize(
    brain: Brain,
    caller: Caller,
    *,
    question: str,
    since: str | None = None,
    until: str | None = None,
) -> dict[str, Any]:
    """Answer a broad question from the brain; `unavailable` when no chat model is set."""
    text = question.strip() if isinstance(question, str) else ""
    if not text:
        raise InvalidInput(
            "`question` is empty.",
            suggestion='Ask a question that needs several pages, e.g. "What has Acme decided '
            'about pricing this year?"',
            field="question",
        )
    for value, field in ((since, "since"), (until, "until")):
        if value:
            parse_iso(value, field=field)
    if brain.chat is None:
        raise Unavailable(
            "synthesize needs a chat model and none is configured.",
            suggestion="Configure one (`brainkeep config set chat.provider openai|anthropic`, "
            "plus chat.model and chat.api_key_env) and retry; recall and entity work without it.",
            detail="missing dependency: chat provider (chat.provider = none)",
        )
    raise Unavailable(
        "synthesize is not available in this build.",
        suggestion="Use recall and entity to read the brain.",
        detail="chat-backed synthesis is not implemented yet",
    )
