"""The seeded world of the visibility matrix: memories, readers, and the rule.

``visible`` restates core/scope.py's rules independently of the code under
test, so a change to the implementation cannot silently change what the
matrix expects (docs/data-model.md, "Visibility").
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from brainkeep.brain import Brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc

OPEN = ("public", "global")
WORD = "zebrafish"  # every read-matrix memory holds it, so one query reads them all
ENTITY = "projects/vis-matrix"
PAGE = "---\ntitle: Visibility Matrix\ntype: project\n---\n# Visibility Matrix\n\nA page.\n"
FACT_KEY = "vis"  # shared metadata fact_id: TrajectoryAudit then lists every member's id


@dataclass(frozen=True)
class Mem:
    """One seeded memory and who it belongs to."""

    key: str
    org: str | None
    owner: str  # '' = an MCP/CLI fact (no gRPC owner)
    scope: str  # private | shared | public | global (MCP world = global)
    grantees: tuple[str, ...] = ()  # live ACL (Share) or delegation holders
    quarantined: bool = False

    @property
    def via_grpc(self) -> bool:
        return self.owner != ""

    @property
    def has_entity(self) -> bool:
        """Only CLI/MCP facts carry an entity slug (RememberRequest has no entity field)."""
        return not self.via_grpc

    @property
    def token(self) -> str:
        """A sentinel no other memory's text contains (fixed width: no substring clashes)."""
        return f"snt{READ_KEYS.index(self.key):02d}q"

    @property
    def text(self) -> str:
        return f"The {WORD} register holds {self.token} for {self.key.replace('-', ' ')}"


@dataclass(frozen=True)
class Reader:
    """A caller of one surface, identified as that surface identifies it."""

    surface: str  # cli | stdio | http | grpc
    org: str | None = None
    agent: str | None = None

    @property
    def trusted(self) -> bool:
        return self.surface == "cli"

    @property
    def id(self) -> str:
        return f"{self.surface}[org={self.org or '-'},agent={self.agent or '-'}]"


def visible(m: Mem, r: Reader, *, tenant_only: bool = False) -> bool:
    """The rule (core/scope.py): tenant, then trust, quarantine, scope, owner, grants."""
    if m.org != r.org:
        return False
    if r.trusted or tenant_only:
        return True
    if m.quarantined:
        return False
    if m.scope in OPEN:
        return True
    if r.agent and m.owner == r.agent:
        return True
    return m.scope == "shared" and r.agent in m.grantees


A, B, C, D = "agent-a", "agent-b", "agent-c", "agent-d"

READ_SET = (
    Mem("g-none-a-private", None, A, "private"),
    Mem("g-none-a-public", None, A, "public"),
    Mem("g-none-b-global", None, B, "global"),
    Mem("g-none-a-shared-acl", None, A, "shared", grantees=(C,)),
    Mem("g-none-b-shared-delegated", None, B, "shared", grantees=(D,)),
    Mem("g-none-a-public-quarantined", None, A, "public", quarantined=True),
    Mem("g-acme-a-private", "acme", A, "private"),
    Mem("g-acme-a-public", "acme", A, "public"),  # the known leak to org-less MCP
    Mem("g-acme-b-global", "acme", B, "global"),
    Mem("g-acme-a-shared-acl", "acme", A, "shared", grantees=(C,)),
    Mem("g-globex-b-public", "globex", B, "public"),
    Mem("g-globex-b-private", "globex", B, "private"),
    Mem("m-none-world", None, "", "global"),
    Mem("m-none-private", None, "", "private"),
    Mem("m-acme-world", "acme", "", "global"),
    Mem("m-acme-private", "acme", "", "private"),
    Mem("m-globex-world", "globex", "", "global"),
)
READ_KEYS = [m.key for m in READ_SET]

# Targets of the write-permission tests; they never hold WORD, so no read row sees them.
WRITE_SET = (
    Mem("w-none-a-public-1", None, A, "public"),
    Mem("w-none-a-public-2", None, A, "public"),
    Mem("w-none-a-public-3", None, A, "public"),
    Mem("w-none-a-public-4", None, A, "public"),
    Mem("w-none-a-private-1", None, A, "private"),
    Mem("w-none-a-private-2", None, A, "private"),
    Mem("w-none-world", None, "", "global"),
    Mem("w-acme-world", "acme", "", "global"),
)


def write_text(m: Mem) -> str:
    return f"The walrus ledger entry {m.key}"


