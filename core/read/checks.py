"""Recall checks: pinned queries replayed through the agents' own retrieval.

A check is a user, a query, the memory ids the agents' default retrieval must return
within its top ``K`` (and, optionally, ids it must not).  ``RecallChecks(store)`` is the
façade: ``add`` / ``remove`` (declared, audited, undoable actions of the ``check``
stream; storage in ``memdesk.core.store.recall_checks``), ``list`` / ``get``, and
``run``, which replays every check through exactly what the MCP ``retrieve`` tool
calls with its defaults (``Retriever(store, ReadConfig()).retrieve(query, user)``:
all channels, preferences injected, the relevance floor on, k = 10) as a dry run, so
checking changes nothing agents will see.

What counts as returned: the check's memory among the ranked results (its rank), or
collapsed into one as a repeat (the agent gets the same text under the other id).
Injected preferences come outside the top k and rotate with agents' calls, so they
are reported but never count.  A named memory that cannot come back (deleted, held
for review, superseded, expired, a supposition, below the confidence threshold,
another user's, not in the store) is said so, in words; a merged one is followed to
the memory it was merged into (duplicates merge, or a contradiction's merge), and the
result says so.

``run`` shares the work of many checks: checks are taken user by user (each user's
snapshot is built once), the queries of each batch are encoded in one forward pass
(primed into the retriever's query-vector cache) and the named memories are looked up
in one read.  Its verdicts equal ``run_one``'s, one cold retrieval per check (tested).
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from memdesk.core.errors import ValidationError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.retriever import Retriever, check_query
from memdesk.core.store import actions as acts
from memdesk.core.store import audit
from memdesk.core.store import recall_checks as rc
from memdesk.core.store.models import Memory
from memdesk.core.store.prefixes import resolve_id
from memdesk.core.store.recall_checks import CheckRecord
from memdesk.core.store.records import Changed, Changes, decode_values

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from memdesk.core.embeddings import Embedder
    from memdesk.core.read.result import RetrievalResult
    from memdesk.core.store.memory_store import MemoryStore

# The k an agent gets from the MCP ``retrieve`` tool when it does not ask for another
# (its ``k`` default, and the retriever's): a check asks for exactly that.
K = 10
# Queries encoded per forward pass, and checks per primed batch (the query-vector
# cache holds 1,024; a batch must stay in it until its retrievals have run).
BATCH = 256
MAX_MERGE_HOPS = 20
FOLLOWED = frozenset({acts.MERGE.name, acts.RESOLVE_MERGE.name})

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]
M = Memory.__table__.c


@dataclass(frozen=True)
class Named:
    """One memory a check names, and what the retrieval did with it.

    ``rank``: where it is in the top k (1-based), or what stands for it there (the
    memory it was merged into, or the result it repeats: ``returned_as``); None when
    it is not returned.  ``state`` is one word (returned, not_returned, merged,
    repeat, deleted, held, superseded, expired, hypothetical, low_confidence,
    other_user, missing); ``detail`` says it in a sentence."""

    memory_id: str
    rank: int | None
    state: str
    detail: str
    returned_as: str | None = None

    @property
    def returned(self) -> bool:
        return self.rank is not None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.memory_id, "returned": self.returned, "rank": self.rank,
                "state": self.state, "detail": self.detail, "returned_as": self.returned_as}


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict: passed when every expected memory is returned and no
    forbidden one is; ``error`` when the retrieval refused the check (then failed).
    ``before``: the check's stored verdict before this run (None: never run)."""

    check: CheckRecord
    expected: tuple[Named, ...]
    forbidden: tuple[Named, ...]
    notes: tuple[str, ...] = ()
    error: str | None = None
    before: bool | None = None

    @property
    def passed(self) -> bool:
        return (self.error is None and all(n.returned for n in self.expected)
                and not any(n.returned for n in self.forbidden))

    @property
    def missing(self) -> tuple[Named, ...]:
        return tuple(n for n in self.expected if not n.returned)

    @property
    def present(self) -> tuple[Named, ...]:
        return tuple(n for n in self.forbidden if n.returned)

    @property
    def changed(self) -> bool:
        """The verdict differs from the one stored before this run."""
        return self.before is not None and self.before != self.passed

    @property
    def broke(self) -> bool:
        return self.before is True and not self.passed

    def summary(self) -> str:
        if self.error:
            return f"cannot run: {self.error}"
        if self.passed:
            return "passed"
        parts = []
        if self.missing:
            parts.append("missing " + ", ".join(n.memory_id for n in self.missing))
        if self.present:
            parts.append("returned though forbidden " + ", ".join(
                f"{n.memory_id} (rank {n.rank})" for n in self.present))
        return "failed: " + "; ".join(parts)

    def verdict(self) -> dict[str, Any]:
        """What is stored as the check's last result (and printed by ``--json``)."""
        return {"passed": self.passed, "summary": self.summary(), "error": self.error,
                "expected": [n.to_json() for n in self.expected],
                "forbidden": [n.to_json() for n in self.forbidden],
                "notes": list(self.notes)}

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check.to_json(), **self.verdict(), "before": self.before,
                "changed": self.changed}


