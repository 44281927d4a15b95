"""The slug rule, alias normalization and slugify."""

from __future__ import annotations

import pytest

from brainkeep.core.slugs import (
    MAX_SLUG_LENGTH,
    is_valid_slug,
    normalize_alias,
    slug_title,
    slugify,
    validate_slug,
)
from brainkeep.errors import InvalidInput


@pytest.mark.parametrize(
    "slug",
    [
        "alice",
        "people/alice-example",
        "companies/acme_example",
        "notes/2024/q1.review",
        "a/b/c/d/e/f/g/h",  # 8 segments: the maximum
        pytest.param("x" * MAX_SLUG_LENGTH, id="max-length"),
        "v2/api-v1.0",
    ],
)
def test_valid_slugs(slug: str) -> None:
    assert is_valid_slug(slug)
    assert validate_slug(slug) == slug


@pytest.mark.parametrize(
    "slug",
    [
        "",
        "People/Alice",  # uppercase
        "people/alice example",  # space
        "/people/alice",  # leading slash
        "people/alice/",  # trailing slash
        "people//alice",  # empty segment
        "people/../etc",  # dot-dot
        "people/-alice",  # segment starts with a joiner
        "people/alice--example",  # doubled joiner
        "people/zoë",  # non-ASCII
        "a/b/c/d/e/f/g/h/i",  # 9 segments
        pytest.param("x" * (MAX_SLUG_LENGTH + 1), id="too-long"),
        "people/alice.md?",
    ],
)
def test_invalid_slugs_are_rejected_with_the_rule(slug: str) -> None:
    assert not is_valid_slug(slug)
    with pytest.raises(InvalidInput) as info:
        validate_slug(slug)
    assert info.value.field == "slug"
    assert "people/alice-example" in info.value.suggestion


def test_invalid_slug_suggests_its_slugified_form() -> None:
    with pytest.raises(InvalidInput) as info:
        validate_slug("People/Alice Example")
    assert "did you mean 'people/alice-example'" in info.value.suggestion


def test_non_string_slug_is_invalid() -> None:
    assert not is_valid_slug(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("Dr. Zoë O'Brien-Smith", "dr zoe o brien smith"),
        ("  ACME,   Inc. ", "acme inc"),
        ("José Ñúñez", "jose nunez"),
        ("Straße", "strasse"),  # casefold, not just lower
        ("ÅNGSTRÖM", "angstrom"),
        ("Bob", "bob"),
        ("!!!", ""),
    ],
)
def test_normalize_alias_folds_case_accents_and_punctuation(raw: str, normalized: str) -> None:
    assert normalize_alias(raw) == normalized


def test_accented_and_plain_spellings_meet() -> None:
    assert normalize_alias("Zoë Example") == normalize_alias("zoe  EXAMPLE")


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Alice Example", "alice-example"),
        ("People/Alice Example", "people/alice-example"),
        ("Zoë O'Brien", "zoe-o-brien"),
        ("notes//2024 Review/", "notes/2024-review"),
        ("  --weird__name--  ", "weird-name"),
    ],
)
def test_slugify(text: str, slug: str) -> None:
    assert slugify(text) == slug
    assert is_valid_slug(slug)


def test_slug_title_from_last_segment() -> None:
    assert slug_title("people/alice-example") == "Alice Example"
    assert slug_title("notes/q1_review.final") == "Q1 Review Final"
