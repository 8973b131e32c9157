"""Recall checks through their façade (``RecallChecks``), on SQLite and PostgreSQL: what
a run reports, every way a named memory can become unreachable, bad input, audit and
undo, and the batched run's equality with one cold retrieval per check."""

from __future__ import annotations

import pytest

from memdesk.core.curation.duplicates import merge
from memdesk.core.errors import NotFoundError, UndoConflictError, ValidationError
from memdesk.core.read.checks import K, RecallChecks
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.recall_checks import CheckStateError
from memdesk.core.store.records import Changed
from memdesk.core.undo.generic import undo_changes
from tests.helpers.read import put

MEMORIES = [
    {"text": "The kayak club meets on Tuesdays at the harbour.", "days_ago": 3},
    {"text": "My sister lives in Lisbon.", "days_ago": 5},
    {"text": "I am allergic to peanuts.", "days_ago": 8},
    {"text": "I have a peanut allergy.", "days_ago": 9},
    {"text": "My favourite editor is Helix.", "days_ago": 4},
]


@pytest.fixture
def ids(store: MemoryStore) -> list[str]:
    return put(store, MEMORIES)


def test_a_check_passes_with_the_rank_of_what_it_expects(store: MemoryStore,
                                                         ids: list[str]) -> None:
    checks = RecallChecks(store)
    added = checks.add("u", "when does the kayak club meet?", [ids[0][:8]], [ids[1]])
    assert added.check.expect == (ids[0],)  # a prefix is resolved to the full id
    assert added.changes.kinds & Changed.CHECKS
    run = checks.run()
    [r] = run.results
    assert r.passed and run.passed and r.before is None
    assert r.expected[0].rank == 1 and r.expected[0].state == "returned"
    assert not r.forbidden[0].returned and "not in the top 10" in r.forbidden[0].detail
    assert checks.get(added.check.id[:6]).last_passed is True  # kept as the last result


def test_a_deleted_memory_fails_the_check_and_says_so(store: MemoryStore,
                                                      ids: list[str]) -> None:
    checks = RecallChecks(store)
    checks.add("u", "when does the kayak club meet?", [ids[0]])
    assert checks.run().passed
    store.soft_delete(ids[0])
    run = checks.run()
    [r] = run.results
    assert not r.passed and r.broke and r.changed and run.broke == (r,)
    assert r.missing[0].state == "deleted" and "deleted on" in r.missing[0].detail
    assert "missing" in r.summary()


def test_a_merge_is_followed_and_said(store: MemoryStore, ids: list[str]) -> None:
    checks = RecallChecks(store)
    checks.add("u", "what am I allergic to?", [ids[3]])
    merge(store, [ids[2], ids[3]], keep=ids[2])
    [r] = checks.run().results
    named = r.expected[0]
    assert r.passed and named.state == "merged" and named.returned_as == ids[2]
    assert f"merged into {ids[2]}" in named.detail and "rank" in named.detail


def test_a_merged_forbidden_memory_counts_as_present(store: MemoryStore,
                                                     ids: list[str]) -> None:
    checks = RecallChecks(store)
    checks.add("u", "what am I allergic to?", [ids[2]], [ids[3]])
    merge(store, [ids[2], ids[3]], keep=ids[2])
    [r] = checks.run().results
    assert not r.passed and r.present[0].memory_id == ids[3]


def test_a_correction_is_not_followed(store: MemoryStore, ids: list[str]) -> None:
    checks = RecallChecks(store)
    checks.add("u", "what am I allergic to?", [ids[3]])
    store.supersede(ids[3], ids[2])
    [r] = checks.run().results
    assert not r.passed and r.missing[0].state == "superseded"
    assert "not a merge" in r.missing[0].detail and ids[2] in r.missing[0].detail


def test_held_expired_hypothetical_low_confidence_and_moved_memories(
        store: MemoryStore, ids: list[str]) -> None:
    from datetime import datetime

    checks = RecallChecks(store)
    # The guard's hold is set on insert only (an agent's write it screened).
    ids[0] = store.add(user_id="u", text="The kayak club meets on Tuesdays.", type="note",
                       quarantined_at=datetime(2026, 11, 1)).id
    for mid in ids:
        checks.add("u", "tell me everything about me", [mid])
    store.update(ids[1], valid_until=datetime(2026, 11, 1))
    store.update(ids[2], confidence=0.1)
    store.update(ids[3], framing="hypothetical", confidence=0.2)
    store.update(ids[4], user_id="someone-else")
    states = [r.missing[0].state for r in checks.run().results]
    assert states == ["held", "expired", "low_confidence", "hypothetical", "other_user"]


