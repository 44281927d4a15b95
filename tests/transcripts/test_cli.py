"""`brainkeep transcripts import` as a real subprocess, then `recall` finds the turns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.transcripts.conftest import FIXTURES


def brainkeep(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRAINKEEP_")}
    return subprocess.run([sys.executable, "-m", "brainkeep", "--home", str(home), *args],
                          capture_output=True, text=True, env=env, timeout=120, check=False)


def test_import_a_folder_then_recall_then_reimport_writes_nothing(home: Path) -> None:
    assert brainkeep(home, "init").returncode == 0

    first = brainkeep(home, "transcripts", "import", str(FIXTURES), "--json")

    assert first.returncode == 0, first.stderr
    summary = json.loads(first.stdout)
    assert (summary["files"], summary["conversations"], summary["turns_added"]) == (2, 2, 8)
    assert summary["secrets_scrubbed"] >= 3 and summary["errors"] == []
    recall = brainkeep(home, "recall", "ubuntu runner python pin", "--json")
    assert recall.returncode == 0, recall.stderr
    slugs = [hit["slug"] for hit in json.loads(recall.stdout)["results"]]
    assert "transcripts/claude-code/5c1f8a2e-3b7d-4e0a-9c6f-2d8b1a7e4f30" in slugs[:3]

    again = brainkeep(home, "transcripts", "import", str(FIXTURES), "--json")
    assert json.loads(again.stdout)["pages_written"] == 0

    exports = brainkeep(home, "transcripts", "import", str(FIXTURES / "chatgpt_conversations.json"),
                        str(FIXTURES / "claude_ai_conversations.json"))
    assert exports.returncode == 0, exports.stderr
    assert exports.stdout.startswith("2 conversations from 2 files: 7 new turns")


def test_a_named_file_that_is_no_transcript_fails_with_exit_1_and_the_rest_imports(
    home: Path, tmp_path: Path
) -> None:
    assert brainkeep(home, "init").returncode == 0
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b'{"hello": 1}\n')

    run = brainkeep(home, "transcripts", "import", str(junk),
                    str(FIXTURES / "codex_rollout.jsonl"), "--json")

    assert run.returncode == 1
    summary = json.loads(run.stdout)
    assert summary["turns_added"] == 4
    assert summary["errors"][0]["file"] == str(junk)
    assert "not a transcript" in summary["errors"][0]["error"]


def test_a_wrong_format_choice_is_a_usage_error(home: Path) -> None:
    run = brainkeep(home, "transcripts", "import", str(FIXTURES), "--format", "slack")
    assert run.returncode == 2 and "slack" in run.stderr
