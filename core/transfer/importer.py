"""The import engine every source feeds (memdesk JSON Lines, Mem0, Recall).

A source yields :class:`Candidate` items already mapped onto memdesk's field names;
the engine validates each with the store's own validation, writes the good ones in
batches and reports the bad ones by number, with the reason, without stopping.

Writes are audited as actor ``import``, every event of one import sharing one
``group_id``, so ``MemoryStore.undo_group`` takes the whole import back (undoing an
added memory soft-deletes it; undoing an update restores the old values).  Each batch
is its own write transaction so agents writing to the same store wait at most one
batch, not the whole import; a cancelled import keeps the batches already written and
says so (and they are still one undoable group).

Supersede links: a memory whose replacement is neither in the store nor earlier in
the input waits (in memory) until that replacement arrives; if it never does, the
memory is reported as a bad item and not written.  memdesk's own exports put every
replacement first, so nothing waits when importing them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from sqlalchemy import Connection, Table, insert, select

from memdesk.core.errors import MemdeskError, StoreOpenError, ValidationError
from memdesk.core.guard import SecretPolicy, mask_fields, record_reasons_in, secret_check
from memdesk.core.guard.curated import curated_among
from memdesk.core.ids import new_id, utcnow
from memdesk.core.routing import route_values
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import validate_fields
from memdesk.core.store.models import Memory, MemoryEvent
from memdesk.core.store.records import (
    MEMORY_EDIT,
    RECORD_COLUMNS,
    Changed,
    Changes,
    encode_values,
)
from memdesk.core.store.statistics import refresh_statistics
from memdesk.core.store.vectors import (
    clear_vectors_in,
    write_vectors_by_id_in,
    write_vectors_in,
)
from memdesk.core.taxonomy import Actor

# Declarative types __table__ as a FromClause; these models map plain Tables.
MT = cast(Table, Memory.__table__)
ET = cast(Table, MemoryEvent.__table__)
M = MT.c
# Bookkeeping of one store, not part of a memory: the row number (FTS rowid) and the
# optimistic-concurrency version.  Never exported; the store sets them on insert.
STORE_LOCAL = frozenset({"seq", "version"})
COLUMNS = tuple(c for c in RECORD_COLUMNS if c not in STORE_LOCAL)
ACTOR = Actor.IMPORT.value
MODEL_KEY = "embedding_model"
NO_MODEL = "embedding (its model is not recorded; `memdesk embed` can fill vectors)"
OnExisting = Literal["skip", "update"]
Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]
# Bad items kept with their reasons (the rest are counted): a file with millions of bad
# lines must not hold millions of messages in memory.
MAX_LISTED_BAD = 10_000
# A reason echoes the offending value; a value can be megabytes long.
MAX_REASON_CHARS = 300
# When this many items in a row are bad and none was good, the input is not what it
# claims to be (a wrong file, a wrong format): stop instead of listing every line.
GIVE_UP_AFTER = 50


class TransferError(MemdeskError):
    """The input as a whole cannot be imported (wrong kind of file, unreadable)."""


@dataclass(frozen=True)
class Candidate:
    """One input item mapped to memdesk fields, or the reason it could not be read.

    ``number`` is 1-based in the source's unit (line, item, row); ``position`` is how
    far into the source the reader is afterwards, in the source's progress unit.
    """

    number: int
    values: dict[str, Any] | None
    error: str | None = None
    position: int = 0
    ref: str | None = None  # the item's id when the source could read it
    check: Any = None  # a recall check line (core/transfer/checks.py CheckItem), not a memory


@dataclass(frozen=True)
class BadItem:
    """One item that was not written: where it is, its id if known, and why."""

    number: int
    reason: str
    ref: str | None = None

    def __post_init__(self) -> None:
        if len(self.reason) > MAX_REASON_CHARS:
            object.__setattr__(self, "reason", self.reason[:MAX_REASON_CHARS - 1] + "…")
        if self.ref is not None and len(self.ref) > 64:
            object.__setattr__(self, "ref", self.ref[:63] + "…")

    def __str__(self) -> str:
        ref = f" (id {self.ref})" if self.ref else ""
        return f"{self.number}{ref}: {self.reason}"


@dataclass
class ImportReport:
    """What an import did.  ``group_id`` undoes all of it (None when nothing changed);
    ``dropped`` counts source fields memdesk has no place for (Mem0, Recall)."""

    unit: str = "line"
    imported: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0
    skipped_duplicates: int = 0  # left out as duplicates a preview found (core/preview)
    bad: list[BadItem] = field(default_factory=list)  # the first MAX_LISTED_BAD
    bad_count: int = 0  # all of them
    dropped: Counter[str] = field(default_factory=Counter)
    cancelled: bool = False
    stopped_at: int | None = None
    error: str | None = None
    group_id: str | None = None
    memory_ids: list[str] = field(default_factory=list)
    new_ids: list[str] = field(default_factory=list)  # of memory_ids, the inserted ones
    # The secrets lane (core/guard/secret_lane.py): memories held for review for a
    # secret, and values masked before they were written, per category.
    secrets_held: Counter[str] = field(default_factory=Counter)
    secrets_masked: Counter[str] = field(default_factory=Counter)
    checks_imported: int = 0  # recall checks added (core/transfer/checks.py)
    checks_skipped: int = 0  # recall checks the store already held

    def add_bad(self, item: BadItem) -> None:
        self.bad_count += 1
        if len(self.bad) < MAX_LISTED_BAD:
            self.bad.append(item)

    @property
    def unlisted_bad(self) -> int:
        return self.bad_count - len(self.bad)

    @property
    def changed(self) -> bool:
        return bool(self.imported or self.updated or self.checks_imported)

    @property
    def changes(self) -> Changes:
        """What views must refresh for, and the group an Edit → Undo takes back."""
        kinds = MEMORY_EDIT if self.imported or self.updated else Changed.NOTHING
        if self.checks_imported:
            kinds |= Changed.CHECKS | Changed.HISTORY
        return Changes(tuple(self.memory_ids), (), self.group_id, kinds,
                       action=acts.IMPORT if self.changed else None,
                       new_memory_ids=tuple(self.new_ids))

    def summary(self) -> str:
        parts = [f"imported {self.imported:,}", f"updated {self.updated:,}"]
        if self.unchanged:
            parts.append(f"unchanged {self.unchanged:,}")
        parts += [f"skipped {self.skipped:,} (already in the store)" if self.skipped
                  else "skipped 0"]
        if self.skipped_duplicates:
            parts.append(f"left out {self.skipped_duplicates:,} duplicates")
        parts.append(f"bad {self.bad_count:,}")
        if self.secrets_held:
            parts.append(f"held for review for a secret {sum(self.secrets_held.values()):,} ("
                         + ", ".join(f"{k} {v:,}" for k, v in sorted(self.secrets_held.items()))
                         + ")")
        if self.secrets_masked:
            parts.append("secrets masked: " + ", ".join(
                f"{k} {v:,}" for k, v in sorted(self.secrets_masked.items())))
        if self.checks_imported or self.checks_skipped:
            parts.append(f"recall checks {self.checks_imported:,} added"
                         + (f" ({self.checks_skipped:,} already in the store)"
                            if self.checks_skipped else ""))
        text = ", ".join(parts)
        if self.cancelled:
            text = f"cancelled after {self.unit} {self.stopped_at or 0:,}: " + text
        if self.error:
            text = f"stopped after {self.unit} {self.stopped_at or 0:,} ({self.error}): " + text
        return text


class Source:
    """What the engine reads: an iterable of candidates with a unit and a progress
    total (0 when unknown, e.g. a pipe)."""

    unit = "line"
    kind = ""
    total = 0
    label = ""

    def __init__(self) -> None:
        self.dropped: Counter[str] = Counter()

    def __iter__(self) -> Iterator[Candidate]:  # pragma: no cover - abstract
        raise NotImplementedError


def check_text_value(name: str, v: str) -> None:
    """Text the store can hold: JSON allows lone surrogates (\\ud800), UTF-8 does not."""
    try:
        v.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValidationError(
            name, f"contains an unpaired surrogate (U+{ord(v[exc.start]):04X}), "
            "which is not valid Unicode text"
        ) from None


def check_vector(blob: bytes) -> None:
    import numpy as np

    if not blob or len(blob) % 4:
        raise ValidationError(
            "embedding", f"must be float32 values (a multiple of 4 bytes), got {len(blob)} bytes"
        )
    if not np.isfinite(np.frombuffer(blob, dtype="<f4")).all():
        raise ValidationError("embedding", "contains NaN or infinite values")


Row = tuple[int, dict[str, Any], frozenset[str]]  # (number, validated values, given keys)


def prepare(values: dict[str, Any]) -> tuple[dict[str, Any], frozenset[str]]:
    """The store's validation plus what only an import can get wrong.

    The vector's model (``embedding_model``, not a memory field) rides along in the row
    under MODEL_KEY until the batch's vector check takes it out.
    """
    values = dict(values)
    model = values.pop(MODEL_KEY, None)
    for k, v in values.items():
        if isinstance(v, str):
            check_text_value(k, v)
    # route_values: every insert gets a layer from its type (and "working" is refused),
    # exactly as MemoryStore.add_many does.
    row = route_values(validate_fields(values, creating=True))
    if row.get("superseded_by") is not None and row["superseded_by"] == row["id"]:
        raise ValidationError("superseded_by", "a memory cannot supersede itself")
    if row.get("embedding") is not None:
        check_vector(row["embedding"])
        row[MODEL_KEY] = model
    return row, frozenset(values)


class Importer:
    """Runs one import into ``store``.  Not reusable: it carries that import's state
    (waiting rows, the pending batch, the report)."""

    def __init__(
        self, store: Any, *, on_existing: OnExisting = "skip", note: str | None = None,
        batch_size: int = 500, keep_ids: bool = False,
    ) -> None:
        if on_existing not in ("skip", "update"):
            raise ValidationError("on_existing", f"must be skip or update, got {on_existing!r}")
        self.store = store
        self.on_existing = on_existing
        self.note = note
        self.batch_size = batch_size
        self.keep_ids = keep_ids  # the GUI wants the ids to refresh views; the CLI does not
        self.group = new_id()
        self.report = ImportReport()
        self._waiting: dict[str, list[Row]] = {}  # replacement id -> rows that name it
        self._pending: list[dict[str, Any]] = []
        self._spaces: dict[tuple[str, int], str | None] = {}  # (model, dim) -> refusal
        self._policy: SecretPolicy | None = None  # the store's, read in the first batch
        self._checks: list[tuple[int, Any]] = []  # recall check lines, added at the end

    # -- driving ------------------------------------------------------------------
    def run(
        self, source: Source, *, progress: Progress | None = None,
        cancelled: Cancelled | None = None,
    ) -> ImportReport:
        rep = self.report
        rep.unit = source.unit
        self._check_not_itself(source)
        batch: list[Row] = []
        seen_good = False
        last = 0
        try:
            for cand in source:
                if cancelled and cancelled():
                    rep.cancelled = True
                    break
                last = cand.number
                if cand.error is not None:
                    rep.add_bad(BadItem(cand.number, cand.error, cand.ref))
                elif cand.check is not None:
                    self._checks.append((cand.number, cand.check))
                    seen_good = True
                else:
                    values = cand.values or {}
                    try:
                        row, given = prepare(values)
                        batch.append((cand.number, row, given))
                        seen_good = True
                    except ValidationError as exc:
                        ref = values.get("id")
                        rep.add_bad(BadItem(cand.number, str(exc),
                                               ref if isinstance(ref, str) else None))
                if not seen_good and rep.bad_count >= GIVE_UP_AFTER:
                    first = rep.bad[0]
                    raise TransferError(
                        f"{source.label or 'the input'} does not look like memories in this "
                        f"format: its first {len(rep.bad)} {source.unit}s are all invalid "
                        f"({source.unit} {first.number}: {first.reason}). Nothing was imported."
                    )
                if len(batch) >= self.batch_size:
                    self._flush(batch, cand.number)
                    batch = []
                    if progress:
                        progress(cand.position, source.total)
            # A cancel still writes the lines already read and checked (at most one
            # batch), so "cancelled after line N" is exact.
            self._flush(batch, last)
            rep.stopped_at = last
            if not rep.cancelled:
                for rows in self._waiting.values():
                    for number, row, _ in rows:
                        rep.add_bad(BadItem(number, (
                            f"superseded_by: no memory with id {row['superseded_by']!r} in "
                            "the store or in the input"), row["id"]))
                self._waiting.clear()
                self._add_checks()
                rep.stopped_at = None
                if progress:
                    progress(source.total, source.total)
        except StoreOpenError as exc:  # locked, gone: say how far it got
            rep.error = str(exc)
        rep.dropped.update(source.dropped)
        rep.bad.sort(key=lambda b: b.number)
        rep.group_id = self.group if rep.changed else None
        if rep.changed:  # a large import can make the planner's statistics stale
            refresh_statistics(self.store)
        return rep

    def _add_checks(self) -> None:
        """The file's recall checks, in one transaction of the import's group (after
        the memories: a check names memories, never the other way)."""
        if not self._checks:
            return
        from memdesk.core.transfer import checks

        with self.store.write() as conn:
            added, skipped, _events = checks.add_in(conn, self._checks, self.group, self.note)
        self.report.checks_imported += added
        self.report.checks_skipped += skipped
        self._checks.clear()

    def _check_not_itself(self, source: Source) -> None:
        from pathlib import Path

        from memdesk.core.store.db import sqlite_path

        src, own = getattr(source, "path", None), sqlite_path(self.store.url)
        if src is not None and own is not None and Path(src).resolve() == own.resolve():
            raise TransferError(f"{src} is the store being imported into; nothing to do.")

    # -- one batch, one transaction ---------------------------------------------
    def _flush(self, batch: list[Row], through: int | None) -> None:
        if not batch:
            return

        def run() -> None:
            with self.store.write() as conn:
                if self._policy is None:
                    from memdesk.core.write.settings import secret_policy_in

                    self._policy = secret_policy_in(conn)
                work: list[Row] = self._vet_vectors(conn, batch)
                wanted = {r["id"] for _, r, _ in batch}
                wanted |= {r["superseded_by"] for _, r, _ in batch if r.get("superseded_by")}
                present = self._existing(conn, wanted)
                work.reverse()
                while work:
                    self._consider(conn, work.pop(), present, work)
                self._insert_pending(conn)

        rep = self.report
        saved = (rep.imported, rep.updated, rep.unchanged, rep.skipped, len(rep.bad),
                 len(rep.memory_ids), rep.bad_count, len(rep.new_ids))
        try:
            run()
        except BaseException:
            # The transaction rolled back: so do this batch's counts.
            rep.imported, rep.updated, rep.unchanged, rep.skipped = saved[:4]
            del rep.bad[saved[4]:]
            rep.bad_count = saved[6]
            del rep.memory_ids[saved[5]:]
            del rep.new_ids[saved[7]:]
            self._pending.clear()
            raise
        rep.stopped_at = through

    def _vet_vectors(self, conn: Connection, batch: list[Row]) -> list[Row]:
        """Keep a vector only if it comes from the model whose vectors this store holds
        (memdesk.core.write.embed: vectors of two models are not comparable).  A refused
        vector is dropped from its row, counted, and the memory imported without it."""
        from memdesk.core.write.embed import EmbeddingSpaceMismatch, check_space_in

        out: list[Row] = []
        for number, row, given in batch:
            model = row.pop(MODEL_KEY, None)
            vec = row.get("embedding")
            if vec is not None:
                key = (model or "", len(vec) // 4)
                if not model:
                    refusal: str | None = NO_MODEL
                elif key in self._spaces:
                    refusal = self._spaces[key]
                else:
                    try:
                        check_space_in(conn, model, key[1])
                        refusal = None
                    except EmbeddingSpaceMismatch:
                        refusal = (f"embedding (made by {model}, {key[1]} dims; this store's "
                                   "vectors come from another model)")
                    self._spaces[key] = refusal
                if refusal:
                    self.report.dropped[refusal] += 1
                    row["embedding"] = None
                    given = given - {"embedding"}
            out.append((number, row, given))
        return out

    @staticmethod
    def _existing(conn: Connection, ids: Iterable[str]) -> set[str]:
        ids = list(ids)
        found: set[str] = set()
        for i in range(0, len(ids), 900):
            found.update(conn.execute(select(M.id).where(M.id.in_(ids[i:i + 900]))).scalars())
        return found

    def _consider(self, conn: Connection, item: Row, present: set[str], work: list[Row]) -> None:
        row = item[1]
        rid = row["id"]
        if rid in present:
            if self.on_existing == "skip":
                self.report.skipped += 1
            else:
                self._insert_pending(conn)  # an earlier line of this batch may add it
                self._update(conn, item)
            return
        target = row.get("superseded_by")
        if target is not None and target not in present:
            self._waiting.setdefault(target, []).append(item)
            return
        self._pending.append(row)
        present.add(rid)
        released = self._waiting.pop(rid, [])
        if released:
            # Rows waiting from earlier batches were never looked up in this one.
            present |= self._existing(conn, [r["id"] for _, r, _ in released])
            work.extend(reversed(released))  # handled next, in input order

    def _insert_pending(self, conn: Connection) -> None:
        rows = self._pending
        if not rows:
            return
        self._pending = []
        held = [(r["id"], f) for r in rows if (f := self._secrets(r))]
        conn.execute(insert(MT), [{c: r.get(c) for c in COLUMNS if c != "embedding"}
                                  for r in rows])
        for rid, findings in held:
            record_reasons_in(conn, rid, findings)
        write_vectors_by_id_in(conn, [(r["id"], r["embedding"]) for r in rows
                                      if r.get("embedding") is not None])
        now = utcnow()
        base = dict(actor=ACTOR, at=now, group_id=self.group, note=self.note)
        adds, deletes = [], []
        for r in rows:
            logged = {k: v for k, v in r.items() if k not in ("embedding", "deleted_at")}
            adds.append(dict(base, memory_id=r["id"], action=acts.ADD.name, before="{}",
                             after=encode_values(logged)))
            if r.get("deleted_at") is not None:
                # Logged as add-then-delete: undoing an add expects deleted_at unset, and
                # the group is undone newest first, so the delete is undone before the add.
                deletes.append(dict(base, memory_id=r["id"], action=acts.DELETE.name,
                                    before=encode_values({"deleted_at": None}),
                                    after=encode_values({"deleted_at": r["deleted_at"]})))
        conn.execute(insert(ET), adds)
        if deletes:
            conn.execute(insert(ET), deletes)
        self.report.imported += len(rows)
        if self.keep_ids:
            self.report.memory_ids.extend(r["id"] for r in rows)
            self.report.new_ids.extend(r["id"] for r in rows)

    def _secrets(self, row: dict[str, Any]) -> list[Any]:
        """The secrets lane on one row about to be written: what the policy masks is
        masked in place (a vector made from the unmasked text is dropped with it), what
        it holds is marked held; the findings to record (none: not held)."""
        policy = self._policy or SecretPolicy()
        masked, screened = mask_fields(row, policy)
        if screened.masked:
            row.update({k: masked[k] for k in masked if masked[k] != row.get(k)})
            self.report.secrets_masked.update(screened.masked_categories)
            if row.get("embedding") is not None:
                row["embedding"] = None
                self.report.dropped["embedding (made from text the secrets lane masked)"] += 1
        findings = secret_check(policy, str(row.get("text", "")))(row, [])
        if findings and row.get("deleted_at") is None:
            row["quarantined_at"] = row.get("quarantined_at") or utcnow()
            self.report.secrets_held.update(
                f.rule_id.removeprefix("secret.") for f in findings)
            return findings
        return []

    def _update(self, conn: Connection, item: Row) -> None:
        number, row, given = item
        rid = row["id"]
        current = self.store.get(rid, conn, lock=True)
        findings = self._secrets(row) if "text" in given or "value" in given else []
        if findings:
            given = given | {"quarantined_at"}
        changes = {k: row[k] for k in given
                   if k not in ("id", "embedding") and getattr(current, k) != row[k]}
        embedding = current.embedding
        if "embedding" in given:
            embedding = row["embedding"]
        elif "text" in changes:
            embedding = None  # a vector of the old text would mislead retrieval
        if not changes and embedding == current.embedding:
            self.report.unchanged += 1
            return
        retiring = sorted(k for k in ("superseded_by", "valid_until", "deleted_at")
                          if changes.get(k) is not None and getattr(current, k) is None)
        if retiring and curated_among(conn, [rid]):
            # Curated memories are the operator's: a file cannot supersede, expire or
            # delete one (core/guard/curated.py); the operator does it in the desk.
            self.report.add_bad(BadItem(number, (
                f"memory {rid} was curated by an operator; an import does not set "
                f"{', '.join(retiring)} on it (change it in the desk)"), rid))
            return
        try:
            if changes:
                self.store.apply_in(conn, rid, changes, actor=ACTOR, action=acts.IMPORT,
                                    group_id=self.group, note=self.note)
        except ValidationError as exc:
            self.report.add_bad(BadItem(number, str(exc), rid))
            return
        if findings and "quarantined_at" in changes:
            record_reasons_in(conn, rid, findings)
        if embedding != current.embedding or "text" in changes:
            # Vectors are derived data and never in the audit log (as for adds); a text
            # change has just cleared the old one (MemoryStore.apply_in).
            if embedding is None:
                clear_vectors_in(conn, [current.seq])
            else:
                write_vectors_in(conn, [(current.seq, embedding)])
        self.report.updated += 1
        if self.keep_ids:
            self.report.memory_ids.append(rid)
