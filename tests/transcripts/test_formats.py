"""Parsing each format's real structure into conversations (no brain needed)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from brainkeep.core.transcripts import detect_format, parse
from brainkeep.core.transcripts.formats import transcript_files
from brainkeep.errors import InvalidInput
from tests.transcripts.conftest import FIXTURES


@pytest.fixture(params=["sqlite"])
def brain_engine(request: pytest.FixtureRequest) -> str:  # no brain here: one run only
    return str(request.param)


@pytest.mark.parametrize(("name", "fmt"), [
    ("claude_code_session.jsonl", "claude-code"), ("codex_rollout.jsonl", "codex"),
    ("chatgpt_conversations.json", "chatgpt"), ("claude_ai_conversations.json", "claude-ai"),
])
def test_auto_detects_each_format(name: str, fmt: str) -> None:
    assert detect_format(FIXTURES / name) == fmt


def test_chatgpt_follows_the_current_branch_and_skips_hidden_and_empty() -> None:
    parsed = parse(FIXTURES / "chatgpt_conversations.json")
    assert len(parsed.conversations) == 1  # the second conversation has no message
    conv = parsed.conversations[0]
    assert (conv.id, conv.title, conv.started_at) == (
        "65e3a1f0-1b2c-4d5e-8f90-a1b2c3d4e5f6", "Budget note for Priya", "2024-03-02T09:00:00Z")
    assert [t.speaker for t in conv.turns] == ["user", "assistant", "user", "assistant"]
    assert all("abandoned branch" not in t.text for t in conv.turns)
    assert conv.turns[1].at == "2024-03-02T09:00:10Z" and conv.turns[1].uid == "a1"


def test_claude_ai_maps_human_to_user_and_names_attachments() -> None:
    conv = parse(FIXTURES / "claude_ai_conversations.json").conversations[0]
    assert [t.speaker for t in conv.turns] == ["user", "assistant", "user"]
    assert conv.title == "Kayak trip planning"
    assert conv.turns[2].text.endswith("[attachment: packing.txt]")
    assert "dry bags" not in conv.turns[2].text  # extracted file content is not a turn
    assert conv.turns[0].at == "2026-02-10T18:03:11.900311Z"


def test_a_zip_export_is_read_through_its_conversations_json(tmp_path: Path) -> None:
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.write(FIXTURES / "claude_ai_conversations.json", "data-2026/conversations.json")
        out.writestr("data-2026/users.json", "[]")
    parsed = parse(archive)
    assert parsed.fmt == "claude-ai" and len(parsed.conversations) == 1


def test_bad_jsonl_lines_are_skipped_and_counted_never_quoted(tmp_path: Path) -> None:
    good = (FIXTURES / "claude_code_session.jsonl").read_bytes()
    lines = good.split(b"\n")
    damaged = b"\n".join([lines[0], b"\xff\xfe not utf-8 password=hunter22", b"{torn json",
                          b"[1, 2]", *lines[1:], b'{"type": "user", "message": {"role"'])
    path = tmp_path / "session.jsonl"
    path.write_bytes(damaged)

    parsed = parse(path)

    assert parsed.fmt == "claude-code" and parsed.skipped_lines == 4
    assert len(parsed.conversations[0].turns) == 4
    assert parsed.problems[0] == "line 2: not valid UTF-8"
    assert all("hunter22" not in p for p in parsed.problems)


def test_an_export_that_is_not_utf8_json_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_bytes(b'[{"title": "\xff"}]')
    with pytest.raises(InvalidInput, match="not valid UTF-8"):
        parse(path)
    path.write_text('[{"title": ', encoding="utf-8")
    with pytest.raises(InvalidInput, match="not valid JSON"):
        parse(path)


def test_unknown_files_and_formats_are_refused(tmp_path: Path) -> None:
    notes = tmp_path / "notes.jsonl"
    notes.write_text(json.dumps({"hello": "world"}) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="not a transcript"):
        parse(notes)
    with pytest.raises(InvalidInput, match="Unknown transcript format"):
        parse(FIXTURES / "codex_rollout.jsonl", "slack")
    with pytest.raises(InvalidInput, match="not a chatgpt transcript"):
        parse(FIXTURES / "claude_ai_conversations.json", "chatgpt")
    with pytest.raises(InvalidInput, match="No file"):
        parse(tmp_path / "missing.jsonl")


def test_an_older_codex_log_without_envelopes_is_read(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2025-05-01T10-00-00-abc.jsonl"
    rows = [
        {"id": "b0c1d2e3-0000-4000-8000-000000000001", "timestamp": "2025-05-01T10:00:00Z",
         "instructions": None},
        {"type": "message", "role": "user",
         "content": [{"type": "input_text", "text": "Rename the cli flag --dry to --dry-run"}]},
        {"record_type": "state"},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Renamed in cli.py and the docs."}]},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    conv = parse(path).conversations[0]
    assert conv.fmt == "codex" and conv.id == "b0c1d2e3-0000-4000-8000-000000000001"
    assert [t.speaker for t in conv.turns] == ["user", "assistant"]


def test_a_folder_is_walked_for_logs_and_exports_only(tmp_path: Path) -> None:
    (tmp_path / "p" / "q").mkdir(parents=True)
    for name in ("p/a.jsonl", "p/q/conversations.json", "p/export.zip", "history.jsonl",
                 "p/settings.json", "p/q/todo.md"):
        (tmp_path / name).write_text("x", encoding="utf-8")
    found = [p.relative_to(tmp_path).as_posix() for p in transcript_files(tmp_path)]
    assert found == ["p/a.jsonl", "p/export.zip", "p/q/conversations.json"]


def test_chatgpt_multimodal_parts_keep_spoken_words_and_mark_media(tmp_path: Path) -> None:
    parts = ["Look at this", {"content_type": "image_asset_pointer", "asset_pointer": "file://x"},
             {"content_type": "audio_transcription", "text": "and what I said aloud"},
             {"content_type": "audio_asset_pointer", "asset_pointer": "file://y"}]
    mapping = {
        "r": {"id": "r", "message": None, "parent": None, "children": ["m"]},
        "m": {"id": "m", "parent": "r", "children": [], "message": {
            "id": "m", "author": {"role": "user"}, "create_time": 1709370000,
            "content": {"content_type": "multimodal_text", "parts": parts}}},
    }
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([{"title": "Photo", "create_time": 1709370000, "id": "c9",
                                 "mapping": mapping, "current_node": "m"}]), encoding="utf-8")
    (turn,) = parse(path).conversations[0].turns
    assert turn.text == "Look at this\n\n[image]\n\nand what I said aloud\n\n[audio]"
