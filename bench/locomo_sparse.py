"""Fusion sweeps of the learned-sparse arm on the LoCoMo dev brains bench/locomo.py --sparse built.

    python bench/locomo_sparse.py [--cache DIR] [--context] [--only "NAME;..."] [--json OUT]

Opens each cached conversation brain (``<conv>--sparse``) in-process with
the local dense model and SPLADE-tiny, swaps ``search.mode`` and the
``PageRanking`` weights of the three chunk lists, and asks every question
through the ``recall`` verb (the dispatcher, ``limit`` 10), scored as
bench/locomo.py scores (first gold turn among ``results[]``). Dev half only:
the held-out half is never read here. ``--context``: the brains
``bench/locomo.py --sparse --context`` built (each turn's previous turn as
its ``search_context``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
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


class Memo:
    """A model wrapper that encodes each text once for the whole sweep (the same vectors)."""

    def __init__(self, model: Any, method: str) -> None:
        self.model, self.method, self.seen = model, method, {}
        self.model_id = model.model_id
        self.dimensions = getattr(model, "dimensions", 0)

    def _call(self, texts: Sequence[str]) -> list[Any]:
        todo = [t for t in dict.fromkeys(texts) if t not in self.seen]
        if todo:
            self.seen.update(zip(todo, getattr(self.model, self.method)(todo), strict=True))
        return [self.seen[t] for t in texts]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack(self._call(texts))

    def encode(self, texts: Sequence[str]) -> list[Any]:
        return self._call(texts)


def run(cache: Path, convs: list[Any], table: dict[str, tuple[str, PageRanking, str]],
        embedder: Any, encoder: Any) -> dict[str, list[QueryRow]]:
    out: dict[str, list[QueryRow]] = {}
    for conv in convs:
        brain = open_brain(load_settings(home_for(cache, conv, "", True), env={}),
                           embedder=embedder, chat=None, sparse_encoder=encoder)
        default = brain.search
        dispatcher = Dispatcher(build_catalog(), brain, surface="full",
                                usage=UsageLog(Path(tempfile.mkdtemp()) / "usage.jsonl"))
        try:
            for name, (mode, ranking, _) in table.items():
                brain.search = dataclasses.replace(default, ranking=ranking, mode=mode)
                for q in conv.questions:
                    outcome = dispatcher.call("recall", {"query": q.text, "limit": LIMIT}, LOCAL)
                    ranked = [r["slug"] for r in outcome.payload.get("results", [])]
                    out.setdefault(name, []).append(QueryRow(
                        conv.sample_id, q.category, first_hit(ranked, q.gold),
                        tokens_returned(outcome.payload), 0.0))
        finally:
            brain.close()
    return out


def R(**changes: Any) -> PageRanking:
    return PageRanking(**changes)


def variants() -> dict[str, tuple[str, PageRanking, str]]:
    out: dict[str, tuple[str, PageRanking, str]] = {}
    for mode in ("keyword", "vector", "sparse", "keyword+vector", "keyword+sparse",
                 "vector+sparse", "hybrid"):
        out[mode] = (mode, R(), "")
        if "sparse" in mode:
            out[f"{mode} sp 0.5"] = (mode, R(sparse_weight=0.5), "")
    for kw, vec, sp in ((0.5, 0.5, 0.3), (0.5, 0.5, 0.7), (0.5, 0.5, 1.0), (0.4, 0.3, 0.7),
                        (0.3, 0.3, 0.7), (0.3, 0.2, 0.5), (0.4, 0.4, 0.4), (0.3, 0.3, 1.0),
                        (0.5, 0.3, 0.5), (0.3, 0.5, 0.5)):
        out[f"hybrid kw {kw} vec {vec} sp {sp}"] = (
            "hybrid", R(keyword_weight=kw, vector_weight=vec, sparse_weight=sp), "")
    for sp in (0.4, 0.5):  # around the shipped 0.3 / 0.45
        for cut in (0.4, 0.45):
            out[f"hybrid sp {sp} cutoff {cut}"] = (
                "hybrid", R(sparse_weight=sp, cutoff=cut), "")
    for floor in (0.5, 1.0, 2.0):
        out[f"hybrid sp floor {floor}"] = ("hybrid", R(sparse_min_score=floor), "")
    for cut in (0.3, 0.42, 0.45, 0.5):
        out[f"hybrid cutoff {cut}"] = ("hybrid", R(cutoff=cut), "")
    for k in (20.0, 60.0):
        out[f"hybrid rrf k {k:.0f}"] = ("hybrid", R(method="rrf", k=k, keyword_weight=1.0,
                                                   vector_weight=1.0, sparse_weight=1.0,
                                                   title_weight=1.0, title_saturation=0.0), "")
    for title in (0.2, 0.45):
        out[f"hybrid title {title}"] = ("hybrid", R(title_weight=title), "")
    out["hybrid normalise best"] = ("hybrid", R(normalise="best"), "")
    out["hybrid per page 1"] = ("hybrid", R(per_page=1), "")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--context", action="store_true",
                        help="the brains whose turns carry the previous turn as search_context")
    parser.add_argument("--only", default="", help="semicolon-separated variant names")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    from brainkeep.providers.local_embeddings import LocalEmbeddingProvider
    from brainkeep.providers.sparse_encoder import SparseEncoder

    embedder = Memo(LocalEmbeddingProvider(), "embed")
    encoder = Memo(SparseEncoder(), "encode")
    table = variants()
    wanted = [n for n in args.only.split(";") if n] or list(table)
    convs = load(args.data, with_context=args.context)
    rows = run(args.cache, convs, {n: table[n] for n in wanted}, embedder, encoder)
    print(f"{'variant':<36}{'R@1':>7}{'R@5':>7}{'R@10':>7}{'MRR':>7}{'tok/q':>7}")
    summaries = {}
    for name, r in rows.items():
        s = summaries[name] = summarize(r)
        print(f"{name:<36}{s['R@1']:>7.3f}{s['R@5']:>7.3f}{s['R@10']:>7.3f}{s['MRR']:>7.3f}"
              f"{s['tokens/query']:>7.0f}")
    if args.json:
        args.json.write_text(json.dumps(summaries, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
