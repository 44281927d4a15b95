"""Build a synthetic brain shaped like a real one, through the service layer.

Run: ``python bench/seed_corpus.py`` (20,000 pages, 100,000 links, 30,000
aliases, 40,000 memories) or ``python bench/seed_corpus.py --scale 10``
(200K / 1M / 300K / 400K). ``--out PATH`` keeps the database (default: a temp
dir, removed afterwards unless ``--keep``).

Pages go through ``PageService.put_page`` (so parsing, chunking, links,
aliases, timeline and the audit event all run as in production) and memories
through ``FactService.insert`` (row + chained event), batched inside
``store.transaction()`` blocks. Content is deterministic for a seed; ids and
timestamps are not.

Other benches import ``build_corpus(path, scale, seed)``; it returns a
manifest with counts, timings and sample names (slugs, titles, aliases,
entity slugs) to look up later.

Target (issue 2): the 20K corpus in under 60 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.memory.facts import normalize_fact
from brainkeep.core.models import MemoryDraft

BASE_PAGES = 20_000
LINKS_PER_PAGE = 5  # 100,000 links at scale 1
BASE_MEMORIES = 40_000  # two per page
PAGE_BATCH = 500
MEMORY_BATCH = 2_000
SAMPLE_SIZE = 50

_FIRST = [
    "Alice",
    "Bruno",
    "Chen",
    "Dalia",
    "Emeka",
    "Fatima",
    "Gustavo",
    "Hana",
    "Ivan",
    "Jun",
    "Kwame",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sven",
    "Tomoko",
    "Uma",
    "Viktor",
    "Wei",
    "Ximena",
    "Yusuf",
    "Zoë",
]
_LAST = [
    "Example",
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Tanaka",
    "Haddad",
    "Novak",
    "Castillo",
    "Byrne",
    "Kowalski",
    "Achterberg",
    "Ramírez",
    "Nakamura",
    "Osei",
    "Petrov",
    "Singh",
]
_COMPANY_WORDS = [
    "Acme",
    "Globex",
    "Initech",
    "Umbrella",
    "Hooli",
    "Vandelay",
    "Stark",
    "Wayne",
    "Tyrell",
    "Cyberdyne",
    "Soylent",
    "Wonka",
    "Gringotts",
    "Oscorp",
    "Monarch",
    "Aperture",
]
_COMPANY_SUFFIX = ["Labs", "Systems", "Health", "Capital", "Robotics", "Foods", "Analytics"]
_PROJECT_WORDS = [
    "Atlas",
    "Beacon",
    "Comet",
    "Delta",
    "Ember",
    "Falcon",
    "Granite",
    "Harbor",
    "Iris",
    "Juniper",
    "Keystone",
    "Lighthouse",
    "Meridian",
    "Nimbus",
    "Orchid",
    "Pioneer",
]
_TOPICS = [
    "the billing migration",
    "the Q3 roadmap",
    "hiring for the data team",
    "the pricing change",
    "the security review",
    "the mobile launch",
    "vendor onboarding",
    "the quarterly board deck",
    "the on-call rotation",
    "customer churn analysis",
    "the API deprecation",
    "the EU expansion",
]
_SENTENCES = [
    "{a} leads {t} and reports progress every Friday.",
    "{a} worked with {b} on {t}; the first milestone slipped by two weeks.",
    "Decision recorded: {t} is paused until {b} signs off on the budget.",
    "{a} prefers written updates over meetings, especially about {t}.",
    "Notes from the offsite: {a} and {b} agreed to split {t} into two phases.",
    "{a} flagged a risk in {t}: the contract renewal depends on a security audit.",
]
_FACTS = [
    "{a} prefers email over phone for anything about {t}.",
    "{a} committed to ship {t} before the end of the month.",
    "{a} believes {t} needs a dedicated owner.",
    "{a} mentioned that {t} is blocked on legal review.",
    "{a} will be out of office during {t} kickoff.",
]
_KINDS = ("fact", "preference", "commitment", "belief", "event")


def _namespace(i: int) -> str:
    # 50% people, 20% companies, 20% projects, 10% meeting notes.
    bucket = i % 10
    if bucket < 5:
        return "people"
    if bucket < 7:
        return "companies"
    if bucket < 9:
        return "projects"
    return "meetings"


def page_identity(i: int) -> tuple[str, str, list[str]]:
    """(slug, title, aliases) of page ``i``; 1.5 aliases per page on average."""
    ns = _namespace(i)
    n = i // len(_FIRST)
    if ns == "people":
        first, last = _FIRST[i % len(_FIRST)], _LAST[(i // 7) % len(_LAST)]
        title = f"{first} {last} {n}"
        aliases = [f"{first[0]}. {last} {n}", f"{first} {n}"]
    elif ns == "companies":
        word, suffix = _COMPANY_WORDS[i % len(_COMPANY_WORDS)], _COMPANY_SUFFIX[(i // 3) % 7]
        title = f"{word} {suffix} {n}"
        aliases = [f"{word}{n}", f"{word} {suffix[:3]} {n} Inc."]
    elif ns == "projects":
        word = _PROJECT_WORDS[i % len(_PROJECT_WORDS)]
        title = f"Project {word} {n}"
        aliases = [f"{word}-{n}", f"Proj {word} {n}"]
    else:
        title = f"Weekly sync {i}"
        aliases = [f"sync {i}", f"meeting {i}"]
    slug = f"{ns}/" + "-".join(title.lower().replace(".", "").split())
    slug = slug.replace("ë", "e").replace("í", "i")
    return slug, title, aliases[: 2 if i % 2 == 0 else 1]


def page_markdown(i: int, identities: list[tuple[str, str, list[str]]], rng: random.Random) -> str:
    slug, title, aliases = identities[i]
    total = len(identities)
    targets: list[int] = []
    while len(targets) < LINKS_PER_PAGE:
        j = rng.randrange(total)
        if j != i and j not in targets:
            targets.append(j)
    # Two typed frontmatter links and three wikilinks, all to distinct pages,
    # so each page yields exactly LINKS_PER_PAGE edges.
    fm_a, fm_b = identities[targets[0]][0], identities[targets[1]][0]
    lines = ["---", f"title: {title}", f"type: {slug.split('/', 1)[0].rstrip('s')}"]
    lines.append("aliases:")
    lines.extend(f"  - {a}" for a in aliases)
    lines.append(f"works_with: {fm_a}")
    lines.append(f"related_to: [{fm_b}]")
    if i % 50 == 0:
        lines.append("visibility: private")
    lines += ["---", "", f"# {title}", ""]
    names = [identities[t][1] for t in targets]
    for _ in range(rng.randint(2, 4)):
        lines.append(
            rng.choice(_SENTENCES).format(a=title, b=rng.choice(names), t=rng.choice(_TOPICS))
        )
    lines.append("")
    lines.append(
        "See also "
        + ", ".join(f"[[{identities[t][0]}|{identities[t][1]}]]" for t in targets[2:])
        + "."
    )
    lines += ["", "## Timeline", ""]
    for k in range(rng.randint(1, 3)):
        day = 1 + (i + k * 7) % 28
        lines.append(f"- 2025-{1 + (i + k) % 12:02d}-{day:02d}: {rng.choice(_TOPICS)} update")
    return "\n".join(lines) + "\n"


def _memory(
    k: int, identities: list[tuple[str, str, list[str]]], rng: random.Random
) -> MemoryDraft:
    i = rng.randrange(len(identities))
    slug, title, _ = identities[i]
    text = rng.choice(_FACTS).format(a=title, t=rng.choice(_TOPICS)) + f" (note {k})"
    return MemoryDraft(
        text=text,
        kind=_KINDS[k % len(_KINDS)],
        entity_slug=slug,
        visibility="private" if k % 20 == 0 else "world",
        provenance=f"seed corpus, conversation {k // 40}",
        session_id=f"session-{k // 200}",
        origin="cli",
        scope="global",
    )


def build_corpus(path: str | Path, scale: float = 1, seed: int = 7) -> dict[str, Any]:
    """Build the corpus into the brain home ``path``; return a manifest.

    Args:
        path: brain home folder (the database is ``path/brain.db``).
        scale: multiplier of the 20K-page corpus (10 -> 200K pages).
        seed: content seed; the same seed gives the same slugs, text and links.

    Returns:
        counts, timings (seconds), db size and sample names for later benches.
    """
    n_pages = max(10, round(BASE_PAGES * scale))
    n_memories = max(10, round(BASE_MEMORIES * scale))
    rng = random.Random(seed)
    identities = [page_identity(i) for i in range(n_pages)]
    brain = open_brain(load_settings(Path(path), env={}))
    try:
        store, pages, facts = brain.store, brain.pages, brain.facts
        cpu_start = time.process_time()
        start = time.perf_counter()
        for lo in range(0, n_pages, PAGE_BATCH):
            with store.transaction():
                for i in range(lo, min(lo + PAGE_BATCH, n_pages)):
                    pages.put_page(identities[i][0], page_markdown(i, identities, rng))
        pages_s = time.perf_counter() - start

        start = time.perf_counter()
        for lo in range(0, n_memories, MEMORY_BATCH):
            with store.transaction():
                for k in range(lo, min(lo + MEMORY_BATCH, n_memories)):
                    draft = _memory(k, identities, rng)
                    now = brain.clock.now_ts()
                    facts.insert(draft, normalize_fact(draft.text), now, actor="seed")
        memories_s = time.perf_counter() - start
        cpu_s = time.process_time() - cpu_start
        counts = store.counts()
        size_open = store.size_bytes()
    finally:
        brain.close()
    # After close the WAL is checkpointed into the file: its size is the brain's size.
    size = os.path.getsize(Path(path) / "brain.db")
    sample_rng = random.Random(seed + 1)
    sample = [identities[i] for i in sorted(sample_rng.sample(range(n_pages), SAMPLE_SIZE))]
    return {
        "path": str(Path(path) / "brain.db"),
        "scale": scale,
        "seed": seed,
        "counts": counts,
        "seconds": {
            "pages": pages_s,
            "memories": memories_s,
            "total": pages_s + memories_s,
            # CPU of this process: on a shared machine wall time overstates the cost.
            "cpu": cpu_s,
        },
        "pages_per_s": n_pages / pages_s,
        "memories_per_s": n_memories / memories_s,
        "db_size_bytes": size,
        "db_plus_wal_bytes_before_close": size_open,
        "sample": {
            "slugs": [s for s, _, _ in sample],
            "titles": [t for _, t, _ in sample],
            "aliases": [a[0] for _, _, a in sample],
            "entity_slugs": [s for s, _, _ in sample[:10]],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1, help="10 -> 200K pages (default 1)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, help="brain home folder (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the temp brain")
    parser.add_argument("--manifest", type=Path, help="also write the manifest JSON here")
    args = parser.parse_args()

    home = args.out or Path(tempfile.mkdtemp(prefix="brainkeep-corpus-"))
    if (home / "brain.db").exists():
        parser.error(f"{home / 'brain.db'} exists; pass an empty --out folder")
    print(f"cores: {os.cpu_count()}, scale {args.scale}, seed {args.seed}, home {home}")
    cleanup = args.out is None and not args.keep
    try:
        manifest = build_corpus(home, args.scale, args.seed)
    except BaseException:
        if cleanup:
            shutil.rmtree(home, ignore_errors=True)
        raise
    c, s = manifest["counts"], manifest["seconds"]
    print(
        f"pages {c['pages'] + c['pages_deleted']:,}  links {c['links']:,}  "
        f"aliases {c['aliases']:,}  memories {c['memories']:,}  "
        f"timeline {c['timeline_entries']:,}  chunks {c['chunks']:,}  events {c['events']:,}"
    )
    print(f"pages:    {manifest['pages_per_s']:,.0f} pages/s ({s['pages']:.1f} s)")
    print(f"memories: {manifest['memories_per_s']:,.0f} memories/s ({s['memories']:.1f} s)")
    print(f"total:    {s['total']:.1f} s wall, {s['cpu']:.1f} s CPU")
    print(f"load avg: {' '.join(f'{x:.1f}' for x in os.getloadavg())} (other work on the machine)")
    print(
        f"db size:  {manifest['db_size_bytes'] / 1_048_576:.1f} MiB after close "
        f"({manifest['db_plus_wal_bytes_before_close'] / 1_048_576:.1f} MiB with the WAL, open)"
    )
    if args.manifest:
        args.manifest.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        print(f"manifest: {args.manifest}")
    if cleanup:
        shutil.rmtree(home, ignore_errors=True)
    else:
        print(f"kept:     {manifest['path']}")


if __name__ == "__main__":
    main()
