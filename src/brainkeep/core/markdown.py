"""Markdown pages: frontmatter, links, timeline — parse and render.

A page's stored ``content`` (markdown with optional YAML frontmatter) is its
single source of truth: everything else (title, aliases, links, timeline,
chunks) is derived from it, so export writes ``content`` back verbatim and
import(export(brain)) reproduces the same pages.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import yaml

from brainkeep.core import validate
from brainkeep.core.limits import MAX_JSON_DEPTH, MAX_SEARCH_CONTEXT_CHARS
from brainkeep.core.models import LinkSpec, Page, ParsedPage, TimelineSpec
from brainkeep.core.slugs import is_valid_slug, slug_title
from brainkeep.errors import InvalidInput

# libyaml's loader is ~10x faster than the pure-Python one; import speed
# (>= 1,000 files/s) depends on it. Fall back when PyYAML was built without it.
_YamlLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_YamlDumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

# Frontmatter keys with a meaning of their own; never read as typed links.
RESERVED_KEYS = frozenset({"title", "type", "aliases", "summary", "visibility", "tags",
                           "search_context"})
# Text the dense model reads with every chunk of the page and recall never
# returns: what a chunk means but does not say (a conversational turn's
# previous turn). docs/search.md "Context for each turn".
SEARCH_CONTEXT_KEY = "search_context"

_FRONTMATTER_RE = re.compile(r"\A---[ \t]*\r?\n(.*?)(?:\r?\n)?^---[ \t]*(?:\r?\n|\Z)", re.S | re.M)
# Public: the console links the same two forms in rendered page text
# (console/markdown_html.py), so what it links is what the link graph holds.
WIKILINK_RE = re.compile(r"\[\[([^\[\]|]+?)(?:\|([^\[\]]*))?\]\]")
MDLINK_RE = re.compile(r"(?<!!)\[([^\[\]]*)\]\(([^()\s]+)\)")
_TIMELINE_HEADING_RE = re.compile(r"^##[ \t]+Timeline[ \t]*$", re.M | re.I)
_H2_RE = re.compile(r"^##[ \t]+\S", re.M)
_TIMELINE_LINE_RE = re.compile(r"^[-*][ \t]+(\d{4}-\d{2}-\d{2})[ \t]*:[ \t]*(.+?)[ \t]*$")


def normalize_content(content: str) -> str:
    """Canonical page text: LF line endings, no leading byte-order mark.

    Pages are hashed and parsed in this form, so a note saved on Windows
    (CRLF, often with a BOM) keeps its frontmatter and timeline, and
    import(export(brain)) reproduces the same content hash.
    """
    if content.startswith("\ufeff"):
        content = content[1:]
    if "\r" in content:
        content = content.replace("\r\n", "\n").replace("\r", "\n")
    return content


def _refuse_expansion(raw: str) -> None:
    """Reject anchors, aliases and deep nesting from the YAML event stream, BEFORE
    any value is built.

    An alias is a pointer: nine levels of ``&a [*b, *b, ...]`` in 452 bytes
    expand to gigabytes (the "billion laughs"), and the expansion is what
    would be stored and served. Frontmatter never needs them, so they are
    refused outright rather than measured after the damage; nesting is
    capped at the JSON depth every other caller input gets (docs/limits.md).
    """
    depth = 0
    for event in yaml.parse(raw, Loader=_YamlLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise InvalidInput(
                "YAML anchors and aliases (&name, *name, <<: *name) are not allowed in "
                "frontmatter.",
                suggestion="Write each value out in full instead of referring to an anchor.",
                field="content",
            )
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise InvalidInput(
                    f"Frontmatter nests deeper than {MAX_JSON_DEPTH} levels.",
                    suggestion="Flatten the frontmatter (docs/limits.md).",
                    field="content",
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def split_frontmatter(content: str) -> tuple[dict[str, Any], str]:
    """Split ``content`` into (frontmatter mapping, body).

    Raises:
        InvalidInput: the frontmatter is not valid YAML or not a mapping, or
            uses anchors/aliases, or nests deeper than ``MAX_JSON_DEPTH``.
    """
    match = _FRONTMATTER_RE.match(content)
    if not match:
        return {}, content
    raw = match.group(1)
    try:
        if not raw.strip():
            data: Any = {}
        else:
            _refuse_expansion(raw)
            data = yaml.load(raw, Loader=_YamlLoader)
    except ValueError as exc:
        # PyYAML builds dates eagerly: "2026-02-30" raises from datetime.date.
        raise InvalidInput(
            "The frontmatter holds a date or time that does not exist.",
            suggestion="Fix the date (YYYY-MM-DD, a real day) or quote it to keep it as text.",
            detail=str(exc),
            field="content",
        ) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise InvalidInput(
            f"Malformed YAML frontmatter{where}.",
            suggestion=(
                "Fix the YAML between the leading '---' lines (quote values containing ':' "
                "or '#'), or remove the frontmatter block."
            ),
            detail=str(exc).splitlines()[0] if str(exc) else None,
            field="content",
        ) from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidInput(
            "Frontmatter must be a YAML mapping of keys to values.",
            suggestion="Write frontmatter as 'key: value' lines between '---' markers.",
            detail=f"got a YAML {type(data).__name__}",
            field="content",
        )
    return _jsonable(data), content[match.end() :]


def _jsonable(value: Any) -> Any:
    """Make YAML values JSON-safe (dates become ISO strings, keys strings)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    return value


