"""Exporting memdesk JSON Lines (core/transfer/jsonl.py): order, counts, progress,
cancelling, and the file an export leaves (or does not leave) behind.

Rules from the module docstring: lines in ``seq`` order except that a replaced memory
comes right after the memory that replaced it (several in ``seq`` order); a link to a
memory outside the export is "dangling" and written where it is; progress every 1,000
lines and at the end; a cancel is checked every 256 rows; the file appears only when
complete, with the permissions a plain ``open()`` would give it.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np
import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.transfer.importer import TransferError
from memdesk.core.transfer.jsonl import ExportReport, export_filter, export_jsonl, export_to_file


def texts(data: bytes) -> list[str]:
    return [json.loads(x)["text"] for x in data.splitlines()]


def export(store: MemoryStore, flt: MemoryFilter | None = None, **kw) -> tuple[ExportReport, bytes]:  # type: ignore[no-untyped-def]
    buf = io.BytesIO()
    rep = export_jsonl(store, buf, flt, **kw)
    return rep, buf.getvalue()


def many(store: MemoryStore, n: int) -> None:
    store.add_many([{"user_id": "u", "text": f"row {i}", "type": "note"} for i in range(n)],
                   audit=False)


def test_the_default_filter_is_every_status_and_a_chosen_one_is_kept() -> None:
    assert export_filter(None) == MemoryFilter(statuses=tuple(Status))
    assert export_filter(MemoryFilter(text="x")) == MemoryFilter(text="x",
                                                                 statuses=tuple(Status))
    chosen = MemoryFilter(statuses=(Status.DELETED,))
    assert export_filter(chosen) is chosen


def test_rows_waiting_for_one_replacement_follow_it_in_seq_order(store: MemoryStore) -> None:
    a = store.add(user_id="u", text="a", type="fact")
    b = store.add(user_id="u", text="b", type="fact")
    store.add(user_id="u", text="x", type="fact")
    c = store.add(user_id="u", text="c", type="fact")
    store.add(user_id="u", text="y", type="fact")
    store.supersede(a.id, c.id)
    store.supersede(b.id, c.id)
    rep, data = export(store)
    assert texts(data) == ["x", "c", "a", "b", "y"]
    assert rep == ExportReport(written=5, dangling=0, cancelled=False)


def test_a_link_leaving_the_export_is_counted_and_written_in_place(store: MemoryStore) -> None:
    a = store.add(user_id="u", text="a", type="fact")
    b = store.add(user_id="u", text="b", type="fact")
    c = store.add(user_id="u", text="c", type="fact")
    store.supersede(a.id, c.id)
    store.soft_delete(b.id)
    rep, data = export(store, MemoryFilter(statuses=(Status.SUPERSEDED, Status.DELETED)))
    assert texts(data) == ["a", "b"]
    assert rep == ExportReport(written=2, dangling=1)
    rep, data = export(store, MemoryFilter(statuses=(Status.ACTIVE,)))
    assert texts(data) == ["c"] and rep == ExportReport(written=1, dangling=0)


def test_vectors_without_a_recorded_model_say_so(store: MemoryStore) -> None:
    vec = np.ones(4, dtype="<f4").tobytes()
    store.add(user_id="u", text="a", type="fact", embedding=vec)
    _, data = export(store, with_embeddings=True)
    line = json.loads(data)
    assert line["embedding"] == "AACAPwAAgD8AAIA/AACAPw==" and line["embedding_model"] is None
    _, data = export(store)
    assert "embedding" not in json.loads(data)


def test_progress_every_thousand_lines_and_at_the_end(store: MemoryStore) -> None:
    many(store, 1001)
    seen: list[tuple[int, int]] = []
    rep, _ = export(store, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1000, 1001), (1001, 1001)]
    assert rep == ExportReport(written=1001, dangling=0)


def test_a_cancel_is_checked_every_256_rows(store: MemoryStore) -> None:
    many(store, 300)
    calls: list[int] = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) == 2

    rep, data = export(store, cancelled=cancelled)
    assert rep == ExportReport(written=256, dangling=0, cancelled=True)
    assert len(data.splitlines()) == 256 and len(calls) == 2
    calls.clear()
    rep, _ = export(store, cancelled=lambda: bool(calls.append(1)))
    assert rep == ExportReport(written=300, dangling=0) and len(calls) == 2  # rows 0 and 256


# -- to a file -----------------------------------------------------------------------
def test_an_export_to_a_file_writes_it_whole_with_plain_permissions(
        store: MemoryStore, tmp_path: Path) -> None:
    store.add(user_id="u", text="a", type="fact")
    path = tmp_path / "out.jsonl"
    old = os.umask(0o022)
    try:
        rep = export_to_file(store, path)
    finally:
        os.umask(old)
    assert rep == ExportReport(written=1, dangling=0)
    assert texts(path.read_bytes()) == ["a"]
    assert path.stat().st_mode & 0o777 == 0o644  # 0o666 less the umask
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


def test_a_home_relative_path_is_expanded(store: MemoryStore, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    store.add(user_id="u", text="a", type="fact")
    export_to_file(store, Path("~/x.jsonl"))
    assert texts((home / "x.jsonl").read_bytes()) == ["a"]


def test_a_cancelled_export_keeps_the_previous_file(store: MemoryStore, tmp_path: Path) -> None:
    store.add(user_id="u", text="a", type="fact")
    path = tmp_path / "out.jsonl"
    path.write_bytes(b"previous\n")
    rep = export_to_file(store, path, cancelled=lambda: True)
    assert rep == ExportReport(written=0, dangling=0, cancelled=True)
    assert path.read_bytes() == b"previous\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
def test_the_store_itself_is_refused(store: MemoryStore, suffix: str) -> None:
    target = Path(str(store.url).split("///", 1)[1] + suffix)
    with pytest.raises(TransferError) as info:
        export_to_file(store, target)
    assert str(info.value) == f"{target} is the store itself; choose another file."


def test_a_folder_or_a_missing_folder_is_refused(store: MemoryStore, tmp_path: Path) -> None:
    with pytest.raises(TransferError) as info:
        export_to_file(store, tmp_path)
    assert str(info.value) == f"{tmp_path} is a folder; give a file name."
    missing = tmp_path / "nope" / "out.jsonl"
    with pytest.raises(TransferError) as info:
        export_to_file(store, missing)
    assert str(info.value) == f"The folder {tmp_path / 'nope'} does not exist."


def test_a_folder_it_cannot_write_in_is_named(store: MemoryStore, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(**kw):  # type: ignore[no-untyped-def]
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("tempfile.mkstemp", refuse)
    with pytest.raises(TransferError) as info:
        export_to_file(store, tmp_path / "out.jsonl")
    assert str(info.value) == f"Cannot write in {tmp_path}: Permission denied."


def test_a_failed_write_leaves_the_previous_file_and_no_partial(
        store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store.add(user_id="u", text="a", type="fact")
    path = tmp_path / "out.jsonl"
    path.write_bytes(b"previous\n")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(TransferError) as info:
        export_to_file(store, path)
    assert str(info.value) == f"Cannot write {path}: No space left on device."
    assert path.read_bytes() == b"previous\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


def test_a_partial_that_cannot_be_removed_still_reports_the_write_error(
        store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The drive went away: the write fails, and so does removing the partial file.
    store.add(user_id="u", text="a", type="fact")
    path = tmp_path / "out.jsonl"
    real_unlink = os.unlink
    tried: list[str] = []

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    def stuck(name, *args, **kw):  # type: ignore[no-untyped-def]
        if str(name).endswith(".partial"):
            tried.append(str(name))
            raise OSError(5, "Input/output error")
        return real_unlink(name, *args, **kw)

    monkeypatch.setattr(os, "fsync", full)
    monkeypatch.setattr(os, "unlink", stuck)
    with pytest.raises(TransferError) as info:
        export_to_file(store, path)
    assert str(info.value) == f"Cannot write {path}: No space left on device."
    assert len(tried) == 1 and not path.exists()


def test_an_error_that_is_not_about_the_file_is_raised_as_it_is(
        store: MemoryStore, tmp_path: Path) -> None:
    many(store, 1000)
    path = tmp_path / "out.jsonl"

    def boom(done: int, total: int) -> None:
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError, match=r"^stop$"):
        export_to_file(store, path, progress=boom)
    assert not path.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


def test_an_export_to_a_file_applies_its_filter_and_vectors(store: MemoryStore,
                                                            tmp_path: Path) -> None:
    store.add(user_id="u", text="a", type="fact", embedding=np.ones(4, dtype="<f4").tobytes())
    store.add(user_id="v", text="b", type="fact")
    path = tmp_path / "o.jsonl"
    rep = export_to_file(store, path, MemoryFilter(user_ids=("u",)), with_embeddings=True)
    assert rep == ExportReport(written=1, dangling=0)
    line = json.loads(path.read_bytes())
    assert line["text"] == "a" and line["embedding"] == "AACAPwAAgD8AAIA/AACAPw=="
    export_to_file(store, path)
    assert texts(path.read_bytes()) == ["a", "b"]
    assert "embedding" not in json.loads(path.read_bytes().splitlines()[0])
