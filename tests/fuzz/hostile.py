"""Hostile values and the strategies built on them, shared by every fuzzer.

The values are what issue 10's probe (and a careless or hostile client)
sends: NUL bytes, lone surrogates, integers past every machine width, NaN and
infinities, 10,000-deep nesting, FTS5 operators, path traversal, 100 KB
strings, YAML anchors. Strategies mix them with realistic values per
parameter name, so a call also gets past the first validation and reaches
the code below it.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

DEPTH = 10_000
LONG = 100_000

DEEP_JSON_ARRAY = "[" * DEPTH + "]" * DEPTH
DEEP_JSON_OBJECT = '{"a":' * DEPTH + "1" + "}" * DEPTH
NAN_JSON = '{"score": NaN, "inf": Infinity, "ninf": -Infinity}'


def yaml_alias_bomb(levels: int) -> str:
    """Frontmatter of nested anchors: 9**levels scalars once expanded (issue 10 #1).

    Kept small in the CI budget (5 levels: 59,049 scalars); a fixed server must
    refuse aliases before expanding them, so larger ones would cost nothing.
    """
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 9) + "]" for k in range(1, levels)]
    return "---\n" + "\n".join(lines) + "\n---\nBomb body.\n"


HOSTILE_STRINGS: tuple[str, ...] = (
    "",
    " ",
    "\x00",
    "a\x00b",
    "people/alice\x00example",
    "\ud800",
    "x\udfffy",
    "\udcff\udcfe",  # what surrogateescape makes of invalid UTF-8 bytes
    "\ufffd",
    "\u202e\u200b\ufeff",
    "a" * LONG,
    "é" * (LONG // 2),
    DEEP_JSON_ARRAY,
    DEEP_JSON_OBJECT,
    NAN_JSON,
    "NaN",
    "Infinity",
    "-1",
    "0",
    str(10**30),
    str(-(10**30)),
    "1e400",
    str(2**63),
    str(2**64),
    '"a" NEAR(b',
    "*",
    "AND OR NOT",
    "-x",
    'NEAR("a" "b", -5)',
    "title:secret",
    "^a",
    '"',
    "'; DROP TABLE memories; --",
    "%",
    "_",
    "\\",
    "../../etc/passwd",
    "..",
    "/etc/passwd",
    "people/../../secret",
    "people//x",
    "C:\\Windows\\system32",
    "99999999999d",
    "999999999d",
    "-5d",
    "0d",
    "P30D",
    "0001-01-01T00:00:00",
    "9999-12-31T23:59:59Z",
    "10000-01-01",
    "2026-02-30",
    "2026-06-01T12:00:00",
    "2026-06-01T12:00:00+99:00",
    "8 hours ago",
    "{{7*7}}",
    "<script>alert(1)</script>",
    "\r\n\r\n",
    "---\n---\n",
)

HOSTILE_INTS: tuple[int, ...] = (
    0, -1, 1, 10**30, -(10**30), 2**31, 2**31 - 1, 2**32, 2**53 + 1,
    2**63, 2**63 - 1, -(2**63) - 1, 2**64, 10**12,
)
HOSTILE_FLOATS: tuple[float, ...] = (
    math.nan, math.inf, -math.inf, -0.0, 1e308, -1e308, 5e-324, 0.5, 1e30, -1.5,
)


class DeepList(list[Any]):
    """The outermost list of a deep nest; its repr is short (repr() would recurse)."""

    def __repr__(self) -> str:
        return f"<list nested {DEPTH} deep>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # hypothesis' printer
        printer.text(repr(self))


class DeepDict(dict[str, Any]):
    def __repr__(self) -> str:
        return f"<dict nested {DEPTH} deep>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))


def deep_list(depth: int = DEPTH) -> list[Any]:
    """A list nested ``depth`` deep, built without recursion."""
    value: list[Any] = []
    for _ in range(depth - 2):
        value = [value]
    return DeepList([value])


def deep_dict(depth: int = DEPTH) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth - 2):
        value = {"a": value}
    return DeepDict(a=value)


# Realistic values per parameter name, so calls also reach past validation.
SLUGS = (
    "people/alice-example", "companies/acme", "fuzz/page", "people/bob", "notes/x-1",
    "People/Alice", "people/", "/people/x", "people/alice example", "a" * 300, "fuzz/private",
)
TIMES = (
    "2026-01-01", "2026-06-01T12:00:00Z", "2026-06-01T12:00:00.123456Z", "2d", "12h", "45m",
    "30d", "1 hour ago", "1970-01-01T00:00:00Z", "2099-01-01T00:00:00Z",
)
PAGE_CONTENTS = (
    "---\ntitle: Alice Example\ntype: person\naliases: [Alice]\n---\nAlice runs the lab.\n",
    "---\ntitle: Secret\nvisibility: private\n---\nPRIVATE body.\n",
    "No frontmatter, just text. See [[people/alice-example]].\n",
    "---\n- just\n- a list\n---\nbody\n",
    "---\ntitle: [unclosed\n---\nbody\n",
    "---\nlinks: {bad: 1}\nrelated: 5\n---\nbody\n",
    "---\ntitle: x\n",
    "---\na: " + "[" * DEPTH + "]" * DEPTH + "\n---\nDeep YAML flow nesting.\n",
    "---\na: " + "{b: " * 2000 + "1" + "}" * 2000 + "\n---\nDeep YAML mapping.\n",
    "---\ntitle: !!python/object/apply:os.system ['true']\n---\nbody\n",
    "---\ndate: 99999-99-99\ntimeline: [{date: 2026-99-01, summary: x}]\n---\nbody\n",
    "---\ntitle: Dated\nborn: 2026-02-30\n---\nImpossible YAML dates.\n",
    yaml_alias_bomb(5),
    "## Timeline\n- 2026-13-45: impossible date\n- 0000-00-00: zero\n",
)
NAMED_VALUES: dict[str, tuple[str, ...]] = {
    "slug": SLUGS,
    "from": SLUGS,
    "to": SLUGS,
    "after": SLUGS,
    "since_slug": SLUGS,
    "prefix": ("people/", "fuzz/", "", "%", "_"),
    "since": TIMES,
    "until": TIMES,
    "updated_after": TIMES,
    "ttl": ("30d", "12h", "45m", "2099-01-01T00:00:00Z", "1s", "0m", "10000000d"),
    "date": ("2026-01-01", "2026-02-29", "1999-12-31", "0000-01-01"),
    "id": ("1", "2", "3", "424242", "00000000-0000-0000-0000-000000000000", "1.5", " 1"),
    "entity": ("Alice", "people/alice-example", "acme", "nobody"),
    "name": ("Alice", "people/alice-example", "acme", "nobody"),
    "entities": ("Alice", "Alice,acme", ",,,", ",".join(["x"] * 50)),
    "kind": ("event", "preference", "commitment", "belief", "fact", "FACT"),
    "visibility": ("world", "private", "public"),
    "content": PAGE_CONTENTS,
    "type": ("person", "company"),
    "link_type": ("works_at", "related_to", ""),
}

# Text that may hold lone surrogates (st.text() never draws category Cs).
_ANY_CHAR = st.one_of(st.characters(), st.characters(categories=["Cs"]))


def hostile_text(name: str = "") -> st.SearchStrategy[str]:
    """A string for parameter ``name``: realistic (about half the time), random or hostile."""
    parts = [
        st.sampled_from(HOSTILE_STRINGS),
        st.text(max_size=40),
        st.text(alphabet=_ANY_CHAR, max_size=20),
    ]
    if name in NAMED_VALUES:
        realistic = st.sampled_from(NAMED_VALUES[name])
        parts = [realistic, realistic, realistic, *parts]
    return st.one_of(parts)


def hostile_number(integer: bool) -> st.SearchStrategy[Any]:
    numbers: list[st.SearchStrategy[Any]] = [
        st.sampled_from(HOSTILE_INTS), st.integers(min_value=-1000, max_value=1000),
    ]
    if not integer:
        numbers += [st.sampled_from(HOSTILE_FLOATS), st.floats()]
    return st.one_of(numbers)


def json_junk() -> st.SearchStrategy[Any]:
    """Any JSON value of any type (wrong types on purpose), deep ones included."""
    scalars = st.one_of(
        st.none(), st.booleans(), hostile_number(False), hostile_text(),
    )
    return st.one_of(
        scalars,
        st.builds(deep_list),
        st.builds(deep_dict),
        st.lists(scalars, max_size=4),
        st.dictionaries(st.text(max_size=5), scalars, max_size=3),
    )


def typical_value(name: str, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A plausible value of the property's own type (so the call gets past validation)."""
    kind = schema.get("type")
    if kind == "string":
        if "enum" in schema:
            return st.sampled_from(schema["enum"])
        if name in NAMED_VALUES:
            return st.sampled_from(NAMED_VALUES[name])
        return st.one_of(st.sampled_from(("Alice", "tea", "Acme ships on Fridays")),
                         st.text(st.characters(codec="ascii", categories=["L", "N"]),
                                 min_size=1, max_size=12))
    if kind in ("number", "integer"):
        return st.integers(1, 100)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(st.text(max_size=8), max_size=3)
    return st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=2)


