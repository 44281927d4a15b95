"""Helpers shared by the gRPC tests (fixtures live in conftest.py)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from brainkeep.brain import Brain
from brainkeep.core.verify import verify_brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc


def remember(stub: pb_grpc.MnemoServiceStub, content: str, **fields: Any) -> str:
    """Remember and return the new memory id."""
    fields.setdefault("agent_id", "alice")
    return str(stub.Remember(pb.RememberRequest(content=content, **fields)).id)


def recall_ids(stub: pb_grpc.MnemoServiceStub, query: str, **fields: Any) -> list[str]:
    return [m.id for m in stub.Recall(pb.RecallRequest(query=query, **fields)).memories]


def rpc_error(call: Any, *args: Any, **kwargs: Any) -> grpc.RpcError:
    """The RpcError a call raises (the test fails if it succeeds)."""
    with pytest.raises(grpc.RpcError) as info:
        call(*args, **kwargs)
    return info.value


def assert_brain_valid(brain: Brain, stub: pb_grpc.MnemoServiceStub) -> None:
    """`brainkeep verify` and the Verify RPC both accept the brain."""
    report = verify_brain(brain.store)
    assert report.valid, report.first_broken
    reply = stub.Verify(pb.VerifyRequest())
    assert reply.valid, (reply.first_broken_at, reply.error_message)
    assert reply.verified_records == reply.total_records
