"""Injection scoring: detection, false positives and cost per write (issue 26, docs/security.md).

    python bench/poison_detect.py [--corpus bench/data/poison_corpus.json]
        [--locomo ../shared/data/locomo/locomo-dev.json] [--repeat 5] [--json OUT]

Scores every text with ``core.injection.scan``, exactly as every write path
does, and prints:

* **detection**: the share of the corpus's attacks held (score >= the
  threshold), per category and in all, for the tuning set and the later
  rounds (bench/data/poison_corpus.json says how they were written), and
  of the held ones again, each buried in 5,000 characters of benign facts
  (long texts are matched near trigger words only);
* **false positives**: the share held of the corpus's benign look-alikes,
  of the retrieval eval set's facts and pages (bench/data/retrieval_eval.json)
  and of every LoCoMo dev turn (read in place from ../shared/data, never
  copied; each turn as bench/locomo.py stores it, ``"<speaker> (<date>):
  <text>"``);
* **cost per write** (CPU time): the best of ``--repeat`` passes over all those texts
  (median and p99 per text, in µs), plus a 4,000-character fact (the
  ``remember`` cap), a 64 KiB page and a 1 MiB page (the page cap), each
  built from the benign texts (dense with security talk, Greek and Cyrillic
  words and hashes: most rules' gate words hit), 4,000 characters of
  ordinary conversation (LoCoMo turns) and 4,000 characters of attacks only
  (every rule's gate words hit), each scored whole.

Targets: detection >= 95 %, false positives <= 1 %, cost <= 0.3 ms per write.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from brainkeep.core.injection import scan

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE / "data" / "poison_corpus.json"
DEFAULT_EVAL = HERE / "data" / "retrieval_eval.json"
DEFAULT_LOCOMO = HERE.parents[1] / "shared" / "data" / "locomo" / "locomo-dev.json"


def locomo_turns(path: Path) -> list[str]:
    """Every turn of the LoCoMo file as one document (bench/locomo_support.py's text)."""
    turns = []
    for sample in json.loads(path.read_text()):
        conv = sample["conversation"]
        for key, value in conv.items():
            if key.startswith("session_") and isinstance(value, list):
                date = conv.get(f"{key}_date_time", "")
                turns += [f"{t['speaker']} ({date}): {t['text']}" for t in value]
    return turns


def held_share(texts: list[str]) -> tuple[int, int, list[str]]:
    """(held, total, the held texts)."""
    held = [t for t in texts if scan(t).quarantined]
    return len(held), len(texts), held


def cost_us(texts: list[str], repeat: int) -> tuple[float, float]:
    """(median, p99) µs per scan over ``texts``, each the best of ``repeat`` passes.

    CPU time of this thread, not wall time: on a shared machine the wall
    clock also counts the time other processes held the core.
    """
    best = [float("inf")] * len(texts)
    for _ in range(repeat):
        for i, text in enumerate(texts):
            start = time.thread_time()
            scan(text)
            best[i] = min(best[i], time.thread_time() - start)
    ordered = sorted(best)
    return statistics.median(ordered) * 1e6, ordered[int(0.99 * (len(ordered) - 1))] * 1e6


def _pct(n: int, total: int) -> str:
    return f"{n}/{total} = {100 * n / total:.1f}%" if total else "0/0"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--eval", type=Path, default=DEFAULT_EVAL)
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO,
                        help="LoCoMo dev file (read in place, never copied)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the numbers as JSON")
    args = parser.parse_args()
    corpus = json.loads(args.corpus.read_text())
    report: dict[str, Any] = {"detection": {}, "false_positives": {}}
    every: list[str] = []

    print("detection (held / attacks)")
    attacks = [t for items in corpus["attacks"].values() for t in items]
    for category, items in corpus["attacks"].items():
        held, total, _ = held_share(items)
        print(f"  {category:<28} {_pct(held, total)}")
    for name, texts in (("tuning set", attacks),
                        *((r, corpus[r]["attacks"]) for r in ("round_2", "round_3"))):
        held, total, _ = held_share(texts)
        report["detection"][name] = held / total
        print(f"  {name:<28} {_pct(held, total)}")
        every += texts
    # Long texts are matched near trigger words only: the same attacks, each
    # in the middle of 5,000 characters of benign facts, must still be held.
    evals = json.loads(args.eval.read_text())
    filler = "\n\n".join(m["text"] for m in evals["memories"])
    rounds = attacks + corpus["round_2"]["attacks"] + corpus["round_3"]["attacks"]
    alone = [t for t in rounds if scan(t).quarantined]
    buried = [f"{filler[:2500]}\n\n{t}\n\n{filler[2500:5000]}" for t in alone]
    held, total, _ = held_share(buried)
    report["detection"]["inside a 5,000-char page"] = held / total
    print(f"  {'held alone, inside a page':<28} {_pct(held, total)}")

    print("false positives (held / benign)")
    sets = {"look-alikes": [t for items in corpus["benign"].values() for t in items]
            + corpus["round_2"]["benign"] + corpus["round_3"]["benign"],
            "retrieval eval facts": [m["text"] for m in evals["memories"]],
            "retrieval eval pages": [p["content"] for p in evals["pages"]]}
    if args.locomo.exists():
        sets["LoCoMo dev turns"] = locomo_turns(args.locomo)
    else:
        print(f"  (no LoCoMo file at {args.locomo}: skipped)", file=sys.stderr)
    for name, texts in sets.items():
        held, total, which = held_share(texts)
        report["false_positives"][name] = held / total
        print(f"  {name:<28} {_pct(held, total)}")
        for text in which[:5]:
            print(f"      held: {text[:100]!r} {scan(text).rules}")
        every += texts

    median, p99 = cost_us(every, args.repeat)
    # Long texts built from the benign sets (what long pages hold), and one
    # made of attacks only: the worst case, where every rule's gate hits.
    page = "\n\n".join(t for texts in sets.values() for t in texts)
    hostile = "\n\n".join(attacks)
    conversation = "\n".join(sets.get("LoCoMo dev turns", []))[40_000:44_000]
    big = {"4,000-char fact (the remember cap)": page[:4000],
           **({"4,000 chars of conversation (LoCoMo turns)": conversation} if conversation else {}),
           "4,000 chars of attacks only": (hostile * 2)[:4000],
           "64 KiB page": (page * 2)[:65_536], "1 MiB page (the page cap)": (page * 20)[:1_048_576]}
    report["cost_us"] = {"texts": len(every), "median": median, "p99": p99}
    print(f"cost per write over {len(every)} texts: median {median:.1f} µs, p99 {p99:.1f} µs")
    for name, text in big.items():
        _, worst = cost_us([text], max(1, args.repeat // 2))
        report["cost_us"][name] = worst
        print(f"  {name}: {worst / 1000:.2f} ms ({worst / len(text) * 1000:.0f} ns/char)")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
