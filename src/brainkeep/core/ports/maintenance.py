"""Engine upkeep a bulk job asks for: planner statistics and row counts.

Part of the Store protocol (core/ports/store.py).
"""

from __future__ import annotations

from typing import Protocol


class Maintenance(Protocol):
    """What a bulk import or export needs beyond the rows themselves."""

    def optimize(self) -> None:
        """Refresh the planner's statistics after bulk writes."""
        ...
    def counts(self) -> dict[str, int]:
        """Rows per kind (``pages``, ``memories``, ...), for progress and `doctor`."""
        ...