def link_target(raw: str) -> str | None:
    """Turn a link target (`people/a.md`, `/people/a`, `./people/a`) into a slug, or None."""
    target = raw.strip()
    if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
        return None
    target = target.split("#", 1)[0]
    while target.startswith(("./", "/")):
        target = target[2:] if target.startswith("./") else target[1:]
    if target.endswith(".md"):
        target = target[:-3]
    return target if is_valid_slug(target) else None


def _looks_like_slug_ref(value: Any) -> bool:
    # A frontmatter value is a typed link only when it is a namespaced slug
    # whose first segment starts with a letter, so '2024/01/02' stays a value.
    return isinstance(value, str) and "/" in value and value[:1].isalpha() and is_valid_slug(value)


def _frontmatter_links(frontmatter: dict[str, Any]) -> list[LinkSpec]:
    links: list[LinkSpec] = []
    for key, value in frontmatter.items():
        if key in RESERVED_KEYS:
            continue
        values = value if isinstance(value, list) else [value]
        if values and all(_looks_like_slug_ref(v) for v in values):
            links.extend(LinkSpec(v, key, "frontmatter") for v in values)
    return links


def _body_links(body: str) -> list[LinkSpec]:
    links: list[LinkSpec] = []
    for match in WIKILINK_RE.finditer(body):
        target = link_target(match.group(1))
        if target:
            links.append(LinkSpec(target, "mentions", "mentions", (match.group(2) or "").strip()))
    for match in MDLINK_RE.finditer(body):
        target = link_target(match.group(2))
        if target:
            links.append(LinkSpec(target, "mentions", "markdown", match.group(1).strip()))
    return links


def split_timeline(body: str) -> tuple[str, str]:
    """Return (compiled truth, timeline section text) of a page body."""
    heading = _TIMELINE_HEADING_RE.search(body)
    if not heading:
        return body, ""
    after = body[heading.end() :]
    next_h2 = _H2_RE.search(after)
    section = after[: next_h2.start()] if next_h2 else after
    rest = after[next_h2.start() :] if next_h2 else ""
    truth = (body[: heading.start()].rstrip() + ("\n\n" + rest if rest else "")).strip()
    return truth, section


def parse_timeline(section: str) -> list[TimelineSpec]:
    """Parse `- YYYY-MM-DD: summary` lines; indented lines below become detail."""
    entries: list[TimelineSpec] = []
    current: dict[str, Any] | None = None
    for line in section.splitlines():
        match = _TIMELINE_LINE_RE.match(line)
        if match and _valid_date(match.group(1)):
            if current:
                entries.append(_timeline_spec(current))
            current = {"date": match.group(1), "summary": match.group(2), "detail": []}
        elif current and line.startswith((" ", "\t")) and line.strip():
            current["detail"].append(line.strip())
        elif line.strip():
            if current:
                entries.append(_timeline_spec(current))
            current = None
    if current:
        entries.append(_timeline_spec(current))
    return entries


def _timeline_spec(raw: dict[str, Any]) -> TimelineSpec:
    return TimelineSpec(raw["date"], raw["summary"], "\n".join(raw["detail"]))


def _valid_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _aliases(frontmatter: dict[str, Any]) -> tuple[str, ...]:
    raw = frontmatter.get("aliases")
    if raw is None:
        return ()
    values = raw if isinstance(raw, list) else [raw]
    return tuple(str(v).strip() for v in values if str(v).strip())


def _first_heading(body: str) -> str | None:
    match = re.search(r"^#[ \t]+(.+?)[ \t]*#*[ \t]*$", body, re.M)
    return match.group(1).strip() if match else None


# Namespace -> page type when frontmatter has no `type`.
_NAMESPACE_TYPES = {"people": "person", "companies": "company", "projects": "project"}


def default_type(slug: str) -> str:
    """Type implied by a slug's namespace: 'people/x' -> 'person'; no namespace -> 'note'."""
    if "/" not in slug:
        return "note"
    namespace = slug.split("/", 1)[0]
    return _NAMESPACE_TYPES.get(namespace, namespace)


