"""VectorIndex against a scripted source: incremental sync, tombstones, compaction, masks."""

from __future__ import annotations

import numpy as np

from brainkeep.core.retrieval import StoredEmbeddings
from brainkeep.store.sqlite.vector_index import VectorIndex

DIM = 8


class FakeSource:
    """Rows and tombstones in memory, numbered the way the SQLite tables number them."""

    def __init__(self) -> None:
        self.rows: dict[int, tuple[int, bool, np.ndarray]] = {}
        self.tombstones: list[tuple[int, int]] = []
        self.next_id = 1
        self.next_seq = 1
        self.loads = 0

    def add(self, item: int, vector: np.ndarray, *, private: bool = False) -> int:
        rid = self.next_id
        self.next_id += 1
        self.rows[rid] = (item, private, (vector / np.linalg.norm(vector)).astype(np.float32))
        return rid

    def delete(self, rid: int) -> None:
        del self.rows[rid]
        self.tombstones.append((self.next_seq, rid))
        self.next_seq += 1

    def in_transaction(self) -> bool:
        return False

    def embedding_watermark(self) -> tuple[int, int]:
        return self.next_id - 1, self.next_seq - 1

    def load_embeddings(self, source_id: str, kind: str, model: str, dim: int, *,
                        after_id: int, limit: int) -> StoredEmbeddings:
        self.loads += 1
        ids = sorted(r for r in self.rows if r > after_id)[:limit]
        if not ids:
            return StoredEmbeddings((), (), (), (), b"")
        return StoredEmbeddings(
            tuple(ids), tuple(self.rows[i][0] for i in ids), tuple(0 for _ in ids),
            tuple(self.rows[i][1] for i in ids), b"".join(self.rows[i][2].tobytes() for i in ids),
        )

    def embedding_tombstones(self, after_seq: int) -> tuple[int | None, list[tuple[int, int]]]:
        first = self.tombstones[0][0] if self.tombstones else None
        return first, [t for t in self.tombstones if t[0] > after_seq]


def unit(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i % DIM] = 1.0
    return v


def index_of(source: FakeSource) -> VectorIndex:
    return VectorIndex(source, source_id="default", kind="chunk", model="m", dim=DIM)


def test_appends_and_deletes_apply_incrementally() -> None:
    source = FakeSource()
    a = source.add(1, unit(0))
    source.add(2, unit(1))
    index = index_of(source)
    assert [h.item_id for h in index.search(unit(0), 1, include_private=True)] == [1]
    source.add(3, unit(0) + 0.1 * unit(1))
    source.delete(a)
    hits = index.search(unit(0), 3, include_private=True)
    assert [h.item_id for h in hits][0] == 3 and 1 not in {h.item_id for h in hits}
    assert len(index) == 2


def test_private_rows_are_masked_for_remote_callers() -> None:
    source = FakeSource()
    source.add(1, unit(0), private=True)
    source.add(2, unit(1))
    index = index_of(source)
    assert [h.item_id for h in index.search(unit(0), 5, include_private=False)] == [2]
    assert index.search(unit(0), 5, include_private=True)[0].item_id == 1
    assert [h.item_id for h in index.search(unit(0), 5, include_private=True,
                                            only_items={2})] == [2]


def test_pruned_tombstones_trigger_a_reload() -> None:
    source = FakeSource()
    rids = [source.add(i, unit(i)) for i in range(4)]
    index = index_of(source)
    index.sync()
    source.delete(rids[0])
    source.delete(rids[1])
    source.tombstones.clear()  # pruned before this index saw them
    assert sorted(h.item_id for h in index.search(unit(2), 10, include_private=True)) == [2, 3]


def test_compaction_keeps_results_right() -> None:
    source = FakeSource()
    rids = [source.add(i, unit(i)) for i in range(1200)]
    index = index_of(source)
    index.sync()
    for rid in rids[:600]:
        source.delete(rid)
    hits = index.search(unit(3), 5, include_private=True)
    assert len(index) == 600 and all(h.item_id >= 600 for h in hits)
    assert index._dead == 0  # compacted: dead rows went away, not just masked
