"""The retriever's contract around a call: refusals word for word (query, k, user),
what a call records, reinforces and rotates (and what dry_run and record=False leave
alone), one recorder and snapshot cache per store, and the query-encoding threads.
No model is loaded: the embedder says vectors are off."""

from __future__ import annotations

import sys
import time
import types
from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import select

import memdesk.core.embeddings as emb
from memdesk.core.errors import ValidationError
from memdesk.core.read import retriever as rt
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.models import PreferenceCursor, Retrieval
from memdesk.core.read.recorder import retrieval_record
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW, put


class NoModel:
    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        raise emb.EmbeddingsUnavailable("vectors are off: no model here")


@pytest.fixture(autouse=True)
def no_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rt, "_threads_set", True)


def make(store: MemoryStore, **cfg: object) -> rt.Retriever:
    return rt.Retriever(store, ReadConfig(**cfg), embedder=NoModel(),  # type: ignore[arg-type]
                        clock=lambda: NOW)


def refusal(fn, *args, **kw) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError) as e:
        fn(*args, **kw)
    return str(e.value)


# ---- input checks ---------------------------------------------------------------------

def test_query_refusals_say_what_is_wrong() -> None:
    assert refusal(rt.check_query, 42) == "query: must be text, got int"
    assert refusal(rt.check_query, None) == "query: must be text, got NoneType"
    assert refusal(rt.check_query, "a\x00b") == "query: contains a NUL character"
    assert refusal(rt.check_query, "x" * 10_001) == \
        "query: is 10,001 characters; the limit is 10,000"
    assert refusal(rt.check_query, "") == "query: is empty"
    assert refusal(rt.check_query, " \t\n ") == "query: is empty"


def test_a_query_at_the_limit_is_accepted_and_stripped() -> None:
    assert rt.check_query("x" * 10_000) == "x" * 10_000
    assert rt.check_query("  kayak club \n") == "kayak club"
    assert rt.check_query(" " * 9_999 + "k") == "k"


@pytest.mark.parametrize("k", [1, 2, 1000])
def test_k_from_one_to_a_thousand_is_accepted(k: int) -> None:
    assert rt.check_k(k) == k


@pytest.mark.parametrize(("k", "shown"), [(0, "0"), (1001, "1001"), (-3, "-3"), ("3", "'3'"),
                                          (2.0, "2.0"), (True, "True"), (None, "None")])
def test_k_refusal_names_the_range_and_the_value(k: object, shown: str) -> None:
    assert refusal(rt.check_k, k) == f"k: must be a whole number from 1 to 1000, got {shown}"


def test_the_user_must_be_named(store: MemoryStore) -> None:
    r = make(store)
    assert refusal(r.retrieve, "kayak", "") == "user_id: must not be empty"
    assert refusal(r.retrieve, "kayak", "   ") == "user_id: must not be empty"
    assert refusal(r.retrieve, "kayak", "u" * 201) == \
        "user_id: is 201 characters; the limit is 200"
    assert refusal(r.retrieve, "kayak", "u", k=0) == \
        "k: must be a whole number from 1 to 1000, got 0"
    assert refusal(r.retrieve, "", "u") == "query: is empty"
    assert r.retrieve("kayak", "u" * 200, dry_run=True).user_id == "u" * 200


def test_an_invalid_config_is_refused_when_the_retriever_is_built(store: MemoryStore) -> None:
    assert refusal(rt.Retriever, store, ReadConfig(pool_recent=-1)) == \
        "pool_recent: must not be negative"
    assert rt.Retriever(store).config == ReadConfig()


# ---- what a call writes ---------------------------------------------------------------

def test_a_call_records_and_reinforces_what_it_returned(store: MemoryStore) -> None:
    a, p = put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3},
                       {"text": "Prefer short answers.", "type": "preference",
                        "days_ago": 9}], embed=False)
    r = make(store)
    res = r.retrieve("kayak club", "u", k=4, channels="fts")
    r.flush()
    with store.read() as conn:
        rec = retrieval_record(conn, res.retrieval_id)
    assert rec is not None
    assert (rec["query"], rec["user_id"], rec["k"], rec["channels"], rec["injected"]) == (
        "kayak club", "u", 4, ["fts"], False)
    assert rec["at"] == NOW.isoformat()
    assert [(i["memory_id"], i["kind"]) for i in rec["items"]] == [(a, "result")]
    assert (store.get(a).access_count, store.get(p).access_count) == (1, 0)
    assert store.get(a).last_accessed == NOW


