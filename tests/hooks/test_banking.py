"""pre-compact, stop and session-end bank new transcript turns; a later session recalls them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hooks.hook_support import Hooks, claude_transcript

SESSION_ONE = [
    ("user", "We need to pick the queue for the Falcon ingest pipeline."),
    ("assistant", "Decision: the Falcon ingest pipeline will use NATS JetStream, not Kafka, "
                  "because the team already runs NATS."),
    ("user", "And retention?"),
    ("assistant", "Falcon keeps raw events for 14 days in JetStream, then compacts to S3."),
]


def test_stop_then_session_end_bank_turns_the_next_session_recalls(hooks: Hooks,
                                                                  tmp_path: Path) -> None:
    log = claude_transcript(tmp_path / "s1.jsonl", "sess-one", SESSION_ONE[:2])
    done = hooks.run("claude-code", "stop", session="sess-one", transcript=str(log))
    assert done.returncode == 0 and done.stdout == b""
    claude_transcript(log, "sess-one", SESSION_ONE[2:], start=2)
    hooks.run("claude-code", "session-end", session="sess-one", transcript=str(log))
    banked = [line for line in hooks.heartbeat() if line["event"] in ("stop", "session-end")]
    assert banked[0].get("queued") is True  # stop does not wait for the import
    assert banked[-1]["code"] == "ok" and "turns_added" in banked[-1], banked
    text = hooks.context("claude-code", "user-prompt", session="sess-two",
                         prompt="Which queue did we choose for the Falcon ingest pipeline?")
    assert "NATS JetStream" in text
    text = hooks.context("claude-code", "user-prompt", session="sess-three",
                         prompt="How long does Falcon keep raw events?")
    assert "14 days" in text


def test_banking_twice_adds_nothing(hooks: Hooks, tmp_path: Path) -> None:
    log = claude_transcript(tmp_path / "s.jsonl", "sess-x", SESSION_ONE)
    hooks.run("claude-code", "pre-compact", session="sess-x", transcript=str(log))
    hooks.run("claude-code", "pre-compact", session="sess-x", transcript=str(log))
    lines = [line for line in hooks.heartbeat() if line["event"] == "pre-compact"]
    assert lines[0]["turns_added"] == len(SESSION_ONE) and lines[1]["turns_added"] == 0


def test_secrets_in_a_banked_transcript_never_reach_an_injection(hooks: Hooks,
                                                                 tmp_path: Path) -> None:
    key = "AKIA" + "IOSFODNN7EXAMPLE"
    log = claude_transcript(tmp_path / "k.jsonl", "sess-k", [
        ("user", f"The Falcon deploy user has access key {key} for the Falcon bucket."),
        ("assistant", "Noted: the Falcon deploy user and its bucket."),
    ])
    hooks.run("claude-code", "session-end", session="sess-k", transcript=str(log))
    text = hooks.context("claude-code", "user-prompt", session="sess-k2",
                         prompt="Which access key does the Falcon deploy user have?")
    assert "Falcon" in text and key not in text


def codex_rollout(path: Path, thread: str, turns: list[tuple[str, str]]) -> Path:
    """A Codex CLI session log in its current structure (timestamp, type, payload lines)."""
    lines: list[dict[str, object]] = [{"timestamp": "2026-11-30T10:00:00.000Z",
                                       "type": "session_meta",
                                       "payload": {"id": thread, "cwd": "/w/falcon",
                                                   "cli_version": "0.63.0"}}]
    for n, (speaker, text) in enumerate(turns):
        kind = "input_text" if speaker == "user" else "output_text"
        lines.append({"timestamp": f"2026-11-30T10:00:{n + 1:02d}.000Z",
                      "type": "response_item",
                      "payload": {"type": "message", "role": speaker,
                                  "content": [{"type": kind, "text": text}]}})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_codex_stop_banks_its_session_log(hooks: Hooks, tmp_path: Path) -> None:
    log = codex_rollout(tmp_path / "rollout.jsonl", "thread-a", SESSION_ONE)
    hooks.run("codex", "pre-compact", session="thread-a", transcript=str(log))
    assert hooks.heartbeat()[-1]["turns_added"] == len(SESSION_ONE)
    text = hooks.context("codex", "user-prompt", session="thread-b",
                         prompt="Which queue did we choose for the Falcon ingest pipeline?")
    assert "NATS JetStream" in text


def test_codex_notify_finds_the_thread_log_under_codex_home(hooks: Hooks,
                                                           tmp_path: Path) -> None:
    thread = "019a1b2c-3d4e-7f00-8a9b-0c1d2e3f4a5b"
    codex_home = tmp_path / "codex"
    codex_rollout(codex_home / "sessions" / "2026" / "11" / "30" /
                  f"rollout-2026-11-30T10-00-00-{thread}.jsonl", thread, SESSION_ONE)
    argument = json.dumps({"type": "agent-turn-complete", "thread-id": thread,
                           "turn-id": "1", "cwd": "/w/falcon", "input-messages": ["hi"],
                           "last-assistant-message": "Done."})
    done = hooks.run("codex", "notify", b"", argument, env={"CODEX_HOME": str(codex_home)})
    assert done.returncode == 0 and done.stdout == b""
    assert hooks.heartbeat()[-1].get("queued") is True
    # The queued import is done before a waited one on the same server answers.
    hooks.run("codex", "pre-compact", session=thread,
              transcript=str(next(codex_home.rglob("rollout-*.jsonl"))))
    assert hooks.heartbeat()[-1]["turns_added"] == 0
