"""Helpers for the OAuth tests: clients in a brain, the consent form, SDK OAuth sessions.

The consent step is answered the way a person would: the test follows the
authorization redirect to brainkeep's consent page and posts its form.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.oauth.service import NewClient, OAuthService

REDIRECT = "http://127.0.0.1:8976/callback"


def add_client(home: Path, name: str, **kwargs: Any) -> NewClient:
    """Register a client in ``home`` as `brainkeep oauth clients add` would."""
    brain = open_brain(load_settings(home, env={}))
    try:
        return OAuthService(brain.store, brain.clock).add_client(name, **kwargs)
    finally:
        brain.close()


@dataclass
class MemoryStorage(TokenStorage):
    """The SDK client's token storage, in memory (one client per test)."""

    client: OAuthClientInformationFull | None = None
    tokens: OAuthToken | None = None
    seen: list[OAuthToken] = field(default_factory=list)

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.seen.append(tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def storage_for(created: NewClient) -> MemoryStorage:
    """Storage pre-loaded with a pre-registered client's credentials."""
    client = created.client
    return MemoryStorage(OAuthClientInformationFull(
        client_id=client.client_id, client_secret=created.secret,
        redirect_uris=[AnyUrl(u) for u in client.redirect_uris] or None,
        grant_types=list(client.grant_types), scope=" ".join(client.scopes),
        token_endpoint_auth_method="client_secret_post" if created.secret else "none"))


class Consent:
    """Answers the consent page over real HTTP; remembers where it was sent."""

    def __init__(self, login: str, decision: str = "approve") -> None:
        self.login = login
        self.decision = decision
        self.result: AuthorizationCodeResult | None = None
        self.pages: list[str] = []
        self.refused: str | None = None

    async def redirect(self, authorization_url: str) -> None:
        async with httpx2.AsyncClient(timeout=30) as http:
            hop = await http.get(authorization_url)
            assert hop.status_code == 302, hop.text
            assert "/oauth/consent?" in hop.headers["location"], hop.headers["location"]
            page = await http.get(hop.headers["location"])
            assert page.status_code == 200, page.text
            self.pages.append(page.text)
            ticket = re.search(r'name="request" value="([^"]+)"', page.text)
            assert ticket, page.text
            consent_url = str(page.url).split("?", 1)[0]
            answer = await http.post(consent_url, data={
                "request": ticket.group(1), "login": self.login, "decision": self.decision})
        if answer.status_code != 302:
            self.refused = answer.text
        assert answer.status_code == 302, answer.text
        query = parse_qs(urlparse(answer.headers["location"]).query)
        assert "code" in query, query
        self.result = AuthorizationCodeResult(code=query["code"][0],
                                              state=query.get("state", [None])[0],
                                              iss=query.get("iss", [None])[0])

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None
        return self.result


def code_provider(url: str, storage: MemoryStorage, consent: Consent) -> OAuthClientProvider:
    metadata = OAuthClientMetadata(redirect_uris=[AnyUrl(REDIRECT)], client_name="sdk-test",
                                   scope="read write")
    return OAuthClientProvider(url, metadata, storage, consent.redirect, consent.callback)


def machine_provider(url: str, created: NewClient, scope: str | None = None
                     ) -> ClientCredentialsOAuthProvider:
    assert created.secret
    return ClientCredentialsOAuthProvider(url, MemoryStorage(), created.client.client_id,
                                          created.secret, scope=scope,
                                          issuer=url.rsplit("/mcp", 1)[0])


@asynccontextmanager
async def oauth_session(url: str, auth: httpx2.Auth) -> AsyncIterator[ClientSession]:
    """An initialized official-SDK session whose HTTP client runs the OAuth flow."""
    async with httpx2.AsyncClient(auth=auth, timeout=httpx2.Timeout(60.0)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


def pkce() -> tuple[str, str]:
    """(verifier, S256 challenge)."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).decode().rstrip("=")


def authorize(base: str, created: NewClient, login: str, *, challenge: str,
              redirect_uri: str = REDIRECT, resource: str | None = None) -> str:
    """Drive /authorize and the consent form by hand; returns the authorization code."""
    params = {"response_type": "code", "client_id": created.client.client_id,
              "redirect_uri": redirect_uri, "code_challenge": challenge,
              "code_challenge_method": "S256", "state": "s1",
              "resource": resource or f"{base}/mcp"}
    hop = httpx2.get(f"{base}/authorize", params=params)
    assert hop.status_code == 302, hop.text
    page = httpx2.get(hop.headers["location"])
    ticket = re.search(r'name="request" value="([^"]+)"', page.text)
    assert ticket, page.text
    answer = httpx2.post(f"{base}/oauth/consent", data={
        "request": ticket.group(1), "login": login, "decision": "approve"})
    assert answer.status_code == 302, answer.text
    return parse_qs(urlparse(answer.headers["location"]).query)["code"][0]


def token_request(base: str, created: NewClient, **form: str) -> httpx2.Response:
    """POST /token as the client (client_secret_post when it has a secret)."""
    data = {"client_id": created.client.client_id, **form}
    if created.secret:
        data["client_secret"] = created.secret
    return httpx2.post(f"{base}/token", data=data)


def mcp_status(url: str, access_token: str) -> int:
    """HTTP status of a tools/list with this access token."""
    return httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                       headers={"Authorization": f"Bearer {access_token}",
                                "Accept": "application/json, text/event-stream"}).status_code
