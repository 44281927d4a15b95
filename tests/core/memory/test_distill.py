"""The orientation cache's Distiller and renderer: the documented rules, deterministically."""

from __future__ import annotations

from brainkeep.core.memory import distill as d
from brainkeep.core.memory.mnemo import MnemoService
from brainkeep.core.memory.orientation import render
from brainkeep.core.memory.orientation_map import Observation, StoredEntry, StoredMap
from brainkeep.core.memory.remember import RememberInput
from brainkeep.core.models import Memory


def _memory(mnemo: MnemoService, text: str, **fields: object) -> Memory:
    return mnemo.remember(RememberInput(content=text, agent_id="a", **fields))  # type: ignore[arg-type]


def _pairs(memory: Memory, kind: str) -> list[tuple[str, str]]:
    return [(o.key, o.value) for o in d.distill(memory) if o.kind == kind]


def test_entities_tags_mentions_identifiers_and_names(mnemo: MnemoService) -> None:
    m = _memory(mnemo, "Alice Chen moved billing to PostgreSQL and S3. When Bob travels, "
                "ping @ops-team. The deploy runs nightly.", tags=["project:apollo"])
    assert _pairs(m, "entity") == [
        ("project:apollo", "tag"), ("@ops-team", "mention"), ("PostgreSQL", "identifier"),
        ("S3", "identifier"), ("Alice Chen", "name"), ("Bob", "name"),
    ]  # "When" and "The" start sentences; a lone sentence-initial word names nothing


def test_constants_need_an_assignment_or_a_constant_looking_value(mnemo: MnemoService) -> None:
    m = _memory(mnemo, "Set DATABASE_URL=postgres://db:5432/app, timeout: 30s and "
                "mode := 'strict'. Note: this is prose; see https://example.com/x.")
    assert _pairs(m, "constant") == [
        ("DATABASE_URL", "postgres://db:5432/app"), ("timeout", "30s"), ("mode", "strict")]


def test_schemas_signatures_json_objects_and_metadata(mnemo: MnemoService) -> None:
    m = _memory(mnemo, 'Table users(id INTEGER, email TEXT) and job {"retries": 3, "queue": "q"}'
                " (see above)", metadata='{"source": "runbook", "owner": "ops"}')
    assert _pairs(m, "schema") == [
        ("users", "id INTEGER, email TEXT"), ("json", "queue, retries"),
        ("metadata", "owner, source")]


def test_each_kind_is_capped_per_memory_and_keys_are_cut(mnemo: MnemoService) -> None:
    text = " ".join(f"k{i}={i}" for i in range(20)) + " " + "x" * 100 + "=1"
    m = _memory(mnemo, text)
    constants = _pairs(m, "constant")
    assert len(constants) == d.PER_KIND
    assert constants[0] == ("k0", "0")
    assert d.distill(m) == d.distill(m)  # the same memory, the same observations


def test_render_fits_the_budget_round_robin_most_frequent_first() -> None:
    entries = tuple(
        [StoredEntry("entity", f"E{i}", "name", 10 - i) for i in range(6)]
        + [StoredEntry("constant", "port", "5432", 1)]
        + [StoredEntry("schema", "users", "id, email", 2)]
    )
    stored = StoredMap(hit_count=7, entries=entries)
    full = render(stored, "ns", 512)
    assert [e.key for e in full.entities] == [f"E{i}" for i in range(6)]
    assert full.token_estimate == sum(
        e.token_estimate for e in (*full.entities, *full.constants, *full.schemas))
    # Three lines' worth (4 + 4 + 5 tokens) takes the head of each list, not three entities.
    small = render(stored, "ns", 13)
    assert small.token_estimate == 13 and small.hit_count == 7
    assert ([e.key for e in small.entities], [e.key for e in small.constants],
            [e.key for e in small.schemas]) == (["E0"], ["port"], ["users"])
    # One token short: the schema line is skipped and the next entity fits instead.
    shorter = render(stored, "ns", 12)
    assert [e.key for e in shorter.entities] == ["E0", "E1"] and shorter.schemas == ()
    assert render(stored, "ns", 0).token_estimate == 0


def test_observations_are_deduplicated_within_a_memory(mnemo: MnemoService) -> None:
    m = _memory(mnemo, "Alice Chen met Alice Chen; port: 80 and port: 80 again")
    observed = d.distill(m)
    assert observed.count(Observation("entity", "Alice Chen", "name")) == 1
    assert observed.count(Observation("constant", "port", "80")) == 1
