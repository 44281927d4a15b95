"""The http embedding provider wired through a brain, against a scripted local server."""

from __future__ import annotations

from typing import Any

from brainkeep.brain import open_brain
from brainkeep.config import Settings
from brainkeep.core.context import LOCAL
from brainkeep.core.search import DEGRADED_PROVIDER_DOWN
from tests.providers.scripted_http import Reply, ScriptedServer

from .conftest import Verbs


def vectors(*rows: list[float]) -> dict[str, Any]:
    return {"data": [{"index": i, "embedding": r} for i, r in enumerate(rows)]}


def test_http_vectors_drive_hybrid_search_and_failures_degrade(
    tmp_path, scripted_server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    values = {
        "embeddings.provider": "http",
        "embeddings.model": "nomic-embed-text",
        "embeddings.dimensions": 4,
        "embeddings.base_url": f"{scripted_server.url}/v1",
    }
    settings = Settings(home=tmp_path / "home", values=values, env={})
    brain = open_brain(settings)  # builds the http provider from embeddings.*
    try:
        scripted_server.script(Reply(vectors([1, 0, 0, 0])), Reply(vectors([0, 1, 0, 0])))
        brain.pages.put_page("notes/a", "Alpha text.")
        brain.pages.put_page("notes/b", "Beta text.")
        assert [r.path for r in scripted_server.requests] == ["/v1/embeddings"] * 2
        assert scripted_server.last.json() == {"model": "nomic-embed-text",
                                               "input": ["Beta text."]}

        scripted_server.script(Reply(vectors([0.1, 0.9, 0, 0])))
        payload = Verbs(brain).ok("recall", query="zzz unrelated words")
        assert "search_degraded" not in payload
        assert [r["slug"] for r in payload["results"]][0] == "notes/b"
        assert payload["results"][0]["evidence"] == "high_vector_match"

        scripted_server.script(Reply({"error": {"message": "model loading"}}, status=503))
        payload = Verbs(brain).ok("recall", query="alpha")
        assert payload["search_degraded"] == DEGRADED_PROVIDER_DOWN
        assert payload["results"][0]["slug"] == "notes/a"

        # A write while the provider is down still lands; `embed` fills the vector in later.
        scripted_server.script(Reply({"error": {"message": "down"}}, status=503))
        brain.pages.put_page("notes/c", "Gamma text.")
        assert brain.pages.get_page("notes/c", LOCAL).title
    finally:
        brain.close()
