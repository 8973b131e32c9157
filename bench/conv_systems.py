"""The systems bench/bench_conversations.py measures, each fed one conversation's turns
and asked its questions; every answer is a list of results mapped to turn ids.

- **memdesk, turns imported**: each turn a memory (``"Speaker: text"``, created at its
  session's time, one minute apart within a session, ``source_session`` the session)
  through ``memdesk import``'s engine (JSON Lines → Importer), then ``memdesk embed``
  and ``memdesk maintain``, as a user moving a transcript in would.  Asked through
  the Retriever the MCP ``retrieve`` tool holds (default ReadConfig, recording on,
  warmed), with the default floor and with ``floor=False`` (on a second, quiet
  Retriever, so those calls do not reinforce what the server's calls see).
- **memdesk, agents' path**: each turn handed over as ``store_memory`` does
  (``enqueue_from_agent``: the job and its origin, the session as ``session_id``),
  the server's own Runtime worker (offline extractor, routing, guard, vectors) run
  until every job is done, then asked like the imported store.  A result maps to
  turns through :func:`turns_of`: its episode when the result carries one (the seam
  for episodes on the write path), else the job its memory was extracted from.
- **plain cosine**: the imported store's own vectors, the query encoded with the same
  MiniLM and no prompt, top ten by cosine: what a bare vector store returns.
- **shuffled**: plain cosine's top 30 in a seeded random order, first ten kept.  The
  benchmark's sanity check: it must score clearly worse.
- **Mem0**: 2.2.1 with faiss and the same MiniLM (bench/peer_mem0.py),
  ``add(text, user_id=conversation, infer=False)`` one turn at a time and
  ``search(q, filters={"user_id": …}, top_k=10)``.

Each conversation is its own user.  The query-vector cache is emptied before every
memdesk call, so each call encodes its question as every Mem0 search does.
"""

from __future__ import annotations

import dataclasses
import io
import json
import random
import time
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
from conv_locomo import Conversation, Turn


@dataclasses.dataclass
class Answer:
    """One system's answer to one question: turn ids best first, results returned."""

    turns: list[str]
    returned: int
    ms: float


def memory_text(t: Turn) -> str:
    return f"{t.speaker}: {t.text}"


def said_at(t: Turn) -> Any:
    """The turn's time: its session's, a minute per turn (LoCoMo turns have no time)."""
    return t.at + timedelta(minutes=t.index)


def user_of(c: Conversation) -> str:
    return f"conv:{c.sample_id}"


def import_rows(conversations: Iterable[Conversation]) -> tuple[bytes, dict[str, str]]:
    """memdesk JSON Lines, one memory per turn; and memory id → turn key."""
    lines, ids = [], {}
    for c in conversations:
        for n, t in enumerate(c.turns):
            mid = f"{c.sample_id}-{n:05d}"
            ids[mid] = turn_key(c, t.dia_id)
            # What they are: turns kept as said (the episode type), as a transcript's
            # import or the agents' path stores them.
            row = {"id": mid, "user_id": user_of(c), "text": memory_text(t), "type": "episode",
                   "created_at": said_at(t).isoformat(),
                   "source_session": f"{c.sample_id} session {t.session}"}
            lines.append(json.dumps(row, ensure_ascii=False).encode("utf-8"))
    return b"\n".join(lines) + b"\n", ids


def turn_key(c: Conversation, dia_id: str) -> str:
    """Turn ids are per conversation; keys are unique across the file."""
    return f"{c.sample_id}|{dia_id}"


