"""Benchmark: what the desk learns from its operator's sweep decisions, on demo stores
with planted ground truth (core/demo/truth.py) and a simulated operator who decides by
the true importance.

Run: ``nice -n 10 .venv/bin/python bench/bench_learning.py [--size 20000] [--runs 100]
[--scale 1000000]``.  Prints, with PASS/FAIL against each target:

* rescue: mislabelled memories found per 100 reviewed by a guided sweep vs a uniform
  one, after 200 decisions (target ≥ 2×), and the same for a guided sampler whose scores
  are shuffled among the memories (a weaker system: it must not reach 2×);
* coverage: how often the band estimate's 95 % interval covers the planted share over
  ``--runs`` simulated sweeping runs (2 uniform sweeps, then 3 sweeps mixing guided
  picks at 0.5), target ≥ 90 %; and for the uniform-only Wilson interval;
* calibration: mean absolute error of the write-time importance and of the suggestion
  against the simulated operator on 2,000 unreviewed band memories after 500
  decisions (target: ≥ 30 % lower); a calibration fitted to shuffled decisions as the
  weaker system;
* calibration at write time: with auto-apply on for the source, what the job worker's
  hook (``calibrate_at_write``) adds to each job's write transaction (wall and CPU),
  against the job's own time without it, and how many memories it changed;
* training on 5,000 decisions (target < 5 s) and scoring the band of a ``--scale``
  store (target < 30 s at 1,000,000), with random unit vectors on the training store
  so the model carries the 384 vector features too.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, million_store, pct

from memdesk.core import demo
from memdesk.core.curation import calibration as K
from memdesk.core.curation import guided as G
from memdesk.core.curation.calibration import calibrate_at_write
from memdesk.core.curation.decisions import Decision, load_decisions
from memdesk.core.curation.service import Calibrations, Sweeps
from memdesk.core.demo import truth as demo_truth
from memdesk.core.embeddings import DIM
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.vectors import write_vectors_in
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Extraction, Turn, Unit
from memdesk.core.write.worker import Worker, WorkerConfig

BAND = demo_truth.BAND


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ")[0]


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def review(sweeps: Sweeps, truth: demo_truth.Truth, sweep_id: str) -> None:
    for it in sweeps.get(sweep_id).items:
        d, imp = demo_truth.operator_decision(truth, it.memory_id, it.importance_before)
        sweeps.decide(sweep_id, it.pos, d, importance=imp)


def sweep(sweeps: Sweeps, truth: demo_truth.Truth, n: int, guided: float, seed: int) -> str:
    st = sweeps.start(BAND, n, guided=guided, seed=seed)
    review(sweeps, truth, st.id)
    return st.id


def build(path: Path, size: int, seed: int = 3) -> demo_truth.Truth:
    s = MemoryStore.open(path)
    demo.generate(s, size, seed=seed)
    truth = demo_truth.plant(s, seed=seed + 2)
    s.checkpoint()
    s.close()
    return truth


def copy(template: Path, dest: Path) -> MemoryStore:
    for suffix in ("-wal", "-shm"):
        Path(str(dest) + suffix).unlink(missing_ok=True)
    shutil.copy(template, dest)
    return MemoryStore.open(dest)


def rescue(template: Path, truth: demo_truth.Truth, work: Path, runs: int) -> None:
    """After 200 uniform decisions: a further 100 reviewed, uniform vs guided."""
    uni, gui, shuf, mixed = [], [], [], []
    for r in range(runs):
        s = copy(template, work / "rescue.db")
        sweeps = Sweeps(s)
        for k in range(5):
            sweep(sweeps, truth, 40, 0.0, seed=1000 * r + k)
        sweeps.train()
        with s.read() as conn:
            model = G.latest(conn)
            ids, scores = G.score_band(conn, model, BAND)
        reviewed = {d.memory_id for d in load_decisions_of(s)}
        st_u = sweeps.start(BAND, 100, seed=1000 * r + 50)
        st_g = sweeps.start(BAND, 100, guided=1.0, seed=1000 * r + 51)
        st_m = sweeps.start(BAND, 100, guided=0.5, seed=1000 * r + 52)
        uni.append(sum(it.memory_id in truth.mislabelled for it in st_u.items))
        gui.append(sum(it.memory_id in truth.mislabelled for it in st_g.items))
        mixed.append(sum(it.memory_id in truth.mislabelled for it in st_m.items))
        # The weaker system: the same top-100 sampler over scores shuffled among memories.
        perm = np.random.default_rng(r).permutation(scores)
        order = [ids[j] for j in np.argsort(-perm) if ids[j] not in reviewed][:100]
        shuf.append(sum(m in truth.mislabelled for m in order))
        s.close()
    u, g, m, sh = (float(np.mean(x)) for x in (uni, gui, mixed, shuf))
    print(f"rescue per 100 reviewed after 200 decisions ({runs} runs, band "
          f"{len(truth.true):,}, planted share {truth.share_raised:.1%}):")
    print(f"  uniform {u:.1f} · guided {g:.1f} ({g / u:.2f}×) · mixed 0.5 {m:.1f} "
          f"({m / u:.2f}×) · shuffled-score sampler {sh:.1f} ({sh / u:.2f}×)")
    print(f"  target guided ≥ 2× uniform: {verdict(g >= 2 * u)}; weaker system below 2×: "
          f"{verdict(sh < 2 * u)}")


def load_decisions_of(s: MemoryStore) -> list[Decision]:
    with s.read() as conn:
        return load_decisions(conn)


def coverage(template: Path, truth: demo_truth.Truth, work: Path, runs: int) -> None:
    """Does the 95 % interval cover the planted share?  Mixed and uniform-only runs."""
    share = truth.share_raised
    hit_mixed = hit_uni = 0
    widths = []
    t0 = time.perf_counter()
    for r in range(runs):
        s = copy(template, work / "cov.db")
        sweeps = Sweeps(s)
        sweep(sweeps, truth, 30, 0.0, seed=7000 + 10 * r)
        sweep(sweeps, truth, 30, 0.0, seed=7001 + 10 * r)
        uni = sweeps.estimate(BAND).raised
        hit_uni += uni.lo <= share <= uni.hi
        sweeps.train()
        for k in range(3):
            sweep(sweeps, truth, 40, 0.5, seed=7002 + 10 * r + k)
        est = sweeps.estimate(BAND)
        assert est.method == "weighted" and est.guided > 0
        hit_mixed += est.raised.lo <= share <= est.raised.hi
        widths.append(est.raised.hi - est.raised.lo)
        s.close()
    print(f"coverage of the planted share {share:.1%} over {runs} runs "
          f"({time.perf_counter() - t0:.0f} s):")
    print(f"  mixed (60 uniform, then 3×40 at guided 0.5: 120 uniform draws in the "
          f"estimate): {hit_mixed / runs:.0%}, mean width {np.mean(widths):.1%} "
          f"— target ≥ 90 %: {verdict(hit_mixed / runs >= 0.9)}")
    print(f"  uniform only (60 draws, Wilson): {hit_uni / runs:.0%}")


def calibration(template: Path, truth: demo_truth.Truth, work: Path) -> None:
    s = copy(template, work / "cal.db")
    sweeps = Sweeps(s)
    for k in range(5):
        sweep(sweeps, truth, 40, 0.0, seed=300 + k)
    sweeps.train()
    for k in range(6):
        sweep(sweeps, truth, 50, 0.5, seed=400 + k)
    cal = Calibrations(s).train()
    reviewed = {d.memory_id for d in load_decisions_of(s)}
    rng = random.Random(9)
    held = rng.sample(sorted(m for m in truth.true if m not in reviewed), 2000)

    def errors(c: K.Calibrator) -> tuple[float, float]:
        sugs = {x.memory_id: x for x in K.suggest_with(s, c, held)}
        b = a = 0.0
        for m in held:
            x = sugs[m]
            d, imp = demo_truth.operator_decision(truth, m, x.write_time)
            decided = imp if d == "revalue" else x.write_time
            b += abs(x.write_time - decided)
            a += abs((x.suggested if x.suggested is not None else x.write_time) - decided)
        return b / len(held), a / len(held)

    before, after = errors(cal)
    drop = 1 - after / before
    # The weaker system: the same calibration fitted to decisions shuffled among memories.
    with s.read() as conn:
        ds = load_decisions(conn)
        outcomes = [(d.before, d.after) for d in ds]
        random.Random(1).shuffle(outcomes)
        fake = [Decision(d.sweep_id, d.pos, d.memory_id, d.band, d.whole_band, d.population,
                         d.sweep_n, d.guided, d.inclusion_p, d.before, d.before
                         + (o[1] - o[0])) for d, o in zip(ds, outcomes, strict=True)]
        fake = [d for d in fake if 0 <= d.after <= 1]
        weak = K.fit_calibration(conn, fake)
    wb, wa = errors(weak)
    print(f"calibration after {cal.decisions} decisions, on 2,000 unreviewed band memories "
          "decided by the simulated operator:")
    print(f"  MAE write-time {before:.3f} → suggested {after:.3f} ({drop:.0%} lower) — "
          f"target ≥ 30 %: {verdict(drop >= 0.3)}")
    print(f"  in-product held-out fifth of decisions ({cal.held_out}): "
          f"{cal.mae_before:.3f} → {cal.mae_after:.3f}")
    print(f"  weaker system (fitted to shuffled decisions): {wb:.3f} → {wa:.3f} "
          f"({1 - wa / wb:.0%} lower): {verdict(1 - wa / wb < 0.3)} (must miss the target)")
    write_cost(s)
    s.close()


class _Llm:
    """An extractor the calibration has opinions about: the planted "llm" source, whose
    decisions and notes the operator raises, each turn one decision and one note."""

    name, model = "llm", None

    def extract(self, turn: Turn) -> Extraction:
        return Extraction([Unit(turn.text, "decision", 0.4, 0.8),
                           Unit(f"Note: {turn.text}", "note", 0.35, 0.8)], "llm")


def write_cost(s: MemoryStore, jobs: int = 150) -> None:
    """The job worker with and without the calibration hook, on the trained store."""
    spent: list[tuple[float, float]] = []

    def hook(*args: object) -> list[str]:
        t, c = time.perf_counter(), time.process_time()
        out = calibrate_at_write(*args)  # type: ignore[arg-type]
        spent.append(((time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000))
        return out

    def run(tag: str, hooks: tuple) -> list[float]:  # type: ignore[type-arg]
        for i in range(jobs):
            JobQueue(s).enqueue(Turn(f"Decided to move the {tag} service {i} onto the new queue.",
                                 f"bench-{i % 20}", "bench"))
        took: list[float] = []
        worker = Worker(s, _Llm(), WorkerConfig(embed=False, batch=1), hooks=hooks)
        while True:
            t = time.perf_counter()
            if worker.process_one() is None:
                return took
            took.append((time.perf_counter() - t) * 1000)

    Calibrations(s).set_auto_apply("llm", True)
    plain = run("plain", ())
    with_hook = run("hooked", (hook,))
    with s.read() as conn:
        changed = conn.exec_driver_sql(
            "SELECT count(*) FROM memory_events WHERE action = 'calibrate' AND actor = "
            "'worker'").scalar()
    wall, cpu = [w for w, _ in spent], [c for _, c in spent]
    print(f"calibration at write time ({jobs} jobs of 2 memories, auto-apply on for 'llm'; "
          f"load {load()}):")
    print(f"  the hook: median {pct(wall, 50):.1f} ms, p95 {pct(wall, 95):.1f} ms wall "
          f"(CPU median {pct(cpu, 50):.1f} ms) per job; {changed} of {2 * jobs} memories "
          "calibrated")
    print(f"  a whole job without it: median {pct(plain, 50):.1f} ms, with it "
          f"{pct(with_hook, 50):.1f} ms")


def training(work: Path, size: int) -> None:
    """5,000 decisions on a store whose memories all have (random unit) vectors."""
    path = work / "train.db"
    truth = build(path, size, seed=21)
    s = MemoryStore.open(path)
    rng = np.random.default_rng(0)
    with s.read() as conn:
        seqs = [r[0] for r in conn.exec_driver_sql("SELECT seq FROM memories")]
    with s.write() as conn:
        for i in range(0, len(seqs), 5000):
            part = seqs[i:i + 5000]
            v = rng.standard_normal((len(part), DIM)).astype("<f4")
            v /= np.linalg.norm(v, axis=1, keepdims=True)
            write_vectors_in(conn, [(q, v[j].tobytes()) for j, q in enumerate(part)])
    ids = sorted(truth.true)[:5000]
    ds = []
    for k, m in enumerate(ids):
        d, imp = demo_truth.operator_decision(truth, m, 0.4)
        ds.append(Decision("bench", k, m, BAND, True, len(truth.true), 5000, False, None,
                           0.4, imp if d == "revalue" else 0.4))
    with s.read() as conn:
        t = time.perf_counter()
        model, X, _y = G.fit(conn, ds)
        took = time.perf_counter() - t
    print(f"training on {len(ds):,} decisions ({X.shape[1]} features incl. {DIM} vector "
          f"dims): {took:.2f} s — target < 5 s: {verdict(took < 5)} (load {load()})")
    with s.read() as conn:
        t = time.perf_counter()
        ids2, _sc = G.score_band(conn, model, BAND)
        took = time.perf_counter() - t
    print(f"  scoring a band of {len(ids2):,} memories with vectors: {took:.2f} s "
          f"({len(ids2) / took:,.0f} /s)")
    s.close()


def scale(size: int) -> None:
    path = million_store(size)
    s = MemoryStore.open(path)
    rng = random.Random(0)
    with s.read() as conn:
        ids = [r[0] for r in conn.exec_driver_sql(
            "SELECT id FROM memories WHERE importance BETWEEN 0.3 AND 0.49 LIMIT 200000")]
        vectors = conn.exec_driver_sql("SELECT count(*) FROM memory_vectors").scalar() or 0
    picked = rng.sample(ids, 300)
    ds = [Decision("bench", k, m, BAND, True, None, 300, False, None, 0.4,
                   0.8 if k % 3 == 0 else 0.4) for k, m in enumerate(picked)]
    with s.read() as conn:
        model, _X, _y = G.fit(conn, ds)
        t = time.perf_counter()
        band_ids, _sc = G.score_band(conn, model, BAND)
        took = time.perf_counter() - t
        t = time.perf_counter()
        G.top_unreviewed(conn, model, BAND, 50)
        took_top = time.perf_counter() - t
    print(f"scoring the band of a {size:,}-memory store ({len(band_ids):,} memories; "
          f"{vectors:,} vectors in the store): {took:.1f} s — target < 30 s: "
          f"{verdict(took < 30)} (load {load()}); "
          f"top-50 unreviewed for a guided sweep: {took_top:.1f} s")
    s.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--rescue-runs", type=int, default=5)
    ap.add_argument("--train-size", type=int, default=20_000)
    ap.add_argument("--scale", type=int, default=0, help="store size for scoring (0: skip)")
    ap.add_argument("--only", choices=("rescue", "coverage", "calibration", "training",
                                       "scale"))
    a = ap.parse_args()
    print(f"{date.today()} · {machine()} · load {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        template = work / "planted.db"
        if a.only in (None, "rescue", "coverage", "calibration"):
            t = time.perf_counter()
            truth = build(template, a.size)
            print(f"planted store: {a.size:,} memories, band {len(truth.true):,}, "
                  f"mislabelled {truth.share_raised:.1%} "
                  f"({sum(1 for m in truth.mislabelled if _contemplative(template, m)):,} "
                  f"with contemplative wording), over-rated {truth.share_lowered:.1%} "
                  f"({time.perf_counter() - t:.0f} s)")
        if a.only in (None, "rescue"):
            rescue(template, truth, work, a.rescue_runs)
        if a.only in (None, "calibration"):
            calibration(template, truth, work)
        if a.only in (None, "coverage"):
            coverage(template, truth, work, a.runs)
        if a.only in (None, "training"):
            training(work, a.train_size)
        if a.scale and a.only in (None, "scale"):
            scale(a.scale)
    print(f"load at end {load()}")


_TEXTS: dict[Path, dict[str, str]] = {}


def _contemplative(path: Path, mid: str) -> bool:
    from memdesk.core.curation.contemplative import contemplative_hint

    if path not in _TEXTS:
        s = MemoryStore.open(path)
        with s.read() as conn:
            _TEXTS[path] = dict(conn.exec_driver_sql("SELECT id, text FROM memories").all())
        s.close()
    return contemplative_hint(_TEXTS[path].get(mid, ""), 0.4) is not None


if __name__ == "__main__":
    main()
