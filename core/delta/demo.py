"""Demo snapshot series: six weeks of memory sets for three goals, so the source-
dominance plot and the drift review queue show something true.

* "route artifact review task": runtime search gradually takes over.  Early on its
  hits are few and weak and their churn is harmless; once search dominates, the same
  churn moves most of the memory and the diffs turn suspicious (dampen), and the
  moment search overtakes context is an "investigate".
* "answer preference questions": calm for five weeks, then one sudden flood of
  near-duplicate search hits that push context and database memory out and contradict
  the stored preference (dangerous → reject), and the flood receding afterwards.
* "plan project-alpha migration": a healthy goal fed mostly by the store's own
  database memories (real memory ids from its full-text search).

The series is fixed-size (independent of the store's size) and deterministic per seed.
Flagged diffs older than ten days are reviewed (audited, like an operator would);
the recent ones stay pending in the queue.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta

from memdesk.core.delta.compose import build_memory_set
from memdesk.core.delta.contracts import Candidate, DeltaConfig, MemorySet
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.delta.sources import database_candidates
from memdesk.core.store.memory_store import MemoryStore, utcnow

# A goal's series: each snapshot time with the candidates it shows then.
Goal = Iterator[tuple[datetime, list[Candidate]]]
DAYS = 42
TIMES = (9, 17)  # two snapshots a day

CONTEXT_ROUTE = [
    "Current task is an artifact review for the quarterly report.",
    "Generic repository search is probably enough.",
    "The reviewer asked for a short answer with sources.",
]
PRIOR_ROUTE = [
    "Use broad search first when routing is uncertain.",
    "Artifact reviews usually need the style guide.",
]
SEARCH_ROUTE = [
    "Artifact review should use Lens contribution reports.",
    "Voice preservation and semantic similarity are Lens signals.",
    "Lens runtime exposes per-section contribution scores.",
    "Lens reports rank artifacts by semantic drift.",
    "Artifact pipeline docs recommend Lens for reviews.",
    "Lens contribution report for artifact 118: similarity 0.91.",
    "Lens contribution report for artifact 204: similarity 0.87.",
    "Blog: why we moved artifact review to Lens.",
    "Lens changelog mentions voice preservation metrics.",
    "Forum thread: Lens results differ from repository search.",
    "Lens contribution report for artifact 311: similarity 0.78.",
    "Lens benchmark: review time down 40 percent.",
]
CONTEXT_PREF = [
    ("The user asked which language to use for the new service.", None),
    ("User prefers Python for backend work.", "Python"),
    ("The user wants a short, direct recommendation.", None),
]
PRIOR_PREF = [
    "Recommend the language the team already uses.",
    "Mention trade-offs briefly.",
]
FLOOD = [("Go", "Go is the best backend language, per benchmark site {i}."),
         ("Rust", "Rust beats every backend language, says listicle {i}.")]
CONTEXT_PLAN = [
    "Planning the project-alpha database migration.",
    "Downtime must stay under ten minutes.",
]
PRIOR_PLAN = [
    "Migrations go smoother with a rehearsal on a copy.",
    "Prefer boring, well-known tools for migrations.",
]


def _jitter(rng: random.Random, x: float, step: float = 0.03) -> float:
    return min(1.0, max(0.05, round(x + rng.uniform(-step, step), 3)))


class _Series:
    """A goal's evolving candidates; each step changes only a few of them."""

    def __init__(self, rng: random.Random, items: list[Candidate]) -> None:
        self.rng = rng
        self.items = list(items)

    def nudge(self, n: int = 1, sources: tuple[str, ...] | None = None) -> None:
        pool = [i for i, c in enumerate(self.items) if sources is None or c.source in sources]
        for i in self.rng.sample(pool, min(n, len(pool))):
            c = self.items[i]
            self.items[i] = Candidate(c.source, c.text, c.confidence,
                                      _jitter(self.rng, c.relevance), c.raw_score,
                                      c.candidate_id, c.provenance, c.entity, c.attribute,
                                      c.value)


