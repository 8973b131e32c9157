"""The curation services, in the one shape every core service has (like ``DeltaMemory``):
a façade over one open store, cheap to construct, whose reads return plain values and
whose actions each run in one write transaction and return ``Changes`` (or a result
that carries them, with an audit group the generic undo reverts).

The module functions in ``sweep`` and ``contradictions`` are the implementation; the
UI and new code call these façades.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memdesk.core.curation import calibration as K
from memdesk.core.curation import contradictions as C
from memdesk.core.curation import sweep as S
from memdesk.core.curation.estimate import BandEstimate, band_estimate
from memdesk.core.curation.guided import GuidedModel
from memdesk.core.curation.guided import train as train_guided
from memdesk.core.curation.learning import Guidance, guidance
from memdesk.core.curation.mixing import PickInfo, picks_of
from memdesk.core.curation.sampling import check_band
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changes


class Sweeps:
    """Revaluation sweeps over one store: start, review one item at a time, report."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def start(self, band: Sequence[float] = S.DEFAULT_BAND, n: int = S.DEFAULT_N, *,
              user: str | None = None, type: str | None = None, seed: int | None = None,
              actor: str = "operator", note: str | None = None,
              guided: float = 0.0) -> S.SweepState:
        """``guided``: share of items the guided-sweep model picks (0: all uniform)."""
        return S.start_sweep(self.store, band, n, user, type, seed, actor=actor, note=note,
                             guided=guided)

    def get(self, sweep_id: str) -> S.SweepState:
        return S.get_sweep(self.store, sweep_id)

    def list(self, *, unfinished: bool = False, limit: int = 100) -> list[S.SweepSummary]:
        return S.list_sweeps(self.store, unfinished=unfinished, limit=limit)

    def context(self, item: S.SweepItemState) -> S.ItemContext:
        return S.item_context(self.store, item)

    def decide(self, sweep_id: str, pos: int, decision: str, *,
               importance: float | None = None, note: str | None = None,
               actor: str = "operator") -> S.SweepStep:
        return S.decide(self.store, sweep_id, pos, decision, importance=importance,
                        note=note, actor=actor)

    def undo_decision(self, sweep_id: str, pos: int | None = None, *,
                      actor: str = "operator") -> S.SweepStep:
        return S.undo_decision(self.store, sweep_id, pos, actor=actor)

    def report(self, sweep_id: str) -> S.SweepReport:
        return S.report(self.store, sweep_id)

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
    """The contradictions queue over one store: find groups, load one, resolve it."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def find(self, **kwargs: Any) -> list[C.ContradictionGroup]:
        return C.find_contradictions(self.store, **kwargs)

    def group(self, ref: str) -> C.ContradictionGroup:
        return C.find_group(self.store, ref)

    def load(self, key: C.Key) -> C.GroupDetail:
        return C.load_group(self.store, key)

    def keep(self, group: C.GroupDetail, winner_id: str, *, note: str | None = None,
             actor: str = "operator") -> C.Resolution:
        return C.resolve_keep(self.store, group, winner_id, note=note, actor=actor)

    def suggested(self, group: C.GroupDetail, *, note: str | None = None,
                  actor: str = "operator") -> C.Resolution:
        """Keep the suggested winner (refused when the group has no suggestion)."""
        return C.resolve_suggested(self.store, group, note=note, actor=actor)

    def keep_all(self, group: C.GroupDetail, *, note: str | None = None,
                 actor: str = "operator") -> C.Resolution:
        return C.resolve_keep_all(self.store, group, note=note, actor=actor)

    def edit(self, group: C.GroupDetail, winner_id: str, **kwargs: Any) -> C.Resolution:
        return C.resolve_edit(self.store, group, winner_id, **kwargs)

    def merge(self, group: C.GroupDetail, *, text_: str, value: str,
              **kwargs: Any) -> C.Resolution:
        return C.resolve_merge(self.store, group, text_=text_, value=value, **kwargs)

    def undo(self, group_id: str, *, actor: str = "operator") -> Changes:
        return self.store.undo_group(group_id, actor=actor)  # resolutions: memory rows


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
