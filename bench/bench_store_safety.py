"""Store safety at 1,000,000 rows: backup under a concurrent writer, the open check's
cost and the window's first rows, the WAL under a 5-process load, SIGKILL rounds; and
lost edits under a mixed load (4 writers, 2 editors, a retriever, an MCP server) on
SQLite and PostgreSQL, compare-and-set editors against blind ones.

    .venv/bin/python bench/bench_store_safety.py [--db STORE] [--wal-seconds 30] [--kills 150]
    .venv/bin/python bench/bench_store_safety.py --edits-only [--edit-seconds 30]
        [--backend sqlite|postgresql]

``--db`` defaults to the cached 1M demo store (bench/common.py).  Backups go to a
temporary folder, the WAL load runs on a fresh scratch store.  Prints its figures.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, million_store, pct

from memdesk.core.store.backup import backup_store
from memdesk.core.store.check import OPEN_CHECK_BUDGET_S, check_file
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.wal import IdleCheckpointer, wal_bytes


def _writer(path: Path, out_fd: int, seconds: float) -> None:
    """Add one memory at a time; write 'start_ms latency_ms' per commit to ``out_fd``."""
    store = MemoryStore.open(path)
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        t = time.monotonic()
        store.add(user_id="bench-writer", text=f"concurrent write {n}", type="note")
        os.write(out_fd, f"{t:.6f} {(time.monotonic() - t) * 1000:.3f}\n".encode())
        n += 1
        time.sleep(0.01)
    os._exit(0)


def bench_backup(path: Path) -> None:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _writer(path, w, 3600)
    os.close(w)
    time.sleep(3.0)  # a baseline for the writer
    t0 = time.monotonic()
    info = backup_store(path, reason="bench")
    t1 = time.monotonic()
    time.sleep(1.0)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    with os.fdopen(r) as fh:
        rows = [tuple(map(float, line.split())) for line in fh if line.count(" ") == 1]
    during = [lat for start, lat in rows if t0 <= start <= t1]
    before = [lat for start, lat in rows if start < t0]
    print(f"db backup: {t1 - t0:.2f} s for {path.stat().st_size / 1e6:.0f} MB "
          f"→ {info.size / 1e6:.0f} MB backup (checked)")
    print(f"  writer during backup: {len(during)} commits, p50 {pct(during, 50):.1f} ms, "
          f"p95 {pct(during, 95):.1f} ms, max {max(during):.1f} ms")
    print(f"  writer before backup: p50 {pct(before, 50):.1f} ms, p95 {pct(before, 95):.1f} ms")
    info.path.unlink()


def bench_open_check(path: Path) -> None:
    from memdesk.ui.store_safety.safety import GUI_OPEN_CHECK_BUDGET_S

    for level in ("quick", "integrity"):
        t = time.monotonic()
        report = check_file(path, level=level)
        print(f"{level}_check unbounded: {time.monotonic() - t:.2f} s ({report.summary()})")
    for label, budget in (("CLI", OPEN_CHECK_BUDGET_S), ("GUI", GUI_OPEN_CHECK_BUDGET_S)):
        t = time.monotonic()
        store = MemoryStore.open(path, create=False, check_budget=budget)
        opened = time.monotonic() - t
        rows = store.page(limit=100)
        first = time.monotonic() - t
        health = store.report.health
        store.close()
        print(f"open ({label}, check budget {budget} s): open {opened:.2f} s, first "
              f"{len(rows)} rows at {first:.2f} s; check complete: {health.complete}")


def _load_writer(path: Path, seconds: float, tag: str) -> None:
    store = MemoryStore.open(path)
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        store.add_many([dict(user_id=tag, text=f"{tag} {n} {k} " + "lorem ipsum " * 20,
                             type="note") for k in range(10)])
        n += 1
    os._exit(0)


def _load_reader(path: Path, seconds: float) -> None:
    store = MemoryStore.open(path)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        store.page(limit=50)
        store.count()
    os._exit(0)


def bench_wal(seconds: float) -> None:
    path = Path(tempfile.mkdtemp(prefix="memdesk-wal-")) / "load.db"
    MemoryStore.open(path).close()
    pids = []
    for i in range(4):
        pid = os.fork()
        if pid == 0:
            _load_writer(path, seconds, f"w{i}")
        pids.append(pid)
    pid = os.fork()
    if pid == 0:
        _load_reader(path, seconds)
    pids.append(pid)
    gui = MemoryStore.open(path)
    samples = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        samples.append(wal_bytes(path))
        gui.count()
        time.sleep(0.1)
    for pid in pids:
        os.waitpid(pid, 0)
    after = wal_bytes(path)
    IdleCheckpointer(path).tick()
    mb = [s / 1e6 for s in samples]
    print(f"WAL under 4 writers + 1 reader + an open GUI engine for {seconds:.0f} s: "
          f"p50 {pct(mb, 50):.1f} MB, p95 {pct(mb, 95):.1f} MB, max {max(mb):.1f} MB; "
          f"store {path.stat().st_size / 1e6:.1f} MB; after load {after / 1e6:.1f} MB, "
          f"after the idle tick {wal_bytes(path) / 1e6:.1f} MB")
    gui.close()


def _acking(path: Path, fd: int, tag: str) -> None:
    store = MemoryStore.open(path)
    n = 0
    while True:
        ids = store.add_many([dict(id=f"{tag}-{n}-{k}", user_id="crash", type="note",
                                   text=f"row {n} {k} " + "x" * 300) for k in range(20)])
        os.write(fd, ("\n".join(ids) + "\n").encode())
        n += 1


def bench_kills(kills: int) -> None:
    path = Path(tempfile.mkdtemp(prefix="memdesk-kill-")) / "kill.db"
    MemoryStore.open(path).close()
    rng = random.Random(1)
    acked: set[str] = set()
    for k in range(kills):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            _acking(path, w, f"k{k}")
        os.close(w)
        time.sleep(rng.uniform(0.05, 0.4))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        with os.fdopen(r, "rb") as fh:
            acked.update(x for x in fh.read().decode().split("\n")[:-1] if x)
    store = MemoryStore.open(path)
    with store.read() as conn:
        present = set(conn.exec_driver_sql("SELECT id FROM memories").scalars())
    store.close()
    report = check_file(path, level="full")
    print(f"SIGKILL: {kills} kills, {len(acked):,} acknowledged rows, "
          f"{len(acked - present)} lost; full check: {report.summary()}")


def bench_edits(seconds: float, backends: list[str]) -> None:
    """Lost edits under the mixed load (bench/edit_load.py), compare-and-set editors
    against blind ones, on each backend."""
    from edit_load import run_load

    memdesk = str(Path(sys.executable).with_name("memdesk"))
    server = None
    try:
        for backend in backends:
            if backend == "postgresql":
                sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
                from tests.helpers import pg

                server = server or pg.start_server(durable=True)
            for cas in (True, False):
                if backend == "postgresql":
                    db = server.new_database(prefix="bench")
                else:
                    db = str(Path(tempfile.mkdtemp(prefix="memdesk-edits-")) / "edits.db")
                r = run_load(db, seconds, cas=cas, memdesk=memdesk)
                how = "compare-and-set" if cas else "blind (no expected_version)"
                print(f"mixed load on {backend}, {seconds:.0f} s, editors {how}: "
                      f"{r.edits} edits acknowledged, {r.lost} lost, {r.conflicts} conflicts "
                      f"retried; {r.rows_written} rows by 4 writers, {r.retrievals} "
                      f"retrievals, {r.mcp_calls} MCP calls; {len(r.errors)} errors; "
                      f"load {Path('/proc/loadavg').read_text().split()[0:3]}")
                for e in r.errors[:5]:
                    print(f"  error: {e}")
    finally:
        if server is not None:
            server.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", type=Path)
    ap.add_argument("--wal-seconds", type=float, default=30.0)
    ap.add_argument("--kills", type=int, default=150)
    ap.add_argument("--edits-only", action="store_true",
                    help="only the lost-edit run under the mixed load (no 1M store needed)")
    ap.add_argument("--edit-seconds", type=float, default=30.0)
    ap.add_argument("--backend", action="append", choices=["sqlite", "postgresql"],
                    help="for the mixed load (default: both)")
    args = ap.parse_args()
    os.environ.setdefault("MEMDESK_BACKUP_DIR", tempfile.mkdtemp(prefix="memdesk-bench-"))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.edits_only:
        print(machine())
        bench_edits(args.edit_seconds, args.backend or ["sqlite", "postgresql"])
        return
    path = args.db or million_store()
    print(machine())
    print(f"store: {path} ({path.stat().st_size / 1e6:.0f} MB)")
    bench_open_check(path)
    bench_backup(path)
    bench_wal(args.wal_seconds)
    bench_kills(args.kills)
    bench_edits(args.edit_seconds, args.backend or ["sqlite", "postgresql"])


if __name__ == "__main__":
    main()
