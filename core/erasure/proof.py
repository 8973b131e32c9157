"""The proof: after the purge, every channel is searched again for what it erased.

- **tables**: every column of every table (read from the database, so a table added
  later is searched too), for every version of every erased text (as stored and as
  JSON escapes it: *copies*), and for each distinctive word, case-insensitively as a
  whole word (*mentions*);
- **ids**: the erased ids in every table that names a memory by id or ``seq``;
- **full-text**: the index matched for each text (as a phrase) and each word;
- **vectors**: the purged rows have no vector, and no vector left is a near copy of an
  erased one (cosine ≥ :data:`NEAR`);
- **file** (SQLite): the raw bytes of the database file and its ``-wal`` for each text,
  each word (case-insensitive, whole word) and the first bytes of each vector.

A copy anywhere makes the verdict ``incomplete``; a mention (a distinctive word in a
row the purge had no reason to touch) is listed for the operator, the verdict stays
``erased`` only when there is none of either.
"""

from __future__ import annotations

import mmap
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, text

from memdesk.core.erasure.columns import Column, all_columns
from memdesk.core.erasure.plan import Plan
from memdesk.core.erasure.purge import searchable, word_pattern
from memdesk.core.store.fts import PG_TS_CONFIG
from memdesk.core.store.memory_store import MemoryStore

NEAR = 0.95  # a vector this close to an erased one is a near copy of its text
# Tables naming a memory by id (column) or by seq, checked for every erased id.
ID_COLUMNS = (("memories", "id"), ("episodes", "memory_id"), ("memory_provenance", "memory_id"),
              ("memory_provenance", "episode_id"), ("quarantine_reasons", "memory_id"),
              ("retrieval_items", "memory_id"), ("duplicate_flags", "memory_id"),
              ("duplicate_flags", "duplicate_of"), ("memories", "superseded_by"))


@dataclass(frozen=True)
class Search:
    """One search of one channel: what it looked for (never the needle itself), where,
    and how many hits."""

    channel: str
    looked_for: str
    where: str
    hits: int

    def to_json(self) -> dict[str, Any]:
        return {"channel": self.channel, "looked_for": self.looked_for, "where": self.where,
                "hits": self.hits}


@dataclass
class Proof:
    searches: list[Search] = field(default_factory=list)

    @property
    def copies(self) -> list[Search]:
        return [s for s in self.searches if s.hits and s.looked_for != "distinctive words"]

    @property
    def mentions(self) -> list[Search]:
        return [s for s in self.searches if s.hits and s.looked_for == "distinctive words"]

    @property
    def verdict(self) -> str:
        return "incomplete" if self.copies else "erased"

    @property
    def clean(self) -> bool:
        return not self.copies and not self.mentions

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "clean": self.clean,
                "searches": len(self.searches),
                "copies_found": [s.to_json() for s in self.copies],
                "mentions_found": [s.to_json() for s in self.mentions],
                "channels": _summary(self.searches)}


def _summary(searches: list[Search]) -> list[dict[str, Any]]:
    by: dict[tuple[str, str], list[Search]] = {}
    for s in searches:
        by.setdefault((s.channel, s.looked_for), []).append(s)
    return [{"channel": c, "looked_for": w, "searched": len(ss),
             "hits": sum(s.hits for s in ss)} for (c, w), ss in by.items()]


def prove(store: MemoryStore, path: Path | None, plan: Plan) -> Proof:
    proof = Proof()
    with store.read() as conn:
        proof.searches += _tables(conn, plan)
        proof.searches += _ids(conn, plan)
        proof.searches += _fts(conn, plan)
        proof.searches += _vectors(conn, plan)
    if path is not None:
        proof.searches += [Search("file", what, where, n)
                           for what, where, n in raw_search(path, plan, raw_words(store, plan))]
    return proof


def raw_words(store: MemoryStore, plan: Plan) -> list[str]:
    """The distinctive words the raw bytes can be searched for: those that are not part
    of a longer word some row still holds ("kumquat" inside a live "kumquats").  In
    the file, fields of a record or an index key sit side by side with no separator,
    so the raw search cannot ask for whole words; it asks for the bare word instead,
    and so only for words no live text contains."""
    with store.read() as conn:
        cols = [c for c in all_columns(conn) if not c.binary]
        return [w for w in plan.words if not any(_has_substring(conn, c, w) for c in cols)]


def _has_substring(conn: Connection, col: Column, word: str) -> bool:
    table, name = col.sql()
    sqlite = conn.dialect.name == "sqlite"
    lowered = f"lower(CAST({name} AS TEXT))" if sqlite else f"lower({name}::text)"
    find = "instr" if sqlite else "strpos"
    return conn.execute(text(f"SELECT 1 FROM {table} WHERE {find}({lowered}, :w) > 0 "
                             "LIMIT 1"), {"w": word.lower()}).first() is not None


def _tables(conn: Connection, plan: Plan) -> list[Search]:
    out = []
    needles = searchable(plan)
    pattern = word_pattern(plan.words)
    sqlite = conn.dialect.name == "sqlite"
    for col in all_columns(conn):
        copies = sum(_count(conn, col, n.encode("utf-8"), sqlite) for n in needles)
        out.append(Search("tables", "text", col.where, copies))
        if pattern is not None:
            out.append(Search("tables", "distinctive words", col.where,
                              _word_rows(conn, col, plan.words, pattern, sqlite)))
    return out


def _count(conn: Connection, col: Column, needle: bytes, sqlite: bool) -> int:
    table, name = col.sql()
    if sqlite:
        sql = f"SELECT count(*) FROM {table} WHERE instr(CAST({name} AS BLOB), :n) > 0"
    elif col.binary:
        sql = f"SELECT count(*) FROM {table} WHERE position(:n in {name}) > 0"
    else:
        sql = f"SELECT count(*) FROM {table} WHERE strpos({name}::text, :n) > 0"
    value: Any = needle if sqlite or col.binary else needle.decode("utf-8")
    return int(conn.execute(text(sql), {"n": value}).scalar_one())


