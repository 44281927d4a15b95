"""The gRPC suite really runs on the engine its id names (not SQLite twice)."""

from __future__ import annotations

from brainkeep.brain import Brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from tests.brain_engines import RawDatabase
from tests.grpc.support import remember


def test_the_served_brain_is_on_the_engine_under_test(
    stub, brain: Brain, db: RawDatabase, brain_engine: str
) -> None:
    assert brain.store.engine_name == brain_engine
    mid = remember(stub, "which engine holds me")
    # The raw connection sees the row the server wrote: the same database.
    assert db.execute("SELECT text FROM memories WHERE uuid = ?", (mid,)).fetchone()[0] == (
        "which engine holds me")
    assert stub.Health(pb.HealthRequest()).status == "ok"
