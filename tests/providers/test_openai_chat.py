"""The OpenAI-compatible chat client against a real scripted HTTP server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from brainkeep.errors import Unavailable
from brainkeep.providers import ChatSettings, close_provider, make_chat_provider
from brainkeep.providers.openai_chat import OpenAICompatibleChat

from .scripted_http import Reply, ScriptedServer

MakeChat = Callable[..., OpenAICompatibleChat]
KEY = "sk-openai-test-key"


def completion(
    content: str | None = "Alice works at Acme.",
    *,
    model: str = "gpt-4o-mini-2024-07-18",
    usage: dict[str, Any] | None = None,
    finish_reason: str = "stop",
    refusal: str | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": finish_reason,
            }
        ],
    }
    if usage is not None:
        body["usage"] = usage
    return body


@pytest.fixture
def make_chat(scripted_server: ScriptedServer) -> Iterator[MakeChat]:
    made: list[OpenAICompatibleChat] = []

    def build(**overrides: Any) -> OpenAICompatibleChat:
        fields: dict[str, Any] = {
            "provider": "openai",
            "model": "gpt-4o-mini",
            "base_url": f"{scripted_server.url}/v1",
            "api_key_env": "OPENAI_API_KEY",
            "timeout_s": 2.0,
        }
        fields.update(overrides)
        chat = make_chat_provider(ChatSettings(**fields), {"OPENAI_API_KEY": KEY})
        assert isinstance(chat, OpenAICompatibleChat)
        made.append(chat)
        return chat

    yield build
    for chat in made:
        chat.close()


def test_success_with_usage(scripted_server: ScriptedServer, make_chat: MakeChat) -> None:
    scripted_server.script(
        Reply(completion(usage={"prompt_tokens": 1200, "completion_tokens": 300}))
    )
    chat = make_chat()
    result = chat.complete("You are terse.", "Where does Alice work?", max_tokens=200)

    assert chat.name == "openai"
    assert chat.model == "gpt-4o-mini"
    assert result.text == "Alice works at Acme."
    assert result.model == "gpt-4o-mini-2024-07-18"
    assert (result.input_tokens, result.output_tokens) == (1200, 300)
    # 1200 * $0.15/M + 300 * $0.60/M, from the price table.
    assert result.usd_estimate == pytest.approx(0.00036)

    request = scripted_server.last
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.json() == {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Where does Alice work?"},
        ],
        "max_tokens": 200,
    }


def test_temperature_is_sent_only_when_set(
    scripted_server: ScriptedServer, make_chat: MakeChat
) -> None:
    scripted_server.script(Reply(completion()), Reply(completion()))
    make_chat().complete("s", "u")
    assert "temperature" not in scripted_server.last.json()
    make_chat(temperature=0.0).complete("s", "u")
    assert scripted_server.last.json()["temperature"] == 0.0


def test_missing_usage_gives_none(scripted_server: ScriptedServer, make_chat: MakeChat) -> None:
    scripted_server.script(Reply(completion(model="llama3.1:8b")))
    result = make_chat(model="llama3.1:8b", api_key_env=None).complete("s", "u")
    assert result.input_tokens is None
    assert result.output_tokens is None
    assert result.usd_estimate is None
    assert "authorization" not in scripted_server.last.headers


def test_unpriced_model_has_no_estimate(
    scripted_server: ScriptedServer, make_chat: MakeChat
) -> None:
    scripted_server.script(
        Reply(completion(model="qwen2.5:7b", usage={"prompt_tokens": 10, "completion_tokens": 5}))
    )
    result = make_chat(model="qwen2.5:7b").complete("s", "u")
    assert (result.input_tokens, result.output_tokens) == (10, 5)
    assert result.usd_estimate is None


def test_server_error_is_unavailable(scripted_server: ScriptedServer, make_chat: MakeChat) -> None:
    scripted_server.script(Reply({"error": {"message": "upstream exploded"}}, status=500))
    with pytest.raises(Unavailable) as info:
        make_chat().complete("s", "u")
    assert "HTTP 500" in info.value.message
    assert info.value.detail is not None and "upstream exploded" in info.value.detail
    assert info.value.suggestion


def test_rate_limit_suggests_retrying_later(
    scripted_server: ScriptedServer, make_chat: MakeChat
) -> None:
    scripted_server.script(Reply({"error": {"message": "slow down"}}, status=429))
    with pytest.raises(Unavailable) as info:
        make_chat().complete("s", "u")
    assert "retry later" in info.value.suggestion


def test_timeout_is_unavailable(scripted_server: ScriptedServer, make_chat: MakeChat) -> None:
    scripted_server.script(Reply(completion(), delay_s=1.5))
    with pytest.raises(Unavailable) as info:
        make_chat(timeout_s=0.2).complete("s", "u")
    assert "in time" in info.value.message


def test_connection_refused_is_unavailable(closed_port_url: str) -> None:
    chat = make_chat_provider(
        ChatSettings(provider="openai", model="m", base_url=f"{closed_port_url}/v1"), {}
    )
    assert chat is not None
    with pytest.raises(Unavailable) as info:
        chat.complete("s", "u")
    close_provider(chat)
    assert "connect" in info.value.message.lower()


def test_malformed_json_is_unavailable(
    scripted_server: ScriptedServer, make_chat: MakeChat
) -> None:
    scripted_server.script(Reply(raw=b'{"choices": [ truncated'))
    with pytest.raises(Unavailable) as info:
        make_chat().complete("s", "u")
    assert "not JSON" in info.value.message


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"object": "chat.completion"}, "no `choices`"),
        ({"choices": []}, "no `choices`"),
        ({"choices": [{"finish_reason": "stop"}]}, "no `message`"),
    ],
)
def test_wrong_shape_is_unavailable(
    scripted_server: ScriptedServer, make_chat: MakeChat, body: dict[str, Any], problem: str
) -> None:
    scripted_server.script(Reply(body))
    with pytest.raises(Unavailable) as info:
        make_chat().complete("s", "u")
    assert info.value.detail is not None and problem in info.value.detail


def test_refusal_is_unavailable(scripted_server: ScriptedServer, make_chat: MakeChat) -> None:
    scripted_server.script(Reply(completion(None, refusal="I can't help with that.")))
    with pytest.raises(Unavailable) as info:
        make_chat().complete("s", "u")
    assert "refused" in info.value.message
    assert info.value.detail is not None and "I can't help with that." in info.value.detail


def test_content_filter_is_unavailable(
    scripted_server: ScriptedServer, make_chat: MakeChat
) -> None:
    scripted_server.script(Reply(completion("", finish_reason="content_filter")))
    with pytest.raises(Unavailable) as info:
        make_chat().complete("s", "u")
    assert "content filter" in info.value.message


@pytest.mark.parametrize("content", [None, "", "   \n"])
def test_empty_output_is_unavailable(
    scripted_server: ScriptedServer, make_chat: MakeChat, content: str | None
) -> None:
    scripted_server.script(Reply(completion(content, finish_reason="length")))
    with pytest.raises(Unavailable) as info:
        make_chat().complete("s", "u")
    assert "no text" in info.value.message
    assert info.value.detail is not None and "length" in info.value.detail
