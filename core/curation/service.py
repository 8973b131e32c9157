"""The curation services, in the one shape every core service has (like ``DeltaMemory``):
a façade over one open store, cheap to construct, whose reads return plain values and
whose actions each run in one write transaction and return ``Changes`` (or a result
that carries them in ``.changes``, with an audit group the generic undo reverts).

These classes are the public surface of curation: the sweep and contradictions views,
the CLI, the benchmarks and the tests call them.  The functions in ``sweep``,
``contradictions`` and ``contradictions_resolve`` are their implementation (private);
the record types those modules define (``SweepState``, ``GroupDetail``, ``Resolution``…)
are what the façades return.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Sequence
from typing import Any

from memdesk.core.curation import calibration as K
from memdesk.core.curation import contradictions as C
from memdesk.core.curation import contradictions_resolve as CR
from memdesk.core.curation import sweep as S
from memdesk.core.curation.estimate import BandEstimate, band_estimate
from memdesk.core.curation.guided import GuidedModel
from memdesk.core.curation.guided import train as train_guided
from memdesk.core.curation.learning import Guidance, guidance
from memdesk.core.curation.mixing import PickInfo, picks_of
from memdesk.core.curation.models import Sweep
from memdesk.core.curation.sampling import check_band
from memdesk.core.errors import NotFoundError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.prefixes import action_group_id, resolve_among, resolve_id
from memdesk.core.store.records import Changes, MemoryRecord


class Sweeps:
    """Revaluation sweeps over one store: start, review one item at a time, report.

    A sweep samples memories uniformly from an importance band; each decision
    (``revalue``, ``keep``, ``skip``) is stored at once and audited, so a sweep can be
    paused, resumed in another session and undone decision by decision.
    """

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    # -- starting and reading ------------------------------------------------------
    def start(self, band: Sequence[float] = S.DEFAULT_BAND, n: int = S.DEFAULT_N, *,
              user: str | None = None, type: str | None = None, seed: int | None = None,
              actor: str = "operator", note: str | None = None,
              guided: float = 0.0) -> S.SweepState:
        """Sample and store a new sweep of up to ``n`` active memories whose importance
        lies in ``band`` (optionally one user's, one type's); ``seed`` reproduces the
        draw.  ``guided``: the share of items the guided-sweep model picks (0: all
        uniform; with no model yet the sweep is uniform).  The state's ``changes`` say
        a sweep was added.  An empty band or a bad argument is refused with a message."""
        return S._start(self.store, band, n, user, type, seed, actor=actor, note=note,
                        guided=guided)

    def get(self, sweep_id: str) -> S.SweepState:
        """A sweep and its items as stored (a decision undone since counts as not made)."""
        return S._get(self.store, sweep_id)

    def resolve(self, ref: str) -> str:
        """The sweep id ``ref`` names: the id or a unique prefix of it."""
        with self.store.read() as conn:
            return resolve_id(conn, Sweep.__table__.c.id, ref, "sweep")

    def list(self, *, unfinished: bool = False, limit: int = 100) -> list[S.SweepSummary]:
        """Sweeps, newest first, with their progress (``unfinished``: only open ones)."""
        return S._list(self.store, unfinished=unfinished, limit=limit)

    def finished_by(self, group_id: str) -> tuple[str, tuple[str, ...]] | None:
        """When the decision audited under ``group_id`` left its sweep finished: the
        sweep's id and the audit groups of all its standing decisions, newest first
        (what undoing the whole sweep undoes; the desk's recall checks run then).
        None for any other group."""
        from sqlalchemy import select

        with self.store.read() as conn:
            sweep_id = conn.execute(select(S.I.sweep_id).where(S.I.event_id.in_(
                select(S.E.id).where(S.E.group_id == group_id))).limit(1)).scalar()
            if sweep_id is None:
                return None
            state = S._load(conn, sweep_id)
            if not state.finished:
                return None
            events = [it.event_id for it in state.items if it.event_id is not None]
            groups = conn.execute(select(S.E.group_id).where(S.E.id.in_(events))
                                  .order_by(S.E.id.desc())).scalars()
            return sweep_id, tuple(dict.fromkeys(g for g in groups if g))

    def context(self, item: S.SweepItemState) -> S.ItemContext:
        """What the reviewer sees for one item: the memory (None when it no longer
        exists), its session neighbours and the contemplative hint."""
        return S._item_context(self.store, item)

    def neighbours(self, memory: MemoryRecord,
                   limit: int = 10) -> builtins.list[MemoryRecord]:
        """Up to ``limit`` other memories of the same user and source session, the
        closest in time, in time order (none when the memory has no session)."""
        return S._session_neighbours(self.store, memory, limit)

    def report(self, sweep_id: str) -> S.SweepReport:
        """The outcome: raised / lowered / kept / skipped counts and the importance
        histogram before and after the decisions."""
        return S._report(self.store, sweep_id)

    # -- deciding ------------------------------------------------------------------
    def decide(self, sweep_id: str, pos: int, decision: str, *,
               importance: float | None = None, note: str | None = None,
               actor: str = "operator") -> S.SweepStep:
        """Record the decision on item ``pos``: ``revalue`` to ``importance``, ``keep``
        or ``skip``.  One audited group (the step's ``changes``); a revalue to the
        current importance is recorded as a keep.  Refused when the item is decided."""
        return S._decide(self.store, sweep_id, pos, decision, importance=importance,
                         note=note, actor=actor)

    def undo_decision(self, sweep_id: str, pos: int | None = None, *,
                      actor: str = "operator") -> S.SweepStep:
        """Undo the latest decision (or item ``pos``'s): importance restored, the item
        undecided again."""
        return S._undo_decision(self.store, sweep_id, pos, actor=actor)

    # -- learning from the decisions (estimate, guided sweeps) -------------------------
    def estimate(self, band: Sequence[float] | None = None) -> BandEstimate:
        """The share of the band an operator would raise/lower, with 95 % intervals."""
        return band_estimate(self.store, None if band is None else check_band(band))

    def picks(self, sweep_id: str) -> dict[int, PickInfo]:
        """How each item was picked: uniform (inclusion probability) or guided (why)."""
        return picks_of(self.store, sweep_id)

    def guidance(self) -> Guidance:
        """The guided-sweep model in force, or why sweeps are still uniform."""
        return guidance(self.store)

    def train(self) -> GuidedModel:
        """Train the guided-sweep model on every standing decision (ColdStart: too few).
        Seconds on thousands of decisions: run it off the GUI thread."""
        return train_guided(self.store)


class Contradictions:
    """The contradictions queue over one store: find groups, load one, resolve it.

    A group is one user's active memories with the same entity and attribute whose
    values differ.  Every resolution is one audited group (``Resolution.changes``) that
    :meth:`undo` or the generic undo reverts; a resolution of a group that changed
    since it was loaded is refused (``StaleGroupError``) and changes nothing.
    """

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    # -- reading -------------------------------------------------------------------
    def find(self, *, user: str | None = None, include_dismissed: bool = False,
             limit: int | None = None) -> list[C.ContradictionGroup]:
        """Every open group, corrections first then newest activity first; groups
        dismissed by "keep all" are left out unless ``include_dismissed``."""
        return C._find(self.store, user=user, include_dismissed=include_dismissed,
                       limit=limit)

    def find_with(self, user: str, extra: Iterable[tuple[Any, ...]], *,
                  in_store: bool = True) -> list[C.ContradictionGroup]:
        """The groups ``extra`` (memories not in the store yet, e.g. an import's) would
        be in, with ``user``'s active memories and each other (``C._find_with``)."""
        return C._find_with(self.store, user, extra, in_store=in_store)

    def group(self, ref: str) -> C.ContradictionGroup:
        """A current group (dismissed ones included) by its id as ``contradictions list``
        prints it, or a unique prefix of that id."""
        groups = {g.id: g for g in self.find(include_dismissed=True)}
        try:
            return groups[resolve_among(groups, ref, "contradiction group")]
        except NotFoundError:
            raise NotFoundError(f"No open contradiction group {ref!r}") from None

    def load(self, key: C.Key) -> C.GroupDetail:
        """A group's current active members, one card per value, and the suggested
        resolution with its reason (None when fewer than two values are left)."""
        return C._load(self.store, key)

    # -- resolving -----------------------------------------------------------------
    def keep(self, group: C.GroupDetail, winner_id: str, *, note: str | None = None,
             actor: str = "operator") -> CR.Resolution:
        """Keep ``winner_id``'s value: every member with another value is superseded."""
        return CR._keep(self.store, group, winner_id, note=note, actor=actor)

    def suggested(self, group: C.GroupDetail, *, note: str | None = None,
                  actor: str = "operator") -> CR.Resolution:
        """Keep the suggested winner (refused when the group has no suggestion)."""
        return CR._suggested(self.store, group, note=note, actor=actor)

    def keep_all(self, group: C.GroupDetail, *, note: str | None = None,
                 actor: str = "operator") -> CR.Resolution:
        """"Keep both": the values may coexist.  Nothing about the memories changes; the
        group is dismissed until a new member joins it."""
        return CR._keep_all(self.store, group, note=note, actor=actor)

    def edit(self, group: C.GroupDetail, winner_id: str, *, value: str | None = None,
             text_: str | None = None, confidence: float | None = None,
             note: str | None = None, actor: str = "operator") -> CR.Resolution:
        """Edit the winner (value, text, confidence) then keep it, as one group."""
        return CR._edit(self.store, group, winner_id, value=value, text_=text_,
                        confidence=confidence, note=note, actor=actor)

    def merge(self, group: C.GroupDetail, *, text_: str, value: str,
              note: str | None = None, actor: str = "operator",
              **overrides: Any) -> CR.Resolution:
        """A new memory with ``text_`` and ``value`` (other fields from the newest
        member, importance and confidence the members' highest, or ``overrides``)
        supersedes every member; the result's ``winner_id`` is the new memory."""
        return CR._merge(self.store, group, text_=text_, value=value, note=note,
                         actor=actor, **overrides)

    def undo(self, group_id: str, *, actor: str = "operator") -> Changes:
        """Undo every change of one resolution (its ``group_id``, or a unique prefix);
        undoing a "keep all" lifts the dismissal."""
        with self.store.read() as conn:
            group_id = action_group_id(conn, group_id)
        changes: Changes = self.store.undo_group(group_id, actor=actor)
        return changes


class Calibrations:
    """Importance calibration learned from sweep decisions: suggestions for memories,
    auto-apply per source, and applying (one audited, undoable group per batch)."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def train(self) -> K.Calibrator:
        return K.train(self.store)

    def current(self) -> K.Calibrator | None:
        with self.store.read() as conn:
            return K.latest(conn)

    def suggest(self, memory_ids: Sequence[str]) -> list[K.Suggestion]:
        return K.suggest(self.store, list(memory_ids))

    def set_auto_apply(self, source: str, on: bool, *, actor: str = "operator") -> Changes:
        return K.set_auto_apply(self.store, source, on, actor=actor)

    def auto_sources(self) -> dict[str, Any]:
        return K.auto_sources(self.store)

    def apply(self, memory_ids: Sequence[str], *, actor: str = "operator") -> K.Applied:
        return K.apply(self.store, list(memory_ids), actor=actor)

    def apply_pending(self, *, actor: str = "worker") -> K.Applied:
        return K.apply_pending(self.store, actor=actor)

    def undo(self, group_id: str, *, actor: str = "operator") -> Changes:
        return self.store.undo_group(group_id, actor=actor)
