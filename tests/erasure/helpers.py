"""A store where distinctive texts have gone everywhere memdesk copies text, and an
oracle that looks for them without the erasure's own code: every column of every
table (SQLite's own catalogue), the full-text index, the vectors, and the raw bytes
of the file and its WAL."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memdesk.core.curation.service import Sweeps
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.guard import agent_actions
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.db import DRIVER
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.embed import backfill
from tests.helpers.embedders import CountingEmbedder
from tests.helpers.episodes import say

# Made-up words: any trace of them in the store is a trace of the erased texts.
TURN = "I live in Zqvorthax and I love blemmivants. My password is Quorptilla77."
TURN_WORDS = ("zqvorthax", "blemmivant", "quorptilla")
FACT = "Mel's Vexquillan locker is at the Drubbleforth gym"
FACT_EDITED = "Mel's Vexquillan locker is at the Drubbleforth gym now, row Skarnwhistle"
FACT_WORDS = ("vexquillan", "drubbleforth", "skarnwhistle")
KEPT = "Mel likes green tea in the morning"


@dataclass
class World:
    episode: str
    units: list[str]
    fact: str
    retired: str  # the memory the fact superseded
    kept: str


def spread(store: MemoryStore) -> World:
    """Write the texts through every path that copies them."""
    out = say(store, TURN)  # a job, its episode and units, the guard's evidence
    kept = store.add(user_id="mel", text=KEPT, type="preference").id
    old = store.add(user_id="mel", text="Mel's locker is at the harbour gym", type="fact",
                    entity="mel", attribute="locker", value="harbour")
    fact = store.add(user_id="mel", text=FACT, type="fact", entity="mel",
                     attribute="locker", value="Drubbleforth").id
    store.supersede(old.id, fact)
    store.update(fact, text=FACT_EDITED, actor="operator")
    # An agent corrects the operator's memory: the correction is held, and the guard's
    # evidence quotes the old text in the correction's own review row.
    agent_actions.correct(store, fact, "Mel moved lockers", lambda u: u == "mel",
                          note="test-agent")
    backfill(store, embedder=CountingEmbedder())  # type: ignore[arg-type]
    rt = Retriever(store)
    for q in ("Vexquillan locker Drubbleforth", "where does Mel live Zqvorthax", KEPT):
        rt.retrieve(q, "mel", channels="fts")
    rt.flush()
    dm = DeltaMemory(store)
    dm.snapshot("locker", "Vexquillan locker", user_id="mel")
    dm.snapshot("locker", "Drubbleforth gym", user_id="mel")
    Sweeps(store).start((0.0, 1.0), 5, seed=1)
    with store.write() as conn:
        conn.exec_driver_sql("ANALYZE")  # statistics with samples of the index keys
    return World(out.episode_id or "", out.memory_ids, fact, old.id, kept)


def traces(path: Path, words: tuple[str, ...], vectors: list[np.ndarray] = ()
           ) -> list[str]:
    """Where any of ``words`` (case-insensitive) or a near copy of a vector is left."""
    found: list[str] = []
    conn = DRIVER.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND coalesce(sql, '') NOT LIKE 'CREATE VIRTUAL%'")]
        for t in tables:
            for col in [r[1] for r in conn.execute(f'PRAGMA table_info("{t}")')]:
                for w in words:
                    n = conn.execute(
                        f'SELECT count(*) FROM "{t}" WHERE instr(lower(CAST("{col}" AS TEXT)),'
                        f' ?) > 0 OR instr(CAST("{col}" AS BLOB), ?) > 0',
                        (w, w.encode())).fetchone()[0]
                    if n:
                        found.append(f"{t}.{col} holds {w!r} ({n})")
        for w in words:
            n = conn.execute("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?",
                             (f'"{w}"*',)).fetchone()[0]
            if n:
                found.append(f"the full-text index finds {w!r}")
        for seq, blob in conn.execute("SELECT seq, vector FROM memory_vectors"):
            v = np.frombuffer(blob, dtype="<f4")
            for q in vectors:
                if float(v @ q) > 0.95:
                    found.append(f"memory_vectors seq {seq} is a copy of an erased vector")
    finally:
        conn.close()
    for suffix in ("", "-wal"):
        f = Path(f"{path}{suffix}")
        if f.exists():
            data = f.read_bytes()
            for w in words:
                if re.search(re.escape(w.encode()), data, re.IGNORECASE):
                    found.append(f"the bytes of {f.name} hold {w!r}")
            for q in vectors:
                if q.astype("<f4").tobytes()[:64] in data:
                    found.append(f"the bytes of {f.name} hold an erased vector")
    return found
