"""A forgotten memory's text is found by no read path, on both protocols and both engines.

A unique marker is written (MCP ``remember`` with an entity, or gRPC
``Remember`` tagged for a data subject plus a Consolidate topic document
that copies it), found on the surfaces that should show it, then erased (MCP
``forget`` with ``redact``; gRPC ``ForgetSubject``) while a `brainkeep ui`
process has the brain open. Afterwards every surface of
``erasure_surfaces`` is probed, the raw files are searched byte for byte
(``pg_dump`` after VACUUM on PostgreSQL), the brain still verifies, and the
forget receipt checks out with `brainkeep verify --receipt`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from click.testing import CliRunner

from brainkeep.brain import Brain, open_brain
from brainkeep.cli.main import cli
from brainkeep.config import load_settings
from brainkeep.core import receipts
from brainkeep.core.context import STDIO
from brainkeep.core.verify import verify_brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.grpc.server import start_grpc_server
from brainkeep.grpc.servicer import RECEIPT_TRAILER
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from brainkeep.ops.usage import UsageLog
from brainkeep.providers.local_embeddings import LocalEmbeddingProvider
from tests.brain_engines import ENGINES, engine_home
from tests.console.console_support import start_ui
from tests.e2e.erasure_surfaces import AGENT, ENTITY, ENTITY_SLUG, THREAD, Surfaces
from tests.http.http_support import stopped_cleanly

# Seen before the forget by these at least (the test could not fail otherwise).
SEEN_BEFORE = {
    "mcp": {"mcp recall grep", "mcp recall entity", "mcp delta", "raw",
            "backup", "console /memories?expired=1"},
    "grpc": {"grpc recall exact", "grpc recall lexical", "grpc replay", "raw", "backup"},
}


@pytest.fixture(scope="module")
def model() -> Iterator[LocalEmbeddingProvider]:
    provider = LocalEmbeddingProvider()
    yield provider
    provider.close()


@pytest.fixture(params=ENGINES)
def brain_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def brain(tmp_path: Path, brain_engine: str, model: LocalEmbeddingProvider) -> Iterator[Brain]:
    with engine_home(tmp_path / "home", brain_engine) as home:
        opened = open_brain(load_settings(home, env={}), embedder=model)
        yield opened
        opened.close()


def _write(protocol: str, marker: str, dispatcher: Dispatcher,
           stub: pb_grpc.MnemoServiceStub) -> str:
    text = f"{ENTITY} keeps the vault code {marker} in her desk"
    if protocol == "mcp":
        outcome = dispatcher.call("remember", {"fact": text, "provenance": "chat",
                                               "entity": ENTITY}, STDIO)
        assert not outcome.is_error, outcome.payload
        return str(outcome.payload["id"])
    memory = stub.Remember(pb.RememberRequest(content=text, agent_id=AGENT, thread_id=THREAD,
                                              tags=["subject:dana"])).id
    stub.Remember(pb.RememberRequest(content="the lab opens at nine", agent_id=AGENT,
                                     thread_id=THREAD))
    stub.Checkpoint(pb.CheckpointRequest(thread_id=THREAD, agent_id=AGENT, state_snapshot="{}"))
    stub.Consolidate(pb.ConsolidateRequest(memory_ids=[memory], topic_name="vault",
                                           agent_id=AGENT, thread_id=THREAD))
    return str(memory)


def _forget(protocol: str, memory_id: str, dispatcher: Dispatcher,
            stub: pb_grpc.MnemoServiceStub) -> dict[str, Any]:
    if protocol == "mcp":
        outcome = dispatcher.call("forget", {"id": memory_id, "redact": True}, STDIO)
        assert not outcome.is_error, outcome.payload
        assert outcome.payload["expired"] is True and outcome.payload["redacted"] is True
        return dict(outcome.payload["receipt"])
    reply, call = stub.ForgetSubject.with_call(pb.ForgetSubjectRequest(subject_id="dana"))
    assert list(reply.forgotten) == [memory_id] and reply.strategy == "redact"
    trailers = dict(call.trailing_metadata())
    return dict(json.loads(trailers[RECEIPT_TRAILER]))


@pytest.mark.parametrize("protocol", ["mcp", "grpc"])
def test_a_forgotten_marker_is_found_nowhere(brain: Brain, protocol: str,
                                             tmp_path: Path) -> None:
    marker = f"zqx{uuid.uuid4().hex[:12]}"
    home = brain.settings.home
    dispatcher = Dispatcher(build_catalog(), brain, surface="full",
                            usage=UsageLog(brain.settings.usage_path))
    server = start_grpc_server(brain, port=0)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel, \
                stopped_cleanly(start_ui(home), "ui") as console:
            stub = pb_grpc.MnemoServiceStub(channel)
            brain.pages.put_page(ENTITY_SLUG, f"---\ntype: person\n---\n# {ENTITY}\n\n"
                                 f"{ENTITY} runs the lab.\n")
            memory_id = _write(protocol, marker, dispatcher, stub)
            surfaces = Surfaces(brain, dispatcher, stub, console, scratch, marker)
            seen = set(surfaces.holding_marker())
            assert SEEN_BEFORE[protocol] <= seen, SEEN_BEFORE[protocol] - seen
            surfaces.as_of = brain.clock.now_ts()

            receipt = _forget(protocol, memory_id, dispatcher, stub)

            assert surfaces.holding_marker() == []
            assert receipt["purged"]["memories"] == 1
            assert receipt["purged"]["topic_documents"] == (1 if protocol == "grpc" else 0)
            assert receipt["purged"]["vectors"] >= 1  # the model embedded the memory
            assert receipt["scrub"]["engine"] == brain.store.engine_name
    finally:
        server.stop(grace=1.0)
    report = verify_brain(brain.store)
    assert report.valid, report.first_broken
    assert receipts.check(brain.store, receipt).valid
    path = tmp_path / "receipt.json"
    path.write_text(json.dumps(receipt))
    result = CliRunner().invoke(cli, ["--home", str(home), "verify", "--receipt", str(path),
                                      "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["valid"] is True
