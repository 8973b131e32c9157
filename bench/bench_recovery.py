"""Recovery tools: what `db check` costs and finds, the WAL scan, an oversized MCP line.

    .venv/bin/python bench/bench_recovery.py [--memories 20000] [--line-mb 50]

1. A demo store of ``--memories`` memories: the full check's time, split into SQLite's
   integrity check and FTS5's check on a private copy; then 32 memories' text changed
   behind the full-text index: the read-only check (what `db check` ran before) and
   the full check are both run — the weaker one must miss it, the full one catch it.
2. A WAL of ~16 MB (the size memdesk truncates to): the scan's time, healthy and with a
   damaged frame (the scan must report the damaged one and only it).
3. ``memdesk mcp``: a ``--line-mb`` MB line, then a ``tools/list``: the time to the
   refusal and to the next answer.
Exit status 1 when a finding is wrong.  Prints its figures with machine and load.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from queue import Queue

sys.path.insert(0, str(Path(__file__).parent))

from common import machine

from memdesk.core import demo
from memdesk.core.store.check import check_connection, check_file, fts_check_on_copy
from memdesk.core.store.db import DRIVER, connect_raw
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.walcheck import scan_wal


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ")[0]


def bench_check(tmp: Path, n: int) -> bool:
    path = tmp / "check.db"
    s = MemoryStore.open(path)
    demo.generate(s, n, seed=11)
    s.checkpoint()
    s.close()
    conn = connect_raw(path, read_only=True)
    t = time.monotonic()
    integrity = check_connection(conn, level="full")
    t_integrity = time.monotonic() - t
    t = time.monotonic()
    fts = fts_check_on_copy(conn)
    t_fts = time.monotonic() - t
    conn.close()
    size = path.stat().st_size / 1e6
    print(f"db check, {n:,} memories ({size:.0f} MB): integrity+fk {t_integrity:.2f} s, "
          f"FTS5 on a private copy {t_fts:.2f} s (load {load()})")
    raw = DRIVER.connect(str(path))
    raw.isolation_level = None
    for (name,) in raw.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' "
                               "AND sql LIKE '%memories_fts%'").fetchall():
        raw.execute(f'DROP TRIGGER "{name}"')
    raw.execute("UPDATE memories SET text = 'zebra ' || text WHERE seq IN "
                "(SELECT seq FROM memories ORDER BY seq LIMIT 32)")
    raw.close()
    conn = connect_raw(path, read_only=True)
    weak = check_connection(conn, level="full")  # read-only: FTS5's own check skipped
    conn.close()
    full = check_file(path, level="full")
    print(f"  32 memories changed behind the index: read-only check "
          f"{'caught it' if weak.damaged else 'missed it'}; full check "
          f"{'caught it' if full.damaged else 'MISSED IT'}")
    return integrity.ok and not fts and full.damaged


def bench_wal(tmp: Path) -> bool:
    path = tmp / "wal.db"
    conn = DRIVER.connect(str(path))
    conn.isolation_level = None
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("CREATE TABLE t (x TEXT)")
    while Path(str(path) + "-wal").stat().st_size < 16 * 1024 * 1024:
        conn.execute("INSERT INTO t VALUES (?)", ("x" * 3000,))
    snap = tmp / "snap.db"
    shutil.copyfile(path, snap)
    shutil.copyfile(str(path) + "-wal", str(snap) + "-wal")
    conn.close()
    wal = Path(str(snap) + "-wal")
    t = time.monotonic()
    healthy = scan_wal(snap)
    t_scan = time.monotonic() - t
    data = bytearray(wal.read_bytes())
    size = int.from_bytes(data[8:12], "big")
    data[32 + 10 * (24 + size) + 24 + 7] ^= 0xFF
    wal.write_bytes(bytes(data))
    damaged = scan_wal(snap)
    assert healthy is not None and damaged is not None
    print(f"WAL scan, {wal.stat().st_size / 1e6:.1f} MB, {healthy.frames:,} frames: "
          f"{t_scan * 1000:.0f} ms (load {load()}); healthy: {healthy.problem or 'no problem'}; "
          f"frame 11 damaged: replayed {damaged.replayed}, "
          f"{damaged.lost_commits:,} commits reported lost")
    return healthy.problem is None and damaged.replayed == 10 and damaged.lost_commits > 0


def bench_line(tmp: Path, mb: int) -> bool:
    memdesk = str(Path(sys.executable).with_name("memdesk"))
    proc = subprocess.Popen([memdesk, "mcp", "--db", str(tmp / "mcp.db"), "--no-vectors",
                             "--offline"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env={"HOME": str(tmp)})
    lines: Queue[dict] = Queue()
    threading.Thread(target=lambda: [lines.put(json.loads(x)) for x in proc.stdout],
                     daemon=True).start()

    def send(obj: bytes) -> None:
        proc.stdin.write(obj + b"\n")
        proc.stdin.flush()

    def answer(want: int) -> dict:
        while True:
            msg = lines.get(timeout=300)
            if msg.get("id") == want:
                return msg

    send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}}).encode())
    answer(0)
    send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    t = time.monotonic()
    send(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"retrieve",'
         b'"arguments":{"query":"' + b"a" * (mb * 1024 * 1024) + b'"}}}')
    refused = answer(1)
    t_refused = time.monotonic() - t
    t = time.monotonic()
    send(b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}')
    ok = "result" in answer(2)
    t_next = time.monotonic() - t
    proc.stdin.close()
    proc.wait(60)
    print(f"MCP, a {mb} MB line: refused in {t_refused:.2f} s "
          f"({refused.get('error', {}).get('code')}), the next call answered in "
          f"{t_next:.2f} s (load {load()})")
    return ok and "error" in refused


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=20_000)
    ap.add_argument("--line-mb", type=int, default=50)
    args = ap.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        ok = [bench_check(tmp, args.memories), bench_wal(tmp), bench_line(tmp, args.line_mb)]
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
