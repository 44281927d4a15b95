"""A tiny in-memory MEMORY_VERBS server over stdio, honest by default, able to lie.

Used to prove the conformance runner both passes a conformant server and
FAILS a non-conformant one. Run as a script:

    python fake_verbs_server.py [--verbs-only] [--lie LIE[,LIE...]]
    python fake_verbs_server.py --http PORT --token SECRET   (Streamable HTTP at /mcp)

Lies (each breaks one contract clause):
    drop-status          remember omits `status`
    absorbed             remember answers status "absorbed" (not in the enum)
    numeric-fact-id      recall re-types facts[].fact_id as a number
    no-protocol-version  no response or error carries protocol_version
    forget-not-idempotent  re-forgetting an expired fact is an error

Only the official MCP SDK's low-level server is used; no brainkeep import,
so the script stands in for "some other implementation".
"""

from __future__ import annotations

import argparse
import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

KINDS = ("event", "preference", "commitment", "belief", "fact")


class VerbError(Exception):
    def __init__(self, code: str, message: str, suggestion: str) -> None:
        super().__init__(message)
        self.code, self.message, self.suggestion = code, message, suggestion


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + (
        f"{moment.microsecond // 1000:03d}Z"
    )


def parse_iso(text: str) -> datetime:
    raw = text.strip()
    if raw.endswith("Z"):
        raw = raw[:-1] + "+00:00"
    moment = datetime.fromisoformat(raw)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class Brain:
    """Just enough state for the conformance cases."""

    def __init__(self, lies: set[str]) -> None:
        self.lies = lies
        self.pages: dict[str, str] = {}
        self.facts: dict[int, dict[str, Any]] = {}

    # ── verbs ────────────────────────────────────────────────────────────
    def remember(self, p: dict[str, Any]) -> dict[str, Any]:
        fact = str(p.get("fact") or "").strip()
        if "provenance" not in p:
            raise VerbError("invalid_params", "Missing required parameter: provenance",
                            "Check the tool schema: required params are declared there.")
        if not fact:
            raise VerbError("invalid_params", "fact is empty", "Pass one claim as `fact`.")
        if not str(p["provenance"]).strip():
            raise VerbError("provenance_required", "provenance is blank",
                            'Pass where the fact came from, e.g. "chat 2026-06-12".')
        ttl = p.get("ttl")
        valid_until = None
        if ttl:
            match = re.fullmatch(r"(\d+)([dhm])", str(ttl).strip().lower())
            if not match:
                raise VerbError("invalid_params", f"bad ttl {ttl!r}",
                                'Use a duration like "30d" or "12h".')
            unit = {"d": "days", "h": "hours", "m": "minutes"}[match.group(2)]
            valid_until = iso(datetime.now(UTC) + timedelta(**{unit: int(match.group(1))}))
        kind = p.get("kind") or "fact"
        if kind not in KINDS:
            raise VerbError("invalid_params", f"bad kind {kind!r}", f"Use one of {KINDS}.")
        new_id = len(self.facts) + 1
        self.facts[new_id] = {
            "id": new_id, "fact": fact, "kind": kind, "entity_slug": p.get("entity"),
            "visibility": p.get("visibility") or "world", "valid_until": valid_until,
            "expired": False, "source": str(p["provenance"]),
        }
        result: dict[str, Any] = {
            "id": str(new_id), "status": "inserted", "status_text": f"remembered #{new_id}",
            "entity_slug": p.get("entity"), "valid_until": valid_until, "degraded_dedup": True,
        }
        if "drop-status" in self.lies:
            del result["status"]
        if "absorbed" in self.lies:
            result["status"] = "absorbed"
        return result

    def recall(self, p: dict[str, Any]) -> dict[str, Any]:
        facts = [
            f for f in sorted(self.facts.values(), key=lambda f: -f["id"])
            if f["visibility"] == "world" and not f["expired"]
            and (not p.get("entity") or f["entity_slug"] == p["entity"])
        ]
        rows = []
        for f in facts:
            fact_id: Any = f["id"] if "numeric-fact-id" in self.lies else str(f["id"])
            rows.append({
                "id": f["id"], "fact_id": fact_id, "fact": f["fact"], "kind": f["kind"],
                "entity_slug": f["entity_slug"], "visibility": f["visibility"],
                "valid_until": f["valid_until"], "provenance": f["source"], "source": f["source"],
            })
        result: dict[str, Any] = {}
        budget = p.get("budget_tokens")
        if isinstance(budget, int | float) and budget > 0:
            kept, used = [], 0
            for row in rows:
                cost = -(-len(row["fact"]) // 4)
                if used + cost > budget:
                    break
                kept.append(row)
                used += cost
            result.update(budget_tokens=int(budget), budget_used=used,
                          dropped_count=len(rows) - len(kept))
            rows = kept
        result.update(facts=rows, total=len(rows))
        if p.get("query"):
            result.update(results=[], search_degraded="keyword_only_no_embedding_provider")
        return result

    def entity(self, p: dict[str, Any]) -> dict[str, Any]:
        if "name" not in p:
            raise VerbError("invalid_params", "Missing required parameter: name",
                            "Pass `name`, e.g. people/alice-example.")
        slug = str(p["name"]).strip()
        if slug not in self.pages:
            return {"found": False, "latency_ms": 0, "suggestions": []}
        threads = [
            {"kind": "commitment", "text": f["fact"], "date": None}
            for f in self.facts.values()
            if f["entity_slug"] == slug and f["kind"] == "commitment"
            and f["visibility"] == "world" and not f["expired"]
        ][:3]
        card = {
            "entity": {"slug": slug, "title": self.pages[slug], "type": "person"},
            "aka": [], "summary": "", "open_threads": threads, "edges": [],
            "last_touched": {"updated_at": None, "last_retrieved_at": None,
                             "last_timeline_date": None},
            "backlink_count": 0, "active_fact_count": 0,
        }
        return {"found": True, "latency_ms": 0, "card": card}

    def forget(self, p: dict[str, Any]) -> dict[str, Any]:
        raw = str(p.get("id", "")).strip()
        fact = self.facts.get(int(raw)) if raw.isdigit() else None
        if fact is None:
            raise VerbError("not_found", f"No fact {raw!r}", "Pass an id from remember/recall.")
        if fact["expired"]:
            if "forget-not-idempotent" in self.lies:
                raise VerbError("not_found", "already gone", "nothing to do")
            return {"id": raw, "expired": False, "reason": p.get("reason")}
        fact["expired"] = True
        return {"id": raw, "expired": True, "reason": p.get("reason")}

    def synthesize(self, p: dict[str, Any]) -> dict[str, Any]:
        raise VerbError("unavailable", "synthesize needs an LLM and none is configured",
                        "Configure a chat model and retry; recall and entity work without one.")

    def context_pack(self, p: dict[str, Any]) -> dict[str, Any]:
        if p.get("since") is not None:
            self._since(p["since"])
        names = [n.strip() for n in str(p.get("entities", "")).split(",") if n.strip()][:8]
        return {"entities": names, "cards": [], "open_threads": [], "facts": [], "text": ""}

    def delta(self, p: dict[str, Any]) -> dict[str, Any]:
        if p.get("since") is None:
            raise VerbError("invalid_params", "delta requires since or session_id",
                            'Pass since, e.g. "2026-06-01T00:00:00Z".')
        since = iso(self._since(p["since"]))
        return {"since": since, "pages": [], "facts": [], "threads": [], "text": "",
                "has_more": False, "next_cursor": {"since": since, "slug": ""}}

    def _since(self, value: Any) -> datetime:
        try:
            return parse_iso(str(value))
        except ValueError:
            raise VerbError("invalid_params", f"bad since {value!r}",
                            'Pass ISO 8601, e.g. "2026-06-01T00:00:00Z".') from None

    # ── page op (full surface only) ──────────────────────────────────────
    def put_page(self, p: dict[str, Any]) -> dict[str, Any]:
        match = re.search(r"^title:\s*(.+)$", str(p.get("content", "")), re.M)
        self.pages[str(p["slug"])] = match.group(1).strip() if match else str(p["slug"])
        return {"slug": p["slug"], "status": "created_or_updated", "chunks": 1}


VERBS = ("recall", "remember", "entity", "synthesize", "forget", "context_pack", "delta")


def tool(name: str) -> types.Tool:
    description = f"fake {name}"
    if name == "synthesize":
        description = "[EXPENSIVE / SLOW] fake synthesize"
    return types.Tool(name=name, description=description,
                      input_schema={"type": "object", "properties": {}})


def tool_names(verbs_only: bool) -> tuple[str, ...]:
    return VERBS if verbs_only else (*VERBS, "put_page")


def respond(
    brain: Brain, names: tuple[str, ...], name: str, args: dict[str, Any]
) -> tuple[bool, str]:
    """One tools/call: ``(is_error, json_text)`` (shared by the MCP server and in-process tests)."""
    is_error = False
    if name not in names:
        body: dict[str, Any] = {"error": "unknown_tool", "message": f"Unknown tool: {name}"}
        is_error = True
    else:
        try:
            body = getattr(brain, name)(args)
        except VerbError as exc:
            body = {"error": exc.code, "message": exc.message, "suggestion": exc.suggestion}
            is_error = True
        if name in VERBS and "no-protocol-version" not in brain.lies:
            body["protocol_version"] = 1
    return is_error, json.dumps(body)


def build_server(brain: Brain, verbs_only: bool) -> Server:
    names = tool_names(verbs_only)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool(name) for name in names])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        is_error, text = respond(brain, names, params.name, dict(params.arguments or {}))
        block = types.TextContent(type="text", text=text)
        return types.CallToolResult(content=[block], is_error=is_error)

    return Server("fake-verbs", on_list_tools=list_tools, on_call_tool=call_tool)


def require_bearer(app: Any, token: str) -> Any:
    """ASGI wrapper: 401 for any HTTP request without ``Authorization: Bearer <token>``."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": b'{"error":"unauthorized"}'})
            return
        await app(scope, receive, send)

    return guarded


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--verbs-only", action="store_true")
    parser.add_argument("--lie", default="")
    parser.add_argument("--http", type=int, default=0, help="serve Streamable HTTP on this port")
    parser.add_argument("--token", default="")
    args = parser.parse_args()
    brain = Brain({lie for lie in args.lie.split(",") if lie})
    server = build_server(brain, args.verbs_only)
    if args.http:
        import uvicorn

        app = require_bearer(server.streamable_http_app(), args.token)
        uvicorn.run(app, host="127.0.0.1", port=args.http, log_level="warning")
        return

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


if __name__ == "__main__":
    main()
