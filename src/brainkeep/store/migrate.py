"""Copy a whole brain to another engine: raw rows, table by table, resumable, verified.

`brainkeep migrate --to TARGET` (cli/migrate_cmd.py) drives ``migrate``.
Rows are copied as they are stored, ids included, so every hash of the
event log and of the memory chains stays valid and ``verify`` passes on the
target. Derived state is not copied but rebuilt (SQLite FTS5 rows,
PostgreSQL identity sequences; PostgreSQL ``tsv`` columns are generated).

Resumable and never half-open:

- the first transaction on the target sets ``MARKER_KEY`` (the source and
  its event head); ``open_brain`` refuses a brain carrying it;
- each table is copied in key order, ``batch_size`` rows per target
  transaction, and that same transaction records how far it got (meta key
  ``migration.progress``), so a re-run after a kill continues at the first
  row not committed;
- the marker is cleared only after row counts match table by table and the
  audit chain verifies on the target.

Self-references (a memory superseded by a later one, a checkpoint's parent,
a delegation's parent) are written NULL and filled in once their table is
complete, so key order never violates a foreign key.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from brainkeep.core.ports.store import Store
from brainkeep.errors import InvalidInput, StoreError
from brainkeep.store import label_of
from brainkeep.store.migrate_marker import MARKER_KEY, refuse_half_migrated
from brainkeep.store.migrate_sides import Side, open_target

PROGRESS_KEY = "migration.progress"
DEFAULT_BATCH = 500
# Meta keys that describe one engine's own state, not the brain's.
_LOCAL_META = (MARKER_KEY, PROGRESS_KEY, "postgres.skipped_migrations")


@dataclass(frozen=True)
class Table:
    """One copied table: its key (copy order) and self-references filled in afterwards."""

    name: str
    key: tuple[str, ...]
    deferred: tuple[str, ...] = ()


# Parents before children (foreign keys are checked per statement).
TABLES: tuple[Table, ...] = (
    Table("sources", ("id",)),
    Table("pages", ("id",)),
    Table("page_aliases", ("page_id", "alias_norm")),
    Table("links", ("id",)),
    Table("timeline_entries", ("id",)),
    Table("chunks", ("id",)),
    Table("memories", ("id",), deferred=("superseded_by",)),
    Table("memory_tags", ("memory_id", "tag")),
    Table("memory_relations", ("from_id", "to_uuid", "relation")),
    Table("mnemo_topic_members", ("topic_memory_id", "member_uuid")),
    Table("mnemo_acls", ("id",)),
    Table("mnemo_delegations", ("id",), deferred=("parent_id",)),
    Table("mnemo_delegation_items", ()),  # no key: copied in full-row order by offset
    Table("mnemo_checkpoints", ("seq",), deferred=("parent_id", "merge_parent_id")),
    Table("events", ("seq",)),
    Table("memory_reads", ("id",)),  # 0014: reads, outside the chain
    Table("session_cursors", ("source_id", "client_id", "session_id")),
    Table("tokens", ("id",)),
    Table("oauth_clients", ("client_id",)),  # 0012: without them every OAuth login is lost
    Table("oauth_grants", ("id",)),
    Table("verify_checkpoints", ("id",)),  # 0014: heads a verify proved (signed ones too)
    Table("quarantine", ("id",)),  # 0015: the review queue of held writes
    Table("orientation_namespaces", ("id",)),  # 0016: the orientation cache
    Table("orientation_entries", ("namespace_id", "kind", "entry_key", "entry_value",
                                  "memory_id")),
    Table("embeddings", ("id",)),  # absent on a PostgreSQL server without pgvector
)

# (table, rows copied so far, rows in all) after each committed batch.
Progress = Callable[[str, int, int], None]
# The audit check of the finished target: (valid, events checked). The
# caller passes core.verify (store/ does not call up into domain services).
Verifier = Callable[[Store], tuple[bool, int]]


@dataclass
class MigrationSummary:
    """What one ``migrate`` run did (the CLI's --json output)."""

    source: str
    target: str
    resumed: bool
    copied: dict[str, int] = field(default_factory=dict)  # rows written by this run
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # table -> source/target
    skipped: dict[str, str] = field(default_factory=dict)  # table -> why
    verify: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "resumed": self.resumed,
                "copied": self.copied, "counts": self.counts, "skipped": self.skipped,
                "verify": self.verify}


