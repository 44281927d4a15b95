"""Hooks tests: a seeded brain on both engines, and hook subprocesses against it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.brain_engines import ENGINES
from tests.conftest import RunCli
from tests.hooks.hook_support import Hooks, hooks_for

BILLING = """---
title: Billing service
aliases: [billing]
---
The billing service moved to PostgreSQL 16 in March.
Invoices are generated nightly by the ledger job and emailed at 06:00.
"""
FACTS = (
    ("Billing service", "The billing service charges cards through Stripe"),
    ("Billing service", "Refunds over 500 EUR need a second approver"),
    ("Alice Chen", "Alice Chen owns the billing on-call rotation"),
)


@pytest.fixture(params=ENGINES)
def brain_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def seed(run_cli: RunCli) -> None:
    assert run_cli("init").exit_code == 0
    assert run_cli("put", "projects/billing", input=BILLING).exit_code == 0
    for entity, text in FACTS:
        done = run_cli("remember", text, "--provenance", "hooks test", "--entity", entity)
        assert done.exit_code == 0, done.output


@pytest.fixture
def hooks(home: Path, run_cli: RunCli) -> Iterator[Hooks]:
    seed(run_cli)
    with hooks_for(home) as running:
        yield running
