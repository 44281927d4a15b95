"""The portable statement text of store/sql/ and what each engine's driver receives."""

from __future__ import annotations

from typing import Any

from brainkeep.store.sql.dialect import POSTGRES, SQLITE, named, positional, to_psycopg


def test_positional_marks_become_psycopg_marks_and_percent_is_doubled() -> None:
    assert to_psycopg("SELECT ? WHERE a LIKE 'x%' AND b = ?", False) == (
        "SELECT %s WHERE a LIKE 'x%%' AND b = %s")


def test_named_marks_become_psycopg_marks_but_casts_and_times_stay() -> None:
    text = to_psycopg("SELECT :a::bigint, (:b), x=:c_1 WHERE t > '12:30'", True)
    assert text == "SELECT %(a)s::bigint, (%(b)s), x=%(c_1)s WHERE t > '12:30'"


def test_in_list_binds_each_value_on_sqlite_and_one_array_on_postgres() -> None:
    lite: list[Any] = []
    assert SQLITE.in_list("id", [1, 2, 3], lite) == "id IN (?, ?, ?)" and lite == [1, 2, 3]
    pg: list[Any] = []
    assert POSTGRES.in_list("id", [1, 2, 3], pg) == "id = ANY(?)" and pg == [[1, 2, 3]]
    empty: list[Any] = []
    assert SQLITE.in_list("id", [], empty) == "0" and empty == []


def test_in_named_and_the_portable_binders() -> None:
    params: dict[str, Any] = {}
    assert SQLITE.in_named("s", ["a", "b"], params, "u") == "s IN (:u0, :u1)"
    assert params == {"u0": "a", "u1": "b"}
    pg: dict[str, Any] = {}
    assert POSTGRES.in_named("s", ["a", "b"], pg, "u") == "s = ANY(:u)" and pg == {"u": ["a", "b"]}
    values: list[Any] = []
    assert positional(values)(5) == "?" and values == [5]
    names: dict[str, Any] = {"x": 1}
    assert named(names)(7) == ":v1" and names == {"x": 1, "v1": 7}


def test_null_safe_equality_per_dialect() -> None:
    assert (SQLITE.null_safe_eq, SQLITE.null_safe_ne) == ("IS", "IS NOT")
    assert POSTGRES.null_safe_eq == "IS NOT DISTINCT FROM"
    assert POSTGRES.pick(sqlite="a", postgres="b") == "b" and SQLITE.pick(sqlite="a",
                                                                           postgres="b") == "a"
