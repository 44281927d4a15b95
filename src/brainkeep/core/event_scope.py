"""Which audit events a reader may see: the read scope applied to the event log.

The log is brain-wide: one chain records every tenant's writes, tokens and
grants (docs/audit.md). A trusted reader (the local CLI, ``brainkeep ui``)
and a reader bound to no org (an unbound admin administers the whole brain,
as ``core/tenant_fence.operator_covers`` has it) see all of it. A reader
bound to an org sees only the events that belong to that org, by what the
event names:

* memory events (``memory.*``): the payload's ``org_id``; events older than
  that field, and ``topic.consolidate`` (its subject is the topic memory):
  the memory row's org;
* ``acl.grant`` / ``acl.revoke``: the org of the memory granted (``memory_id``);
* ``token.*`` and ``oauth.*``: the payload's ``org_id``, else the token's or
  client's row;
* ``page.*``: pages belong to no org (every tenant reads them), so the event
  is seen when the page is not private (private pages are the trusted
  reader's only, as everywhere else);
* ``chain.checkpoint``: a signed head hash, no tenant's data: seen by all.

Anything else (delegations and checkpoints, which are per agent; subject
erasures; legacy recall batches), and any event whose row is gone, cannot be
attributed to one org and is hidden from org-bound readers: a reader sees
too little rather than another tenant's names, slugs or reasons.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from brainkeep.core.models import Event
from brainkeep.core.ports.composites import EventSubjectRows
from brainkeep.core.scope import ReadScope
from brainkeep.core.tenant_fence import operator_covers


@dataclass(frozen=True)
class Owner:
    """Whom an event (or a usage line) is about, as far as the read scope cares.

    Attributes:
        known: False when no single org can be named (hidden from org-bound readers).
        org_id: The org it belongs to, when ``known`` (None: the tenant without an org).
        everyone: Brain-wide and no tenant's data (seen by every reader of the log).
    """

    known: bool
    org_id: str | None = None
    everyone: bool = False

    def covered_by(self, org_id: str | None) -> bool:
        """Whether a reader bound to ``org_id`` (None: unbound) may see it."""
        if self.everyone or org_id is None:
            return True
        return self.known and operator_covers(org_id, self.org_id)


EVERYONE = Owner(known=True, everyone=True)
NOBODY = Owner(known=False)


def tenant(org_id: str | None) -> Owner:
    return Owner(known=True, org_id=org_id)


def log_visible(scope: ReadScope) -> bool:
    """Whether ``scope`` sees the whole log with no lookups (trusted or unbound)."""
    return scope.trusted or scope.org_id is None


class EventSubjects:
    """The rows events name, looked up once each (an audit page asks about the same rows)."""

    def __init__(self, store: EventSubjectRows) -> None:
        self.store = store
        self._memories: dict[str, Owner] = {}
        self._rows: dict[tuple[str, str], Owner] = {}

    def memory(self, uuid: object) -> Owner:
        if not isinstance(uuid, str) or not uuid:
            return NOBODY
        if uuid not in self._memories:
            row = self.store.get_memory_by_uuid(uuid)
            self._memories[uuid] = NOBODY if row is None else tenant(row.org_id)
        return self._memories[uuid]

    def token(self, token_id: str) -> Owner:
        key = ("token", token_id)
        if key not in self._rows:
            row = self.store.get_token(token_id)
            self._rows[key] = NOBODY if row is None else tenant(row.org_id)
        return self._rows[key]

    def oauth_client(self, client_id: str) -> Owner:
        key = ("oauth_client", client_id)
        if key not in self._rows:
            row = self.store.get_oauth_client(client_id)
            self._rows[key] = NOBODY if row is None else tenant(row.org_id)
        return self._rows[key]

    def page(self, source_id: str, slug: object) -> Owner:
        if not isinstance(slug, str) or not slug:
            return NOBODY
        key = (f"page:{source_id}", slug)
        if key not in self._rows:
            row = self.store.get_page(source_id, slug, include_deleted=True)
            self._rows[key] = NOBODY if row is None or row.is_private else EVERYONE
        return self._rows[key]


def _payload_org(payload: dict[str, Any]) -> Owner | None:
    """The payload's own ``org_id`` (None: the payload does not say)."""
    if "org_id" not in payload:
        return None
    org = payload["org_id"]
    return tenant(org) if org is None or isinstance(org, str) else NOBODY


def event_owner(event: Event, subjects: EventSubjects) -> Owner:
    """Whom ``event`` is about (see the module doc for each kind)."""
    kind, payload = event.subject_type, event.payload
    if kind == "memory":
        return _payload_org(payload) or subjects.memory(event.subject_id)
    if kind == "topic":
        return subjects.memory(event.subject_id)
    if kind == "acl":
        return subjects.memory(payload.get("memory_id"))
    if kind == "token":
        return _payload_org(payload) or subjects.token(event.subject_id)
    if kind == "oauth_client":
        return _payload_org(payload) or subjects.oauth_client(event.subject_id)
    if kind == "page":
        return subjects.page(event.source_id, payload.get("slug"))
    if kind == "chain":
        return EVERYONE
    return NOBODY


def event_visible(event: Event, scope: ReadScope, subjects: EventSubjects) -> bool:
    """Whether a reader with ``scope`` may see ``event`` on an audit page."""
    if log_visible(scope):
        return True
    return event_owner(event, subjects).covered_by(scope.org_id)
