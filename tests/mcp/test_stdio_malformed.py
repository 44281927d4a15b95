"""Malformed stdio lines get a JSON-RPC error reply, and the server keeps serving.

A real `brainkeep serve` subprocess; raw bytes on stdin, replies read with a
timeout (the old transport answered nothing, so these waits are what fail).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from brainkeep.brain import open_brain
from brainkeep.config import Settings

REPLY_TIMEOUT_S = 15
INIT = {
    "jsonrpc": "2.0", "id": 0, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "raw", "version": "1"}},
}


class RawClient:
    """Writes raw lines to a serve subprocess and reads its reply lines and its log."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.replies: queue.Queue[bytes] = queue.Queue()
        self.log: queue.Queue[bytes] = queue.Queue()
        self.pumps = [threading.Thread(target=self._pump, args=(stream, box), daemon=True)
                      for stream, box in ((proc.stdout, self.replies), (proc.stderr, self.log))]
        for pump in self.pumps:
            pump.start()

    @staticmethod
    def _pump(stream: Any, box: queue.Queue[bytes]) -> None:
        for line in stream:
            box.put(line)

    def logged(self, text: str) -> str:
        """The first stderr line containing ``text`` (fails if none comes in time)."""
        seen: list[str] = []
        while True:
            try:
                line = self.log.get(timeout=REPLY_TIMEOUT_S).decode(errors="replace")
            except queue.Empty:
                pytest.fail(f"nothing logged with {text!r} within {REPLY_TIMEOUT_S} s; "
                            f"stderr had: {seen}")
            if text in line:
                return line
            seen.append(line)

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def reply(self) -> dict[str, Any]:
        try:
            line = self.replies.get(timeout=REPLY_TIMEOUT_S)
        except queue.Empty:
            pytest.fail(f"no reply within {REPLY_TIMEOUT_S} s (the client would hang)")
        return json.loads(line)

    def call(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(json.dumps(message).encode())
        return self.reply()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[RawClient]:
    home = tmp_path / "brain"
    open_brain(Settings(home=home)).close()
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "brainkeep", "serve"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )
    raw = RawClient(proc)
    try:
        assert raw.call(INIT)["id"] == 0
        raw.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        yield raw
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=15)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for pump in raw.pumps:  # both pipes reach EOF once the process is gone
                pump.join(REPLY_TIMEOUT_S)
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()


def tools_call(request_id: int, name: str, arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


def assert_alive(client: RawClient, request_id: int) -> None:
    """The server still answers a valid request after the bad line."""
    assert client.call({"jsonrpc": "2.0", "id": request_id, "method": "ping"}) == {
        "jsonrpc": "2.0", "id": request_id, "result": {}}


def test_non_json_gets_a_parse_error_with_id_null(client: RawClient) -> None:
    client.send(b"this is not json")
    reply = client.reply()
    assert reply["id"] is None and reply["error"]["code"] == -32700
    assert_alive(client, 2)


def test_a_lone_surrogate_gets_invalid_request_with_its_id(client: RawClient) -> None:
    line = json.dumps(tools_call(5, "recall", {"query": "x"})).replace('"x"', '"\\ud800"')
    client.send(line.encode())
    reply = client.reply()
    assert reply["id"] == 5 and reply["error"]["code"] == -32600
    assert "surrogate" in reply["error"]["message"]
    assert_alive(client, 6)


def test_deep_nesting_gets_a_parse_error_with_its_id(client: RawClient) -> None:
    deep = "[" * 10_000 + "]" * 10_000
    line = ('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"recall",'
            f'"arguments":{{"query":{deep}}}}}}}')
    client.send(line.encode())
    reply = client.reply()
    assert reply["id"] == 7 and reply["error"]["code"] == -32700
    assert_alive(client, 8)


def test_invalid_utf8_is_refused_not_stored(client: RawClient) -> None:
    content = "---\ntitle: Bad\n---\nbody \xff here"
    line = json.dumps(tools_call(9, "put_page", {"slug": "bad-utf8", "content": content}))
    raw = line.encode().replace(b"\\u00ff", b"\xff")
    assert b"\xff" in raw
    client.send(raw)
    reply = client.reply()
    assert reply["id"] == 9 and reply["error"]["code"] == -32700
    assert "UTF-8" in reply["error"]["message"]
    got = client.call(tools_call(10, "get_page", {"slug": "bad-utf8"}))
    assert "\ufffd" not in json.dumps(got), "the page was stored with U+FFFD substitutions"
    assert '"not_found"' in got["result"]["content"][0]["text"]


def test_a_valid_shape_error_gets_invalid_request(client: RawClient) -> None:
    client.send(b'{"jsonrpc":"2.0","id":11}')
    reply = client.reply()
    assert reply["id"] == 11 and reply["error"]["code"] == -32600
    client.send(b"[1, 2]")
    assert client.reply()["error"]["code"] == -32600
    assert_alive(client, 12)


def test_a_malformed_notification_is_logged_not_answered(client: RawClient) -> None:
    client.send(b'{"jsonrpc":"2.0","method":"notifications/x","params":"\\ud800"}')
    assert_alive(client, 13)  # the next reply is the ping's, not one for the notification
    line = client.logged("refused a malformed line")
    assert "WARNING" in line and "lone UTF-16 surrogate" in line, line
