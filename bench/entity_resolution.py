"""Which page a remembered fact lands on when `entity` is a name (issue 22).

    python bench/entity_resolution.py [--seed 22] [--per-kind 100]
    PYTHONPATH=/tmp/bk_base/src python bench/entity_resolution.py   # an older tree

Builds a synthetic, deterministic brain of 200 entities (150 people, 50
companies; titles like "Alice Chen" / "Bluefin Capital", half with aliases:
"A. Chen", a nickname, a company's first word), then makes `remember` calls
through the operation dispatcher (as an MCP stdio caller) and reads where
each fact was filed from the response's `entity_slug`, which every version
returns:

* should land on the page (target >= 95% together): the exact title; an
  alias; a first name (or a company's first word) that only that entity
  has; a one-letter typo of the title, made inside a word (a swapped pair,
  a neighbouring key, a dropped or doubled letter; first and last letters
  kept, since changing those makes another name: Chen / Cheng);
* must NOT land on any page (target 100%): new names — brand-new people and
  companies, an existing first name with an existing surname in a new pair,
  look-alikes of a brain name (Alice Chen -> Alicia Chen, Alice Cheng, Alice
  Chan, Shen: two letters, a new first or last letter, or an inner vowel for
  a vowel that is not a neighbouring key), first names alone that no entity
  has, and first names two people share (ambiguous: no page may be picked).

One-letter slips inside a long name are taken as typos by design, so a
genuinely new "Kristen Berg" next to a brain's "Kirsten Berg" would be filed
under Kirsten Berg (with a note saying so); the bench does not count such
names as new. Prints each kind's share and the two totals; exit 1 when a
target is missed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.context import STDIO
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from brainkeep.ops.usage import UsageLog

FIRST = (
    "Alice Bruno Carla Dmitri Elena Farid Greta Hiro Ines Jonas Kavya Lars Mei Nadia Omar "
    "Priya Quentin Rosa Sven Tomas Ulla Viktor Wanda Xavier Yusuf Zora Amara Bodhi Chiara "
    "Diego Esther Felix Gianna Hamid Ingrid Javier Keiko Leila Matteo Noor Oskar Paloma "
    "Rafael Selma Tariq Uma Vera Wiktor Yara Zeno Anders Beatriz Cyrus Daria Emil Fatima "
    "Gustav Helga Ivo Jasmin"
).split()
LAST = (
    "Chen Silva Volkov Okafor Novak Lindqvist Moreau Tanaka Haddad Kowalski Ferreira Nakamura "
    "Oyelaran Petrov Quispe Rasmussen Sandoval Takahashi Urquhart Vasquez Whitfield Yilmaz "
    "Zielinski Abernathy Bergstrom Castellano Dragomir Eriksen Fitzgerald Gallagher Hoffmann "
    "Iwasaki Jankowski Kristiansen Lombardi Mendoza Nyberg Ostrowski Pellegrini Quintero "
    "Rosenthal Schubert Thornbury Underhill Valentini Wojcik Yamamoto Zimmermann Adeyemi "
    "Blackwood Carvalho Delacroix Esposito Falkenberg Grimaldi Halvorsen"
).split()
NICK = {"Alice": "Ali", "Dmitri": "Dima", "Elena": "Lena", "Tomas": "Tom", "Viktor": "Vik",
        "Xavier": "Xavi", "Matteo": "Teo", "Rafael": "Rafa", "Javier": "Javi", "Beatriz": "Bea",
        "Gustav": "Gus", "Jasmin": "Jas", "Gianna": "Gia", "Quentin": "Quinn"}
COMPANY_WORD = (
    "Bluefin Lantern Northwind Copperleaf Driftwood Emberline Foxglove Granite Halcyon "
    "Ironbark Juniper Kestrel Lodestar Meridian Nimbus Obsidian Pinecrest Quarry Redwood "
    "Saltmarsh Tidewater Umbra Vantage Willowby Zephyr Amberly Brightwater Cinderfall "
    "Dovetail Evergreen Fairhaven Goldcrest Hollowell Inkwell Jasperton Keystone Larkspur "
    "Moonstone Northgate Oakhaven Pemberton Quillon Riverside Silverline Thistle Upland "
    "Verdant Westbrook Yellowfin Zenith"
).split()
SUFFIX = "Robotics Capital Health Labs Systems Logistics Foods Energy Partners Analytics".split()
NEW_FIRST = "Bob Clara Dorian Edith Fabian Hazel Isidor Juno Kasimir Liesel".split()
NEW_LAST = "Ashdown Brennan Corrigan Dunmore Ellery Farrow Gould Hartigan Iverson Jessop".split()
ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def neighbour(letter: str, rng: random.Random) -> str:
    """A key next to ``letter`` on a staggered QWERTY."""
    for r, row in enumerate(ROWS):
        if letter in row:
            c = row.index(letter)
            near = [row[i] for i in (c - 1, c + 1) if 0 <= i < len(row)]
            if r > 0:
                near += [ROWS[r - 1][i] for i in (c, c + 1) if i < len(ROWS[r - 1])]
            if r < 2:
                near += [ROWS[r + 1][i] for i in (c - 1, c) if 0 <= i < len(ROWS[r + 1])]
            return rng.choice(near)
    return letter


def slip(title: str, rng: random.Random) -> str:
    """One keyboard slip inside one word of ``title`` (first and last letters kept)."""
    words = title.split()
    w = rng.randrange(len(words))
    word = words[w]
    kind = rng.choice(("swap", "neighbour", "drop", "double"))
    i = rng.randrange(1, len(word) - 1)  # an inner letter
    if kind == "swap" and i + 1 < len(word) - 1:
        word = word[:i] + word[i + 1] + word[i] + word[i + 2:]
    elif kind == "neighbour":
        word = word[:i] + neighbour(word[i].lower(), rng) + word[i + 1:]
    elif kind == "drop":
        word = word[:i] + word[i + 1:]
    else:
        word = word[:i] + word[i] + word[i:]
    words[w] = word
    return " ".join(words)


def build(rng: random.Random) -> list[dict[str, Any]]:
    """150 people and 50 companies, unique titles, about half with aliases."""
    entities: list[dict[str, Any]] = []
    names: set[str] = set()
    while len(entities) < 150:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        title = f"{first} {last}"
        if title in names:
            continue
        names.add(title)
        aliases = []
        if rng.random() < 0.35:
            aliases.append(f"{first[0]}. {last}")
        if first in NICK and rng.random() < 0.6:
            aliases.append(f"{NICK[first]} {last}")
        entities.append({"slug": "people/" + title.lower().replace(" ", "-"), "title": title,
                         "type": "person", "aliases": aliases, "first": first, "last": last})
    words = rng.sample(COMPANY_WORD, 50)
    for word in words:
        title = f"{word} {rng.choice(SUFFIX)}"
        aliases = [word] if rng.random() < 0.5 else []
        entities.append({"slug": "companies/" + title.lower().replace(" ", "-"), "title": title,
                         "type": "company", "aliases": aliases, "first": word,
                         "last": title.split()[1]})
    return entities


def markdown(e: dict[str, Any]) -> str:
    aliases = "".join(f"\n  - {a}" for a in e["aliases"])
    return (f"---\ntitle: {e['title']}\ntype: {e['type']}\n"
            + (f"aliases:{aliases}\n" if aliases else "")
            + f"---\n# {e['title']}\n\nA synthetic {e['type']} for the entity resolution bench.\n")


def landing_calls(entities: list[dict[str, Any]], rng: random.Random, n: int
                  ) -> list[tuple[str, str, str]]:
    """(kind, name, expected slug) calls that should land on one page."""
    firsts: dict[str, int] = {}
    for e in entities:
        for name in [e["title"], *e["aliases"]]:
            firsts[name.split()[0].lower()] = firsts.get(name.split()[0].lower(), 0) + 1
    with_alias = [e for e in entities if e["aliases"]]
    unique_first = [e for e in entities if firsts[e["first"].lower()] == 1
                    and e["first"] not in e["aliases"]]
    calls: list[tuple[str, str, str]] = []
    for e in rng.sample(entities, n):
        calls.append(("title", e["title"], e["slug"]))
    for e in rng.sample(with_alias, min(n, len(with_alias))):
        calls.append(("alias", rng.choice(e["aliases"]), e["slug"]))
    for e in rng.sample(unique_first, min(n, len(unique_first))):
        calls.append(("first name", e["first"], e["slug"]))
    for e in rng.sample(entities, n):
        calls.append(("typo", slip(e["title"], rng), e["slug"]))
    return calls


def look_alike(word: str, rng: random.Random) -> str:
    """A name a person could really have, near ``word`` but not one slip from it."""
    kind = rng.choice(("suffix", "last letter", "first letter", "vowel"))
    if kind == "suffix":  # Alice -> Alicia, Daniel -> Daniela, Tanaka -> Tanakan
        if word[-1] == "e":
            return word[:-1] + "ia"
        return word + ("n" if word[-1] in "aiou" else "a")
    if kind == "last letter":
        return word + "g" if word[-1] == "n" else word[:-1] + ("o" if word[-1] != "o" else "e")
    if kind == "first letter":
        return ("S" if word[0] != "S" else "T") + word[1:]
    vowels = [i for i, c in enumerate(word) if c in "aeiou" and 0 < i < len(word) - 1]
    if not vowels:  # Ulla: no inner vowel; a longer name instead
        return word + ("n" if word[-1] in "aiou" else "a")
    i = rng.choice(vowels)
    other = {"a": "o", "e": "a", "i": "a", "o": "a", "u": "o"}[word[i]]
    return word[:i] + other + word[i + 1:]


def new_calls(entities: list[dict[str, Any]], rng: random.Random) -> list[tuple[str, str]]:
    """(kind, name) calls that must not land on any page."""
    titles = {e["title"] for e in entities}
    people = [e for e in entities if e["type"] == "person"]
    every_word = {w.lower() for e in entities for n in [e["title"], *e["aliases"]]
                  for w in n.replace(".", "").split()}
    calls: list[tuple[str, str]] = []
    for _ in range(30):
        calls.append(("new person", f"{rng.choice(NEW_FIRST)} {rng.choice(NEW_LAST)}"))
    for _ in range(10):
        calls.append(("new company", f"{rng.choice(NEW_LAST)} {rng.choice(SUFFIX)}"))
    while sum(k == "new pair" for k, _ in calls) < 40:
        a, b = rng.choice(people), rng.choice(people)
        name = f"{a['first']} {b['last']}"
        if name not in titles:
            calls.append(("new pair", name))
    for e in rng.sample(people, 40):
        name = f"{look_alike(e['first'], rng)} {e['last']}"
        if name not in titles:
            calls.append(("look-alike first", name))
    for e in rng.sample(people, 40):
        name = f"{e['first']} {look_alike(e['last'], rng)}"
        if name not in titles:
            calls.append(("look-alike last", name))
    for e in rng.sample(people, 20):
        alone = look_alike(e["first"], rng)
        if alone.lower() not in every_word:
            calls.append(("unknown first name", alone))
    counts: dict[str, int] = {}
    for e in people:
        counts[e["first"]] = counts.get(e["first"], 0) + 1
    for first in sorted(f for f, c in counts.items() if c > 1)[:20]:
        calls.append(("shared first name", first))
    return calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--per-kind", type=int, default=100, help="landing calls per kind")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    entities = build(rng)
    slugs = {e["slug"] for e in entities}
    landing = landing_calls(entities, rng, args.per_kind)
    fresh = new_calls(entities, rng)
    with tempfile.TemporaryDirectory(prefix="bk-entity-resolution-") as tmp:
        settings = load_settings(Path(tmp), env={})
        brain = open_brain(settings)
        try:
            for e in entities:
                brain.pages.put_page(e["slug"], markdown(e))
            dispatcher = Dispatcher(build_catalog(), brain, surface="full",
                                    usage=UsageLog(settings.usage_path))

            def filed(i: int, name: str) -> tuple[str | None, dict[str, Any]]:
                outcome = dispatcher.call("remember", {
                    "fact": f"bench fact {i} about {name}", "provenance": "bench",
                    "entity": name}, STDIO)
                payload = json.loads(json.dumps(outcome.payload))
                assert not outcome.is_error, payload
                return payload["entity_slug"], payload

            started = time.perf_counter()
            landed: dict[str, list[bool]] = {}
            for i, (kind, name, slug) in enumerate(landing):
                got, _ = filed(i, name)
                landed.setdefault(kind, []).append(got == slug)
            kept: dict[str, list[bool]] = {}
            misfiled: list[str] = []
            for i, (kind, name) in enumerate(fresh):
                got, payload = filed(10_000 + i, name)
                ok = got not in slugs
                kept.setdefault(kind, []).append(ok)
                if not ok:
                    misfiled.append(f"{kind}: {name!r} -> {got}")
            elapsed = time.perf_counter() - started
        finally:
            brain.close()
    calls = len(landing) + len(fresh)
    print(f"brain: {len(entities)} entities ({sum(bool(e['aliases']) for e in entities)} with "
          f"aliases); {calls} remember calls, {elapsed / calls * 1000:.2f} ms each on average")
    print("\nshould land on the page:")
    for kind, hits in landed.items():
        print(f"  {kind:<20} {sum(hits):>4}/{len(hits):<4} {sum(hits) / len(hits):7.1%}")
    every = [h for hits in landed.values() for h in hits]
    land_share = sum(every) / len(every)
    print(f"  {'all':<20} {sum(every):>4}/{len(every):<4} {land_share:7.1%}   (target >= 95%)")
    print("\nmust not land on any page:")
    for kind, oks in kept.items():
        print(f"  {kind:<20} {sum(oks):>4}/{len(oks):<4} {sum(oks) / len(oks):7.1%}")
    every = [h for oks in kept.values() for h in oks]
    keep_share = sum(every) / len(every)
    print(f"  {'all':<20} {sum(every):>4}/{len(every):<4} {keep_share:7.1%}   (target 100%)")
    for line in misfiled[:10]:
        print(f"  glued: {line}")
    return 0 if land_share >= 0.95 and keep_share == 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
