"""Recall checks survive export and import (memdesk JSON Lines), on both backends: the
round trip, a user's export, old files, bad check lines, undo of the import, and a
check whose memories the target store lacks."""

from __future__ import annotations

import io
import json
from pathlib import Path

from memdesk.core.read.checks import RecallChecks
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter
from memdesk.core.store.records import Changed
from memdesk.core.transfer.importer import Importer
from memdesk.core.transfer.jsonl import JsonlSource, export_jsonl
from memdesk.core.undo.generic import undo_changes
from tests.helpers.read import put


def _export(store: MemoryStore, flt: MemoryFilter | None = None) -> bytes:
    out = io.BytesIO()
    export_jsonl(store, out, flt)
    return out.getvalue()


def _import(store: MemoryStore, data: bytes):  # type: ignore[no-untyped-def]
    return Importer(store, keep_ids=True).run(JsonlSource(io.BytesIO(data)))


def _two_users(store: MemoryStore) -> tuple[list[str], list[str]]:
    a = put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 2},
                    {"text": "My sister lives in Lisbon.", "days_ago": 3}], user="ann")
    b = put(store, [{"text": "Bob's dog is called Rex.", "days_ago": 1}], user="bob")
    checks = RecallChecks(store)
    checks.add("ann", "kayak club day", [a[0]], [a[1]], note="pinned in a test")
    checks.add("bob", "what is my dog's name", [b[0]])
    gone = checks.add("ann", "sister", [a[1]])
    checks.remove(gone.check.id)  # a removed check is not exported
    return a, b


def test_checks_round_trip_through_an_export(store: MemoryStore, tmp_path: Path) -> None:
    _two_users(store)
    data = _export(store)
    lines = [json.loads(x) for x in data.decode().splitlines()]
    assert [("recall_check" in x) for x in lines] == [False] * 3 + [True] * 2
    target = MemoryStore.open(tmp_path / "target.db")
    report = _import(target, data)
    assert report.checks_imported == 2 and report.imported == 3 and report.bad_count == 0
    assert report.changes.kinds & Changed.CHECKS
    before = {c.id: c.definition() for c in RecallChecks(store).list()}
    assert {c.id: c.definition() for c in RecallChecks(target).list()} == before
    assert _export(target) == data  # byte-identical, checks included
    again = _import(target, data)
    assert again.checks_imported == 0 and again.checks_skipped == 2
    assert RecallChecks(target).run().passed
    target.close()


def test_a_users_export_carries_that_users_checks(store: MemoryStore) -> None:
    _two_users(store)
    lines = [json.loads(x) for x in _export(store, MemoryFilter(user_ids=("bob",))).splitlines()]
    checks = [x["recall_check"] for x in lines if "recall_check" in x]
    assert [c["user_id"] for c in checks] == ["bob"]


def test_undoing_the_import_removes_its_checks(store: MemoryStore, tmp_path: Path) -> None:
    _two_users(store)
    data = _export(store)
    target = MemoryStore.open(tmp_path / "target.db")
    report = _import(target, data)
    undo_changes(target, report.changes)
    assert RecallChecks(target).list() == []
    target.close()
    other = MemoryStore.open(tmp_path / "other.db")  # `memdesk import --undo`'s path
    report = _import(other, data)
    other.undo_group(report.group_id)
    assert RecallChecks(other).list() == []
    other.close()


def test_old_files_and_bad_check_lines(store: MemoryStore) -> None:
    a = put(store, [{"text": "I like green tea.", "days_ago": 1}], user="ann")
    memory = _export(store)  # an export without checks: what every older memdesk wrote
    good = {"recall_check": {"id": "c1", "user_id": "ann", "query": "what do I drink",
                             "expect": [a[0]], "expect_not": []}}
    bad = [
        {"recall_check": {"id": "c2", "user_id": "ann", "query": "", "expect": [a[0]]}},
        {"recall_check": {"id": "c3", "user_id": "ann", "query": "q", "expect": []}},
        {"recall_check": {"id": "c4", "user_id": "ann", "query": "q", "expect": "x"}},
        {"recall_check": {"id": "c5", "user_id": "ann", "query": "q", "expect": ["x"],
                          "colour": "red"}},
        {"recall_check": {"id": "", "user_id": "ann", "query": "q", "expect": ["x"]}},
        {"recall_check": "c6"},
        {"recall_check": {"id": "c7", "user_id": "ann", "query": "q", "expect": ["x"]},
         "id": "extra"},
    ]
    data = memory + b"".join(json.dumps(x).encode() + b"\n" for x in [good, *bad])
    report = _import(store, data)
    assert report.checks_imported == 1 and report.bad_count == len(bad)
    reasons = [b.reason for b in report.bad]
    assert any("query: is empty" in r for r in reasons)
    assert any("colour" in r for r in reasons)
    assert [c.id for c in RecallChecks(store).list()] == ["c1"]


def test_an_imported_check_naming_absent_memories_says_so(store: MemoryStore) -> None:
    put(store, [{"text": "I like green tea.", "days_ago": 1}], user="ann")
    line = {"recall_check": {"id": "c9", "user_id": "ann", "query": "what do I drink",
                             "expect": ["0123456789abcdef"]}}
    assert _import(store, json.dumps(line).encode() + b"\n").checks_imported == 1
    [r] = RecallChecks(store).run().results
    assert not r.passed and r.missing[0].state == "missing"
    assert "no memory with this id in the store" in r.missing[0].detail
