"""The Anthropic Messages client against a real scripted HTTP server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from brainkeep.errors import InvalidInput, Unavailable
from brainkeep.providers import ChatSettings, close_provider, make_chat_provider
from brainkeep.providers.anthropic_chat import ANTHROPIC_VERSION, AnthropicChat

from .scripted_http import Reply, ScriptedServer

MakeChat = Callable[..., AnthropicChat]
KEY = "sk-ant-test-key"
MODEL = "claude-3-5-haiku-20241022"


def message(
    *blocks: dict[str, Any],
    stop_reason: str = "end_turn",
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": list(blocks),
        "stop_reason": stop_reason,
    }
    if usage is not None:
        body["usage"] = usage
    return body


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


@pytest.fixture
def make_chat(scripted_server: ScriptedServer) -> Iterator[MakeChat]:
    made: list[AnthropicChat] = []

    def build(**overrides: Any) -> AnthropicChat:
        fields: dict[str, Any] = {
            "provider": "anthropic",
            "model": MODEL,
            "base_url": scripted_server.url,
            "timeout_s": 2.0,
        }
        fields.update(overrides)
        chat = make_chat_provider(ChatSettings(**fields), {"ANTHROPIC_API_KEY": KEY})
        assert isinstance(chat, AnthropicChat)
        made.append(chat)
        return chat

    yield build
    for chat in made:
        chat.close()


def test_success_with_usage(scripted_server: ScriptedServer, make_chat: MakeChat) -> None:
    scripted_server.script(
        Reply(
            message(
                {"type": "thinking", "thinking": "hmm"},
                text("Alice works "),
                text("at Acme."),
                usage={"input_tokens": 2000, "output_tokens": 500},
            )
        )
    )
    chat = make_chat()
    result = chat.complete("You are terse.", "Where does Alice work?", max_tokens=300)

    assert chat.name == "anthropic"
    assert chat.model == MODEL
    assert result.text == "Alice works at Acme."
    assert result.model == MODEL
    assert (result.input_tokens, result.output_tokens) == (2000, 500)
    # 2000 * $0.80/M + 500 * $4/M, from the price table.
    assert result.usd_estimate == pytest.approx(0.0036)

    request = scripted_server.last
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert "authorization" not in request.headers
    assert request.json() == {
        "model": MODEL,
        "max_tokens": 300,
        "system": "You are terse.",
        "messages": [{"role": "user", "content": "Where does Alice work?"}],
    }


def test_missing_usage_gives_none(scripted_server: ScriptedServer, make_chat: MakeChat) -> None:
    scripted_server.script(Reply(message(text("ok"))))
    result = make_chat().complete("s", "u")
    assert result.input_tokens is None
    assert result.output_tokens is None
    assert result.usd_estimate is None


def test_custom_key_variable(scripted_server: ScriptedServer) -> None:
    scripted_server.script(Reply(message(text("ok"))))
    chat = make_chat_provider(
        ChatSettings(
            provider="anthropic", model=MODEL, base_url=scripted_server.url, api_key_env="MY_KEY"
        ),
        {"MY_KEY": "sk-other"},
    )
    assert chat is not None
    chat.complete("s", "u")
    close_provider(chat)
    assert scripted_server.last.headers["x-api-key"] == "sk-other"


def test_refusal_is_unavailable(scripted_server: ScriptedServer, make_chat: MakeChat) -> None:
    scripted_server.script(Reply(message(text("I can't"), stop_reason="refusal")))
    with pytest.raises(Unavailable) as info:
        make_chat().complete("s", "u")
    assert "refused" in info.value.message
    assert info.value.detail is not None and "refusal" in info.value.detail


def test_overloaded_is_unavailable(scripted_server: ScriptedServer, make_chat: MakeChat) -> None:
    scripted_server.script(
        Reply(
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            status=529,
        )
    )
    with pytest.raises(Unavailable) as info:
        make_chat().complete("s", "u")
    assert "HTTP 529" in info.value.message
    assert info.value.detail is not None and "Overloaded" in info.value.detail


def test_server_error_is_unavailable(scripted_server: ScriptedServer, make_chat: MakeChat) -> None:
    scripted_server.script(Reply(raw=b"Internal Server Error", status=500))
    with pytest.raises(Unavailable) as info:
        make_chat().complete("s", "u")
    assert info.value.detail is not None and "Internal Server Error" in info.value.detail


def test_bad_key_is_unavailable_and_not_leaked(
    scripted_server: ScriptedServer, make_chat: MakeChat
) -> None:
    scripted_server.script(
        Reply(
            {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}},
            status=401,
        )
    )
    with pytest.raises(Unavailable) as info:
        make_chat().complete("s", "u")
    assert "ANTHROPIC_API_KEY" in info.value.suggestion
    assert KEY not in f"{info.value.message} {info.value.suggestion} {info.value.detail}"


def test_timeout_is_unavailable(scripted_server: ScriptedServer, make_chat: MakeChat) -> None:
    scripted_server.script(Reply(message(text("late")), delay_s=1.5))
    with pytest.raises(Unavailable) as info:
        make_chat(timeout_s=0.2).complete("s", "u")
    assert "in time" in info.value.message


def test_malformed_json_is_unavailable(
    scripted_server: ScriptedServer, make_chat: MakeChat
) -> None:
    scripted_server.script(Reply(raw=b"{not json"))
    with pytest.raises(Unavailable):
        make_chat().complete("s", "u")


def test_missing_content_is_unavailable(
    scripted_server: ScriptedServer, make_chat: MakeChat
) -> None:
    scripted_server.script(Reply({"type": "message", "model": MODEL}))
    with pytest.raises(Unavailable) as info:
        make_chat().complete("s", "u")
    assert info.value.detail is not None and "no `content`" in info.value.detail


def test_no_text_blocks_is_unavailable(
    scripted_server: ScriptedServer, make_chat: MakeChat
) -> None:
    scripted_server.script(Reply(message(stop_reason="max_tokens")))
    with pytest.raises(Unavailable) as info:
        make_chat().complete("s", "u")
    assert "no text" in info.value.message
    assert info.value.detail is not None and "max_tokens" in info.value.detail


def test_key_is_required_at_construction() -> None:
    with pytest.raises(InvalidInput) as info:
        make_chat_provider(ChatSettings(provider="anthropic", model=MODEL), {})
    assert info.value.field == "api_key_env"
    assert "ANTHROPIC_API_KEY" in info.value.suggestion


def test_default_base_url_is_anthropic() -> None:
    chat = make_chat_provider(
        ChatSettings(provider="anthropic", model=MODEL), {"ANTHROPIC_API_KEY": KEY}
    )
    assert isinstance(chat, AnthropicChat)
    assert chat._url == "https://api.anthropic.com/v1/messages"
    chat.close()
