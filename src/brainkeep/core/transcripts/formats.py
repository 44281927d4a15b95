"""Which format a transcript file is in, and parsing it into conversations."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

from brainkeep.core.transcripts import claude_code, codex, exports
from brainkeep.core.transcripts.model import FORMATS, ParsedFile
from brainkeep.core.transcripts.reading import LineLog, json_document, jsonl_objects, read_bytes
from brainkeep.errors import InvalidInput

_SNIFF_LINES = 50  # JSONL objects looked at to tell Claude Code from Codex


def _unzip(path: Path, data: bytes) -> bytes:
    """``conversations.json`` out of a data-export .zip (ChatGPT and Claude.ai)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"]
            if not names:
                raise InvalidInput(f"{str(path)!r} has no conversations.json inside.",
                                   suggestion="Pass the data export's .zip or its "
                                   "conversations.json.", field="path")
            return archive.read(min(names, key=len))
    except zipfile.BadZipFile as exc:
        raise InvalidInput(f"{str(path)!r} is not a readable .zip file.", field="path") from exc


def _is_json_document(data: bytes) -> bool:
    head = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"[")


def _sniff_jsonl(data: bytes) -> str | None:
    log = LineLog()
    for seen, obj in enumerate(jsonl_objects(data[: 4 << 20], log)):
        if codex.looks_like(obj):
            return codex.FORMAT
        if claude_code.looks_like(obj):
            return claude_code.FORMAT
        if seen >= _SNIFF_LINES:
            break
    return None


def _document_format(document: Any) -> str | None:
    if not isinstance(document, list):
        return None
    for item in document[:20]:
        if exports.looks_like_chatgpt(item):
            return "chatgpt"
        if exports.looks_like_claude_ai(item):
            return "claude-ai"
    return None


def _check_format(fmt: str) -> None:
    if fmt != "auto" and fmt not in FORMATS:
        raise InvalidInput(f"Unknown transcript format {fmt!r}.",
                           suggestion=f"Use auto or one of: {', '.join(FORMATS)}.",
                           field="format")


def detect_format(path: Path) -> str:
    """The format of the file at ``path``.

    Raises:
        InvalidInput: unreadable, or in none of ``FORMATS``.
    """
    return parse(path, "auto").fmt


def parse(path: Path, fmt: str = "auto") -> ParsedFile:
    """Every conversation in the file at ``path``.

    JSONL logs (claude-code, codex) skip and count bad lines; whole-JSON
    exports (chatgpt, claude-ai; a .zip holding conversations.json works too)
    must parse as a whole.

    Raises:
        InvalidInput: unreadable file, invalid JSON export, unknown format,
            or a file that is not in the format named.
    """
    _check_format(fmt)
    path = Path(path)
    data = read_bytes(path)
    if data[:4] == b"PK\x03\x04":
        data = _unzip(path, data)
    if _is_json_document(data) and fmt in ("auto", "chatgpt", "claude-ai"):
        document = json_document(path, data)
        found = _document_format(document)
        if fmt == "auto":
            if found is None and document == []:
                return ParsedFile("chatgpt", ())
            fmt = found or fmt
        elif found is not None and found != fmt:
            raise _mismatch(path, fmt, found)
        if fmt == "chatgpt":
            return ParsedFile(fmt, exports.chatgpt(document))
        if fmt == "claude-ai":
            return ParsedFile(fmt, exports.claude_ai(document))
        raise _unknown(path)
    if fmt == "auto":
        fmt = _sniff_jsonl(data) or ""
        if not fmt:
            raise _unknown(path)
    if fmt == claude_code.FORMAT:
        return claude_code.parse(path, data)
    if fmt == codex.FORMAT:
        return codex.parse(path, data)
    raise _mismatch(path, fmt, "a JSONL log")


def transcript_files(root: Path) -> list[Path]:
    """The files under folder ``root`` an import reads, sorted.

    ``*.jsonl`` (Claude Code and Codex session logs), ``conversations.json``
    and ``*.zip`` (data exports); everything else in the folder (Claude
    Code's todos and settings, Codex's history.jsonl index...) is skipped by
    name or turns out to hold no conversation.
    """
    found = [
        p for p in root.rglob("*")
        if p.is_file() and (p.suffix in (".jsonl", ".zip") or p.name == "conversations.json")
        and p.name != "history.jsonl"
    ]
    return sorted(found)


def _unknown(path: Path) -> InvalidInput:
    return InvalidInput(
        f"{str(path)!r} is not a transcript brainkeep knows.",
        suggestion="Pass a Claude Code session .jsonl, a Codex rollout-*.jsonl, or a ChatGPT / "
        "Claude.ai export's conversations.json (or --format to say which).",
        field="path",
    )


def _mismatch(path: Path, fmt: str, found: str) -> InvalidInput:
    return InvalidInput(f"{str(path)!r} is not a {fmt} transcript (it looks like {found}).",
                        suggestion="Use --format auto.", field="format")
