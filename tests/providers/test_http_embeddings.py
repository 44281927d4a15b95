"""The OpenAI-compatible embeddings client against a real scripted HTTP server."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pytest

from brainkeep.errors import InvalidInput, Unavailable
from brainkeep.providers import EmbeddingSettings, close_provider, make_embedding_provider
from brainkeep.providers.http_embeddings import HttpEmbeddingProvider

from .scripted_http import Reply, ScriptedServer

MakeClient = Callable[..., HttpEmbeddingProvider]
KEY = "sk-test-0123456789"
ENV = {"EMBED_KEY": KEY}


def vectors_reply(*vectors: list[float], reverse: bool = False) -> Reply:
    data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
    if reverse:
        data.reverse()
    return Reply(
        {
            "object": "list",
            "data": data,
            "model": "nomic-embed-text",
            "usage": {"prompt_tokens": 5, "total_tokens": 5},
        }
    )


@pytest.fixture
def make_client(scripted_server: ScriptedServer) -> Iterator[MakeClient]:
    made: list[HttpEmbeddingProvider] = []

    def build(**overrides: object) -> HttpEmbeddingProvider:
        fields: dict[str, object] = {
            "provider": "http",
            "model": "nomic-embed-text",
            "base_url": f"{scripted_server.url}/v1",
            "dimensions": 3,
            "api_key_env": "EMBED_KEY",
            "timeout_s": 2.0,
        }
        fields.update(overrides)
        client = make_embedding_provider(EmbeddingSettings(**fields), ENV)  # type: ignore[arg-type]
        assert isinstance(client, HttpEmbeddingProvider)
        made.append(client)
        return client

    yield build
    for client in made:
        client.close()


def test_success_batches_and_normalizes(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script(
        vectors_reply([3.0, 0.0, 4.0], [0.0, 2.0, 0.0], reverse=True),
        vectors_reply([1.0, 1.0, 1.0]),
    )
    client = make_client(batch_size=2)
    vectors = client.embed(["alpha", "beta", "gamma"])

    assert client.name == "http"
    assert client.model_id == "nomic-embed-text"
    assert client.dimensions == 3
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, 3)
    # Rows follow `index`, not list order, and come back unit length.
    np.testing.assert_allclose(vectors[0], [0.6, 0.0, 0.8], atol=1e-6)
    np.testing.assert_allclose(vectors[1], [0.0, 1.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)

    first, second = scripted_server.requests
    assert first.method == "POST"
    assert first.path == "/v1/embeddings"
    assert first.headers["authorization"] == f"Bearer {KEY}"
    assert first.headers["content-type"] == "application/json"
    assert first.json() == {"model": "nomic-embed-text", "input": ["alpha", "beta"]}
    assert second.json() == {"model": "nomic-embed-text", "input": ["gamma"]}


def test_no_key_configured_sends_no_authorization(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script(vectors_reply([1.0, 0.0, 0.0]))
    make_client(api_key_env=None).embed(["x"])
    assert "authorization" not in scripted_server.last.headers


def test_empty_input_sends_nothing(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    vectors = make_client().embed([])
    assert vectors.shape == (0, 3)
    assert scripted_server.requests == []


def test_server_error_is_unavailable(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script(Reply({"error": {"message": "model crashed"}}, status=500))
    with pytest.raises(Unavailable) as info:
        make_client().embed(["x"])
    err = info.value
    assert err.code == "unavailable"
    assert "HTTP 500" in err.message
    assert err.detail is not None and "model crashed" in err.detail
    assert "retry" in err.suggestion.lower()


def test_rejected_key_names_the_variable_and_never_leaks_it(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script(Reply({"error": {"message": "invalid api key"}}, status=401))
    with pytest.raises(Unavailable) as info:
        make_client().embed(["x"])
    assert "EMBED_KEY" in info.value.suggestion
    assert KEY not in f"{info.value.message} {info.value.suggestion} {info.value.detail}"


def test_timeout_is_unavailable(scripted_server: ScriptedServer, make_client: MakeClient) -> None:
    scripted_server.script(Reply({"data": []}, delay_s=1.5))
    with pytest.raises(Unavailable) as info:
        make_client(timeout_s=0.2).embed(["x"])
    assert "in time" in info.value.message
    assert "timeout_s" in info.value.suggestion
    assert info.value.detail is not None and "0.2s" in info.value.detail


def test_connection_refused_is_unavailable(closed_port_url: str) -> None:
    client = make_embedding_provider(
        EmbeddingSettings(provider="http", model="m", base_url=closed_port_url, dimensions=3), {}
    )
    assert client is not None
    with pytest.raises(Unavailable) as info:
        client.embed(["x"])
    close_provider(client)
    assert "connect" in info.value.message.lower()
    assert "base_url" in info.value.suggestion


def test_non_json_body_is_unavailable(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script(Reply(raw=b"<html>proxy login</html>"))
    with pytest.raises(Unavailable) as info:
        make_client().embed(["x"])
    assert "not JSON" in info.value.message
    assert info.value.detail is not None and "proxy login" in info.value.detail


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"object": "list"}, "no `data`"),
        ({"data": [{"index": 0, "embedding": [1.0, 0.0, 0.0]}]}, "sent 2 inputs, got 1"),
        (
            {"data": [{"index": 0, "embedding": "AAAA"}, {"index": 1, "embedding": "AAAA"}]},
            "no `embedding` list",
        ),
        (
            {"data": [{"index": 0, "embedding": [1, 0, 0]}, {"index": 0, "embedding": [1, 0, 0]}]},
            "repeated index",
        ),
        (
            {"data": [{"index": 0, "embedding": [0, 0, 0]}, {"index": 1, "embedding": [1, 0, 0]}]},
            "all zeros",
        ),
        (
            {
                "data": [
                    {"index": 0, "embedding": ["a", 0, 0]},
                    {"index": 1, "embedding": [1, 0, 0]},
                ]
            },
            "non-numbers",
        ),
        ([1, 2, 3], "expected a JSON object"),
    ],
)
def test_malformed_payloads_are_unavailable(
    scripted_server: ScriptedServer, make_client: MakeClient, body: object, problem: str
) -> None:
    scripted_server.script(Reply(body))
    with pytest.raises(Unavailable) as info:
        make_client().embed(["x", "y"])
    assert info.value.detail is not None and problem in info.value.detail


def test_wrong_dimension_says_which_length_to_configure(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script(vectors_reply([0.1] * 768))
    with pytest.raises(Unavailable) as info:
        make_client().embed(["x"])
    assert "768" in info.value.suggestion
    assert info.value.detail is not None and "returned 768 dimensions" in info.value.detail


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"model": None}, "model"),
        ({"dimensions": None}, "dimensions"),
        ({"base_url": None}, "base_url"),
        ({"base_url": "127.0.0.1:11434/v1"}, "base_url"),
        ({"api_key_env": "UNSET_VARIABLE"}, "api_key_env"),
        ({"provider": "bogus"}, "provider"),
        ({"timeout_s": 0}, "timeout_s"),
        ({"batch_size": 0}, "batch_size"),
    ],
)
def test_bad_http_settings_are_invalid_input(overrides: dict[str, object], field: str) -> None:
    fields: dict[str, object] = {
        "provider": "http",
        "model": "m",
        "base_url": "http://127.0.0.1:1/v1",
        "dimensions": 3,
        "api_key_env": "EMBED_KEY",
    }
    fields.update(overrides)
    with pytest.raises(InvalidInput) as info:
        make_embedding_provider(EmbeddingSettings(**fields), ENV)  # type: ignore[arg-type]
    assert info.value.field == field
    assert info.value.suggestion


def test_none_provider_is_none() -> None:
    assert make_embedding_provider(EmbeddingSettings(), {}) is None
    assert make_embedding_provider(EmbeddingSettings(provider="none"), {}) is None
