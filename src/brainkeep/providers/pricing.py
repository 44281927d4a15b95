"""A small, documented price table for chat cost estimates.

Prices are the vendors' published list prices in USD per million tokens for
standard (non-batch, uncached, short-context) requests, as published by
OpenAI and Anthropic in 2025. Keys are exact model ids as the APIs report
them in responses (OpenAI reports dated snapshots, Anthropic dated ids), so
a snapshot we have not checked gets no price at all: an unknown model, a
self-hosted model (Ollama, vLLM) or missing token counts give ``None``,
never a guess. Update this table by hand from the vendors' pricing pages.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Price:
    """USD per million input and output tokens."""

    input_per_mtok: float
    output_per_mtok: float


PRICES_AS_OF = "2025"

PRICES: dict[str, Price] = {
    # OpenAI
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4o-mini-2024-07-18": Price(0.15, 0.60),
    "gpt-4o-2024-08-06": Price(2.50, 10.00),
    "gpt-4o-2024-11-20": Price(2.50, 10.00),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4.1-2025-04-14": Price(2.00, 8.00),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-mini-2025-04-14": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-4.1-nano-2025-04-14": Price(0.10, 0.40),
    # Anthropic
    "claude-3-haiku-20240307": Price(0.25, 1.25),
    "claude-3-5-haiku-20241022": Price(0.80, 4.00),
    "claude-3-7-sonnet-20250219": Price(3.00, 15.00),
    "claude-sonnet-4-20250514": Price(3.00, 15.00),
    "claude-sonnet-4-5-20250929": Price(3.00, 15.00),
    "claude-haiku-4-5-20251001": Price(1.00, 5.00),
    "claude-opus-4-20250514": Price(15.00, 75.00),
    "claude-opus-4-1-20250805": Price(15.00, 75.00),
}

# Some models bill long prompts at a higher tier; above this we do not know
# the tier, so we give no estimate rather than a low one.
_STANDARD_TIER_MAX_INPUT = 200_000


def estimate_usd(model: str, input_tokens: int | None, output_tokens: int | None) -> float | None:
    """Estimate a call's cost from the table, or ``None`` when it cannot be known.

    Args:
        model: The model id the provider reported (or the one requested).
        input_tokens: Prompt tokens the provider reported.
        output_tokens: Completion tokens the provider reported.

    Returns:
        USD, or ``None`` for an unlisted model, missing counts, or a prompt
        beyond the standard pricing tier.
    """
    price = PRICES.get(model)
    if price is None or input_tokens is None or output_tokens is None:
        return None
    if input_tokens > _STANDARD_TIER_MAX_INPUT:
        return None
    return (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1e6
