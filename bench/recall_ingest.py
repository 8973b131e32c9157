"""Ingest, measured both ways memdesk takes memories in, against Mem0's one-by-one add.

- **bulk import** (``memdesk import``'s engine, core/transfer/importer.py): ``n`` demo
  memories as memdesk JSON Lines, validated and written in audited batches of 500,
  then ``memdesk embed`` (core/write/embed.backfill: each distinct text encoded once).
  An operator moving a store in; no extraction.
- **agents' path** (what ``store_memory`` does in ``memdesk mcp``): each turn enqueued
  through the same write façade the tool calls (``enqueue_from_agent``: a job and its
  origin in one transaction), the server's own Runtime worker thread running as the
  server runs it (offline heuristic extractor, routing, poisoning guard, insert,
  vectors), timed from the first turn to the last job done.  The MCP protocol's own
  cost (≈ 4 ms a call at p95, docs/benchmarks.md) is not in it.
- **Mem0** ``add(text, user_id=…, infer=False)`` one turn at a time on an empty store:
  each call embeds the text, inserts it, saves the index, writes its history row.
"""

from __future__ import annotations

import io
import json
import time
from datetime import datetime
from pathlib import Path
from typing import Any


def demo_jsonl(n: int, end: datetime) -> tuple[bytes, int]:
    """The demo generator's first ``n`` rows as JSON Lines (and their distinct texts)."""
    from memdesk.core.demo import COLUMNS, DemoGenerator

    lines, texts = [], set()
    for row in DemoGenerator(7, end).rows(n):
        obj: dict[str, Any] = {}
        for c in COLUMNS:
            v = getattr(row, c)
            if v is None or c in ("decay_score", "layer"):
                continue
            obj[c] = v.isoformat() if isinstance(v, datetime) else v
        texts.add(row.text)
        lines.append(json.dumps(obj, ensure_ascii=False).encode("utf-8"))
    return b"\n".join(lines) + b"\n", len(texts)


def bulk_import(n: int, folder: Path, end: datetime) -> dict[str, float]:
    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.transfer.importer import Importer
    from memdesk.core.transfer.jsonl import JsonlSource
    from memdesk.core.write.embed import backfill

    data, distinct = demo_jsonl(n, end)
    store = MemoryStore.open(folder / "bulk.db")
    try:
        t0 = time.perf_counter()
        rep = Importer(store, note="bench").run(JsonlSource(io.BytesIO(data), label="demo"))
        t1 = time.perf_counter()
        emb = backfill(store)
        t2 = time.perf_counter()
    finally:
        store.close()
    if rep.bad_count:
        raise SystemExit(f"bulk import refused {rep.bad_count} demo rows: {rep.bad[:3]}")
    return {"n": n, "imported": rep.imported, "distinct": distinct, "import_s": t1 - t0,
            "embed_s": t2 - t1, "embedded": emb.embedded}


def agents_path(turns: list[tuple[str, str]], folder: Path,
                timeout_s: float = 900.0) -> dict[str, float]:
    """``turns`` as (user, text) through the store_memory façade and the server's worker."""
    from memdesk.app.mcp.runtime import Runtime  # the server's own runtime and worker
    from memdesk.core.guard.origin import AgentOrigin
    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.write.extract import ExtractorConfig, make_extractor
    from memdesk.core.write.intake import enqueue_from_agent
    from memdesk.core.write.jobs import JobQueue
    from memdesk.core.write.units import Turn

    store = MemoryStore.open(folder / "agents.db")
    rt = Runtime(store, make_extractor(ExtractorConfig(offline=True)), poll_s=0.05)
    rt.retriever.embedder().encode(["warm up"])  # the model is loaded before timing
    rt.start()
    origin = AgentOrigin(client_name="bench_recall", client_version="1", session="s1",
                         transport="stdio", source="user")
    queue = JobQueue(store)
    try:
        t0 = time.perf_counter()
        for i, (user, text) in enumerate(turns):
            enqueue_from_agent(store, Turn(text, user, f"bench-{i // 20}"), origin)
            rt.wake()
        queued = time.perf_counter() - t0
        deadline = time.perf_counter() + timeout_s
        while True:
            c = queue.counts()
            if c.get("pending", 0) + c.get("running", 0) == 0:
                break
            if time.perf_counter() > deadline:
                raise SystemExit(f"agents' path: jobs not done after {timeout_s:.0f} s: {c}")
            time.sleep(0.02)
        done = time.perf_counter() - t0
        memories = store.count()
    finally:
        rt.stop()
        store.close()
    return {"turns": len(turns), "queued_s": queued, "done_s": done, "memories": memories,
            "failed": c.get("failed", 0), "done": c.get("done", 0)}


def print_ingest(bulk: dict[str, float] | None, agents: dict[str, float] | None,
                 mem0: dict[str, float]) -> None:
    print("\n## Ingest")
    if bulk:
        n = bulk["n"]
        total = bulk["import_s"] + bulk["embed_s"]
        print(f"memdesk bulk import (JSON Lines → Importer, audited batches of 500) of {n:,} "
              f"demo memories: {bulk['import_s']:.2f} s ({n / bulk['import_s']:,.0f}/s); "
              f"then `memdesk embed` {bulk['embed_s']:.1f} s ({bulk['embedded']:,} vectors, "
              f"{bulk['distinct']:,} distinct texts encoded once); together {n / total:,.0f}/s")
    if agents:
        t = agents["turns"]
        print(f"memdesk agents' path (store_memory façade → the server's worker, offline "
              f"extractor, vectors) of {t:,} turns: queued in {agents['queued_s']:.2f} s, all "
              f"jobs done in {agents['done_s']:.1f} s = {t / agents['done_s']:,.1f} turns/s "
              f"({agents['done']:,} done, {agents['failed']:,} failed, "
              f"{agents['memories']:,} memories stored)")
    for name, r in mem0.items():
        print(f"{name} add(infer=False) one by one of the same {r['n']:,} texts: "
              f"{r['s']:.1f} s = {r['n'] / r['s']:,.1f}/s ({r['s'] / r['n'] * 1000:.1f} ms each)")
