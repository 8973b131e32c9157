"""DeltaMemory: the service the CLI and GUI call (the delta-memory design's
``runtime.delta_memory``).

It composes memory sets from the persisted source configuration (the ``database``
source reads the store itself), saves snapshots with the diff from the goal's previous
snapshot, serves the drift review queue and applies review actions — each audited in
``delta_events`` and undoable.  Results that change something are ``Changes`` whose
kinds (SOURCES, SNAPSHOTS, REVIEWS, SETTINGS) say what changed, so views can refresh;
their ``group_id`` is what ``memdesk.core.undo.generic.undo_group`` undoes.

This is the shape every core service has: a façade over one open store, cheap to
construct, whose reads use ``store.read()`` and whose actions each run in one
``store.write()`` transaction and return ``Changes`` (or a result carrying them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

from memdesk.core.delta import audit
from memdesk.core.delta import config as cfgmod
from memdesk.core.delta import snapshots as snap
from memdesk.core.delta.compose import build_memory_set
from memdesk.core.delta.contracts import Candidate, DeltaConfig, DeltaDiff, MemorySet, SourceConfig
from memdesk.core.delta.decision import DAMPEN_STEP
from memdesk.core.delta.diff import diff as diff_sets
from memdesk.core.delta.sources import database_candidates
from memdesk.core.errors import NotFoundError, UndoConflictError, ValidationError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changed, Changes
from memdesk.core.taxonomy import check_optional_str

REVIEW_ACTIONS = {
    "accept": "accepted",
    "dampen": "dampened",
    "reject": "rejected",
    "investigated": "investigated",
}
MAX_NOTE = 10_000


@dataclass(frozen=True)
class Saved:
    """A saved snapshot and the diff from its goal's previous snapshot (if any)."""

    memory_set: MemorySet
    diff: DeltaDiff | None
    diff_id: int | None

    @property
    def changes(self) -> Changes:
        return Changes(kinds=Changed.SNAPSHOTS, diff_ids=(self.diff_id,) if self.diff_id else ())


def _changes(kinds: Changed, *, group: str | None = None, sources: tuple[str, ...] = (),
             diff_ids: tuple[int, ...] = (), action: acts.Action | None = None) -> Changes:
    return Changes(group_id=group, kinds=kinds, sources=sources, diff_ids=diff_ids,
                   action=action)


