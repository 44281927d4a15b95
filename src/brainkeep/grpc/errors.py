"""The one place brainkeep errors become gRPC statuses (the servicer edge).

``BrainkeepError`` subclasses map by class; anything else is a bug: it is
logged to stderr with its traceback and the client gets INTERNAL with a
generic message (no internals leak onto the wire).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, TypeVar

import grpc

from brainkeep.core import validate
from brainkeep.errors import (
    BrainkeepError,
    InvalidInput,
    NotFound,
    PermissionDenied,
    Unavailable,
)
from brainkeep.grpc.convert import string_fields

log = logging.getLogger("brainkeep.grpc")

_CODES: tuple[tuple[type[BrainkeepError], grpc.StatusCode], ...] = (
    (InvalidInput, grpc.StatusCode.INVALID_ARGUMENT),
    (NotFound, grpc.StatusCode.NOT_FOUND),
    (PermissionDenied, grpc.StatusCode.PERMISSION_DENIED),
    (Unavailable, grpc.StatusCode.UNAVAILABLE),
)
INTERNAL_MESSAGE = "Internal server error; the server log has the details."

F = TypeVar("F", bound=Callable[..., Any])


def status_for(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    """The gRPC status code and message for ``exc``."""
    if isinstance(exc, BrainkeepError):
        code = next((c for cls, c in _CODES if isinstance(exc, cls)), grpc.StatusCode.INTERNAL)
        message = exc.message
        if exc.suggestion and exc.suggestion != type(exc).default_suggestion:
            message = f"{message} {exc.suggestion}"
        return code, message
    return grpc.StatusCode.INTERNAL, INTERNAL_MESSAGE


def rpc(method: F) -> F:
    """Wrap a servicer method: translate errors to a status, never let one escape raw."""

    @functools.wraps(method)
    def wrapper(self: Any, request: Any, context: grpc.ServicerContext) -> Any:
        try:
            validate.texts(string_fields(request))  # one text rule for every string field
            with self.session():  # one pooled connection for the whole call
                return method(self, request, context)
        except BrainkeepError as exc:
            code, message = status_for(exc)
            if code == grpc.StatusCode.INTERNAL:  # a store failure: the operator needs it
                log.error("gRPC %s failed: %s (%s)", method.__name__, exc, exc.detail)
        except Exception:  # the front end's top level: convert, never swallow
            log.exception("gRPC %s failed", method.__name__)
            code, message = status_for(RuntimeError())
        context.abort(code, message)

    return wrapper  # type: ignore[return-value]