def migrate(source_store: Any, source_label: str, target: str, *, verifier: Verifier,
            batch_size: int = DEFAULT_BATCH, progress: Progress | None = None
            ) -> MigrationSummary:
    """Copy the brain in ``source_store`` to ``target`` (a postgresql:// URL or a .db path).

    Args:
        source_store: The open brain to copy (writers should be stopped).
        source_label: How the source may be printed (no password); recorded
            in the target's marker, so a resume must name the same source.
        target: Where to copy to; a password in a URL is used, never printed.
        verifier: Checks the audit chain of the finished target.
        batch_size: Rows per target transaction (and per resumable step).
        progress: Called after each committed batch.

    Raises:
        InvalidInput: The target already holds another brain, or is the source.
        Unavailable: Either database is unreachable (resume by re-running).
        StoreError: The copy did not verify (the target keeps its marker).
    """
    refuse_half_migrated(source_store)
    target_label = label_of(target)
    if target_label == source_label:
        raise InvalidInput("The migration target is the brain being migrated.",
                           suggestion="Pass --to another database URL or file path.",
                           field="to")
    src = Side(source_store, source_label)
    dst = Side(open_target(target), target_label)
    try:
        return _Copier(src, dst, max(1, batch_size), progress, verifier).run()
    finally:
        dst.store.close()


