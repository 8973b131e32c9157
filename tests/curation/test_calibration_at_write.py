"""New memories arrive with better importances: with auto-apply on for a source, the job
worker gives each memory it stores from that source its calibrated importance, in the
job's transaction, audited as one undo step per job, the write-time value kept in the
history and shown beside the calibrated one; a source without auto-apply is left alone.
Driven through the public write path: ``store_memory`` → the worker as ``memdesk
worker`` runs it → the memory's importance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.app.main import main
from memdesk.core.curation.at_write import WRITE_HOOKS
from memdesk.core.curation.service import Calibrations, Sweeps
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.undo.generic import undo_group
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Turn
from memdesk.core.write.worker import Worker, WorkerConfig
from memdesk.ui.sweep.learning import suggestion_text

TOOLS = ["Postgres", "Kafka", "Redis", "DuckDB", "SQLite", "Rust", "Go", "Elixir", "Zig",
         "Kotlin", "Terraform", "Nomad", "Envoy", "Caddy", "NATS", "Celery"]
PARTS = ["billing", "search", "ingest", "auth", "reports", "mailer"]
CITIES = ["Lisbon", "Porto", "Berlin", "Madrid", "Oslo", "Denver", "Quito", "Lima", "Riga",
          "Turin", "Ghent", "Malmo", "Bergen", "Graz", "Cork", "Split", "Tartu", "Bilbao",
          "Lyon", "Krakow", "Leeds", "Basel", "Aarhus", "Bremen", "Utrecht", "Genoa",
          "Tampere", "Brno", "Nantes", "Seville", "Dresden", "Poznan", "Antwerp",
          "Hamburg", "Lucerne", "Kaunas", "Vigo", "Pisa", "Cadiz", "Linz"]


def run_worker(store: MemoryStore) -> list[str]:
    out: list[str] = []
    Worker(store, HeuristicExtractor(), WorkerConfig(embed=False), hooks=WRITE_HOOKS).run(
        drain=True, on_outcome=lambda o: out.extend(o.memory_ids))
    return out


@pytest.fixture(scope="module")
def taught(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store whose operator raised every decision the worker wrote (0.8 → 0.95) and
    kept every fact, over 70 sweep decisions, with the calibration trained on them."""
    path = tmp_path_factory.mktemp("taught") / "s.db"
    store = MemoryStore.open(path)
    for i, tool in enumerate(TOOLS * 2):
        JobQueue(store).enqueue(Turn(f"I decided to use {tool} for the {PARTS[i % 6]} service.",
                                 f"u{i}", "c1"))
    for i, city in enumerate(CITIES):
        JobQueue(store).enqueue(Turn(f"I live in {city}.", f"v{i}", "c1"))
    run_worker(store)
    sweeps = Sweeps(store)
    sweep = sweeps.start((0.55, 0.85), 500, seed=1)
    assert len(sweep.items) >= 60
    for it in sweep.items:
        decision = store.get(it.memory_id).type == "decision"
        sweeps.decide(sweep.id, it.pos, "revalue" if decision else "keep",
                      importance=0.95 if decision else None)
    Calibrations(store).train()
    store.close()
    return path


@pytest.fixture
def store(taught: Path, tmp_path: Path):
    dest = tmp_path / "s.db"
    dest.write_bytes(taught.read_bytes())
    s = MemoryStore.open(dest)
    yield s
    s.close()


def _job_of(store: MemoryStore, text: str, user: str) -> tuple[str, list[str]]:
    job = JobQueue(store).enqueue(Turn(text, user, "c2"))
    return job, run_worker(store)