class DeltaMemory:
    """Delta memory over one open store.  Cheap to construct."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    # -- configuration ----------------------------------------------------------
    def config(self) -> DeltaConfig:
        with self.store.read() as conn:
            return cfgmod.load_config(conn)

    def set_source(self, name: str, *, actor: str = "operator", note: str | None = None,
                   **fields: Any) -> Changes:
        group = new_id()
        with self.store.write() as conn:
            changed = cfgmod.update_source(conn, name, fields, group, actor=actor, note=note)
        return _changes(Changed.SOURCES if changed else Changed.NOTHING, sources=(name,),
                        group=group if changed else None, action=acts.SOURCE_EDIT)

    def add_source(self, source: SourceConfig, *, actor: str = "operator") -> Changes:
        group = new_id()
        with self.store.write() as conn:
            cfgmod.add_source(conn, source, group, actor=actor)
        return _changes(Changed.SOURCES, sources=(source.name,), group=group,
                        action=acts.SOURCE_ADD)

    def normalize_weights(self, *, actor: str = "operator") -> Changes:
        """Persist normalised weights (enabled sources sum to 1) as one undoable group."""
        group = new_id()
        with self.store.write() as conn:
            weights = cfgmod.normalized(cfgmod.load_config(conn))
            for name, w in weights.items():
                cfgmod.update_source(conn, name, {"weight": w}, group,
                                     action=acts.SOURCE_NORMALIZE.name, actor=actor)
        return _changes(Changed.SOURCES, sources=tuple(weights), group=group,
                        action=acts.SOURCE_NORMALIZE)

    def set_setting(self, key: str, value: Any) -> Changes:
        with self.store.write() as conn:
            cfgmod.set_setting(conn, key, value)
        return _changes(Changed.SETTINGS)

    # -- composing and saving ---------------------------------------------------
    def build(
        self,
        goal: str,
        query: str | None,
        candidates: Iterable[Candidate] | Mapping[str, Iterable[Candidate]] = (),
        *,
        use_database: bool = True,
        user_id: str | None = None,
        label: str = "",
        created_at: datetime | None = None,
        config: DeltaConfig | None = None,
    ) -> MemorySet:
        """Compose a memory set; enabled database-type sources search the store."""
        config = config or self.config()
        if isinstance(candidates, Mapping):
            flat = [c for cs in candidates.values() for c in cs]
        else:
            flat = list(candidates)
        if use_database and query:
            for s in config.sources:
                if s.enabled and s.source_type == "database_memory":
                    flat.extend(self.candidates(query, source=s.name, limit=s.top_k or 10,
                                                user_id=user_id))
        return build_memory_set(goal, query, flat, config, label=label, created_at=created_at)

    def candidates(self, query: str, *, source: str = "database", limit: int = 10,
                   user_id: str | None = None) -> list[Candidate]:
        """What the store's ``database`` source offers for ``query``: up to ``limit``
        active memories (one user's, if given) that share words with it, as candidates
        of ``source``, the most relevant and confident first.  Full-text search for all
        the words; when that finds fewer, single words widen the net."""
        return database_candidates(self.store, query, source=source, limit=limit,
                                   user_id=user_id)

    def save(self, ms: MemorySet) -> Saved:
        """Store a snapshot and the diff from the goal's previous snapshot."""
        threshold = self.config().dominance_threshold

        with self.store.write() as conn:
            if conn.execute(select(snap.SETS.c.id).where(snap.SETS.c.id == ms.id)).first():
                raise ValidationError("snapshot", f"snapshot {ms.id} exists already")
            prev_id = snap.previous_id(conn, ms.goal, ms.created_at)
            snap.insert_sets(conn, [ms])
            d = None
            diff_id = None
            if prev_id is not None:
                prev = snap.load_set(conn, prev_id)
                d = diff_sets(prev, ms, dominance_threshold=threshold)
                res = conn.execute(
                    snap.DIFFS.insert().values(**snap.diff_row(ms.goal, ms.created_at, d))
                )
                key = res.inserted_primary_key
                assert key is not None  # an INSERT into a table with a primary key
                diff_id = int(key[0])
        return Saved(ms, d, diff_id)

    def snapshot(self, goal: str, query: str | None,
                 candidates: Iterable[Candidate] | Mapping[str, Iterable[Candidate]] = (),
                 **kwargs: Any) -> Saved:
        return self.save(self.build(goal, query, candidates, **kwargs))

    def save_series(self, sets: Sequence[MemorySet], dominance_threshold: float) -> int:
        """Bulk-save a time-ordered series (one goal or several) with consecutive diffs.

        For generators and imports: one transaction, diffs computed in memory.
        Returns the number of diffs written.
        """
        last: dict[str, MemorySet] = {}
        rows = []
        for ms in sorted(sets, key=lambda s: s.created_at):
            prev = last.get(ms.goal)
            if prev is not None:
                d = diff_sets(prev, ms, dominance_threshold=dominance_threshold)
                rows.append(snap.diff_row(ms.goal, ms.created_at, d))
            last[ms.goal] = ms

        with self.store.write() as conn:
            snap.insert_sets(conn, list(sets))
            snap.insert_diffs(conn, rows)
        return len(rows)

    # -- reading ------------------------------------------------------------------
    def resolve(self, ref: str) -> str:
        with self.store.read() as conn:
            return snap.resolve(conn, ref)

    def load(self, ref: str) -> MemorySet:
        with self.store.read() as conn:
            return snap.load_set(conn, snap.resolve(conn, ref))

    def diff(self, before_ref: str, after_ref: str) -> DeltaDiff:
        threshold = self.config().dominance_threshold
        with self.store.read() as conn:
            a = snap.load_set(conn, snap.resolve(conn, before_ref))
            b = snap.load_set(conn, snap.resolve(conn, after_ref))
        return diff_sets(a, b, dominance_threshold=threshold)

    def stored_diff(self, diff_id: int) -> snap.DiffRecord:
        with self.store.read() as conn:
            return snap.diff_record(conn, diff_id)

    def snapshots(self, goal: str | None = None, limit: int = 100,
                  offset: int = 0) -> list[snap.SnapshotInfo]:
        with self.store.read() as conn:
            return snap.list_snapshots(conn, goal=goal, limit=limit, offset=offset)

    def goals(self) -> list[tuple[str, int, datetime]]:
        with self.store.read() as conn:
            return snap.goals(conn)

    def series(self, goal: str) -> snap.SnapshotSeries:
        with self.store.read() as conn:
            return snap.series(conn, goal)

    def queue(self, *, goal: str | None = None, pending_only: bool = True,
              limit: int = 5000) -> list[snap.DiffRecord]:
        """The drift review queue: flagged diffs, newest first (pending ones only, or all)."""
        with self.store.read() as conn:
            return snap.diff_records(conn, goal=goal, pending_only=pending_only, limit=limit)

    def diffs(self, *, goal: str | None = None, limit: int = 5000) -> list[snap.DiffRecord]:
        """Every stored diff (healthy ones too), newest first by time."""
        with self.store.read() as conn:
            return snap.diff_records(conn, goal=goal, flagged_only=False, limit=limit)

    def events(self, limit: int = 200) -> list[audit.DeltaEventRecord]:
        with self.store.read() as conn:
            return audit.events(conn, limit=limit)

    # -- reviewing ------------------------------------------------------------------
    def review(self, diff_id: int, action: str, *, note: str | None = None,
               actor: str = "operator") -> Changes:
        """Accept, dampen, reject or mark investigated one flagged diff (one audited group).

        Dampen applies the recommended −0.15 weight change to the diff's primary cause
        source (never below 0) in the same transaction.
        """
        if action not in REVIEW_ACTIONS:
            raise ValidationError("action", f"expected one of {', '.join(REVIEW_ACTIONS)}")
        note = check_optional_str("note", note, MAX_NOTE)
        if action == "investigated" and not note:
            raise ValidationError("note", "say what the investigation found")
        group = new_id()

        sources: tuple[str, ...] = ()
        with self.store.write() as conn:
            rec = snap.diff_record(conn, diff_id)
            if rec.review == "none":
                raise ValidationError("review", f"diff {diff_id} is healthy, not flagged")
            if rec.review != "pending":
                raise ValidationError(
                    "review", f"diff {diff_id} was {rec.review}; undo that review first"
                )
            if action == "dampen":
                sources = (self._dampen(conn, rec, group, actor),)
            after = {"review": REVIEW_ACTIONS[action], "review_note": note,
                     "reviewed_at": utcnow()}
            before = {"review": rec.review, "review_note": rec.review_note,
                      "reviewed_at": rec.reviewed_at}
            audit.apply(conn, "review", str(diff_id), after)
            audit.log(conn, "review", str(diff_id), action, before, after, group,
                      actor=actor, note=note)
        kinds = Changed.REVIEWS | (Changed.SOURCES if sources else Changed.NOTHING)
        return _changes(kinds, diff_ids=(diff_id,), sources=sources, group=group,
                        action=acts.lookup(acts.Stream.DELTA, action))

    def _dampen(self, conn: Connection, rec: snap.DiffRecord, group: str, actor: str) -> str:
        cause = rec.primary_cause
        if not cause:
            raise ValidationError("dampen", "this change has no primary cause source to dampen")
        adjust = rec.decision.get("recommended_weight_adjustments", {}).get(cause, DAMPEN_STEP)
        row = conn.execute(select(cfgmod.SRC).where(cfgmod.SRC.c.name == cause)).first()
        if row is None:
            raise NotFoundError(f"The source {cause!r} is no longer configured")
        new_weight = max(0.0, float(row.weight) + float(adjust))
        cfgmod.update_source(conn, cause, {"weight": new_weight}, group,
                             action=acts.REVIEW_DAMPEN.name,
                             actor=actor, note=f"review of diff {rec.id}")
        return cause

    def last_review_group(self, diff_id: int) -> str | None:
        """The newest review group of this diff that has not been undone."""
        with self.store.read() as conn:
            for ev in audit.events(conn, kind="review", target=str(diff_id), limit=50):
                if ev.action != acts.UNDO_DELTA.name and ev.undone_by is None:
                    return ev.group_id
        return None

    def undo(self, group_id: str, *, actor: str = "operator") -> Changes:
        """Undo one delta-memory action group (the result's group is the redo).  Delta
        groups hold only delta rows: this stream's own handler undoes them."""
        redo = new_id()
        with self.store.write() as conn:
            done = audit.undo_group_in(conn, group_id, actor, redo)
        if done is None:
            raise NotFoundError(f"No action group {group_id!r}")
        return Changes(group_id=redo, kinds=done.kinds, sources=done.sources,
                       diff_ids=done.diff_ids, action=acts.UNDO_DELTA)

    def undo_review(self, diff_id: int, *, actor: str = "operator") -> Changes:
        group = self.last_review_group(diff_id)
        if group is None:
            raise UndoConflictError(f"Diff {diff_id} has no review to undo.")
        return self.undo(group, actor=actor)


def with_weight(config: DeltaConfig, name: str, weight: float) -> DeltaConfig:
    """A copy of ``config`` with one source's weight changed (for what-if composing)."""
    return replace(config, sources=tuple(
        replace(s, weight=weight) if s.name == name else s for s in config.sources
    ))
