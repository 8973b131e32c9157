"""Backfill and the embedding space, exactly: which rows get vectors, in which windows
and batches, what progress and the report say, what the audit log records, where a
cancel stops, the space check's refusals word for word, and re-embedding.  A small fake
encoder (4 dims, vectors from the text) stands in for the model."""

from __future__ import annotations

import numpy as np
import pytest

from memdesk.core import embeddings
from memdesk.core.errors import MemdeskError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.vectors import write_vectors_by_id_in
from memdesk.core.write import embed
from memdesk.core.write.embed import (
    BackfillReport,
    EmbeddingSpaceMismatch,
    Space,
    backfill,
    check_space_in,
    encode_unique,
    missing_count,
    recorded_space,
    reembed_all,
    space_problem,
)

TEXTS = ["a", "bbbb", "cc", "ddddd", "eee"]  # distinct lengths: the encode order is known


class FakeEncoder:
    name, dim = "fake-model", 4

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], int]] = []

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        self.calls.append((list(texts), batch_size))
        return np.array([self.vector(t) for t in texts], dtype=np.float32).reshape(-1, 4)

    @staticmethod
    def vector(text: str) -> list[float]:
        return [float(len(text)), 1.0, 0.0, -1.0]

    def texts(self) -> list[list[str]]:
        return [c[0] for c in self.calls]


def blob(text: str) -> bytes:
    return np.array(FakeEncoder.vector(text), dtype="<f4").tobytes()


def fill(store: MemoryStore, texts: list[str] = TEXTS) -> list[str]:
    return store.add_many([{"user_id": "u", "text": t, "type": "fact"} for t in texts])


def space(store: MemoryStore) -> Space | None:
    with store.read() as conn:
        return recorded_space(conn)


def events(store: MemoryStore, action: str) -> list:  # type: ignore[type-arg]
    return sorted((e for e in store.events("*") if e.action == action), key=lambda e: e.id)


MISMATCH = ("The store's vectors were made by {found}; this memdesk embeds with {model} "
            "({dim} dims). Vectors of different models cannot be compared, so none were "
            "written. Run `memdesk embed --reembed` to replace every vector with the new "
            "model.")


# -- backfill -----------------------------------------------------------------------------
def test_a_batch_below_one_is_refused(store: MemoryStore) -> None:
    fill(store)
    with pytest.raises(MemdeskError) as err:
        backfill(store, batch=0, embedder=FakeEncoder())
    assert str(err.value) == "--batch must be at least 1"
    assert missing_count(store) == 5 and space(store) is None
    assert backfill(store, batch=1, embedder=FakeEncoder()).embedded == 5


def test_backfill_writes_every_vector_in_batches_and_audits_each(store: MemoryStore) -> None:
    ids = fill(store)
    enc = FakeEncoder()
    seen: list[tuple[int, int]] = []
    rep = backfill(store, batch=2, embedder=enc, progress=lambda d, t: seen.append((d, t)))
    assert rep == BackfillReport(5, 0, False, "fake-model")
    assert seen == [(0, 5), (2, 5), (4, 5), (5, 5)]
    # one window, its texts encoded longest first, in encode batches of ENCODE_BATCH
    assert enc.calls == [(["ddddd", "bbbb", "eee", "cc", "a"], 32)]
    for mid, text in zip(ids, TEXTS, strict=True):
        assert store.get(mid).embedding == blob(text)
    assert space(store) == Space("fake-model", 4)
    evs = events(store, "embed")
    assert [(e.memory_id, e.stream, e.actor, e.before, e.after, e.note) for e in evs] == [
        (None, "store", "worker", {}, {"rows": 2, "model": "fake-model"},
         "vectors for 2 memories"),
        (None, "store", "worker", {}, {"rows": 2, "model": "fake-model"},
         "vectors for 2 memories"),
        (None, "store", "worker", {}, {"rows": 1, "model": "fake-model"},
         "vectors for 1 memories"),
    ]
    # nothing left: a second run embeds nothing and says so
    assert backfill(store, embedder=enc) == BackfillReport(0, 0, False, "fake-model")
    assert len(enc.calls) == 1


def test_backfill_skips_deleted_rows_and_rows_with_a_vector(store: MemoryStore) -> None:
    ids = fill(store)
    store.soft_delete(ids[0])
    with store.write() as conn:
        check_space_in(conn, "fake-model", 4)
        write_vectors_by_id_in(conn, [(ids[1], blob("kept"))])
    assert missing_count(store) == 3
    enc = FakeEncoder()
    assert backfill(store, embedder=enc) == BackfillReport(3, 0, False, "fake-model")
    assert enc.texts() == [["ddddd", "eee", "cc"]]
    assert store.get(ids[0]).embedding is None
    assert store.get(ids[1]).embedding == blob("kept")


