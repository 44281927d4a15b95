"""Every request message of ``mnemo.v1.MnemoService``, fuzzed against a real gRPC server.

Messages are generated from the protobuf descriptors (tests/fuzz/proto_strategies.py)
and sent through the generated stubs to a server on port 0 over a real SQLite
brain. Each call must answer OK or a documented status (INVALID_ARGUMENT,
NOT_FOUND, PERMISSION_DENIED, UNAVAILABLE) within its deadline, never
INTERNAL or UNKNOWN, with no traceback or exception text in the details; the
brain must verify (``verify_brain`` and the Verify RPC) after each run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.text_format import MessageToString
from hypothesis import given

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.verify import verify_brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.grpc.server import GrpcServerHandle, start_grpc_server
from tests.fuzz.hostile import HOSTILE_STRINGS
from tests.fuzz.proto_strategies import (
    JSON_FIELDS,
    JSON_VALUES,
    METHODS,
    _encodable,
    message_strategy,
)
from tests.fuzz.support import CALL_TIMEOUT_S, fuzz_settings, leaked_markers

DOCUMENTED = frozenset({
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.UNAVAILABLE,
})


@pytest.fixture(scope="module")
def fuzz_brain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Brain]:
    home: Path = tmp_path_factory.mktemp("fuzz-grpc") / "brain"
    brain = open_brain(load_settings(home, env={}))
    try:
        yield brain
    finally:
        brain.mnemo.flush_reads()  # buffered recall stats, before the store closes
        brain.close()


@pytest.fixture(scope="module")
def server(fuzz_brain: Brain) -> Iterator[GrpcServerHandle]:
    handle = start_grpc_server(fuzz_brain, port=0)
    yield handle
    handle.stop(grace=1.0)


@pytest.fixture(scope="module")
def stub(server: GrpcServerHandle) -> Iterator[pb_grpc.MnemoServiceStub]:
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        yield pb_grpc.MnemoServiceStub(channel)


@pytest.fixture(scope="module")
def known_ids(stub: pb_grpc.MnemoServiceStub) -> tuple[str, ...]:
    """Memories, a checkpoint and a grant that exist, so ids in requests sometimes hit."""
    ids = []
    for content, scope in (("Alice likes tea", "private"), ("Team lunch is Friday", "public"),
                           ("Deploy key rotates monthly", "shared")):
        reply = stub.Remember(pb.RememberRequest(content=content, agent_id="alice", scope=scope,
                                                 thread_id="t1", tags=["fuzz"]))
        ids.append(reply.id)
    checkpoint = stub.Checkpoint(pb.CheckpointRequest(thread_id="t1", agent_id="alice",
                                                      state_snapshot='{"step": 1}'))
    ids.append(checkpoint.checkpoint_id)
    share = stub.Share(pb.ShareRequest(memory_id=ids[2], target_agent_id="bob", agent_id="alice"))
    ids.append(share.acl_id)
    return (*ids, "00000000-0000-7000-8000-000000000000", "not-a-uuid", "1", str(10**30))


def describe(request: Message) -> str:
    text = MessageToString(request, as_one_line=True)
    return text if len(text) <= 400 else f"{text[:400]}… ({len(text)} chars)"


def call(stub: pb_grpc.MnemoServiceStub, method: str, request: Message) -> tuple[Any, str]:
    """(status code, details) of one call with a deadline."""
    try:
        getattr(stub, method)(request, timeout=CALL_TIMEOUT_S)
    except grpc.RpcError as exc:
        return exc.code(), exc.details() or ""
    return grpc.StatusCode.OK, ""


def assert_verifies(brain: Brain, stub: pb_grpc.MnemoServiceStub, after: str) -> None:
    report = verify_brain(brain.store)
    assert report.valid, f"verify failed after fuzzing {after}: {report.first_broken}"
    reply = stub.Verify(pb.VerifyRequest(), timeout=CALL_TIMEOUT_S)
    assert reply.valid, (after, reply.first_broken_at, reply.error_message)


@pytest.mark.parametrize("method", [m.name for m in METHODS])
def test_every_rpc_answers_ok_or_a_documented_status(
    method: str, stub: pb_grpc.MnemoServiceStub, known_ids: tuple[str, ...], fuzz_brain: Brain
) -> None:
    descriptor = pb.DESCRIPTOR.services_by_name["MnemoService"].methods_by_name[method]

    @fuzz_settings(40)
    @given(request=message_strategy(descriptor.input_type, known_ids))
    def fuzz(request: Message) -> None:
        code, details = call(stub, method, request)
        where = f"{method}({describe(request)})"
        assert code != grpc.StatusCode.DEADLINE_EXCEEDED, f"{where}: no answer in time"
        assert code in DOCUMENTED, f"{where}: {code.name} {details[:300]!r}"
        leaks = leaked_markers(details, describe(request))
        assert not leaks, f"{where}: details leak {leaks}: {details[:300]!r}"

    fuzz()
    assert_verifies(fuzz_brain, stub, method)


def baseline(method: str, ids: tuple[str, ...]) -> dict[str, Any]:
    """A plausible request per RPC, so one hostile field is the only thing wrong."""
    memory, checkpoint = ids[0], ids[3]
    requests: dict[str, dict[str, Any]] = {
        "Remember": {"content": "x", "agent_id": "alice"},
        "Recall": {"query": "tea", "agent_id": "alice"},
        "Forget": {"memory_ids": [memory], "agent_id": "alice"},
        "Share": {"memory_id": memory, "target_agent_id": "bob", "agent_id": "alice"},
        "Checkpoint": {"thread_id": "t1", "agent_id": "alice", "state_snapshot": "{}"},
        "Consolidate": {"memory_ids": [memory], "topic_name": "t", "agent_id": "alice"},
        "Branch": {"thread_id": "t1", "agent_id": "alice", "new_branch_name": "f",
                   "source_checkpoint_id": checkpoint},
        "Merge": {"thread_id": "t1", "agent_id": "alice", "source_branch": "f"},
        "Replay": {"thread_id": "t1", "agent_id": "alice"},
        "Delegate": {"delegator_id": "alice", "delegate_id": "bob", "permission": "read",
                     "memory_ids": [memory]},
        "TrajectoryAudit": {"agent_id": "alice"},
        "ForgetSubject": {"subject_id": "nobody-here", "agent_id": "alice"},
    }
    return requests.get(method, {})


@pytest.mark.parametrize("method", [m.name for m in METHODS])
def test_every_hostile_string_in_every_field(
    method: str, stub: pb_grpc.MnemoServiceStub, known_ids: tuple[str, ...], fuzz_brain: Brain
) -> None:
    """A deterministic sweep: each hostile string (and JSON value) in each string field."""
    descriptor = pb.DESCRIPTOR.services_by_name["MnemoService"].methods_by_name[method]
    cls = getattr(pb, descriptor.input_type.name)
    failures: list[str] = []
    for field in descriptor.input_type.fields:
        if field.type != FieldDescriptor.TYPE_STRING:
            continue
        values = [s for s in HOSTILE_STRINGS if _encodable(s)]
        if field.name in JSON_FIELDS:
            values += JSON_VALUES
        for value in values:
            fields = {**baseline(method, known_ids), field.name: [value] if field.is_repeated
                      else value}
            request = cls(**fields)
            code, details = call(stub, method, request)
            if code not in DOCUMENTED or leaked_markers(details, describe(request)):
                failures.append(f"{method}({describe(request)[:200]}): {code.name} "
                                f"{details[:200]!r}")
    assert not failures, f"{len(failures)} failing inputs:\n" + "\n".join(failures)
    assert_verifies(fuzz_brain, stub, method)
