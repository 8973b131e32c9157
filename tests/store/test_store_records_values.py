"""core/store/records.py: the JSON form of a record, the audit value codec, Changes flags."""

from __future__ import annotations

import json
from datetime import datetime

from memdesk.core.store.records import (
    MEMORY_EDIT,
    Changed,
    Changes,
    MemoryRecord,
    decode_values,
    encode_values,
)

AT = datetime(2026, 11, 24, 10, 30, 5, 123456)


def _rec(**kw) -> MemoryRecord:  # type: ignore[no-untyped-def]
    base = dict(id="m1", user_id="u", text="t", type="fact", topic=None, importance=0.5,
                confidence=0.9, source_session=None, created_at=AT, last_accessed=None,
                access_count=2, decay_score=None, superseded_by=None, embedding=None,
                entity=None, attribute=None, value=None, valid_until=None, layer=None,
                deleted_at=None)
    base.update(kw)
    return MemoryRecord(**base)  # type: ignore[arg-type]


def test_to_json_of_an_active_record() -> None:
    assert _rec().to_json() == {
        "id": "m1", "user_id": "u", "text": "t", "type": "fact", "topic": None,
        "importance": 0.5, "confidence": 0.9, "source_session": None,
        "created_at": "2026-11-24T10:30:05.123456", "last_accessed": None, "access_count": 2,
        "decay_score": None, "superseded_by": None, "embedding_dims": None, "entity": None,
        "attribute": None, "value": None, "valid_until": None, "layer": None,
        "deleted_at": None, "seq": 0, "quarantined_at": None, "framing": None, "agent_id": None,
        "run_id": None, "archived_at": None, "version": 1,
        "status": "active",
    }


def test_to_json_reports_embedding_size_and_every_time_as_iso() -> None:
    out = _rec(embedding=b"\x00" * 16, deleted_at=AT, last_accessed=datetime(2026, 1, 2),
               valid_until=datetime(2027, 1, 1), quarantined_at=datetime(2026, 5, 5, 5),
               seq=7, version=3).to_json()
    assert out["embedding_dims"] == 4
    assert "embedding" not in out
    assert (out["deleted_at"], out["last_accessed"], out["valid_until"], out["quarantined_at"]) \
        == ("2026-11-24T10:30:05.123456", "2026-01-02T00:00:00", "2027-01-01T00:00:00",
            "2026-05-05T05:00:00")
    assert (out["seq"], out["version"], out["status"]) == (7, 3, "deleted")
    json.dumps(out)  # and it really is JSON-safe
    assert _rec(embedding=b"").to_json()["embedding_dims"] is None
    assert _rec(embedding=b"\x00" * 7).to_json()["embedding_dims"] == 1


def test_encode_values_sorted_iso_and_unescaped() -> None:
    assert encode_values({"text": "café", "created_at": AT, "b": 1}) == (
        '{"b": 1, "created_at": "2026-11-24T10:30:05.123456", "text": "café"}')


def test_decode_values_restores_times_of_time_fields_only() -> None:
    raw = ('{"created_at": "2026-11-24T10:30:05.123456", "deleted_at": null, '
           '"text": "2026-01-01T00:00:00", "valid_until": "2027-01-01T00:00:00", '
           '"last_accessed": "2026-01-02T00:00:00", "quarantined_at": "2026-05-05T05:00:00"}')
    assert decode_values(raw) == {
        "created_at": AT, "deleted_at": None, "text": "2026-01-01T00:00:00",
        "valid_until": datetime(2027, 1, 1), "last_accessed": datetime(2026, 1, 2),
        "quarantined_at": datetime(2026, 5, 5, 5)}
    assert decode_values(None) == {}
    assert decode_values("") == {}


def test_values_round_trip() -> None:
    values = {"created_at": AT, "text": "x", "importance": 0.25}
    assert decode_values(encode_values(values)) == values


def test_changes_defaults_and_touches() -> None:
    c = Changes()
    assert c.kinds == MEMORY_EDIT == Changed.MEMORIES | Changed.HISTORY
    assert c.memories is True
    assert c.touches(Changed.HISTORY) is True
    assert c.touches(Changed.SWEEPS | Changed.HISTORY) is True
    assert c.touches(Changed.SWEEPS) is False
    assert Changes(kinds=Changed.NOTHING).touches(Changed.ALL) is False
    assert Changes(kinds=Changed.SWEEPS).memories is False


def test_everything_touches_every_kind() -> None:
    e = Changes.everything()
    assert e.kinds == Changed.ALL
    assert (e.memory_ids, e.event_ids, e.group_id) == ((), (), None)
    for kind in Changed:
        if kind is not Changed.NOTHING:
            assert e.touches(kind), kind


def test_undoable() -> None:
    assert Changes().undoable is False
    assert Changes(event_ids=(4,)).undoable is True
    assert Changes(event_ids=(4, 5)).undoable is False
    assert Changes(event_ids=(4, 5), group_id="g").undoable is True