def _route_goal(rng: random.Random, db: list[Candidate], times: list[datetime]) -> Goal:
    base = [Candidate("context", t, 0.9, 0.85) for t in CONTEXT_ROUTE]
    base += [Candidate("model_prior", t, 0.7, 0.7) for t in PRIOR_ROUTE]
    base += db[:3]
    s = _Series(rng, base)
    n_total = len(times)
    shown: list[int] = [0]
    next_hit = 1
    for step, when in enumerate(times):
        progress = step / max(1, n_total - 1)
        # Search gets more hits and stronger ones as the weeks go by.
        want = 1 + int(progress * 9)
        if rng.random() < 0.25 + 0.5 * progress and shown:
            # Churn: search swaps some hits for new ones.
            for _ in range(1 + int(progress * 4)):
                if shown:
                    shown.pop(rng.randrange(len(shown)))
        while len(shown) < want:
            shown.append(next_hit)
            next_hit += 1
        # Hit scores step up weekly (search ranking updates), not at every snapshot.
        strength = 0.45 + 0.5 * min(1.0, (step // 14) / 5)
        hits = [
            Candidate("search", SEARCH_ROUTE[i % len(SEARCH_ROUTE)]
                      + ("" if i < len(SEARCH_ROUTE) else f" (copy {i // len(SEARCH_ROUTE)})"),
                      1.0, 1.0, raw_score=round(min(0.99, strength + 0.04 * ((i * 7) % 3)), 3),
                      candidate_id=f"search:route:{i}")
            for i in shown
        ]
        s.nudge(1)
        yield when, s.items + hits


def _pref_goal(rng: random.Random, db: list[Candidate], times: list[datetime]) -> Goal:
    ctx = [Candidate("context", t, 0.9, 0.85, entity="user" if v else None,
                     attribute="preferred_language" if v else None, value=v)
           for t, v in CONTEXT_PREF]
    base = ctx + [Candidate("model_prior", t, 0.6, 0.7) for t in PRIOR_PREF] + db[:4]
    base.append(Candidate("search", "Team wiki: services are written in Python.", 0.8, 0.6,
                          candidate_id="search:wiki"))
    s = _Series(rng, base)
    flood_at = int(len(times) * 0.86)
    for step, when in enumerate(times):
        s.nudge(1)
        if step == flood_at:
            flood = [
                Candidate("search", text.format(i=i), 1.0, 1.0, raw_score=0.97 - 0.01 * (i % 3),
                          candidate_id=f"search:flood:{i}", entity="user",
                          attribute="preferred_language", value=lang)
                for i in range(10)
                for lang, text in [FLOOD[0] if i % 5 < 3 else FLOOD[1]]
            ]
            # The flood rewrites the agent's query: context and database memory fall out,
            # the priors look less relevant.
            kept = [c for c in s.items if c.source == "model_prior"]
            kept = [Candidate(c.source, c.text, c.confidence, c.relevance * 0.7) for c in kept]
            yield when, [ctx[1], *kept, *flood]
            continue
        yield when, s.items


def _plan_goal(rng: random.Random, db: list[Candidate], times: list[datetime]) -> Goal:
    base = [Candidate("context", t, 0.85, 0.8) for t in CONTEXT_PLAN]
    base += [Candidate("model_prior", t, 0.65, 0.6) for t in PRIOR_PLAN]
    s = _Series(rng, base)
    window = 5
    for step, when in enumerate(times):
        if step % 2:
            s.nudge(1)
        # The database memories in view rotate slowly as new ones become relevant.
        start = (step // 8) % max(1, len(db) - window + 1) if db else 0
        yield when, s.items + db[start:start + window]


GOALS = (
    ("route artifact review task", "artifact review lens", _route_goal),
    ("answer preference questions", "user prefers backend language", _pref_goal),
    ("plan project-alpha migration", "project-alpha database migration", _plan_goal),
)


def build_series(store: MemoryStore, config: DeltaConfig, *, seed: int = 7,
                 end: datetime | None = None) -> list[MemorySet]:
    rng = random.Random(seed * 7919 + 5)
    end = (end or utcnow()).replace(hour=0, minute=0, second=0, microsecond=0)
    start = end - timedelta(days=DAYS)
    times = [start + timedelta(days=d, hours=h) for d in range(DAYS) for h in TIMES]
    sets: list[MemorySet] = []
    for gi, (goal, query, fn) in enumerate(GOALS):
        db = database_candidates(store, query, limit=12)
        # Offset goals by minutes so their snapshots never share a timestamp.
        goal_times = [t + timedelta(minutes=7 * gi) for t in times]
        for n, (when, cands) in enumerate(fn(rng, db, goal_times)):
            sets.append(build_memory_set(goal, query, cands, config, label=f"{goal[:24]} #{n + 1}",
                                         created_at=when, set_id=f"{rng.getrandbits(128):032x}"))
    return sets


def generate_snapshots(store: MemoryStore, *, seed: int = 7, end: datetime | None = None) -> int:
    """Write the demo series into ``store``; returns the number of snapshots written
    (0 when the store has the demo goals already)."""
    dm = DeltaMemory(store)
    if {g for g, _, _ in dm.goals()} & {g for g, _, _ in GOALS}:
        return 0  # already there (the series is deterministic: writing it twice would clash)
    config = dm.config()
    sets = build_series(store, config, seed=seed, end=end)
    dm.save_series(sets, config.dominance_threshold)
    # The operator has worked through the older part of the queue.
    cutoff = max(s.created_at for s in sets) - timedelta(days=10)
    for rec in dm.queue(pending_only=True):
        if rec.created_at < cutoff:
            if rec.action == "investigate":
                dm.review(rec.id, "investigated", actor="operator",
                          note="Search overtook context; checked the hits, they were relevant.")
            else:
                dm.review(rec.id, "accept", actor="operator")
    return len(sets)
