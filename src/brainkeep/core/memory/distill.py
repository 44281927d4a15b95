"""The Distiller of the orientation cache: what a recalled memory contributes to the map.

Deterministic and model-free (zero LLM): the same memory always yields the
same observations, in the same order, on every server process, so maps built
by several processes on one brain agree. The rules (docs/grpc.md,
"Orientation cache"):

- **entities** — each tag (value ``tag``); ``@handles`` (``mention``);
  words with an inner capital, or a capital and a digit, like ``PostgreSQL``
  or ``S3`` (``identifier``); and names: runs of up to four
  Title-case words (``Alice Chen``), where function words (``When``,
  ``The``) at either end of a run are dropped and a single word counts only
  away from a sentence start (``name``);
- **constants** — ``key = value`` / ``key := value`` for an identifier key,
  and ``key: value`` when the value looks like a constant (starts with a
  digit, is quoted or back-quoted, or is a path); the value is the key's;
- **schemas** — ``name(field, field, …)`` with at least two fields (a
  signature or a table; the value is the field list), the key set of each
  JSON object written in the text (key ``json``), and the key set of the
  memory's metadata (key ``metadata``).

Each kind keeps its first ``PER_KIND`` distinct observations of a memory;
keys are cut to ``MAX_KEY_CHARS``, values to ``MAX_VALUE_CHARS``.
"""

from __future__ import annotations

import json
import re

from brainkeep.core.memory.orientation_map import Observation
from brainkeep.core.models import Memory

PER_KIND = 8
MAX_KEY_CHARS = 80
MAX_VALUE_CHARS = 160
# A JSON object longer than this is not parsed (a memory is at most 64K).
MAX_JSON_CHARS = 4000

# Capitalized words that start sentences without naming anything.
_FUNCTION_WORDS = frozenset(
    "a an and as at but by for from he her his how i if in is it its my no not of on or our "
    "she so that the their then there these they this those to we what when where which who "
    "why will with you your yes please always never note see use do don't".split()
)
_WORD = r"[A-Z][a-z][A-Za-z'’-]*"
_NAME_RUN = re.compile(rf"(?<![\w@#]){_WORD}(?:[ \t]+{_WORD}){{0,3}}")
_IDENTIFIER = re.compile(r"(?<![\w@#.])(?:[A-Za-z]*[a-z][A-Z]\w*|[A-Z][A-Za-z]*\d\w*)(?!\w)")
_MENTION = re.compile(r"(?<![\w@])@([A-Za-z][\w.-]{0,62}\w)")
_SENTENCE_END = re.compile(r"[.!?:;\n]\s*$")
_KEY = r"[A-Za-z_][\w.-]{0,79}"
_QUOTED = r"\"[^\"\n]{1,160}\"|'[^'\n]{1,160}'|`[^`\n]{1,160}`"
_ASSIGN = re.compile(rf"(?<![\w.:/-])({_KEY})[ \t]*:?=[ \t]*({_QUOTED}|[^\s,;]{{1,160}})")
_COLON = re.compile(
    rf"(?<![\w.:/-])({_KEY}):[ \t]*(?!//)({_QUOTED}|\d[^\s,;]{{0,159}}|/[\w./-]{{1,159}})"
)
_FIELD = r"[A-Za-z_]\w*(?:[ \t]+[A-Za-z_][\w\[\]<>]*)?"
_SIGNATURE = re.compile(
    rf"(?<![\w.])([A-Za-z_][\w.]{{0,79}})[ \t]?\([ \t]*({_FIELD}(?:[ \t]*,[ \t]*{_FIELD})+)"
    r"[ \t]*\)"
)
_TRAILING = ".,;:!?)]}"


def _cut(text: str, limit: int) -> str:
    return text[:limit]


def _names(text: str) -> list[str]:
    found = []
    for match in _NAME_RUN.finditer(text):
        words = match.group(0).split()
        initial = match.start() == 0 or bool(_SENTENCE_END.search(text[: match.start()]))
        while words and words[0].lower() in _FUNCTION_WORDS:
            words = words[1:]
            initial = False  # what follows a function word is mid-sentence
        while words and words[-1].lower() in _FUNCTION_WORDS:
            words = words[:-1]
        if not words or (len(words) == 1 and initial):
            continue
        found.append(" ".join(w.rstrip("'’-") for w in words))
    return found


def _entities(memory: Memory) -> list[tuple[str, str]]:
    text = memory.text
    out = [(tag, "tag") for tag in memory.tags]
    out += [("@" + m.group(1), "mention") for m in _MENTION.finditer(text)]
    out += [(m.group(0), "identifier") for m in _IDENTIFIER.finditer(text)]
    out += [(name, "name") for name in _names(text)]
    return out


def _constant_value(raw: str) -> str:
    if raw[:1] in "\"'`" and raw[-1:] == raw[:1] and len(raw) > 1:
        return raw[1:-1]
    return raw.rstrip(_TRAILING)


def _constants(text: str) -> list[tuple[str, str]]:
    hits = [(m.start(), m.group(1), m.group(2)) for m in _ASSIGN.finditer(text)]
    hits += [(m.start(), m.group(1), m.group(2)) for m in _COLON.finditer(text)]
    out = []
    for _, key, raw in sorted(hits):
        value = _constant_value(raw)
        if value:
            out.append((key.rstrip(".-"), value))
    return out


def _json_objects(text: str) -> list[list[str]]:
    """Key lists of the JSON objects in ``text`` (outermost ones, each parsed at most once)."""
    decoder = json.JSONDecoder()
    out, at = [], text.find("{")
    while at != -1:
        try:
            value, end = decoder.raw_decode(text[at : at + MAX_JSON_CHARS])
        except ValueError:
            at = text.find("{", at + 1)
            continue
        if isinstance(value, dict) and value:
            out.append(sorted(str(k) for k in value))
        at = text.find("{", at + end)
    return out


def _schemas(memory: Memory) -> list[tuple[str, str]]:
    out = []
    for m in _SIGNATURE.finditer(memory.text):
        fields = ", ".join(" ".join(f.split()) for f in m.group(2).split(","))
        out.append((m.group(1), fields))
    out += [("json", ", ".join(keys)) for keys in _json_objects(memory.text)]
    if isinstance(memory.metadata, dict) and memory.metadata:
        out.append(("metadata", ", ".join(sorted(str(k) for k in memory.metadata))))
    return out


def _first(pairs: list[tuple[str, str]], kind: str, *, by_key: bool = False
           ) -> list[Observation]:
    """The first ``PER_KIND`` distinct pairs (``by_key``: distinct keys, the first value wins)."""
    seen: dict[object, tuple[str, str]] = {}
    for key, value in pairs:
        pair = (_cut(key, MAX_KEY_CHARS), _cut(value, MAX_VALUE_CHARS))
        mark = pair[0] if by_key else pair
        if pair[0].strip() and mark not in seen:
            seen[mark] = pair
            if len(seen) == PER_KIND:
                break
    return [Observation(kind, key, value) for key, value in seen.values()]


def distill(memory: Memory) -> list[Observation]:
    """The observations ``memory`` contributes: entities, then constants, then schemas."""
    return (_first(_entities(memory), "entity", by_key=True)
            + _first(_constants(memory.text), "constant")
            + _first(_schemas(memory), "schema"))
