"""Import and export never follow a symbolic link out of their folder (issue 10 item 9).

Import read a link pointing anywhere (a `.txt` too) into world-visible pages;
export wrote through a link inside the target folder, onto an unrelated file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from brainkeep.brain import Brain
from brainkeep.core.context import LOCAL, STDIO
from brainkeep.core.transfer import export_dir, import_dir, markdown_files
from brainkeep.errors import InvalidInput, NotFound

RunCli = Callable[..., Result]
SECRET = "ssh-private-key: hunter2\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """Files outside every import/export folder, which nothing may read or change."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "id_rsa.txt").write_text(SECRET, encoding="utf-8")
    (folder / "notes.md").write_text("Private diary.\n", encoding="utf-8")
    (folder / "victim.md").write_text("unrelated file\n", encoding="utf-8")
    return folder


@pytest.fixture
def notes(tmp_path: Path, outside: Path) -> Path:
    root = tmp_path / "notes"
    (root / "people").mkdir(parents=True)
    (root / "people" / "alice.md").write_text("Alice.\n", encoding="utf-8")
    (root / "leak.md").symlink_to(outside / "id_rsa.txt")  # a .txt behind a .md name
    (root / "people" / "diary.md").symlink_to(Path("../../outside/notes.md"))  # relative
    (root / "linked").symlink_to(outside, target_is_directory=True)
    (root / "dangling.md").symlink_to(root / "nowhere.md")
    (root / "alias.md").symlink_to(root / "people" / "alice.md")  # inside: fine
    return root


def test_import_skips_links_out_of_the_root(brain: Brain, notes: Path) -> None:
    summary = import_dir(brain.pages, notes)

    assert summary.failed == []
    assert summary.added == 2  # people/alice and alias (its target is inside)
    skipped = dict(summary.skipped)
    assert set(skipped) == {"leak.md", "people/diary.md", "linked", "dangling.md"}
    assert "outside" in skipped["leak.md"]
    for slug in ("leak", "people/diary", "linked/notes", "linked/victim", "dangling"):
        with pytest.raises(NotFound):
            brain.pages.get_page(slug, LOCAL)
    assert brain.pages.get_page("alias", STDIO).content == "Alice.\n"
    # Nothing of the secret reached the brain, by any path.
    assert all(SECRET not in p.content for p in brain.pages.list_pages(LOCAL))


def test_markdown_files_lists_only_safe_files(notes: Path) -> None:
    names = [p.relative_to(notes).as_posix() for p in markdown_files(notes)]
    assert names == ["alias.md", "people/alice.md"]


def test_import_root_may_itself_be_a_link(brain: Brain, notes: Path, tmp_path: Path) -> None:
    entry = tmp_path / "notes-link"
    entry.symlink_to(notes, target_is_directory=True)
    summary = import_dir(brain.pages, entry)
    assert summary.added == 2
    assert {name for name, _ in summary.skipped} == {
        "leak.md", "people/diary.md", "linked", "dangling.md"
    }


def test_cli_import_warns_and_counts_skipped(run_cli: RunCli, notes: Path) -> None:
    assert run_cli("init").exit_code == 0
    result = run_cli("import", str(notes))
    assert result.exit_code == 0, result.stderr
    assert "skipped 4" in result.stdout
    assert "warning: skipped leak.md" in result.stderr
    as_json = run_cli("import", str(notes), "--json")
    data = json.loads(as_json.stdout)
    assert {s["file"] for s in data["skipped"]} == {
        "leak.md", "people/diary.md", "linked", "dangling.md"
    }


@pytest.fixture
def exported_brain(brain: Brain) -> Brain:
    brain.pages.put_page("people/alice", "Alice.\n")
    brain.pages.put_page("victim", "PAGE CONTENT\n")
    return brain


def test_export_refuses_to_write_through_a_file_link(
    exported_brain: Brain, tmp_path: Path, outside: Path
) -> None:
    target = tmp_path / "export"
    target.mkdir()
    (target / "victim.md").symlink_to(outside / "victim.md")

    with pytest.raises(InvalidInput) as caught:
        export_dir(exported_brain.pages, target)

    assert "symbolic link" in str(caught.value) and "victim.md" in str(caught.value)
    assert (outside / "victim.md").read_text(encoding="utf-8") == "unrelated file\n"
    assert (target / "victim.md").is_symlink()


def test_export_refuses_a_linked_parent_folder(
    exported_brain: Brain, tmp_path: Path, outside: Path
) -> None:
    target = tmp_path / "export"
    target.mkdir()
    (target / "people").symlink_to(outside, target_is_directory=True)

    with pytest.raises(InvalidInput) as caught:
        export_dir(exported_brain.pages, target)

    assert "people" in str(caught.value)
    assert sorted(os.listdir(outside)) == ["id_rsa.txt", "notes.md", "victim.md"]


def test_export_refuses_a_dangling_link(exported_brain: Brain, tmp_path: Path) -> None:
    target = tmp_path / "export"
    target.mkdir()
    elsewhere = tmp_path / "created-by-export"
    (target / "people").symlink_to(elsewhere, target_is_directory=True)
    (target / "victim.md").symlink_to(tmp_path / "new-file.md")

    with pytest.raises(InvalidInput):
        export_dir(exported_brain.pages, target)

    assert not elsewhere.exists()
    assert not (tmp_path / "new-file.md").exists()


def test_export_into_a_dangling_root_link_is_a_clear_error(
    exported_brain: Brain, tmp_path: Path
) -> None:
    root = tmp_path / "export"
    root.symlink_to(tmp_path / "missing", target_is_directory=True)
    with pytest.raises(InvalidInput):
        export_dir(exported_brain.pages, root)


def test_cli_export_through_link_exits_2(
    run_cli: RunCli, tmp_path: Path, outside: Path
) -> None:
    assert run_cli("init").exit_code == 0
    assert run_cli("put", "victim", input="PAGE CONTENT\n").exit_code == 0
    target = tmp_path / "export"
    target.mkdir()
    (target / "victim.md").symlink_to(outside / "victim.md")

    result = run_cli("export", str(target))

    assert result.exit_code == 2
    assert "symbolic link" in result.stderr
    assert "Traceback" not in result.stderr
    assert (outside / "victim.md").read_text(encoding="utf-8") == "unrelated file\n"


def test_export_still_overwrites_regular_files(exported_brain: Brain, tmp_path: Path) -> None:
    target = tmp_path / "export"
    (target / "people").mkdir(parents=True)
    (target / "people" / "alice.md").write_text("stale\n", encoding="utf-8")
    root_link = tmp_path / "export-link"
    root_link.symlink_to(target, target_is_directory=True)  # the root itself may be a link

    assert export_dir(exported_brain.pages, root_link) == 2
    assert (target / "people" / "alice.md").read_text(encoding="utf-8") == "Alice.\n"
    assert (target / "victim.md").read_text(encoding="utf-8") == "PAGE CONTENT\n"
