"""The dispositional-memory design's evaluation: fixtures in seven categories, with an ablation.

Each fixture is written into a fresh store (a copy of one migrated template, with real
vectors), ``maintain`` runs when the fixture holds a correction (the step the seed's
first harness forgot), and one retrieval is made.  What reached the agent — results
plus injected preferences — is compared with the fixture's ``expect``: expected keys
found are true positives, expected keys missing false negatives, and any other
fixture memory that reached the agent a false positive.  Every fixture runs
``trials`` times; the ablation repeats everything with injection off (the seed's
``CRIB_PREF_LIMIT=0``).  Precision, recall and F1 are micro-averaged per category and
overall; a category with nothing expected and nothing returned scores 1.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from memdesk.core.errors import ValidationError
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.maintain import maintain
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore

CATEGORIES = (
    ("semantic_match", "A", "semantic match"),
    ("conceptual_bridge", "B", "conceptual bridge"),
    ("pure_dispositional", "C", "pure dispositional"),
    ("negatives", "D", "negatives"),
    ("correction_chains", "E", "correction chains"),
    ("multiple_preferences", "F", "multiple preferences"),
    ("discriminators", "G", "discriminators"),
)
CLOCK = datetime(2026, 11, 4, 12, 0)  # fixtures' days_ago count back from here
USER = "eval-user"
FIELDS = ("type", "text", "layer", "entity", "attribute", "value", "importance", "confidence",
          "topic")


@dataclass(frozen=True)
class Fixture:
    id: str
    category: str
    query: str
    memories: tuple[dict[str, Any], ...]
    expect: frozenset[str]

    @property
    def has_correction(self) -> bool:
        return any(m.get("type") == "correction" for m in self.memories)


def load_fixtures(folder: Path) -> list[Fixture]:
    """Every fixture in ``folder``'s JSON files, in category order."""
    folder = Path(folder)
    files = sorted(folder.glob("*.json"))
    if not files:
        raise ValidationError("fixtures", f"no fixture files (*.json) in {folder}")
    known = {c for c, _, _ in CATEGORIES}
    out: list[Fixture] = []
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            for fx in data["fixtures"]:
                keys = [m["key"] for m in fx["memories"]]
                missing = set(fx["expect"]) - set(keys)
                if missing or len(set(keys)) != len(keys):
                    raise ValueError(f"{fx['id']}: expect names unknown or duplicate keys")
                out.append(Fixture(fx["id"], data["category"], fx["query"],
                                   tuple(fx["memories"]), frozenset(fx["expect"])))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValidationError("fixtures", f"{path.name} is not a valid fixture file "
                                              f"({exc})") from None
        if data["category"] not in known:
            raise ValidationError("fixtures", f"{path.name}: unknown category "
                                              f"{data['category']!r}")
    order = {c: i for i, (c, _, _) in enumerate(CATEGORIES)}
    return sorted(out, key=lambda f: (order[f.category], f.id))


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, other: Counts) -> None:
        self.tp, self.fp, self.fn = self.tp + other.tp, self.fp + other.fp, self.fn + other.fn

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class CaseResult:
    fixture: Fixture
    trials: list[tuple[Counts, frozenset[str]]] = field(default_factory=list)

    @property
    def unanimous(self) -> bool:
        return len({seen for _, seen in self.trials}) <= 1

    @property
    def passed(self) -> bool:
        return all(c.fp == 0 and c.fn == 0 for c, _ in self.trials)


@dataclass
class EvalRun:
    inject: bool
    cases: list[CaseResult]

    def counts(self, category: str | None = None) -> Counts:
        total = Counts()
        for case in self.cases:
            if category is None or case.fixture.category == category:
                for c, _ in case.trials:
                    total.add(c)
        return total


