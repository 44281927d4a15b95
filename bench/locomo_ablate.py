"""Ablations of page-search ranking on the LoCoMo brains bench/locomo.py built.

    python bench/locomo_ablate.py [--cache DIR] [--model NAME] [--only "NAME;..."] [--json OUT]

Opens each cached conversation brain in-process (run bench/locomo.py first),
swaps the ``SearchService`` ranking knobs (``core.fusion.PageRanking``,
``search.mode``) and asks every question through the ``recall`` verb (the
dispatcher, as an MCP client would, ``limit`` 10). ``porter`` variants
rebuild the chunk and title full-text tables of a *copy* of each brain with
FTS5's porter stemmer, to measure stemming before a migration adopts it.
Scoring is bench/locomo.py's (first gold turn among ``results[]``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from locomo import DEFAULT_CACHE, home_for
from locomo_support import DEFAULT_DATA, LIMIT, QueryRow, first_hit, load, summarize
from retrieval_eval import tokens_returned

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.context import LOCAL
from brainkeep.core.fusion import PageRanking
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from brainkeep.ops.usage import UsageLog

# R(): the defaults; V(...): the ranking before LoCoMo (RRF k=60, weights 1, raw title arm).
R = PageRanking
RRF = {"method": "rrf", "keyword_weight": 1.0, "vector_weight": 1.0, "title_weight": 1.0,
       "title_saturation": 0.0}


def V(**changes: Any) -> PageRanking:
    return PageRanking(**{**RRF, **changes})


VARIANTS: dict[str, tuple[str, PageRanking, bool]] = {
    # name: (search.mode, ranking, porter)
    "hybrid (RRF, before)": ("hybrid", V(), False),
    "hybrid (defaults)": ("hybrid", R(), False),
    "keyword (defaults)": ("keyword", R(), False),
    "keyword (RRF, before)": ("keyword", V(), False),
    "vector": ("vector", V(), False),
    "kw: no title arm": ("keyword", V(title_weight=0.0), False),
    "kw: no title arm, no boosts": ("keyword", V(title_weight=0.0, exact_name_boost=0.0,
                                                 title_phrase_boost=False), False),
    "kw: title weight 0.3": ("keyword", V(title_weight=0.3), False),
    "kw: no title arm, porter": ("keyword", V(title_weight=0.0), True),
    "hy: no title arm": ("hybrid", V(title_weight=0.0), False),
    "hy: title weight 0.3": ("hybrid", V(title_weight=0.3), False),
    "hy: rrf k=20, no title": ("hybrid", V(k=20, title_weight=0.0), False),
    "hy: rrf kw 1.5, no title": ("hybrid", V(keyword_weight=1.5, title_weight=0.0), False),
    "hy: rrf vec 1.5, no title": ("hybrid", V(vector_weight=1.5, title_weight=0.0), False),
    "hy: convex .5/.5, no title": ("hybrid", V(method="convex", keyword_weight=0.5,
                                               vector_weight=0.5, title_weight=0.0), False),
    "hy: convex .3/.7, no title": ("hybrid", V(method="convex", keyword_weight=0.3,
                                               vector_weight=0.7, title_weight=0.0), False),
    "hy: convex .2/.8, no title": ("hybrid", V(method="convex", keyword_weight=0.2,
                                               vector_weight=0.8, title_weight=0.0), False),
    "hy: convex .4/.6, no title": ("hybrid", V(method="convex", keyword_weight=0.4,
                                               vector_weight=0.6, title_weight=0.0), False),
    "hy: convex .3/.7 + title .1": ("hybrid", V(method="convex", keyword_weight=0.3,
                                                vector_weight=0.7, title_weight=0.1), False),
    "hy: convex .3/.7 + title .3": ("hybrid", V(method="convex", keyword_weight=0.3,
                                                vector_weight=0.7, title_weight=0.3), False),
    "hy: convex .3/.7 + title .2": ("hybrid", V(method="convex", keyword_weight=0.3,
                                                vector_weight=0.7, title_weight=0.2), False),
    "kw: title saturation 1": ("keyword", V(title_saturation=1.0), False),
    "hy: rrf, title saturation 1": ("hybrid", V(title_saturation=1.0), False),
    "hy: convex .3/.7, title .3 sat 1": ("hybrid", V(method="convex", keyword_weight=0.3,
                                                     vector_weight=0.7, title_weight=0.3,
                                                     title_saturation=1.0), False),
    "kw: convex, title .3 sat 1": ("keyword", V(method="convex", keyword_weight=0.3,
                                                vector_weight=0.7, title_weight=0.3,
                                                title_saturation=1.0), False),
    "hy: convex .3/.7, porter": ("hybrid", V(method="convex", keyword_weight=0.3,
                                             vector_weight=0.7, title_weight=0.0), True),
    "hy: rrf no title, porter": ("hybrid", V(title_weight=0.0), True),
    "hy: convex .3/.7, cos>=0.3": ("hybrid", V(method="convex", keyword_weight=0.3,
                                               vector_weight=0.7, title_weight=0.0,
                                               min_cosine=0.3), False),
}


def porter_copy(home: Path) -> Path:
    """A copy of the brain whose chunk and title FTS tables use the porter stemmer."""
    copy = Path(tempfile.mkdtemp(prefix="bk-porter-")) / "brain"
    shutil.copytree(home, copy)
    db = sqlite3.connect(copy / "brain.db")
    with db:
        for table, cols in (("chunks_fts", "text"), ("pages_fts", "title, aliases")):
            db.execute(f"DROP TABLE IF EXISTS {table}_terms")
            db.execute(f"DROP TABLE {table}")
            db.execute(f"CREATE VIRTUAL TABLE {table} USING fts5 ({cols}, "
                       "tokenize = 'porter unicode61 remove_diacritics 2')")
            db.execute(f"CREATE VIRTUAL TABLE {table}_terms USING fts5vocab({table}, row)")
        db.execute("INSERT INTO chunks_fts (rowid, text) SELECT id, text FROM chunks")
        db.execute("INSERT INTO pages_fts (rowid, title, aliases) SELECT p.id, p.title, "
                   "COALESCE((SELECT group_concat(alias, ' | ') FROM page_aliases a "
                   "WHERE a.page_id = p.id), '') FROM pages p WHERE p.deleted_at IS NULL")
    db.close()
    return copy


def run(home: Path, convs: list[Any], variants: dict[str, tuple[str, PageRanking, bool]],
        embedder: Any) -> dict[str, list[QueryRow]]:
    out: dict[str, list[QueryRow]] = {}
    for conv in convs:
        base = home_for(home, conv, embedder_model_name(embedder))
        for porter in (False, True):
            names = [n for n, v in variants.items() if v[2] == porter]
            if not names:
                continue
            where = porter_copy(base) if porter else base
            brain = open_brain(load_settings(where, env={}), embedder=embedder, chat=None)
            default = brain.search
            dispatcher = Dispatcher(build_catalog(), brain, surface="full",
                                    usage=UsageLog(Path(tempfile.mkdtemp()) / "usage.jsonl"))
            try:
                for name in names:
                    mode, ranking, _ = variants[name]
                    brain.search = dataclasses.replace(default, ranking=ranking, mode=mode)
                    for q in conv.questions:
                        outcome = dispatcher.call("recall", {"query": q.text, "limit": LIMIT},
                                                  LOCAL)
                        ranked = [r["slug"] for r in outcome.payload.get("results", [])]
                        out.setdefault(name, []).append(QueryRow(
                            conv.sample_id, q.category, first_hit(ranked, q.gold),
                            tokens_returned(outcome.payload), 0.0))
            finally:
                brain.close()
    return out


def embedder_model_name(embedder: Any) -> str:
    return getattr(embedder, "bench_model_name", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--model", default="", help="embeddings.model the brains were built with")
    parser.add_argument("--only", default="", help="semicolon-separated variant names")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    from brainkeep.brain import build_embedder

    convs = load(args.data)
    settings = load_settings(home_for(args.cache, convs[0], args.model), env={})
    embedder = build_embedder(settings)
    embedder.bench_model_name = args.model
    wanted = [n for n in args.only.split(";") if n] or list(VARIANTS)
    rows = run(args.cache, convs, {n: VARIANTS[n] for n in wanted}, embedder)
    print(f"{'change':<32}{'R@1':>7}{'R@5':>7}{'R@10':>7}{'MRR':>7}{'tok/q':>7}")
    summaries = {}
    for name, r in rows.items():
        s = summaries[name] = summarize(r)
        print(f"{name:<32}{s['R@1']:>7.3f}{s['R@5']:>7.3f}{s['R@10']:>7.3f}{s['MRR']:>7.3f}"
              f"{s['tokens/query']:>7.0f}")
    if args.json:
        args.json.write_text(json.dumps(summaries, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