class _Copier:
    def __init__(self, src: Side, dst: Side, batch: int, progress: Progress | None,
                 verifier: Verifier) -> None:
        self.src, self.dst, self.batch, self.progress = src, dst, batch, progress
        self.verifier = verifier
        self.state: dict[str, dict[str, Any]] = {}

    def run(self) -> MigrationSummary:
        head = self._source_head()
        resumed = self._start(head)
        summary = MigrationSummary(self.src.label, self.dst.label, resumed)
        plan = self._plan(summary)
        total = sum(self.src.count(t.name) for t, _ in plan)
        done = sum(int(self.state.get(t.name, {}).get("rows", 0)) for t, _ in plan)
        for table, columns in plan:
            summary.copied[table.name] = self._copy(table, columns, done, total)
            done += summary.copied[table.name]
            self._fill_deferred(table)
        with self.dst.store.transaction():
            self.dst.rebuild_derived({t.name: t.key for t, _ in plan})
            self._copy_meta()
        self._verify(summary, plan)
        with self.dst.store.transaction():
            self.dst.store.db.execute(
                f"DELETE FROM meta WHERE key IN ({self.dst.marks(2)})", (MARKER_KEY, PROGRESS_KEY))
        return summary

    # -- start / resume -----------------------------------------------------

    def _source_head(self) -> dict[str, Any]:
        row = self.src.store.db.one(
            "SELECT COUNT(*), MAX(seq), "
            "(SELECT hash FROM events WHERE seq = (SELECT MAX(seq) FROM events)) FROM events")
        return {"events": int(row[0]), "last_seq": row[1], "last_hash": row[2]}

    def _start(self, head: dict[str, Any]) -> bool:
        """Set the marker on a fresh target, or check it on a resumed one (True)."""
        raw = self.dst.store.get_meta(MARKER_KEY)
        if raw is not None:
            marker = json.loads(raw)
            if marker.get("from") != self.src.label or marker.get("source_head") != head:
                raise InvalidInput(
                    f"{self.dst.label} holds an unfinished migration from "
                    f"{marker.get('from')}, and the source differs or changed since.",
                    suggestion="Stop writers to the source and migrate into an empty "
                    "database or a new file (or drop and recreate this target).",
                    field="to")
            self.state = json.loads(self.dst.store.get_meta(PROGRESS_KEY) or "{}")
            return True
        busy = {t.name: n for t in TABLES if t.name != "sources"
                and self.dst.columns(t.name) and (n := self.dst.count(t.name))}
        if busy:
            raise InvalidInput(
                f"{self.dst.label} already holds a brain ({_rows(busy)}).",
                suggestion="Migrate into an empty database or a new file path; brainkeep "
                "never merges two brains.", field="to")
        marker = {"from": self.src.label, "started_at": datetime.now(UTC).isoformat(),
                  "source_head": head}
        with self.dst.store.transaction():
            self.dst.delete_all("sources")  # the seeded default comes from the source
            self.dst.upsert_meta([(MARKER_KEY, json.dumps(marker)), (PROGRESS_KEY, "{}")])
        return False

    def _plan(self, summary: MigrationSummary) -> list[tuple[Table, list[str]]]:
        plan = []
        for table in TABLES:
            here, there = self.src.columns(table.name), self.dst.columns(table.name)
            if here is None:
                summary.skipped[table.name] = "absent from the source"
                continue
            if there is None:
                rows = self.src.count(table.name)
                if rows:  # only vectors can be missing: a server without pgvector
                    summary.skipped[table.name] = (
                        f"{rows} rows not copied: the target has no {table.name} table "
                        "(install pgvector, then run `brainkeep embed`)")
                continue
            plan.append((table, [c for c in here if c in there]))
        return plan

    # -- copying -------------------------------------------------------------

    def _copy(self, table: Table, columns: list[str], done: int, total: int) -> int:
        state = self.state.setdefault(table.name, {"rows": 0, "last": None, "done": False})
        copied = 0
        deferred = [columns.index(c) for c in table.deferred if c in columns]
        key_at = [columns.index(k) for k in table.key]
        if not state["done"]:
            self.dst.prepare_bulk(table.name)
        while not state["done"]:
            rows = self.src.fetch(table.name, columns, table.key, state["last"],
                                  state["rows"], self.batch)
            written = [tuple(None if i in deferred else v for i, v in enumerate(r))
                       for r in rows]
            state["rows"] += len(rows)
            state["done"] = len(rows) < self.batch
            if rows and key_at:
                state["last"] = [rows[-1][i] for i in key_at]
            with self.dst.store.transaction():  # rows and progress commit together
                self.dst.insert(table.name, columns, written)
                self._save_state()
            copied += len(rows)
            if self.progress:
                self.progress(table.name, done + copied, total)
        return copied

    def _fill_deferred(self, table: Table) -> None:
        state = self.state[table.name]
        for column in table.deferred:
            flag = f"filled_{column}"
            if state.get(flag):
                continue
            keys = ", ".join(table.key)
            rows = [tuple(r) for r in self.src.store.db.all(
                f"SELECT {column}, {keys} FROM {table.name} WHERE {column} IS NOT NULL "
                f"ORDER BY {keys}")]
            with self.dst.store.transaction():
                for start in range(0, len(rows), self.batch):
                    self.dst.update(table.name, column, table.key,
                                    rows[start:start + self.batch])
                state[flag] = True
                self._save_state()

    def _save_state(self) -> None:
        self.dst.upsert_meta([(PROGRESS_KEY, json.dumps(self.state, default=str))])

    def _copy_meta(self) -> None:
        rows = [(r[0], r[1]) for r in self.src.store.db.all("SELECT key, value FROM meta")
                if r[0] not in _LOCAL_META]
        self.dst.upsert_meta(rows)

    # -- verification ------------------------------------------------------

    def _verify(self, summary: MigrationSummary, plan: list[tuple[Table, list[str]]]) -> None:
        mismatched = []
        for table, _ in plan:
            pair = {"source": self.src.count(table.name), "target": self.dst.count(table.name)}
            summary.counts[table.name] = pair
            if pair["source"] != pair["target"]:
                mismatched.append(table.name)
        valid, checked = self.verifier(self.dst.store)
        summary.verify = {"valid": valid, "events_checked": checked}
        if mismatched or not valid:
            problem = (f"row counts differ in {', '.join(mismatched)}" if mismatched
                       else "the audit chain does not verify on the target")
            raise StoreError(
                f"The copy to {self.dst.label} did not verify: {problem}.",
                suggestion="Stop writers to the source and re-run `brainkeep migrate`; the "
                "target stays marked as unfinished and will not open as a brain.",
                detail=json.dumps(summary.to_dict(), default=str))


def _rows(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {table}" for table, n in counts.items())