def test_a_dry_run_records_nothing_and_keeps_the_rotation(store: MemoryStore) -> None:
    ids = put(store, [{"text": f"Preference {i}.", "type": "preference", "days_ago": 10 + i}
                      for i in range(3)], embed=False)
    r = make(store, preference_limit=1)
    looks, elapsed_ms = [], []
    for _ in range(2):
        t0 = time.perf_counter()
        looks.append(r.retrieve("anything at all", "u", dry_run=True))
        elapsed_ms.append((time.perf_counter() - t0) * 1000)
    r.flush()
    assert [[p.id for p in x.preferences] for x in looks] == [[ids[0]], [ids[0]]]
    # The call's own time: more than nothing, within the time measured around it.
    assert all(0 < x.duration_ms <= e for x, e in zip(looks, elapsed_ms, strict=True))
    with store.read() as conn:
        assert conn.execute(select(Retrieval.__table__.c.id)).first() is None
        assert conn.execute(select(PreferenceCursor.__table__.c.user_id)).first() is None
    assert [store.get(i).access_count for i in ids] == [0, 0, 0]


def test_rotation_moves_on_per_call_and_is_saved_for_other_retrievers(
        store: MemoryStore) -> None:
    ids = put(store, [{"text": f"Preference {i}.", "type": "preference", "days_ago": 10 + i}
                      for i in range(3)], embed=False)  # newest first: ids[0], [1], [2]
    r = make(store, preference_limit=2)
    first = r.retrieve("anything at all", "u")
    second = r.retrieve("anything at all", "u")
    r.flush()
    assert [p.id for p in first.preferences] == [ids[0], ids[1]]
    # Wrapped round: ids[2] then ids[0], handed out newest first.
    assert [p.id for p in second.preferences] == [ids[0], ids[2]]
    with store.read() as conn:
        row = conn.execute(select(PreferenceCursor.__table__)).one()._mapping
    newest = store.get(ids[0])
    assert (row["user_id"], row["last_seq"], row["updated_at"]) == ("u", newest.seq, NOW)
    # A new retriever (no cursor in memory) continues from the stored cursor.
    third = make(store, preference_limit=2).retrieve("anything at all", "u")
    assert [p.id for p in third.preferences] == [ids[1], ids[2]]


def test_without_recording_the_rotation_is_still_saved(store: MemoryStore) -> None:
    ids = put(store, [{"text": f"Preference {i}.", "type": "preference", "days_ago": 10 + i}
                      for i in range(3)], embed=False)
    r = make(store, preference_limit=1, record=False)
    r.retrieve("anything at all", "u")
    r.flush()
    with store.read() as conn:
        assert conn.execute(select(Retrieval.__table__.c.id)).first() is None
        cursor = conn.execute(select(PreferenceCursor.__table__.c.last_seq)).scalar_one()
    assert cursor == store.get(ids[0]).seq
    assert store.get(ids[0]).access_count == 0
    nxt = make(store, preference_limit=1, record=False).retrieve("anything at all", "u")
    assert [p.id for p in nxt.preferences] == [ids[1]]


def test_the_rotation_is_per_user(store: MemoryStore) -> None:
    mine = put(store, [{"text": f"Mine {i}.", "type": "preference", "days_ago": 10 + i}
                       for i in range(2)], embed=False)
    theirs = put(store, [{"text": f"Theirs {i}.", "type": "preference", "days_ago": 10 + i}
                         for i in range(2)], embed=False, user="w")
    r = make(store, preference_limit=1)
    assert [p.id for p in r.retrieve("anything", "u").preferences] == [mine[0]]
    assert [p.id for p in r.retrieve("anything", "w").preferences] == [theirs[0]]
    assert [p.id for p in r.retrieve("anything", "u").preferences] == [mine[1]]
    r.flush()


