"""Page text as HTML: a small markdown subset, rendered safely, wikilinks linked.

Page text is written by agents, so it is untrusted: no HTML in it ever
reaches the browser as markup. Every piece of source text is escaped first;
the only tags in the output are the ones this module writes:

* blocks: headings (shifted below the page's own ``<h1>``/``<h2>``),
  paragraphs, ``-``/``*``/``+`` and ``1.`` lists (nested by indentation),
  ``>`` quotes, fenced code, ``---`` rules;
* inline: ``**strong**``, ``*em*``/``_em_``, `` `code` ``, ``[label](url)``
  and ``[[slug]]`` / ``[[slug|label]]``.

A wikilink, and a markdown link to a page path (``people/ada.md``), go to
that entity's console page. Other links keep their URL only when it is
``http``/``https`` or relative (no scheme); ``javascript:``, ``data:`` and
every other scheme are shown as text. The two link forms are the ones
``core/markdown.py`` reads a page's links with, so what is linked here is
what the link graph holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from brainkeep.core.markdown import MDLINK_RE, WIKILINK_RE, link_target

EntityHref = Callable[[str], str]

SAFE_SCHEMES = ("http", "https")
# The page shows its title as <h1> and "Page text" as <h2>: '#' becomes <h3>.
HEADING_SHIFT = 2
# Emphasis spans are bounded so a paragraph of unmatched markers stays linear.
_SPAN = r"(?=\S)(.{1,400}?)(?<=\S)"
_EMPHASIS = (
    (re.compile(r"\*\*" + _SPAN + r"\*\*", re.S), "strong"),
    (re.compile(r"(?<!\w)__" + _SPAN + r"__(?!\w)", re.S), "strong"),
    (re.compile(r"(?<![*\w])\*(?!\*)" + _SPAN + r"(?<!\*)\*(?![*\w])", re.S), "em"),
    (re.compile(r"(?<!\w)_(?!_)" + _SPAN + r"(?<!_)_(?!\w)", re.S), "em"),
)
_CODE_SPAN = r"`[^`\n]{1,2000}`"
_TOKEN = re.compile(
    f"(?P<code>{_CODE_SPAN})|(?P<wiki>{WIKILINK_RE.pattern})|(?P<link>{MDLINK_RE.pattern})")
_PLACEHOLDER = re.compile("\x00(\\d+)\x00")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_ITEM = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])[ \t]+(.*)$")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_QUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?(.*)$")
# What a browser ignores inside a URL before it reads the scheme (tab, newline, controls).
_URL_IGNORED = re.compile(r"[\x00-\x20\x7f]")
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")


def safe_href(url: str) -> str | None:
    """``url`` when it is http(s) or relative, else None (``javascript:`` and friends)."""
    cleaned = _URL_IGNORED.sub("", url)
    scheme = _SCHEME.match(cleaned)
    if scheme is None:
        return url
    return url if scheme.group(1).lower() in SAFE_SCHEMES else None


@dataclass
class _Inline:
    """Inline markup of one block: links and code set aside, the rest escaped."""

    entity_href: EntityHref
    parts: list[str] = field(default_factory=list)

    def render(self, text: str) -> str:
        # NUL never occurs in page text (core/validate refuses it): safe as a placeholder.
        held = _TOKEN.sub(self._hold, text.replace("\x00", ""))
        html = str(escape(held))
        for pattern, tag in _EMPHASIS:
            html = pattern.sub(rf"<{tag}>\1</{tag}>", html)
        return _PLACEHOLDER.sub(lambda m: self.parts[int(m.group(1))], html)

    def _hold(self, match: re.Match[str]) -> str:
        self.parts.append(self._token(match))
        return f"\x00{len(self.parts) - 1}\x00"

    def _token(self, match: re.Match[str]) -> str:
        whole = match.group(0)
        if match.group("code"):
            return f"<code>{escape(whole[1:-1])}</code>"
        if match.group("wiki"):
            wiki = WIKILINK_RE.fullmatch(whole)
            assert wiki is not None
            slug = link_target(wiki.group(1))
            label = (wiki.group(2) or "").strip() or wiki.group(1).strip()
            if slug is None:
                return str(escape(whole))
            return self._entity(slug, label)
        link = MDLINK_RE.fullmatch(whole)
        assert link is not None
        label, url = link.group(1).strip() or link.group(2), link.group(2)
        slug = link_target(url)
        if slug is not None:
            return self._entity(slug, label)
        href = safe_href(url)
        if href is None:
            return str(escape(whole))
        return str(Markup('<a href="{}" rel="noopener noreferrer nofollow">{}</a>').format(
            href, label))

    def _entity(self, slug: str, label: str) -> str:
        return str(Markup('<a class="wikilink" href="{}">{}</a>').format(
            self.entity_href(slug), label))


@dataclass
class _Blocks:
    inline: _Inline
    out: list[str] = field(default_factory=list)
    paragraph: list[str] = field(default_factory=list)

    def flush(self) -> None:
        if self.paragraph:
            self.out.append(f"<p>{self.inline.render(chr(10).join(self.paragraph))}</p>")
            self.paragraph = []


def render_markdown(text: str, entity_href: EntityHref, *, title: str | None = None) -> Markup:
    """``text`` (a page body) as safe HTML.

    Args:
        text: The markdown (frontmatter already removed).
        entity_href: The console URL of an entity page, for a slug.
        title: The page's title: a first ``# Title`` equal to it is dropped
            (the page shows the title already).
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks = _Blocks(_Inline(entity_href))
    _render(lines, blocks, title)
    blocks.flush()
    return Markup("\n".join(blocks.out))


