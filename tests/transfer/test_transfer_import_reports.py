"""Import at its edges: long ids in bad-item reports, the cancelled summary, which
vectors a batch keeps when lines name different models, the give-up message, and the
Mem0 source's label and progress positions."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.transfer.importer import (
    GIVE_UP_AFTER,
    BadItem,
    Importer,
    ImportReport,
    TransferError,
)
from memdesk.core.transfer.jsonl import JsonlSource
from memdesk.core.transfer.mem0 import Mem0Source
from memdesk.core.write.embed import check_space_in

OURS = "all-MiniLM-L6-v2"
OTHER = ("embedding (made by other-model, 384 dims; this store's vectors come from "
         "another model)")


def test_a_long_ref_is_cut_to_64_characters_with_an_ellipsis() -> None:
    long = BadItem(7, "bad type", "x" * 100)
    assert long.ref == "x" * 63 + "…" and len(long.ref) == 64
    assert str(long) == f"7 (id {'x' * 63}…): bad type"
    exact = BadItem(8, "bad type", "y" * 64)  # 64 fits: left alone
    assert exact.ref == "y" * 64


def test_cancelled_summary_counts_from_line_zero_when_nothing_was_read() -> None:
    rep = ImportReport(imported=2, cancelled=True)
    assert rep.summary() == "cancelled after line 0: imported 2, updated 0, skipped 0, bad 0"
    rep = ImportReport(unit="item", cancelled=True, stopped_at=1234)
    assert rep.summary() == "cancelled after item 1,234: imported 0, updated 0, skipped 0, bad 0"


def test_a_cancel_before_the_first_line_is_reported_as_after_line_zero(
        store: MemoryStore) -> None:
    data = b'{"id": "a", "user_id": "u", "text": "t", "type": "fact"}\n'
    rep = Importer(store).run(JsonlSource(io.BytesIO(data), total=len(data)),
                              cancelled=lambda: True)
    assert rep.summary() == "cancelled after line 0: imported 0, updated 0, skipped 0, bad 0"
    assert store.count() == 0


def line(mid: str, model: str, seed: int) -> bytes:
    v = np.random.default_rng(seed).normal(size=384).astype("<f4")
    v = (v / np.linalg.norm(v)).astype("<f4")
    return json.dumps({"id": mid, "user_id": "u", "text": f"memory {mid}", "type": "fact",
                       "embedding": base64.b64encode(v.tobytes()).decode(),
                       "embedding_model": model}).encode() + b"\n"


@pytest.mark.parametrize("order", [("m1", "o1"), ("o1", "m1")])
def test_each_model_in_a_batch_is_judged_on_its_own(store: MemoryStore,
                                                     order: tuple[str, str]) -> None:
    with store.write() as conn:
        check_space_in(conn)  # this store holds all-MiniLM-L6-v2 vectors
    model = {"m1": OURS, "o1": "other-model"}
    data = b"".join(line(mid, model[mid], i) for i, mid in enumerate(order))
    rep = Importer(store).run(JsonlSource(io.BytesIO(data), total=len(data)))
    assert rep.imported == 2 and not rep.bad
    assert dict(rep.dropped) == {OTHER: 1}
    assert store.get("o1").embedding is None
    assert len(store.get("m1").embedding) == 384 * 4  # our model's vector is kept


def test_input_that_is_not_memories_names_its_first_bad_line(store: MemoryStore) -> None:
    # line 1 is broken JSON, the rest are valid JSON but not memories: the message
    # quotes the first one
    rest = [json.dumps({"col_a": i}).encode() for i in range(GIVE_UP_AFTER + 10)]
    data = b"\n".join([b"{oops", *rest])
    src = JsonlSource(io.BytesIO(data), total=len(data))
    with pytest.raises(TransferError) as err:
        Importer(store).run(src)
    assert str(err.value) == (
        f"the input does not look like memories in this format: its first {GIVE_UP_AFTER} "
        "lines are all invalid (line 1: not JSON: Expecting property name enclosed in "
        "double quotes (column 2)). Nothing was imported.")
    assert store.count() == 0


def test_mem0_source_without_a_label_calls_it_the_input() -> None:
    with pytest.raises(TransferError) as err:
        Mem0Source(io.BytesIO(b'{"memories": []}'))
    assert str(err.value) == (
        'the input is not a Mem0 export: expected an object with a "results" list '
        "(what get_all returns) or a list of memories.")
    assert Mem0Source(io.BytesIO(b"[]")).label == ""


def test_mem0_items_carry_their_position_for_progress(store: MemoryStore) -> None:
    items = [{"id": f"i{n}", "memory": f"fact {n}", "user_id": "u"} for n in (1, 2)]
    items.insert(1, "not an object")
    src = Mem0Source(io.BytesIO(json.dumps(items).encode()))
    assert [(c.number, c.position, c.error is None) for c in src] == [
        (1, 1, True), (2, 2, False), (3, 3, True)]
    seen: list[tuple[int, int]] = []
    src = Mem0Source(io.BytesIO(json.dumps(items).encode()))
    rep = Importer(store, batch_size=1).run(src, progress=lambda a, b: seen.append((a, b)))
    assert rep.imported == 2 and rep.bad_count == 1
    assert seen == [(1, 3), (3, 3), (3, 3)]  # after each written batch, then the end
