"""Retrieval quality: keyword-only vs hybrid on a labelled set that ships in the repo.

    python bench/retrieval_eval.py [--data bench/data/retrieval_eval.json] [--sparse] [--json OUT]

For each mode (``keyword``: no embedding provider; ``hybrid``: the local
all-MiniLM-L6-v2 model; ``--sparse`` adds the learned-sparse arm,
SPLADE-tiny, to both) a fresh brain is built from the data file: pages
through ``put_page``, facts through ``remember`` (entity, kind, session and
a session provenance), all as the local caller. Every query then runs once
through the ``recall`` verb (dispatcher, ``limit`` 10 per arm) exactly as an
MCP client would call it.

Scoring: a gold memory counts as found at rank r when it is the r-th item of
``facts[]``; a gold page when it is the r-th item of ``results[]``.
recall@k is the share of a query's gold items found within the first k of
their arm, averaged over queries; MRR uses the best-ranked gold item.
Queries are split dev / held-out by a hash of their text (``split_of``);
both halves are printed: tune on dev, check the held-out half.
"Tokens returned" is the char/4 estimate of everything recall sent back
(fact texts plus result titles and chunks), averaged per query.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.context import LOCAL
from brainkeep.core.verbs.common import estimate_tokens
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from brainkeep.ops.usage import UsageLog

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "retrieval_eval.json"
LIMIT = 10
KS = (1, 5, 10)


def tokens_returned(payload: dict[str, Any]) -> int:
    """The char/4 estimate of what one recall sent back: fact texts, result titles and chunks."""
    return sum(estimate_tokens(f["fact"]) for f in payload.get("facts", [])) + sum(
        estimate_tokens(r["title"]) + estimate_tokens(r["chunk"])
        for r in payload.get("results", [])
    )


def split_of(query: str) -> str:
    """``dev`` or ``held-out``, fixed by the query text's hash (about a third held out).

    Tune on ``dev`` only: the held-out numbers say whether a change
    generalises beyond the queries it was chosen on.
    """
    digest = hashlib.sha256(query.encode("utf-8")).digest()
    return "held-out" if digest[0] % 3 == 0 else "dev"


@dataclass
class Scores:
    """Per-query metrics, summarized overall and per query type."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    def add(self, qtype: str, ranks: list[int | None], tokens: int, ms: float,
            split: str = "dev") -> None:
        row: dict[str, Any] = {"type": qtype, "tokens": tokens, "ms": ms, "split": split}
        for k in KS:
            row[f"r@{k}"] = sum(1 for r in ranks if r is not None and r <= k) / len(ranks)
        found = [r for r in ranks if r is not None]
        row["rr"] = 1.0 / min(found) if found else 0.0
        self.rows.append(row)

    def summary(self, qtype: str | None = None, split: str | None = None) -> dict[str, float]:
        rows = [r for r in self.rows if (qtype is None or r["type"] == qtype)
                and (split is None or r["split"] == split)]
        out = {f"recall@{k}": statistics.mean(r[f"r@{k}"] for r in rows) for k in KS}
        out["MRR"] = statistics.mean(r["rr"] for r in rows)
        out["tokens/query"] = statistics.mean(r["tokens"] for r in rows)
        out["ms/query p50"] = statistics.median(r["ms"] for r in rows)
        out["queries"] = len(rows)
        return out


