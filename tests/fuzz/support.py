"""Profiles, the per-call bound and the assertions every fuzzer shares.

Profiles (``HYPOTHESIS_PROFILE``, default ``ci``):

* ``ci``: a fixed seed (``derandomize``) and a small budget, so the whole
  fuzz module runs in about a minute on 2 cores and fails the same way twice;
* ``long``: random seeds and about 40x the examples, for a soak run
  (docs/testing.md);
* ``dev``: random seeds, the CI budget: quick local exploration.

The settings are applied per test (``fuzz_settings``), not loaded globally, so no
other test that may use hypothesis inherits them.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
            HealthCheck.function_scoped_fixture, HealthCheck.large_base_example]
_COMMON: dict[str, Any] = {
    "deadline": None,  # we bound each call ourselves (CALL_TIMEOUT_S), hypothesis times none
    "database": None,  # no .hypothesis/ folder in the tree; failures print a reproduce blob
    "print_blob": True,
    "suppress_health_check": _SLOW_OK,
}
settings.register_profile("ci", derandomize=True, **_COMMON)
settings.register_profile("dev", **_COMMON)
settings.register_profile("long", **_COMMON)
# Examples per test = the test's CI budget times this factor.
_SCALE = {"ci": 1, "dev": 1, "long": 40}

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
if PROFILE not in _SCALE:
    raise RuntimeError(f"HYPOTHESIS_PROFILE={PROFILE!r}: use one of {sorted(_SCALE)}")


def fuzz_settings(ci_examples: int) -> settings:
    """The selected profile with ``ci_examples`` scaled to it (decorate the @given test)."""
    return settings(settings.get_profile(PROFILE), max_examples=ci_examples * _SCALE[PROFILE])


# Bound on one call through any surface: past it, the call counts as a hang.
CALL_TIMEOUT_S = 10.0

# MEMORY_VERBS error codes a caller may see (docs/protocol.md, errors.py), plus
# the dispatcher's own `unknown_tool`. `internal` is never an acceptable answer
# to caller input; `budget_unsatisfiable` is reserved and never returned.
MCP_ERROR_CODES = frozenset({
    "invalid_params", "provenance_required", "not_found", "scope_denied", "unavailable",
    "unknown_tool",
})
# Exception and driver vocabulary that must never reach a client message.
LEAK_MARKERS = (
    "Traceback (most recent call last)", 'File "/', ".py\", line", "RecursionError",
    "OverflowError", "UnicodeEncodeError", "UnicodeDecodeError", "KeyError", "TypeError",
    "AttributeError", "ValueError", "IndexError", "sqlite3.", "OperationalError",
    "IntegrityError", "yaml.constructor", "yaml.scanner", "maximum recursion depth",
)

T = TypeVar("T")


class Hang(AssertionError):
    """A call did not answer within CALL_TIMEOUT_S."""


class _Worker:
    """One long-lived daemon call thread.

    Long-lived because the store keeps a connection per thread (a fresh thread
    per call would open and hold one connection per example); a daemon, not an
    executor thread, because interpreter exit joins executor threads and a hung
    call would then hang pytest itself.
    """

    def __init__(self) -> None:
        self._jobs: queue.Queue[tuple[Callable[[], Any], dict[str, Any], threading.Event]]
        self._start()

    def _start(self) -> None:
        self._jobs = queue.Queue()
        jobs = self._jobs

        def loop() -> None:
            while True:
                fn, box, done = jobs.get()
                try:
                    box["value"] = fn()
                except BaseException as exc:  # re-raised in the caller's thread
                    box["error"] = exc
                done.set()

        threading.Thread(target=loop, name="fuzz-call", daemon=True).start()

    def run(self, fn: Callable[[], T], what: str, timeout: float) -> T:
        box: dict[str, Any] = {}
        done = threading.Event()
        self._jobs.put((fn, box, done))
        if not done.wait(timeout):
            # The thread cannot be killed: abandon it and give later calls a new one.
            self._start()
            raise Hang(f"{what}: no answer within {timeout:.0f} s")
        if "error" in box:
            raise box["error"]
        return box["value"]  # type: ignore[no-any-return]


_WORKER = _Worker()


def bounded(fn: Callable[[], T], what: str, timeout: float = CALL_TIMEOUT_S) -> T:
    """Run ``fn`` on the call thread; fail as a hang if it takes longer than ``timeout``."""
    return _WORKER.run(fn, what, timeout)


def leaked_markers(text: str, inputs: str) -> list[str]:
    """Traceback/exception vocabulary in ``text`` that the caller did not send itself."""
    return [m for m in LEAK_MARKERS if m in text and m not in inputs]


def short(value: Any, limit: int = 300) -> str:
    """A bounded repr for failure messages (inputs can be 100 KB)."""
    try:
        text = repr(value)
    except RecursionError:  # a nest deeper than repr() goes
        text = f"<{type(value).__name__} nested too deep to print>"
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} chars)"