class MemdeskSystems:
    """The product's Retriever over one store: default floor, floor off, and (over the
    same vectors) plain cosine and its shuffled control."""

    def __init__(self, store: Any, to_turns: Any, controls: bool, seed: int = 11) -> None:
        from memdesk.core.read.config import ReadConfig
        from memdesk.core.read.query_vectors import cache_for
        from memdesk.core.read.retriever import Retriever

        self.store = store
        self.to_turns = to_turns  # a Hit -> the turn keys it stands for
        self.server = Retriever(store, ReadConfig())
        self.server.embedder().encode(["warm up"])
        self.server.warm()
        self.quiet = Retriever(store, ReadConfig().with_(record=False),
                               embedder=self.server.embedder())
        self._cache = cache_for(self.server.embedder())
        self.controls = controls
        self.rng = random.Random(seed)
        self._vectors: dict[str, tuple[list[str], np.ndarray]] = {}

    def _clear(self) -> None:
        if self._cache is not None:
            self._cache.clear()

    def _hits(self, r: Any) -> list[str]:
        out: list[str] = []
        for h in r.results:
            out.extend(self.to_turns(h))
        return out

    def ask(self, query: str, user: str) -> dict[str, Answer]:
        out = {}
        self._clear()
        t0 = time.perf_counter()
        r = self.server.retrieve(query, user, k=10)
        out["default"] = Answer(self._hits(r), len(r.results), _ms(t0))
        self._clear()
        t0 = time.perf_counter()
        rf = self.quiet.retrieve(query, user, k=10, floor=False)
        out["floor off"] = Answer(self._hits(rf), len(rf.results), _ms(t0))
        if self.controls:
            t0 = time.perf_counter()
            ranked = self.cosine(query, user, 30)
            out["plain cosine"] = Answer(ranked[:10], 10, _ms(t0))
            pool = list(ranked)
            self.rng.shuffle(pool)
            out["shuffled"] = Answer(pool[:10], 10, 0.0)
        return out

    def cosine(self, query: str, user: str, k: int) -> list[str]:
        """Top ``k`` turn keys by cosine between the bare query and the stored vectors."""
        if user not in self._vectors:
            with self.store.read() as conn:
                rows = conn.exec_driver_sql(
                    "SELECT m.id, v.vector FROM memories m JOIN memory_vectors v "
                    "ON v.seq = m.seq WHERE m.user_id = ? AND m.deleted_at IS NULL",
                    (user,)).all()
            mat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4")
            self._vectors[user] = ([r[0] for r in rows], mat.reshape(len(rows), -1))
        ids, mat = self._vectors[user]
        q = self.server.embedder().encode([query])[0]
        order = np.argsort(-(mat @ q))[:k]
        out: list[str] = []
        for i in order:
            out.extend(self.to_turns(_IdOnly(ids[int(i)])))
        return out

    def flush(self) -> None:
        self.server.flush()


@dataclasses.dataclass
class _IdOnly:
    id: str
    same_as: tuple[Any, ...] = ()


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def build_imported(conversations: list[Conversation], folder: Path) -> tuple[Any, Any, dict]:
    """The imported store (import, embed, maintain, timed); store, hit → turns, timings."""
    from memdesk.core.read.maintain import maintain
    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.transfer.importer import Importer
    from memdesk.core.transfer.jsonl import JsonlSource
    from memdesk.core.write.embed import backfill

    data, ids = import_rows(conversations)
    store = MemoryStore.open(folder / "imported.db")
    t0 = time.perf_counter()
    rep = Importer(store, note="conversational benchmark").run(
        JsonlSource(io.BytesIO(data), label="conversations"))
    if rep.bad_count or rep.imported != len(ids):
        raise SystemExit(f"importing the turns failed: {rep.summary()}")
    t1 = time.perf_counter()
    emb = backfill(store)
    t2 = time.perf_counter()
    maintain(store)
    t3 = time.perf_counter()

    def to_turns(hit: Any) -> list[str]:
        return [ids[h.id] for h in (hit, *getattr(hit, "same_as", ())) if h.id in ids]

    timing = {"turns": len(ids), "import_s": t1 - t0, "embed_s": t2 - t1,
              "maintain_s": t3 - t2, "total_s": t3 - t0, "vectors": emb.embedded}
    return store, to_turns, timing


def turn_fields() -> set[str]:
    """The fields ``Turn`` (the store_memory façade's unit) takes today."""
    from memdesk.core.write.units import Turn as AgentTurn

    return {f.name for f in dataclasses.fields(AgentTurn)}