@dataclass(frozen=True)
class ChecksRun:
    """A run of the checks: each one's verdict (in the order they were added), when, how
    long it took, whether it was cancelled before the end."""

    results: tuple[CheckResult, ...]
    at: datetime
    seconds: float
    cancelled: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def failed(self) -> tuple[CheckResult, ...]:
        return tuple(r for r in self.results if not r.passed)

    @property
    def passed(self) -> bool:
        return not self.failed

    @property
    def changed(self) -> tuple[CheckResult, ...]:
        return tuple(r for r in self.results if r.changed)

    @property
    def broke(self) -> tuple[CheckResult, ...]:
        return tuple(r for r in self.results if r.broke)

    @property
    def changes(self) -> Changes:
        """Views listing checks refresh (their last results changed); nothing to undo."""
        return Changes(kinds=Changed.CHECKS if self.results else Changed.NOTHING)


@dataclass(frozen=True)
class AddedCheck:
    check: CheckRecord
    changes: Changes


@dataclass(frozen=True)
class _Row:
    """A named memory's state, as the explanation needs it."""

    id: str
    user_id: str
    deleted_at: datetime | None
    quarantined_at: datetime | None
    superseded_by: str | None
    valid_until: datetime | None
    framing: str | None
    confidence: float
    merged: tuple[str, datetime] | None = None  # (how: the action, when) of a merge


def _day(t: datetime | None) -> str:
    return f"{t:%Y-%m-%d}" if t else "an unknown date"


