"""LoCoMo helpers for bench/locomo.py: data loading, page text, metrics, naive BM25.

Nothing here talks to brainkeep; ``bench/locomo.py`` drives the server and
``tests/bench/test_locomo_metrics.py`` checks the metrics on a tiny
synthetic conversation. The data file is read where it lies (its license
allows evaluation only: it is never copied into the repository).
"""

from __future__ import annotations

import json
import re
import sqlite3
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brainkeep.core.limits import MAX_SEARCH_CONTEXT_CHARS

DEFAULT_DATA = (Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo"
                / "locomo-dev.json")
KS = (1, 5, 10)
LIMIT = 10
CATEGORIES = (1, 2, 3, 4)  # 5 is adversarial: no evidence to retrieve
_SESSION = re.compile(r"^session_(\d+)$")


@dataclass(frozen=True)
class Turn:
    """One dialog turn, as one page."""

    slug: str  # a running counter: never derived from the dia_id
    dia_id: str
    title: str
    text: str  # "<speaker> (<session date>): <text>"
    context: str = ""  # frontmatter search_context: "after <speaker>: <previous turn>"

    def markdown(self) -> str:
        # JSON strings are valid YAML scalars: dates carry commas and colons.
        context = (f"search_context: {json.dumps(self.context, ensure_ascii=False)}\n"
                   if self.context else "")
        return f"---\ntitle: {json.dumps(self.title)}\n{context}---\n{self.text}\n"


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    gold: frozenset[str]  # slugs of the evidence turns


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]

    @property
    def has_context(self) -> bool:
        """Whether its turns carry a ``search_context`` (the brain is cached apart)."""
        return any(t.context for t in self.turns)


def evidence_ids(raw: Iterable[str]) -> list[str]:
    """dia_ids of a question's evidence (a few entries hold several, ``"D8:6; D9:17"``)."""
    out: list[str] = []
    for item in raw:
        out.extend(re.findall(r"D\d+:\d+", item))
    return out


def conversation(sample: dict[str, Any], with_context: bool = False) -> Conversation:
    """Turns (one per dialog turn, in session order) and the answerable questions.

    ``with_context``: each turn after a session's first carries the turn
    before it as its page's ``search_context`` (read by search, never shown).
    """
    conv = sample["conversation"]
    sessions = sorted(
        (int(m.group(1)), key) for key in conv if (m := _SESSION.match(key))
    )
    turns: list[Turn] = []
    for number, key in sessions:
        date = conv.get(f"session_{number}_date_time", "")
        previous = ""
        for turn in conv[key]:
            turns.append(Turn(
                slug=f"turns/t{len(turns) + 1:05d}",
                dia_id=turn["dia_id"],
                title=f"{turn['speaker']}, {date}",
                text=f"{turn['speaker']} ({date}): {turn['text']}",
                context=previous[:MAX_SEARCH_CONTEXT_CHARS] if with_context else "",
            ))
            previous = f"after {turn['speaker']}: {turn['text']}"
    by_dia = {t.dia_id: t.slug for t in turns}
    questions = []
    for qa in sample["qa"]:
        if qa.get("category") not in CATEGORIES:
            continue
        gold = frozenset(by_dia[d] for d in evidence_ids(qa.get("evidence", [])) if d in by_dia)
        if gold:  # a question whose evidence names no turn cannot be scored
            questions.append(Question(str(qa["question"]), int(qa["category"]), gold))
    return Conversation(sample["sample_id"], tuple(turns), tuple(questions))


def load(path: Path, only: Iterable[str] = (), with_context: bool = False
         ) -> list[Conversation]:
    wanted = set(only)
    data = json.loads(path.read_text(encoding="utf-8"))
    return [conversation(s, with_context) for s in data
            if not wanted or s["sample_id"] in wanted]


def first_hit(ranked: list[str], gold: frozenset[str]) -> int | None:
    """1-based rank of the first ranked page that is a gold evidence turn (None: none)."""
    for rank, slug in enumerate(ranked, start=1):
        if slug in gold:
            return rank
    return None


@dataclass(frozen=True)
class QueryRow:
    """What one question scored in one mode."""

    conversation: str
    category: int
    rank: int | None  # within the first LIMIT results
    tokens: int
    ms: float


def summarize(rows: list[QueryRow]) -> dict[str, float]:
    """R@k (share of questions with a gold turn in the top k), MRR@10, tokens, p50 ms."""
    if not rows:
        return {}
    out: dict[str, float] = {
        f"R@{k}": sum(1 for r in rows if r.rank is not None and r.rank <= k) / len(rows)
        for k in KS
    }
    out["MRR"] = sum(1.0 / r.rank for r in rows if r.rank is not None) / len(rows)
    out["tokens/query"] = statistics.mean(r.tokens for r in rows)
    out["p50 ms"] = statistics.median(r.ms for r in rows)
    out["queries"] = len(rows)
    return out


def by_category(rows: list[QueryRow]) -> dict[str, dict[str, float]]:
    """``summarize`` per LoCoMo category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop)."""
    return {f"cat {c}": summarize([r for r in rows if r.category == c])
            for c in CATEGORIES if any(r.category == c for r in rows)}


class NaiveBM25:
    """The README's reference: one FTS5 row per turn, BM25, OR of the query's words."""

    def __init__(self, turns: Iterable[Turn], tokenizer: str = "unicode61") -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute(f"CREATE VIRTUAL TABLE docs USING fts5(slug UNINDEXED, text, "
                        f"tokenize = '{tokenizer}')")
        self.db.executemany("INSERT INTO docs (slug, text) VALUES (?, ?)",
                            [(t.slug, t.text) for t in turns])

    def search(self, query: str, limit: int = LIMIT) -> list[str]:
        words = list(dict.fromkeys(re.findall(r"\w+", query.lower())))
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        rows = self.db.execute(
            "SELECT slug FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT ?", (match, limit)
        ).fetchall()
        return [r[0] for r in rows]


def table(columns: dict[str, dict[str, float]]) -> str:
    """Metrics down, methods across."""
    metrics = ["R@1", "R@5", "R@10", "MRR", "tokens/query", "p50 ms", "queries"]
    names = list(columns)
    lines = [f"{'metric':<14}" + "".join(f"{n:>12}" for n in names)]
    for m in metrics:
        cells = []
        for n in names:
            v = columns[n].get(m)
            cells.append(f"{'-':>12}" if v is None else
                         f"{v:>12.0f}" if m in ("queries", "tokens/query") else
                         f"{v:>12.1f}" if m == "p50 ms" else f"{v:>12.3f}")
        lines.append(f"{m:<14}" + "".join(cells))
    return "\n".join(lines)