class _Stores:
    """Fresh stores from one migrated template (migrating 126 stores would dominate)."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="memdesk-eval-"))
        self.template = self.dir / "template.db"
        s = MemoryStore.open(self.template)
        s.checkpoint()
        s.close()
        self.n = 0

    def fresh(self) -> MemoryStore:
        self.n += 1
        path = self.dir / f"case-{self.n}.db"
        shutil.copyfile(self.template, path)
        return MemoryStore.open(path, create=False)

    def cleanup(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def _vectors(fixtures: list[Fixture]) -> dict[str, bytes] | None:
    from memdesk.core.embeddings import EmbeddingsUnavailable, default_embedder, to_blob

    texts = sorted({m["text"] for f in fixtures for m in f.memories})
    try:
        vecs = default_embedder().encode(texts)
    except EmbeddingsUnavailable:
        return None
    return {t: to_blob(v) for t, v in zip(texts, vecs, strict=True)}


def run_case(store: MemoryStore, fx: Fixture, vectors: dict[str, bytes] | None,
             cfg: ReadConfig, k: int) -> tuple[Counts, frozenset[str]]:
    rows = []
    for m in fx.memories:
        row: dict[str, Any] = {f: m.get(f) for f in FIELDS}
        row["importance"] = m.get("importance", 0.5)
        row["confidence"] = m.get("confidence", 0.8)
        row.update(user_id=USER, created_at=CLOCK - timedelta(days=m.get("days_ago", 0)),
                   embedding=vectors.get(m["text"]) if vectors else None)
        rows.append(row)
    ids = store.add_many(rows)
    key_of = {i: m["key"] for i, m in zip(ids, fx.memories, strict=True)}
    if fx.has_correction:
        maintain(store, cfg, now=CLOCK)
    r = Retriever(store, cfg, clock=lambda: CLOCK)
    res = r.retrieve(fx.query, USER, k=k)
    r.flush()
    seen = frozenset(key_of[x] for x in [h.id for h in res.results] +
                     [p.id for p in res.preferences] if x in key_of)
    return Counts(len(seen & fx.expect), len(seen - fx.expect), len(fx.expect - seen)), seen


def run(fixtures: list[Fixture], *, inject: bool = True, trials: int = 3, k: int = 10,
        config: ReadConfig | None = None,
        progress: Callable[[int, int], None] | None = None) -> EvalRun:
    cfg = config or ReadConfig()
    if not inject:
        cfg = cfg.with_(preference_limit=0)  # the seed's ablation: CRIB_PREF_LIMIT=0
    vectors = _vectors(fixtures)
    stores = _Stores()
    cases: list[CaseResult] = []
    try:
        total, done = len(fixtures) * trials, 0
        for fx in fixtures:
            case = CaseResult(fx)
            for _ in range(trials):
                store = stores.fresh()
                try:
                    case.trials.append(run_case(store, fx, vectors, cfg, k))
                finally:
                    store.close()
                done += 1
                if progress:
                    progress(done, total)
            cases.append(case)
    finally:
        stores.cleanup()
    return EvalRun(inject, cases)


def report_lines(full: EvalRun, ablation: EvalRun | None) -> list[str]:
    """The printed table: per category and overall, with the ablation beside it."""
    head = f"{'category':<24}{'cases':>6}{'P':>8}{'R':>8}{'F1':>8}"
    if ablation is not None:
        head += f"{'F1 no-inj':>11}{'drop':>8}"
    lines = [head, "-" * len(head)]
    for cat, letter, name in CATEGORIES:
        cases = [c for c in full.cases if c.fixture.category == cat]
        if not cases:
            continue
        c = full.counts(cat)
        line = (f"{letter}. {name:<21}{len(cases):>6}{c.precision:>8.3f}{c.recall:>8.3f}"
                f"{c.f1:>8.3f}")
        if ablation is not None:
            a = ablation.counts(cat)
            line += f"{a.f1:>11.3f}{c.f1 - a.f1:>8.3f}"
        lines.append(line)
    c = full.counts()
    line = f"{'overall':<24}{len(full.cases):>6}{c.precision:>8.3f}{c.recall:>8.3f}{c.f1:>8.3f}"
    if ablation is not None:
        a = ablation.counts()
        line += f"{a.f1:>11.3f}{c.f1 - a.f1:>8.3f}"
    lines += ["-" * len(head), line]
    for run_ in (full, ablation):
        if run_ is None:
            continue
        label = "with injection" if run_.inject else "injection off"
        failed = [c for c in run_.cases if not c.passed]
        split = [c.fixture.id for c in run_.cases if not c.unanimous]
        lines.append(f"{label}: {len(run_.cases) - len(failed)}/{len(run_.cases)} fixtures "
                     f"pass in every trial" + (f"; trials disagree on {', '.join(split)}"
                                               if split else "; all trials unanimous"))
        for case in failed:
            _counts, seen = case.trials[0]
            lines.append(f"  {case.fixture.id} failed: saw {sorted(seen)}, expected "
                         f"{sorted(case.fixture.expect)}")
    return lines


def to_json(full: EvalRun, ablation: EvalRun | None) -> dict[str, Any]:
    def block(r: EvalRun) -> dict[str, Any]:
        cats = {}
        for cat, _, _ in CATEGORIES:
            c = r.counts(cat)
            cats[cat] = {"precision": c.precision, "recall": c.recall, "f1": c.f1,
                         "tp": c.tp, "fp": c.fp, "fn": c.fn}
        c = r.counts()
        return {"categories": cats, "overall": {"precision": c.precision, "recall": c.recall,
                                                "f1": c.f1, "tp": c.tp, "fp": c.fp,
                                                "fn": c.fn},
                "cases": {x.fixture.id: {"passed": x.passed, "unanimous": x.unanimous,
                                         "seen": sorted(x.trials[0][1]) if x.trials else []}
                          for x in r.cases}}
    out = {"with_injection": block(full)}
    if ablation is not None:
        out["injection_off"] = block(ablation)
    return out