def parse_page(slug: str, content: str) -> ParsedPage:
    """Parse a page's markdown into its meaning.

    Raises:
        InvalidInput: NUL characters, malformed frontmatter or an unknown visibility.
    """
    validate.text(content, "content")
    frontmatter, body = split_frontmatter(content)
    visibility = str(frontmatter.get("visibility", "world")).strip().lower()
    if visibility not in ("world", "private"):
        raise InvalidInput(
            f"Unknown visibility {frontmatter.get('visibility')!r}.",
            suggestion="Set frontmatter `visibility` to `world` (default) or `private`.",
            field="content",
        )
    truth, timeline_text = split_timeline(body)
    title = str(frontmatter.get("title") or _first_heading(body) or slug_title(slug)).strip()
    page_type = str(frontmatter.get("type") or default_type(slug)).strip()
    summary = frontmatter.get("summary")
    links = _dedupe_links(_frontmatter_links(frontmatter) + _body_links(body), slug)
    return ParsedPage(
        title=title,
        type=page_type,
        frontmatter=frontmatter,
        body=truth,
        summary=str(summary).strip() if summary else None,
        visibility=visibility,
        aliases=_aliases(frontmatter),
        links=tuple(links),
        timeline=tuple(parse_timeline(timeline_text)),
        search_context=_search_context(frontmatter),
    )


def search_context_of(value: Any) -> str:
    """A stored page's search context: its frontmatter value when that is text, else none."""
    return value.strip() if isinstance(value, str) else ""


def chunk_heading(title: str, context: str = "") -> str:
    """What heads every chunk of a page for the models: its title, then its search context.

    The context (frontmatter ``search_context``) is what a chunk means but
    does not say: a reply such as "Yes, twice last year" only means something
    after the question it answers. The dense model reads it; recall never
    returns it (the lexical arms read the chunk under its title alone).
    """
    if not context:
        return title
    return f"{title} ({context})" if title else context


def page_heading(page: Page) -> str:
    """``chunk_heading`` of a stored page."""
    return chunk_heading(page.title, search_context_of(page.frontmatter.get(SEARCH_CONTEXT_KEY)))


def _search_context(frontmatter: dict[str, Any]) -> str:
    value = frontmatter.get(SEARCH_CONTEXT_KEY)
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > MAX_SEARCH_CONTEXT_CHARS:
        raise InvalidInput(
            f"Frontmatter `{SEARCH_CONTEXT_KEY}` must be text of at most "
            f"{MAX_SEARCH_CONTEXT_CHARS} characters.",
            suggestion="Give the few sentences a reader needs to understand the page's chunks "
                       "(docs/search.md).",
            field="content",
        )
    return search_context_of(value)


def _dedupe_links(links: list[LinkSpec], own_slug: str) -> list[LinkSpec]:
    seen: set[tuple[str, str]] = set()
    unique: list[LinkSpec] = []
    for link in links:
        key = (link.to_slug, link.link_type)
        if link.to_slug == own_slug or key in seen:
            continue
        seen.add(key)
        unique.append(link)
    return unique


def render_frontmatter(frontmatter: dict[str, Any]) -> str:
    """Dump a frontmatter mapping as a `---` block (empty mapping: no block)."""
    if not frontmatter:
        return ""
    dumped = yaml.dump(frontmatter, Dumper=_YamlDumper, sort_keys=False, allow_unicode=True)
    return f"---\n{dumped}---\n"


def with_frontmatter(content: str, frontmatter: dict[str, Any]) -> str:
    """Replace the frontmatter of ``content`` with ``frontmatter``."""
    _, body = split_frontmatter(content)
    return render_frontmatter(frontmatter) + body


def append_timeline_line(content: str, date: str, summary: str, detail: str = "") -> str:
    """Add a `- date: summary` line to the `## Timeline` section, creating it if absent."""
    line = f"- {date}: {summary}"
    if detail:
        line += "".join(f"\n  {d}" for d in detail.splitlines() if d.strip())
    heading = _TIMELINE_HEADING_RE.search(content)
    if not heading:
        return content.rstrip("\n") + f"\n\n## Timeline\n\n{line}\n"
    after = content[heading.end() :]
    next_h2 = _H2_RE.search(after)
    end = heading.end() + (next_h2.start() if next_h2 else len(after))
    section = content[heading.end() : end].rstrip("\n")
    rest = content[end:]
    joined = f"{section}\n{line}\n" if section.strip() else f"\n\n{line}\n"
    return content[: heading.end()] + joined + ("\n" + rest if rest else "")