def _render(lines: list[str], blocks: _Blocks, title: str | None) -> None:
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        heading = _HEADING.match(line)
        if fence:
            blocks.flush()
            marker = fence.group(1)
            end = next((j for j in range(i + 1, len(lines))
                        if lines[j].strip().startswith(marker)), len(lines))
            blocks.out.append(f"<pre><code>{escape(chr(10).join(lines[i + 1:end]))}</code></pre>")
            i = end + 1
        elif not line.strip():
            blocks.flush()
            i += 1
        elif heading:
            blocks.flush()
            level, words = len(heading.group(1)), heading.group(2)
            if not (title is not None and level == 1 and not blocks.out
                    and words.strip() == title.strip()):
                tag = f"h{min(level + HEADING_SHIFT, 6)}"
                blocks.out.append(f"<{tag}>{blocks.inline.render(words)}</{tag}>")
            i += 1
        elif _RULE.match(line) and not blocks.paragraph:
            blocks.out.append("<hr>")
            i += 1
        elif _QUOTE.match(line):
            blocks.flush()
            inner: list[str] = []
            while i < len(lines) and (quoted := _QUOTE.match(lines[i])):
                inner.append(quoted.group(1))
                i += 1
            nested = _Blocks(blocks.inline)
            _render(inner, nested, None)
            nested.flush()
            blocks.out.append("<blockquote>" + "\n".join(nested.out) + "</blockquote>")
        elif _ITEM.match(line):
            blocks.flush()
            i = _list(lines, i, blocks)
        else:
            blocks.paragraph.append(line)
            i += 1


def _indent(text: str) -> int:
    return len(text.expandtabs(4)) - len(text.expandtabs(4).lstrip())


def _starts_block(line: str) -> bool:
    return bool(_HEADING.match(line) or _FENCE.match(line) or _QUOTE.match(line)
                or _RULE.match(line))


@dataclass
class _Item:
    text: str
    sublists: list[str] = field(default_factory=list)


def _list(lines: list[str], start: int, blocks: _Blocks) -> int:
    """A list from ``lines[start]`` (nested lists by deeper indentation); the next line's index."""
    first = _ITEM.match(lines[start])
    assert first is not None
    base = _indent(lines[start])
    tag = "ol" if first.group(2)[0].isdigit() else "ul"
    items: list[_Item] = []
    i = start
    while i < len(lines):
        line = lines[i]
        item = _ITEM.match(line)
        if not line.strip():
            following = lines[i + 1] if i + 1 < len(lines) else ""
            if not _ITEM.match(following) or _indent(following) < base:
                break  # a blank line, then anything but another item, ends the list
            i += 1
        elif item and _indent(line) == base:
            if (item.group(2)[0].isdigit()) != (tag == "ol"):
                break  # "1." after "-" (or back) starts a list of the other kind
            items.append(_Item(item.group(3)))
            i += 1
        elif item and _indent(line) > base and items:
            nested = _Blocks(blocks.inline)
            i = _list(lines, i, nested)
            items[-1].sublists.extend(nested.out)
        elif item or _indent(line) < base or not items or _starts_block(line):
            break
        else:  # a continuation line of the item
            items[-1].text += "\n" + line.strip()
            i += 1
    shown = "".join(f"<li>{blocks.inline.render(it.text)}{''.join(it.sublists)}</li>"
                    for it in items)
    blocks.out.append(f"<{tag}>{shown}</{tag}>")
    return i