def build_agents(conversations: list[Conversation], folder: Path,
                 timeout_s: float = 1800.0) -> tuple[Any, Any, dict]:
    """The agents' path store; store, hit → turns, timings."""
    from memdesk.app.mcp.runtime import Runtime  # the server's own runtime and worker
    from memdesk.core.guard.origin import AgentOrigin
    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.write.extract import ExtractorConfig, make_extractor
    from memdesk.core.write.intake import enqueue_from_agent
    from memdesk.core.write.jobs import JobQueue
    from memdesk.core.write.units import Turn as AgentTurn

    store = MemoryStore.open(folder / "agents.db")
    rt = Runtime(store, make_extractor(ExtractorConfig(offline=True)), poll_s=0.05)
    rt.retriever.embedder().encode(["warm up"])  # the model is loaded before timing
    origin = AgentOrigin(client_name="bench_conversations", client_version="1",
                         session="conv", transport="stdio", source="user")
    # The seam for a turn's own time: passed as soon as the façade takes one.
    timed = next((f for f in ("said_at", "at", "created_at", "occurred_at")
                  if f in turn_fields()), None)
    jobs: dict[str, str] = {}  # job id -> turn key
    by_text: dict[tuple[str, str], str] = {}  # (user, text) -> turn key
    queue = JobQueue(store)
    rt.start()
    try:
        t0 = time.perf_counter()
        for c in conversations:
            for t in c.turns:
                extra = {timed: said_at(t)} if timed else {}
                if "speaker" in turn_fields():
                    extra["speaker"] = t.speaker
                turn = AgentTurn(memory_text(t), user_of(c),
                                 f"{c.sample_id} session {t.session}", **extra)
                jobs[enqueue_from_agent(store, turn, origin)] = turn_key(c, t.dia_id)
                by_text.setdefault((user_of(c), memory_text(t)), turn_key(c, t.dia_id))
                by_text.setdefault((user_of(c), t.text), turn_key(c, t.dia_id))
                rt.wake()
        queued = time.perf_counter() - t0
        deadline = time.perf_counter() + timeout_s
        while True:
            counts = queue.counts()
            if counts.get("pending", 0) + counts.get("running", 0) == 0:
                break
            if time.perf_counter() > deadline:
                raise SystemExit(f"agents' path: jobs not done after {timeout_s:.0f} s: {counts}")
            time.sleep(0.05)
        done = time.perf_counter() - t0
    finally:
        rt.stop()
    with store.read() as conn:
        prov = dict(conn.exec_driver_sql(
            "SELECT memory_id, job_id FROM memory_provenance").all())
    memories = store.count()

    def to_turns(hit: Any) -> list[str]:
        out: list[str] = []
        for h in (hit, *getattr(hit, "same_as", ())):
            out.extend(episode_turns(h, by_text))
            key = jobs.get(prov.get(h.id) or "")
            if key is not None:
                out.append(key)
            elif (h.user_id, h.text) in by_text:  # a unit kept word for word
                out.append(by_text[(h.user_id, h.text)])
        return out

    timing = {"turns": len(jobs), "queued_s": queued, "total_s": done,
              "memories": memories, "failed": counts.get("failed", 0),
              "turn_time_passed": bool(timed)}
    return store, to_turns, timing


def episode_turns(hit: Any, by_text: dict[tuple[str, str], str]) -> list[str]:
    """The turns a result's episode names, when results carry one.

    The seam for episodes on the write path: a result's ``episode`` (an object or a
    dict) with the turn's ``text`` (and time) maps back to the turn by its text; an
    episode with several turns (``turns``, each with a ``text``) maps to each.
    """
    ep = getattr(hit, "episode", None)
    if ep is None:
        return []
    parts = _get(ep, "turns") or [ep]
    out = []
    for p in parts:
        text = _get(p, "text")
        if isinstance(text, str):
            key = by_text.get((hit.user_id, text)) or by_text.get((hit.user_id, text.strip()))
            if key is not None:
                out.append(key)
    return out


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


class Mem0System:
    """Mem0 with faiss, one turn per ``add``; its ids mapped to turn keys."""

    name = "Mem0"

    def __init__(self, folder: Path) -> None:
        from peer_mem0 import mem0_memory

        self.memory = mem0_memory(folder / "mem0", "faiss")
        self.ids: dict[str, str] = {}

    def fill(self, conversations: list[Conversation]) -> dict[str, float]:
        from recall_systems import norm_id

        t0 = time.perf_counter()
        n = 0
        for c in conversations:
            for t in c.turns:
                res = self.memory.add(memory_text(t), user_id=user_of(c), infer=False)
                for item in res.get("results", []):
                    self.ids[norm_id(item["id"])] = turn_key(c, t.dia_id)
                n += 1
        return {"turns": n, "total_s": time.perf_counter() - t0}

    def ask(self, query: str, user: str) -> Answer:
        from recall_systems import norm_id

        t0 = time.perf_counter()
        found = self.memory.search(query, filters={"user_id": user}, top_k=10)["results"]
        ms = _ms(t0)
        turns = [self.ids[k] for x in found if (k := norm_id(x["id"])) in self.ids]
        return Answer(turns, len(found), ms)