def test_bad_input_is_refused_and_nothing_is_stored(store: MemoryStore, ids: list[str]) -> None:
    checks = RecallChecks(store)
    bad = [
        ("", "q", [ids[0]], []),
        ("u", "   ", [ids[0]], []),
        ("u", "q\x00", [ids[0]], []),
        ("u", "q" * 10_001, [ids[0]], []),
        ("u", "q", [], []),
        ("u", "q", [ids[0]], [ids[0]]),
        ("u", "q", [ids[0]], [ids[0][:8]]),  # the same memory by prefix
        ("u", "q", ids[0], []),  # one string, not a list
        ("u", "q", ["bad\nid"], []),
        ("other", "q", [ids[0]], []),  # another user's memory
    ]
    for user, query, want, avoid in bad:
        with pytest.raises(ValidationError):
            checks.add(user, query, want, avoid)
    with pytest.raises(NotFoundError):
        checks.add("u", "q", ["feedbeefcafe"])
    assert checks.list(include_removed=True) == []


def test_add_and_remove_are_audited_and_undone(store: MemoryStore, ids: list[str]) -> None:
    checks = RecallChecks(store)
    added = checks.add("u", "where does my sister live?", [ids[1]])
    redo = undo_changes(store, added.changes)  # undo the add: the check is gone
    assert checks.list() == [] and checks.list(include_removed=True)[0].removed
    undo_changes(store, redo)  # redo
    assert [c.id for c in checks.list()] == [added.check.id]
    removed = checks.remove(added.check.id[:8])
    assert removed.label() == "removal of 1 recall check"
    with pytest.raises(CheckStateError):
        checks.remove(added.check.id)
    undo_changes(store, removed)
    assert [c.id for c in checks.list()] == [added.check.id]
    with pytest.raises(UndoConflictError):  # removed again since: refused, nothing changes
        checks.remove(added.check.id)
        undo_changes(store, added.changes)
    with pytest.raises(NotFoundError):
        checks.remove("0000000000")


def test_an_empty_store_of_checks_runs_nothing(store: MemoryStore) -> None:
    run = RecallChecks(store).run()
    assert run.results == () and run.passed and run.changes.kinds == Changed.NOTHING


def test_a_cancelled_run_keeps_what_it_finished(store: MemoryStore, ids: list[str]) -> None:
    checks = RecallChecks(store)
    for mid in ids:
        checks.add("u", "tell me about me", [mid])
    seen: list[int] = []
    run = checks.run(progress=lambda done, total: seen.append(done),
                     cancelled=lambda: len(seen) >= 2)
    assert run.cancelled and len(run.results) == 2
    assert sum(c.last_run_at is not None for c in checks.list()) == 2


def test_the_batched_run_equals_one_cold_retrieval_per_check(store: MemoryStore) -> None:
    """Many checks over several users: ``run`` (user by user, queries encoded in
    batches, one lookup) gives every check the verdict, ranks and words ``run_one``
    gives it alone."""
    texts = ["The kayak club meets on Tuesdays.", "My sister lives in Lisbon.",
             "I am allergic to peanuts.", "My favourite editor is Helix.",
             "I drive a blue Volvo.", "I work as a nurse at the city hospital.",
             "My daughter plays the violin.", "I prefer tea over coffee."]
    by_user = {u: put(store, [{"text": f"{t} ({u})", "days_ago": i}
                              for i, t in enumerate(texts)], user=u)
               for u in ("ann", "bob", "cy")}
    store.soft_delete(by_user["bob"][2])
    queries = ["kayak club day", "where does my sister live", "what allergies do I have",
               "which editor", "what car do I drive", "what is my job", "violin", "tea"]
    checks = RecallChecks(store)
    for u, mids in by_user.items():
        for i, q in enumerate(queries):
            checks.add(u, q, [mids[i]], [mids[(i + 1) % len(mids)]])
    batched = checks.run(record=False)
    assert len(batched.results) == 24 and batched.failed  # bob's deleted one at least
    for r in batched.results:
        alone = checks.run_one(r.check)
        assert alone.verdict() == r.verdict()


def test_checks_ask_for_the_k_the_agents_get_by_default() -> None:
    """The MCP retrieve tool's default k is the checks' k."""
    import inspect

    from memdesk.core.read.retriever import Retriever

    assert inspect.signature(Retriever.retrieve).parameters["k"].default == K


def test_a_run_encodes_its_queries_in_one_batch(store: MemoryStore, ids: list[str]) -> None:
    """The queries of a run go through the model together, once; the retrievals that
    follow find their vectors (no encode per check)."""
    from tests.helpers.embedders import CountingEmbedder

    embedder = CountingEmbedder()
    checks = RecallChecks(store, embedder=embedder)  # type: ignore[arg-type]
    for i, mid in enumerate(ids):
        checks.add("u", f"question number {i}", [mid])
    checks.run()
    assert len(embedder.calls) == 1 and len(embedder.calls[0]) == len(ids)
