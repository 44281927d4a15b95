"""Ablations of page-search ranking on the LoCoMo brains bench/locomo.py built.

    python bench/locomo_ablate.py [--cache DIR] [--model NAME] [--only "NAME;..."] [--json OUT]

Opens each cached conversation brain in-process (run bench/locomo.py first),
swaps the ``SearchService`` ranking knobs (``core.fusion.PageRanking``,
``search.mode``) and asks every question through the ``recall`` verb (the
dispatcher, as an MCP client would, ``limit`` 10). Variants that need a
different brain (unstemmed full-text tables, chunk vectors embedded another
way) work on a *copy* of each cached brain, deleted afterwards.
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
from brainkeep.core.embedding import embedding_text, text_hash, to_blob
from brainkeep.core.fusion import PageRanking
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from brainkeep.ops.usage import UsageLog
from brainkeep.store.sqlite.stems import TermStems

# R(...): the defaults with changes; V(...): the ranking before LoCoMo (RRF
# k=60, weights 1, raw title arm). A variant's third part names a brain
# preparation: "" the cached brain as bench/locomo.py built it (stemmed FTS
# since migration 0011); "unstemmed" a copy whose FTS tables use plain
# unicode61 (the tokenizer before 0011); "embed:notitle" / "embed:covered" a
# copy whose chunk vectors were re-embedded without the title heading / with
# it only when the chunk does not already say every title word.
RRF = {"method": "rrf", "keyword_weight": 1.0, "vector_weight": 1.0, "title_weight": 1.0,
       "title_saturation": 0.0}


def R(**changes: Any) -> PageRanking:
    return PageRanking(**changes)


def V(**changes: Any) -> PageRanking:
    return PageRanking(**{**RRF, **changes})


def _sweeps() -> dict[str, tuple[str, PageRanking, str]]:
    out: dict[str, tuple[str, PageRanking, str]] = {}
    for kw in (0.2, 0.3, 0.4, 0.5, 0.6):
        out[f"hy: convex {kw:.1f}/{1 - kw:.1f}"] = (
            "hybrid", R(keyword_weight=kw, vector_weight=round(1 - kw, 2)), "")
        out[f"hy: minmax {kw:.1f}/{1 - kw:.1f}"] = (
            "hybrid", R(keyword_weight=kw, vector_weight=round(1 - kw, 2), normalise="minmax"),
            "")
    for tw in (0.0, 0.1, 0.5):
        out[f"hy: title weight {tw}"] = ("hybrid", R(title_weight=tw), "")
    for cut in (0.3, 0.4, 0.5, 0.6, 0.7):
        for keep in (3, 5):
            out[f"hy: cutoff {cut} keep {keep}"] = ("hybrid", R(cutoff=cut, cutoff_keep=keep), "")
    for docs, nterms, weight in ((3, 10, 0.1), (5, 10, 0.1), (5, 10, 0.2), (10, 10, 0.1),
                                 (3, 5, 0.1), (5, 20, 0.1), (5, 10, 0.3)):
        out[f"hy: prf {docs}d {nterms}t w{weight}"] = (
            "hybrid", R(feedback_docs=docs, feedback_terms=nterms, feedback_weight=weight), "")
    for cos in (0.1, 0.2, 0.3):
        out[f"hy: min cosine {cos}"] = ("hybrid", R(min_cosine=cos), "")
    for per in (1, 2):
        out[f"hy: {per} chunk(s) per page"] = ("hybrid", R(per_page=per), "")
    for kw in (0.5, 0.6, 0.65, 0.7, 0.75, 0.8):
        out[f"hy2: minmax {kw}"] = ("hybrid", R(keyword_weight=kw, vector_weight=round(1 - kw, 2),
                                               normalise="minmax"), "")
    mm = {"keyword_weight": 0.6, "vector_weight": 0.4, "normalise": "minmax"}
    out["hy2: minmax .6 terms-query"] = ("hybrid", R(**mm, vector_query="terms"), "")
    out["vec: terms-query"] = ("vector", R(vector_query="terms"), "")
    for tw in (0.0, 0.1, 0.3, 0.5):
        out[f"hy2: minmax .6 title {tw}"] = ("hybrid", R(**{**mm, "title_weight": tw}), "")
    for cut in (0.5, 0.6, 0.7):
        for keep in (3, 5):
            out[f"hy2: minmax .6 cutoff {cut} keep {keep}"] = (
                "hybrid", R(**mm, cutoff=cut, cutoff_keep=keep), "")
    for cut in (0.2, 0.3, 0.4):
        for keep in (5, 7):
            out[f"hy2: minmax .6 cutoff {cut} keep {keep}"] = (
                "hybrid", R(**mm, cutoff=cut, cutoff_keep=keep), "")
            out[f"hy2: minmax .6 terms cutoff {cut} keep {keep}"] = (
                "hybrid", R(**mm, cutoff=cut, cutoff_keep=keep, vector_query="terms"), "")
    for kw in (0.5, 0.7):
        out[f"hy2: minmax {kw} terms-query"] = (
            "hybrid", R(keyword_weight=kw, vector_weight=round(1 - kw, 2), normalise="minmax",
                        vector_query="terms"), "")
    for kw in (0.5, 0.55, 0.6):
        for cut, keep in ((0.35, 7), (0.4, 7), (0.4, 5)):
            out[f"hy3: minmax {kw} cutoff {cut} keep {keep}"] = (
                "hybrid", R(keyword_weight=kw, vector_weight=round(1 - kw, 2), normalise="minmax",
                            cutoff=cut, cutoff_keep=keep), "")
    for docs, nterms, weight in ((10, 10, 0.05), (10, 10, 0.1), (5, 5, 0.05)):
        out[f"hy2: minmax .6 prf {docs}d {nterms}t w{weight}"] = (
            "hybrid", R(**mm, feedback_docs=docs, feedback_terms=nterms,
                        feedback_weight=weight), "")
    return out


VARIANTS: dict[str, tuple[str, PageRanking, str]] = {
    # name: (search.mode, ranking, brain preparation)
    "hybrid (RRF, before)": ("hybrid", V(), "unstemmed"),
    "hybrid (defaults, unstemmed)": ("hybrid", R(), "unstemmed"),
    "keyword (defaults, unstemmed)": ("keyword", R(), "unstemmed"),
    "hybrid (defaults)": ("hybrid", R(), ""),
    "keyword (defaults)": ("keyword", R(), ""),
    "vector": ("vector", R(), ""),
    "kw: no title arm": ("keyword", R(title_weight=0.0), ""),
    "hy: embed without title": ("hybrid", R(), "embed:notitle"),
    "hy: embed title if not covered": ("hybrid", R(), "embed:covered"),
    "vector: embed without title": ("vector", R(), "embed:notitle"),
    "vector: embed title if not covered": ("vector", R(), "embed:covered"),
    **_sweeps(),
}


def unstemmed_copy(home: Path) -> Path:
    """A copy of the brain whose full-text tables use plain unicode61 (before 0011)."""
    copy = Path(tempfile.mkdtemp(prefix="bk-unstemmed-")) / "brain"
    shutil.copytree(home, copy)
    db = sqlite3.connect(copy / "brain.db")
    with db:
        for table, cols in (("chunks_fts", "text"), ("pages_fts", "title, aliases"),
                            ("memories_fts", "text")):
            db.execute(f"DROP TABLE IF EXISTS {table}_terms")
            db.execute(f"CREATE VIRTUAL TABLE {table}_plain USING fts5 ({cols}, "
                       "tokenize = 'unicode61 remove_diacritics 2')")
            db.execute(f"INSERT INTO {table}_plain (rowid, {cols}) SELECT rowid, {cols} "
                       f"FROM {table}")
            db.execute(f"DROP TABLE {table}")
            db.execute(f"ALTER TABLE {table}_plain RENAME TO {table}")
            db.execute(f"CREATE VIRTUAL TABLE {table}_terms USING fts5vocab({table}, row)")
    db.close()
    return copy


def covered_title_text(chunk: str, title: str) -> str:
    """The title heading only when the chunk does not already say every title word."""
    from brainkeep.core.query import words_of

    said = set(words_of(chunk))
    heading = title if not set(words_of(title)) <= said else ""
    return embedding_text(chunk, heading)


def reembedded_copy(home: Path, how: str, embedder: Any) -> Path:
    """A copy of the brain whose chunk vectors embed ``how`` ("notitle", "covered")."""
    copy = Path(tempfile.mkdtemp(prefix=f"bk-embed-{how}-")) / "brain"
    shutil.copytree(home, copy)
    db = sqlite3.connect(copy / "brain.db")
    rows = db.execute("SELECT e.id, c.text, p.title FROM embeddings e "
                      "JOIN chunks c ON c.id = e.item_id JOIN pages p ON p.id = c.page_id "
                      "WHERE e.kind = 'chunk'").fetchall()
    texts = [embedding_text(text, "") if how == "notitle" else covered_title_text(text, title)
             for _, text, title in rows]
    vectors = embedder.embed(texts)
    with db:
        db.executemany("UPDATE embeddings SET vector = ?, text_hash = ? WHERE id = ?",
                       [(to_blob(v), text_hash(t), r[0])
                        for r, t, v in zip(rows, texts, vectors, strict=True)])
    db.close()
    return copy


def prepared(base: Path, prep: str, embedder: Any) -> Path:
    if not prep:
        return base
    if prep == "unstemmed":
        return unstemmed_copy(base)
    if prep.startswith("embed:"):
        return reembedded_copy(base, prep.split(":", 1)[1], embedder)
    raise ValueError(f"unknown preparation {prep!r}")


def run(home: Path, convs: list[Any], variants: dict[str, tuple[str, PageRanking, str]],
        embedder: Any) -> dict[str, list[QueryRow]]:
    out: dict[str, list[QueryRow]] = {}
    preps = list(dict.fromkeys(v[2] for v in variants.values()))
    for conv in convs:
        base = home_for(home, conv, embedder_model_name(embedder))
        for prep in preps:
            names = [n for n, v in variants.items() if v[2] == prep]
            where = prepared(base, prep, embedder)
            brain = open_brain(load_settings(where, env={}), embedder=embedder, chat=None)
            if prep == "unstemmed":
                # The planner must look words up the way these tables indexed them.
                brain.search.index.words.stems = TermStems("unicode61 remove_diacritics 2")
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
            if where != base:
                shutil.rmtree(where.parent, ignore_errors=True)
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
    print(f"{'change':<36}{'R@1':>7}{'R@5':>7}{'R@10':>7}{'MRR':>7}{'tok/q':>7}")
    summaries = {}
    for name, r in rows.items():
        s = summaries[name] = summarize(r)
        print(f"{name:<36}{s['R@1']:>7.3f}{s['R@5']:>7.3f}{s['R@10']:>7.3f}{s['MRR']:>7.3f}"
              f"{s['tokens/query']:>7.0f}")
    if args.json:
        args.json.write_text(json.dumps(summaries, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
