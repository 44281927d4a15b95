"""Slugs, alias normalization and entity-name canonicalization.

The slug rule (also in docs/data-model.md):

* one or more segments joined by ``/`` (``people/alice-example``), at most
  8 segments and 200 characters in all;
* each segment is lowercase ASCII letters and digits, optionally joined by
  single ``-``, ``_`` or ``.`` characters; it starts and ends with a letter or
  digit (so no empty segment, no ``..``, no leading or trailing ``/``).
"""

from __future__ import annotations

import re
import unicodedata

from brainkeep.errors import InvalidInput

MAX_SLUG_LENGTH = 200
MAX_SLUG_SEGMENTS = 8

_SEGMENT = r"[a-z0-9]+(?:[-_.][a-z0-9]+)*"
_SLUG_RE = re.compile(rf"^{_SEGMENT}(?:/{_SEGMENT})*$")


def is_valid_slug(slug: str) -> bool:
    """True when ``slug`` follows the slug rule."""
    return (
        isinstance(slug, str)
        and len(slug) <= MAX_SLUG_LENGTH
        and slug.count("/") < MAX_SLUG_SEGMENTS
        and _SLUG_RE.match(slug) is not None
    )


def validate_slug(slug: str, *, field: str = "slug") -> str:
    """Return ``slug`` unchanged, or raise ``InvalidInput`` explaining the rule."""
    if not is_valid_slug(slug):
        suggestion = (
            "Use lowercase letters, digits and single '-', '_' or '.' inside segments, "
            "with '/' between segments, e.g. 'people/alice-example'"
        )
        guess = slugify(slug) if isinstance(slug, str) else ""
        if guess and is_valid_slug(guess):
            suggestion += f" (did you mean '{guess}'?)"
        raise InvalidInput(
            f"Invalid slug {slug!r}.",
            suggestion=suggestion + ".",
            detail=f"slugs match {_SLUG_RE.pattern} and are at most {MAX_SLUG_LENGTH} characters",
            field=field,
        )
    return slug


# The Unicode combining-mark blocks (diacritics after NFKD decomposition). One
# regex pass runs in C; a per-character unicodedata.combining() loop was the
# hottest line of search on long chunks.
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def strip_accents(text: str) -> str:
    """Drop combining marks: 'Zoë Ñúñez' -> 'Zoe Nunez'."""
    return _COMBINING.sub("", unicodedata.normalize("NFKD", text))


def normalize_alias(text: str) -> str:
    """Normalize a name for lookup: case, accents and punctuation folded away.

    'Dr. Zoë O'Brien-Smith' -> 'dr zoe o brien smith'.
    """
    # ASCII text has no accents to strip, and casefold() equals lower() on it:
    # skipping the NFKD pass matters on bulk import (every title and alias).
    folded = text.lower() if text.isascii() else strip_accents(text).casefold()
    words = re.sub(r"[^0-9a-z]+", " ", folded)
    return " ".join(words.split())


def slugify_segment(text: str) -> str:
    """Turn free text into one slug segment: 'Alice Example' -> 'alice-example'."""
    folded = strip_accents(text).casefold()
    segment = re.sub(r"[^0-9a-z_.]+", "-", folded)
    segment = re.sub(r"[-_.]{2,}", "-", segment)
    return segment.strip("-_.")


def slugify(text: str) -> str:
    """Turn a path-like name into a slug, segment by segment."""
    segments = [slugify_segment(part) for part in str(text).split("/")]
    return "/".join(seg for seg in segments if seg)


def slug_title(slug: str) -> str:
    """A readable fallback title from the last slug segment."""
    last = slug.rsplit("/", 1)[-1]
    return " ".join(word.capitalize() for word in re.split(r"[-_.]", last) if word)
