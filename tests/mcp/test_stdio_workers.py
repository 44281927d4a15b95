"""The lean stdio session's worker threads (mcp/stdio_workers.Workers)."""

from __future__ import annotations

import threading

from brainkeep.mcp.stdio_workers import Workers


def test_a_client_that_waits_for_each_reply_is_served_by_one_thread() -> None:
    # One thread means one SQLite connection, whose page cache survives the
    # calls; replies leave after the worker is idle again, so the next
    # request never finds every worker busy.
    workers = Workers()
    threads: list[int] = []
    for _ in range(50):
        answered = threading.Event()

        def job(answered: threading.Event = answered):
            threads.append(threading.get_ident())
            return answered.set

        workers.submit(job)
        assert answered.wait(5)
    assert len(set(threads)) == 1


def test_a_slow_call_does_not_hold_up_the_next() -> None:
    workers = Workers()
    second_ran = threading.Event()
    first_done = threading.Event()

    def slow() -> None:
        if second_ran.wait(5):
            first_done.set()

    workers.submit(slow)
    workers.submit(lambda: second_ran.set())
    assert first_done.wait(5)  # the first finished only because the second ran beside it


def test_calls_beyond_the_limit_wait_and_all_are_answered_before_drain_returns() -> None:
    workers = Workers(limit=2)
    gate = threading.Event()
    answered: list[int] = []
    lock = threading.Lock()

    def job(i: int):
        gate.wait(5)

        def deliver() -> None:
            with lock:
                answered.append(i)
        return deliver

    for i in range(6):
        workers.submit(lambda i=i: job(i))
    assert not workers.drain(0.05)  # two run, four wait, none answered
    gate.set()
    assert workers.drain(5)
    assert sorted(answered) == list(range(6))


def test_a_failing_job_or_delivery_leaves_the_worker_serving() -> None:
    workers = Workers(limit=1)
    done = threading.Event()

    def bad_delivery():
        def deliver() -> None:
            raise RuntimeError("the pipe closed")
        return deliver

    def raises():
        raise RuntimeError("outside the dispatcher")

    workers.submit(raises)
    workers.submit(bad_delivery)
    workers.submit(lambda: done.set())
    assert done.wait(5)
    assert workers.drain(5)
