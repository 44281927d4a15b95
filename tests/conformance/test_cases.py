"""The shipped fixture file: present, complete and internally consistent."""

from __future__ import annotations

import re
from importlib import resources

from brainkeep.conformance.cases import EXPECT_KINDS, Case, load_cases, load_raw_cases
from brainkeep.ops.response_schemas import ERROR_CODES, VERB_NAMES


def test_cases_json_ships_as_package_data() -> None:
    assert resources.files("brainkeep.conformance").joinpath("cases.json").is_file()


def test_all_23_cases_load_in_order() -> None:
    cases = load_cases()
    assert len(cases) == 23
    assert len({case.name for case in cases}) == 23
    assert [case.verb for case in cases] == (
        ["remember"] * 6 + ["recall"] * 4 + ["entity"] * 4 + ["forget"] * 3
        + ["synthesize"] * 2 + ["context_pack"] * 2 + ["delta"] * 2
    )
    assert [Case.from_dict(raw) for raw in load_raw_cases()] == list(cases)


def test_every_verb_is_exercised_and_only_verbs_are_called() -> None:
    verbs = {case.verb for case in load_cases()}
    assert verbs == set(VERB_NAMES)


def test_error_cases_use_protocol_codes() -> None:
    for case in load_cases():
        if case.expect_error_code is not None:
            assert case.expect_error_code in ERROR_CODES, case.name
            assert not case.validate_schema and not case.expect, case.name


def test_id_placeholders_are_saved_by_an_earlier_case() -> None:
    saved: set[str] = set()
    for case in load_cases():
        for key in re.findall(r"\{\{id:([^}]+)\}\}", repr(case.params)):
            assert key in saved, f"{case.name} uses {key} before it is saved"
        if case.save_as:
            saved.add(case.save_as[0])
    assert saved == {"fact1", "fact2"}


def test_expect_checks_are_well_formed() -> None:
    for case in load_cases():
        for check in case.expect:
            assert check["path"]
            assert len(EXPECT_KINDS & check.keys()) == 1, (case.name, check)


def test_gates() -> None:
    cases = load_cases()
    assert {c.name for c in cases if c.requires_synthesize_flag} == {
        c.name for c in cases if c.verb == "synthesize"
    }
    seeded = [c for c in cases if c.requires_seeded_entity]
    assert len(seeded) == 2 and all(c.verb == "entity" for c in seeded)


def test_contract_clauses_are_covered() -> None:
    by_name = {case.name: case for case in load_cases()}
    text = repr(list(by_name.values()))
    assert "P30D" in text and "PRIVATE-SENTINEL" in text and "999999999" in text
    assert "1970-01-01T00:00:00.000Z" in text and "not-a-timestamp" in text
    private = [c for c in by_name.values() if c.params.get("visibility") == "private"]
    assert len(private) == 1 and private[0].params["kind"] == "commitment"
