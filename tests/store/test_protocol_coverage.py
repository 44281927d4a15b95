"""Both engines provide every member of the Store protocol, with the protocol's parameters.

The contract suite only reaches the methods its tests call; this compares
the classes themselves, so a method dropped or renamed on one engine (or a
parameter renamed, which breaks keyword callers) fails here even if no
contract test calls it. ``inspect.getattr_static`` looks past any
``__getattr__`` fallback: a member must really be defined.
"""

from __future__ import annotations

import inspect
from typing import Any, Protocol

import pytest

from brainkeep.core.ports.store import Store
from brainkeep.store.postgres import PostgresStore
from brainkeep.store.sqlite import SQLiteStore

ENGINE_CLASSES = [SQLiteStore, PostgresStore]


def protocol_members(protocol: type) -> dict[str, Any]:
    """Public members declared by ``protocol`` and its repository protocols."""
    found: dict[str, Any] = {}
    for cls in reversed(protocol.__mro__):
        if cls in (object, Protocol) or cls.__module__ == "typing":
            continue
        found.update({name: value for name, value in vars(cls).items()
                      if not name.startswith("_")})
    return found


def parameters(member: Any) -> list[tuple[str, Any]]:
    function = member.fget if isinstance(member, property) else member
    return [(p.name, p.kind) for p in inspect.signature(function).parameters.values()]


def test_the_protocol_is_read_whole() -> None:
    # Guards the helper: a protocol_members() that found nothing would pass every check.
    members = protocol_members(Store)
    assert {"transaction", "insert_memory", "search_index", "vectors_available",
            "hard_delete_memory", "get_oauth_grant"} <= set(members)
    assert len(members) > 100


@pytest.mark.parametrize("engine_class", ENGINE_CLASSES, ids=lambda c: c.__name__)
def test_engine_defines_every_store_member(engine_class: type) -> None:
    missing = sorted(name for name in protocol_members(Store)
                     if not _has_static(engine_class, name))
    assert missing == [], f"{engine_class.__name__} lacks Store members: {missing}"
    assert "engine_name" in Store.__annotations__
    assert isinstance(inspect.getattr_static(engine_class, "engine_name"), str)


@pytest.mark.parametrize("engine_class", ENGINE_CLASSES, ids=lambda c: c.__name__)
def test_engine_members_match_the_protocol_shape(engine_class: type) -> None:
    wrong: list[str] = []
    for name, declared in protocol_members(Store).items():
        actual = inspect.getattr_static(engine_class, name)
        if isinstance(declared, property) != isinstance(actual, property):
            wrong.append(f"{name}: property on one side only")
        elif isinstance(actual, property) or callable(actual):
            if parameters(declared) != parameters(actual):
                wrong.append(f"{name}: {parameters(actual)} != protocol {parameters(declared)}")
        else:
            wrong.append(f"{name}: not callable ({type(actual).__name__})")
    assert wrong == []


def test_no_engine_answers_unknown_attributes_through_a_fallback() -> None:
    # A __getattr__ (the old "not ported yet" stub) would make a missing
    # method look present to hasattr() and fail only when called.
    for engine_class in ENGINE_CLASSES:
        assert not any("__getattr__" in vars(cls) for cls in engine_class.__mro__
                       if cls is not object), engine_class


def _has_static(cls: type, name: str) -> bool:
    try:
        inspect.getattr_static(cls, name)
    except AttributeError:
        return False
    return True
