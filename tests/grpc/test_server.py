"""The server itself: health, reflection, binding, error edge, codegen, `brainkeep serve`."""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from brainkeep import __version__
from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.errors import (
    BrainkeepError,
    InvalidInput,
    NotFound,
    PermissionDenied,
    ProvenanceRequired,
    ScopeDenied,
    StoreError,
    Unavailable,
)
from brainkeep.grpc import codegen
from brainkeep.grpc.errors import INTERNAL_MESSAGE, status_for
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.grpc.server import start_grpc_server
from tests.grpc.support import rpc_error

GENERATED = Path(codegen.__file__).parent / "generated"


def test_mnemo_health(stub) -> None:
    reply = stub.Health(pb.HealthRequest())
    assert (reply.status, reply.version) == ("ok", __version__)


def test_standard_health_service(channel, server) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "mnemo.v1.MnemoService"):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    missing = rpc_error(health.Check, health_pb2.HealthCheckRequest(service="nope"))
    assert missing.code() == grpc.StatusCode.NOT_FOUND


def test_reflection_lists_services(channel) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    reply = next(stub.ServerReflectionInfo(iter([request]), timeout=5))
    names = {s.name for s in reply.list_services_response.service}
    assert {"mnemo.v1.MnemoService", "grpc.health.v1.Health"} <= names
    symbol = reflection_pb2.ServerReflectionRequest(file_containing_symbol="mnemo.v1.MnemoService")
    reply = next(stub.ServerReflectionInfo(iter([symbol]), timeout=5))
    assert reply.file_descriptor_response.file_descriptor_proto


def test_port_in_use_is_unavailable(brain: Brain, server) -> None:
    with pytest.raises(Unavailable) as info:
        start_grpc_server(brain, port=server.port)
    assert str(server.port) in info.value.message


def test_stop_is_graceful(brain: Brain) -> None:
    handle = start_grpc_server(brain, port=0)
    with grpc.insecure_channel(f"127.0.0.1:{handle.port}") as channel:
        pb_grpc.MnemoServiceStub(channel).Health(pb.HealthRequest())
        handle.stop(grace=1.0)
        assert handle.wait(timeout=1.0)
        error = rpc_error(pb_grpc.MnemoServiceStub(channel).Health, pb.HealthRequest(),
                          timeout=2)
        assert error.code() == grpc.StatusCode.UNAVAILABLE


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (InvalidInput("bad"), grpc.StatusCode.INVALID_ARGUMENT),
        (ProvenanceRequired("bad"), grpc.StatusCode.INVALID_ARGUMENT),
        (NotFound("gone"), grpc.StatusCode.NOT_FOUND),
        (PermissionDenied("no"), grpc.StatusCode.PERMISSION_DENIED),
        (ScopeDenied("remember", "write"), grpc.StatusCode.PERMISSION_DENIED),
        (Unavailable("down"), grpc.StatusCode.UNAVAILABLE),
        (StoreError("disk"), grpc.StatusCode.INTERNAL),
        (BrainkeepError("huh"), grpc.StatusCode.INTERNAL),
        (ValueError("secret detail"), grpc.StatusCode.INTERNAL),
    ],
)
def test_every_error_class_has_a_status(error, code) -> None:
    got, message = status_for(error)
    assert got == code
    assert "secret detail" not in message
    if isinstance(error, BrainkeepError):
        assert message.startswith(error.message)


def test_unexpected_errors_are_internal_and_logged(stub, brain: Brain, monkeypatch,
                                                   caplog) -> None:
    def explode(*_args, **_kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(brain.search_index, "keyword", explode)
    with caplog.at_level(logging.ERROR, logger="brainkeep.grpc"):
        error = rpc_error(stub.Recall, pb.RecallRequest(query="x", strategy="lexical"))
    assert error.code() == grpc.StatusCode.INTERNAL
    assert error.details() == INTERNAL_MESSAGE
    assert "secret internals" in caplog.text


def test_codegen_is_reproducible(tmp_path: Path) -> None:
    written = codegen.generate(out_dir=tmp_path)
    for path in written:
        assert path.read_text() == (GENERATED / path.name).read_text(), path.name
    assert "from . import mnemo_pb2 as mnemo__pb2" in (tmp_path / "mnemo_pb2_grpc.py").read_text()


def test_packaged_proto_is_the_stripped_seed() -> None:
    packaged = (codegen.PROTO_DIR / "mnemo.proto").read_text()
    assert packaged.startswith('syntax = "proto3";')
    seed = "mnemo-grpc 0.5.21\n\n" + packaged
    assert codegen.strip_header(seed) == packaged
    assert codegen.strip_header(packaged) == packaged


def test_serve_grpc_subprocess_starts_answers_and_exits_cleanly(grpc_home: Path) -> None:
    home = grpc_home
    open_brain(load_settings(home, env={})).close()
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    env.pop("BRAINKEEP_GRPC_TOKEN", None)
    proc = subprocess.Popen(
        [sys.executable, "-c", "from brainkeep.cli.main import main; main()",
         "serve", "--grpc", "--grpc-port", "0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        text=True,
    )
    try:
        port = None
        deadline = time.monotonic() + 20
        assert proc.stderr is not None
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            found = re.search(r"gRPC listening on 127\.0\.0\.1:(\d+)", line)
            if found:
                port = int(found.group(1))
                break
            assert line or proc.poll() is None, "server exited before listening"
        assert port, "no 'gRPC listening' line on stderr"
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.MnemoServiceStub(channel)
            assert stub.Health(pb.HealthRequest(), timeout=5).status == "ok"
            stub.Remember(pb.RememberRequest(content="from a subprocess", agent_id="a"),
                          timeout=5)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()  # else a ResourceWarning (the suite runs with them as errors)
    brain = open_brain(load_settings(home, env={}))
    try:
        assert brain.store.counts()["memories"] == 1
    finally:
        brain.close()
