"""Time to a searchable demo on a fresh machine: `memdesk --demo` with no demo store, no
settings and an empty cache, until its window is shown with a vector for every memory.

    .venv/bin/python bench/bench_demo_start.py [--runs 3] [--compare]

Each run is a new process with its own empty data, config and cache folders (offscreen
Qt), as a first start is.  It prints, per run and as medians:

- ``window``: seconds from the process start until the main window is shown (the demo
  store built: rows, then the shipped vectors);
- ``ready``: until the window is shown and no memory lacks a vector (the Retrieval
  inspector's vector channel and the duplicates' close-vector matches have everything);
- ``first query``: the first retrieval with a vector afterwards: loading the embedding
  model on a fresh cache (its ONNX export through PyTorch, once per machine).

``--compare`` also times what the shipped vectors replace: embedding every distinct text
of the default demo with the model (ONNX Runtime, its export already done).  The machine
(``nproc``, CPU) and the load (``uptime``) are printed first: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DRIVER = r"""
import json, sys, time
t0 = float(sys.argv[1])
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from memdesk.app import gui
from memdesk.core.write.embed import missing_count

app = QApplication([])
launcher = gui.Launcher()
out = {}

def poll():
    w = launcher.window
    if w is None:
        return
    out.setdefault("window", time.time() - t0)
    if missing_count(w.store) == 0 and (w.write_service.last_embed is None
                                        or not w.write_service.last_embed.isVisible()):
        out["ready"] = time.time() - t0
        out["rows"] = w.store.counts()["total"]
        from memdesk.core.read.config import ReadConfig
        from memdesk.core.read.retriever import Retriever
        start = time.time()
        Retriever(w.store, ReadConfig(record=False)).retrieve("which test framework?", "alice")
        out["first query"] = time.time() - start
        print("RESULT " + json.dumps(out), flush=True)
        w.close()
        app.quit()

timer = QTimer()
timer.timeout.connect(poll)
timer.start(50)
launcher.open_demo()
app.exec()
"""


def machine() -> str:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    return f"nproc {os.cpu_count()}, {cpu}\nuptime: {load}"


def one_run() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="memdesk-bench-start-") as home:
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
               "XDG_DATA_HOME": f"{home}/data", "XDG_CACHE_HOME": f"{home}/cache",
               "XDG_CONFIG_HOME": f"{home}/config", "MEMDESK_CONFIG_DIR": f"{home}/config",
               "MEMDESK_BACKUP_DIR": f"{home}/backups"}
        r = subprocess.run([sys.executable, "-c", DRIVER, str(time.time())], env=env,
                           capture_output=True, text=True, timeout=1800)
        lines = [x for x in r.stdout.splitlines() if x.startswith("RESULT ")]
        if r.returncode != 0 or not lines:
            raise SystemExit(f"run failed ({r.returncode}):\n{r.stderr[-3000:]}")
        return dict(json.loads(lines[0].removeprefix("RESULT ")))


def compare() -> float:
    """Seconds to embed every distinct default-demo text with the model (ONNX Runtime,
    loaded and warmed before the clock starts)."""
    from datetime import datetime

    from memdesk.core import demo, embeddings
    from memdesk.core.demo import vectors

    texts = sorted({r.text for r in demo.DemoGenerator(vectors.SEED, datetime(2026, 1, 1))
                    .rows(vectors.SIZE)})
    e = embeddings.Embedder()
    e.encode(["warm up"])
    start = time.perf_counter()
    e.encode(texts, batch_size=32)
    took = time.perf_counter() - start
    print(f"the model on the demo's {len(texts):,} texts ({e.runtime}): {took:.1f} s")
    return took


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh starts to time (default 3)")
    ap.add_argument("--compare", action="store_true",
                    help="also time embedding the demo's texts with the model")
    args = ap.parse_args()
    print(machine())
    print(time.strftime("date: %Y-%m-%d %H:%M %Z"))
    runs = []
    for i in range(args.runs):
        r = one_run()
        runs.append(r)
        print(f"run {i + 1}: window {r['window']:.1f} s · ready {r['ready']:.1f} s "
              f"({r['rows']:,.0f} memories) · first query {r['first query']:.1f} s",
              flush=True)
    for key in ("window", "ready", "first query"):
        print(f"median {key}: {statistics.median(r[key] for r in runs):.1f} s")
    if args.compare:
        compare()
    print(machine().splitlines()[1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
