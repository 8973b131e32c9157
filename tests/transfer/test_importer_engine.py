"""The import engine (core/transfer/importer.py): its report, its per-item checks, its
batches and what it writes, pinned against the module's own rules.

Rules (module docstring and docs/import-export.md): bad items are reported by number
with the reason (cut to 300 characters; 10,000 kept, the rest counted) and never stop
the import, except that 50 bad items in a row before any good one means the input is
not this format; each batch is one transaction whose counts roll back with it; a vector
without a recorded model is not carried over; an imported deleted memory is logged as
add then delete; an update leaves unchanged rows alone.
"""

from __future__ import annotations

import base64
import io
import json
from contextlib import contextmanager
from datetime import datetime

import numpy as np
import pytest

from memdesk.core.errors import StoreOpenError, ValidationError
from memdesk.core.store.actions import IMPORT
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import MEMORY_EDIT, Changed, Changes
from memdesk.core.transfer.importer import (
    BadItem,
    Candidate,
    Importer,
    ImportReport,
    Source,
    TransferError,
    check_text_value,
    check_vector,
    prepare,
)
from memdesk.core.transfer.jsonl import JsonlSource


def vec(*xs: float) -> bytes:
    return np.array(xs, dtype="<f4").tobytes()


def jl(*rows: dict, **kw) -> JsonlSource:  # type: ignore[no-untyped-def, type-arg]
    data = b"".join(json.dumps(r).encode() + b"\n" for r in rows)
    return JsonlSource(io.BytesIO(data), total=len(data), **kw)


def mem(i: str, **kw) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return {"id": i, "user_id": "u", "text": f"text {i}", "type": "fact", **kw}


class Items(Source):
    """Candidates handed over as they are (a source that maps nothing)."""

    unit = "item"

    def __init__(self, cands: list[Candidate], label: str = "") -> None:
        super().__init__()
        self.cands, self.label, self.total = cands, label, len(cands)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.cands)


# -- the report ----------------------------------------------------------------------
def test_a_reason_is_cut_to_300_characters_with_an_ellipsis() -> None:
    cut = BadItem(1, "r" * 301)
    assert cut.reason == "r" * 299 + "…" and len(cut.reason) == 300
    assert BadItem(1, "r" * 300).reason == "r" * 300
    assert str(BadItem(5, "why")) == "5: why"
    assert str(BadItem(5, "why", "")) == "5: why"


def test_the_first_ten_thousand_bad_items_are_kept_the_rest_counted() -> None:
    rep = ImportReport()
    for n in range(1, 10_002):
        rep.add_bad(BadItem(n, "bad"))
    assert (len(rep.bad), rep.bad_count, rep.unlisted_bad) == (10_000, 10_001, 1)
    assert rep.bad[-1].number == 10_000


def test_what_a_report_says_changed() -> None:
    rep = ImportReport(memory_ids=["a"], group_id="g")
    assert not rep.changed
    assert rep.changes == Changes(("a",), (), "g", Changed.NOTHING)
    assert ImportReport(imported=1).changed and ImportReport(updated=1).changed
    assert ImportReport(updated=1, memory_ids=["b"], group_id="g").changes == Changes(
        ("b",), (), "g", MEMORY_EDIT, action=IMPORT)  # updated only: no new rows


@pytest.mark.parametrize(("rep", "text"), [
    (ImportReport(imported=1234, updated=2, unchanged=3, skipped=4, bad_count=5),
     "imported 1,234, updated 2, unchanged 3, skipped 4 (already in the store), bad 5"),
    (ImportReport(), "imported 0, updated 0, skipped 0, bad 0"),
    (ImportReport(skipped=1500, bad_count=2000),
     "imported 0, updated 0, skipped 1,500 (already in the store), bad 2,000"),
    (ImportReport(unit="row", error="database is locked", stopped_at=4000, imported=7),
     "stopped after row 4,000 (database is locked): imported 7, updated 0, skipped 0, bad 0"),
    (ImportReport(error="gone"), "stopped after line 0 (gone): imported 0, updated 0, "
                                 "skipped 0, bad 0"),
])
def test_the_summary_names_every_count(rep: ImportReport, text: str) -> None:
    assert rep.summary() == text


# -- one item ------------------------------------------------------------------------
def test_text_with_a_lone_surrogate_names_the_code_point() -> None:
    with pytest.raises(ValidationError) as info:
        check_text_value("topic", "ok\udc80")
    assert str(info.value) == ("topic: contains an unpaired surrogate (U+DC80), which is "
                               "not valid Unicode text")
    check_text_value("topic", "fine ✓")


@pytest.mark.parametrize(("blob", "message"), [
    (b"", "embedding: must be float32 values (a multiple of 4 bytes), got 0 bytes"),
    (b"\0" * 7, "embedding: must be float32 values (a multiple of 4 bytes), got 7 bytes"),
    (vec(1.0, float("-inf")), "embedding: contains NaN or infinite values"),
])
def test_a_vector_must_be_finite_float32(blob: bytes, message: str) -> None:
    with pytest.raises(ValidationError) as info:
        check_vector(blob)
    assert str(info.value) == message
    check_vector(vec(0.0, -1.5))


