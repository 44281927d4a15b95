"""The one error tree of brainkeep.

Every failure a caller can act on is one of these classes. Each carries a
stable ``code`` (the MEMORY_VERBS v1 error code it maps to) and a
``suggestion`` that says problem, cause and fix. Front ends translate these
once, at their edge: the MCP verb envelope, a gRPC status, a CLI exit code.
Driver errors (``sqlite3``) are translated into ``StoreError`` once, inside
``store/``.

::

    BrainkeepError                 code=internal
    ├── InvalidInput               code=invalid_params     gRPC INVALID_ARGUMENT
    │   └── ProvenanceRequired     code=provenance_required
    ├── NotFound                   code=not_found          gRPC NOT_FOUND
    ├── PermissionDenied           code=scope_denied       gRPC PERMISSION_DENIED
    │   └── ScopeDenied            code=scope_denied       (token lacks a scope)
    ├── Unavailable                code=unavailable        gRPC UNAVAILABLE   CLI exit 5
    │   │                          (a provider is missing, down, or refused)
    │   └── Busy                   code=unavailable        gRPC UNAVAILABLE   CLI exit 6
    │                              (retryable: another writer held the brain's lock
    │                              past the busy timeout, SQLITE_BUSY / SQLITE_LOCKED)
    └── StoreError                 code=internal           gRPC INTERNAL
                                   (the database failed: corrupt, disk full, a bug)

``retryable`` marks the errors where the same call, repeated shortly, may
succeed unchanged; the wire code stays the coarse MEMORY_VERBS one.
"""

from __future__ import annotations


class BrainkeepError(Exception):
    """Base of every error brainkeep raises on purpose."""

    code: str = "internal"
    retryable: bool = False
    default_suggestion = (
        "An unexpected server error occurred. Retry; if it persists, run "
        "`brainkeep doctor` and report the detail."
    )

    def __init__(
        self,
        message: str,
        *,
        suggestion: str | None = None,
        detail: str | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.suggestion = suggestion or self.default_suggestion
        self.detail = detail
        self.field = field

    def __str__(self) -> str:
        return self.message

    def payload(self) -> dict[str, str]:
        """The error as data: ``{error, message, suggestion, detail?}``.

        Each front end adds only its own framing (MCP verbs add
        ``protocol_version``; the CLI prints it or dumps it as JSON).
        """
        data = {"error": self.code, "message": self.message, "suggestion": self.suggestion}
        if self.detail:
            data["detail"] = self.detail
        return data


class InvalidInput(BrainkeepError):
    """The caller sent something we cannot accept; nothing was written."""

    code = "invalid_params"
    default_suggestion = "Check the parameter against the tool's input schema and retry."


class ProvenanceRequired(InvalidInput):
    """`remember` was called without a usable provenance."""

    code = "provenance_required"
    default_suggestion = (
        "Pass `provenance`: a short note of where the fact came from, e.g. "
        '"conversation 2026-06-12" or "user said in chat" (at most 500 characters).'
    )


class NotFound(BrainkeepError):
    """The record does not exist, or is not visible to this caller."""

    code = "not_found"
    default_suggestion = "Check the id or slug; list or recall first to find a valid one."


class PermissionDenied(BrainkeepError):
    """The caller is known but not allowed to do this."""

    code = "scope_denied"
    default_suggestion = "Use credentials that hold the needed permission."


class ScopeDenied(PermissionDenied):
    """An HTTP token lacks the scope an operation needs."""

    def __init__(self, operation: str, needed_scope: str) -> None:
        super().__init__(
            f"`{operation}` needs the `{needed_scope}` scope, which this token does not hold.",
            suggestion=(
                f"Create a token with the `{needed_scope}` scope "
                f"(`brainkeep token create --name NAME --scopes {needed_scope}`) and retry."
            ),
            detail=f"missing scope: {needed_scope}",
        )
        self.operation = operation
        self.needed_scope = needed_scope


class Unavailable(BrainkeepError):
    """A required dependency (embedding or chat provider) cannot serve."""

    code = "unavailable"
    default_suggestion = (
        "Configure a provider (see `brainkeep config --help`) or retry when it is reachable."
    )


class Busy(Unavailable):
    """Another writer held the brain's write lock past the busy timeout.

    Raised by the store from the driver's error code (SQLITE_BUSY or
    SQLITE_LOCKED), never from message text. Nothing was written.
    """

    retryable = True
    default_suggestion = (
        "Another writer holds the brain's lock (another brainkeep process, a backup or "
        "a script); nothing was written. Retry shortly; if it persists, look for a stuck "
        "process holding the database open, or raise `store.busy_timeout_ms`."
    )


class StoreError(BrainkeepError):
    """The database failed underneath us (corrupt, disk full, a query bug)."""

    code = "internal"
