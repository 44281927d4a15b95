"""Retrieval on LoCoMo conversations through recall(query) over MCP stdio.

    python bench/locomo.py [--data ../shared/data/locomo/locomo-dev.json]
        [--conversations conv-26,conv-30] [--modes hybrid,keyword,vector]
        [--model all-MiniLM-L6-v2] [--sparse] [--context] [--cache DIR] [--jobs 2]
        [--json OUT]

One brain per conversation, built through the public verbs only: a real
``brainkeep serve`` over stdio, driven by the official MCP client (as
bench/mcp_verbs.py), with the local embedding provider on. Every dialog turn
is one ``put_page``: body ``"<speaker> (<session date>): <text>"``, title
``"<speaker>, <session date>"``, slug ``turns/tNNNNN`` (a running counter
per conversation; the bench keeps slug -> dia_id, so no slug encodes an
answer). Every question of categories 1-4 is then asked as
``recall(query, limit=10)``, once per search mode (config ``search.mode``:
hybrid, keyword, vector; with ``--sparse`` the learned-sparse arm is on
(config ``sparse.provider local``) and the modes may name it: sparse,
keyword+sparse, vector+sparse, keyword+vector; the server is restarted per
mode on the same brain). With ``--context`` each turn after a session's
first also carries the turn before it, ``"after <speaker>: <text>"``, as
its page's frontmatter ``search_context`` (read by the search arms, never
returned: docs/search.md "Context for each turn").

Scoring. recall returns ``facts[]`` and ``results[]``; this bench writes no
facts, so ``facts[]`` is empty and only ``results[]`` (one entry per page,
its best chunk) is ranked. A question's hit rank is the 1-based position of
the first result whose page is one of its gold evidence turns; R@k is the
share of questions with a hit rank <= k, MRR the mean of 1/rank (0 beyond
10). "tokens/query" counts what recall returned the way
bench/retrieval_eval.py does (``tokens_returned``: char/4 of fact texts,
result titles and chunks); "p50 ms" is the client-observed recall latency.
The naive BM25 reference (README of the data) is an in-bench SQLite FTS5
table, one row per turn text, queried with the OR of the question's words.

Built brains are cached under ``--cache`` (one per conversation and model)
and conversations run in ``--jobs`` processes, so a rerun only asks.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import anyio
from locomo_support import (
    DEFAULT_DATA,
    LIMIT,
    Conversation,
    NaiveBM25,
    QueryRow,
    by_category,
    first_hit,
    load,
    summarize,
    table,
)
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from retrieval_eval import tokens_returned

MODES = ("hybrid", "keyword", "vector")
DEFAULT_CACHE = Path("/tmp/bk-locomo-cache")


def cli(home: Path, *args: str) -> None:
    subprocess.run([sys.executable, "-m", "brainkeep", "--home", str(home), *args],
                   check=True, capture_output=True)


def home_for(cache: Path, conv: Conversation, model: str, sparse: bool = False) -> Path:
    context = "-context" if conv.has_context else ""
    return cache / (f"{conv.sample_id}-{model.replace('/', '_')}"
                    f"{'-sparse' if sparse else ''}{context}")


def built_marker(conv: Conversation, model: str, sparse: bool) -> dict[str, Any]:
    """What a cached brain was built with (it is rebuilt when this differs)."""
    return {"turns": len(conv.turns), "model": model, **({"sparse": True} if sparse else {}),
            **({"context": True} if conv.has_context else {})}


def prepare(home: Path, conv: Conversation, model: str, sparse: bool = False) -> bool:
    """Init the brain (once); True when its pages still have to be written."""
    marker = home / "locomo-built.json"
    expected = built_marker(conv, model, sparse)
    if marker.exists() and json.loads(marker.read_text()) == expected:
        return False
    if home.exists():
        subprocess.run(["rm", "-rf", str(home)], check=True)
    home.parent.mkdir(parents=True, exist_ok=True)
    cli(home, "init")
    cli(home, "config", "set", "embeddings.provider", "local")
    if model:
        cli(home, "config", "set", "embeddings.model", model)
    if sparse:
        cli(home, "config", "set", "sparse.provider", "local")
    return True


async def session(home: Path, conv: Conversation, build: bool, mode: str | None
                  ) -> list[QueryRow]:
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    server = StdioServerParameters(command=sys.executable, args=["-m", "brainkeep", "serve"],
                                   env=env)
    rows: list[QueryRow] = []
    async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
        await client.initialize()

        async def call(tool: str, **arguments: object) -> dict[str, Any]:
            result = await client.call_tool(tool, arguments)
            payload = json.loads(result.content[0].text)
            if result.is_error:
                raise RuntimeError(f"{tool} failed: {payload}")
            return payload

        if build:
            for turn in conv.turns:
                await call("put_page", slug=turn.slug, content=turn.markdown())
        if mode is None:
            return rows
        for q in conv.questions:
            started = time.perf_counter()
            payload = await call("recall", query=q.text, limit=LIMIT)
            ms = (time.perf_counter() - started) * 1000
            degraded = payload.get("search_degraded")
            if mode != "keyword" and degraded:
                raise RuntimeError(f"{mode}: search degraded: {degraded}")
            ranked = [r["slug"] for r in payload.get("results", [])]
            rows.append(QueryRow(conv.sample_id, q.category, first_hit(ranked, q.gold),
                                 tokens_returned(payload), ms))
    return rows


def run_conversation(job: tuple[Conversation, Path, str, tuple[str, ...], bool]
                     ) -> dict[str, list[QueryRow]]:
    conv, cache, model, modes, sparse = job
    home = home_for(cache, conv, model, sparse)
    out: dict[str, list[QueryRow]] = {}
    if prepare(home, conv, model, sparse):
        started = time.perf_counter()
        anyio.run(session, home, conv, True, None)
        (home / "locomo-built.json").write_text(json.dumps(built_marker(conv, model, sparse)))
        print(f"{conv.sample_id}: {len(conv.turns)} put_page in "
              f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    for mode in modes:
        cli(home, "config", "set", "search.mode", mode)
        out[mode] = anyio.run(session, home, conv, False, mode)
    cli(home, "config", "set", "search.mode", "hybrid")
    bm25 = NaiveBM25(conv.turns)
    rows = []
    for q in conv.questions:
        started = time.perf_counter()
        ranked = bm25.search(q.text)
        rows.append(QueryRow(conv.sample_id, q.category, first_hit(ranked, q.gold), 0,
                             (time.perf_counter() - started) * 1000))
    out["naive BM25"] = rows
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="LoCoMo file (read in place, never copied)")
    parser.add_argument("--conversations", default="", help="comma-separated sample ids")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--model", default="", help="embeddings.model (blank: the default)")
    parser.add_argument("--sparse", action="store_true",
                        help="turn the learned-sparse arm on (sparse.provider local)")
    parser.add_argument("--context", action="store_true",
                        help="each turn carries the previous one as its search_context")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write summaries and per-query rows")
    args = parser.parse_args()
    only = [c for c in args.conversations.split(",") if c]
    convs = load(args.data, only, with_context=args.context)
    if not convs:
        raise SystemExit(f"no conversation of {only} in {args.data}")
    modes = tuple(m for m in args.modes.split(",") if m)
    jobs = [(c, args.cache, args.model, modes, args.sparse) for c in convs]
    if args.jobs > 1 and len(jobs) > 1:
        with multiprocessing.get_context("spawn").Pool(min(args.jobs, len(jobs))) as pool:
            parts = pool.map(run_conversation, jobs, chunksize=1)
    else:
        parts = [run_conversation(j) for j in jobs]
    rows: dict[str, list[QueryRow]] = {}
    for part in parts:
        for name, r in part.items():
            rows.setdefault(name, []).extend(r)
    summaries = {name: summarize(r) for name, r in rows.items()}
    print(f"LoCoMo {', '.join(c.sample_id for c in convs)}: {sum(len(c.turns) for c in convs)} "
          f"turns, recall(query, limit={LIMIT}), model {args.model or 'default'}"
          f"{', sparse arm on' if args.sparse else ''}"
          f"{', previous turn as search_context' if args.context else ''}\n")
    print(table(summaries))
    for name, r in rows.items():  # category 2 is LoCoMo's temporal questions
        print(f"\n{name}, per category\n{table(by_category(r))}")
    if args.json:
        args.json.write_text(json.dumps(
            {"summaries": summaries,
             "categories": {n: by_category(r) for n, r in rows.items()},
             "model": args.model or "default",
             "rows": {n: [asdict(x) for x in r] for n, r in rows.items()}}, indent=1),
            encoding="utf-8")


if __name__ == "__main__":
    main()
