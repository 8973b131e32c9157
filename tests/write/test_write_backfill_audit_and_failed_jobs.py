"""The write path at its edges: the backfill's audit record, third-person verbs in
paraphrases, and how a worker reports a job whose extraction fails or crashes."""

from __future__ import annotations

import pytest

from memdesk.core import embeddings
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.embed import backfill, reembed_all
from memdesk.core.write.extract_heuristic import HeuristicExtractor, paraphrase
from memdesk.core.write.jobs import JobQueue, store_memory
from memdesk.core.write.units import Extraction, ExtractionError, Turn
from memdesk.core.write.worker import Worker, WorkerConfig
from tests.helpers.embedders import CountingEmbedder


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> CountingEmbedder:
    e = CountingEmbedder()
    monkeypatch.setattr(embeddings, "default_embedder", lambda: e)
    return e


def test_backfill_audits_each_batch_with_its_size_and_model(
        store: MemoryStore, fake: CountingEmbedder) -> None:
    store.add_many([{"user_id": "u", "text": f"fact {i}", "type": "fact"} for i in range(5)])
    rep = backfill(store, batch=2, embedder=fake)
    assert (rep.embedded, rep.remaining, rep.cancelled) == (5, 0, False)
    embeds = [e for e in reversed(store.events("*")) if e.action == "embed"]
    assert [(e.actor, e.before, e.after, e.note) for e in embeds] == [
        ("worker", {}, {"rows": n, "model": embeddings.MODEL_NAME}, f"vectors for {n} memories")
        for n in (2, 2, 1)]


def test_reembed_all_is_audited_as_one_store_wide_event(
        store: MemoryStore, fake: CountingEmbedder) -> None:
    store.add_many([{"user_id": "u", "text": f"fact {i}", "type": "fact"} for i in range(3)])
    backfill(store, embedder=fake)
    assert reembed_all(store, "other-model", 8) == 3
    [ev] = [e for e in store.events("*") if e.action == "reembed"]
    assert (ev.actor, ev.before, ev.after, ev.note) == (
        "operator", {}, {"cleared": 3, "model": "other-model", "dim": 8},
        "vectors cleared for re-embedding with other-model")


@pytest.mark.parametrize("clause, expected", [
    ("I try new tools", "The user tries new tools."),
    ("I always fly to Oslo", "The user always flies to Oslo."),
    ("I play chess", "The user plays chess."),  # vowel + y: just an s
    ("I buy local", "The user buys local."),
    ("I fix bikes", "The user fixes bikes."),
    ("I go home", "The user goes home."),
    # the rule is spelling, not a word list: consonant + y is "ies" at any length
    ("I xy it", "The user xies it."),
])
def test_paraphrase_conjugates_verbs_ending_in_y(clause: str, expected: str) -> None:
    assert paraphrase(clause) == expected


class Failing(HeuristicExtractor):
    """Extraction fails cleanly on "refuse", crashes on "crash", works otherwise."""

    def extract(self, turn: Turn) -> Extraction:
        if "refuse" in turn.text:
            raise ExtractionError("the model refused")
        if "crash" in turn.text:
            raise KeyError("units")
        return super().extract(turn)


def test_a_worker_reports_failed_and_crashed_extractions_per_job(
        store: MemoryStore, fake: CountingEmbedder) -> None:
    ids = [store_memory(store, Turn(t, "u")) for t in
           ("please refuse this", "I live in Oslo.", "now crash")]
    outcomes = Worker(store, Failing(), WorkerConfig(batch=8)).process_batch()
    by_id = {o.job_id: o for o in outcomes}
    crash = "unexpected error: KeyError: 'units'"
    assert [(by_id[i].status, by_id[i].error) for i in ids] == [
        ("failed", "the model refused"), ("done", None), ("failed", crash)]
    q = JobQueue(store)
    assert [(q.get(i).status, q.get(i).error) for i in ids] == [
        ("failed", "the model refused"), ("done", None), ("failed", crash)]
