"""Token auth: every method (Mnemo, health, reflection) needs the bearer token."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from brainkeep.brain import Brain
from brainkeep.grpc.auth import BearerTokenInterceptor
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.grpc.server import start_grpc_server

TOKEN = "correct horse battery staple"


@pytest.fixture
def secured(brain: Brain) -> Iterator[grpc.Channel]:
    handle = start_grpc_server(brain, port=0, token=TOKEN)
    with grpc.insecure_channel(f"127.0.0.1:{handle.port}") as channel:
        yield channel
    handle.stop(1.0)


def _mnemo_health(channel: grpc.Channel, md: Any) -> Any:
    return pb_grpc.MnemoServiceStub(channel).Health(pb.HealthRequest(), metadata=md)


def _remember(channel: grpc.Channel, md: Any) -> Any:
    return pb_grpc.MnemoServiceStub(channel).Remember(
        pb.RememberRequest(content="auth test", agent_id="a"), metadata=md)


def _std_health(channel: grpc.Channel, md: Any) -> Any:
    return health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), metadata=md)


def _std_watch(channel: grpc.Channel, md: Any) -> Any:
    stream = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(),
                                                       metadata=md, timeout=5)
    first = next(stream)
    stream.cancel()
    return first


def _reflection(channel: grpc.Channel, md: Any) -> Any:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    return next(stub.ServerReflectionInfo(iter([request]), metadata=md, timeout=5))


CALLS: dict[str, Callable[[grpc.Channel, Any], Any]] = {
    "mnemo-health": _mnemo_health,
    "remember": _remember,
    "grpc-health-check": _std_health,
    "grpc-health-watch": _std_watch,
    "reflection": _reflection,
}
CREDENTIALS = {
    "none": None,
    "wrong": (("authorization", "Bearer not-the-token"),),
    "prefix": (("authorization", f"Bearer {TOKEN[:-1]}"),),
    "no-scheme": (("authorization", TOKEN),),
    "basic": (("authorization", f"Basic {TOKEN}"),),
    "right": (("authorization", f"Bearer {TOKEN}"),),
}


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("credential", sorted(CREDENTIALS))
def test_auth_matrix(secured: grpc.Channel, call: str, credential: str) -> None:
    invoke = CALLS[call]
    if credential == "right":
        assert invoke(secured, CREDENTIALS[credential]) is not None
        return
    with pytest.raises(grpc.RpcError) as info:
        invoke(secured, CREDENTIALS[credential])
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "Bearer" in info.value.details()


def test_unauthenticated_write_is_not_stored(secured: grpc.Channel, brain: Brain) -> None:
    with pytest.raises(grpc.RpcError):
        _remember(secured, None)
    assert brain.store.counts()["memories"] == 0
    _remember(secured, CREDENTIALS["right"])
    assert brain.store.counts()["memories"] == 1


def test_no_token_means_open(stub) -> None:
    assert stub.Health(pb.HealthRequest()).status == "ok"


def test_empty_token_is_refused() -> None:
    with pytest.raises(ValueError):
        BearerTokenInterceptor("")
