"""Request messages of ``mnemo.v1.MnemoService``, generated from the protobuf descriptors.

Every field is filled from its descriptor type: strings (realistic for the
field's name, random, or hostile; JSON-carrying fields such as ``metadata``
and ``state_snapshot`` also get deep, NaN-laden and malformed JSON), numbers
across their whole wire range and past every documented bound, floats with
NaN and infinities, repeated fields (sometimes past the documented caps),
optional fields present or absent, nested messages recursively.

Protobuf cannot carry a lone surrogate or invalid UTF-8 in a ``string``
field (the client library refuses to serialize it), so string fields here
draw only encodable text; NUL bytes do go over the wire.
"""

from __future__ import annotations

import math
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from hypothesis import strategies as st

from brainkeep.grpc.generated import mnemo_pb2 as pb
from tests.fuzz.hostile import DEEP_JSON_ARRAY, DEEP_JSON_OBJECT, HOSTILE_STRINGS, NAN_JSON

SERVICE = pb.DESCRIPTOR.services_by_name["MnemoService"]
METHODS: tuple[MethodDescriptor, ...] = tuple(SERVICE.methods)

# Fields whose string holds JSON (proto comments say "JSON-encoded string").
JSON_FIELDS = frozenset({"metadata", "state_snapshot"})
JSON_VALUES = (
    "{}", "[]", "null", '{"k": "v", "n": 1}', '"just a string"', "1", "{", "{'a': 1}",
    DEEP_JSON_ARRAY, DEEP_JSON_OBJECT, NAN_JSON, '{"a": 1e400}', '{"a": ' + str(10**30) + "}",
    '{"a": "\\ud800"}', '{"a": "\\u0000"}', '{"a": 1, "a": 2}',
    '{"big": "' + "x" * 100_000 + '"}',
)
# Valid ones: the hostile half of string_field brings the invalid ones.
AGENTS = ("alice", "bob", "carol", "agent-7", "a" * 256)
NAMED: dict[str, tuple[str, ...]] = {
    "agent_id": AGENTS,
    "delegator_id": AGENTS,
    "delegate_id": AGENTS,
    "target_agent_id": AGENTS,
    "target_agent_ids": AGENTS,
    "created_by": AGENTS,
    "org_id": ("", "acme", "other-org"),
    "thread_id": ("t1", "t2"),
    "branch_name": ("main", "feature"),
    "new_branch_name": ("feature", "exp-2", "main"),
    "source_branch": ("main", "feature"),
    "target_branch": ("main", "feature"),
    "scope": ("private", "shared", "public", "global"),
    "memory_type": ("episodic", "semantic", "procedural", "working"),
    "strategy": (
        "soft_delete", "hard_delete", "redact", "decay", "auto", "hybrid", "lexical",
        "semantic", "exact", "graph", "reconstruct", "full_merge", "cherry_pick", "squash",
    ),
    "permission": ("read", "write", "admin", "delegate"),
    "supersede": ("true", "false", ""),
    "as_of": (
        "2026-01-01T00:00:00Z", "2026-01-01T00:00:00", "0001-01-01T00:00:00Z",
        "2099-12-31T23:59:59Z",
    ),
    "source_type": ("conversation", "document", "tool"),
    "fact_key": ("name", "owner"),
    "named_forget_strategies": ("soft_delete", "redact"),
}

_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
_FLOATS = (math.nan, math.inf, -math.inf, -0.0, -1.0, 0.0, 0.5, 1.0, 1e30, -1e30, 3.4e38)


