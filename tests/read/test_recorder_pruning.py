"""The recorder's retention: which records ``prune`` deletes (strictly older than the
retention, items with them), and when the background writer prunes (on its first batch,
then every PRUNE_EVERY records); plus its error state and restart after idling."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Connection, insert, select

from memdesk.core.read import recorder as rc
from memdesk.core.read.models import Retrieval, RetrievalItem
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW

R = Retrieval.__table__
RI = RetrievalItem.__table__


def add_record(conn: Connection, rid: str, when: datetime) -> None:
    conn.execute(insert(R).values(id=rid, at=when, user_id="u", query="q", channels="fts",
                                  k=10, injected=0))
    conn.execute(insert(RI).values(retrieval_id=rid, memory_id=f"m-{rid}", kind="result",
                                   rank=1, score=0.5))


def adder(rid: str, when: datetime) -> rc.Job:
    return lambda conn: add_record(conn, rid, when)


def noop(conn: Connection) -> None:
    return None


def records(store: MemoryStore) -> list[str]:
    with store.read() as conn:
        return sorted(conn.execute(select(R.c.id)).scalars())


def item_owners(store: MemoryStore) -> list[str]:
    with store.read() as conn:
        return sorted(conn.execute(select(RI.c.retrieval_id)).scalars())


def test_prune_deletes_records_strictly_older_than_the_retention(store: MemoryStore) -> None:
    with store.write() as conn:
        add_record(conn, "old", NOW - timedelta(days=2, seconds=1))
        add_record(conn, "edge", NOW - timedelta(days=2))
        add_record(conn, "new", NOW - timedelta(days=1))
        assert rc.prune(conn, NOW, 2.0) == 1
    assert records(store) == ["edge", "new"]
    assert item_owners(store) == ["edge", "new"]  # the old record's items went with it


def test_prune_counts_in_days_including_fractions(store: MemoryStore) -> None:
    with store.write() as conn:
        add_record(conn, "a", NOW - timedelta(hours=13))
        add_record(conn, "b", NOW - timedelta(hours=14))
        add_record(conn, "c", NOW - timedelta(hours=11))
        assert rc.prune(conn, NOW, 0.5) == 2
    assert records(store) == ["c"]
    assert item_owners(store) == ["c"]


def test_prune_without_a_retention_keeps_everything(store: MemoryStore) -> None:
    with store.write() as conn:
        add_record(conn, "ancient", NOW - timedelta(days=3650))
        assert rc.prune(conn, NOW, None) == 0
    assert records(store) == ["ancient"]
    assert item_owners(store) == ["ancient"]


def test_prune_of_nothing_old_returns_zero(store: MemoryStore) -> None:
    with store.write() as conn:
        add_record(conn, "fresh", NOW)
        assert rc.prune(conn, NOW, 90.0) == 0
    assert records(store) == ["fresh"]


def test_the_writer_prunes_on_its_first_batch_then_every_200_records(
        store: MemoryStore) -> None:
    rec = rc.Recorder(store.engine, retention_days=1.0)
    assert rec.retention_days == 1.0 and rec.last_error is None
    clock: Callable[[], datetime] = lambda: NOW  # noqa: E731
    old = NOW - timedelta(days=3)
    rec.submit(adder("first", old), clock)
    rec.flush()
    assert records(store) == []  # pruned with the first batch, by this clock
    rec.submit(adder("second", old), clock)
    for _ in range(198):
        rec.submit(noop, clock)
    rec.flush()
    assert records(store) == ["second"]  # 199 records since the last prune
    rec.submit(noop, clock)  # the 200th
    rec.flush()
    assert records(store) == []
    assert item_owners(store) == []
    assert rec.last_error is None


def test_the_writer_prunes_by_its_retention_and_its_latest_clock(store: MemoryStore) -> None:
    rec = rc.Recorder(store.engine, retention_days=10.0)
    rec.submit(adder("a", NOW - timedelta(days=5)), lambda: NOW)
    rec.flush()
    assert records(store) == ["a"]  # younger than ten days
    keep = rc.Recorder(store.engine, retention_days=None)
    keep.submit(adder("b", NOW - timedelta(days=500)), lambda: NOW)
    keep.flush()
    assert records(store) == ["a", "b"]
    assert keep.last_error is None


def test_a_successful_batch_clears_the_last_error(store: MemoryStore) -> None:
    rec = rc.Recorder(store.engine)

    def broken(conn: Connection) -> None:
        raise ValueError("bad row")

    rec.submit(broken, lambda: NOW)
    rec.flush()
    assert rec.last_error == "ValueError: bad row"
    rec.submit(adder("ok", NOW), lambda: NOW)
    rec.flush()
    assert rec.last_error is None
    assert records(store) == ["ok"]


def test_an_idle_writer_ends_and_the_next_record_starts_another(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rc, "IDLE_EXIT_S", 0.01)
    rec = rc.Recorder(store.engine, retention_days=None)
    before = set(threading.enumerate())
    rec.submit(adder("a", NOW), lambda: NOW)
    rec.flush()
    (first,) = [t for t in set(threading.enumerate()) - before
                if t.name == "memdesk-recorder"]
    first.join(timeout=10)
    assert not first.is_alive()  # idle: the writer ended
    done = threading.Event()

    def second(conn: Connection) -> None:
        add_record(conn, "b", NOW)
        done.set()

    rec.submit(second, lambda: NOW)
    assert done.wait(10)
    rec.flush()
    assert records(store) == ["a", "b"]


def test_exit_flushes_every_live_recorder(store: MemoryStore, store_path: Path) -> None:
    # A process that submits a slow record and exits at once, without flushing: the
    # record is written before the process ends.
    code = f"""
import time
from sqlalchemy import insert
from memdesk.core.read import recorder as rc
from memdesk.core.read.models import Retrieval
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW

store = MemoryStore.open({str(store_path)!r})
rec = rc.Recorder(store.engine, retention_days=None)

def slow(conn):
    time.sleep(0.3)
    conn.execute(insert(Retrieval.__table__).values(
        id="late", at=NOW, user_id="u", query="q", channels="fts", k=10, injected=0))

rec.submit(slow, lambda: NOW)
"""
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120,
                   cwd=Path(__file__).resolve().parents[2])
    assert records(store) == ["late"]


def test_the_writer_never_keeps_the_process_alive(store: MemoryStore) -> None:
    rec = rc.Recorder(store.engine, retention_days=None)
    seen: list[tuple[str, bool]] = []
    rec.submit(lambda conn: seen.append((threading.current_thread().name,
                                         threading.current_thread().daemon)), lambda: NOW)
    rec.flush()
    assert seen == [("memdesk-recorder", True)]  # a daemon: exit is the atexit flush's job


def test_a_driver_error_while_recording_names_the_store_never_the_sql(
        store: MemoryStore) -> None:
    """A database error in the recorder is translated like any store error: the message
    names the store (its URL, password hidden) and carries no SQL or parameters."""
    import sqlite3

    from sqlalchemy.exc import OperationalError

    rec = rc.Recorder(store.engine)

    def locked(conn: Connection) -> None:
        raise OperationalError("INSERT INTO retrievals (query) VALUES (?)", ("bank PIN 4711",),
                               sqlite3.OperationalError("database is locked"))

    rec.submit(locked, lambda: NOW)
    rec.flush()
    assert rec.last_exception is not None and rec.last_error is not None
    where = store.engine.url.render_as_string(hide_password=True)
    assert where in rec.last_error
    for leak in ("INSERT", "4711", "bank PIN"):
        assert leak not in rec.last_error
