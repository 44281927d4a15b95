"""Transcript import: agent session logs and chat exports as recallable pages.

``parse`` reads a file into ``Conversation`` values (formats.py and one
module per format); ``TranscriptImporter`` scrubs secrets, lays the turns
out as pages (layout.py), links them to the entities they mention
(mentions.py) and writes only what changed (importer.py). docs/agents.md
"Transcript import" describes the formats and the page layout.
"""

from brainkeep.core.transcripts.formats import detect_format, parse
from brainkeep.core.transcripts.importer import TranscriptImporter
from brainkeep.core.transcripts.model import (
    FORMATS,
    Conversation,
    ImportReport,
    ParsedFile,
    Turn,
)

__all__ = [
    "FORMATS",
    "Conversation",
    "ImportReport",
    "ParsedFile",
    "TranscriptImporter",
    "Turn",
    "detect_format",
    "parse",
]
