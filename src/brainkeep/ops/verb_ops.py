"""Catalog declarations of the seven MEMORY_VERBS v1 verbs."""

from __future__ import annotations

from typing import Any

from brainkeep.core import limits, validate
from brainkeep.core.models import FACT_KINDS, VISIBILITIES
from brainkeep.core.verbs import context_pack, delta, entity, recall, remember, synthesize
from brainkeep.ops.catalog import Operation, Param
from brainkeep.ops.context import OpContext

_BRANCH = (
    "Branch on structured fields, never on human text. Every response carries "
    "protocol_version."
)


def _session(p: dict[str, Any]) -> str | None:
    """Every verb's `session_id`, one rule: at most MAX_SESSION_CHARS (delta used to
    cut longer ids silently, so a remember and a delta could name different sessions)."""
    value = p.get("session_id")
    if value is None:
        return None
    return validate.text(value, "session_id", max_chars=limits.MAX_SESSION_CHARS)


def _query(p: dict[str, Any]) -> str | None:
    value = p.get("query")
    return None if value is None else validate.text(value, "query",
                                                    max_chars=limits.MAX_QUERY_CHARS)


def _recall(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    return recall.recall(
        ctx.brain.verbs, ctx.caller, entity=p.get("entity"), query=_query(p),
        since=p.get("since"), session_id=_session(p),
        include_expired=bool(p.get("include_expired")), grep=p.get("grep"),
        limit=p.get("limit"), budget_tokens=p.get("budget_tokens"),
    )


def _remember(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    return remember.remember(
        ctx.brain.verbs, ctx.caller, fact=p["fact"], provenance=p["provenance"],
        ttl=p.get("ttl"), entity=p.get("entity"), kind=p.get("kind"),
        visibility=p.get("visibility"), session_id=_session(p),
    )


def _entity(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    return entity.entity(ctx.brain.verbs, ctx.caller, name=p["name"])


def _synthesize(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    return synthesize.synthesize(
        ctx.brain.verbs, ctx.caller, question=p["question"], since=p.get("since"),
        until=p.get("until"),
    )


def _forget(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    return remember.forget(ctx.brain.verbs, ctx.caller, id=p["id"], reason=p.get("reason"),
                           redact=bool(p.get("redact")))


def _context_pack(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    return context_pack.context_pack(
        ctx.brain.verbs, ctx.caller, entities=p["entities"],
        budget_tokens=p.get("budget_tokens"),
        since=p.get("since"), session_id=_session(p),
        include_private=p.get("include_private"),
        orientation_namespace=p.get("orientation_namespace"),
    )


def _delta(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    return delta.delta(
        ctx.brain.verbs, ctx.caller, since=p.get("since"), since_slug=p.get("since_slug"),
        entities=p.get("entities"), budget_tokens=p.get("budget_tokens"),
        session_id=_session(p), include_private=p.get("include_private"),
    )


_BUDGET = Param(
    "budget_tokens", "number",
    "Token budget packed server-side (char/4 estimate); the response reports budget_used "
    "and dropped_count.",
)
_INCLUDE_PRIVATE = Param(
    "include_private", "boolean",
    "Also include private facts and pages. Honored only for the trusted local CLI; remote "
    "callers always get world-visible data.",
)

VERB_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        name="recall",
        description=(
            "MEMORY VERB (v1): retrieve saved facts — filter by entity, since and session_id "
            "(filters combine). Pass `query` to also search pages (results[]). budget_tokens "
            "packs facts first, then page snippets, server-side. Remote callers see "
            "world-visible facts only. Use `entity` for one card, `synthesize` for reasoning. "
            + _BRANCH
        ),
        params=(
            Param("entity", "string", "Person/company/project name or slug the facts are about."),
            Param("query", "string", "Search pages too (keyword, or hybrid with embeddings)."),
            _BUDGET,
            Param("since", "string", "Only facts recorded at/after this ISO 8601 date or time."),
            Param("session_id", "string", "Only facts saved in this session."),
            Param("include_expired", "boolean", "Also return expired facts (default false)."),
            Param("grep", "string", "Case-insensitive substring filter on fact text."),
            Param("limit", "number", "Per-arm cap: facts and search results each (default 50; "
                  "at least 1; above 100 means 100)."),
        ),
        scope="read",
        handler=_recall,
        verb=True,
        annotations={"title": "recall (memory read)", "readOnlyHint": True},
    ),
    Operation(
        name="remember",
        description=(
            "MEMORY VERB (v1): save ONE fact with mandatory provenance (free text: where it "
            "came from, e.g. \"conversation 2026-06-12\"). Set `entity` whenever the fact is "
            "about someone or something, or entity recall will not find it. ttl: \"30d\", "
            "\"12h\", \"45m\" or an ISO 8601 timestamp (ISO durations like P30D are rejected). "
            "visibility defaults to world (every connected agent can read it); private is "
            "readable by the local CLI only. Branch on `status`, never `status_text`; on "
            "`duplicate`, `id` is the existing fact. " + _BRANCH
        ),
        params=(
            Param("fact", "string", "One self-contained statement.", required=True),
            Param("provenance", "string", "Where the fact came from (at most 500 characters).",
                  required=True),
            Param("ttl", "string", "Lifetime: 30d, 12h, 45m, or an absolute ISO 8601 timestamp."),
            Param("entity", "string", "Who or what the fact is about (name or slug)."),
            Param("kind", "string", "Kind of fact (default fact).", enum=FACT_KINDS),
            Param("visibility", "string", "world (default) or private.", enum=VISIBILITIES),
            Param("session_id", "string", "Session to file the fact under (recall can filter "
                  "by it)."),
        ),
        scope="write",
        handler=_remember,
        verb=True,
        annotations={"title": "remember (memory write)", "idempotentHint": True},
    ),
    Operation(
        name="entity",
        description=(
            "MEMORY VERB (v1): one compact card for a known person, company or project — "
            "aliases, summary, open threads, typed edges, counts. Zero LLM calls. Resolution: "
            "alias > exact title > slug or slug suffix, most recently touched first. Never an "
            "error on a miss: found=false with near-miss suggestions and create_safety. "
            + _BRANCH
        ),
        params=(Param("name", "string", "Name, alias or slug to look up.", required=True),),
        scope="read",
        handler=_entity,
        verb=True,
        annotations={"title": "entity (card lookup, zero LLM)", "readOnlyHint": True},
    ),
    Operation(
        name="synthesize",
        description=(
            "[EXPENSIVE / SLOW — makes LLM calls, takes seconds to minutes, costs money] "
            "MEMORY VERB (v1): answer a broad question by combining evidence across pages and "
            "facts, with sources, gaps and a best-effort cost block. Prefer recall or entity "
            "for lookups. Without a configured chat model it answers the error `unavailable`. "
            + _BRANCH
        ),
        params=(
            Param("question", "string", "The question to answer.", required=True),
            Param("since", "string", "Only evidence from this ISO 8601 time on."),
            Param("until", "string", "Only evidence up to this ISO 8601 time."),
        ),
        scope="read",
        handler=_synthesize,
        verb=True,
        annotations={"title": "synthesize (slow, costly — LLM-backed)", "readOnlyHint": True},
    ),
    Operation(
        name="forget",
        description=(
            "MEMORY VERB (v1): expire a fact by its opaque string id (from remember, or "
            "recall facts[].fact_id — never a page slug). Idempotent: forgetting an expired "
            "fact returns expired=false. The fact is expired with an audit trail, not deleted. "
            + _BRANCH
        ),
        params=(
            Param("id", "string", "The fact id.", required=True),
            Param("reason", "string", "Why it is being forgotten (kept on the audit trail)."),
            Param("redact", "boolean",
                  "Also erase the text from every store and return a forget receipt "
                  "(brainkeep extension; default false: the fact is expired, its text kept)."),
        ),
        scope="write",
        handler=_forget,
        verb=True,
        annotations={
            "title": "forget (expire a fact)",
            "destructiveHint": True,
            "idempotentHint": True,
        },
    ),
    Operation(
        name="context_pack",
        description=(
            "MEMORY VERB (v1): one budget-packed bundle for up to 8 standing entities — "
            "cards, open threads and hot facts, plus a ready-to-inject `text`. Zero LLM. Call "
            "it at session start and right after compaction. World-visible data only unless "
            "a local caller passes include_private. " + _BRANCH
        ),
        params=(
            Param("entities", "string", "Comma-separated names or slugs (at most 8 are used).",
                  required=True),
            _BUDGET,
            Param("since", "string", "Only open-thread events after this ISO 8601 time."),
            Param("session_id", "string", "Session whose facts are the hot facts."),
            _INCLUDE_PRIVATE,
            Param("orientation_namespace", "string",
                  "Also return this orientation-cache namespace's context map (entities, "
                  "constants, schemas with frequencies; built by gRPC Recall), read-only, "
                  "within 512 tokens, as `orientation` (brainkeep extension)."),
        ),
        scope="read",
        handler=_context_pack,
        verb=True,
        annotations={"title": "context_pack (boundary bundle)", "readOnlyHint": True},
    ),
    Operation(
        name="delta",
        description=(
            "MEMORY VERB (v1): what changed since a cursor — pages updated, facts recorded, "
            "thread events — for periodic heartbeats. Pass `since` (ISO 8601) or a stable "
            "session_id (the first call establishes the cursor and returns nothing). "
            "At-least-once: has_more=true means call again; resume statelessly with "
            "next_cursor.since and next_cursor.slug. " + _BRANCH
        ),
        params=(
            Param("since", "string", "ISO 8601 cursor."),
            Param("since_slug", "string", "Keyset slug from a previous next_cursor.slug."),
            Param("entities", "string", "Comma-separated entities whose thread events to include."),
            _BUDGET,
            Param("session_id", "string", "Keep the cursor server-side under this session id."),
            _INCLUDE_PRIVATE,
        ),
        scope="read",
        handler=_delta,
        verb=True,
        annotations={"title": "delta (what changed since)", "readOnlyHint": True},
    ),
)
