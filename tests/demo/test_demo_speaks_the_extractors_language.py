"""The demo names its questions as the offline extractor does, so what a user tells an
agent later lands on the demo's memories: a switched editor supersedes the demo's editor
preference (and nothing else), and every preference value the demo uses is read by the
extractor under the demo's attribute."""

from __future__ import annotations

from datetime import datetime

import pytest

from memdesk.core import demo
from memdesk.core.read.maintain import maintain
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.jobs import store_memory
from memdesk.core.write.units import Turn
from memdesk.core.write.worker import Worker, WorkerConfig

END = datetime(2026, 11, 1)


def test_an_extracted_switch_supersedes_the_demos_preference(store: MemoryStore) -> None:
    demo.generate(store, 1500, seed=7, end=END)
    user = "alice"
    before = {(m.attribute, m.value): m.id for m in store.active(user)}
    [(old, old_id)] = [(v, i) for (a, v), i in before.items() if a == "prefers_editor"]
    new = next(e for e in demo.EDITORS if e != old)
    store_memory(store, Turn(f"I switched from {old} to {new}.", user, "later"))
    Worker(store, HeuristicExtractor(), WorkerConfig(embed=False)).run(drain=True)
    maintain(store)
    after = {(m.attribute, m.value): m.id for m in store.active(user)}
    assert ("prefers_editor", old) not in after and ("prefers_editor", new) in after
    assert store.get(old_id).superseded_by == after[("prefers_editor", new)]
    # Every other answer of alice's stands.
    assert {k for k in before if k[0] != "prefers_editor"} <= set(after)


@pytest.mark.parametrize("question", demo.texts.PREFERENCES, ids=lambda q: q.attribute)
def test_every_demo_preference_is_read_under_the_demos_attribute(question) -> None:  # type: ignore[no-untyped-def]
    extractor = HeuristicExtractor()
    for value in question.values:
        units = extractor.extract(Turn(f"I prefer {value}.", "u")).units
        assert [(u.attribute, u.value.lower()) for u in units] == [
            (question.attribute, value.lower())], (value, units)
