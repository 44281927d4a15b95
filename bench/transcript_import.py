"""Benchmark `transcripts import` on a synthetic ChatGPT export (keyword-only brain).

Run: ``python bench/transcript_import.py`` (``--mb 50``; ``--postgres`` to use a
private PostgreSQL server instead of a SQLite file; ``--entities N`` entity
pages to link against, default 500).

The export is generated in the real ``conversations.json`` structure: a list
of conversations with ``title``, ``create_time``, ``conversation_id``,
``current_node`` and a ``mapping`` of nodes (a root, a hidden system message,
user/assistant turns with ``author.role``, ``content.parts`` and
``create_time``, an occasional regenerated branch and tool message), turns
of 20 to 3,000 characters of prose and code that names people and
companies, and a planted secret in about 1 turn of 200. It times
``TranscriptImporter.import_path`` (parse, scrub, lay out, link, write)
into a fresh brain with no embedding provider, then the re-run (nothing
written).

Target (issue 24): >= 2,000 turns/s on a 50 MB export.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from pg_support import server
from secret_corpus import planted

from brainkeep.brain import open_brain
from brainkeep.config import load_settings, write_values
from brainkeep.core import injection
from brainkeep.core.context import LOCAL
from brainkeep.core.transcripts import TranscriptImporter

WORDS = ("the deploy pipeline budget review harbour crane contract signed ledger export "
         "cursor runner image python pinned staging production rollout migration schema "
         "index latency p99 customer meeting thursday friday decision owner follow up "
         "draft note summary invoice quarter roadmap hiring offer kayak trip ferry").split()
CODE = "```python\nfor row in session.execute(query).yield_per(5000):\n    write(row)\n```"


def _people(n: int) -> list[str]:
    first = ["Priya", "Dana", "Mara", "Jonas", "Aiko", "Luis", "Noor", "Tomas", "Ines", "Ravi"]
    last = ["Raman", "Lind", "Okafor", "Berg", "Sato", "Moreau", "Haddad", "Novak", "Silva"]
    return [f"{first[i % len(first)]} {last[(i // len(first)) % len(last)]}{'' if i < 90 else i}"
            for i in range(n)]


def _text(rng: random.Random, names: list[str], secrets: list[str]) -> str:
    size = rng.choice([20, 80, 200, 400, 800, 1500, 3000])
    words: list[str] = []
    total = 0
    while total < size:
        word = rng.choice(names) if rng.random() < 0.02 else rng.choice(WORDS)
        words.append(word)
        total += len(word) + 1
    text = " ".join(words)
    if rng.random() < 0.1:
        text += "\n\n" + CODE
    if rng.random() < 0.005:
        text += "\n" + rng.choice(secrets)
    return text


def _message(node_id: str, role: str, text: str, at: float, **extra: Any) -> dict[str, Any]:
    return {"id": node_id, "author": {"role": role, "name": extra.get("name"), "metadata": {}},
            "create_time": at, "update_time": None,
            "content": {"content_type": "text", "parts": [text]},
            "status": "finished_successfully", "end_turn": True, "weight": 1.0,
            "metadata": extra.get("metadata", {}), "recipient": "all"}


def conversation(rng: random.Random, number: int, names: list[str],
                 secrets: list[str]) -> tuple[dict[str, Any], int]:
    """One conversation in the export's structure, and how many turns it shows."""
    at = 1_700_000_000 + number * 3600.0
    mapping: dict[str, Any] = {}

    def add(node_id: str, parent: str | None, message: dict[str, Any] | None) -> None:
        mapping[node_id] = {"id": node_id, "message": message, "parent": parent, "children": []}
        if parent is not None:
            mapping[parent]["children"].append(node_id)

    add("root", None, None)
    add("sys", "root", _message("sys", "system", "", at,
                                metadata={"is_visually_hidden_from_conversation": True}))
    parent, turns = "sys", 0
    for i in range(rng.randint(2, 40)):
        role = "user" if i % 2 == 0 else "assistant"
        node_id = f"n{number}-{i}"
        if role == "assistant" and rng.random() < 0.05:  # a regenerated-away reply
            add(node_id + "-old", parent, _message(node_id + "-old", role, "old reply", at))
        add(node_id, parent, _message(node_id, role, _text(rng, names, secrets), at + i * 30))
        parent, turns = node_id, turns + 1
    conv_id = f"{number:08x}-1b2c-4d5e-8f90-a1b2c3d4e5f6"
    return {"title": f"Chat {number} about {rng.choice(WORDS)}", "create_time": at,
            "update_time": at + 1000, "mapping": mapping, "moderation_results": [],
            "current_node": parent, "conversation_id": conv_id, "id": conv_id,
            "default_model_slug": "gpt-4o", "is_archived": False}, turns


def write_export(path: Path, megabytes: float, names: list[str], seed: int = 24) -> int:
    """Write the export; returns the number of turns it shows."""
    rng = random.Random(seed)
    secrets = [p.text for p in planted(random.Random(seed), per_rule=3)]
    items: list[str] = []
    size, turns, number = 2, 0, 0
    while size < megabytes * 1_000_000:
        conv, shown = conversation(rng, number, names, secrets)
        text = json.dumps(conv)
        items.append(text)
        size += len(text) + 2
        turns += shown
        number += 1
    path.write_text("[" + ",\n".join(items) + "]", encoding="utf-8")
    return turns


