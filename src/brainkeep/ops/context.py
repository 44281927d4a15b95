"""What a handler receives besides its params."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from brainkeep.core.context import Caller

if TYPE_CHECKING:  # a type only: importing the brain would load every service for tools/list
    from brainkeep.brain import Brain


@dataclass(frozen=True)
class OpContext:
    """The brain, who is calling, and through which surface."""

    brain: Brain
    caller: Caller
    surface: str = "full"
