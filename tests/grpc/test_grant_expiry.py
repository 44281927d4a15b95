"""Visibility follows the live grants (issue 10, item 7).

An expired Share must not leave the memory shared for a later Delegate by
tags, and revoking an ACL or a delegation (CLI, MCP admin op) hides what it
granted from the grantee's next call, with an audit event.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import grpc
import pytest
from click.testing import CliRunner, Result

from brainkeep.brain import Brain
from brainkeep.cli.main import cli
from brainkeep.core.context import STDIO
from brainkeep.core.memory import access
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from tests.grpc.support import assert_brain_valid, recall_ids, remember, rpc_error

ONE_SECOND = 1 / 3600  # expires_in_hours


def share(stub: Any, mid: str, target: str, **fields: Any) -> str:
    reply = stub.Share(pb.ShareRequest(memory_id=mid, target_agent_id=target, agent_id="alice",
                                       **fields))
    return str(reply.acl_id)


def delegate_tags(stub: Any, delegate: str, tags: list[str], permission: str = "admin") -> str:
    return str(stub.Delegate(pb.DelegateRequest(
        delegator_id="alice", delegate_id=delegate, permission=permission, tags=tags,
    )).delegation_id)


def reads_by_id(brain: Brain, mid: str, agent: str) -> bool:
    """The by-id rule (core/memory/access.py) every by-id RPC applies."""
    ctx = brain.mnemo.ctx
    memory = brain.store.get_memory_by_uuid(mid)
    assert memory is not None
    return access.can_read(ctx, memory, agent, ctx.clock.now_ts())


def cli_json(brain: Brain, *args: str) -> tuple[int, Any]:
    """``brainkeep --home HOME ARGS --json``: exit code and the parsed stdout."""
    result: Result = CliRunner().invoke(
        cli, ["--home", str(brain.settings.home), *args, "--json"])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else None


def kinds(brain: Brain, *wanted: str) -> list[str]:
    return [e.kind for e in brain.store.iter_events() if e.kind in wanted]


# -- expiry ------------------------------------------------------------------------


def test_an_expired_share_is_private_again_for_a_later_delegation(stub, brain, clock) -> None:
    mid = remember(stub, "okapi budget", tags=["proj"])  # private
    share(stub, mid, "bob", expires_in_hours=ONE_SECOND)
    assert recall_ids(stub, "okapi", agent_id="bob") == [mid]
    clock.advance(seconds=2)
    delegate_tags(stub, "carol", ["proj"])
    assert recall_ids(stub, "okapi", agent_id="carol") == []
    assert recall_ids(stub, "okapi", agent_id="bob") == []
    assert not reads_by_id(brain, mid, "carol")
    # By-id RPCs answer not found, never "it exists but...": admin via tags is no help.
    denied = rpc_error(stub.Share, pb.ShareRequest(memory_id=mid, target_agent_id="dave",
                                                   agent_id="carol"))
    assert denied.code() == grpc.StatusCode.NOT_FOUND
    forgot = stub.Forget(pb.ForgetRequest(memory_ids=[mid], agent_id="carol"))
    assert list(forgot.forgotten) == [] and [e.id for e in forgot.errors] == [mid]
    assert brain.store.get_memory_by_uuid(mid).deleted_at is None
    # The owner's view is unchanged.
    assert recall_ids(stub, "okapi", agent_id="alice") == [mid]
    assert reads_by_id(brain, mid, "alice")
    assert_brain_valid(brain, stub)


def test_sharing_again_makes_it_shared_again(stub, brain, clock) -> None:
    mid = remember(stub, "tapir roadmap", tags=["proj"])
    share(stub, mid, "bob", expires_in_hours=ONE_SECOND)
    delegate_tags(stub, "carol", ["proj"], permission="read")
    assert recall_ids(stub, "tapir", agent_id="carol") == [mid]  # while the share lives
    clock.advance(seconds=2)
    assert recall_ids(stub, "tapir", agent_id="carol") == []
    share(stub, mid, "bob")
    assert recall_ids(stub, "tapir", agent_id="carol") == [mid]
    assert reads_by_id(brain, mid, "carol")


def test_a_memory_written_shared_keeps_todays_rule(stub, brain, clock) -> None:
    mid = remember(stub, "ibis minutes", scope="shared", tags=["proj"])
    share(stub, mid, "bob", expires_in_hours=ONE_SECOND)
    clock.advance(seconds=2)
    delegate_tags(stub, "carol", ["proj"], permission="read")
    assert recall_ids(stub, "ibis", agent_id="carol") == [mid]
    assert reads_by_id(brain, mid, "carol")
    assert recall_ids(stub, "ibis", agent_id="bob") == []  # bob's own ACL did expire


# -- revocation ------------------------------------------------------------------------


def test_cli_share_revoke_hides_the_memory_at_once(stub, brain) -> None:
    mid = remember(stub, "quokka salary", tags=["hr"])
    acl_id = share(stub, mid, "bob")
    delegate_tags(stub, "carol", ["hr"], permission="read")
    assert recall_ids(stub, "quokka", agent_id="bob") == [mid]
    assert recall_ids(stub, "quokka", agent_id="carol") == [mid]
    code, listed = cli_json(brain, "share", "list")
    assert code == 0 and [a["id"] for a in listed] == [acl_id]
    assert (listed[0]["memory_id"], listed[0]["grantee"], listed[0]["status"]) == (
        mid, "bob", "active")
    code, done = cli_json(brain, "share", "revoke", acl_id)
    assert code == 0 and done == {"kind": "acl", "id": acl_id, "status": "revoked",
                                  "revoked": [acl_id], "revoked_at": done["revoked_at"]}
    # The very next calls: bob's ACL is gone, and with the last ACL the share is over.
    assert recall_ids(stub, "quokka", agent_id="bob") == []
    assert recall_ids(stub, "quokka", agent_id="carol") == []
    assert not reads_by_id(brain, mid, "bob") and not reads_by_id(brain, mid, "carol")
    assert kinds(brain, "acl.grant", "acl.revoke") == ["acl.grant", "acl.revoke"]
    revoke_event = [e for e in brain.store.iter_events() if e.kind == "acl.revoke"][0]
    assert revoke_event.subject_id == acl_id and revoke_event.actor == "local"
    assert revoke_event.payload["memory_id"] == mid and revoke_event.payload["grantee"] == "bob"
    assert cli_json(brain, "share", "list") == (0, [])
    # Revoking twice: the grant is gone (exit 3, not_found); a bad id is exit 2.
    assert cli_json(brain, "share", "revoke", acl_id)[0] == 3
    assert cli_json(brain, "share", "revoke", "not-a-uuid")[0] == 2
    assert_brain_valid(brain, stub)


def test_revoking_one_of_two_acls_keeps_the_share(stub, brain) -> None:
    mid = remember(stub, "hyrax plan", tags=["proj"])
    first, _second = share(stub, mid, "bob"), share(stub, mid, "dave")
    delegate_tags(stub, "carol", ["proj"], permission="read")
    assert cli_json(brain, "share", "revoke", first)[0] == 0
    assert recall_ids(stub, "hyrax", agent_id="bob") == []
    assert recall_ids(stub, "hyrax", agent_id="dave") == [mid]
    assert recall_ids(stub, "hyrax", agent_id="carol") == [mid]  # dave's ACL still lives


def test_cli_delegation_revoke_takes_the_redelegations(stub, brain) -> None:
    mid = remember(stub, "tapir ledger", scope="shared", tags=["fin"])
    parent = str(stub.Delegate(pb.DelegateRequest(
        delegator_id="alice", delegate_id="bob", permission="read", max_depth=2)).delegation_id)
    child = str(stub.Delegate(pb.DelegateRequest(
        delegator_id="bob", delegate_id="carol", permission="read", memory_ids=[mid],
    )).delegation_id)
    assert recall_ids(stub, "tapir", agent_id="carol") == [mid]
    code, listed = cli_json(brain, "delegation", "list")
    assert code == 0 and {d["id"]: d["parent_id"] for d in listed} == {
        parent: None, child: parent}
    code, done = cli_json(brain, "delegation", "revoke", parent)
    assert code == 0 and done["revoked"] == [parent, child]
    assert recall_ids(stub, "tapir", agent_id="bob") == []
    assert recall_ids(stub, "tapir", agent_id="carol") == []
    revokes = [e for e in brain.store.iter_events() if e.kind == "delegation.revoke"]
    assert [(e.subject_id, e.payload["cascaded_from"]) for e in revokes] == [
        (parent, None), (child, parent)]
    assert cli_json(brain, "delegation", "list") == (0, [])
    assert_brain_valid(brain, stub)


def test_mcp_revoke_grant_is_an_admin_op_on_the_full_surface(stub, brain) -> None:
    mid = remember(stub, "okapi contract", scope="shared", tags=["legal"])
    acl_id = share(stub, mid, "bob")
    delegation_id = delegate_tags(stub, "carol", ["legal"], permission="read")
    full = Dispatcher(build_catalog(), brain, surface="full")
    reader = replace(STDIO, scopes=frozenset({"read", "write"}))
    denied = full.call("revoke_grant", {"kind": "acl", "id": acl_id}, reader)
    assert denied.is_error and denied.payload["error"] == "scope_denied"
    verbs = Dispatcher(build_catalog(), brain, surface="verbs")
    hidden = verbs.call("revoke_grant", {"kind": "acl", "id": acl_id}, STDIO)
    assert hidden.payload["error"] == "unknown_tool"
    assert recall_ids(stub, "okapi", agent_id="bob") == [mid]

    bad = full.call("revoke_grant", {"kind": "token", "id": acl_id}, STDIO)
    assert bad.is_error and bad.payload["error"] == "invalid_params"
    outcome = full.call("revoke_grant", {"kind": "acl", "id": acl_id}, STDIO)
    assert not outcome.is_error and outcome.payload["revoked"] == [acl_id]
    assert recall_ids(stub, "okapi", agent_id="bob") == []
    assert recall_ids(stub, "okapi", agent_id="carol") == [mid]  # written shared: delegation
    outcome = full.call("revoke_grant", {"kind": "delegation", "id": delegation_id}, STDIO)
    assert not outcome.is_error and outcome.payload["revoked"] == [delegation_id]
    assert recall_ids(stub, "okapi", agent_id="carol") == []
    again = full.call("revoke_grant", {"kind": "delegation", "id": delegation_id}, STDIO)
    assert again.payload["error"] == "not_found"
    revokes = [e for e in brain.store.iter_events() if e.kind.endswith(".revoke")]
    assert [(e.kind, e.actor) for e in revokes] == [
        ("acl.revoke", STDIO.client_id), ("delegation.revoke", STDIO.client_id)]
    assert_brain_valid(brain, stub)


def test_a_tenant_admin_cannot_revoke_another_tenants_acl(stub, brain) -> None:
    mid = remember(stub, "acme secret", org_id="acme")
    acl_id = share(stub, mid, "bob")
    full = Dispatcher(build_catalog(), brain, surface="full")
    other = replace(STDIO, org_id="globex")
    assert full.call("revoke_grant", {"kind": "acl", "id": acl_id}, other).payload[
        "error"] == "not_found"
    assert [a.id for a in brain.store.list_acls()] == [acl_id]


@pytest.mark.parametrize("group", ["share", "delegation"])
def test_grant_commands_have_help(group: str) -> None:
    for sub in ("list", "revoke"):
        result = CliRunner().invoke(cli, [group, sub, "--help"])
        assert result.exit_code == 0 and "--json" in result.output