# ---- shared per store -----------------------------------------------------------------

def test_one_recorder_and_snapshot_cache_per_store(store: MemoryStore, tmp_path) -> None:  # type: ignore[no-untyped-def]
    a = make(store, retention_days=5.0)
    assert a.recorder.retention_days == 5.0
    b = make(store, retention_days=None)
    assert b.recorder is a.recorder and b.snapshots is a.snapshots
    assert a.recorder.retention_days is None  # the newest retriever's retention
    other = MemoryStore.open(tmp_path / "other.db")
    try:
        c = make(other)
        assert c.recorder is not a.recorder and c.snapshots is not a.snapshots
        assert c.recorder.retention_days == 90.0
    finally:
        other.close()


def test_closing_the_store_flushes_its_recorder(store: MemoryStore) -> None:
    r = make(store)
    done: list[bool] = []

    def slow(conn) -> None:  # type: ignore[no-untyped-def]
        time.sleep(0.3)
        done.append(True)

    r.recorder.submit(slow, lambda: NOW)
    store.close()  # no flush() by the caller
    assert done == [True]


def test_the_default_embedder_is_the_process_wide_one(store: MemoryStore,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    model = NoModel()
    monkeypatch.setattr(emb, "default_embedder", lambda: model)
    r = rt.Retriever(store)
    assert r.embedder() is model
    assert r.embedder() is model


def test_the_module_retrieve_uses_the_given_config(store: MemoryStore,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emb, "default_embedder", lambda: NoModel())
    put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3},
                {"text": "Prefer short answers.", "type": "preference", "days_ago": 9}],
        embed=False)
    res = rt.retrieve(store, "kayak club", "u", 3, "fts,graph", True,
                      ReadConfig(record=False))
    assert (res.k, res.channels, res.injected) == (3, ("fts", "graph"), False)
    assert [h.text for h in res.results] == ["The kayak club meets on Tuesdays."]
    full = rt.retrieve(store, "kayak club", "u", config=ReadConfig(record=False))
    assert full.injected and [p.text for p in full.preferences] == ["Prefer short answers."]
    assert full.k == 10 and full.notes == ["vectors are off: no model here"]
    none = rt.retrieve(store, "kayak club", "u", inject=False, config=ReadConfig(record=False))
    assert not none.injected and none.preferences == []


# ---- torch threads --------------------------------------------------------------------

class FakeTorch(types.ModuleType):
    def __init__(self) -> None:
        super().__init__("torch")
        self.threads: list[int] = []

    def set_num_threads(self, n: int) -> None:
        self.threads.append(n)


@pytest.mark.parametrize(("env", "want"), [(None, 1), ("3", 3)])
def test_the_first_query_sets_the_torch_threads_once(store: MemoryStore,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     env: str | None, want: int) -> None:
    # Queries are encoded on one torch thread unless MEMDESK_TORCH_THREADS says otherwise,
    # set once per process (reset here: another test's query may have set it).
    torch = FakeTorch()
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(rt, "_threads_set", False)
    if env is None:
        monkeypatch.delenv("MEMDESK_TORCH_THREADS", raising=False)
    else:
        monkeypatch.setenv("MEMDESK_TORCH_THREADS", env)
    make(store).retrieve("kayak", "u", dry_run=True)
    assert torch.threads == [want]
    make(store).retrieve("kayak", "u", channels="fts", dry_run=True)
    assert torch.threads == [want]


def test_a_write_after_a_retrieval_is_seen_by_the_next(store: MemoryStore) -> None:
    r = make(store)
    assert r.retrieve("kayak club", "u", dry_run=True).results == []
    put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 0}], embed=False)
    assert [h.text for h in r.retrieve("kayak club", "u", dry_run=True).results] == [
        "The kayak club meets on Tuesdays."]
    assert r.retrieve("kayak club", "u", dry_run=True).at == NOW
    assert NOW - timedelta(days=1) < r.clock()