def test_prepare_validates_routes_and_carries_the_model_with_the_vector() -> None:
    row, given = prepare({"id": "a", "user_id": "u", "text": "t", "type": "preference",
                          "embedding": vec(1.0), "embedding_model": "mini"})
    assert given == frozenset({"id", "user_id", "text", "type", "embedding"})
    assert (row["id"], row["layer"], row["embedding"], row["embedding_model"]) == (
        "a", "procedural", vec(1.0), "mini")
    row, given = prepare({"id": "b", "user_id": "u", "text": "t", "type": "fact",
                          "embedding_model": "mini"})
    assert "embedding_model" not in row and given == frozenset({"id", "user_id", "text",
                                                                "type"})


@pytest.mark.parametrize(("values", "message"), [
    ({"id": "a", "superseded_by": "a"}, "superseded_by: a memory cannot supersede itself"),
    ({"id": "a", "source_session": "s\ud800"},
     "source_session: contains an unpaired surrogate (U+D800), which is not valid Unicode "
     "text"),
    ({"id": "a", "embedding": b"\0\0"},
     "embedding: must be float32 values (a multiple of 4 bytes), got 2 bytes"),
])
def test_prepare_refuses_what_only_an_import_gets_wrong(values: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValidationError) as info:
        prepare({"user_id": "u", "text": "t", "type": "fact", **values})
    assert str(info.value) == message


def test_an_unknown_on_existing_is_refused(store: MemoryStore) -> None:
    with pytest.raises(ValidationError) as info:
        Importer(store, on_existing="replace")  # type: ignore[arg-type]
    assert str(info.value) == "on_existing: must be skip or update, got 'replace'"


# -- driving -------------------------------------------------------------------------
def test_forty_nine_bad_items_then_a_good_one_is_an_import(store: MemoryStore) -> None:
    cands = [Candidate(n, None, "nope") for n in range(1, 50)]
    cands.append(Candidate(50, mem("ok")))
    rep = Importer(store).run(Items(cands))
    assert (rep.imported, rep.bad_count) == (1, 50 - 1)


def test_fifty_bad_items_first_is_not_this_format(store: MemoryStore) -> None:
    cands = [Candidate(n, None, f"nope {n}") for n in range(1, 60)]
    with pytest.raises(TransferError) as info:
        Importer(store).run(Items(cands, label="in.json"))
    assert str(info.value) == (
        "in.json does not look like memories in this format: its first 50 items are all "
        "invalid (item 1: nope 1). Nothing was imported.")


def test_after_a_good_item_any_number_of_bad_ones_is_reported(store: MemoryStore) -> None:
    cands = [Candidate(1, mem("ok"))] + [Candidate(n, {"id": 7}) for n in range(2, 62)]
    rep = Importer(store).run(Items(cands))
    assert (rep.imported, rep.bad_count) == (1, 60)
    assert rep.bad[0] == BadItem(2, "id: must be text, got int", None)  # the store's rule


def test_a_bad_item_keeps_its_id_when_it_is_text(store: MemoryStore) -> None:
    rep = Importer(store).run(Items([Candidate(1, mem("x", importance=2.0)),
                                     Candidate(2, None, "unreadable", ref="r2"),
                                     Candidate(3, None)]))
    assert [(b.number, b.ref) for b in rep.bad] == [(1, "x"), (2, "r2"), (3, None)]
    assert rep.bad[1].reason == "unreadable"


def test_progress_after_each_batch_and_at_the_end(store: MemoryStore) -> None:
    src = jl(*(mem(f"m{i}") for i in range(5)))
    seen: list[tuple[int, int]] = []
    rep = Importer(store, batch_size=2, keep_ids=True).run(
        src, progress=lambda d, t: seen.append((d, t)))
    ends = [c.position for c in jl(*(mem(f"m{i}") for i in range(5)))]
    assert seen == [(ends[1], src.total), (ends[3], src.total), (src.total, src.total)]
    assert rep.memory_ids == [f"m{i}" for i in range(5)]
    assert rep.stopped_at is None and rep.group_id is not None and not rep.cancelled


def test_ids_are_kept_only_when_asked(store: MemoryStore) -> None:
    rep = Importer(store).run(jl(mem("a")))
    assert rep.imported == 1 and rep.memory_ids == []


