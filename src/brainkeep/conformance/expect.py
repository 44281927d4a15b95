"""Placeholder substitution, dot-path lookup and the fixture `expect` checks."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from brainkeep.ops.schema_check import json_equal, json_type_name, matches_type

_PLACEHOLDER = re.compile(r"\{\{(marker|id:([^}]+))\}\}")


def substitute(value: Any, marker: str, ids: Mapping[str, str]) -> Any:
    """Replace ``{{marker}}`` and ``{{id:KEY}}`` in every string inside ``value``.

    An id no earlier case saved becomes ``MISSING-ID-<key>`` so the dependent
    case fails visibly instead of calling the server with a placeholder.
    """
    if isinstance(value, str):

        def replace(match: re.Match[str]) -> str:
            if match.group(1) == "marker":
                return marker
            key = match.group(2)
            return ids.get(key, f"MISSING-ID-{key}")

        return _PLACEHOLDER.sub(replace, value)
    if isinstance(value, list):
        return [substitute(item, marker, ids) for item in value]
    if isinstance(value, dict):
        return {key: substitute(item, marker, ids) for key, item in value.items()}
    return value


def lookup(document: Any, path: str) -> tuple[bool, Any]:
    """Follow a dot path (numeric segments index arrays); ``(found, value)``."""
    node = document
    for segment in path.split("."):
        if isinstance(node, dict):
            if segment not in node:
                return False, None
            node = node[segment]
        elif isinstance(node, list) and segment.isdigit():
            index = int(segment)
            if index >= len(node):
                return False, None
            node = node[index]
        else:
            return False, None
    return True, node


def _is_number(value: Any) -> bool:
    return matches_type(value, "number")


def check_expectation(document: Any, check: Mapping[str, Any]) -> str | None:
    """Run one `expect` check against a parsed response; a failure message or None."""
    path = str(check["path"])
    found, value = lookup(document, path)
    shown = json.dumps(value, ensure_ascii=False)[:120] if found else "<absent>"

    if "absentOrNotContains" in check:
        needle = str(check["absentOrNotContains"])
        if found and needle in json.dumps(value, ensure_ascii=False):
            return f"{path}: must not contain {needle!r}"
        return None
    if not found:
        return f"{path}: missing"
    if "equals" in check and not json_equal(value, check["equals"]):
        return f"{path}: expected {json.dumps(check['equals'])}, got {shown}"
    if "oneOf" in check and not any(json_equal(value, option) for option in check["oneOf"]):
        return f"{path}: {shown} is not one of {json.dumps(check['oneOf'])}"
    if "type" in check and not matches_type(value, str(check["type"])):
        return f"{path}: expected {check['type']}, got {json_type_name(value)}"
    if "gte" in check:
        if not _is_number(value):
            return f"{path}: expected a number >= {check['gte']}, got {shown}"
        if value < check["gte"]:
            return f"{path}: expected >= {check['gte']}, got {shown}"
    if "lte" in check:
        if not _is_number(value):
            return f"{path}: expected a number <= {check['lte']}, got {shown}"
        if value > check["lte"]:
            return f"{path}: expected <= {check['lte']}, got {shown}"
    if check.get("nonEmptyString") and not (isinstance(value, str) and value.strip()):
        return f"{path}: expected a non-empty string, got {shown}"
    return None
