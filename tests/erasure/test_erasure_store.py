"""The purge on both backends (SQLite and PostgreSQL): an edited memory, retrieved and
snapshotted, is erased from every table (an oracle reading the database's own catalogue
through SQLAlchemy's inspector), its history keeps tombstones, and the proof says so."""

from __future__ import annotations

from sqlalchemy import inspect, text

from memdesk.core.delta.service import DeltaMemory
from memdesk.core.erasure.service import Erasure
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore

WORDS = ("vexquillan", "drubbleforth", "skarnwhistle")


def traces(store: MemoryStore) -> list[str]:
    found = []
    with store.read() as conn:
        insp = inspect(conn)
        for table in insp.get_table_names():
            for col in insp.get_columns(table):
                if "CHAR" not in str(col["type"]).upper() and "TEXT" not in str(
                        col["type"]).upper():
                    continue
                for w in WORDS:
                    n = conn.execute(text(
                        f'SELECT count(*) FROM "{table}" WHERE lower(CAST("{col["name"]}" '
                        "AS TEXT)) LIKE :w"), {"w": f"%{w}%"}).scalar_one()
                    if n:
                        found.append(f"{table}.{col['name']}: {w}")
    return found


def test_a_purge_erases_on_both_backends(store: MemoryStore) -> None:
    mid = store.add(user_id="mel", text="Mel's Vexquillan locker is at Drubbleforth",
                    type="fact").id
    store.update(mid, text="Mel's Vexquillan locker is at Drubbleforth, row Skarnwhistle")
    kept = store.add(user_id="mel", text="Mel likes green tea", type="preference").id
    rt = Retriever(store)
    rt.retrieve("Vexquillan locker", "mel", channels="fts")
    rt.flush()
    DeltaMemory(store).snapshot("g1", "Vexquillan locker", user_id="mel")
    assert traces(store)  # the oracle sees them before
    erased = Erasure(store).purge(mid, who="ticket 7")
    proof = erased.receipt["proof"]
    assert erased.verdict == "erased" and proof["clean"], proof["mentions_found"]
    assert traces(store) == []
    assert store.get(kept).text == "Mel likes green tea"
    for ev in store.events(mid):
        assert ev.after["erased"]["id"] == mid and ev.before == {}
    if store.dialect == "postgresql":
        assert "VACUUM" in " ".join(erased.receipt["scrub"]["steps"])
        assert any("WAL archives" in s
                   for s in erased.receipt["still_held_by"]["outside_the_store"])
