"""Client authentication at /token and /revoke: the client that proved itself is the one served.

Each attack body names a confidential client's code or token while only a
public client (no secret) authenticates: a ``Basic <public>:`` header beside
the confidential ``client_id``, the ``client_id`` given twice, or a multipart
body whose fields the front check would not read. Each must be refused with
an OAuth error, and the grant must stay unspent (the legitimate client can
still redeem it afterwards). The legitimate ways in keep working: a public
client with only its ``client_id``, a confidential one by ``client_secret_post``
or ``client_secret_basic`` (with or without ``client_id`` in the form), and
the official SDK client configured for Basic.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from http_support import (
    OPEN_LIMITS,
    ServerProc,
    call,
    create_token,
    make_home,
    run,
    start_server,
    stopped_cleanly,
)
from oauth_support import (
    REDIRECT,
    Consent,
    add_client,
    authorize,
    code_provider,
    mcp_status,
    oauth_session,
    pkce,
    storage_for,
    token_request,
)

from brainkeep.core.oauth.service import NewClient

FORM = "application/x-www-form-urlencoded"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_home(tmp_path_factory.mktemp("oauth-client-auth"), OPEN_LIMITS)


@pytest.fixture(scope="module")
def server(home: Path) -> Iterator[ServerProc]:
    with stopped_cleanly(start_server(home), "serve --http") as proc:
        yield proc


@pytest.fixture(scope="module")
def admin(home: Path) -> str:
    return create_token(home, "operator", "admin")


@pytest.fixture(scope="module")
def public(home: Path) -> NewClient:
    return add_client(home, "public-app", redirect_uris=(REDIRECT,), confidential=False)


@pytest.fixture
def confidential(home: Path) -> NewClient:
    return add_client(home, "confidential-app", redirect_uris=(REDIRECT,))


def _basic(client_id: str, secret: str = "") -> dict[str, str]:
    raw = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    return {"Authorization": f"Basic {raw}"}


def _post(server: ServerProc, path: str, body: str, headers: dict[str, str] | None = None,
          content_type: str = FORM) -> httpx2.Response:
    """A raw POST, so the test controls parameter order and repetition exactly."""
    return httpx2.post(f"{server.base}{path}", content=body.encode(),
                       headers={"Content-Type": content_type, **(headers or {})})


def _tokens(server: ServerProc, client: NewClient, admin: str) -> dict[str, str]:
    verifier, challenge = pkce()
    code = authorize(server.base, client, admin, challenge=challenge)
    response = token_request(server.base, client, grant_type="authorization_code", code=code,
                             code_verifier=verifier, redirect_uri=REDIRECT)
    assert response.status_code == 200, response.text
    body: dict[str, str] = response.json()
    return body


def _refused(response: httpx2.Response) -> None:
    """An OAuth error in the JSON shape, and no token in it."""
    assert response.status_code in (400, 401), (response.status_code, response.text)
    body = response.json()
    assert body["error"] in ("invalid_client", "invalid_request"), body
    assert "access_token" not in body


def _multipart(fields: dict[str, str]) -> tuple[str, str]:
    boundary = "bkboundary7731"
    parts = "".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
                    for k, v in fields.items())
    return parts + f"--{boundary}--\r\n", f"multipart/form-data; boundary={boundary}"


# -- the attacks ---------------------------------------------------------------


def test_refresh_token_is_not_redeemable_as_a_public_client(
        server: ServerProc, public: NewClient, confidential: NewClient, admin: str) -> None:
    refresh = _tokens(server, confidential, admin)["refresh_token"]
    conf, pub = confidential.client.client_id, public.client.client_id
    basic = _post(server, "/token", f"grant_type=refresh_token&refresh_token={refresh}"
                  f"&client_id={conf}", _basic(pub))
    _refused(basic)
    twice = _post(server, "/token", f"grant_type=refresh_token&refresh_token={refresh}"
                  f"&client_id={pub}&client_id={conf}")
    _refused(twice)
    body, kind = _multipart({"grant_type": "refresh_token", "refresh_token": refresh,
                             "client_id": conf})
    _refused(_post(server, "/token", body, _basic(pub), content_type=kind))
    # Nothing was spent: the rightful client still rotates its refresh token.
    rotated = token_request(server.base, confidential, grant_type="refresh_token",
                            refresh_token=refresh)
    assert rotated.status_code == 200, rotated.text


def test_authorization_code_is_not_redeemable_as_a_public_client(
        server: ServerProc, public: NewClient, confidential: NewClient, admin: str) -> None:
    verifier, challenge = pkce()
    code = authorize(server.base, confidential, admin, challenge=challenge)
    conf, pub = confidential.client.client_id, public.client.client_id
    grant = (f"grant_type=authorization_code&code={code}&code_verifier={verifier}"
             f"&redirect_uri={REDIRECT}")
    _refused(_post(server, "/token", f"{grant}&client_id={conf}", _basic(pub)))
    _refused(_post(server, "/token", f"{grant}&client_id={pub}&client_id={conf}"))
    body, kind = _multipart({"grant_type": "authorization_code", "code": code,
                             "code_verifier": verifier, "redirect_uri": REDIRECT,
                             "client_id": conf})
    _refused(_post(server, "/token", body, _basic(pub), content_type=kind))
    exchanged = token_request(server.base, confidential, grant_type="authorization_code",
                              code=code, code_verifier=verifier, redirect_uri=REDIRECT)
    assert exchanged.status_code == 200, exchanged.text


def test_revoke_is_refused_unless_the_owner_authenticates(
        server: ServerProc, public: NewClient, confidential: NewClient, admin: str) -> None:
    access = _tokens(server, confidential, admin)["access_token"]
    conf, pub = confidential.client.client_id, public.client.client_id
    # An empty client_secret, since the SDK's revocation form requires the field.
    _refused(_post(server, "/revoke", f"token={access}&client_id={conf}&client_secret=",
                   _basic(pub)))
    _refused(_post(server, "/revoke", f"token={access}&client_id={pub}&client_id={conf}"
                   "&client_secret="))
    body, kind = _multipart({"token": access, "client_id": conf, "client_secret": ""})
    _refused(_post(server, "/revoke", body, _basic(pub), content_type=kind))
    assert mcp_status(server.url, access) == 200  # still live


def test_basic_id_must_match_the_form_client_id(
        home: Path, server: ServerProc, confidential: NewClient, admin: str) -> None:
    refresh = _tokens(server, confidential, admin)["refresh_token"]
    other = add_client(home, "other-confidential", redirect_uris=(REDIRECT,))
    assert other.secret
    # Authenticated as `other`, asking to act for `confidential`.
    _refused(_post(server, "/token", f"grant_type=refresh_token&refresh_token={refresh}"
                   f"&client_id={confidential.client.client_id}",
                   _basic(other.client.client_id, other.secret)))
    # Basic and a different secret in the form: which one would count is ambiguous.
    assert confidential.secret
    _refused(_post(server, "/token", f"grant_type=refresh_token&refresh_token={refresh}"
                   "&client_secret=bkcs_other",
                   _basic(confidential.client.client_id, confidential.secret)))
    rotated = token_request(server.base, confidential, grant_type="refresh_token",
                            refresh_token=refresh)
    assert rotated.status_code == 200, rotated.text


# -- the legitimate ways in ------------------------------------------------------


def test_public_client_code_and_refresh(server: ServerProc, public: NewClient,
                                        admin: str) -> None:
    tokens = _tokens(server, public, admin)
    assert mcp_status(server.url, tokens["access_token"]) == 200
    rotated = token_request(server.base, public, grant_type="refresh_token",
                            refresh_token=tokens["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    revoked = _post(server, "/revoke", f"token={rotated.json()['access_token']}"
                    f"&client_id={public.client.client_id}")
    assert revoked.status_code == 200, revoked.text


def test_confidential_client_by_basic(server: ServerProc, confidential: NewClient,
                                      admin: str) -> None:
    assert confidential.secret
    cid, basic = confidential.client.client_id, _basic(confidential.client.client_id,
                                                       confidential.secret)
    verifier, challenge = pkce()
    code = authorize(server.base, confidential, admin, challenge=challenge)
    # As the SDK client sends it: Basic plus client_id in the form.
    first = _post(server, "/token", f"grant_type=authorization_code&code={code}"
                  f"&code_verifier={verifier}&redirect_uri={REDIRECT}&client_id={cid}", basic)
    assert first.status_code == 200, first.text
    # Basic alone (client_id only in the header).
    rotated = _post(server, "/token", "grant_type=refresh_token&refresh_token="
                    f"{first.json()['refresh_token']}", basic)
    assert rotated.status_code == 200, rotated.text
    access = rotated.json()["access_token"]
    assert mcp_status(server.url, access) == 200
    revoked = _post(server, "/revoke", f"token={access}", basic)
    assert revoked.status_code == 200, revoked.text
    assert mcp_status(server.url, access) == 401


def test_wrong_secret_by_basic_is_refused(server: ServerProc, confidential: NewClient) -> None:
    response = _post(server, "/token", "grant_type=refresh_token&refresh_token=bkor_x",
                     _basic(confidential.client.client_id, "bkcs_wrong"))
    assert response.status_code == 401 and response.json()["error"] == "invalid_client"


def test_sdk_client_with_client_secret_basic(server: ServerProc, confidential: NewClient,
                                             admin: str) -> None:
    storage = storage_for(confidential)
    assert storage.client is not None
    storage.client.token_endpoint_auth_method = "client_secret_basic"

    async def body() -> None:
        provider = code_provider(server.url, storage, Consent(admin))
        async with oauth_session(server.url, provider) as s:
            error, out = await call(s, "recall", {"query": "anything"})
            assert not error, out

    run(body)
    assert storage.tokens is not None and storage.tokens.access_token.startswith("bkoa_")


# -- oversize bodies -------------------------------------------------------------


@pytest.mark.parametrize("path", ["/token", "/revoke"])
@pytest.mark.parametrize("chunked", [False, True], ids=["length", "chunked"])
def test_oversize_body_is_413_json(server: ServerProc, public: NewClient, path: str,
                                   chunked: bool) -> None:
    big = f"client_id={public.client.client_id}&pad=" + "x" * (70 * 1024)
    data = big.encode()
    content = iter([data[i:i + 8192] for i in range(0, len(data), 8192)]) if chunked else data
    response = httpx2.post(f"{server.base}{path}", content=content,
                           headers={"Content-Type": FORM})
    assert response.status_code == 413, response.text
    body = response.json()
    assert body["error"] == "invalid_request" and body["error_description"]
    assert "Traceback" not in server.stderr(), server.stderr()
