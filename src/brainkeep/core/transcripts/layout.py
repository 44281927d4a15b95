"""How a conversation becomes pages: slugs, part splits, and the markdown.

A conversation is written as one page per *part*: turns are added to a part
until the next would take it past ``TRANSCRIPT_PART_BYTES``, then a new part
starts. The split is greedy from the first turn, so appending turns to a
transcript never moves an earlier boundary: re-imports rewrite at most the
last part and add new ones (idempotency, and `stop` hooks that bank a
growing session every turn, depend on it).

Part 1 lives at ``transcripts/<format>/<conversation>``, part n at
``.../<conversation>/part-<n>``. Each turn is a ``## speaker · time``
heading over the text as a block quote: the text stays verbatim, and a
``## Timeline`` or frontmatter-looking line inside a turn is not read as the
page's own structure. The entities a part mentions are wikilinks in its
``## Mentions`` section (links of type ``mentions``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from brainkeep.core.limits import TRANSCRIPT_PART_BYTES, TRANSCRIPT_TURN_BYTES
from brainkeep.core.markdown import render_frontmatter
from brainkeep.core.secrets import safe_cut
from brainkeep.core.slugs import slugify_segment
from brainkeep.core.transcripts.model import Conversation, Turn

MentionFinder = Callable[[str], list[tuple[str, str]]]
NAMESPACE = "transcripts"
PAGE_TYPE = "transcript"
_ID_CHARS = 80


@dataclass(frozen=True)
class PartPage:
    """One page of a conversation: its slug, markdown and the turns it holds."""

    slug: str
    part: int
    first_turn: int
    last_turn: int
    content: str


def conversation_slug(fmt: str, conversation_id: str) -> str:
    """``transcripts/<fmt>/<id>``; an id that is not already a clean segment gets a hash tail."""
    segment = slugify_segment(conversation_id)[:_ID_CHARS].strip("-_.")
    if segment != conversation_id.lower():
        digest = hashlib.sha256(conversation_id.encode("utf-8", "surrogatepass")).hexdigest()
        segment = f"{segment[:_ID_CHARS - 9]}-{digest[:8]}" if segment else digest[:16]
    return f"{NAMESPACE}/{fmt}/{segment}"


def part_slug(base: str, part: int) -> str:
    return base if part == 1 else f"{base}/part-{part}"


def clip_turn(text: str) -> str:
    """A turn's text within ``TRANSCRIPT_TURN_BYTES``, with a note when it was cut."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= TRANSCRIPT_TURN_BYTES:
        return text
    kept = safe_cut(data[:TRANSCRIPT_TURN_BYTES].decode("utf-8", "ignore"), len(text))
    return f"{kept}\n\n[… {len(data) - len(kept.encode('utf-8'))} more bytes not imported]"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.split("\n"))


def render_turn(turn: Turn) -> str:
    """One turn's markdown: a heading naming speaker and time, then the text quoted."""
    when = f" · {turn.at}" if turn.at else ""
    return f"## {turn.speaker}{when}\n\n{_quote(turn.text.strip(chr(10)))}\n"


def split_parts(rendered: Sequence[str]) -> list[tuple[int, int]]:
    """(first, last) turn index of each part, greedily by UTF-8 bytes."""
    parts: list[tuple[int, int]] = []
    start, size = 0, 0
    for i, text in enumerate(rendered):
        n = len(text.encode("utf-8", "surrogatepass")) + 1
        if i > start and size + n > TRANSCRIPT_PART_BYTES:
            parts.append((start, i - 1))
            start, size = i, 0
        size += n
    if rendered:
        parts.append((start, len(rendered) - 1))
    return parts


def _header(conv: Conversation, part: int, first: int, last: int) -> dict[str, Any]:
    meta: dict[str, Any] = {"format": conv.fmt, "conversation": conv.id, "part": part,
                            "first_turn": first, "last_turn": last}
    if conv.started_at:
        meta["started_at"] = conv.started_at
    if conv.project:
        meta["project"] = conv.project
    title = conv.title if part == 1 else f"{conv.title} (part {part})"
    return {"title": title, "type": PAGE_TYPE, "transcript": meta}


def _intro(conv: Conversation, base: str, part: int, first: int, last: int) -> str:
    bits = [f"{conv.fmt} conversation `{conv.id}`"]
    if conv.started_at:
        bits.append(f"started {conv.started_at}")
    if conv.project:
        bits.append(f"in `{conv.project}`")
    line = ", ".join(bits) + f" · turns {first + 1}–{last + 1}"
    if part > 1:
        line += f" · previous: [[{part_slug(base, part - 1)}|part {part - 1}]]"
    return line


def render_parts(
    conv: Conversation, mentions: MentionFinder | None = None, *, private: bool = False
) -> list[PartPage]:
    """The pages of ``conv`` (its turns already scrubbed and clipped).

    Args:
        conv: the conversation.
        mentions: (slug, name) of the entities a text names
            (``EntityIndex.find``), applied to each part's turns; None: no links.
        private: mark the pages ``visibility: private``.
    """
    base = conversation_slug(conv.fmt, conv.id)
    rendered = [render_turn(t) for t in conv.turns]
    pages: list[PartPage] = []
    for number, (first, last) in enumerate(split_parts(rendered), start=1):
        slug = part_slug(base, number)
        title = conv.title if number == 1 else f"{conv.title} (part {number})"
        body = [f"# {title}", "", _intro(conv, base, number, first, last), "",
                *rendered[first:last + 1]]
        found = mentions("\n".join(t.text for t in conv.turns[first:last + 1])) if mentions else ()
        if found:
            body += ["## Mentions", "", " · ".join(f"[[{s}|{n}]]" for s, n in found), ""]
        header = _header(conv, number, first, last)
        if private:
            header["visibility"] = "private"
        content = render_frontmatter(header) + "\n".join(body)
        pages.append(PartPage(slug, number, first, last, content))
    return pages
