"""Start the Mnemo gRPC server (non-blocking) with health and reflection.

``start_grpc_server`` is what ``brainkeep serve --grpc`` calls; tests call it
with ``port=0`` for a free port.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from brainkeep.core.memory.mnemo import MnemoService
from brainkeep.errors import InvalidInput, Unavailable
from brainkeep.grpc.auth import BearerTokenInterceptor
from brainkeep.grpc.generated import mnemo_pb2, mnemo_pb2_grpc
from brainkeep.grpc.servicer import MnemoServicer
from brainkeep.netaddr import is_loopback

if TYPE_CHECKING:
    from brainkeep.brain import Brain

SERVICE_NAME = mnemo_pb2.DESCRIPTOR.services_by_name["MnemoService"].full_name
# Few workers on purpose: RPCs are CPU-bound Python under the GIL, so more
# threads only interleave requests and stretch every latency (measured with
# bench/grpc_load.py, 8 clients on 2 cores: lexical Recall p99 36.5 ms with 16
# workers, 28 ms with 4). Extra requests queue in gRPC instead.
DEFAULT_WORKERS = 4


@dataclass
class GrpcServerHandle:
    """A running server: its bound port, and how to stop it."""

    server: grpc.Server
    health: health.HealthServicer
    mnemo: MnemoService
    bind: str
    port: int

    def stop(self, grace: float = 5.0) -> None:
        """Report NOT_SERVING, refuse new calls, let in-flight ones finish within ``grace``.

        Then write the buffered recall statistics, so a clean stop loses none.
        """
        self.health.enter_graceful_shutdown()
        self.server.stop(grace).wait()
        self.mnemo.flush_reads()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the server stops (True) or ``timeout`` passes (False)."""
        # grpc returns True when the wait *timed out*.
        return not self.server.wait_for_termination(timeout)


def normalize_token(token: str | None) -> str | None:
    """An empty or blank token is no token (as HTTP treats an empty secret)."""
    token = (token or "").strip()
    return token or None


def check_grpc_auth(bind: str, token: str | None) -> str | None:
    """Refuse an open server beyond this machine; warn about one on loopback.

    The same rule as `serve --http` (``http_app.check_bind_allowed``): a
    non-loopback bind with no token would let any host on the network read
    and write the brain.

    Returns:
        A warning for stderr when serving loopback without a token, else None.

    Raises:
        InvalidInput: ``bind`` is not loopback and ``token`` is empty (exit 2).
    """
    if normalize_token(token):
        return None
    if not is_loopback(bind):
        raise InvalidInput(
            f"Refusing to serve gRPC on {bind} without a token: it is reachable from other "
            "machines, and any of them could read and write the brain.",
            suggestion="Set BRAINKEEP_GRPC_TOKEN (or `brainkeep config set grpc.token "
            "SECRET`), or bind 127.0.0.1 to serve this machine only.",
            field="bind",
        )
    return (
        "brainkeep: gRPC is serving WITHOUT a token: any process on this machine can call "
        "it. Set BRAINKEEP_GRPC_TOKEN (or `brainkeep config set grpc.token SECRET`) to "
        "require `authorization: Bearer <token>`."
    )


def _address(bind: str, port: int) -> str:
    host = f"[{bind}]" if ":" in bind and not bind.startswith("[") else bind
    return f"{host}:{port}"


def start_grpc_server(
    brain: Brain,
    *,
    bind: str = "127.0.0.1",
    port: int = 50051,
    token: str | None = None,
    max_workers: int = DEFAULT_WORKERS,
) -> GrpcServerHandle:
    """Serve ``mnemo.v1.MnemoService`` for ``brain`` on ``bind:port`` and return at once.

    Args:
        brain: the open brain every RPC works on (shared with MCP).
        bind: address to listen on (127.0.0.1 unless told otherwise).
        port: TCP port; 0 picks a free one (see the handle's ``port``).
        token: when set (not blank), every RPC (health and reflection
            included) needs ``authorization: Bearer <token>``.
        max_workers: RPC worker threads.

    Raises:
        InvalidInput: a non-loopback ``bind`` without a token.
        Unavailable: the address cannot be bound.
    """
    token = normalize_token(token)
    check_grpc_auth(bind, token)
    interceptors = [BearerTokenInterceptor(token)] if token else []
    server = grpc.server(
        ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="brainkeep-grpc"),
        interceptors=interceptors,
        # Without this Linux lets a second server bind the same port and steal calls.
        options=[("grpc.so_reuseport", 0)],
    )
    mnemo_pb2_grpc.add_MnemoServiceServicer_to_server(MnemoServicer(brain.mnemo), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    address = _address(bind, port)
    cause: RuntimeError | None = None
    try:
        bound = server.add_insecure_port(address)
    except RuntimeError as exc:  # newer grpc raises instead of returning 0
        bound, cause = 0, exc
    if not bound:
        raise Unavailable(
            f"Cannot listen for gRPC on {address}.",
            suggestion="Pick a free port with --grpc-port (0 = any free port) or another --bind.",
        ) from cause
    server.start()
    return GrpcServerHandle(server=server, health=health_servicer, mnemo=brain.mnemo, bind=bind,
                            port=bound)
