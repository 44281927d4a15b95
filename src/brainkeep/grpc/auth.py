"""Shared-token auth for every gRPC method (Mnemo, health, reflection alike).

The token authenticates the client process, not an agent: ``agent_id`` in a
request is a claim the token holder makes (as in the Mnemo reference).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Any

import grpc

UNAUTHENTICATED_MESSAGE = (
    "Missing or invalid credentials: send metadata `authorization: Bearer <token>`."
)


def _token_of(metadata: tuple[tuple[str, str | bytes], ...] | None) -> bytes | None:
    for key, value in metadata or ():
        if key.lower() == "authorization":
            raw = value.decode() if isinstance(value, bytes) else value
            scheme, _, token = raw.strip().partition(" ")
            return token.strip().encode() if scheme.lower() == "bearer" else None
    return None


def _deny(handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
    """A handler of the same shape that only answers UNAUTHENTICATED."""

    def abort(_request: Any, context: grpc.ServicerContext) -> Any:
        context.abort(grpc.StatusCode.UNAUTHENTICATED, UNAUTHENTICATED_MESSAGE)

    kinds: dict[tuple[bool, bool], Callable[..., grpc.RpcMethodHandler]] = {
        (False, False): grpc.unary_unary_rpc_method_handler,
        (False, True): grpc.unary_stream_rpc_method_handler,
        (True, False): grpc.stream_unary_rpc_method_handler,
        (True, True): grpc.stream_stream_rpc_method_handler,
    }
    make = kinds[(handler.request_streaming, handler.response_streaming)]
    return make(abort, request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer)


class BearerTokenInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]
    """Rejects any call whose bearer token differs from the configured one."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("an empty token would let every caller in")
        self._expected = token.encode()

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        presented = _token_of(handler_call_details.invocation_metadata)
        # Constant-time comparison: timing must not reveal how much of a guess matched.
        if presented is not None and hmac.compare_digest(presented, self._expected):
            return handler
        return _deny(handler)
