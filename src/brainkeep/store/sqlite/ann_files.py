"""The files of an ANN base index beside a SQLite brain: names, metadata, publish, build.

A base is an immutable usearch HNSW graph over every vector of one (source,
kind, model space) up to an embedding-id watermark, plus a row table
(embedding id, item id, page id, private) in embedding-id order. Both are
memory-mapped read-only by every process on the brain, so the kernel keeps
one copy in its page cache however many processes search.

Files live in ``<brain dir>/<brain stem>.vectors/``::

    <source>.<kind>.<space>.json          metadata, written last (the commit point)
    <source>.<kind>.<space>.<gen>.usearch the graph (f16 vectors inside)
    <source>.<kind>.<space>.<gen>.rows.npy  int64 (n, 4) row table
    <source>.<kind>.<space>.lock          flock: one builder per base at a time

Crash safety: data files are written under a ``.tmp`` name, fsynced and
renamed; the metadata (naming the generation, the files' sizes and the row
table's sha256) is renamed into place last. A crash leaves either the old
metadata (old files intact) or the new one (new files complete); leftover
``.tmp`` files are ignored and swept by the next build. Metadata whose model,
dimension, sizes or checksum do not match is ignored, and the base rebuilt.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import hashlib
import json
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("brainkeep.store.ann")

FORMAT = 1
# HNSW parameters, chosen on the 20K corpus (docs/search.md "ANN index"):
# f16 halves the file against f32 at no measurable recall cost; i8 lost 7 points;
# M = 32 and a search expansion of 256 keep recall@10 >= 0.98 on the corpus's
# tightly clustered memory vectors (ef 128: 0.972), still under 1 ms a search.
DTYPE = "f16"
CONNECTIVITY = 32
EXPANSION_ADD = 128
EXPANSION_SEARCH = 256
LOAD_BATCH = 20_000


@dataclass(frozen=True)
class BaseMeta:
    """What a published base holds and how to check its files."""

    format: int
    source_id: str
    kind: str
    model: str
    dim: int
    watermark: int  # every live row with embedding id <= this is in the base
    tomb_seq: int  # the tombstone sequence number when the rows were read
    count: int
    generation: int
    index_file: str
    index_bytes: int
    rows_file: str
    rows_bytes: int
    rows_sha256: str


def vectors_dir(db_path: str) -> Path | None:
    """Where a brain file's ANN bases live (None for an in-memory brain)."""
    if not db_path or db_path == ":memory:" or db_path.startswith("file:"):
        return None
    path = Path(db_path)
    return path.with_name(path.stem + ".vectors")


def _tag(text: str) -> str:
    clean = re.sub(r"[^A-Za-z0-9_-]+", "-", text)[:40]
    return f"{clean}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_durably(tmp: Path, final: Path) -> None:
    with open(tmp, "rb+") as handle:
        os.fsync(handle.fileno())
    os.replace(tmp, final)


