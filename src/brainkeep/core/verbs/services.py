"""What the MEMORY_VERBS functions are given: exactly the services they use.

The verbs used to receive the whole ``Brain`` (the composition root), which
made core depend on the layer that builds it. ``Brain.verbs`` builds this
value instead, so a verb's needs are written down here and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from brainkeep.core.clock import Clock

if TYPE_CHECKING:
    from brainkeep.core.hybrid import FactSearch
    from brainkeep.core.memory.facts import FactService
    from brainkeep.core.overlap import Overlap
    from brainkeep.core.ports.composites import VerbStore
    from brainkeep.core.receipts import ReceiptIssuer
    from brainkeep.core.search import SearchService
    from brainkeep.errors import BrainkeepError
    from brainkeep.providers.chat import ChatProvider


@dataclass(frozen=True)
class VerbServices:
    """The slice of one brain the verbs read and write through.

    Attributes:
        store: Pages, links, cursors and facts for cards, context packs and delta.
        clock: The brain's time source.
        source_id: The source every verb reads and writes.
        facts: The fact service behind ``remember``, ``forget`` and recall's facts arm.
        search: Page search (recall's page arm, entity near-misses, synthesize).
        fact_search: Ranked fact evidence for ``synthesize``.
        overlap: Runs recall's page arm beside its facts arm.
        chat: The chat model behind ``synthesize``; None when not configured.
        chat_error: Why ``chat`` is None although one is configured.
        chat_max_tokens: The raw ``chat.max_tokens`` setting; parsed by
            ``synthesize`` only, so a bad value fails that verb and no other.
        receipts: Issues the receipt of ``forget`` with ``redact``; None: no receipt.
    """

    store: VerbStore
    clock: Clock
    source_id: str
    facts: FactService
    search: SearchService
    fact_search: FactSearch
    overlap: Overlap
    chat: ChatProvider | None = None
    chat_error: BrainkeepError | None = None
    chat_max_tokens: int | str | None = None
    receipts: ReceiptIssuer | None = None
