"""The value every chat implementation returns.

Kept out of ``chat.py`` because that module's factory imports the
implementations, and they build this value: one module would make them import
each other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChatResult:
    """One completion, with what the provider reported about its cost.

    Attributes:
        text: The model's answer (never empty; empty output is an error).
        model: The model id that answered, as the provider reported it.
        input_tokens: Prompt tokens, or ``None`` when the provider did not say.
        output_tokens: Completion tokens, or ``None`` when the provider did not say.
        usd_estimate: From ``pricing.PRICES`` only; ``None`` when unknown.
    """

    text: str
    model: str
    input_tokens: int | None
    output_tokens: int | None
    usd_estimate: float | None
