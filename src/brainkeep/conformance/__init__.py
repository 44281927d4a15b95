"""MEMORY_VERBS v1 conformance kit: fixtures, runner, MCP client adapters, report.

`brainkeep protocol conformance` certifies any MCP server (ours by default)
against the frozen contract: response shapes from the registry in
`brainkeep.ops.response_schemas`, contract behaviour and round-trips from the
shipped `cases.json`.
"""

from brainkeep.conformance.cases import Case, load_cases
from brainkeep.conformance.clients import Target, parse_target, self_target
from brainkeep.conformance.report import CaseResult, ConformanceReport
from brainkeep.conformance.runner import new_marker, run_cases, run_conformance

__all__ = [
    "Case",
    "CaseResult",
    "ConformanceReport",
    "Target",
    "load_cases",
    "new_marker",
    "parse_target",
    "run_cases",
    "run_conformance",
    "self_target",
]
