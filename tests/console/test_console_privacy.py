"""A remote viewer sees exactly what its token's scope and org allow, on every page.

Asserted on the HTML: an org-A read token never sees org B's memories, private
memories, or private pages, whatever page or filter it asks for.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from console_support import (
    ORG_B_SENTINEL,
    PRIVATE_PAGE_SENTINEL,
    PRIVATE_SENTINEL,
    Seeded,
    sign_in,
)

from tests.http.http_support import ServerProc

SENTINELS = (ORG_B_SENTINEL, PRIVATE_SENTINEL, PRIVATE_PAGE_SENTINEL)


@pytest.fixture
def viewer_a(remote: ServerProc, seeded: Seeded) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=remote.base + "/console", timeout=30) as client:
        assert sign_in(client, remote.base + "/console", seeded.tokens["a_read"]).status_code \
            == 303
        yield client


def pages(seeded: Seeded) -> list[str]:
    facts = seeded.facts
    return [
        "/", "/entities", "/entities?q=hidden", "/entities?q=knows",
        "/entities?prefix=people/", "/entities/people/ada-example",
        "/entities/people/ada-example?hops=2", "/memories", "/memories?expired=1",
        "/memories?org=org-b", "/memories?visibility=private", "/memories?q=secret+plan",
        "/memories?entity=people/ada-example", f"/memories/{facts['tea']}",
        "/search?q=Ada", "/search?q=door+code", "/search?q=hidden+knows",
        "/search?q=secret+plan",
    ]


def test_no_page_shows_another_orgs_or_private_rows(viewer_a: httpx.Client,
                                                    seeded: Seeded) -> None:
    for path in pages(seeded):
        response = viewer_a.get(path)
        assert response.status_code == 200, (path, response.status_code)
        for sentinel in SENTINELS:
            assert sentinel not in response.text, (path, sentinel)
    # It does see its own tenant's world facts (the test can fail the other way too).
    assert "Ada prefers tea over coffee" in viewer_a.get("/memories").text


@pytest.mark.parametrize("key", ["orgb", "private"])
def test_hidden_facts_are_not_found_by_id(viewer_a: httpx.Client, seeded: Seeded,
                                          key: str) -> None:
    response = viewer_a.get(f"/memories/{seeded.facts[key]}")
    assert response.status_code == 404
    for sentinel in SENTINELS:
        assert sentinel not in response.text


def test_private_page_is_not_found(viewer_a: httpx.Client) -> None:
    response = viewer_a.get("/entities/people/hidden-person")
    assert response.status_code == 404
    assert PRIVATE_PAGE_SENTINEL not in response.text


def test_the_other_org_sees_its_own_and_not_org_a(remote: ServerProc, seeded: Seeded) -> None:
    with httpx.Client(base_url=remote.base + "/console", timeout=30) as client:
        assert sign_in(client, remote.base + "/console", seeded.tokens["b_read"]).status_code \
            == 303
        page = client.get("/memories").text
        assert ORG_B_SENTINEL in page
        assert "Ada prefers tea over coffee" not in page and PRIVATE_SENTINEL not in page
        assert client.get(f"/memories/{seeded.facts['tea']}").status_code == 404


def test_admin_pages_need_admin(viewer_a: httpx.Client) -> None:
    response = viewer_a.get("/access")
    assert response.status_code == 403
    assert 'href="/console/access"' not in viewer_a.get("/").text