@dataclass
class Seeded:
    """What seeding produced: ids by key, the delta cursor, and any seeding failure."""

    home: Path
    since: str
    uuids: dict[str, str]  # key -> gRPC uuid (every memory has one)
    fact_ids: dict[str, str]  # key -> MCP fact id (every memory has one)
    errors: dict[str, str]  # key -> why it could not be seeded


def run_cli(home: Path, org: str | None, *args: str, input: str | None = None
            ) -> tuple[int, str]:
    """Exit code and stdout (or, on failure, everything printed)."""
    """``brainkeep --home HOME [--org ORG] ARGS`` in-process (click's runner)."""
    from brainkeep.cli.main import cli

    root = ["--home", str(home), *(["--org", org] if org else [])]
    result = CliRunner().invoke(cli, [*root, *args], env={"BRAINKEEP_ORG": None},
                                input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout if result.exit_code == 0 else result.output


def _cli_fact(home: Path, m: Mem, text: str, *, entity: bool) -> str:
    visibility = "world" if m.scope in OPEN else "private"
    extra = ["--entity", ENTITY] if entity else []
    code, out = run_cli(home, m.org, "remember", text, "--provenance", "visibility matrix",
                        "--visibility", visibility, *extra, "--json")
    if code != 0:
        raise RuntimeError(f"cli remember exit {code}: {out.strip()[:300]}")
    return str(json.loads(out)["id"])


def _grpc_memory(stub: pb_grpc.MnemoServiceStub, m: Mem, text: str, *, thread: bool) -> str:
    fields: dict[str, Any] = {"content": text, "agent_id": m.owner, "scope": m.scope}
    if m.org:
        fields["org_id"] = m.org
    if thread:  # one thread per memory: Replay and Verify then address it alone
        fields["thread_id"] = m.key
        fields["metadata"] = json.dumps({"fact_id": FACT_KEY})
    return str(stub.Remember(pb.RememberRequest(**fields)).id)


def _grant(stub: pb_grpc.MnemoServiceStub, m: Mem, uuid: str) -> None:
    for grantee in m.grantees:
        if m.key.endswith("delegated"):
            stub.Delegate(pb.DelegateRequest(delegator_id=m.owner, delegate_id=grantee,
                                             permission="read", memory_ids=[uuid]))
        else:
            stub.Share(pb.ShareRequest(memory_id=uuid, target_agent_id=grantee,
                                       permission="read", agent_id=m.owner))


def seed(home: Path, brain: Brain, stub: pb_grpc.MnemoServiceStub) -> Seeded:
    """Write READ_SET and WRITE_SET: gRPC memories through Remember, facts through the CLI.

    A fact the CLI cannot write yet (e.g. ``--org`` not landed) is recorded in
    ``errors`` so only its rows fail, with the reason.
    """
    code, out = run_cli(home, None, "put", ENTITY, "--json", input=PAGE)
    if code != 0:
        raise RuntimeError(f"cli put exit {code}: {out}")
    since = brain.clock.now_ts()
    out_ids: dict[str, str] = {}
    fact_ids: dict[str, str] = {}
    errors: dict[str, str] = {}
    for sets, text_of, read in ((READ_SET, lambda m: m.text, True),
                                (WRITE_SET, write_text, False)):
        for m in sets:
            try:
                if m.via_grpc:
                    out_ids[m.key] = _grpc_memory(stub, m, text_of(m), thread=read)
                    _grant(stub, m, out_ids[m.key])
                else:
                    fact_ids[m.key] = _cli_fact(home, m, text_of(m), entity=read)
            except Exception as exc:  # recorded, reported by the rows that need it
                errors[m.key] = f"seeding {m.key} failed: {exc}"
    with closing(sqlite3.connect(brain.settings.db_path, isolation_level=None)) as db:
        # gRPC reads report uuids and MCP verbs fact ids: know both for every memory.
        for key, fid in list(fact_ids.items()):
            out_ids[key] = db.execute("SELECT uuid FROM memories WHERE id = ?",
                                      (int(fid),)).fetchone()[0]
        for key, uuid in out_ids.items():
            fact_ids[key] = str(db.execute("SELECT id FROM memories WHERE uuid = ?",
                                           (uuid,)).fetchone()[0])
        # No RPC or verb sets quarantine today (an ingestion filter would): set the
        # column directly, as such a filter's store write would.
        for m in READ_SET:
            if m.quarantined and m.key in out_ids:
                db.execute("UPDATE memories SET quarantined = 1 WHERE uuid = ?",
                           (out_ids[m.key],))
    return Seeded(home, since, out_ids, fact_ids, errors)