def value_for(name: str, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A hostile value for one JSON-schema property: mostly its type, sometimes anything."""
    kind = schema.get("type")
    typed: st.SearchStrategy[Any]
    if kind == "string":
        typed = hostile_text(name)
    elif kind in ("number", "integer"):
        typed = hostile_number(kind == "integer")
    elif kind == "boolean":
        typed = st.booleans()
    elif kind == "array":
        typed = st.lists(hostile_text(name), max_size=5)
    else:
        typed = json_junk()
    return st.one_of(typed, typed, typed, json_junk(), st.none())


def arguments_for(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments for an MCP tool from its ``inputSchema``: most typical, up to two hostile.

    Required properties are present unless picked as hostile (which may drop
    or null them: that must be ``invalid_params``); optional ones come and go;
    now and then an undeclared property rides along.
    """
    properties: dict[str, dict[str, Any]] = schema.get("properties", {})
    required = set(schema.get("required", []))
    names = sorted(properties)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        hostile = draw(st.sets(st.sampled_from(names), max_size=2)) if names else set()
        args: dict[str, Any] = {}
        for name, prop in properties.items():
            if name in hostile:
                if draw(st.integers(0, 9)):  # else: missing
                    args[name] = draw(value_for(name, prop))
            elif name in required or draw(st.booleans()):
                args[name] = draw(typical_value(name, prop))
        if draw(st.integers(0, 9)) == 0:
            args[draw(st.sampled_from(("extra", "__proto__", "\x00", "id ")))] = draw(json_junk())
        return args

    return build()