class BaseFiles:
    """The files of one (source, kind, model space) base."""

    def __init__(self, directory: Path, *, source_id: str, kind: str, model: str,
                 dim: int) -> None:
        self.directory = directory
        self.source_id = source_id
        self.kind = kind
        self.model = model
        self.dim = dim
        self.prefix = f"{_tag(source_id)}.{kind}."
        self.stem = f"{self.prefix}{_tag(f'{model}/{dim}')}"
        self.meta_path = directory / f"{self.stem}.json"
        self.lock_path = directory / f"{self.stem}.lock"

    def stamp(self) -> tuple[int, int, int] | None:
        """A cheap fingerprint of the metadata file (changes when a base is published)."""
        try:
            st = os.stat(self.meta_path)
        except FileNotFoundError:
            return None
        return st.st_ino, st.st_mtime_ns, st.st_size

    def read_meta(self) -> BaseMeta | None:
        """The published base, or None when there is none or it does not check out."""
        try:
            raw = json.loads(self.meta_path.read_text())
            meta = BaseMeta(**raw)
        except FileNotFoundError:
            return None
        except (ValueError, TypeError) as exc:
            log.warning("ignoring ANN metadata %s: %s", self.meta_path, exc)
            return None
        problem = self._problem(meta)
        if problem:
            log.warning("ignoring ANN base %s: %s (it will be rebuilt)", self.meta_path, problem)
            return None
        return meta

    def _problem(self, meta: BaseMeta) -> str:
        expected = (FORMAT, self.source_id, self.kind, self.model, self.dim)
        if (meta.format, meta.source_id, meta.kind, meta.model, meta.dim) != expected:
            return "another format, source, kind or model space"
        for name, size in ((meta.index_file, meta.index_bytes), (meta.rows_file, meta.rows_bytes)):
            try:
                if os.path.getsize(self.directory / name) != size:
                    return f"{name} has the wrong size (half-written?)"
            except FileNotFoundError:
                return f"{name} is missing"
        # The row table is small (32 bytes a row): check it whole. The graph is
        # checked by size and by usearch's own header when it is opened.
        digest = hashlib.sha256((self.directory / meta.rows_file).read_bytes()).hexdigest()
        if digest != meta.rows_sha256:
            return "row table checksum mismatch"
        return ""

    @contextlib.contextmanager
    def build_lock(self) -> Iterator[bool]:
        """Hold the builder lock if no other process does (yields whether it is held)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.lock_path, "a+") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def publish(self, index: Any, rows: np.ndarray, *, watermark: int, tomb_seq: int,
                generation: int) -> BaseMeta:
        """Write a new base durably and make it current (call under ``build_lock``)."""
        index_file = f"{self.stem}.{generation}.usearch"
        rows_file = f"{self.stem}.{generation}.rows.npy"
        tmp_index = self.directory / (index_file + ".tmp")
        index.save(str(tmp_index))
        _write_durably(tmp_index, self.directory / index_file)
        tmp_rows = self.directory / (rows_file + ".tmp")
        with open(tmp_rows, "wb") as handle:
            np.save(handle, np.ascontiguousarray(rows, dtype=np.int64))
        _write_durably(tmp_rows, self.directory / rows_file)
        meta = BaseMeta(
            FORMAT, self.source_id, self.kind, self.model, self.dim, watermark, tomb_seq,
            len(rows), generation, index_file, os.path.getsize(self.directory / index_file),
            rows_file, os.path.getsize(self.directory / rows_file),
            hashlib.sha256((self.directory / rows_file).read_bytes()).hexdigest(),
        )
        tmp_meta = self.directory / (self.meta_path.name + ".tmp")
        tmp_meta.write_text(json.dumps(asdict(meta)))
        _write_durably(tmp_meta, self.meta_path)
        _fsync_dir(self.directory)
        self._sweep(keep={index_file, rows_file})
        return meta

    def _sweep(self, keep: set[str]) -> None:
        """Drop older generations, other model spaces and leftovers of this (source, kind).

        Processes that still map an old generation keep reading it: an
        unlinked file lives until its last mapping goes.
        """
        for path in self.directory.glob(self.prefix + "*"):
            name = path.name
            if name in keep or path in (self.meta_path, self.lock_path):
                continue
            if name.endswith((".usearch", ".rows.npy", ".tmp", ".json")):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()


def _usearch_index() -> Any:
    """usearch's ``Index`` class, imported so that a later ``import onnxruntime`` cannot crash.

    usearch's extension carries its own static libstdc++ and exports those
    symbols; a process that imports it *before* onnxruntime (the ANN base is
    opened at the first search, the local model loads lazily after it) then
    segfaults inside onnxruntime's import (std::locale facets, two copies).
    Loading the system libstdc++ into the global namespace first makes
    usearch bind to that one copy (bench/scale_targets.py hit this on the
    200K corpus; ``python -c "import usearch.index, onnxruntime"`` shows it).
    """
    with contextlib.suppress(OSError):  # no libstdc++ here (macOS, musl): nothing to share
        ctypes.CDLL("libstdc++.so.6", mode=ctypes.RTLD_GLOBAL)
    from usearch.index import Index  # heavy import, only where an index is built or opened

    return Index


def new_graph(dim: int) -> Any:
    """An empty HNSW graph with brainkeep's parameters (inner product on unit vectors)."""
    Index = _usearch_index()  # noqa: N806 - the class, named as usearch names it
    return Index(ndim=dim, metric="ip", dtype=DTYPE, connectivity=CONNECTIVITY,
                 expansion_add=EXPANSION_ADD, expansion_search=EXPANSION_SEARCH)


def open_graph(path: Path, *, view: bool) -> Any:
    """A published graph, memory-mapped read-only (``view``) or copied into memory."""
    index = _usearch_index().restore(str(path), view=view)
    if index is None:
        raise ValueError(f"{path} is not a usearch index")
    # usearch declares the setter in a way mypy reads as read-only.
    index.expansion_search = EXPANSION_SEARCH  # type: ignore[misc]
    return index