class RecallChecks:
    """The recall checks of one store.  ``embedder``: the model's stand-in in tests (the
    default is the one every retriever in the process shares)."""

    def __init__(self, store: MemoryStore, *, embedder: Embedder | None = None) -> None:
        self.store = store
        self._embedder = embedder
        self._retriever: Retriever | None = None

    # -- reads -------------------------------------------------------------------------
    def list(self, *, include_removed: bool = False) -> list[CheckRecord]:
        with self.store.read() as conn:
            return rc.list_in(conn, include_removed=include_removed)

    def get(self, ref: str) -> CheckRecord:
        """One check by id or unique prefix (NotFoundError / AmbiguousIdError)."""
        with self.store.read() as conn:
            return rc.get_in(conn, ref)

    # -- actions -----------------------------------------------------------------------
    def add(self, user_id: str, query: str, expect: Iterable[str],
            expect_not: Iterable[str] = (), *, note: str | None = None,
            actor: str = "operator") -> AddedCheck:
        """Pin a check.  Memory ids may be unique prefixes; each must name a memory of
        ``user_id`` in this store (a typo is refused here, not found failing later)."""
        values = rc.check_values(user_id, query, expect, expect_not, note)
        check_query(values.query)  # the retriever's own rules for a query
        gid = new_id()
        with self.store.write() as conn:
            values = rc.CheckValues(
                values.user_id, values.query,
                self._resolve(conn, "expect", values.expect, values.user_id),
                self._resolve(conn, "expect_not", values.expect_not, values.user_id),
                values.note)
            both = sorted(set(values.expect) & set(values.expect_not))
            if both:
                raise ValidationError("expect_not", f"{both[0]} is both expected and forbidden")
            rec, ev = rc.add_in(conn, values, actor=actor, group_id=gid)
        return AddedCheck(rec, rc.changes_of(acts.CHECK_ADD, [ev], gid))

    def remove(self, ref: str, *, actor: str = "operator") -> Changes:
        """Remove a check (undoable: the removal is audited and the row kept)."""
        gid = new_id()
        with self.store.write() as conn:
            _rec, ev = rc.remove_in(conn, ref, actor=actor, group_id=gid)
        return rc.changes_of(acts.CHECK_REMOVE, [ev], gid)

    @staticmethod
    def _resolve(conn: Connection, name: str, ids: Sequence[str], user_id: str
                 ) -> tuple[str, ...]:
        out = []
        for ref in ids:
            mid = resolve_id(conn, M.id, ref, "memory")
            owner = conn.execute(select(M.user_id).where(M.id == mid)).scalar_one()
            if owner != user_id:
                raise ValidationError(name, f"memory {mid} is another user's, not "
                                            f"{user_id!r}'s: it is never recalled for them")
            out.append(mid)
        return tuple(dict.fromkeys(out))

    # -- running -----------------------------------------------------------------------
    def retriever(self) -> Retriever:
        """The MCP tool's retriever: default settings, the shared model."""
        if self._retriever is None:
            self._retriever = Retriever(self.store, ReadConfig(), embedder=self._embedder)
        return self._retriever

    def _retrieve(self, check: CheckRecord) -> RetrievalResult:
        return self.retriever().retrieve(check.query, check.user_id, dry_run=True)

    def run_one(self, check: CheckRecord | str) -> CheckResult:
        """One check, one cold retrieval; nothing recorded (the reference ``run`` is
        tested against)."""
        rec = check if isinstance(check, CheckRecord) else self.get(check)
        try:
            res: RetrievalResult | str = self._retrieve(rec)
        except ValidationError as exc:
            res = str(exc)
        with self.store.read() as conn:
            return _Judge(conn, [(rec, res)]).results()[0]

    def run(self, ids: Sequence[str] | None = None, *, progress: Progress | None = None,
            cancelled: Cancelled | None = None, record: bool = True) -> ChecksRun:
        """Replay the checks (all, or those ``ids`` name) and, with ``record``, keep each
        one's verdict as its last result.  A cancelled run keeps what it finished."""
        t0 = time.perf_counter()
        at = utcnow()
        if ids is None:
            checks = self.list()
        else:
            with self.store.read() as conn:
                checks = [rc.get_in(conn, ref) for ref in dict.fromkeys(ids)]
        # User by user: each user's snapshot is built once and stays warm for the rest.
        order = sorted(range(len(checks)), key=lambda i: (checks[i].user_id, i))
        done: dict[int, RetrievalResult | str] = {}
        stopped = False
        notes: builtins.list[str] = []
        for start in range(0, len(order), BATCH):
            batch = order[start:start + BATCH]
            self._prime([checks[i].query for i in batch], notes)
            for i in batch:
                if cancelled is not None and cancelled():
                    stopped = True
                    break
                try:
                    done[i] = self._retrieve(checks[i])
                except ValidationError as exc:
                    done[i] = str(exc)
                if progress is not None:
                    progress(len(done), len(checks))
            if stopped:
                break
        pairs = [(checks[i], done[i]) for i in sorted(done)]
        with self.store.read() as conn:
            results = _Judge(conn, pairs).results()
        if record and results:
            with self.store.write() as conn:
                rc.record_results_in(conn, ((r.check.id, r.passed, r.verdict())
                                            for r in results), at)
        # What every check's retrieval noted (vectors off, memories without vectors), once.
        notes += [n for r in results for n in r.notes]
        return ChecksRun(tuple(results), at, time.perf_counter() - t0, stopped,
                         tuple(dict.fromkeys(notes)))

    def _prime(self, queries: builtins.list[str], notes: builtins.list[str]) -> None:
        """Encode a batch's queries in one pass into the retriever's query cache."""
        from memdesk.core.embeddings import EmbeddingsUnavailable
        from memdesk.core.read.query_vectors import cache_for

        try:
            embedder = self.retriever().embedder()
            if getattr(embedder, "vectorless", False):
                return  # each retrieval says so in its notes
            cache = cache_for(embedder)
            if cache is not None:
                cache.prime(embedder, [q.strip() for q in queries])
        except EmbeddingsUnavailable as exc:
            notes.append(f"vectors are off ({exc}): checks ran on the keyword and graph "
                         "channels only, as an agent's retrieve would now")


