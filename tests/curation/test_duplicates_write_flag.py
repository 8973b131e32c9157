"""The job worker flags a new memory that restates an active one, and the duplicates
queue shows that cluster first, marked as a new write; a memory that restates nothing
is not flagged."""

from __future__ import annotations

import numpy as np

from memdesk.core.curation.duplicates import Duplicates
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.jobs import store_memory
from memdesk.core.write.units import Turn
from memdesk.core.write.worker import Worker, WorkerConfig


def run_worker(store: MemoryStore) -> list[str]:
    worker = Worker(store, HeuristicExtractor(), WorkerConfig(embed=False))
    out: list[str] = []
    worker.run(drain=True, on_outcome=lambda o: out.extend(o.memory_ids))
    return out


def test_a_written_restatement_is_flagged_and_listed_first(store: MemoryStore) -> None:
    # Older memories have vectors, the new ones not (written without the model).
    blob = np.array([0.6, 0.8, 0.0], dtype="<f4").tobytes()
    old = store.add(user_id="u", text="The user lives in Lisbon.", type="fact",
                    embedding=blob).id
    store.add(user_id="u", text="User enjoys hiking.", type="fact",
              embedding=np.array([0.0, 0.0, 1.0], dtype="<f4").tobytes())
    for i in range(3):  # an older, unflagged cluster the flagged one must come before
        store.add(user_id="u", text="User likes green tea.", type="fact", importance=0.1 * i)
    store_memory(store, Turn("I live in Lisbon. I work at Acme.", "u", "conv-1"))
    new_ids = run_worker(store)
    assert len(new_ids) == 2
    clusters = Duplicates(store).find()
    assert [c.flagged for c in clusters] == [True, False]
    flagged = clusters[0]
    assert len(flagged.members) == 2 and old in flagged.member_ids
    [new] = [m for m in flagged.members if m.flagged]
    assert new.id in new_ids and new.text == "The user lives in Lisbon."


def test_a_new_fact_is_not_flagged(store: MemoryStore) -> None:
    store.add(user_id="u", text="The user works at Acme.", type="fact", entity="user",
              attribute="works_at", value="Acme")
    store_memory(store, Turn("I work at Globex.", "u", "conv-1"))
    assert len(run_worker(store)) == 1
    assert Duplicates(store).find() == []


def test_a_partner_edited_since_an_earlier_write_is_compared_as_it_is_now(
        store: MemoryStore) -> None:
    store_memory(store, Turn("I live in Lisbon.", "u", "conv-1"))
    [first] = run_worker(store)
    store_memory(store, Turn("I work at Acme.", "u", "conv-1"))
    run_worker(store)  # the worker now keeps this user's rows, the Lisbon one among them
    store.update(first, text="The user lives in Porto.")
    store_memory(store, Turn("I live in Lisbon.", "u", "conv-2"))
    [second] = run_worker(store)
    assert Duplicates(store).find() == []
    store_memory(store, Turn("I live in Lisbon.", "u", "conv-3"))
    [third] = run_worker(store)
    [cluster] = Duplicates(store).find()
    assert set(cluster.member_ids) == {second, third}
    assert [m.id for m in cluster.members if m.flagged] == [third]
