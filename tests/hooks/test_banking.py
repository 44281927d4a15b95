"""pre-compact, stop and session-end bank new transcript turns; a later session recalls them."""

from __future__ import annotations

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