def write_session(path: Path, megabytes: float, seed: int = 5) -> int:
    """A Claude Code session log: prompts, replies, tool calls with large outputs."""
    rng = random.Random(seed)
    sid = "5c1f8a2e-3b7d-4e0a-9c6f-2d8b1a7e4f30"
    lines: list[str] = []
    size, turn = 0, 0
    while size < megabytes * 1_000_000:
        kind = ("user", "assistant", "tool")[turn % 3]
        if kind == "tool":
            content: Any = [{"type": "tool_result", "tool_use_id": f"toolu_{turn}",
                             "content": "\n".join(rng.choice(WORDS) * 8 for _ in range(400))}]
        elif kind == "assistant":
            content = [{"type": "text", "text": _text(rng, ["Priya Raman"], ["x"])},
                       {"type": "tool_use", "id": f"toolu_{turn}", "name": "Bash",
                        "input": {"command": "pytest -q tests/"}}]
        else:
            content = _text(rng, ["Priya Raman"], ["x"])
        line = json.dumps({"type": "assistant" if kind == "assistant" else "user",
                           "sessionId": sid, "uuid": f"u{turn}", "cwd": "/home/dana/code/x",
                           "timestamp": f"2026-03-02T09:{turn // 60 % 60:02d}:{turn % 60:02d}Z",
                           "message": {"role": "assistant" if kind == "assistant" else "user",
                                       "id": f"msg_{turn}", "content": content}})
        lines.append(line)
        size += len(line) + 1
        turn += 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return turn


def time_session(importer: TranscriptImporter, work: Path, megabytes: float) -> None:
    """The hooks' path: bank a big session, then again after two more turns."""
    session = work / "session.jsonl"
    lines = write_session(session, megabytes)
    for label in ("session, first bank", "session, +2 turns (a stop hook)"):
        if label.startswith("session, +"):
            with session.open("a", encoding="utf-8") as out:
                for i in range(2):
                    out.write(json.dumps({"type": "user", "sessionId": "s", "uuid": f"z{i}",
                                          "message": {"role": "user", "content": f"more {i}"}})
                              + "\n")
        wall, cpu = time.perf_counter(), time.process_time()
        report = importer.import_path(session, fmt="claude-code")
        print(f"{label}: {megabytes:.0f} MB, {lines:,} lines -> {report.turns_added:,} turns "
              f"added, {report.pages_written} pages written; {time.perf_counter() - wall:.2f} s "
              f"wall, {time.process_time() - cpu:.2f} s CPU")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--entities", type=int, default=500)
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--session-mb", type=float, default=10.0,
                        help="also bank a Claude Code session this big, then +2 turns (0: skip)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="brainkeep-transcripts-"))
    names = _people(args.entities)
    export = work / "conversations.json"
    start = time.perf_counter()
    turns = write_export(export, args.mb, names)
    print(f"cores: {os.cpu_count()}; wrote {export.stat().st_size / 1e6:.1f} MB, "
          f"{turns:,} turns in {time.perf_counter() - start:.1f} s")
    home = work / "home"
    settings = load_settings(home, env={})
    if args.postgres:
        pg = server(None)
        url = pg.create_database("transcripts_bench")
        print(f"engine: PostgreSQL {pg.version()} ({pg.label})")
        write_values(settings, {**settings.values, "database.url": url})
        settings = load_settings(home, env={})
    else:
        print("engine: SQLite")
    brain = open_brain(settings, embedder=None)
    try:
        for i, name in enumerate(names):
            brain.pages.put_page(f"people/p{i}", f"---\ntitle: {name}\ntype: person\n---\nx\n")
        importer = TranscriptImporter(brain.pages)
        runs = []
        for label in ("fresh brain", "re-run (unchanged)"):
            wall, cpu = time.perf_counter(), time.process_time()
            report = importer.import_path(export)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            runs.append(report)
            if len(runs) == 1:
                first_cpu = cpu
            print(f"{label}: {report.turns_added + report.turns_skipped:,} turns, "
                  f"{report.conversations:,} conversations -> {report.pages_written:,} pages "
                  f"written, {report.secrets_scrubbed:,} secrets scrubbed; "
                  f"{turns / wall:,.0f} turns/s wall ({wall:.1f} s), "
                  f"{turns / cpu:,.0f} turns/s of CPU ({cpu:.1f} s CPU)")
        # The injection scorer (issue 26) runs inside every put_page; its share
        # is timed apart on the same page texts so the importer's own cost shows.
        contents = [page.content for page in brain.pages.list_pages(LOCAL, prefix="transcripts/",
                                                                    limit=500)]
        after = None
        while len(contents) < runs[0].pages_written:
            batch = brain.pages.list_pages(LOCAL, prefix="transcripts/", limit=500,
                                           after_slug=after or None)
            if not batch:
                break
            after = batch[-1].slug
            contents += [page.content for page in batch]
        contents = contents[:runs[0].pages_written]
        cpu = time.process_time()
        for text in contents:
            injection.scan(text)
        scan_cpu = time.process_time() - cpu
        print(f"of which injection.scan (issue 26, inside put_page): {scan_cpu:.1f} s CPU; "
              f"the import without it: {turns / max(first_cpu - scan_cpu, 1e-9):,.0f} turns/s "
              "of CPU")
        if args.session_mb:
            time_session(importer, work, args.session_mb)
        counts = brain.store.counts()
        print(f"brain: {counts.get('pages', 0):,} pages, {counts.get('links', 0):,} links, "
              f"{counts.get('chunks', 0):,} chunks; load average "
              f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        assert runs[1].pages_written == 0, runs[1]
    finally:
        brain.close()


if __name__ == "__main__":
    main()
