"""core/store/backup.py: rotation (``thin``/``rotate``) and the automatic policy.

``thin``'s expected results follow its docstring by hand: keep the newest
``keep_recent``, then the newest backup of each of the last 7 days, 4 ISO weeks and
12 months that have backups, then drop the oldest kept ones while the total is over the
budget (the newest two always stay).  Calendar facts used: 2026-11-24 is a Tuesday
(ISO week 48 starts Monday 23rd); Sunday 22nd ends week 47, Sunday 15th week 46,
Sunday 8th week 45.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memdesk.core.store.backup import AutoBackup, BackupInfo, backup_dir, list_backups, rotate, thin
from memdesk.core.store.db import connect_raw

NOW = datetime(2026, 11, 24, 12, 0)
GIB = 1024**3


def _b(when: datetime, size: int = 1) -> BackupInfo:
    return BackupInfo(Path(when.strftime("%Y%m%dT%H%M%S-%f") + "-auto.db"), when, "auto", size)


def _days(infos: list[BackupInfo]) -> list[str]:
    return [i.when.strftime("%Y-%m-%d %H") for i in infos]


def test_newest_eight_of_one_day_are_kept() -> None:
    hourly = [_b(datetime(2026, 11, 24, h)) for h in range(10)]
    assert _days(thin(hourly, NOW)) == ["2026-11-24 01", "2026-11-24 00"]
    assert thin(hourly[:8], NOW) == []


def test_keep_recent_argument() -> None:
    hourly = [_b(datetime(2026, 11, 24, h)) for h in range(5)]
    # One day: the daily/weekly/monthly buckets only add the newest one again.
    assert _days(thin(hourly, NOW, keep_recent=2)) == [
        "2026-11-24 02", "2026-11-24 01", "2026-11-24 00"]
    assert _days(thin(hourly, NOW, keep_recent=0)) == _days(sorted(
        hourly[:4], key=lambda b: b.when, reverse=True))


def test_days_weeks_and_months() -> None:
    daily = [_b(datetime(2026, 11, 24, 12) - timedelta(days=n)) for n in range(40)]  # to Oct 16
    deleted = thin(daily, NOW, keep_recent=1)
    kept = sorted(set(_days(daily)) - set(_days(deleted)), reverse=True)
    assert kept == [
        # the newest one, then the newest of 7 days (24th..18th)
        "2026-11-24 12", "2026-11-23 12", "2026-11-22 12", "2026-11-21 12", "2026-11-20 12",
        "2026-11-19 12", "2026-11-18 12",
        # newest of ISO weeks 48 (24th, kept), 47 (22nd, kept), 46 and 45
        "2026-11-15 12", "2026-11-08 12",
        # newest of November (kept) and of October
        "2026-10-31 12",
    ]
    assert _days(deleted) == sorted(set(_days(daily)) - set(kept), reverse=True)


def test_twelve_months_at_most() -> None:
    monthly = [_b(datetime(2025 + (m - 1) // 12, (m - 1) % 12 + 1, 1)) for m in range(10, 24)]
    assert _days(monthly)[0] == "2025-10-01 00" and _days(monthly)[-1] == "2026-11-01 00"
    # Days keep Nov..May 1st, weeks Nov..Aug 1st, months Nov 2026..Dec 2025: 12 of 14.
    assert _days(thin(monthly, NOW, keep_recent=0)) == ["2025-11-01 00", "2025-10-01 00"]


def test_input_order_does_not_matter() -> None:
    hourly = [_b(datetime(2026, 11, 24, h)) for h in range(10)]
    assert thin(list(reversed(hourly)), NOW) == thin(hourly, NOW)


def test_size_budget_drops_the_oldest_kept() -> None:
    three = [_b(datetime(2026, 11, 24 - n), 10) for n in range(3)]  # 24th, 23rd, 22nd
    assert thin(three, NOW, budget=30) == []  # exactly at the budget: all stay
    assert _days(thin(three, NOW, budget=29)) == ["2026-11-22 00"]
    assert _days(thin(three, NOW, budget=20)) == ["2026-11-22 00"]
    assert _days(thin(three, NOW, budget=19)) == ["2026-11-22 00"]  # the newest two stay
    assert _days(thin(three, NOW, budget=0)) == ["2026-11-22 00"]
    four = [_b(datetime(2026, 11, 24 - n), 10) for n in range(4)]
    assert _days(thin(four, NOW, budget=25)) == ["2026-11-22 00", "2026-11-21 00"]


def test_default_budget_is_two_gib() -> None:
    at_budget = [_b(datetime(2026, 11, 24), GIB), _b(datetime(2026, 11, 23), GIB // 2),
                 _b(datetime(2026, 11, 22), GIB // 2)]
    assert thin(at_budget, NOW) == []
    over = [*at_budget[:2], _b(datetime(2026, 11, 22), GIB // 2 + 1)]
    assert _days(thin(over, NOW)) == ["2026-11-22 00"]


def test_rotate_deletes_what_thin_drops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDESK_BACKUP_DIR", str(tmp_path / "b"))
    store = tmp_path / "s.db"
    folder = backup_dir(store)
    folder.mkdir(parents=True)
    paths = [folder / f"20260101T{h:02d}0000-000000-auto.db" for h in range(10)]
    for p in paths:
        p.write_bytes(b"x")
    (folder / "store.txt").write_text("s\n")
    gone = rotate(store, NOW)
    assert gone == [paths[1], paths[0]]
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [p.name for p in paths[2:]] + ["store.txt"])
    assert rotate(store) == []


# --- AutoBackup ----------------------------------------------------------------------


@pytest.fixture()
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEMDESK_BACKUP_DIR", str(tmp_path / "b"))
    p = tmp_path / "s.db"
    c = connect_raw(p, read_only=False)
    c.execute("CREATE TABLE t(x)")
    c.close()
    return p


def _change(store: Path) -> None:
    c = connect_raw(store, read_only=False)
    c.execute("INSERT INTO t VALUES (randomblob(5000))")
    c.close()


def test_fingerprint_is_size_and_mtime_of_file_and_wal(store: Path) -> None:
    st = os.stat(store)
    assert AutoBackup(store).fingerprint() == ((st.st_size, st.st_mtime_ns), None)
    wal = Path(f"{store}-wal")
    wal.write_bytes(b"abc")
    ws = os.stat(wal)
    assert AutoBackup(store).fingerprint() == (
        (st.st_size, st.st_mtime_ns), (3, ws.st_mtime_ns))


def test_no_backup_yet_is_due(store: Path) -> None:
    auto = AutoBackup(store)
    assert auto.interval == timedelta(minutes=30)
    assert auto.due(NOW) is True
    info = auto.maybe(now=NOW)
    assert info is not None and info.reason == "auto"
    assert info.path.name.endswith("-auto.db")
    assert list_backups(store) == [BackupInfo(info.path, info.when, "auto", info.size)]


def test_interval_since_an_existing_backup(store: Path) -> None:
    last = AutoBackup(store).run("manual").when
    fresh = AutoBackup(store)  # a new session: knows the last backup's time only
    assert fresh.due(last + timedelta(days=1)) is False  # the file has not changed since
    _change(store)
    auto = AutoBackup(store)
    assert auto.due(last + timedelta(minutes=29, seconds=59)) is False
    assert auto.due(last + timedelta(minutes=30)) is True
    assert auto.maybe(now=last + timedelta(minutes=1)) is None
    short = AutoBackup(store, interval=timedelta(seconds=10))
    assert short.due(last + timedelta(seconds=10)) is True
    assert short.due(last + timedelta(seconds=9)) is False


def test_unchanged_file_is_never_due_again(store: Path) -> None:
    auto = AutoBackup(store)
    first = auto.run("manual")
    assert auto.due(first.when + timedelta(days=365)) is False
    _change(store)
    assert auto.due(first.when + timedelta(minutes=29)) is False
    assert auto.due(first.when + timedelta(minutes=30)) is True
    second = auto.maybe("auto", now=first.when + timedelta(minutes=30))
    assert second is not None and second.reason == "auto"
    assert [b.path for b in list_backups(store)] == [second.path, first.path]


def test_before_risky_skips_an_unchanged_file(store: Path) -> None:
    auto = AutoBackup(store)
    first = auto.before_risky("before-migrate")
    assert first is not None and first.reason == "before-migrate"
    assert auto.before_risky("before-merge") is None
    _change(store)
    again = auto.before_risky("before-merge")
    assert again is not None and again.reason == "before-merge"
    assert len(list_backups(store)) == 2
