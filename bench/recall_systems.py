"""The systems bench/bench_recall.py compares, each answering one query at a time.

- ``memdesk``: the Retriever exactly as ``memdesk mcp`` holds it (app/mcp/server.py's
  Runtime: default ReadConfig, recording on, the model loaded and ``warm()`` run on
  start), all channels, preference injection on; injected preferences are reported
  apart from the ranked results.
- ``memdesk fts`` / ``vector`` / ``graph``: one channel alone (``channels=(c,)``, which
  turns injection off), on a second Retriever with recording off so these extra calls
  neither reinforce memories nor move the rotation cursor the server's calls see.
- ``memdesk floor off``: all channels with ``floor=False`` (the top ten whatever their
  relevance, the floor's rejects after what passed it, as plain vector search returns),
  on the quiet Retriever: what an agent that asks for ten every time gets.
- ``memdesk shuffled``: every candidate the all-channel call considered (each channel's
  ranking, the results, what the floor and the diversity rule dropped) in a seeded
  random order, first ten kept.  The benchmark's sanity check: it must score clearly
  worse, or the benchmark cannot tell a ranking from chance.
- ``Mem0 faiss`` / ``Mem0 qdrant``: ``search(q, filters={"user_id": u}, top_k=10)``.

The query-vector cache is emptied before every memdesk call, so each one encodes its
query as every Mem0 search does (a server's cache would only help repeated queries).
"""

from __future__ import annotations

import random
import time
import uuid
from typing import Any

from recall_metrics import Outcome

MEMDESK_CHANNELS = ("fts", "vector", "graph")


def norm_id(value: Any) -> str:
    """Mem0's ids as text; Qdrant hands back UUIDs in their hyphenated form."""
    s = str(value)
    try:
        return uuid.UUID(s).hex
    except ValueError:
        return s


class Memdesk:
    """The memdesk systems; one all-channel call feeds the shuffled control."""

    def __init__(self, store: Any, seed: int = 11) -> None:
        from memdesk.core.read.config import ReadConfig
        from memdesk.core.read.query_vectors import cache_for
        from memdesk.core.read.retriever import Retriever

        self.server = Retriever(store, ReadConfig())
        t0 = time.perf_counter()
        # What Runtime._warm_up does on `memdesk mcp` start: load the model, build the
        # snapshots of the recently active users.
        self.server.embedder().encode(["warm up"])
        self.warmed = self.server.warm()
        self.warm_s = time.perf_counter() - t0
        self.quiet = Retriever(store, ReadConfig().with_(record=False),
                               embedder=self.server.embedder())
        self._cache = cache_for(self.server.embedder())
        self.rng = random.Random(seed)

    def names(self) -> list[str]:
        return ["memdesk", *(f"memdesk {c}" for c in MEMDESK_CHANNELS), "memdesk floor off",
                "memdesk shuffled"]

    def _clear(self) -> None:
        if self._cache is not None:
            self._cache.clear()

    def run(self, query: str, user: str) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        self._clear()
        t0 = time.perf_counter()
        r = self.server.retrieve(query, user, k=10)
        ms = (time.perf_counter() - t0) * 1000
        out["memdesk"] = Outcome([h.id for h in r.results], [p.id for p in r.preferences], ms)
        # Everything the call considered: results, what the floor and the diversity
        # rule dropped, each channel's own ranking.
        pool = [h.id for h in r.results] + [d.hit.id for d in getattr(r, "dropped", [])]
        pool += [h.id for hits in getattr(r, "per_channel", {}).values() for h in hits]
        pool = list(dict.fromkeys(pool))
        self.rng.shuffle(pool)
        out["memdesk shuffled"] = Outcome(pool[:10], [], ms)
        for c in MEMDESK_CHANNELS:
            self._clear()
            t0 = time.perf_counter()
            rc = self.quiet.retrieve(query, user, k=10, channels=(c,))
            out[f"memdesk {c}"] = Outcome([h.id for h in rc.results], [],
                                          (time.perf_counter() - t0) * 1000)
        self._clear()
        t0 = time.perf_counter()
        rf = self.quiet.retrieve(query, user, k=10, floor=False)
        out["memdesk floor off"] = Outcome([h.id for h in rf.results],
                                           [p.id for p in rf.preferences],
                                           (time.perf_counter() - t0) * 1000)
        return out

    def flush(self) -> None:
        self.server.flush()


class Mem0:
    """One Mem0 ``Memory``; ``ids`` maps Mem0's ids of added memories to the set's."""

    def __init__(self, name: str, memory: Any) -> None:
        self.name = name
        self.memory = memory
        self.ids: dict[str, str] = {}

    def add(self, text: str, user: str, label: str) -> None:
        res = self.memory.add(text, user_id=user, infer=False)
        for item in res.get("results", []):
            self.ids[norm_id(item["id"])] = label

    def run(self, query: str, user: str) -> Outcome:
        t0 = time.perf_counter()
        found = self.memory.search(query, filters={"user_id": user}, top_k=10)
        ms = (time.perf_counter() - t0) * 1000
        ranked = []
        for x in found["results"]:
            key = norm_id(x["id"])
            ranked.append(self.ids.get(key, key))
        return Outcome(ranked, [], ms)
