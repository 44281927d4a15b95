"""synthesize end to end: real OpenAI-compatible client against a scripted local server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from brainkeep.brain import Brain
from brainkeep.core.context import LOCAL, STDIO
from tests.providers.scripted_http import Reply, ScriptedServer

from .conftest import OpenBrain, SwitchableEmbedder, Verbs

KEY = "sk-scripted-test"
SECRET = "PRIVATE-SENTINEL"


def chat_values(server: ScriptedServer, **extra: Any) -> dict[str, Any]:
    return {
        "chat.provider": "openai",
        "chat.model": "gpt-4o-mini",
        "chat.base_url": f"{server.url}/v1",
        "chat.api_key_env": "BK_TEST_KEY",
        "chat.timeout_s": 1.0,
        **extra,
    }


def completion(content: str | None, *, usage: dict[str, int] | None = None,
               refusal: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content, "refusal": refusal}}],
    }
    if usage is not None:
        body["usage"] = usage
    return body


def seed(brain: Brain) -> None:
    brain.pages.put_page(
        "projects/atlas",
        "---\ntitle: Project Atlas\n---\nAtlas moves invoices to the new ledger. "
        "Decision in May: pricing stays flat for existing customers.",
    )
    brain.pages.put_page(
        "meetings/2026-05-pricing",
        "---\ntitle: Pricing review May\n---\nAcme agreed to raise prices for new customers "
        "by 8% from July.",
    )
    brain.pages.put_page(
        "health/secret", f"---\ntitle: Pricing secret\nvisibility: private\n---\n{SECRET} "
        "the real pricing plan is to double prices.",
    )
    brain.facts.remember("Acme's CFO wants pricing decided before July.", "call notes", LOCAL,
                         entity="companies/acme")
    brain.facts.remember(f"{SECRET} Acme pricing floor is confidential.", "call notes", LOCAL,
                         entity="companies/acme", visibility="private")


@pytest.fixture
def chat_brain(open_home: OpenBrain, embedder: SwitchableEmbedder,
               scripted_server: ScriptedServer) -> Verbs:
    brain = open_home(embedder, values=chat_values(scripted_server), env={"BK_TEST_KEY": KEY})
    seed(brain)
    return Verbs(brain)


QUESTION = "What has Acme decided about pricing this year?"


def test_answer_sources_gaps_and_cost(chat_brain: Verbs, scripted_server: ScriptedServer) -> None:
    scripted_server.script(Reply(completion(
        json.dumps({
            "answer": "Prices rise 8% for new customers from July [meetings/2026-05-pricing].",
            "sources": ["meetings/2026-05-pricing", "made/up-page", "meetings/2026-05-pricing"],
            "gaps": ["No decision recorded for existing enterprise contracts."],
        }),
        usage={"prompt_tokens": 812, "completion_tokens": 64, "total_tokens": 876},
    )))
    payload = chat_brain.ok("synthesize", STDIO, question=QUESTION)
    assert payload["answer"].startswith("Prices rise 8%")
    # Only evidence that was actually given may be cited; duplicates collapse.
    assert payload["sources"] == ["meetings/2026-05-pricing"]
    assert payload["gaps"] == ["No decision recorded for existing enterprise contracts."]
    cost = payload["cost"]
    assert (cost["model"], cost["input_tokens"], cost["output_tokens"]) == (
        "gpt-4o-mini-2024-07-18", 812, 64
    )
    assert isinstance(cost["usd_estimate"], float) and cost["usd_estimate"] > 0
    request = scripted_server.last
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    prompt = request.json()["messages"][1]["content"]
    assert "meetings/2026-05-pricing" in prompt and "fact:" in prompt
    # A remote caller's evidence never includes private pages or facts.
    assert SECRET not in prompt and "health/secret" not in prompt


def test_local_callers_evidence_includes_private_material(
    chat_brain: Verbs, scripted_server: ScriptedServer
) -> None:
    scripted_server.script(Reply(completion(json.dumps(
        {"answer": "Doubling is planned [health/secret].", "sources": ["health/secret"],
         "gaps": []}
    ))))
    payload = chat_brain.ok("synthesize", LOCAL, question=QUESTION)
    assert payload["sources"] == ["health/secret"]
    # No usage block from the provider: tokens and price are null, not guessed.
    assert payload["cost"]["input_tokens"] is None and payload["cost"]["usd_estimate"] is None
    assert SECRET in scripted_server.last.json()["messages"][1]["content"]


def test_since_and_until_bound_the_evidence(
    chat_brain: Verbs, scripted_server: ScriptedServer
) -> None:
    # Everything was written on 2026-06-15 (the test clock): a window before it is empty,
    # and an empty window is answered without calling the model.
    payload = chat_brain.ok("synthesize", question=QUESTION, since="2026-01-01",
                            until="2026-06-14")
    assert payload["sources"] == [] and payload["cost"]["input_tokens"] == 0
    assert scripted_server.requests == []
    scripted_server.script(Reply(completion(json.dumps(
        {"answer": "See the May review.", "sources": [], "gaps": []}))))
    chat_brain.ok("synthesize", question=QUESTION, since="2026-06-15", until="2026-06-15")
    assert "projects/atlas" in scripted_server.last.json()["messages"][1]["content"]
    bad = chat_brain.err("synthesize", question=QUESTION, since="2026-07-01", until="2026-06-01")
    assert bad["error"] == "invalid_params"


@pytest.mark.parametrize(
    ("reply", "detail_part"),
    [
        (Reply(completion("Sure! Acme raised prices.")), "expected a json object"),
        (Reply(completion('{"answer": ""}')), "expected a json object"),
        (Reply(completion(None, refusal="I can't help with that.")), "refusal"),
        (Reply({"error": {"message": "overloaded"}}, status=503), "503"),
        (Reply(completion("{}"), delay_s=2.0), "readtimeout"),
    ],
    ids=["prose", "empty-answer", "refusal", "server-error", "timeout"],
)
def test_model_failures_are_unavailable_never_an_answer(
    chat_brain: Verbs, scripted_server: ScriptedServer, reply: Reply, detail_part: str
) -> None:
    scripted_server.script(reply)
    error = chat_brain.err("synthesize", question=QUESTION)
    assert error["error"] == "unavailable"
    assert error["suggestion"]
    assert detail_part in error["detail"].lower()
    assert "answer" not in error


def test_fenced_json_is_accepted(chat_brain: Verbs, scripted_server: ScriptedServer) -> None:
    body = {"answer": "8% for new customers.", "sources": ["projects/atlas"], "gaps": []}
    scripted_server.script(Reply(completion("```json\n" + json.dumps(body) + "\n```")))
    assert chat_brain.ok("synthesize", question=QUESTION)["sources"] == ["projects/atlas"]


def test_missing_configuration_is_unavailable(
    open_home: OpenBrain, embedder: SwitchableEmbedder, scripted_server: ScriptedServer, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    none = Verbs(open_home(embedder))
    error = none.err("synthesize", question=QUESTION)
    assert error["error"] == "unavailable" and "chat.provider = none" in error["detail"]
    # Configured, but the key's environment variable is unset.
    nokey = Verbs(open_home(embedder, home=tmp_path / "nokey",
                            values=chat_values(scripted_server)))
    error = nokey.err("synthesize", question=QUESTION)
    assert error["error"] == "unavailable" and "BK_TEST_KEY" in error["detail"] + error[
        "suggestion"
    ]
    assert scripted_server.requests == []
