"""The conformance fixture set: loaded from the shipped `cases.json` data file.

The fixtures are data, not code, so other tools (an eval harness, another
implementation's CI) can read the same cases without importing brainkeep.
Field names follow the reference fixture format (camelCase) for that reason.

Placeholders inside ``params`` strings: ``{{marker}}`` is the per-run marker;
``{{id:KEY}}`` is a value saved by an earlier case's ``saveAs``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

CASES_RESOURCE = "cases.json"
EXPECT_KINDS = frozenset(
    {"equals", "oneOf", "type", "gte", "lte", "nonEmptyString", "absentOrNotContains"}
)


@dataclass(frozen=True)
class Case:
    """One conformance case: a verb call plus what the response must look like."""

    name: str
    verb: str
    params: dict[str, Any]
    validate_schema: bool = False
    expect_error_code: str | None = None
    expect_suggestion: bool = False
    expect: tuple[dict[str, Any], ...] = ()
    save_as: tuple[str, str] | None = None  # (key, path)
    requires_synthesize_flag: bool = False
    requires_seeded_entity: bool = False

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Case:
        """Build a case from its fixture-file form.

        Raises:
            ValueError: a malformed case (so a bad fixture fails loudly at load).
        """
        try:
            name, verb = str(data["name"]), str(data["verb"])
        except KeyError as exc:
            raise ValueError(f"conformance case lacks {exc.args[0]!r}: {data!r}") from exc
        expect = tuple(data.get("expect", ()))
        for check in expect:
            if "path" not in check or not EXPECT_KINDS & check.keys():
                raise ValueError(f"case {name!r}: malformed expect check {check!r}")
        save = data.get("saveAs")
        return cls(
            name=name,
            verb=verb,
            params=dict(data.get("params", {})),
            validate_schema=bool(data.get("validateSchema", False)),
            expect_error_code=data.get("expectErrorCode"),
            expect_suggestion=bool(data.get("expectSuggestion", False)),
            expect=expect,
            save_as=(str(save["key"]), str(save["path"])) if save else None,
            requires_synthesize_flag=bool(data.get("requiresSynthesizeFlag", False)),
            requires_seeded_entity=bool(data.get("requiresSeededEntity", False)),
        )


def load_raw_cases() -> list[dict[str, Any]]:
    """The fixture file exactly as shipped (a JSON array of case objects)."""
    text = resources.files(__package__).joinpath(CASES_RESOURCE).read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError(f"{CASES_RESOURCE} must be a JSON array of cases")
    return data


def load_cases() -> tuple[Case, ...]:
    """The fixture cases, in run order."""
    return tuple(Case.from_dict(item) for item in load_raw_cases())