def test_auto_apply_calibrates_new_memories_at_write_time_as_one_undo_step(
        store: MemoryStore) -> None:
    cals = Calibrations(store)
    cals.set_auto_apply("heuristic", True)
    job, ids = _job_of(store, "I decided to use Postgres for the ledger service. "
                       "I live in Vienna.", "w1")
    by_type = {store.get(i).type: store.get(i) for i in ids}
    decision, fact = by_type["decision"], by_type["fact"]
    assert decision.importance == pytest.approx(0.95)  # what the operator taught
    assert fact.importance == pytest.approx(0.6)  # kept as written: the operator keeps facts
    # The write-time value stays in the history and beside the calibrated one.
    [ev] = [e for e in store.events(decision.id) if e.action == acts.CALIBRATE.name]
    assert ev.actor == "worker" and ev.before == {"importance": 0.8}
    [sug] = cals.suggest([decision.id])
    assert (sug.write_time, sug.current, sug.applied) == (0.8, pytest.approx(0.95), True)
    line = suggestion_text(store, decision.id)  # the detail pane's line
    assert "Calibrated from your sweeps: 0.95 (write-time 0.80" in line
    log = " ".join(e["msg"] for e in JobQueue(store).get(job).log)
    assert "calibrated the importance of 1 memory" in log
    # One undo step for the job: the write-time importance back.
    undo_group(store, ev.group_id)
    assert store.get(decision.id).importance == pytest.approx(0.8)
    assert store.get(fact.id).importance == pytest.approx(0.6)


def test_a_source_without_auto_apply_keeps_its_write_time_importance(
        store: MemoryStore) -> None:
    cals = Calibrations(store)
    _, [plain] = _job_of(store, "I decided to use Kafka for the ledger service.", "w2")
    assert store.get(plain).importance == pytest.approx(0.8)
    cals.set_auto_apply("some-other-extractor", True)
    _, [other] = _job_of(store, "I decided to use Redis for the ledger service.", "w3")
    assert store.get(other).importance == pytest.approx(0.8)
    assert not any(e.action == acts.CALIBRATE.name for e in store.events(other))
    [sug] = cals.suggest([other])  # the desk still shows what it would suggest
    assert sug.suggested == pytest.approx(0.95) and not sug.applied


def test_memdesk_worker_applies_it_too(store: MemoryStore, capsys) -> None:
    Calibrations(store).set_auto_apply("heuristic", True)
    job = JobQueue(store).enqueue(Turn("I decided to use Zig for the ledger service.", "w4", "c3"))
    path = store.engine.url.database
    assert main(["worker", "--db", str(path), "--offline", "--drain", "--no-embed"]) == 0
    [mid] = JobQueue(store).get(job).memory_ids
    assert store.get(mid).importance == pytest.approx(0.95)
    capsys.readouterr()
    assert main(["sweep", "calibration", mid, "--db", str(path), "--json"]) == 0
    [shown] = json.loads(capsys.readouterr().out)["suggestions"]
    assert (shown["write_time"], shown["applied"]) == (0.8, True)
    assert shown["importance"] == pytest.approx(0.95)


def test_a_newer_calibration_is_the_one_applied_at_write_time(store: MemoryStore) -> None:
    cals = Calibrations(store)
    cals.set_auto_apply("heuristic", True)
    _, [first] = _job_of(store, "I decided to use Envoy for the ledger service.", "w5")
    assert store.get(first).importance == pytest.approx(0.95)
    # The operator now raises new decisions further; training again makes a newer
    # calibration, and the next job must use it, not the one the worker read before.
    cals.set_auto_apply("heuristic", False)
    for i, tool in enumerate(TOOLS):
        JobQueue(store).enqueue(Turn(f"I decided to use {tool} for the {PARTS[i % 6]} queue.",
                                     f"x{i}", "c4"))
    run_worker(store)
    sweeps = Sweeps(store)
    sweep = sweeps.start((0.75, 0.85), 500, seed=3)
    assert len(sweep.items) >= len(TOOLS)
    for it in sweep.items:
        decision = store.get(it.memory_id).type == "decision"
        sweeps.decide(sweep.id, it.pos, "revalue" if decision else "keep",
                      importance=0.99 if decision else None)
    cals.train()
    cals.set_auto_apply("heuristic", True)
    _, [second] = _job_of(store, "I decided to use Caddy for the ledger service.", "w6")
    [sug] = cals.suggest([second])
    assert sug.suggested is not None and sug.suggested > 0.95
    assert store.get(second).importance == pytest.approx(sug.suggested)
