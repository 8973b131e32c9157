"""The mixed load of the store-safety benchmark: 4 writers, 2 editors incrementing shared
counters read-modify-write, a retriever and an MCP server (driven by the official SDK
client) on one store, SQLite or PostgreSQL.  Lost edits = increments the editors had
acknowledged minus what the counters hold at the end.

``cas=True``: editors pass the version they read (``expected_version``) and retry on a
conflict, as the GUI and ``memdesk edit --if-version`` do.  ``cas=False`` is the weaker
system the figure is compared with: the same editors writing what they read + 1 blind.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import time
from dataclasses import dataclass

COUNTERS = 20


def _writer(db: str, seconds: float, tag: str, q) -> None:  # type: ignore[no-untyped-def]
    from memdesk.core.store.memory_store import MemoryStore

    store = MemoryStore.open(db)
    n = errors = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            store.add_many([dict(user_id="load", text=f"{tag} {n} {k} " + "lorem ipsum " * 10,
                                 type="note") for k in range(10)])
            n += 1
        except Exception as exc:  # counted, reported by the parent
            errors += 1
            q.put(("error", tag, repr(exc)[:200]))
    store.close()
    q.put(("writer", tag, n * 10, errors))


def _editor(db: str, seconds: float, ids: list[str], cas: bool, seed: int, q) -> None:  # type: ignore[no-untyped-def]
    from memdesk.core.errors import EditConflictError
    from memdesk.core.store.memory_store import MemoryStore

    store = MemoryStore.open(db)
    rng = random.Random(seed)
    done = conflicts = errors = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        mid = rng.choice(ids)
        try:
            rec = store.get(mid)
            n = int(rec.text.rsplit(" ", 1)[1])
            store.update(mid, text=f"counter {n + 1}",
                         expected_version=rec.version if cas else None)
            done += 1
        except EditConflictError:
            conflicts += 1
        except Exception as exc:
            errors += 1
            q.put(("error", f"editor{seed}", repr(exc)[:200]))
    store.close()
    q.put(("editor", f"editor{seed}", done, conflicts, errors))


def _retriever(db: str, seconds: float, q) -> None:  # type: ignore[no-untyped-def]
    from memdesk.core.read.config import ReadConfig
    from memdesk.core.read.retriever import Retriever
    from memdesk.core.store.memory_store import MemoryStore

    store = MemoryStore.open(db)
    r = Retriever(store, ReadConfig())
    n = errors = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            r.retrieve("lorem ipsum counter", "load", channels=("fts",))
            n += 1
        except Exception as exc:
            errors += 1
            q.put(("error", "retriever", repr(exc)[:200]))
    r.flush()
    store.close()
    q.put(("retriever", "retriever", n, errors))


def _mcp(db: str, seconds: float, memdesk: str, q) -> None:  # type: ignore[no-untyped-def]
    import anyio
    import mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client

    async def drive() -> tuple[int, int]:
        params = StdioServerParameters(
            command=memdesk, args=["mcp", "--db", db, "--offline", "--no-vectors"],
            env=get_default_environment() | {"MEMDESK_BACKUP_DIR":
                                             os.environ.get("MEMDESK_BACKUP_DIR", "")})
        calls = errors = 0
        async with stdio_client(params) as streams:
            info = types.Implementation(name="bench", version="1")
            async with ClientSession(streams[0], streams[1], client_info=info,
                                     read_timeout_seconds=120) as s:
                await s.initialize()
                end = time.monotonic() + seconds
                while time.monotonic() < end:
                    if calls % 2:
                        r = await s.call_tool("store_memory", {
                            "text": f"I prefer tea number {calls}.", "user_id": "mcp"})
                    else:
                        r = await s.call_tool("retrieve", {"query": "tea", "user_id": "mcp"})
                    calls += 1
                    if r.is_error:
                        errors += 1
                        q.put(("error", "mcp", r.content[0].text[:200]))
        return calls, errors

    calls, errors = anyio.run(drive)
    q.put(("mcp", "mcp", calls, errors))


@dataclass
class LoadResult:
    edits: int  # increments the editors were told succeeded
    stored: int  # what the counters hold at the end
    conflicts: int
    errors: list[str]
    rows_written: int
    retrievals: int
    mcp_calls: int

    @property
    def lost(self) -> int:
        return self.edits - self.stored


def run_load(db: str, seconds: float, *, cas: bool, memdesk: str) -> LoadResult:
    from memdesk.core.store.memory_store import MemoryStore

    store = MemoryStore.open(db)
    ids = [store.add(user_id="editors", text="counter 0", type="note").id
           for _ in range(COUNTERS)]
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(db, seconds, f"w{i}", q)) for i in range(4)]
    procs += [ctx.Process(target=_editor, args=(db, seconds, ids, cas, s, q)) for s in (1, 2)]
    procs += [ctx.Process(target=_retriever, args=(db, seconds, q)),
              ctx.Process(target=_mcp, args=(db, seconds, memdesk, q))]
    for p in procs:
        p.start()
    res = LoadResult(0, 0, 0, [], 0, 0, 0)
    finished = 0
    while finished < len(procs):
        msg = q.get(timeout=seconds + 600)
        kind = msg[0]
        if kind == "error":
            res.errors.append(f"{msg[1]}: {msg[2]}")
            continue
        finished += 1
        if kind == "writer":
            res.rows_written += msg[2]
        elif kind == "editor":
            res.edits += msg[2]
            res.conflicts += msg[3]
        elif kind == "retriever":
            res.retrievals += msg[2]
        elif kind == "mcp":
            res.mcp_calls += msg[2]
    for p in procs:
        p.join(timeout=60)
    res.stored = sum(int(r.text.rsplit(" ", 1)[1]) for r in store.get_many(ids))
    store.close()
    return res
