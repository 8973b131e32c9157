"""Benchmark of the import preview (``memdesk import FILE --dry-run``): time and peak
memory on a 200 MB file, with the store untouched.

Run: ``nice -n 10 .venv/bin/python bench/bench_import_preview.py [--mb 200]
[--store-rows 20000] [--embed-sample 2000]``.

The store is a demo store (bench/common.py's generator) whose vectors come from a
deterministic stand-in of the model (same name and size), so the store's space is the
model's and the file's vectors are comparable.  Two 200 MB JSON Lines files are made
from it: a fifth of their items restate a stored memory of the same user, a tenth
repeat an earlier item of the file, some carry a triple that contradicts a stored one,
the rest are new; users are the store's and new ones.

1. ``with vectors``: every line carries its vector and ``embedding_model`` (an export
   of another memdesk with ``--with-embeddings``): the preview compares with vectors
   and encodes nothing (~2.6 KB a line).
2. ``without vectors, model off``: no vectors in the file and the embedder unavailable
   (``MEMDESK_EMBED_RUNTIME=none``): the degraded preview (equal texts only), ~0.4 KB a
   line, so many more items for the same size.
3. ``--embed-sample N``: N lines without vectors through the real model (its
   throughput is what a file without vectors costs per item on top of 2.).

Each preview runs in a child process (``memdesk import --dry-run --json``) whose peak
RSS is read from ``wait4``; the store file's sha256 is checked unchanged afterwards.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from common import CACHE, END, machine

from memdesk.core import demo, embeddings
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.embed import backfill

TOPICS = ("work", "family", "health", "travel", "food", "tech", "money", "hobbies")


class HashEmbedder:
    """The model's name and size, vectors from each text's hash (fast, deterministic)."""

    name, dim = embeddings.MODEL_NAME, embeddings.DIM

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        return np.stack([vector(t) for t in texts]) if texts else np.zeros((0, self.dim))


def vector(text: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
    v = np.random.default_rng(seed).standard_normal(embeddings.DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def build_store(rows: int) -> Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"preview-store-{rows}.db"
    marker = path.with_suffix(".ok")
    if not marker.exists():
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        s = MemoryStore.open(path)
        demo.generate(s, rows, seed=7, end=END)
        backfill(s, embedder=HashEmbedder())  # type: ignore[arg-type]
        s.checkpoint()
        s.close()
        marker.write_text("ok\n")
    return path


def stored(path: Path) -> list[tuple[str, str, str | None, str | None, str | None]]:
    s = MemoryStore.open(path)
    try:
        with s.read() as conn:
            return [tuple(r) for r in conn.exec_driver_sql(
                "SELECT user_id, text, entity, attribute, value FROM memories "
                "WHERE deleted_at IS NULL ORDER BY seq")]
    finally:
        s.close()


def make_file(path: Path, mb: int, rows: list[tuple], *, with_vectors: bool,
              limit: int | None = None) -> int:
    """Lines until ``mb`` MB (or ``limit`` lines); returns the number of lines."""
    rng = random.Random(11)
    users = sorted({r[0] for r in rows}) + [f"imported-{k}" for k in range(200)]
    earlier: list[dict] = []
    n = size = 0
    with path.open("w", encoding="utf-8") as out:
        while size < mb * 1_000_000 and (limit is None or n < limit):
            n += 1
            roll = rng.random()
            if roll < 0.2:  # restates a stored memory
                u, text, e, a, v = rows[rng.randrange(len(rows))]
                item = {"user_id": u, "text": text, "type": "fact"}
            elif roll < 0.3 and earlier:  # repeats an earlier item of the file
                item = dict(earlier[rng.randrange(len(earlier))])
            elif roll < 0.35:  # a triple that contradicts a stored one, when it has one
                u, text, e, a, v = rows[rng.randrange(len(rows))]
                item = {"user_id": u, "text": f"{text} (now {n})", "type": "fact"}
                if e and a and v:
                    item.update(entity=e, attribute=a, value=f"{v} {n}")
            else:
                item = {"user_id": rng.choice(users), "type": "note",
                        "text": f"Imported note {n}: {rng.choice(rows)[1][:200]}"}
            if len(earlier) < 5000:
                earlier.append(item)
            # the other fields an export line carries (a memdesk export is ~470 B a line)
            line = {"id": f"imp-{n:09d}", **item, "topic": rng.choice(TOPICS),
                    "importance": round(rng.random(), 3), "confidence": 0.8,
                    "source_session": f"session-{rng.randrange(10_000)}",
                    "created_at": f"2026-0{rng.randrange(1, 10)}-1{rng.randrange(10)}"
                                  "T10:00:00.000000Z",
                    "last_accessed": None, "access_count": 0, "decay_score": None,
                    "superseded_by": None, "valid_until": None, "layer": None,
                    "deleted_at": None}
            line.setdefault("entity", None)
            line.setdefault("attribute", None)
            line.setdefault("value", None)
            if with_vectors:
                line["embedding"] = base64.b64encode(vector(item["text"]).astype("<f4")
                                                     .tobytes()).decode()
                line["embedding_model"] = embeddings.MODEL_NAME
            text = json.dumps(line) + "\n"
            out.write(text)
            size += len(text.encode())
    return n


def preview(file: Path, db: Path, env: dict[str, str]) -> tuple[dict, float, float]:
    """The child's JSON, its wall seconds and its own peak RSS in MB (``wait4``)."""
    out_path, err_path = file.with_suffix(".out"), file.with_suffix(".err")
    t = time.monotonic()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "memdesk.app.main", "import",
                                 str(file), "--db", str(db), "--dry-run", "--json"],
                                stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t
    code = proc.returncode = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"preview failed ({code}): {err_path.read_text()[-2000:]}")
    return json.loads(out_path.read_text()), wall, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", type=int, default=200)
    ap.add_argument("--store-rows", type=int, default=20_000)
    ap.add_argument("--embed-sample", type=int, default=2000)
    args = ap.parse_args()
    print(f"machine: {machine()}; load: {os.getloadavg()}")
    db = build_store(args.store_rows)
    rows = stored(db)
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    work = CACHE / "preview-files"
    work.mkdir(exist_ok=True)
    runs = [("with vectors", True, {}),
            ("without vectors, model off", False, {"MEMDESK_EMBED_RUNTIME": "none"})]
    for label, with_vectors, extra in runs:
        f = work / f"import-{args.mb}mb-{'vec' if with_vectors else 'novec'}.jsonl"
        if not f.exists():
            make_file(f, args.mb, rows, with_vectors=with_vectors)
        env = dict(os.environ, **extra)
        data, wall, rss = preview(f, db, env)
        report(label, f, data, wall, rss)
    if args.embed_sample:
        f = work / f"import-sample-{args.embed_sample}.jsonl"
        make_file(f, 1000, rows, with_vectors=False, limit=args.embed_sample)
        data, wall, rss = preview(f, db, dict(os.environ))
        report(f"{args.embed_sample:,} lines through the real model", f, data, wall, rss)
    after = hashlib.sha256(db.read_bytes()).hexdigest()
    print(f"store unchanged: {after == digest}")
    print(f"load after: {os.getloadavg()}")


def report(label: str, f: Path, data: dict, wall: float, rss: float) -> None:
    mb = f.stat().st_size / 1e6
    d, c = data["duplicates"], data["contradictions"]
    print(f"{label}: {mb:,.0f} MB, {data['items']:,} items in {wall:,.1f} s "
          f"({data['items'] / wall:,.0f} items/s, {mb / wall:,.2f} MB/s), peak RSS "
          f"{rss:,.0f} MB; would add {data['would_add']:,}, duplicates {d['count']} "
          f"({d['of_store']} of the store, {d['within_file']} within the file), "
          f"contradictions {c['count']}, guard {data['guard']['count']:,}, "
          f"bad {data['bad_count']:,}; vectors: {data['vectors']}")


if __name__ == "__main__":
    main()
