"""core/demo/store.py: where the demo store lives, when it counts as present, and the
atomic build (a temporary ".building" file renamed when complete; nothing left behind
by a cancelled build, nor by an earlier one that died)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.core import demo
from memdesk.core.delta import demo as delta_demo
from memdesk.core.demo import store as demo_store
from memdesk.core.store.memory_store import MemoryStore


@pytest.fixture(autouse=True)
def no_delta_series(monkeypatch: pytest.MonkeyPatch) -> None:
    """The delta series has tests of its own; skipping it keeps these fast."""
    monkeypatch.setattr(delta_demo, "generate_snapshots", lambda store, **kw: 0)


def _rows(path: Path) -> int:
    s = MemoryStore.open(path)
    try:
        return s.counts()["total"]
    finally:
        s.close()


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != "d.db")


def test_demo_store_path_is_demo_db_in_the_users_data_dir(tmp_path: Path) -> None:
    # isolated_profile (conftest) points XDG_DATA_HOME at tmp_path/profile/data.
    assert demo_store.demo_store_path() == tmp_path / "profile" / "data" / "memdesk" / "demo.db"


def test_the_data_dir_is_memdesks_without_an_author_folder(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    asked: list[tuple] = []

    def user_data_dir(*args, **kw):  # type: ignore[no-untyped-def]
        asked.append((args, kw))
        return "/data/memdesk"

    monkeypatch.setattr(demo_store.platformdirs, "user_data_dir", user_data_dir)
    assert demo_store.demo_store_path() == Path("/data/memdesk/demo.db")
    # appauthor=False: no "<author>" folder on Windows (memdesk/, not memdesk/memdesk/).
    assert asked == [(("memdesk",), {"appauthor": False})]


def test_demo_exists_only_for_a_non_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "d.db"
    assert demo_store.demo_exists(path) is False
    path.write_bytes(b"")
    assert demo_store.demo_exists(path) is False
    path.write_bytes(b"x")
    assert demo_store.demo_exists(path) is True


def test_default_size_is_5000(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple] = []
    monkeypatch.setattr(demo, "generate",
                        lambda store, size, progress=None: seen.append((size, progress)))
    assert demo_store.DEMO_SIZE == 5000
    demo_store.build_demo(tmp_path / "d.db")
    assert seen == [(5000, None)]


def test_build_writes_the_store_and_leaves_nothing_else(tmp_path: Path) -> None:
    folder = tmp_path / "new" / "place"  # made as needed
    calls: list[tuple[int, int]] = []
    out = demo_store.build_demo(folder / "d.db", 70, progress=lambda d, t: calls.append((d, t)))
    assert out == folder / "d.db"
    assert _rows(out) == 70
    assert calls[-1] == (70, 70)
    assert _leftovers(folder) == []
    assert demo_store.demo_exists(out)


def test_a_dead_earlier_build_is_cleared_first(tmp_path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        (tmp_path / f"d.db.building{suffix}").write_bytes(b"garbage from a killed build")
    demo_store.build_demo(tmp_path / "d.db", 65)
    assert _rows(tmp_path / "d.db") == 65
    assert _leftovers(tmp_path) == []


def test_a_rebuild_replaces_the_old_store(tmp_path: Path) -> None:
    demo_store.build_demo(tmp_path / "d.db", 80)
    demo_store.build_demo(tmp_path / "d.db", 65)
    assert _rows(tmp_path / "d.db") == 65
    assert _leftovers(tmp_path) == []


class Cancelled(Exception):
    pass


def test_a_cancelled_build_leaves_no_file_and_keeps_the_old_one(tmp_path: Path) -> None:
    def cancel(done: int, total: int) -> None:
        raise Cancelled

    with pytest.raises(Cancelled):
        demo_store.build_demo(tmp_path / "d.db", 70, progress=cancel)
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    demo_store.build_demo(tmp_path / "d.db", 62)
    with pytest.raises(Cancelled):
        demo_store.build_demo(tmp_path / "d.db", 70, progress=cancel)
    assert _rows(tmp_path / "d.db") == 62  # the store that was there is untouched
    assert _leftovers(tmp_path) == []


def test_the_desks_demo_has_a_vector_for_every_memory(tmp_path: Path, embedder) -> None:
    """The GUI's first open embeds the demo, so the inspector's vector channel is not
    empty on first use; one progress bar covers rows, then vectors."""
    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.store.query import MemoryFilter, Status
    from memdesk.core.write.embed import missing_count

    calls: list[tuple[int, int]] = []
    out = demo_store.build_demo(tmp_path / "d.db", 60, lambda d, t: calls.append((d, t)),
                                vectors=True)
    s = MemoryStore.open(out)
    try:
        assert s.count(MemoryFilter(statuses=tuple(Status))) == 60 and missing_count(s) == 0
    finally:
        s.close()
    assert calls[-1] == (2000, 2000)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)  # never goes back
    assert _leftovers(tmp_path) == []