class _Judge:
    """Verdicts for (check, retrieval) pairs, with every named memory that was not
    returned looked up in one read (and merges followed)."""

    def __init__(self, conn: Connection,
                 pairs: Sequence[tuple[CheckRecord, RetrievalResult | str]]) -> None:
        self.conn = conn
        self.pairs = pairs
        self.rows: dict[str, _Row] = {}
        self.threshold = ReadConfig().confidence_threshold

    def results(self) -> list[CheckResult]:
        ranked = [_ranks(res) if not isinstance(res, str) else {} for _c, res in self.pairs]
        self._load({mid for (c, _r), ranks in zip(self.pairs, ranked, strict=True)
                    for mid in (*c.expect, *c.expect_not) if mid not in ranks})
        out = []
        for (check, res), ranks in zip(self.pairs, ranked, strict=True):
            if isinstance(res, str):
                out.append(CheckResult(check, (), (), error=res, before=check.last_passed))
                continue
            prefs = {p.id for p in res.preferences}
            dropped = {d.hit.id: d for d in res.dropped}

            def named(mid: str, res: RetrievalResult = res, ranks: dict[
                    str, tuple[int, str | None]] = ranks, prefs: set[str] = prefs,
                    dropped: dict[str, Any] = dropped) -> Named:
                return self._named(mid, res.user_id, ranks, prefs, dropped, 0)

            out.append(CheckResult(check, tuple(named(m) for m in check.expect),
                                   tuple(named(m) for m in check.expect_not),
                                   tuple(res.notes), before=check.last_passed))
        return out

    def _load(self, ids: set[str]) -> None:
        """The rows of ``ids`` and, for merged ones, the memories they went into."""
        todo = set(ids)
        for _hop in range(MAX_MERGE_HOPS + 1):
            todo -= set(self.rows)
            if not todo:
                return
            wanted = sorted(todo)
            found: list[_Row] = []
            for i in range(0, len(wanted), 900):
                found += [_Row(r.id, r.user_id, r.deleted_at, r.quarantined_at,
                               r.superseded_by, r.valid_until, r.framing, r.confidence)
                          for r in self.conn.execute(select(
                              M.id, M.user_id, M.deleted_at, M.quarantined_at,
                              M.superseded_by, M.valid_until, M.framing, M.confidence)
                              .where(M.id.in_(wanted[i:i + 900])))]
            nxt: set[str] = set()
            for row in found:
                by = row.superseded_by
                if by is not None and row.deleted_at is None:
                    how = self._how_superseded(row.id, by)
                    row = replace(row, merged=how)
                    if how is not None:
                        nxt.add(by)
                self.rows[row.id] = row
            todo = nxt

    def _how_superseded(self, mid: str, by: str) -> tuple[str, datetime] | None:
        """(action, when) if the newest event that set ``superseded_by`` to ``by`` was a
        merge (duplicates or a contradiction's), else None."""
        for ev in self.conn.execute(
                select(audit.E.action, audit.E.after, audit.E.at)
                .where(audit.E.memory_id == mid, audit.E.stream == acts.Stream.MEMORY.value)
                .order_by(audit.E.id.desc()).limit(200)):
            after = decode_values(ev.after)
            if after.get("superseded_by") == by:
                return (ev.action, ev.at) if ev.action in FOLLOWED else None
        return None

    def _named(self, mid: str, user: str, ranks: dict[str, tuple[int, str | None]],
               prefs: set[str], dropped: dict[str, Any], hops: int) -> Named:
        if mid in ranks:
            rank, repeat_of = ranks[mid]
            if repeat_of is None:
                return Named(mid, rank, "returned", f"returned at rank {rank}")
            return Named(mid, rank, "repeat", (
                f"returned at rank {rank} as a repeat of {repeat_of} (the same text; the "
                "agent gets that id)"), repeat_of)
        row = self.rows.get(mid)
        if row is None:
            return Named(mid, None, "missing", "no memory with this id in the store")
        if row.user_id != user:
            return Named(mid, None, "other_user", (
                f"is another user's memory ({row.user_id}), never recalled for {user}"))
        if row.deleted_at is not None:
            return Named(mid, None, "deleted", f"deleted on {_day(row.deleted_at)}: "
                                               "never recalled")
        if row.quarantined_at is not None:
            return Named(mid, None, "held", (
                f"held for review since {_day(row.quarantined_at)}: not recalled until "
                "an operator approves it"))
        if row.superseded_by is not None:
            by = row.superseded_by
            if row.merged is None:
                return Named(mid, None, "superseded", (
                    f"superseded by {by} (a correction or resolution, not a merge, so "
                    "not followed): only current memories are recalled"))
            how = "merged" if row.merged[0] == acts.MERGE.name else (
                "merged (contradiction resolution)")
            if hops >= MAX_MERGE_HOPS:
                return Named(mid, None, "merged", f"{how} into {by}; the chain of merges "
                                                  "is too long to follow")
            end = self._named(by, user, ranks, prefs, dropped, hops + 1)
            head = f"{how} into {by} on {_day(row.merged[1])}"
            if end.returned:
                return Named(mid, end.rank, "merged", f"{head}, which is {end.detail}",
                             end.returned_as or by)
            return Named(mid, None, "merged", f"{head}; that memory: {end.detail}")
        if row.valid_until is not None:
            return Named(mid, None, "expired", f"expired on {_day(row.valid_until)}: "
                                               "never recalled")
        if row.framing is not None:
            return Named(mid, None, "hypothetical", (
                "said as a supposition (hypothetical): never recalled as a belief"))
        if row.confidence < self.threshold:
            return Named(mid, None, "low_confidence", (
                f"its confidence {row.confidence:.2f} is below the retrieval threshold "
                f"{self.threshold:.2f}: never recalled"))
        why = f"not in the top {K}"
        d = dropped.get(mid)
        if d is not None:
            why += (f" (below the relevance floor: {d.detail})" if d.reason == "floor"
                    else " (held back by the two-per-week rule)")
        if mid in prefs:
            why += f"; injected as a standing preference, which is outside the top {K}"
        return Named(mid, None, "not_returned", why)


def _ranks(res: RetrievalResult) -> dict[str, tuple[int, str | None]]:
    """Memory id → (rank, the result it repeats or None), over the top k."""
    out: dict[str, tuple[int, str | None]] = {}
    for i, h in enumerate(res.results, 1):
        out.setdefault(h.id, (i, None))
        for d in h.same_as:
            out.setdefault(d.id, (i, h.id))
    return out
