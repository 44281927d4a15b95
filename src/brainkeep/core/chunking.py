"""Split page text into overlapping chunks for search.

Chunks hold at most ``CHUNK_CHARS`` characters (about 200 tokens at the
char/4 estimate) and the next chunk repeats the last ``OVERLAP_CHARS`` of the
previous one, so a sentence cut at a boundary is still found whole in one of
them. Splits prefer paragraph, then sentence, then word boundaries. The
timeline is chunked separately from the compiled truth.
"""

from __future__ import annotations

import re

from brainkeep.core.models import Chunk, TimelineSpec

CHUNK_CHARS = 800
OVERLAP_CHARS = 120


def split_text(text: str, *, size: int = CHUNK_CHARS, overlap: int = OVERLAP_CHARS) -> list[str]:
    """Split ``text`` into chunks of at most ``size`` chars with ``overlap``."""
    text = text.strip()
    if not text:
        return []
    if len(text) <= size:
        return [text]
    chunks: list[str] = []
    start = 0
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text):
            end = _best_break(text, start, end)
        piece = text[start:end].strip()
        if piece:
            chunks.append(piece)
        if end >= len(text):
            break
        next_start = max(end - overlap, start + 1)
        # Begin the overlap at a word boundary so chunks don't start mid-word.
        space = text.find(" ", next_start, end)
        start = space + 1 if space != -1 else next_start
    return chunks


def _best_break(text: str, start: int, end: int) -> int:
    window = text[start:end]
    floor = len(window) // 2
    for pattern in (r"\n\s*\n", r"[.!?]\s", r"\s"):
        breaks = [m.end() for m in re.finditer(pattern, window) if m.end() > floor]
        if breaks:
            return start + breaks[-1]
    return end


def page_chunks(title: str, body: str, timeline: tuple[TimelineSpec, ...]) -> tuple[Chunk, ...]:
    """Chunks of a page: compiled truth first, then the timeline."""
    chunks: list[Chunk] = []
    for text in split_text(body):
        chunks.append(Chunk(len(chunks), "truth", text))
    timeline_text = "\n".join(f"{e.date}: {e.summary}" for e in timeline)
    for text in split_text(timeline_text):
        chunks.append(Chunk(len(chunks), "timeline", text))
    if not chunks and title:
        chunks.append(Chunk(0, "truth", title))
    return tuple(chunks)
