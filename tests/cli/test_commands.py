"""The CLI commands on a real brain, through click's runner."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result

from brainkeep.config import load_settings

RunCli = Callable[..., Result]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "notes"


def ok(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_init_twice_is_safe_and_prints_next_steps(run_cli: RunCli, home: Path) -> None:
    first = run_cli("init")
    assert first.exit_code == 0, first.stderr
    assert "Created brain" in first.stdout
    assert "Next steps" in first.stdout and "brainkeep import" in first.stdout
    assert (home / "brain.db").is_file() and (home / "config.json").is_file()
    run_cli("config", "set", "mcp_surface", "verbs")

    second = run_cli("init")
    assert second.exit_code == 0
    assert "Already set up" in second.stdout and "Next steps" in second.stdout
    again = ok(run_cli("init", "--json"))
    assert again["created"] is False and again["schema_version"] >= 1
    assert load_settings(home, env={}).get("mcp_surface") == "verbs"  # config untouched


def test_commands_need_a_brain_first(run_cli: RunCli, home: Path) -> None:
    result = run_cli("list")
    assert result.exit_code == 3  # not_found: no brain there (docs/cli.md)
    assert "brainkeep init" in result.stderr
    assert result.stdout == ""
    assert not (home / "brain.db").exists()


def test_put_get_list_delete(run_cli: RunCli, tmp_path: Path) -> None:
    run_cli("init")
    note = tmp_path / "alice.md"
    note.write_text(
        "---\ntitle: Alice\nworks_at: companies/acme\n---\nHi [[people/bob]].\n", encoding="utf-8"
    )
    assert ok(run_cli("put", "people/alice", "--file", str(note), "--json"))["status"] == "created"
    assert (
        ok(run_cli("put", "people/alice", "--file", str(note), "--json"))["status"] == "unchanged"
    )
    piped = run_cli("put", "people/bob", input="# Bob\n\nFrom stdin.\n")
    assert piped.exit_code == 0 and piped.stdout.strip() == "created: people/bob"

    page = ok(run_cli("get", "people/alice", "--links", "--json"))
    assert page["title"] == "Alice" and page["type"] == "person"
    assert {(ln["to_slug"], ln["link_type"]) for ln in page["links"]} == {
        ("companies/acme", "works_at"),
        ("people/bob", "mentions"),
    }
    human = run_cli("get", "people/bob")
    assert human.stdout.strip() == "# Bob\n\nFrom stdin."

    listed = ok(run_cli("list", "--prefix", "people/", "--limit", "1", "--json"))
    assert [p["slug"] for p in listed["pages"]] == ["people/alice"]
    assert listed["next_after"] == "people/alice"
    rest = ok(run_cli("list", "--after", "people/alice", "--json"))
    assert [p["slug"] for p in rest["pages"]] == ["people/bob"] and rest["next_after"] is None

    assert ok(run_cli("delete", "people/bob", "--json")) == {"slug": "people/bob", "deleted": True}
    missing = run_cli("get", "people/bob")
    assert missing.exit_code == 3 and "No page" in missing.stderr


def test_remember_recall_forget(run_cli: RunCli) -> None:
    run_cli("init")
    saved = ok(
        run_cli(
            "remember",
            "Alice prefers email",
            "--provenance",
            "chat",
            "--entity",
            "people/alice",
            "--kind",
            "preference",
            "--json",
        )
    )
    assert saved["status"] == "inserted" and saved["entity_slug"] == "people/alice"
    dup = ok(
        run_cli("remember", "alice prefers EMAIL", "-p", "chat", "-e", "people/alice", "--json")
    )
    assert (dup["status"], dup["id"]) == ("duplicate", saved["id"])
    ok(run_cli("remember", "Bob likes tea", "-p", "chat", "-e", "people/bob", "--json"))

    facts = ok(run_cli("recall", "--entity", "people/alice", "--json"))["facts"]
    assert [(f["fact"], f["kind"], f["provenance"]) for f in facts] == [
        ("Alice prefers email", "preference", "chat")
    ]
    everything = ok(run_cli("recall", "--since", "2000-01-01", "--limit", "10", "--json"))
    assert {f["fact"] for f in everything["facts"]} == {"Alice prefers email", "Bob likes tea"}
    limited = ok(run_cli("recall", "--limit", "1", "--json"))
    assert len(limited["facts"]) == 1

    gone = ok(run_cli("forget", saved["id"], "--reason", "outdated", "--json"))
    assert gone["expired"] is True
    assert ok(run_cli("recall", "--entity", "people/alice", "--json"))["facts"] == []
    assert ok(run_cli("forget", saved["id"], "--json"))["expired"] is False
    human = run_cli("recall", "--entity", "people/bob")
    assert "Bob likes tea" in human.stdout


def test_import_and_export(run_cli: RunCli, tmp_path: Path) -> None:
    run_cli("init")
    first = ok(run_cli("import", str(EXAMPLES), "--json"))
    assert first["failed"] == [] and first["added"] >= 8
    again = ok(run_cli("import", str(EXAMPLES), "--json"))
    assert (again["added"], again["updated"], again["unchanged"]) == (0, 0, first["added"])
    human = run_cli("import", str(EXAMPLES))
    assert f"added 0, updated 0, unchanged {first['added']}, failed 0" in human.stdout

    out = tmp_path / "export"
    exported = ok(run_cli("export", str(out), "--json"))
    assert exported["exported"] == first["added"]
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.md")) == sorted(
        p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("*.md")
    )


def test_import_reports_bad_files_and_exits_nonzero(run_cli: RunCli, tmp_path: Path) -> None:
    run_cli("init")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "good.md").write_text("# Good\n", encoding="utf-8")
    (notes / "bad.md").write_text("---\ntitle: [x\n---\n", encoding="utf-8")
    result = run_cli("import", str(notes))
    assert result.exit_code == 1
    assert "added 1, updated 0, unchanged 0, failed 1" in result.stdout
    assert "bad.md" in result.stderr and "Malformed YAML" in result.stderr
    data = json.loads(run_cli("import", str(notes), "--json").stdout)
    assert data["unchanged"] == 1 and [f["file"] for f in data["failed"]] == ["bad.md"]


def test_verify_and_doctor(run_cli: RunCli) -> None:
    run_cli("init")
    run_cli("import", str(EXAMPLES))
    run_cli("remember", "A fact", "-p", "test")
    report = ok(run_cli("verify", "--json"))
    assert report["valid"] is True and report["first_broken"] is None
    assert report["checked"] == report["events_checked"] >= 11
    assert run_cli("verify").stdout.startswith("valid:")

    doctor = ok(run_cli("doctor", "--json"))
    assert doctor["schema_version"] >= 1
    assert doctor["counts"]["pages"] >= 8 and doctor["counts"]["memories"] == 1
    assert doctor["chain"] == {"valid": True, "checked": report["checked"]}
    assert doctor["db_size_bytes"] > 0
    assert "schema version" in run_cli("doctor").stdout


def test_config_set_persists(run_cli: RunCli, home: Path) -> None:
    run_cli("init")
    assert ok(run_cli("config", "set", "mcp_surface", "verbs", "--json")) == {
        "mcp_surface": "verbs"
    }
    assert json.loads((home / "config.json").read_text())["mcp_surface"] == "verbs"
    assert ok(run_cli("config", "get", "mcp_surface", "--json")) == {"mcp_surface": "verbs"}
    assert ok(run_cli("config", "list", "--json"))["mcp_surface"] == "verbs"
    assert ok(run_cli("config", "set", "embeddings.dimensions", "384", "--json")) == {
        "embeddings.dimensions": 384
    }

    bad = run_cli("config", "set", "mcp_surface", "everything")
    assert bad.exit_code == 2 and "must be one of" in bad.stderr
    unknown = run_cli("config", "set", "no.such.key", "1", "--json")
    assert unknown.exit_code == 2
    assert json.loads(unknown.stderr)["error"] == "invalid_params"
    assert json.loads((home / "config.json").read_text()) == {
        "mcp_surface": "verbs",
        "embeddings.dimensions": 384,
    }
