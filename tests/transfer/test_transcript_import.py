"""``memdesk import --from transcript``: every readable turn goes to the write path and
is kept as said (an episode with its speaker, session and time) once the worker ran; a
line that cannot be read is reported by number and queues nothing, the rest are
queued."""

from __future__ import annotations

import json
from pathlib import Path

from memdesk.core.store.episodes import Episodes
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.cli import cli

GOOD = [
    {"user_id": "mel", "text": "I ran a charity race last Saturday.", "speaker": "Melanie",
     "session_id": "s1", "said_at": "2023-05-08T13:56:00Z"},
    {"text": "That sounds great, how did it go?", "speaker": "Caroline", "session_id": "s1",
     "said_at": "2023-05-08T13:57:00Z"},
]


def test_a_transcript_becomes_episodes_and_units(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    lines = [json.dumps(GOOD[0]), "", json.dumps(GOOD[1]),
             '{"text": 3, "user_id": "mel"}', "not json at all", '{"text": "x", "mood": 1}',
             json.dumps({"text": "hi", "said_at": "the 45th of Smarch"}),
             "[" * 100_000]
    path.write_bytes(("\n".join(lines) + "\n").encode() + b'{"text": "caf\xe9"}\n')
    db = str(tmp_path / "s.db")
    r = cli("--db", db, "import", "--from", "transcript", "--user", "mel", str(path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("queued 2 turns") and "6 line(s) not read" in r.stdout
    for words in ("line 4: text", "line 5: line: is not JSON", "line 6: mood",
                  "line 7: said_at", "line 8: line: is not JSON (nested too deeply)",
                  "line 9: line: is not UTF-8"):
        assert words in r.stdout, (words, r.stdout)
    assert "Traceback" not in r.stdout + r.stderr
    assert cli("--db", db, "worker", "--offline", "--drain", "--no-embed").returncode == 0
    store = MemoryStore.open(db)
    try:
        episodes = [m for m in store.active("mel") if m.type == "episode"]
        assert sorted(m.text for m in episodes) == sorted(t["text"] for t in GOOD)
        race = next(m for m in episodes if "race" in m.text)
        info = Episodes(store).get(race.id)
        assert info is not None and info.speaker == "Melanie" and info.event_date == "2023-05-06"
    finally:
        store.close()


def test_nothing_readable_exits_2_and_queues_nothing(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"text": "no user here"}\n', encoding="utf-8")
    db = str(tmp_path / "s.db")
    r = cli("--db", db, "import", "--from", "transcript", str(path), "--json")
    assert r.returncode == 2
    out = json.loads(r.stdout)
    assert out["queued"] == 0 and out["bad"][0]["line"] == 1
    assert "user_id" in out["bad"][0]["reason"]
