"""The operator's duplicate threshold is one stored value per store: the queue lists at
it, the job worker flags new writes at it, ``memdesk duplicates threshold`` shows and
sets it; each change is audited and one undo step; bad values are refused with the
field named and nothing changed."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from memdesk.app.main import main
from memdesk.core import embeddings
from memdesk.core.curation.duplicates import Duplicates
from memdesk.core.errors import ValidationError
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changed
from memdesk.core.undo.generic import undo_changes
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Extraction, Turn, Unit
from memdesk.core.write.worker import Worker, WorkerConfig

OLD, NEW = "User writes code in vim every day.", "User writes all code in vim."


def vec(cos: float) -> bytes:
    """A unit vector whose cosine with ``vec(1.0)`` is ``cos``."""
    v = np.zeros(embeddings.DIM, dtype=np.float32)
    v[0], v[1] = cos, math.sqrt(1 - cos * cos)
    return v.astype("<f4").tobytes()


class Says:
    """An extractor answering every turn with the turn's text as one fact."""

    name, model = "says", None

    def extract(self, turn: Turn) -> Extraction:
        return Extraction([Unit(turn.text, "fact", 0.5, 0.8)], "says")


class Encoder:
    """The new text's vector 0.9 from the old one's."""

    name, dim = embeddings.MODEL_NAME, embeddings.DIM

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        return np.stack([np.frombuffer(vec(0.9 if t == NEW else 1.0), "<f4") for t in texts])


@pytest.fixture
def encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "default_embedder", Encoder)
    monkeypatch.setattr(embeddings, "unavailable_reason", lambda: None)


def write(store: MemoryStore, text: str, user: str = "u") -> bool:
    """Store ``text`` through the job worker; whether its memory was flagged."""
    JobQueue(store).enqueue(Turn(text, user, "s"))
    ids: list[str] = []
    Worker(store, Says(), WorkerConfig()).run(drain=True, on_outcome=lambda o: ids.extend(
        o.memory_ids))
    return any(m.flagged for c in Duplicates(store).find() for m in c.members if m.id in ids)


def test_the_stored_threshold_decides_the_queue_and_the_write_path_flag(
        store: MemoryStore, encoder: None) -> None:
    assert not write(store, OLD) and not write(store, OLD, user="v")
    queue = Duplicates(store)
    assert queue.threshold() == 0.80
    assert write(store, NEW)  # cosine 0.9 >= 0.80: flagged and listed
    changed = queue.set_threshold(0.95, note="too many near-misses")
    assert changed.action is acts.SET_SETTING and changed.touches(Changed.SETTINGS)
    assert queue.threshold() == 0.95 and queue.find() == []
    assert not write(store, NEW, user="v")  # the worker reads the stored value too
    [ev] = [e for e in store.events("*") if e.action == acts.SET_SETTING.name]
    assert (ev.before, ev.after, ev.note) == ({"value": 0.8}, {"value": 0.95},
                                              "too many near-misses")
    undone = undo_changes(store, changed)
    assert queue.threshold() == 0.80 and len(queue.find()) == 2
    assert undo_changes(store, undone) and queue.threshold() == 0.95  # redo


def test_setting_the_value_in_force_changes_nothing(store: MemoryStore) -> None:
    queue = Duplicates(store)
    assert queue.set_threshold(0.8).kinds == Changed.NOTHING
    assert [e for e in store.events("*") if e.action == acts.SET_SETTING.name] == []


def test_an_undo_after_a_later_change_is_refused(store: MemoryStore) -> None:
    queue = Duplicates(store)
    first = queue.set_threshold(0.9)
    queue.set_threshold(0.7)
    with pytest.raises(Exception, match="changed again since"):
        undo_changes(store, first)
    assert queue.threshold() == 0.7


@pytest.mark.parametrize("bad", ["high", 0.2, 1.5, float("nan"), None, True])
def test_bad_thresholds_are_refused_naming_the_field(store: MemoryStore, bad) -> None:
    queue = Duplicates(store)
    with pytest.raises(ValidationError, match="threshold"):
        queue.set_threshold(bad)
    assert queue.threshold() == 0.8


def test_cli_shows_sets_and_undoes_the_threshold(store: MemoryStore, capsys) -> None:
    db = str(store.engine.url.database)
    assert main(["duplicates", "threshold", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"threshold": 0.8}
    assert main(["duplicates", "threshold", "0.9", "--db", db, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["threshold"], out["before"], out["changed"]) == (0.9, 0.8, True)
    assert main(["duplicates", "list", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["threshold"] == 0.9
    assert main(["duplicates", "undo", out["action_group"], "--db", db]) == 0
    capsys.readouterr()
    assert Duplicates(store).threshold() == 0.8
    assert main(["duplicates", "threshold", "2", "--db", db]) == 2
    assert "threshold" in capsys.readouterr().err
    assert Duplicates(store).threshold() == 0.8


def test_undoing_a_setting_this_version_does_not_know_is_refused_clearly(
        store: MemoryStore, capsys) -> None:
    # A store last written by a newer memdesk may hold a change to a setting this one
    # has never heard of: undo refuses it with a message, not a crash, and writes nothing.
    changed = Duplicates(store).set_threshold(0.9)
    with store.write() as conn:
        conn.exec_driver_sql("UPDATE memory_events SET target = 'future_setting' "
                             "WHERE action = ?", (acts.SET_SETTING.name,))
    with pytest.raises(ValidationError, match="future_setting"):
        undo_changes(store, changed)
    db = str(store.engine.url.database)
    assert main(["duplicates", "undo", str(changed.group_id), "--db", db]) == 2
    assert "future_setting" in capsys.readouterr().err
    assert [e.action for e in store.events("*")] == [acts.SET_SETTING.name]


class SaysVim:
    """Every turn states the same triple: the user's editor is vim."""

    name, model = "says-vim", None

    def extract(self, turn: Turn) -> Extraction:
        return Extraction([Unit(turn.text, "fact", 0.5, 0.8, "user", "editor", "vim")],
                          "says-vim")


class Encoder075(Encoder):
    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        return np.stack([np.frombuffer(vec(0.75 if t == NEW else 1.0), "<f4") for t in texts])


def test_agreeing_values_are_flagged_down_to_the_margin_below_the_threshold_inclusive(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    # Threshold 0.9, values that agree: a cosine of exactly 0.75 (0.9 less the margin
    # for agreeing values) is still a duplicate, as the queue's own pair test says.
    monkeypatch.setattr(embeddings, "default_embedder", Encoder075)
    monkeypatch.setattr(embeddings, "unavailable_reason", lambda: None)
    Duplicates(store).set_threshold(0.9)
    ids: list[str] = []
    for text in (OLD, NEW):
        JobQueue(store).enqueue(Turn(text, "u", "s"))
        Worker(store, SaysVim(), WorkerConfig()).run(
            drain=True, on_outcome=lambda o: ids.extend(o.memory_ids))
    [cluster] = Duplicates(store).find()
    assert {m.id for m in cluster.members} == set(ids)
    assert [m.id for m in cluster.members if m.flagged] == [ids[1]]
