"""core/event_scope and ops/usage_scope: which audit events and usage lines a reader
sees, on real brains of both engines.

The console pages are the surface (test_console_tenancy.py); this pins the
rule per event kind, including the lookups (a token revoke names no org, a
legacy memory event neither, a page belongs to no org) and what cannot be
attributed at all.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest

from brainkeep.brain import Brain
from brainkeep.core.context import LOCAL
from brainkeep.core.event_scope import EventSubjects, event_visible
from brainkeep.core.models import Event
from brainkeep.core.scope import ReadScope
from brainkeep.core.tokens import TokenService
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from brainkeep.ops.usage_scope import RELOAD_S, UsageScope
from tests.brain_engines import ENGINES

ORG_A = ReadScope(org_id="org-a")
ORG_B = ReadScope(org_id="org-b")


@pytest.fixture(params=ENGINES)
def brain_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def call(brain: Brain, name: str, params: dict[str, Any], org: str | None = None) -> Any:
    outcome = Dispatcher(build_catalog(), brain).call(name, params, replace(LOCAL, org_id=org))
    assert not outcome.is_error, outcome.payload
    return outcome.payload


def seen(brain: Brain, scope: ReadScope) -> list[tuple[str, str]]:
    subjects = EventSubjects(brain.store)
    return [(e.kind, _label(e)) for e in brain.store.iter_events()
            if event_visible(e, scope, subjects)]


def _label(event: Event) -> str:
    payload = event.payload
    return str(payload.get("name") or payload.get("slug") or payload.get("reason")
               or payload.get("org_id"))


def synthetic(kind: str, subject_type: str, subject_id: str, **payload: Any) -> Event:
    return Event(seq=0, ts="2026-01-01T00:00:00Z", source_id="default", kind=kind,
                 subject_type=subject_type, subject_id=subject_id, actor="x",
                 payload=payload, prev_hash="0" * 64, hash="0" * 64)


def test_each_org_sees_its_own_events_and_unbound_readers_all(brain: Brain) -> None:
    tokens = TokenService(brain.store, brain.clock)
    tokens.create("tok-a", "read", org_id="org-a")
    tokens.create("tok-b", "read", org_id="org-b")
    tokens.revoke("tok-b")  # token.revoke carries only the name: its org comes from the row
    a = call(brain, "remember", {"fact": "A fact", "provenance": "t"}, "org-a")["id"]
    b = call(brain, "remember", {"fact": "B fact", "provenance": "t"}, "org-b")["id"]
    call(brain, "forget", {"id": a, "reason": "reason-a"}, "org-a")
    call(brain, "forget", {"id": b, "reason": "reason-b"}, "org-b")
    call(brain, "put_page", {"slug": "notes/open", "content": "# Open\n"})
    call(brain, "put_page", {"slug": "notes/hidden",
                             "content": "---\nvisibility: private\n---\n# Hidden\n"})

    org_a = seen(brain, ORG_A)
    assert ("token.create", "tok-a") in org_a and ("memory.expire", "reason-a") in org_a
    assert ("page.put", "notes/open") in org_a  # pages belong to every tenant
    for hidden in (("token.create", "tok-b"), ("token.revoke", "tok-b"),
                   ("memory.expire", "reason-b"), ("page.put", "notes/hidden")):
        assert hidden not in org_a, hidden
    assert not [label for _kind, label in org_a if label.endswith("-b") or label == "org-b"]

    org_b = seen(brain, ORG_B)
    assert ("token.revoke", "tok-b") in org_b and ("memory.expire", "reason-b") in org_b
    assert ("memory.expire", "reason-a") not in org_b

    everything = [(e.kind, _label(e)) for e in brain.store.iter_events()]
    assert seen(brain, ReadScope(org_id=None)) == everything  # an unbound admin
    assert seen(brain, ReadScope(org_id="org-a", trusted=True)) == everything  # ui, CLI


def test_events_without_an_org_are_looked_up_or_hidden(brain: Brain) -> None:
    fact = call(brain, "remember", {"fact": "A fact", "provenance": "t"}, "org-a")["id"]
    memory = brain.store.get_memory(int(fact))
    assert memory is not None
    subjects = EventSubjects(brain.store)
    # A memory event written before payloads carried org_id: the row says.
    legacy = synthetic("memory.expire", "memory", memory.uuid, id=memory.id, reason="old")
    assert event_visible(legacy, ORG_A, subjects)
    assert not event_visible(legacy, ORG_B, subjects)
    grant = synthetic("acl.grant", "acl", "acl-1", memory_id=memory.uuid, grantee="bob")
    assert event_visible(grant, ORG_A, subjects) and not event_visible(grant, ORG_B, subjects)
    # Per-agent grants and erasures name no org: org-bound readers do not see them.
    for event in (synthetic("delegation.create", "delegation", "d-1", owner="ann"),
                  synthetic("subject.erase", "subject", "ab12", matched=3),
                  synthetic("memory.expire", "memory", "no-such-uuid", reason="gone")):
        assert not event_visible(event, ORG_A, subjects), event.kind
        assert event_visible(event, ReadScope(org_id=None), subjects), event.kind
    # A signed chain head holds no tenant's data.
    head = synthetic("chain.checkpoint", "chain", "7", seq=7, hash="f" * 64)
    assert event_visible(head, ORG_A, subjects) and event_visible(head, ORG_B, subjects)


def test_usage_lines_belong_to_their_token_org(brain: Brain) -> None:
    tokens = TokenService(brain.store, brain.clock)
    tokens.create("tok-a", "read", org_id="org-a")
    tokens.create("shared-name", "read", org_id="org-a")
    tokens.revoke("shared-name")
    tokens.create("shared-name", "read", org_id="org-b")  # a name reused across orgs
    org_a = UsageScope(brain.store, ORG_A)
    assert org_a.visible({"verb": "recall", "token_name": "tok-a"})
    assert not org_a.visible({"verb": "recall", "token_name": "shared-name"})
    assert not UsageScope(brain.store, ORG_B).visible({"verb": "recall",
                                                        "token_name": "shared-name"})
    assert not org_a.visible({"verb": "recall", "transport": "cli"})  # no token: no org
    assert not org_a.visible({"verb": "recall", "token_name": "oauth:unknown-client"})
    tokens.create("made-later", "read", org_id="org-a")  # the map reloads for a new name
    time.sleep(RELOAD_S)
    assert org_a.visible({"verb": "recall", "token_name": "made-later"})
    assert UsageScope(brain.store, ReadScope(org_id=None)).visible({"verb": "x"})