def _word_rows(conn: Connection, col: Column, words: tuple[str, ...],
               pattern: re.Pattern[str], sqlite: bool) -> int:
    table, name = col.sql()
    hits = 0
    for w in words:
        if col.binary:  # full-text segments keep terms lower-cased, as bytes
            hits += _count(conn, col, w.encode("utf-8"), sqlite)
            continue
        lowered = f"lower(CAST({name} AS TEXT))" if sqlite else f"lower({name}::text)"
        find = "instr" if sqlite else "strpos"
        rows = conn.execute(text(f"SELECT {name} FROM {table} WHERE {find}({lowered}, :w) > 0"
                                 " LIMIT 1000"), {"w": w.lower()}).scalars().all()
        hits += sum(1 for v in rows if isinstance(v, str) and pattern.search(v))
    return hits


def _ids(conn: Connection, plan: Plan) -> list[Search]:
    out = []
    ids = list(plan.ids)
    params = {f"i{k}": v for k, v in enumerate(ids)}
    marks = ", ".join(f":i{k}" for k in range(len(ids)))
    for table, column in ID_COLUMNS:
        n = conn.execute(text(f"SELECT count(*) FROM {table} WHERE {column} IN ({marks})"),
                         params).scalar_one()
        out.append(Search("ids", "erased ids", f"{table}.{column}", int(n)))
    seqs = {f"s{k}": v for k, v in enumerate(plan.seqs)}
    n = conn.execute(text("SELECT count(*) FROM memory_vectors WHERE seq IN ("
                          + ", ".join(f":s{k}" for k in range(len(seqs))) + ")"),
                     seqs).scalar_one()
    out.append(Search("vectors", "erased ids", "memory_vectors.seq", int(n)))
    return out


def _fts(conn: Connection, plan: Plan) -> list[Search]:
    out = []
    sqlite = conn.dialect.name == "sqlite"
    phrases = [(t, "text") for t in plan.texts if re.search(r"\w", t)]
    phrases += [(w, "distinctive words") for w in plan.words]
    for query, what in phrases:
        words = re.findall(r"\w+", query)[:64]
        if sqlite:
            expr = '"' + " ".join(words).replace('"', '""') + '"'
            n = conn.execute(text("SELECT count(*) FROM memories_fts WHERE memories_fts "
                                  "MATCH :q"), {"q": expr}).scalar_one()
            where = "memories_fts"
        else:
            n = conn.execute(text(
                f"SELECT count(*) FROM memories WHERE to_tsvector('{PG_TS_CONFIG}', text) "
                f"@@ phraseto_tsquery('{PG_TS_CONFIG}', :q)"), {"q": " ".join(words)}
            ).scalar_one()
            where = "memories (GIN index on to_tsvector)"
        out.append(Search("full-text", what, where, int(n)))
    return out


def _vectors(conn: Connection, plan: Plan) -> list[Search]:
    if not plan.vectors:
        return []
    import numpy as np

    wanted = [np.frombuffer(v, dtype="<f4") for v in plan.vectors]
    near = 0
    last = -1
    while True:  # the whole table, a chunk at a time
        rows = conn.execute(text("SELECT seq, vector FROM memory_vectors WHERE seq > :s "
                                 "ORDER BY seq LIMIT 20000"), {"s": last}).all()
        if not rows:
            break
        last = int(rows[-1][0])
        for q in wanted:
            same = [np.frombuffer(v, dtype="<f4") for _, v in rows if len(v) == q.nbytes]
            if not same:
                continue
            mat = np.vstack(same)
            denom = np.linalg.norm(mat, axis=1) * (np.linalg.norm(q) or 1.0)
            sims = (mat @ q) / np.where(denom == 0, 1.0, denom)
            near += int((sims >= NEAR).sum())
    return [Search("vectors", f"vectors within cosine {NEAR} of an erased one",
                   "memory_vectors", near)]


def raw_search(path: Path, plan: Plan, words_: list[str]) -> list[tuple[str, str, int]]:
    """(what, which file, hits) for every needle in the raw bytes of the store's files:
    the texts, ``words_`` (case-insensitive, see :func:`raw_words`) and the vectors."""
    texts = [n.encode("utf-8") for n in searchable(plan)]
    vectors = [v[:64] for v in plan.vectors if len(v) >= 64]
    words = [re.compile(re.escape(w.encode("utf-8")), re.IGNORECASE) for w in words_]
    out = []
    for suffix in ("", "-wal"):
        f = Path(str(path) + suffix)
        name = f.name
        try:
            size = f.stat().st_size
        except OSError:
            continue
        if size == 0:
            for what in ("text", "distinctive words", "vectors"):
                out.append((what, name, 0))
            continue
        with f.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            out.append(("text", name, sum(_occurrences(mm, t) for t in texts)))
            out.append(("distinctive words", name,
                        sum(sum(1 for _ in p.finditer(mm)) for p in words)))
            out.append(("vectors", name, sum(_occurrences(mm, v) for v in vectors)))
    return out


def _occurrences(mm: mmap.mmap, needle: bytes) -> int:
    n, at = 0, mm.find(needle)
    while at >= 0:
        n += 1
        at = mm.find(needle, at + 1)
    return n


def raw_hits(store: MemoryStore, path: Path, plan: Plan) -> list[tuple[str, str, int]]:
    """The raw searches that found something (the scrub's test for a VACUUM)."""
    return [r for r in raw_search(path, plan, raw_words(store, plan)) if r[2]]
