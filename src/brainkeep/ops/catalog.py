"""Operation declarations: name, description, params schema, scope, hints, handler.

The MCP tool list, `brainkeep protocol --json` and the CLI verb commands are
all generated from these declarations, so documentation and code cannot drift.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from brainkeep.ops.context import OpContext

Handler = Callable[["OpContext", dict[str, Any]], dict[str, Any]]

SCOPES = ("read", "write", "admin")
SURFACES = ("full", "verbs")


@dataclass(frozen=True)
class Param:
    """One input parameter, rendered as a JSON-schema property."""

    name: str
    type: str  # string | number | integer | boolean | object | array
    description: str
    required: bool = False
    enum: tuple[str, ...] | None = None
    default: Any = None
    items: dict[str, Any] | None = None

    def schema(self) -> dict[str, Any]:
        prop: dict[str, Any] = {"type": self.type, "description": self.description}
        if self.enum is not None:
            prop["enum"] = list(self.enum)
        if self.default is not None:
            prop["default"] = self.default
        if self.items is not None:
            prop["items"] = self.items
        return prop


@dataclass(frozen=True)
class Operation:
    """One operation of the catalog."""

    name: str
    description: str
    params: tuple[Param, ...]
    scope: str
    handler: Handler
    verb: bool = False
    annotations: dict[str, Any] = field(default_factory=dict)

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {p.name: p.schema() for p in self.params},
            "required": [p.name for p in self.params if p.required],
        }

    def tool_definition(self) -> dict[str, Any]:
        """The MCP `tools/list` entry (annotations only when declared)."""
        definition: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema(),
        }
        if self.annotations:
            definition["annotations"] = dict(self.annotations)
        return definition


@dataclass(frozen=True)
class Catalog:
    """The ordered set of operations (verbs first)."""

    operations: tuple[Operation, ...]

    def get(self, name: str) -> Operation | None:
        for op in self.operations:
            if op.name == name:
                return op
        return None

    def for_surface(self, surface: str) -> tuple[Operation, ...]:
        """Operations a surface exposes: `verbs` = exactly the verbs, `full` = all."""
        if surface == "verbs":
            return tuple(op for op in self.operations if op.verb)
        return self.operations

    @property
    def verbs(self) -> tuple[Operation, ...]:
        return self.for_surface("verbs")

    def names(self) -> Iterable[str]:
        return (op.name for op in self.operations)