def _encodable(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_TYPICAL_NUMBERS: dict[str, st.SearchStrategy[Any]] = {
    "importance": st.floats(0, 1),
    "min_importance": st.floats(0, 1),
    "decay_rate": st.floats(0, 1),
    "rrf_k": st.floats(1, 100),
    "hybrid_weights": st.floats(0, 1),
    "expires_in_hours": st.floats(0.01, 48),
    "ttl_seconds": st.integers(1, 86_400),
    "limit": st.integers(1, 50),
    "max_depth": st.integers(0, 3),
    "token_budget": st.integers(1, 2000),
    "active_bank_ceiling": st.integers(1, 1000),
}
_TYPICAL_TEXT = ("Alice likes tea", "tea", "Project kickoff notes", "Q3 plan")


def typical_string(name: str, known_ids: tuple[str, ...]) -> st.SearchStrategy[str]:
    """A plausible value for a string field, so the call gets past validation."""
    if name in JSON_FIELDS:
        return st.sampled_from(('{"k": "v"}', "{}", '{"step": 2, "tags": ["a"]}'))
    if name in NAMED:
        return st.sampled_from(NAMED[name])
    if (name.endswith("_id") or name.endswith("_ids")) and known_ids:
        return st.sampled_from(known_ids)
    return st.one_of(st.sampled_from(_TYPICAL_TEXT), st.text(st.characters(codec="ascii",
                     categories=["L", "N"]), min_size=1, max_size=12))


def hostile_string(name: str) -> st.SearchStrategy[str]:
    parts = [st.sampled_from([s for s in HOSTILE_STRINGS if _encodable(s)]),
             st.text(max_size=30)]
    if name in JSON_FIELDS:
        parts.insert(0, st.sampled_from(JSON_VALUES))
    if name in NAMED:  # the odd values of the field's own vocabulary too
        parts.append(st.sampled_from(NAMED[name]).map(str.upper))
    return st.one_of(parts)


def scalar_field(
    field: FieldDescriptor, known_ids: tuple[str, ...], hostile: bool
) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind == FieldDescriptor.TYPE_STRING:
        return hostile_string(field.name) if hostile else typical_string(field.name, known_ids)
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=64)
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if not hostile and field.name in _TYPICAL_NUMBERS:
        return _TYPICAL_NUMBERS[field.name]
    if kind in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        floats = st.floats(width=32) if kind == FieldDescriptor.TYPE_FLOAT else st.floats()
        return st.one_of(st.sampled_from(_FLOATS), floats)
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        return st.one_of(
            st.sampled_from(sorted({low, high, 0, 1, 2, 3, 100, 1000, 1001, max(low, -1)})),
            st.integers(low, high),
        )
    if kind == FieldDescriptor.TYPE_ENUM:
        return st.sampled_from([v.number for v in field.enum_type.values])
    if kind == FieldDescriptor.TYPE_MESSAGE:
        return message_strategy(field.message_type, known_ids)
    raise AssertionError(f"unhandled field type {kind} of {field.full_name}")


def field_value(
    field: FieldDescriptor, known_ids: tuple[str, ...], hostile: bool
) -> st.SearchStrategy[Any]:
    element = scalar_field(field, known_ids, hostile)
    if not field.is_repeated:
        return element
    small = st.lists(element, max_size=4)
    if not hostile:
        if field.name == "hybrid_weights":  # vector, bm25, graph, recency
            return st.lists(element, min_size=4, max_size=4)
        return st.lists(element, min_size=1, max_size=3) if field.name.endswith("_ids") else small
    # Past the documented caps (Forget: 1,000 ids; Share fan-out); big lists repeat a
    # short element: the point is the count, not the bytes.
    short = (st.one_of(st.sampled_from(known_ids or ("x",)), st.text(max_size=8))
             if field.type == FieldDescriptor.TYPE_STRING else element)
    return st.one_of(small, st.builds(lambda v, n: [v] * n, short,
                                      st.sampled_from((101, 1001, 2000))))


def message_strategy(
    descriptor: Descriptor, known_ids: tuple[str, ...] = ()
) -> st.SearchStrategy[Message]:
    """A message of ``descriptor``'s type: most fields typical, up to two hostile.

    Hostile values in every field would stop nearly every call at the first
    check; a mostly plausible message with one or two bad fields reaches the
    code behind that check too.
    """
    cls = _class_of(descriptor)
    names = [field.name for field in descriptor.fields]

    @st.composite
    def build(draw: st.DrawFn) -> Message:
        message = cls()
        hostile = draw(st.sets(st.sampled_from(names), max_size=2)) if names else set()
        for field in descriptor.fields:
            # Plain proto3 scalars (no presence) are the "required" ones: typical ones
            # stay set; optional and repeated fields come and go.
            optional = field.has_presence or field.is_repeated
            if field.name not in hostile and optional and draw(st.integers(0, 3)) == 0:
                continue  # absent: optional unset, repeated empty
            value = draw(field_value(field, known_ids, field.name in hostile))
            if field.type == FieldDescriptor.TYPE_MESSAGE and not field.is_repeated:
                getattr(message, field.name).CopyFrom(value)
            elif field.is_repeated:
                getattr(message, field.name).extend(value)
            else:
                setattr(message, field.name, value)
        return message

    return build()


def _class_of(descriptor: Descriptor) -> type[Message]:
    cls = getattr(pb, descriptor.name, None)
    assert cls is not None, f"no generated class for {descriptor.full_name}"
    return cls  # type: ignore[no-any-return]