def build(brain: Brain, data: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Write the data set into ``brain``; returns key -> (arm, id)."""
    ids: dict[str, tuple[str, str]] = {}
    for page in data["pages"]:
        brain.pages.put_page(page["slug"], page["content"])
        ids[page["key"]] = ("results", page["slug"])
    for m in data["memories"]:
        result = brain.facts.remember(
            m["text"], f"chat session {m['session']} ({data['sessions'][m['session']]})", LOCAL,
            entity=m["entity"], kind=m["kind"], session_id=m["session"],
        )
        if result.status != "inserted":
            # Dedup by similarity would merge the set's own items: the set is
            # written so that it never does; say so loudly if it ever changes.
            print(f"warning: memory {m['key']} was {result.status}", file=sys.stderr)
        ids[m["key"]] = ("facts", result.memory.fact_id)
    return ids


def evaluate(mode: str, data: dict[str, Any], embedder: Any, sparse: Any = None) -> Scores:
    home = Path(tempfile.mkdtemp(prefix=f"bk-eval-{mode}-"))
    brain = open_brain(load_settings(home, env={}), embedder=embedder, chat=None,
                       sparse_encoder=sparse)
    try:
        started = time.perf_counter()
        ids = build(brain, data)
        print(f"{mode}: built {len(data['pages'])} pages + {len(data['memories'])} facts in "
              f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
        dispatcher = Dispatcher(build_catalog(), brain, surface="full",
                                usage=UsageLog(home / "usage.jsonl"))
        scores = Scores()
        for q in data["queries"]:
            started = time.perf_counter()
            outcome = dispatcher.call("recall", {"query": q["query"], "limit": LIMIT}, LOCAL)
            ms = (time.perf_counter() - started) * 1000
            payload = outcome.payload
            assert not outcome.is_error, payload
            if mode == "hybrid":
                assert "search_degraded" not in payload, payload
            arms = {
                "facts": [f["fact_id"] for f in payload["facts"]],
                "results": [r["slug"] for r in payload.get("results", [])],
            }
            ranks = []
            for key in q["gold"]:
                arm, item = ids[key]
                ranks.append(arms[arm].index(item) + 1 if item in arms[arm] else None)
            tokens = tokens_returned(payload)
            scores.add(q["type"], ranks, tokens, ms, split_of(q["query"]))
        return scores
    finally:
        brain.close()


def table(results: dict[str, Scores], types: list[str]) -> str:
    metrics = ["recall@1", "recall@5", "recall@10", "MRR", "tokens/query", "ms/query p50"]
    lines = [f"{'metric':<16}{'keyword':>10}{'hybrid':>10}{'delta':>9}"]
    kw, hy = results["keyword"].summary(), results["hybrid"].summary()
    for m in metrics:
        fmt = ".1f" if m in ("tokens/query", "ms/query p50") else ".3f"
        lines.append(f"{m:<16}{kw[m]:>10{fmt}}{hy[m]:>10{fmt}}{hy[m] - kw[m]:>+9{fmt}}")
    lines.append("")
    lines.append(f"{'split':<10}{'n':>5}   {'R@5 kw':>7}{'R@5 hy':>8}   {'MRR kw':>7}{'MRR hy':>8}")
    for split in ("dev", "held-out"):
        k, h = results["keyword"].summary(split=split), results["hybrid"].summary(split=split)
        lines.append(f"{split:<10}{int(k['queries']):>5}   {k['recall@5']:>7.3f}"
                     f"{h['recall@5']:>8.3f}   {k['MRR']:>7.3f}{h['MRR']:>8.3f}")
    lines.append("")
    lines.append(
        f"{'by type':<10}{'n':>5}   {'R@5 kw':>7}{'R@5 hy':>8}   {'MRR kw':>7}{'MRR hy':>8}"
    )
    for t in types:
        k, h = results["keyword"].summary(t), results["hybrid"].summary(t)
        lines.append(f"{t:<10}{int(k['queries']):>5}   {k['recall@5']:>7.3f}{h['recall@5']:>8.3f}"
                     f"   {k['MRR']:>7.3f}{h['MRR']:>8.3f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", type=Path, help="also write the summaries here")
    parser.add_argument("--sparse", action="store_true", help="add the learned-sparse arm")
    args = parser.parse_args()
    data = json.loads(args.data.read_text(encoding="utf-8"))
    from brainkeep.providers.local_embeddings import LocalEmbeddingProvider

    model = LocalEmbeddingProvider()
    sparse = None
    if args.sparse:
        from brainkeep.providers.sparse_encoder import SparseEncoder

        sparse = SparseEncoder()
    results = {"keyword": evaluate("keyword", data, None, sparse),
               "hybrid": evaluate("hybrid", data, model, sparse)}
    types = sorted({q["type"] for q in data["queries"]})
    counts: dict[str, int] = defaultdict(int)
    for q in data["queries"]:
        counts[q["type"]] += 1
    print(f"{len(data['queries'])} queries over {len(data['memories'])} facts and "
          f"{len(data['pages'])} pages; recall(query, limit={LIMIT}) per query\n")
    print(table(results, types))
    kw, hy = results["keyword"].summary(), results["hybrid"].summary()
    verdict = hy["recall@5"] > kw["recall@5"] and hy["MRR"] > kw["MRR"]
    print(f"\nhybrid beats keyword-only on recall@5 and MRR: {'yes' if verdict else 'NO'}")
    if args.json:
        out = {mode: {"overall": s.summary(), "dev": s.summary(split="dev"),
                      "held-out": s.summary(split="held-out"), **{t: s.summary(t) for t in types}}
               for mode, s in results.items()}
        args.json.write_text(json.dumps(out, indent=2), encoding="utf-8")
    if not verdict:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