def test_backfill_reads_a_window_of_read_ahead_rows_or_one_batch_if_larger(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    fill(store)
    monkeypatch.setattr(embed, "READ_AHEAD", 2)
    enc = FakeEncoder()
    assert backfill(store, batch=1, embedder=enc).embedded == 5
    assert enc.texts() == [["bbbb", "a"], ["ddddd", "cc"], ["eee"]]  # by seq, 2 at a time
    assert len(events(store, "embed")) == 5
    reembed_all(store, "fake-model", 4)
    enc = FakeEncoder()
    assert backfill(store, batch=3, embedder=enc).embedded == 5
    assert enc.texts() == [["bbbb", "cc", "a"], ["ddddd", "eee"]]


def test_a_text_repeated_in_a_later_window_is_not_encoded_again(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = fill(store, ["a", "bb", "a", "bb", "ccc"])
    monkeypatch.setattr(embed, "READ_AHEAD", 2)
    enc = FakeEncoder()
    assert backfill(store, batch=2, embedder=enc).embedded == 5
    assert enc.texts() == [["bb", "a"], ["ccc"]]
    assert [store.get(i).embedding for i in ids] == [
        blob("a"), blob("bb"), blob("a"), blob("bb"), blob("ccc")]


def test_rows_added_while_running_are_embedded_and_the_figures_stay_in_range(
        store: MemoryStore) -> None:
    fill(store)
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        if not seen:
            fill(store, ["late"])
        seen.append((done, total))

    rep = backfill(store, batch=3, embedder=FakeEncoder(), progress=progress)
    assert rep == BackfillReport(6, 0, False, "fake-model")
    assert seen == [(0, 5), (3, 5), (5, 5)]
    assert missing_count(store) == 0


def test_a_cancel_before_the_first_window_writes_nothing(store: MemoryStore) -> None:
    fill(store)
    enc = FakeEncoder()
    seen: list[tuple[int, int]] = []
    rep = backfill(store, embedder=enc, progress=lambda d, t: seen.append((d, t)),
                   cancelled=lambda: True)
    assert rep == BackfillReport(0, 5, True, "fake-model")
    assert seen == [(0, 5)] and enc.calls == [] and events(store, "embed") == []
    assert missing_count(store) == 5


def test_a_cancel_while_encoding_keeps_what_was_encoded(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = fill(store)
    monkeypatch.setattr(embed, "ENCODE_CHUNK", 2)
    answers = iter([False, True])  # the loop's check, then the check between chunks
    enc = FakeEncoder()
    seen: list[tuple[int, int]] = []
    rep = backfill(store, batch=10, embedder=enc, progress=lambda d, t: seen.append((d, t)),
                   cancelled=lambda: next(answers, True))
    assert rep == BackfillReport(2, 3, True, "fake-model")
    assert seen == [(0, 5), (2, 5)]
    assert enc.texts() == [["ddddd", "bbbb"]]
    assert [store.get(i).embedding is not None for i in ids] == [
        False, True, False, True, False]


# -- encode_unique ------------------------------------------------------------------------
def test_each_distinct_text_is_encoded_once_longest_first() -> None:
    enc = FakeEncoder()
    out = encode_unique(enc, ["bb", "a", "bb", "ccc"])
    assert enc.calls == [(["ccc", "bb", "a"], 32)]
    assert out == {"ccc": blob("ccc"), "bb": blob("bb"), "a": blob("a")}
    assert encode_unique(enc, []) == {} and len(enc.calls) == 1


def test_the_cache_is_used_and_filled() -> None:
    enc = FakeEncoder()
    cache = {"a": b"cached"}
    out = encode_unique(enc, ["a", "bb", "ccc"], cache=cache)
    assert enc.texts() == [["ccc", "bb"]]
    assert out == {"a": b"cached", "bb": blob("bb"), "ccc": blob("ccc")}
    assert cache == out
    assert encode_unique(enc, ["bb", "a"], cache=cache) == {"bb": blob("bb"), "a": b"cached"}
    assert len(enc.calls) == 1


def test_the_cache_is_emptied_when_it_would_pass_its_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    enc = FakeEncoder()
    monkeypatch.setattr(embed, "CACHE_LIMIT", 4)
    cache = {"old": b"x"}
    encode_unique(enc, ["a", "bb", "ccc"], cache=cache)  # 1 + 3 == 4: kept
    assert set(cache) == {"old", "a", "bb", "ccc"}
    cache = {"old": b"x", "older": b"y"}
    encode_unique(enc, ["a", "bb", "ccc"], cache=cache)  # 2 + 3 > 4: emptied, then refilled
    assert set(cache) == {"a", "bb", "ccc"}


def test_texts_are_encoded_in_chunks_and_a_cancel_is_checked_between_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embed, "ENCODE_CHUNK", 2)
    enc = FakeEncoder()
    asked: list[int] = []

    def never() -> bool:
        asked.append(len(enc.calls))
        return False

    out = encode_unique(enc, ["a", "bb", "ccc", "dddd", "eeeee"], cancelled=never)
    assert enc.texts() == [["eeeee", "dddd"], ["ccc", "bb"], ["a"]]
    assert asked == [1, 2] and len(out) == 5
    enc = FakeEncoder()
    out = encode_unique(enc, ["a", "bb", "ccc"], cancelled=lambda: True)
    assert enc.texts() == [["ccc", "bb"]] and set(out) == {"ccc", "bb"}


# -- the store's space --------------------------------------------------------------------
def test_the_first_write_records_the_space_and_the_same_one_passes(store: MemoryStore) -> None:
    with store.write() as conn:
        check_space_in(conn)
    assert space(store) == Space(embeddings.MODEL_NAME, embeddings.DIM)
    with store.write() as conn:
        check_space_in(conn, embeddings.MODEL_NAME, embeddings.DIM)
    assert space(store) == Space("all-MiniLM-L6-v2", 384)


@pytest.mark.parametrize(("model", "dim"), [("other-model", 384), ("all-MiniLM-L6-v2", 768)])
def test_another_space_is_refused_in_words(store: MemoryStore, model: str, dim: int) -> None:
    with store.write() as conn:
        check_space_in(conn)
    with pytest.raises(EmbeddingSpaceMismatch) as err, store.write() as conn:
        check_space_in(conn, model, dim)
    assert str(err.value) == MISMATCH.format(
        found="all-MiniLM-L6-v2 (384 dims)", model=model, dim=dim)


def test_vectors_without_a_recorded_space_are_refused_and_nothing_is_recorded(
        store: MemoryStore) -> None:
    [mid, *_] = fill(store)
    with store.write() as conn:
        write_vectors_by_id_in(conn, [(mid, b"\x00" * 12)])
    with pytest.raises(EmbeddingSpaceMismatch) as err, store.write() as conn:
        check_space_in(conn, "fake-model", 4)
    assert str(err.value) == MISMATCH.format(
        found="an unrecorded model (3 dims)", model="fake-model", dim=4)
    assert space(store) is None


def test_space_problem_says_why_this_store_cannot_take_our_vectors(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "unavailable_reason", lambda: None)
    assert space_problem(store) is None  # nothing recorded, no vectors
    [mid, *_] = fill(store)
    with store.write() as conn:
        write_vectors_by_id_in(conn, [(mid, b"\x00" * 20)])
    assert space_problem(store) == MISMATCH.format(
        found="an unrecorded model (5 dims)", model="all-MiniLM-L6-v2", dim=384)
    reembed_all(store, "bge-small", 384)
    assert space_problem(store) == MISMATCH.format(
        found="bge-small (384 dims)", model="all-MiniLM-L6-v2", dim=384)
    reembed_all(store, "all-MiniLM-L6-v2", 128)
    assert space_problem(store) == MISMATCH.format(
        found="all-MiniLM-L6-v2 (128 dims)", model="all-MiniLM-L6-v2", dim=384)
    reembed_all(store)
    assert space_problem(store) is None
    monkeypatch.setattr(embeddings, "unavailable_reason", lambda: "vectors are off: test")
    assert space_problem(store) == "vectors are off: test"


def test_reembed_clears_every_vector_records_the_model_and_audits_it(
        store: MemoryStore) -> None:
    fill(store)
    backfill(store, embedder=FakeEncoder())
    assert reembed_all(store, "new-model", 8) == 5
    assert space(store) == Space("new-model", 8) and missing_count(store) == 5
    [ev] = events(store, "reembed")
    assert (ev.memory_id, ev.stream, ev.actor, ev.before, ev.after, ev.note) == (
        None, "store", "operator", {}, {"cleared": 5, "model": "new-model", "dim": 8},
        "vectors cleared for re-embedding with new-model")
    assert reembed_all(store) == 0
    assert space(store) == Space("all-MiniLM-L6-v2", 384)
    assert events(store, "reembed")[-1].after == {
        "cleared": 0, "model": "all-MiniLM-L6-v2", "dim": 384}


def test_missing_count_counts_live_rows_without_a_vector(store: MemoryStore) -> None:
    assert missing_count(store) == 0
    ids = fill(store)
    assert missing_count(store) == 5
    store.soft_delete(ids[2])
    assert missing_count(store) == 4
