"""core/store/backup.py: names and folders, the copy and its check, listing, restore.

Stores here are copies of one real empty store (tests/helpers/store_files.py), and every test points
MEMDESK_BACKUP_DIR at its own folder, so each test is milliseconds and isolated.
Rotation (``thin``) and the automatic policy are in test_store_backup_policy.py.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import platformdirs
import pytest

from memdesk.core.errors import StoreOpenError
from memdesk.core.store import backup
from memdesk.core.store.backup import (
    BackupError,
    BackupInfo,
    backup_connection,
    backup_dir,
    backup_root,
    backup_store,
    latest_backup,
    latest_good_backup,
    list_backups,
    restore,
)
from memdesk.core.store.db import connect_raw
from tests.helpers.store_files import null_in_not_null_column, real_store_file


def _db(path: Path, *sql: str | Callable[[Path], None], rows: int = 3) -> Path:
    """A real store holding ``rows`` memories (m0, m1…), plus ``sql``."""
    return real_store_file(path, *sql, rows=rows)


BAD_INDEX = (  # integrity_check (and so "full") sees this; quick_check does not
    "CREATE INDEX i ON memories(text)",
    "PRAGMA writable_schema = ON",
    "UPDATE sqlite_master SET sql = 'CREATE INDEX i ON memories(seq)' WHERE name = 'i'",
)
NULL_DAMAGE = (null_in_not_null_column,)  # quick_check sees this


def _texts(path: Path) -> list[str]:
    c = connect_raw(path)
    try:
        return [r[0] for r in c.execute("SELECT text FROM memories ORDER BY seq")]
    finally:
        c.close()


def _name(when: str, reason: str) -> str:
    return f"{when}-{reason}.db"


def _ten_old_autos(store: Path) -> list[Path]:
    """Ten automatic backups of ``store`` an hour apart on one old day, oldest first."""
    folder = backup_dir(store)
    folder.mkdir(parents=True)
    old = [folder / _name(f"20200101T{h:02d}0000-000000", "auto") for h in range(10)]
    for p in old:
        p.write_bytes(b"x")
    return old


# --- where backups go ------------------------------------------------------------------


def test_backup_root_from_environment(backups: Path) -> None:
    assert backup_root() == backups


def test_backup_root_default_is_the_user_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDESK_BACKUP_DIR", "")
    assert backup_root() == Path(platformdirs.user_data_dir("memdesk", appauthor=False)) / "backups"
    monkeypatch.delenv("MEMDESK_BACKUP_DIR")
    assert backup_root().name == "backups"


def test_backup_dir_is_stem_and_path_hash(backups: Path, tmp_path: Path) -> None:
    store = tmp_path / "work.db"
    digest = hashlib.sha256(str(store.resolve()).encode()).hexdigest()[:10]
    assert backup_dir(store) == backups / f"work-{digest}"
    # The same file spelt differently is the same folder; another file is another one.
    assert backup_dir(tmp_path / "x" / ".." / "work.db") == backup_dir(store)
    assert backup_dir(tmp_path / "other" / "work.db") != backup_dir(store)


# --- listing -----------------------------------------------------------------------


def test_list_backups_newest_first_and_only_backup_names(backups: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    folder = backup_dir(store)
    folder.mkdir(parents=True)
    (folder / _name("20261101T100000-000001", "manual")).write_bytes(b"a" * 10)
    (folder / _name("20261102T090000-500000", "before-migrate")).write_bytes(b"b" * 20)
    (folder / _name("20261101T100000-000002", "auto")).write_bytes(b"c")
    for other in ("store.txt", "20261103T090000-000000-manual.db.part",
                  "20261103T090000-000000-Manual.db", "20261103T090000-manual.db", "x.db"):
        (folder / other).write_bytes(b"x")
    (folder / _name("20261104T090000-000000", "dir")).mkdir()
    got = list_backups(store)
    assert [(b.path.name, b.when, b.reason, b.size) for b in got] == [
        ("20261102T090000-500000-before-migrate.db", datetime(2026, 11, 2, 9, 0, 0, 500000),
         "before-migrate", 20),
        ("20261101T100000-000002-auto.db", datetime(2026, 11, 1, 10, 0, 0, 2), "auto", 1),
        ("20261101T100000-000001-manual.db", datetime(2026, 11, 1, 10, 0, 0, 1), "manual", 10),
    ]
    assert latest_backup(store) == got[0]


def test_no_folder_means_no_backups(backups: Path, tmp_path: Path) -> None:
    assert list_backups(tmp_path / "s.db") == []
    assert latest_backup(tmp_path / "s.db") is None
    assert latest_good_backup(tmp_path / "s.db") is None


def _planted(store: Path, stamps_and_kinds: list[tuple[str, str]]) -> dict[str, Path]:
    folder = backup_dir(store)
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for stamp, kind in stamps_and_kinds:
        p = folder / _name(stamp, "auto")
        if kind == "good":
            _db(p)
        elif kind == "index":
            _db(p, *BAD_INDEX)
        else:
            p.write_bytes(b"not a database at all" * 100)
        out[stamp] = p
    return out


def test_latest_good_backup_skips_damaged_ones(backups: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    p = _planted(store, [("20261101T000000-000000", "good"), ("20261102T000000-000000", "good"),
                         ("20261103T000000-000000", "junk")])
    got = latest_good_backup(store)
    assert got is not None and got.path == p["20261102T000000-000000"]


def test_latest_good_backup_runs_the_quick_check(backups: Path, tmp_path: Path) -> None:
    # Index damage only integrity_check sees: the bounded quick check passes it.
    store = tmp_path / "s.db"
    p = _planted(store, [("20261101T000000-000000", "good"), ("20261102T000000-000000", "index")])
    got = latest_good_backup(store)
    assert got is not None and got.path == p["20261102T000000-000000"]


def test_latest_good_backup_looks_at_the_newest_five_only(backups: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    junk = [(f"2026110{d}T000000-000000", "junk") for d in range(2, 7)]
    p = _planted(store, [("20261101T000000-000000", "good"), *junk])
    assert latest_good_backup(store) is None  # five junk ones above the good one
    p["20261106T000000-000000"].unlink()
    # With four junk ones above it, the good one is fifth: found.
    got = latest_good_backup(store)
    assert got is not None and got.path == p["20261101T000000-000000"]


# --- taking a backup ---------------------------------------------------------------


def test_backup_store_copies_into_the_store_folder(backups: Path, tmp_path: Path) -> None:
    store = _db(tmp_path / "s.db")
    before = datetime.now(UTC).replace(tzinfo=None)
    info = backup_store(store, reason="Before Migrate!")
    after = datetime.now(UTC).replace(tzinfo=None)
    folder = backup_dir(store)
    assert info.path.parent == folder
    assert info.reason == "Before Migrate!"
    assert before <= info.when <= after
    assert info.path.name == info.when.strftime("%Y%m%dT%H%M%S-%f") + "-before-migrate.db"
    assert info.size == info.path.stat().st_size > 0
    assert _texts(info.path) == ["m0", "m1", "m2"]
    assert (folder / "store.txt").read_text(encoding="utf-8") == f"{store.resolve()}\n"
    assert sorted(p.name for p in folder.iterdir()) == sorted([info.path.name, "store.txt"])
    # The listing reads the reason back from the file name, in its safe spelling.
    assert list_backups(store) == [BackupInfo(info.path, info.when, "before-migrate", info.size)]


def test_backup_file_is_a_single_self_contained_file(backups: Path, tmp_path: Path) -> None:
    store = _db(tmp_path / "s.db", "PRAGMA journal_mode = WAL")
    info = backup_store(store)
    # Header bytes 18 and 19 are 1 for rollback-journal files, 2 for WAL files.
    assert info.path.read_bytes()[18:20] == b"\x01\x01"
    assert info.reason == "manual"
    assert info.path.name.endswith("-manual.db")


@pytest.mark.parametrize(("reason", "safe"), [("!!!", "manual"), ("--Auto--", "auto"),
                                              ("a b/c", "a-b-c"), ("", "manual")])
def test_reason_is_made_safe_for_the_file_name(backups: Path, tmp_path: Path, reason: str,
                                               safe: str) -> None:
    info = backup_store(_db(tmp_path / "s.db"), reason=reason)
    assert re.fullmatch(r"\d{8}T\d{6}-\d{6}-" + re.escape(safe) + r"\.db", info.path.name)
    assert info.reason == reason


def test_store_note_is_not_rewritten(backups: Path, tmp_path: Path) -> None:
    store = _db(tmp_path / "s.db")
    folder = backup_dir(store)
    folder.mkdir(parents=True)
    (folder / "store.txt").write_text("kept\n", encoding="utf-8")
    backup_store(store)
    assert (folder / "store.txt").read_text(encoding="utf-8") == "kept\n"


def test_backup_to_a_chosen_file(backups: Path, tmp_path: Path) -> None:
    store = _db(tmp_path / "s.db")
    dest = tmp_path / "copy.db"
    stale = tmp_path / "copy.db.part"
    stale.write_bytes(b"left by a crash")
    info = backup_store(store, to=dest, reason="export")
    assert (info.path, info.reason) == (dest, "export")
    assert _texts(dest) == ["m0", "m1", "m2"]
    assert not stale.exists()
    assert not backup_dir(store).exists()  # nothing written to the backup folder


def test_backup_refuses_an_existing_target(backups: Path, tmp_path: Path) -> None:
    store = _db(tmp_path / "s.db")
    dest = tmp_path / "copy.db"
    dest.write_bytes(b"mine")
    with pytest.raises(BackupError) as ei:
        backup_store(store, to=dest)
    assert str(ei.value) == f"{dest} exists already; choose another name."
    assert dest.read_bytes() == b"mine"


def test_backup_of_a_missing_store(backups: Path, tmp_path: Path) -> None:
    with pytest.raises(StoreOpenError) as ei:
        backup_store(tmp_path / "none.db")
    assert str(ei.value) == f"There is no store at {tmp_path / 'none.db'}."


def test_damaged_copy_is_refused_and_removed(backups: Path, tmp_path: Path) -> None:
    store = _db(tmp_path / "s.db", *NULL_DAMAGE)
    dest = tmp_path / "copy.db"
    with pytest.raises(BackupError) as ei:
        backup_store(store, to=dest)
    assert str(ei.value) == (
        "The backup copy failed its check (the store is damaged: NULL value in memories.text); "
        "the store itself may be damaged. Run `memdesk db check`.")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]  # no copy, no .part


def test_copy_check_is_the_quick_one(backups: Path, tmp_path: Path) -> None:
    store = _db(tmp_path / "s.db", *BAD_INDEX)
    info = backup_store(store, to=tmp_path / "copy.db")
    assert info.path.exists()


def test_check_can_be_skipped(backups: Path, tmp_path: Path) -> None:
    store = _db(tmp_path / "s.db", *NULL_DAMAGE)
    src = connect_raw(store)
    try:
        info = backup_connection(src, store, to=tmp_path / "copy.db", check=False)
    finally:
        src.close()
    assert _texts(info.path) == ["m0", "m1", "m2", None]
    assert not (tmp_path / "copy.db.part").exists()


def test_driver_failure_is_a_backup_error(backups: Path, tmp_path: Path) -> None:
    store = _db(tmp_path / "s.db")
    dest = tmp_path / "missing-folder" / "copy.db"
    with pytest.raises(BackupError) as ei:
        backup_store(store, to=dest)
    assert str(ei.value) == f"Could not back up {store}: unable to open database file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]


def test_backup_store_rotates_its_folder(backups: Path, tmp_path: Path) -> None:
    store = _db(tmp_path / "s.db")
    # Ten backups an hour apart on one old day: the newest 8 (counting the new one)
    # are kept, the rest of that day goes.
    old = _ten_old_autos(store)
    new = backup_store(store)
    kept = [b.path for b in list_backups(store)]
    assert kept == [new.path, *reversed(old[3:])]


def test_backup_connection_without_rotation(backups: Path, tmp_path: Path) -> None:
    store = _db(tmp_path / "s.db")
    _ten_old_autos(store)
    src = connect_raw(store)
    try:
        backup_connection(src, store, rotate_after=False)
    finally:
        src.close()
    assert len(list_backups(store)) == 11


# --- restore -----------------------------------------------------------------------


def test_restore_missing_backup(tmp_path: Path) -> None:
    with pytest.raises(StoreOpenError) as ei:
        restore(tmp_path / "s.db", tmp_path / "b.db")
    assert str(ei.value) == f"There is no backup at {tmp_path / 'b.db'}."


def test_restore_onto_itself(tmp_path: Path) -> None:
    store = _db(tmp_path / "s.db")
    with pytest.raises(BackupError) as ei:
        restore(store, tmp_path / "." / "s.db")
    assert str(ei.value) == "The backup and the store are the same file."


def test_restore_refuses_a_foreign_file(tmp_path: Path) -> None:
    b = tmp_path / "b.db"
    c = connect_raw(b, read_only=False)
    c.execute("CREATE TABLE notes(x)")
    c.close()
    store = _db(tmp_path / "s.db")
    with pytest.raises(BackupError) as ei:
        restore(store, b)
    assert str(ei.value) == f"{b} is not a memdesk store; nothing was restored."
    assert _texts(store) == ["m0", "m1", "m2"]


def test_restore_refuses_a_damaged_backup_checked_in_full(tmp_path: Path) -> None:
    b = _db(tmp_path / "b.db", *BAD_INDEX, rows=30)
    store = _db(tmp_path / "s.db")
    with pytest.raises(BackupError) as ei:
        restore(store, b)
    shown = "; ".join(f"row {n} missing from index i" for n in range(1, 6))
    assert str(ei.value) == (
        f"The backup {b} is damaged too (the store is damaged: {shown} (and 15 more)); "
        "nothing was restored. Try an older one (`memdesk db backups`).")
    assert _texts(store) == ["m0", "m1", "m2"]


def test_restore_accepts_a_recall_store(tmp_path: Path) -> None:
    b = tmp_path / "recall.db"
    c = connect_raw(b, read_only=False)
    c.execute("CREATE TABLE memories(id, user_id, text, type, importance, confidence, "
              "created_at)")
    c.execute("INSERT INTO memories(text) VALUES ('from recall')")
    c.close()
    store = tmp_path / "new.db"
    report = restore(store, b, new=True)
    assert (report.backup, report.store, report.set_aside) == (b, store, None)
    assert (report.check.level, report.check.problems) == ("full", ())
    assert store.read_bytes() == b.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.db", "recall.db"]


def test_restore_keeps_the_current_file_as_a_listed_backup(tmp_path: Path) -> None:
    b = _db(tmp_path / "b.db", rows=5)
    store = _db(tmp_path / "s.db")
    (tmp_path / "s.db-wal").write_bytes(b"wal")  # too short to hold a frame
    (tmp_path / "s.db-shm").write_bytes(b"shm")
    current = store.read_bytes()
    before = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    report = restore(store, b)
    after = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    kept = report.set_aside
    assert kept is not None and kept in [i.path for i in list_backups(store)]
    m = re.fullmatch(r"(\d{8}T\d{6})-\d{6}-replaced\.db", kept.name)
    assert m is not None and before <= m.group(1) <= after
    assert kept.read_bytes() == current
    assert _texts(store) == ["m0", "m1", "m2", "m3", "m4"]
    # The old WAL and wal-index are gone: they must never be replayed over the backup.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.db", "s.db"]
    assert (report.check.level, report.check.problems, report.check.complete) == (
        "full", (), True)


def test_restore_without_side_files(tmp_path: Path) -> None:
    b = _db(tmp_path / "b.db", rows=1)
    store = _db(tmp_path / "s.db")
    report = restore(store, b)
    assert report.set_aside is not None and report.set_aside.parent != tmp_path
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.db", "s.db"]


def test_backup_info_fields() -> None:
    i = BackupInfo(Path("x"), datetime(2026, 1, 1), "auto", 3)
    assert (i.path, i.when, i.reason, i.size) == (Path("x"), datetime(2026, 1, 1), "auto", 3)


# --- what the earlier tests let through ------------------------------------------------


def test_backup_times_are_utc_whatever_the_local_zone(backups: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("TZ", "Asia/Tokyo")  # UTC+9, no daylight saving
    time.tzset()
    try:
        before = datetime.now(UTC).replace(tzinfo=None)
        info = backup_store(_db(tmp_path / "s.db"))
        after = datetime.now(UTC).replace(tzinfo=None)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert before <= info.when <= after


def test_failed_rename_is_a_backup_error_and_leaves_nothing(
        backups: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    def full(src, dst):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "No space left on device")

    store = _db(tmp_path / "s.db")
    dest = tmp_path / "copy.db"
    monkeypatch.setattr(backup.os, "replace", full)
    with pytest.raises(BackupError) as ei:
        backup_store(store, to=dest)
    assert str(ei.value) == (f"Could not write the backup {dest}: No space left on device. "
                             "The store is unchanged.")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]


def test_backup_to_a_chosen_file_does_not_rotate(backups: Path, tmp_path: Path) -> None:
    store = _db(tmp_path / "s.db")
    _ten_old_autos(store)
    backup_store(store, to=tmp_path / "copy.db")
    assert len(list_backups(store)) == 10


def test_restore_stamp_is_utc_and_stale_temp_file_is_replaced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    b = _db(tmp_path / "b.db", rows=2)
    store = _db(tmp_path / "s.db")
    (tmp_path / "s.db.restoring").write_bytes(b"left by a crash")
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # UTC+9: a local stamp would be 9 hours off
    time.tzset()
    try:
        before = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        report = restore(store, b)
        after = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert report.set_aside is not None
    stamp = report.set_aside.name[:15]
    assert report.set_aside.name.endswith("-replaced.db")
    assert before <= stamp <= after
    assert not (tmp_path / "s.db.restoring").exists()
    assert _texts(store) == ["m0", "m1"]


def test_restore_copy_failure_changes_nothing(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    def full(src, dst):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "No space left on device")

    b = _db(tmp_path / "b.db", rows=2)
    store = _db(tmp_path / "s.db")
    current = store.read_bytes()
    from memdesk.core.store import restore as restoring

    monkeypatch.setattr(restoring.shutil, "copyfile", full)
    with pytest.raises(BackupError) as ei:
        restore(store, b)
    assert str(ei.value) == "Could not restore: No space left on device."
    assert store.read_bytes() == current
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.db", "s.db"]
