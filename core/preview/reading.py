"""The preview's streaming pass: every item of the file read once, in order, checked as
the importer checks it (its own ``prepare``: the store's validation and what only a
file gets wrong), looked up in the store by id, screened by the guard, and kept in the
scratch file with a vector, in batches of ``BATCH`` items.

Each batch is one short read of the store (ids and the guard's store rules), so agents
writing meanwhile are not held up; vectors are made between reads, by the embedder in
batches (``encode_unique``: each distinct text once), or taken from the file when they
come from the model the store's vectors come from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from memdesk.core import embeddings
from memdesk.core.errors import ValidationError
from memdesk.core.preview.report import ImportPreview, Item
from memdesk.core.preview.scratch import Scratch
from memdesk.core.preview.verdicts import Verdict, judge
from memdesk.core.store.episodes import EPISODE_TYPE
from memdesk.core.store.models import Memory
from memdesk.core.store.query import Status, status_of
from memdesk.core.store.vectors import any_vector_size
from memdesk.core.transfer.importer import GIVE_UP_AFTER, MODEL_KEY, Source, TransferError, prepare
from memdesk.core.write.embed import encode_unique, recorded_space

M = Memory.__table__.c
BATCH = 500  # items per read of the store (the importer writes 500 per transaction)
VERDICT_CACHE = 20_000  # distinct memories whose guard verdicts are remembered
Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]


@dataclass
class Vectors:
    """Which vectors the comparison can use: those of the store's model (``space``),
    from the file or from our embedder when it is that model; ``off`` says why the
    file's items get none (then only equal texts are found as duplicates)."""

    space: tuple[str, int] | None
    embedder: Any
    off: str | None = None
    from_file: int = 0
    computed: int = 0

    @classmethod
    def for_store(cls, store: Any, embedder: Any) -> Vectors:
        with store.read() as conn:
            space = recorded_space(conn)
            size = None if space is not None else any_vector_size(conn)
        if space is not None:
            return cls((space.model, space.dim), embedder)
        if size is not None:  # vectors of a model nobody recorded: not comparable
            return cls(None, embedder, off=(
                "the store's vectors come from an unrecorded model, so none can be "
                "compared with; near duplicates were not looked for (equal texts were)"))
        return cls((embedder.name, embedder.dim), embedder)

    @property
    def can_encode(self) -> bool:
        return self.off is None and self.space == (self.embedder.name, self.embedder.dim)

    def usable(self, row: dict[str, Any]) -> bytes | None:
        """The file's vector of ``row`` when it is in the store's space."""
        blob = row.get("embedding")
        model = row.get(MODEL_KEY)
        if blob is None or model is None or self.space is None:
            return None
        return blob if (model, len(blob) // 4) == self.space else None

    def encode(self, texts: list[str], cancelled: Cancelled) -> dict[str, bytes]:
        """Vectors of ``texts`` (an empty dict once the model is found missing: the
        preview goes on, degraded, and says so)."""
        if not texts or not self.can_encode:
            return {}
        try:
            out = encode_unique(self.embedder, texts, cancelled=cancelled)
        except embeddings.EmbeddingsUnavailable as exc:
            self.off = f"{exc}; near duplicates were not looked for (equal texts were)"
            return {}
        except Exception as exc:  # a broken model must not end the preview
            self.off = (f"the embedding model failed ({type(exc).__name__}: {exc}); near "
                        "duplicates were not looked for (equal texts were)")
            return {}
        self.computed += len(out)
        return out

    def describe(self) -> str:
        if self.off:
            return self.off
        parts = []
        if self.from_file:
            parts.append(f"{self.from_file:,} taken from the file")
        if self.computed:
            parts.append(f"{self.computed:,} distinct texts embedded")
        model = self.space[0] if self.space else "?"
        return (", ".join(parts) or "none needed") + f" ({model})"


def compared(row: dict[str, Any]) -> bool:
    """Whether the duplicates and contradictions scans would see this memory once
    imported: active (the store's one definition, ``status_of``); episodes are left to
    the contradictions scan alone, as in the store."""
    return status_of(row.get("deleted_at"), row.get("superseded_by"),
                     row.get("valid_until"), row.get("quarantined_at"),
                     row.get("framing")) is Status.ACTIVE


Row = tuple[int, dict[str, Any]]  # (number, validated values)


class Reader:
    """One streaming pass over ``source`` into ``scratch``, counting into ``preview``."""

    def __init__(self, store: Any, scratch: Scratch, preview: ImportPreview, vectors: Vectors,
                 *, on_existing: str = "skip") -> None:
        self.store, self.scratch, self.preview = store, scratch, preview
        self.vectors, self.on_existing = vectors, on_existing
        self._verdicts: dict[tuple[Any, ...], Verdict] = {}

    def run(self, source: Source, progress: Progress | None, cancelled: Cancelled) -> None:
        p = self.preview
        p.unit, p.kind = source.unit, source.kind
        batch: list[Row] = []
        seen_good = False
        for cand in source:
            if cancelled():
                p.cancelled = True
                break
            p.items += 1
            p.stopped_at = cand.number
            if cand.error is not None:
                p.add_bad(Item(cand.number, cand.ref, cand.error))
            else:
                values = cand.values or {}
                try:
                    row, _given = prepare(values)
                    batch.append((cand.number, row))
                    seen_good = True
                except ValidationError as exc:
                    ref = values.get("id")
                    p.add_bad(Item(cand.number, ref if isinstance(ref, str) else None,
                                   str(exc)))
            if not seen_good and p.bad_count >= GIVE_UP_AFTER:
                first = p.bad[0]
                raise TransferError(
                    f"{source.label or 'the input'} does not look like memories in this "
                    f"format: its first {p.bad_count} {source.unit}s are all invalid "
                    f"({source.unit} {first.number}: {first.reason}). Nothing would be "
                    "imported.")
            if len(batch) >= BATCH:
                self._flush(batch, cancelled)
                batch = []
                if progress:
                    progress(cand.position, source.total)
        self._flush(batch, cancelled)
        p.dropped.update(source.dropped)
        if not p.cancelled:
            self._dangling()

    def _flush(self, batch: list[Row], cancelled: Cancelled) -> None:
        if not batch:
            return
        p = self.preview
        keep: list[tuple[object, ...]] = []
        to_embed: list[tuple[int, str]] = []
        in_batch: set[str] = set()
        with self.store.read() as conn:
            present = _existing(conn, [r["id"] for _, r in batch])
            for number, row in batch:
                rid = row["id"]
                if rid in present or rid in in_batch or self.scratch.has_id(rid):
                    if rid not in present:
                        p.repeated_in_file += 1
                    elif self.on_existing == "update":
                        p.would_update += 1
                        self._screen(number, row, conn, new=False)
                    else:
                        p.already_in_store += 1
                    continue
                in_batch.add(rid)
                p.would_add += 1
                self._screen(number, row, conn)
                is_compared = compared(row)
                vector = self.vectors.usable(row) if is_compared else None
                if vector is not None:
                    self.vectors.from_file += 1
                elif is_compared and row["type"] != EPISODE_TYPE:
                    to_embed.append((number, row["text"]))
                keep.append((number, rid, row["user_id"], row["text"], row["type"],
                             row.get("entity"), row.get("attribute"), row.get("value"),
                             row["confidence"], row["created_at"].isoformat(sep=" "),
                             row.get("superseded_by"), is_compared, vector))
        self.scratch.add(keep)
        found = self.vectors.encode([t for _, t in to_embed], cancelled)
        self.scratch.set_vectors((found[t], n) for n, t in to_embed if t in found)

    def _screen(self, number: int, row: dict[str, Any], conn: Connection, *,
                new: bool = True) -> None:
        # A file restates itself (agents repeat their sentences): each distinct new
        # memory is screened once.  The store's rules compare with other rows only, so
        # a new item's verdict does not depend on its id; an update's does.
        key = (row["text"], row["user_id"], row.get("entity"), row.get("attribute"),
               row.get("value"))
        verdict = self._verdicts.get(key) if new else None
        if verdict is None:
            verdict = judge(row, conn)
            if new:
                if len(self._verdicts) >= VERDICT_CACHE:
                    self._verdicts.clear()
                self._verdicts[key] = verdict
        if verdict.held or verdict.secret:
            self.preview.add_flagged(Item(number, row["id"], verdict.reason, verdict.rules),
                                     verdict.secret, verdict.held)

    def _dangling(self) -> None:
        """Items whose replacement is neither in the file nor in the store: the importer
        reports them as bad and writes nothing of them."""
        rows = self.scratch.dangling()
        if not rows:
            return
        with self.store.read() as conn:
            present = _existing(conn, {r[2] for r in rows})
        gone = [r for r in rows if r[2] not in present]
        for number, rid, target in gone:
            self.preview.add_bad(Item(number, rid, (
                f"superseded_by: no memory with id {target!r} in the store or in the input")))
        self.preview.would_add -= len(gone)
        self.scratch.drop(r[0] for r in gone)
        self.preview.bad.sort(key=lambda b: b.number)


def _existing(conn: Connection, ids: Any) -> set[str]:
    ids = list(ids)
    found: set[str] = set()
    for i in range(0, len(ids), 900):
        found.update(conn.execute(select(M.id).where(M.id.in_(ids[i:i + 900]))).scalars())
    return found
