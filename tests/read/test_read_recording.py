"""What the background recorder keeps of a retrieval and how it behaves: dropped
candidates and notes (non-ASCII text stored readable), the first and last time a
memory was seen, the recorder thread's name, and a failed write reported in the log."""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

import numpy as np
from sqlalchemy import select

from memdesk.core.embeddings import EmbeddingsUnavailable
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.models import Retrieval
from memdesk.core.read.recorder import recall_summary, retrieval_record
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW, put


class BrokenEmbedder:
    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        raise EmbeddingsUnavailable("modèle absent: no vectors here")


def at(store: MemoryStore, when, **kw) -> Retriever:  # type: ignore[no-untyped-def]
    return Retriever(store, ReadConfig(), embedder=BrokenEmbedder(), clock=lambda: when, **kw)


def test_a_memorys_first_and_last_sighting_and_its_count(store: MemoryStore) -> None:
    ids = put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3},
                      {"text": "Bob's kayak club.", "user_id": "w", "days_ago": 3}],
              embed=False)
    first, last = NOW - timedelta(days=2), NOW
    for when, user in ((first, "u"), (NOW - timedelta(days=1), "w"), (last, "u")):
        r = at(store, when)
        r.retrieve("kayak club", user)
        r.flush()
    with store.read() as conn:
        seen = recall_summary(conn, ids[0])
        never = recall_summary(conn, "no-such-memory")
    assert (seen.count, seen.as_result, seen.as_preference) == (2, 2, 0)
    assert (seen.first, seen.last) == (first, last)
    assert [e.at for e in seen.recent] == [last, first]
    assert (never.count, never.first, never.last, never.recent) == (0, None, None, ())


def test_dropped_candidates_and_notes_are_kept_readable(store: MemoryStore) -> None:
    put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3},
                {"text": "Timeout connecting to Redis.", "days_ago": 1}], embed=False)
    r = at(store, NOW)
    res = r.retrieve("kayak club", "u")
    r.flush()
    assert res.dropped, "the Redis memory is a recent-pool candidate the floor drops"
    with store.read() as conn:
        rec = retrieval_record(conn, res.retrieval_id)
        raw = conn.execute(select(Retrieval.__table__.c.notes).where(
            Retrieval.__table__.c.id == res.retrieval_id)).scalar_one()
    assert [d["text"] for d in rec["dropped"]] == [d.hit.text for d in res.dropped]
    assert "Timeout connecting to Redis." in [d["text"] for d in rec["dropped"]]
    assert rec["notes"] == res.notes and "modèle absent: no vectors here" in rec["notes"]
    assert "modèle" in raw  # stored as text a person can read, not as \\u escapes


def test_records_are_written_by_the_named_recorder_thread_and_failures_logged(
        store: MemoryStore, caplog) -> None:  # type: ignore[no-untyped-def]
    r = at(store, NOW)
    names: list[str] = []
    r.recorder.submit(lambda conn: names.append(threading.current_thread().name), lambda: NOW)
    r.flush()
    assert names == ["memdesk-recorder"]

    def broken(conn) -> None:  # type: ignore[no-untyped-def]
        raise RuntimeError("disk on fire")

    with caplog.at_level(logging.WARNING, logger="memdesk.core.read.recorder"):
        r.recorder.submit(broken, lambda: NOW)
        r.flush()
    assert r.recorder.last_error == "RuntimeError: disk on fire"
    assert [m.getMessage() for m in caplog.records if m.name == "memdesk.core.read.recorder"] \
        == ["could not record a retrieval: RuntimeError: disk on fire"]
