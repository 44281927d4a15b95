"""The console over a PostgreSQL brain: the same pages, the same privacy, forget audited."""

from __future__ import annotations

import httpx
from console_support import (
    ORG_B_SENTINEL,
    PRIVATE_PAGE_SENTINEL,
    PRIVATE_SENTINEL,
    Seeded,
    csrf_of,
    sign_in,
)

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from tests.http.http_support import ServerProc


def test_pages_privacy_and_forget_on_postgres(pg_remote: ServerProc, pg_seeded: Seeded) -> None:
    base = pg_remote.base + "/console"
    with httpx.Client(base_url=base, timeout=30) as client:
        assert sign_in(client, base, pg_seeded.tokens["a_write"]).status_code == 303
        for path in ("/", "/entities", "/entities/people/ada-example?hops=2", "/memories",
                     f"/memories/{pg_seeded.facts['tea']}", "/search?q=Acme+rockets"):
            response = client.get(path)
            assert response.status_code == 200, (path, response.text[:500])
            for sentinel in (ORG_B_SENTINEL, PRIVATE_SENTINEL, PRIVATE_PAGE_SENTINEL):
                assert sentinel not in response.text, (path, sentinel)
        assert "Ada prefers tea over coffee" in client.get("/memories").text
        fact = pg_seeded.facts["forgettable"]
        detail = client.get(f"/memories/{fact}")
        done = client.post(f"/memories/{fact}/forget",
                           data={"reason": "pg forget", "csrf": csrf_of(detail.text)})
        assert done.status_code == 303
        assert "Bob collects stamps" not in client.get("/memories").text
    brain = open_brain(load_settings(pg_seeded.home, env={}))
    try:
        memory = brain.store.get_memory(int(fact))
        assert memory is not None and memory.expired_at is not None
        kinds = [(e.kind, e.payload.get("reason"))
                 for e in brain.store.events_for("memory", memory.uuid)]
        assert ("memory.expire", "pg forget") in kinds
    finally:
        brain.close()
