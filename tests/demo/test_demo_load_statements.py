"""The statements demo.generate sends, per backend, seen through a recording store: the
insert's placeholders (qmark on SQLite, pyformat on PostgreSQL), the deferred foreign
keys each backend needs, the batches of ``chunk`` rows with progress after each, and
ANALYZE on SQLite only.  No database: the statements are recorded in memory."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime

import pytest

from memdesk.core import demo
from memdesk.core.delta import demo as delta_demo

END = datetime(2026, 11, 1)


class Conn:
    def __init__(self) -> None:
        self.sql: list[str] = []
        self.batches: list[int] = []

    def exec_driver_sql(self, sql: str, params=None):  # type: ignore[no-untyped-def]
        self.sql.append(sql)
        if params is not None:
            self.batches.append(len(params))
        return []

    def execute(self, stmt, params=None):  # type: ignore[no-untyped-def]
        self.sql.append(str(stmt))


class Store:
    """Just what generate() uses of a MemoryStore: its dialect and write transactions.

    (No "postgresql" in the test names: mutation runs deselect those with -k.)
    """

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect
        self.conns: list[Conn] = []

    @contextmanager
    def write(self):  # type: ignore[no-untyped-def]
        conn = Conn()
        self.conns.append(conn)
        yield conn


@pytest.fixture(autouse=True)
def no_series(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(delta_demo, "generate_snapshots", lambda store, **kw: 0)


def _insert(conn: Conn) -> str:
    return next(s for s in conn.sql if s.startswith("INSERT INTO memories"))


def test_the_pg_dialect_gets_pyformat_placeholders_and_deferred_constraints() -> None:
    store = Store("postgresql")
    assert demo.generate(store, 30, seed=3, end=END) == 30  # type: ignore[arg-type]
    [conn] = store.conns  # no ANALYZE transaction on PostgreSQL
    assert conn.sql[0] == "SET CONSTRAINTS ALL DEFERRED"
    cols = ", ".join(demo.COLUMNS)
    assert _insert(conn) == (f"INSERT INTO memories ({cols}) VALUES "
                             f"({', '.join(['%s'] * len(demo.COLUMNS))})")
    assert conn.batches == [30]


def test_sqlite_gets_qmark_placeholders_deferred_keys_and_analyze() -> None:
    store = Store("sqlite")
    demo.generate(store, 30, seed=3, end=END)  # type: ignore[arg-type]
    load, analyze = store.conns
    assert load.sql[0] == "PRAGMA defer_foreign_keys = ON"
    assert _insert(load).endswith(f"VALUES ({', '.join(['?'] * len(demo.COLUMNS))})")
    assert analyze.sql == ["ANALYZE"]


def test_default_batches_are_20000_rows_with_progress_after_each(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    [row] = demo.DemoGenerator(3, END).rows(1)

    class Repeating(demo.DemoGenerator):  # one row over and over: the batching is the point
        def rows(self, size: int):  # type: ignore[no-untyped-def]
            return iter([row] * size)

    monkeypatch.setattr(demo, "DemoGenerator", Repeating)
    store = Store("postgresql")  # no bulk path, no SQLite specifics
    calls: list[tuple[int, int]] = []
    n = demo.generate(store, 20_001, seed=3, end=END,  # type: ignore[arg-type]
                      progress=lambda d, t: calls.append((d, t)))
    assert n == 20_001
    assert store.conns[0].batches == [20_000, 1]
    assert calls == [(20_000, 20_001), (20_001, 20_001)]