def test_a_store_that_fails_mid_import_keeps_earlier_batches_and_says_where(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    real = store.write
    calls: list[int] = []

    @contextmanager
    def write():  # type: ignore[no-untyped-def]
        calls.append(1)
        with real() as conn:
            yield conn
            if len(calls) == 2:  # the second batch's commit fails
                raise StoreOpenError("database is locked")

    monkeypatch.setattr(store, "write", write)
    rep = Importer(store, batch_size=2, keep_ids=True).run(
        jl(mem("a"), mem("b"), mem("c"), mem("d", deleted_at="2025-01-01T00:00:00"), mem("e")))
    assert (rep.imported, rep.memory_ids, rep.stopped_at) == (2, ["a", "b"], 2)
    assert rep.error == "database is locked"
    assert rep.summary() == ("stopped after line 2 (database is locked): imported 2, "
                             "updated 0, skipped 0, bad 0")
    assert store.count() == 2


def test_a_vector_without_its_model_is_left_behind(store: MemoryStore) -> None:
    v = base64.b64encode(vec(*[0.5] * 384)).decode()
    rep = Importer(store).run(jl(mem("a", embedding=v), mem("b", embedding=v)))
    assert rep.imported == 2 and dict(rep.dropped) == {
        "embedding (its model is not recorded; `memdesk embed` can fill vectors)": 2}
    assert store.get("a").embedding is None


def test_an_imported_deleted_memory_is_logged_as_add_then_delete(store: MemoryStore) -> None:
    rep = Importer(store, note="from backup").run(
        jl(mem("a"), mem("d", deleted_at="2025-01-01T00:00:00")))
    events = store.group_events(rep.group_id)
    assert sorted((e.memory_id, e.action) for e in events) == [
        ("a", "add"), ("d", "add"), ("d", "delete")]
    assert {(e.actor, e.note) for e in events} == {("import", "from backup")}
    [delete] = [e for e in events if e.action == "delete"]
    assert (delete.before, delete.after) == ({"deleted_at": None},
                                             {"deleted_at": datetime(2025, 1, 1)})
    assert store.get("d").deleted_at == datetime(2025, 1, 1)
    store.undo_group(rep.group_id)
    assert store.get("d").deleted_at is not None and store.get("a").deleted_at is not None


# -- existing ids --------------------------------------------------------------------
def test_an_update_that_changes_nothing_is_unchanged(store: MemoryStore) -> None:
    store.add(id="a", user_id="u", text="text a", type="fact", embedding=vec(1.0, 2.0))
    rep = Importer(store, on_existing="update", keep_ids=True).run(jl(mem("a")))
    assert (rep.updated, rep.unchanged, rep.memory_ids, rep.group_id) == (0, 1, [], None)
    assert "unchanged 1" in rep.summary()


def test_an_update_of_only_the_vector_replaces_or_clears_it(store: MemoryStore) -> None:
    store.add(id="a", user_id="u", text="text a", type="fact", embedding=vec(1.0, 2.0))
    imp = Importer(store, on_existing="update", keep_ids=True)
    with store.write() as conn:
        imp._update(conn, (1, {"id": "a", "embedding": vec(3.0, 4.0)},
                           frozenset({"id", "embedding"})))
    assert (imp.report.updated, imp.report.memory_ids) == (1, ["a"])
    assert store.get("a").embedding == vec(3.0, 4.0) and store.get("a").text == "text a"
    with store.write() as conn:
        imp._update(conn, (2, {"id": "a", "embedding": None}, frozenset({"id", "embedding"})))
    assert imp.report.updated == 2 and store.get("a").embedding is None
    with store.write() as conn:
        imp._update(conn, (3, {"id": "a", "embedding": None}, frozenset({"id", "embedding"})))
    assert (imp.report.updated, imp.report.unchanged) == (2, 1)


def test_skipped_rows_are_looked_up_beyond_one_query_chunk(store: MemoryStore) -> None:
    store.add_many([{"id": f"m{i}", "user_id": "u", "text": "t", "type": "fact"}
                    for i in range(901)], audit=False)
    cands = [Candidate(i + 1, mem(f"m{i}")) for i in range(901)]
    rep = Importer(store, batch_size=1000).run(Items(cands))
    assert (rep.skipped, rep.imported) == (901, 0)


def test_a_link_that_never_resolves_is_a_bad_item_in_line_order(store: MemoryStore) -> None:
    rep = Importer(store).run(jl(mem("a", superseded_by="nowhere"), {"id": 5}, mem("b")))
    assert [(b.number, b.ref) for b in rep.bad] == [(1, "a"), (2, None)]
    assert rep.bad[0].reason == ("superseded_by: no memory with id 'nowhere' in the store "
                                 "or in the input")
    assert rep.imported == 1 and rep.stopped_at is None


def test_a_cancel_does_not_report_links_still_waiting(store: MemoryStore) -> None:
    calls: list[int] = []
    rep = Importer(store).run(jl(mem("a", superseded_by="later"), mem("b"), mem("c")),
                              cancelled=lambda: len(calls) >= 2 or bool(calls.append(1)))
    assert rep.cancelled and rep.bad == [] and rep.imported == 1
    assert rep.stopped_at == 2
    assert rep.summary() == "cancelled after line 2: imported 1, updated 0, skipped 0, bad 0"


def test_the_store_itself_is_not_an_input(store: MemoryStore, store_path) -> None:  # type: ignore[no-untyped-def]
    from memdesk.core.transfer.recall import RecallSource

    store.checkpoint()
    source = RecallSource(store_path)
    try:
        with pytest.raises(TransferError) as info:
            Importer(store).run(source)
    finally:
        source.close()
    assert str(info.value) == f"{store_path} is the store being imported into; nothing to do."
