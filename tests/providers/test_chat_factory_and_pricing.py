"""Chat settings validation, the ``none`` provider, and the price table."""

from __future__ import annotations

from typing import Any

import pytest

from brainkeep.errors import InvalidInput
from brainkeep.providers import ChatResult, ChatSettings, close_provider, make_chat_provider
from brainkeep.providers.pricing import PRICES, estimate_usd


def test_none_provider_is_none() -> None:
    assert make_chat_provider(ChatSettings(), {}) is None
    assert make_chat_provider(ChatSettings(provider="none", model="ignored"), {}) is None


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"provider": "gemini", "model": "m"}, "provider"),
        ({"provider": "openai", "base_url": "http://127.0.0.1:1/v1"}, "model"),
        ({"provider": "openai", "model": "m"}, "base_url"),
        ({"provider": "openai", "model": "m", "base_url": "ftp://x"}, "base_url"),
        (
            {
                "provider": "openai",
                "model": "m",
                "base_url": "http://127.0.0.1:1/v1",
                "api_key_env": "NOT_SET",
            },
            "api_key_env",
        ),
        ({"provider": "anthropic"}, "model"),
        ({"provider": "anthropic", "model": "m", "timeout_s": -1.0}, "timeout_s"),
    ],
)
def test_bad_chat_settings_are_invalid_input(fields: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        make_chat_provider(ChatSettings(**fields), {"NOT_SET": "   "})
    assert info.value.field == field
    assert info.value.code == "invalid_params"
    assert info.value.suggestion


def test_settings_and_results_are_frozen() -> None:
    settings = ChatSettings()
    with pytest.raises(AttributeError):
        settings.model = "x"  # type: ignore[misc]
    result = ChatResult("t", "m", None, None, None)
    with pytest.raises(AttributeError):
        result.text = "changed"  # type: ignore[misc]


def test_close_provider_tolerates_anything() -> None:
    close_provider(None)
    close_provider(object())
    chat = make_chat_provider(
        ChatSettings(provider="openai", model="m", base_url="http://127.0.0.1:1/v1"), {}
    )
    close_provider(chat)


def test_estimate_is_table_arithmetic() -> None:
    assert estimate_usd("claude-sonnet-4-20250514", 100_000, 100_000) == pytest.approx(1.8)
    assert estimate_usd("gpt-4.1-nano", 10_000, 0) == pytest.approx(0.001)


@pytest.mark.parametrize(
    ("model", "inp", "out"),
    [
        ("llama3.1:8b", 10, 10),  # self-hosted: no price
        ("gpt-4o", 10, 10),  # an alias whose snapshot (and price) changed over time
        ("gpt-4o-mini", None, 10),
        ("gpt-4o-mini", 10, None),
        ("claude-sonnet-4-20250514", 250_000, 10),  # long-context tier: unknown
    ],
)
def test_no_estimate_without_a_known_price(model: str, inp: int | None, out: int | None) -> None:
    assert estimate_usd(model, inp, out) is None


def test_price_table_is_sane() -> None:
    for model, price in PRICES.items():
        assert model == model.strip().lower()
        assert 0 < price.input_per_mtok <= price.output_per_mtok, model
