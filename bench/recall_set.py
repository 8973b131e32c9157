"""The labelled recall set (bench/data/recall_set.json): loading, integrity, planting.

Each query carries its own memories inline: ``answers`` (what a good system returns),
``stale`` (superseded category: the old value a correction replaced) and
``distractors`` (same topic, not an answer).  Every memory has a fixed id, so a
system's ranking is scored by id and the right answers are known by construction.

:func:`problems` is the set's integrity check, run by the benchmark before anything
else and by tests/read/test_bench_recall.py, so a broken set fails CI: at least
``MIN_PER_CATEGORY`` queries in every category, unique ids, answers where the category
needs them, and no content word shared between a paraphrase query and its answers
under the retriever's own keyword rules (``memdesk.core.read.terms``: its stop words,
its stemming and its prefix matching), so the paraphrase category cannot drift into
keyword matching when either side is edited.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from memdesk.core.read import terms as qt

SET_PATH = Path(__file__).parent / "data" / "recall_set.json"
CATEGORIES = ("keyword", "paraphrase", "superseded", "preference", "no_answer", "multi")
MIN_PER_CATEGORY = 30
TYPES = ("fact", "preference", "correction", "note", "decision", "procedure")


@dataclass(frozen=True)
class Memory:
    id: str
    user: str
    text: str
    type: str = "fact"
    days: float | None = None
    triple: tuple[str, str, str] | None = None
    role: str = "answer"  # answer | stale | distractor

    def created_at(self, end: datetime) -> datetime:
        """``days`` before ``end``; unset days spread over 2–170 by the id's hash."""
        days = self.days
        if days is None:
            days = 2 + int(hashlib.sha1(self.id.encode()).hexdigest(), 16) % 169
        return end - timedelta(days=days, hours=3)


@dataclass(frozen=True)
class Query:
    id: str
    cat: str
    user: str
    text: str
    answers: tuple[str, ...]
    stale: tuple[str, ...] = ()
    distractors: tuple[str, ...] = ()


@dataclass
class RecallSet:
    queries: list[Query]
    memories: dict[str, Memory] = field(default_factory=dict)

    def by_category(self) -> dict[str, list[Query]]:
        out: dict[str, list[Query]] = {c: [] for c in CATEGORIES}
        for q in self.queries:
            out.setdefault(q.cat, []).append(q)
        return out

    def users(self) -> list[str]:
        return sorted({q.user for q in self.queries})


def load(path: Path = SET_PATH) -> tuple[RecallSet, list[str]]:
    """The set, and what is wrong with its shape (unreadable fields, repeated ids)."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    bad: list[str] = []
    rs = RecallSet([])
    for item in raw.get("queries", []):
        qid = str(item.get("id", "?"))
        ids: dict[str, list[str]] = {}
        for role, key in (("answer", "answers"), ("stale", "stale"),
                          ("distractor", "distractors")):
            ids[key] = []
            for m in item.get(key, []):
                mem = Memory(
                    id=str(m["id"]), user=str(item["user"]), text=str(m["text"]),
                    type=str(m.get("type", "fact")), days=m.get("days"),
                    triple=tuple(m["triple"]) if m.get("triple") else None, role=role)
                if mem.id in rs.memories:
                    bad.append(f"{qid}: memory id {mem.id} is used twice")
                rs.memories[mem.id] = mem
                ids[key].append(mem.id)
        rs.queries.append(Query(qid, str(item.get("cat")), str(item.get("user")),
                                str(item.get("query", "")), tuple(ids["answers"]),
                                tuple(ids["stale"]), tuple(ids["distractors"])))
    return rs, bad


def shared_words(query: str, answer: str) -> list[str]:
    """Content words a keyword search could match between the two texts.

    Both sides are reduced to the retriever's keyword stems (stop words dropped); a
    pair counts as shared when one stem is a prefix of the other, which is how the
    keyword channel matches a stem against indexed words ("imports" → "import*").
    """
    qs, ans = qt.keywords(query), qt.keywords(answer)
    return sorted({f"{q}~{a}" for q in qs for a in ans if a.startswith(q) or q.startswith(a)})


def problems(rs: RecallSet, load_problems: list[str] | None = None) -> list[str]:
    """Everything that makes the set unfit to tell systems apart (empty when sound)."""
    out = list(load_problems or [])
    seen: set[str] = set()
    for q in rs.queries:
        if q.id in seen:
            out.append(f"query id {q.id} is used twice")
        seen.add(q.id)
        if q.cat not in CATEGORIES:
            out.append(f"{q.id}: unknown category {q.cat!r}")
        if not q.text.strip():
            out.append(f"{q.id}: empty query")
        for mid in (*q.answers, *q.stale, *q.distractors):
            m = rs.memories.get(mid)
            if m is None:
                out.append(f"{q.id}: memory {mid} does not exist")
            elif m.type not in TYPES:
                out.append(f"{q.id}: memory {mid} has unknown type {m.type!r}")
        if q.cat == "no_answer":
            if q.answers:
                out.append(f"{q.id}: a no-answer query lists answers")
        elif not q.answers:
            out.append(f"{q.id}: no answers")
        if q.cat == "multi" and len(q.answers) < 2:
            out.append(f"{q.id}: a multi-fact query needs at least two answers")
        if q.cat == "superseded":
            if not q.stale:
                out.append(f"{q.id}: a superseded query needs the stale memory")
            for mid in (*q.answers, *q.stale):
                m = rs.memories.get(mid)
                if m is not None and (m.triple is None or m.days is None):
                    out.append(f"{q.id}: {mid} needs a triple and days (maintain links "
                               "corrections by triple)")
            olds = [rs.memories[s] for s in q.stale if s in rs.memories]
            news = [rs.memories[a] for a in q.answers if a in rs.memories]
            if any(n.type != "correction" for n in news):
                out.append(f"{q.id}: the current value must be a correction")
            if olds and news and any((o.days or 0) <= (n.days or 0) for o in olds for n in news):
                out.append(f"{q.id}: the correction must be newer than what it corrects")
        if q.cat == "preference":
            for mid in q.answers:
                m = rs.memories.get(mid)
                if m is not None and m.type != "preference":
                    out.append(f"{q.id}: answer {mid} must be a preference")
        if q.cat == "paraphrase":
            for mid in q.answers:
                m = rs.memories.get(mid)
                if m is not None and (words := shared_words(q.text, m.text)):
                    out.append(f"{q.id}: query and answer {mid} share {', '.join(words)}")
    counts = {c: 0 for c in CATEGORIES}
    for q in rs.queries:
        counts[q.cat] = counts.get(q.cat, 0) + 1
    for c in CATEGORIES:
        if counts[c] < MIN_PER_CATEGORY:
            out.append(f"category {c}: {counts[c]} queries, fewer than {MIN_PER_CATEGORY}")
    return out


def store_rows(rs: RecallSet, end: datetime) -> list[dict[str, Any]]:
    """The labelled memories as memdesk JSON Lines objects (ids kept), oldest first."""
    rows = []
    for m in rs.memories.values():
        when = m.created_at(end)
        row: dict[str, Any] = {
            "id": m.id, "user_id": m.user, "text": m.text, "type": m.type,
            "importance": 0.6, "confidence": 0.9, "created_at": when.isoformat(),
            "source_session": f"recallbench-{m.user}-{when:%Y%m%d}",
        }
        if m.triple is not None:
            row["entity"], row["attribute"], row["value"] = m.triple
        rows.append(row)
    rows.sort(key=lambda r: (r["created_at"], r["id"]))
    return rows


def jsonl(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False).encode("utf-8") + b"\n" for r in rows)
