"""remember: duplicate / superseded / inserted by embedding similarity."""

from __future__ import annotations

from brainkeep.core.context import LOCAL

from .conftest import OpenBrain, SwitchableEmbedder, Verbs

ENTITY = "people/alice-chen"


def remember(verbs: Verbs, fact: str, caller=None, **extra: str) -> dict:  # type: ignore[no-untyped-def]
    params = {"fact": fact, "provenance": "chat 2026-06-15", "entity": ENTITY, **extra}
    if caller is None:
        return verbs.ok("remember", **params)
    return verbs.ok("remember", caller, **params)


def test_same_text_is_a_duplicate_and_changed_text_supersedes(verbs: Verbs) -> None:
    first = remember(verbs, "Alice Chen's phone number is 555-0100.")
    assert first["status"] == "inserted" and "degraded_dedup" not in first

    # Same claim, only spacing and case differ: nothing is written.
    again = remember(verbs, "alice chen's  phone number is 555-0100.")
    assert (again["status"], again["id"]) == ("duplicate", first["id"])
    assert "degraded_dedup" not in again

    # Same kind, changed text above the 0.95 line (cosine 0.99): the new fact
    # replaces the old.
    moved = remember(verbs, "Alice Chen's phone number is 555-0199.")
    assert moved["status"] == "superseded" and moved["id"] != first["id"]
    old = verbs.brain.store.get_memory(int(first["id"]))
    assert old is not None and old.expired_at is not None
    assert old.superseded_by == int(moved["id"])
    assert old.expired_reason == f"superseded by fact #{moved['id']}"

    # History is kept: the audit log lists the supersession.
    log = verbs.local("recall", entity=ENTITY, include_expired=True)["facts"]
    assert {f["fact_id"] for f in log} == {first["id"], moved["id"]}
    active = verbs.local("recall", entity=ENTITY)["facts"]
    assert [f["fact_id"] for f in active] == [moved["id"]]


def test_unrelated_facts_and_other_entities_insert(verbs: Verbs) -> None:
    remember(verbs, "Alice Chen works at Acme Example as head of billing.")
    other = remember(verbs, "Alice Chen is allergic to peanuts.")
    assert other["status"] == "inserted"
    # Related but below 0.95 (cosine 0.93): both facts stand.
    related = remember(verbs, "Alice Chen works at Acme Example as head of payments.")
    assert related["status"] == "inserted"
    elsewhere = verbs.ok("remember", fact="Alice Chen works at Acme Example as head of billing.",
                         provenance="chat", entity="people/bob")
    assert elsewhere["status"] == "inserted"


def test_same_claim_under_another_kind_is_a_duplicate(verbs: Verbs) -> None:
    first = remember(verbs, "Alice Chen prefers email over phone calls.", kind="preference")
    # Above the threshold with another kind: the reference rule answers duplicate.
    near = remember(verbs, "Alice Chen prefers email over phone calls!", kind="fact")
    assert (near["status"], near["id"]) == ("duplicate", first["id"])


def test_remote_callers_never_get_a_private_fact_as_duplicate(verbs: Verbs) -> None:
    private = remember(verbs, "Alice Chen is moving to Porto in August.", LOCAL,
                       visibility="private")
    # Exact same text from a remote caller: a new world fact, not the private id.
    remote_same = remember(verbs, "Alice Chen is moving to Porto in August.")
    assert remote_same["status"] == "inserted" and remote_same["id"] != private["id"]
    # Nor may the private fact be superseded (expired) by a remote write.
    remote_near = remember(verbs, "Alice Chen is moving to Porto in September.")
    assert remote_near["status"] == "superseded"
    stored = verbs.brain.store.get_memory(int(private["id"]))
    assert stored is not None and stored.expired_at is None


def test_a_world_fact_is_never_swallowed_by_a_private_one(verbs: Verbs) -> None:
    private = remember(verbs, "Alice Chen's salary is under review.", LOCAL, visibility="private")
    world = remember(verbs, "Alice Chen's salary is under review.", LOCAL)
    assert world["status"] == "inserted" and world["id"] != private["id"]
    # A private restatement may point at the world fact (readable by everyone).
    again = remember(verbs, "Alice Chen's salary is under review.", LOCAL, visibility="private")
    assert again["status"] == "duplicate"


def test_degraded_dedup_only_without_a_working_provider(
    open_home: OpenBrain, embedder: SwitchableEmbedder, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    none = Verbs(open_home(None, home=tmp_path / "none"))
    assert remember(none, "Alice Chen likes jazz.")["degraded_dedup"] is True
    # Exact restatement is still caught without embeddings (still flagged degraded).
    dup = remember(none, "Alice Chen likes jazz.")
    assert dup["status"] == "duplicate" and dup["degraded_dedup"] is True

    live = Verbs(open_home(embedder))
    assert "degraded_dedup" not in remember(live, "Alice Chen likes jazz.")
    embedder.fail = True
    down = remember(live, "Alice Chen likes bebop jazz.")
    assert down["status"] == "inserted" and down["degraded_dedup"] is True
    embedder.fail = False


def test_candidates_without_vectors_are_embedded_on_the_fly(
    open_home: OpenBrain, embedder: SwitchableEmbedder
) -> None:
    # Written before embeddings were configured: no vector on disk.
    plain = open_home(None)
    old = plain.facts.remember(
        "The Q3 planning meeting is on Tuesday at 10am.", "chat", LOCAL, entity=ENTITY
    )
    verbs = Verbs(open_home(embedder))
    moved = remember(verbs, "The Q3 planning meeting is on Wednesday at 10am.")
    assert moved["status"] == "superseded"
    stored = verbs.brain.store.get_memory(old.memory.id)
    assert stored is not None and stored.superseded_by == int(moved["id"])
