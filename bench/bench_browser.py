"""Browser benchmark on the 1,000,000-row demo store.

Measures what the operator waits for: launch → window shown → first rows shown; the
first page of results after an FTS filter (the matching count arrives separately, in
the background, and is reported on its own); the first page after a sort, per column;
and a deep scroll (fetchMore page after page).

    .venv/bin/python bench/bench_browser.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).parent))

from common import machine, million_store, pct


def ensure_indexes(path: Path) -> None:
    """A cache built before migrations 0003/0005 were filled lacks their indexes (it is
    already stamped at head); create them so the benchmark sees a store as users have."""
    import sqlite3

    from memdesk.core.store.migrations.versions.m0005_issue3 import BROWSER_INDEXES

    con = sqlite3.connect(path)
    have = {r[1] for r in con.execute("PRAGMA index_list(memories)")}
    todo = {k: v for k, v in BROWSER_INDEXES.items() if k not in have}
    if "ix_memories_session_created" not in have and "ix_memories_source_session" not in have:
        todo["ix_memories_session_created"] = ["source_session", "created_at"]
    if todo:
        t = time.perf_counter()
        for name, cols in todo.items():
            con.execute(f"CREATE INDEX IF NOT EXISTS {name} ON memories ({', '.join(cols)})")
        con.execute("ANALYZE")
        con.commit()
        print(f"(cache predates migration 0005: built {len(todo)} indexes in "
              f"{time.perf_counter() - t:.1f}s)")
    con.close()


def main() -> int:
    path = million_store()
    ensure_indexes(path)

    t_launch = time.perf_counter()
    from PySide6.QtCore import QEventLoop, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.store.query import MemoryFilter
    from memdesk.ui.browse.browser_model import COLUMN_KEYS
    from memdesk.ui.window.main_window import MainWindow
    from memdesk.ui.window.settings import Settings

    app = QApplication.instance() or QApplication(sys.argv)  # noqa: F841 (kept alive)
    settings_dir = tempfile.mkdtemp()
    settings = Settings(QSettings(os.path.join(settings_dir, "bench.ini"),
                                  QSettings.Format.IniFormat))
    settings.ollama_host = "http://127.0.0.1:9"
    store = MemoryStore.open(path)
    window = MainWindow(store, settings)
    window.resize(1440, 860)
    window.show()
    t_shown = time.perf_counter()
    browser = window.views["browse"]
    model = browser.model

    def wait_for(signal, predicate) -> None:  # type: ignore[no-untyped-def]
        if predicate():
            return
        loop = QEventLoop()
        signal.connect(loop.quit)
        QTimer.singleShot(60_000, loop.quit)
        while not predicate():
            loop.exec()
        signal.disconnect(loop.quit)

    wait_for(model.loaded, lambda: not model.loading)
    t_rows = time.perf_counter()
    wait_for(model.countChanged, lambda: model.total is not None)
    t_count = time.perf_counter()
    print(f"memdesk browser benchmark · {machine()} · {store.count():,} rows")
    print(f"launch → window shown          {1000 * (t_shown - t_launch):7.0f} ms "
          "(imports, open store, build views)")
    print(f"window shown → first rows      {1000 * (t_rows - t_shown):7.0f} ms "
          f"({model.loaded_count} rows loaded of {model.total:,})")
    print(f"window shown → count in status {1000 * (t_count - t_shown):7.0f} ms (background)")

    def first_page(flt: MemoryFilter | None = None, order: tuple[str, bool] | None = None
                   ) -> tuple[float, float]:
        t = time.perf_counter()
        if order is None:
            browser.set_filter(flt)
        else:
            model.set_query(order_by=order[0], descending=order[1])
        wait_for(model.loaded, lambda: not model.loading)
        t_page = time.perf_counter()
        wait_for(model.countChanged, lambda: model.total is not None)
        return 1000 * (t_page - t), 1000 * (time.perf_counter() - t)

    queries = ["p", "py", "pyt", "pyth", "python", "deadline", "user prefers", "rust",
               "Lisbon", "doctor", "tests workflow", "dark mode", "ledger", "chose",
               "latency matters", "zzzz", "<b>bold</b>", '"AND (', "kafka timeout",
               "alice", "onboarding slipped", "prefers Rust for backend"]
    pages, counts = [], []
    for _ in range(2):
        for q in queries:
            p, c = first_page(MemoryFilter(text=q))
            pages.append(p)
            counts.append(c)
    print(f"FTS filter → first page        p50 {pct(pages, 50):6.1f} ms · "
          f"p95 {pct(pages, 95):6.1f} ms · max {max(pages):6.1f} ms "
          f"({len(pages)} queries, as-you-type prefixes included)")
    print(f"FTS filter → count shown       p50 {pct(counts, 50):6.1f} ms · "
          f"p95 {pct(counts, 95):6.1f} ms (background, not blocking)")
    browser.set_filter(MemoryFilter())
    wait_for(model.loaded, lambda: not model.loading)

    print("sort → first page (asc / desc), then next page via fetchMore:")
    for key in COLUMN_KEYS:
        cells = []
        for desc in (False, True):
            p, _c = first_page(order=(key, desc))
            t = time.perf_counter()
            model.fetchMore()
            cells.append(f"{p:6.1f} / next {1000 * (time.perf_counter() - t):5.1f}")
        print(f"  {key:15s} asc {cells[0]} ms · desc {cells[1]} ms")

    model.set_query(order_by="created_at", descending=True)
    wait_for(model.loaded, lambda: not model.loading)
    steps = []
    for _ in range(100):
        t = time.perf_counter()
        model.fetchMore()
        steps.append(1000 * (time.perf_counter() - t))
    print(f"deep scroll: 100 × fetchMore    p50 {pct(steps, 50):.1f} ms · "
          f"p95 {pct(steps, 95):.1f} ms · loaded {model.loaded_count:,} rows")
    import shiboken6

    window.close()  # waits for background queries
    shiboken6.delete(window)  # tear Qt objects down before the interpreter does
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
