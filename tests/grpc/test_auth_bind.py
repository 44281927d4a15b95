"""gRPC auth follows the HTTP rule: no token off loopback is refused, on loopback it warns."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.errors import InvalidInput
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.grpc.server import check_grpc_auth, start_grpc_server


@pytest.fixture
def home(grpc_home: Path) -> Path:
    open_brain(load_settings(grpc_home, env={})).close()
    return grpc_home


def serve(home: Path, token: str | None, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    env.pop("BRAINKEEP_GRPC_TOKEN", None)
    if token is not None:
        env["BRAINKEEP_GRPC_TOKEN"] = token
    return subprocess.Popen(
        [sys.executable, "-m", "brainkeep", "serve", "--grpc", "--grpc-port", "0", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=env, text=True,
    )


def read_until_listening(proc: subprocess.Popen[str]) -> tuple[str, int]:
    assert proc.stderr is not None
    seen = ""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        assert line, f"server exited: {seen}"
        seen += line
        if "gRPC listening on" in line:
            return seen, int(line.rsplit(":", 1)[1])
    pytest.fail(f"never listening: {seen}")


def stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


@pytest.mark.parametrize("token", [None, "", "   "])
def test_non_loopback_without_a_token_is_refused_with_exit_2(home: Path, token: str | None
                                                              ) -> None:
    proc = serve(home, token, "--bind", "0.0.0.0")
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 2, err
    assert "Refusing to serve gRPC on 0.0.0.0 without a token" in err
    assert "BRAINKEEP_GRPC_TOKEN" in err and "Traceback" not in err


def test_non_loopback_with_a_token_serves_and_requires_it(home: Path) -> None:
    proc = serve(home, "s3cret", "--bind", "0.0.0.0")
    try:
        seen, port = read_until_listening(proc)
        assert "WITHOUT a token" not in seen
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.MnemoServiceStub(channel)
            with pytest.raises(grpc.RpcError) as denied:
                stub.Health(pb.HealthRequest(), timeout=5)
            assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED
            ok = stub.Health(pb.HealthRequest(), timeout=5,
                             metadata=[("authorization", "Bearer s3cret")])
            assert ok.status == "ok"
    finally:
        stop(proc)


@pytest.mark.parametrize("token", [None, ""])
def test_loopback_without_a_token_warns_on_stderr(home: Path, token: str | None) -> None:
    proc = serve(home, token)
    try:
        seen, port = read_until_listening(proc)
        assert "gRPC is serving WITHOUT a token" in seen
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            assert pb_grpc.MnemoServiceStub(channel).Health(
                pb.HealthRequest(), timeout=5).status == "ok"
    finally:
        stop(proc)


def test_the_rule_itself() -> None:
    assert check_grpc_auth("127.0.0.1", "t") is None
    assert check_grpc_auth("0.0.0.0", "t") is None
    warning = check_grpc_auth("::1", "")
    assert warning is not None and "WITHOUT a token" in warning
    for bind in ("0.0.0.0", "192.0.2.7", "example.org"):
        with pytest.raises(InvalidInput) as refused:
            check_grpc_auth(bind, " ")
        assert refused.value.field == "bind"


def test_start_grpc_server_refuses_an_open_public_bind(grpc_home: Path) -> None:
    brain: Brain = open_brain(load_settings(grpc_home, env={}))
    try:
        with pytest.raises(InvalidInput):
            start_grpc_server(brain, bind="0.0.0.0", port=0, token="")
    finally:
        brain.close()
