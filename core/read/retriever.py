"""The retriever: channels → candidates → fusion → floor → score → repeats collapsed →
diversity → injection (relevant preferences first, then the rotation).

``Retriever(store).retrieve(query, user_id, k=10, channels=None, inject=True)``
returns a :class:`RetrievalResult` with the ranked results, the injected preferences,
what the floor and the diversity rule removed (and why), each channel's own ranking
and notes (vectors off, reranker skipped).  It reads in one transaction and never
writes on the caller's time: the record, the reinforcement and the rotation cursor
go to the store's background :class:`~memdesk.core.read.recorder.Recorder`.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from memdesk.core import taxonomy as tx
from memdesk.core.embeddings import DIM
from memdesk.core.errors import MemdeskError, ValidationError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.read import channels as ch
from memdesk.core.read import dedup, episodic, fusion, injection
from memdesk.core.read import terms as qt
from memdesk.core.read.candidates import Candidates, candidate_hits
from memdesk.core.read.config import CHANNELS, ReadConfig, parse_channels
from memdesk.core.read.query import Query
from memdesk.core.read.query import parse as parse_query
from memdesk.core.read.query_vectors import query_vector
from memdesk.core.read.recorder import Job, Recorder, record_jobs
from memdesk.core.read.result import RetrievalResult
from memdesk.core.read.scoping import scope_mask
from memdesk.core.read.snapshot import SnapshotCache

if TYPE_CHECKING:
    import numpy as np
    from sqlalchemy import Connection

    from memdesk.core.embeddings import Embedder
    from memdesk.core.store.memory_store import MemoryStore

MAX_K = 1000


def check_query(query: object) -> str:
    if not isinstance(query, str):
        raise ValidationError("query", f"must be text, got {type(query).__name__}")
    if "\x00" in query:
        raise ValidationError("query", "contains a NUL character")
    if len(query) > qt.MAX_QUERY_CHARS:
        raise ValidationError("query", f"is {len(query):,} characters; the limit is "
                                       f"{qt.MAX_QUERY_CHARS:,}")
    if not query.strip():
        raise ValidationError("query", "is empty")
    return query.strip()


def check_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise ValidationError("k", f"must be a whole number from 1 to {MAX_K}, got {k!r}")
    return k


# Keyed by the store object (the recorder refers to its engine, never to the store),
# so a closed and dropped store takes its recorder with it.
_recorders: weakref.WeakKeyDictionary[MemoryStore, Recorder] = weakref.WeakKeyDictionary()
_recorders_lock = threading.Lock()


def recorder_for(store: MemoryStore, cfg: ReadConfig) -> Recorder:
    """One background recorder per store, shared by every Retriever on it."""
    with _recorders_lock:
        rec = _recorders.get(store)
        if rec is None:
            rec = _recorders[store] = Recorder(store.engine, cfg.retention_days)
            store.on_close(rec.flush)
        rec.retention_days = cfg.retention_days
        return rec


_threads_set = False


def _one_thread_for_queries() -> None:
    """Encode queries on one torch thread (process-wide, once, unless the user chose).

    A single sentence gains nothing from a second thread, and on a loaded machine the
    threads' spin-waits cost tenfold: 46 ms against 600 ms per query measured here
    with two cores shared by several processes.  ``MEMDESK_TORCH_THREADS`` overrides.
    Only once torch is loaded (by the embedder's PyTorch runtime): on ONNX Runtime,
    importing it here would cost the seconds that runtime saves.
    """
    global _threads_set
    if _threads_set:
        return
    import os
    import sys

    torch = sys.modules.get("torch")
    if torch is None:
        return
    _threads_set = True
    torch.set_num_threads(int(os.environ.get("MEMDESK_TORCH_THREADS", "1")))


_snapshots: weakref.WeakKeyDictionary[MemoryStore, SnapshotCache] = (
    weakref.WeakKeyDictionary())


def snapshots_for(store: MemoryStore) -> SnapshotCache:
    """One snapshot cache per store, shared by every Retriever on it."""
    with _recorders_lock:
        cache = _snapshots.get(store)
        if cache is None:
            cache = _snapshots[store] = SnapshotCache()
        return cache


class Retriever:
    """Retrieves from one store with one configuration.  Thread-safe; cheap to build."""

    def __init__(
        self,
        store: MemoryStore,
        config: ReadConfig | None = None,
        *,
        embedder: Embedder | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.store = store
        self.config = (config or ReadConfig()).checked()
        self._embedder = embedder
        self.clock = clock
        self.recorder = recorder_for(store, self.config)
        self.snapshots = snapshots_for(store)
        self._cursors: dict[str, injection.Cursor] = {}
        self._lock = threading.Lock()

    def embedder(self) -> Embedder:
        if self._embedder is None:
            from memdesk.core.embeddings import default_embedder

            self._embedder = default_embedder()
        return self._embedder

    def _query_vector(self, query: str, isolated_vector: bool,
                      notes: list[str]) -> np.ndarray | None:
        from memdesk.core.embeddings import EmbeddingsUnavailable

        try:
            embedder = self.embedder()
            if getattr(embedder, "vectorless", False):
                # Says why at once, without importing torch (an MCP server answering
                # while its model still loads would wait for the import lock).
                embedder.encode([query])
            _one_thread_for_queries()
            vec = query_vector(embedder, query)
            _one_thread_for_queries()  # the PyTorch runtime may have loaded just now
            return vec
        except EmbeddingsUnavailable as exc:
            if isolated_vector:
                raise MemdeskError(f"The vector channel cannot run: {exc}") from exc
            notes.append(str(exc))
            return None

    def retrieve(
        self,
        query: str,
        user_id: str,
        k: int = 10,
        channels: str | tuple[str, ...] | list[str] | None = None,
        inject: bool = True,
        *,
        dry_run: bool = False,
        agent_id: str | None = None,
        run_id: str | None = None,
        floor: bool = True,
    ) -> RetrievalResult:
        """Rank ``user_id``'s memories for ``query``.

        ``floor=False``: fill the top ``k`` with the candidates the relevance floor
        dropped, nearest to the query first, each marked ``below_floor``, after
        everything that passed it (what plain vector search returns: always ``k``, for
        callers that rank or judge the results themselves).  The default returns only
        what relates to the query, so a question without an answer gets (almost)
        nothing.

        ``agent_id`` / ``run_id``: only the memories that agent or run wrote (results
        and injected preferences alike; core/read/scoping.py).

        ``dry_run``: what the agent would get now, without recording it, reinforcing
        what was returned or moving the rotation cursor (the inspector uses this, so
        looking does not change what agents will see).
        """
        t0 = time.perf_counter()
        q = parse_query(check_query(query))
        user_id = tx.check_optional_str("user_id", user_id, 200) or ""
        if not user_id:
            raise ValidationError("user_id", "must not be empty")
        k = check_k(k)
        isolated = parse_channels(channels)
        active = isolated or CHANNELS
        now = self.clock()
        notes: list[str] = []
        if "vector" in active:
            q = q.with_vector(self._query_vector(q.text, isolated == ("vector",), notes))
        found = self._gather(q, user_id, active, isolated, inject, now, agent_id, run_id)
        vec = found.vec
        if vec.without_vector and "vector" in active and q.vector is not None:
            n = vec.without_vector
            one = n == 1
            notes.append(f"{n} of this user's memories {'has' if one else 'have'} no vector "
                         f"yet (run `memdesk embed`); the vector channel cannot see "
                         f"{'it' if one else 'them'}")
        kept, dropped = self._judge(q, found, now, notes)
        results, shown, dropped = self._arrange(q, found, kept, dropped, k, floor)
        chosen, new_cursor = injection.rotate(
            found.prefs, found.cursor, {h.seq for h in shown}, self.config.preference_limit,
            {h.text for h in shown}, found.relevant, self.config.inject_relevant_max) \
            if found.do_inject else ([], None)
        per_channel = found.per_channel()
        result = RetrievalResult(
            retrieval_id=new_id(), at=now, query=q.text, user_id=user_id, k=k,
            channels=found.used, injected=found.do_inject, results=results,
            preferences=chosen, dropped=dropped, per_channel=per_channel, notes=notes,
            empty_channels=ch.why_empty(q, active, found.used, per_channel, found.snap,
                                        found.ok),
        )
        cursor = found.cursor
        cursor_job: Job | None = None
        if dry_run:
            result.duration_ms = (time.perf_counter() - t0) * 1000
            return result
        if new_cursor is not None and new_cursor != cursor:
            with self._lock:
                self._cursors[user_id] = new_cursor

            def cursor_job(conn: Connection, c: injection.Cursor = new_cursor) -> None:
                injection.save_cursor(conn, user_id, c, now)

        result.duration_ms = (time.perf_counter() - t0) * 1000
        if self.config.record:
            self.recorder.submit(record_jobs(result, cursor_job),
                                 self.clock)
        elif cursor_job is not None:
            self.recorder.submit(cursor_job, self.clock)
        return result

    def _gather(self, q: Query, user_id: str, active: tuple[str, ...],
                isolated: tuple[str, ...] | None, inject: bool, now: datetime,
                agent_id: str | None, run_id: str | None) -> Candidates:
        """Everything the ranking needs, read in one transaction: the channels'
        rankings and pools over the user's snapshot, the preferences, and the rows of
        every candidate with the episode each is or came from."""
        cfg = self.config
        with self.store.read() as conn:
            snap = self.snapshots.get(conn, user_id, DIM)
            ok = base_ok = ch.eligible(snap, cfg)
            scoped = agent_id is not None or run_id is not None
            if scoped:
                ok = base_ok & scope_mask(conn, snap, user_id, agent_id, run_id)
            kw = ch.keyword_channel(snap, q, cfg, now, ok) if "fts" in active \
                else ch.KeywordHits()
            vec = ch.vector_channel(snap, q.vector, cfg, ok) if q.vector is not None \
                else ch.VectorHits()
            gr = ch.graph_channel(snap, q, cfg, ok) if "graph" in active \
                else ch.GraphHits()
            pool_a = ch.recent_pool(snap, cfg, now, cfg.pool_recent, ok)
            pool_c = ch.random_older_pool(snap, cfg, now, ok)
            used = tuple(c for c in active if c != "vector" or q.vector is not None)
            do_inject = inject and isolated is None and cfg.preference_limit > 0
            # A task prompt's relevant preferences are its first results (prompts.py),
            # whether or not the caller wants preferences injected besides.
            is_task = isolated is None and cfg.task_preferences > 0 and q.is_task
            want = do_inject or is_task
            # Memoised per snapshot under the confidence mask: asked with that mask,
            # then narrowed to the agent/run scope.
            prefs = injection.active_preferences(snap, cfg, base_ok) if want else []
            pref_rows = injection.preference_rows(snap, cfg, base_ok) if want else None
            if scoped and want and pref_rows is not None:
                keep = [bool(ok[snap.row_of[p.seq]]) for p in prefs]
                prefs = [p for p, k in zip(prefs, keep, strict=True) if k]
                pref_rows = pref_rows[[i for i, k in enumerate(keep) if k]]
            relevant = injection.relevant_first(prefs, pref_rows, kw, vec, used, cfg)
            task = [p.seq for p in relevant[: cfg.task_preferences]] if is_task else []
            seqs = list(dict.fromkeys([*task, *kw.ranked, *vec.ranked, *gr.ranked,
                                       *pool_a, *pool_c]))
            rows = ch.load_candidates(conn, seqs)
            hits = candidate_hits(seqs, rows, kw, vec, gr, pool_a, pool_c)
            # Which turn each candidate is or came from, and when it was said, from the
            # same read as its row.
            episodic.attach_in(conn, list(hits.values()))
            cursor = None
            if do_inject and len(prefs) > cfg.preference_limit:
                with self._lock:
                    cursor = self._cursors.get(user_id)
                if cursor is None:
                    cursor = injection.stored_cursor(conn, user_id)
        for s in task:
            if s in hits:
                hits[s].task_preference = True
        return Candidates(
            snap=snap, ok=ok, used=used, kw=kw, vec=vec, gr=gr, hits=hits, task=task,
            access={r.seq: (r.last_accessed, r.access_count) for r in rows.values()},
            prefs=prefs, relevant=relevant, do_inject=do_inject, cursor=cursor)

    def _judge(self, q: Query, found: Candidates, now: datetime,
               notes: list[str]) -> tuple[list[fusion.Hit], list[fusion.Dropped]]:
        """Fuse the channels, let the relevance floor judge each candidate, score what
        passed, best first (reranked when a reranker is set)."""
        cfg = self.config
        hits = list(found.hits.values())
        vec = found.vec
        bg = vec.background
        fusion.fuse(hits, found.used, cfg, vec.floor)
        kept: list[fusion.Hit] = []
        dropped: list[fusion.Dropped] = []
        for h in hits:
            why = None if h.task_preference else fusion.floor_reason(
                h, found.used, cfg, vec.floor, bg.best if bg else None,
                bg.episode if bg else None)
            if why is None:
                kept.append(h)
            else:
                dropped.append(fusion.Dropped(h, "floor", why))
        fusion.score(hits, now, found.access, cfg)
        kept.sort(key=lambda h: (-h.score, -h.seq))
        return self._rerank(q.text, kept, notes), dropped

    def _arrange(self, q: Query, found: Candidates, kept: list[fusion.Hit],
                 dropped: list[fusion.Dropped], k: int, floor: bool,
                 ) -> tuple[list[fusion.Hit], list[fusion.Hit], list[fusion.Dropped]]:
        """The top ``k`` in the order an agent reads them: the task's preferences,
        repeats collapsed, one week's results spread, dated results first for a "when"
        question, a unit above its own episode.  Returns the results, every memory
        shown (results and the repeats they stand for) and what was dropped, and why."""
        hits = found.hits
        if not floor:
            fill = fusion.closest_first(dropped)
            for h in fill:
                h.below_floor = True
            kept = kept + fill
        # The task's preferences first, in relevance order, and outside the diversity
        # rule (they are few, and chosen for this prompt, not by date).
        first = [hits[s] for s in found.task if s in hits][:k]
        kept = first + [h for h in kept if not h.task_preference]
        kept = dedup.collapse(kept, found.snap if q.vector is not None else None)
        first = [h for h in kept if h.task_preference]
        rest, diversity_dropped = fusion.diversify(
            [h for h in kept if not h.task_preference and not h.below_floor],
            k - len(first), self.config)
        results = first + rest
        # The week rule spreads, it does not cut: the V4 retriever proposal takes "best-
        # per-week first, fill remaining", so what it held back fills the places left
        # (one session's turns are one week; capping them lost the answers).  With
        # ``floor=False`` the floor's rejects come after that: what relates to the
        # query stays ahead of what does not.
        extra = [d.hit for d in diversity_dropped]
        if not floor:
            extra += [h for h in kept if h.below_floor]
        results += extra[: max(k - len(results), 0)]
        if self.config.when_dated_first and q.is_when:
            results = episodic.dated_first(results)
        results = episodic.units_before_their_episodes(results)
        shown = [*results, *(d for h in results for d in h.same_as)]
        shown_seqs = {h.seq for h in shown}
        # What filled the top k is a result, not dropped.
        diversity_dropped = [d for d in diversity_dropped if d.hit.seq not in shown_seqs]
        if not floor:
            dropped = [d for d in dropped if d.hit.seq not in shown_seqs]
        dropped.sort(key=lambda d: (-d.hit.relevance, -d.hit.score))
        return results, shown, diversity_dropped + dropped

    def warm(self, user_ids: list[str] | None = None) -> int:
        """Build the snapshots of these users now, so their next call skips the build.

        For long-lived processes (the MCP server does it on start and after its worker
        stores memories), on a background thread: a user's first call after start or
        after any write otherwise pays for reading all of that user's rows.  By default
        the users whose snapshots this store's cache holds (the recently active ones),
        else those retrieved for most recently, then those who wrote most recently.  A
        warmed snapshot is an ordinary one: the next write invalidates it like any
        other.  Returns how many were built.
        """
        cache = self.snapshots
        if user_ids is None:
            user_ids = cache.users() or self._recent_users(cache.max_users)
        built = cache.builds
        for user_id in user_ids[: cache.max_users]:
            with self.store.read() as conn:
                cache.get(conn, user_id, DIM)
        return cache.builds - built

    WRITERS_WINDOW = 20_000  # newest rows looked at for recent writers

    def _recent_users(self, limit: int) -> list[str]:
        """Up to ``limit`` users: those retrieved for most recently, then the owners of
        the newest memories.  The second part is for a store nobody has recalled from
        yet (a new server over an imported or agent-filled store): the agents that
        wrote last are the likeliest to ask next.  The newest rows are read by primary
        key, so this costs the same at 1M memories as at 1,000."""
        from sqlalchemy import func, select

        from memdesk.core.read.models import Retrieval
        from memdesk.core.store.models import Memory

        t = Retrieval.__table__.c
        m = Memory.__table__.c
        with self.store.read() as conn:
            users = list(conn.execute(
                select(t.user_id).group_by(t.user_id).order_by(func.max(t.at).desc())
                .limit(limit)).scalars())
            if len(users) < limit:
                newest = conn.execute(select(m.user_id).order_by(m.seq.desc())
                                      .limit(self.WRITERS_WINDOW)).scalars()
                users = list(dict.fromkeys([*users, *newest]))[:limit]
        return users

    def flush(self) -> None:
        """Wait until this store's records, reinforcement and cursors are written."""
        self.recorder.flush()

    def _rerank(self, query: str, kept: list[fusion.Hit], notes: list[str]) -> list[fusion.Hit]:
        cfg = self.config
        if not cfg.rerank_model or not kept:
            return kept
        from memdesk.core.read.rerank import OllamaReranker

        head, tail = kept[: cfg.rerank_top], kept[cfg.rerank_top :]
        scores, note = OllamaReranker(cfg.rerank_model, cfg.rerank_host,
                                      cfg.rerank_timeout).scores(query, head)
        if scores is None:
            notes.append(note or "reranker skipped")
            return kept
        for h, s in zip(head, scores, strict=True):
            h.rerank = s
            h.score = 0.5 * h.score + 0.5 * s
        head.sort(key=lambda h: (-h.score, -h.seq))
        return head + tail


def retrieve(
    store: MemoryStore, query: str, user_id: str, k: int = 10,
    channels: str | tuple[str, ...] | list[str] | None = None, inject: bool = True,
    config: ReadConfig | None = None,
) -> RetrievalResult:
    """One retrieval with a throwaway Retriever (the model and recorder are shared)."""
    return Retriever(store, config).retrieve(query, user_id, k, channels, inject)
