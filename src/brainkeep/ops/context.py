"""What a handler receives besides its params."""

from __future__ import annotations

from dataclasses import dataclass

from brainkeep.brain import Brain
from brainkeep.core.context import Caller


@dataclass(frozen=True)
class OpContext:
    """The brain, who is calling, and through which surface."""

    brain: Brain
    caller: Caller
    surface: str = "full"
