"""Reading transcript files: JSONL lines (skip and count the bad ones), whole JSON,
and the short forms tool calls and results are kept in.

Tool calls and tool results are kept SHORT, not verbatim: a call is one line
(the tool's name and the first ``TOOL_CALL_CHARS`` of its input), a result its
first ``TOOL_RESULT_CHARS`` and its length. A coding session's tool output
(file dumps, logs, test runs) is most of its bytes and little of its meaning;
what the agent concluded from it is in the assistant's next turn. Thinking
and reasoning blocks are skipped (they are the model's scratch work; Codex
stores them encrypted anyway).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brainkeep.core.secrets import safe_cut, scrub_text
from brainkeep.errors import InvalidInput

TOOL_CALL_CHARS = 200
TOOL_RESULT_CHARS = 300
SCRUB_MARGIN = 4096  # characters scrubbed past a cut (see ``clip``)
MAX_PROBLEMS = 20  # problem notes kept per file (the count is exact)


@dataclass
class LineLog:
    """Bad lines seen while reading one file (counted; described by number only)."""

    skipped: int = 0
    problems: list[str] = field(default_factory=list)

    def skip(self, number: int, why: str) -> None:
        self.skipped += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(f"line {number}: {why}")


def read_bytes(path: Path) -> bytes:
    """The file's bytes, or ``InvalidInput`` saying why it cannot be read."""
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        raise InvalidInput(f"No file {str(path)!r}.", field="path") from exc
    except IsADirectoryError as exc:
        raise InvalidInput(f"{str(path)!r} is a folder.", suggestion="Name a transcript file "
                           "(or pass the folder to `transcripts import`, which walks it).",
                           field="path") from exc
    except OSError as exc:
        raise InvalidInput(f"Cannot read {str(path)!r}: {exc.strerror}.", field="path") from exc


def jsonl_objects(data: bytes, log: LineLog) -> Iterator[dict[str, Any]]:
    """Each line of ``data`` that is a JSON object; other lines are skipped into ``log``."""
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            log.skip(number, "not valid UTF-8")
            continue
        except ValueError:
            log.skip(number, "not valid JSON")
            continue
        if not isinstance(value, dict):
            log.skip(number, "not a JSON object")
            continue
        yield value


def json_document(path: Path, data: bytes) -> Any:
    """A whole-file JSON export (ChatGPT, Claude.ai), or ``InvalidInput``."""
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{str(path)!r} is not valid UTF-8 (byte {exc.start}).",
            suggestion="Re-download the export; a data export is UTF-8 JSON.",
            field="path",
        ) from exc
    except ValueError as exc:
        raise InvalidInput(
            f"{str(path)!r} is not valid JSON: {exc}.",
            suggestion="Pass the export's conversations.json (unzipped) or the .zip itself.",
            field="path",
        ) from exc


def clip(text: str, limit: int) -> str:
    """``text`` scrubbed, then cut to ``limit`` characters, saying how much was left out.

    Scrubbed first: a cut through a key would leave a piece no rule knows.
    Only the head is scrubbed (``SCRUB_MARGIN`` past the cut), so a 20 MB
    tool output costs what its first few KB do; a secret crossing the cut
    is whole inside the head (keys are far shorter than the margin; a PEM
    block cut short is still matched from its BEGIN line).
    """
    text = text.strip()
    total = len(text)
    head = scrub_text(text[: limit + SCRUB_MARGIN]).strip()
    if total <= limit + SCRUB_MARGIN and len(head) <= limit:
        return head
    kept = safe_cut(head, limit).rstrip()
    return f"{kept}… (+{max(total - len(kept), 1)} chars)"


def one_line(value: Any) -> str:
    """A compact one-line rendering of a tool input (JSON, newlines folded)."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError):
            text = str(value)
    return " ".join(text.split())


def tool_call(name: str, arguments: Any) -> str:
    """The short form of a tool call: ``[tool call: NAME] input…``."""
    return f"[tool call: {name or 'tool'}] {clip(one_line(arguments), TOOL_CALL_CHARS)}".rstrip()


def tool_result(content: Any, *, error: bool = False) -> str:
    """The short form of a tool result: ``[tool result] first characters… (+N chars)``."""
    label = "[tool error]" if error else "[tool result]"
    return f"{label} {clip(block_text(content, tools=False), TOOL_RESULT_CHARS)}".rstrip()


def block_text(content: Any, *, tools: bool = True) -> str:
    """The readable text of a message's content: a string or a list of blocks.

    Text blocks are kept verbatim and joined by blank lines; tool_use and
    tool_result blocks become their short forms (when ``tools``); images
    become ``[image]``; thinking blocks are left out.
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return str(content)
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
            continue
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in ("text", "input_text", "output_text") or (kind is None and "text" in block):
            text = block.get("text")
            if isinstance(text, str):
                parts.append(text)
        elif kind == "tool_use" and tools:
            parts.append(tool_call(str(block.get("name") or ""), block.get("input")))
        elif kind == "tool_result" and tools:
            parts.append(tool_result(block.get("content"), error=bool(block.get("is_error"))))
        elif kind in ("image", "input_image", "image_url"):
            parts.append("[image]")
    return "\n\n".join(p for p in parts if p.strip())


def iso_from_epoch(value: Any) -> str | None:
    """Epoch seconds (ChatGPT's create_time) as ISO 8601 UTC, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        moment = dt.datetime.fromtimestamp(float(value), tz=dt.UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def iso_text(value: Any) -> str | None:
    """A timestamp string as given (ISO 8601 in every supported format), else None."""
    return value.strip() if isinstance(value, str) and value.strip() else None


def first_line_title(text: str, limit: int = 80) -> str:
    """A title from a first message: its first non-empty line, scrubbed, clipped."""
    for line in scrub_text(text).splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= limit else safe_cut(line, limit - 1).rstrip() + "…"
    return ""
