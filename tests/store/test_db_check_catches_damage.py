"""``memdesk db check`` catches every class of damage and raises no false alarm.

The corpus (tests/helpers/store_damage.py): a damaged table page, a damaged table index, the
full-text index's shadow tables damaged two ways, text changed behind the full-text
index, and a WAL holding committed transactions after a damaged frame.  Every case
exits 3 and leaves the files as they were; 100 small healthy stores of varied content
(a third of them with a live WAL, as a crash leaves it) all pass.
"""

from __future__ import annotations

import hashlib
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memdesk.core.store.backup import backup_dir
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers import store_damage as dmg
from tests.helpers.cli import cli
from tests.helpers.store_damage import fill


def digest(path: Path) -> str:
    h = hashlib.sha256()
    for suffix in ("", "-wal"):
        p = Path(str(path) + suffix)
        if p.exists():
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "healthy.db"
    s = MemoryStore.open(path)
    fill(s, 80, seed=7)
    s.checkpoint()
    s.close()
    return path


CASES: dict[str, Callable[[Path], None]] = {
    "page": dmg.damage_page,
    "index": dmg.damage_index,
    "fts-shadow-data": dmg.damage_fts_data,
    "fts-shadow-docsize": dmg.damage_fts_docsize,
    "stale-fts": dmg.stale_fts,
}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_damage_class_exits_3_and_nothing_is_written(
        kind: str, healthy: Path, tmp_path: Path) -> None:
    path = tmp_path / f"{kind}.db"
    shutil.copyfile(healthy, path)
    assert cli("db", "check", "--db", str(path))[0] == 0
    CASES[kind](path)
    before = digest(path)
    code, out, err = cli("db", "check", "--db", str(path))
    assert code == 3, (kind, out, err)
    assert "damaged" in out
    assert digest(path) == before


def test_stale_full_text_index_is_found_and_repaired(healthy: Path, tmp_path: Path) -> None:
    path = tmp_path / "stale.db"
    shutil.copyfile(healthy, path)
    dmg.stale_fts(path, rows=32)
    code, out, _ = cli("db", "check", "--db", str(path))
    assert code == 3 and "--repair" in out
    code, _, err = cli("list", "--db", str(path), "--text", "zebra", "--count")
    assert code == 3 and "memories_fts_au is missing" in err  # not searched with it stale
    code, out, _ = cli("db", "check", "--repair", "--db", str(path))
    assert code == 0, out
    assert "rebuilt the full-text index" in out and "no damage found" in out
    s = MemoryStore.open(path)
    listed = sum(r.text.startswith("zebra ") for r in s.page(limit=None))
    s.close()
    code, out, _ = cli("list", "--db", str(path), "--text", "zebra", "--count")
    assert listed > 10 and out.strip() == str(listed)
    code, out, _ = cli("db", "backups", "--db", str(path))
    assert "pre-repair" in out  # the backup taken before the repair is listed
    # ... and the repair is written down next to it, in the backups folder's repairs.log.
    assert "rebuilt full-text index" in (backup_dir(path) / "repairs.log").read_text()


def test_repair_refuses_damage_it_cannot_repair(healthy: Path, tmp_path: Path) -> None:
    path = tmp_path / "page.db"
    shutil.copyfile(healthy, path)
    dmg.damage_page(path)
    before = digest(path)
    code, _, err = cli("db", "check", "--repair", "--db", str(path))
    assert code == 3 and "Only a damaged full-text index" in err
    assert digest(path) == before


def test_a_wal_whose_committed_frames_would_be_dropped_is_reported_first(
        healthy: Path, tmp_path: Path) -> None:
    path = tmp_path / "wal.db"
    dmg.committed_wal(healthy, path, commits=40)
    assert dmg.probe_rows(path) == 40
    assert cli("db", "check", "--db", str(path))[0] == 0  # a healthy WAL: no alarm
    dmg.damage_wal(path)
    assert dmg.probe_rows(path) < 40  # SQLite itself drops the later commits silently
    before = digest(path)
    code, out, _ = cli("db", "check", "--db", str(path))
    assert code == 3 and "write-ahead log" in out
    assert digest(path) == before  # the frames are still there to be saved
    # Opening it for work refuses too, before anything could checkpoint the WAL away.
    code, _, err = cli("list", "--db", str(path), "--count")
    assert code == 3 and "write-ahead log" in err
    assert digest(path) == before


def test_100_healthy_stores_raise_no_false_alarm(tmp_path: Path) -> None:
    template = tmp_path / "template.db"
    MemoryStore.open(template).close()
    start = time.monotonic()
    alarms = []
    for i in range(100):
        path = tmp_path / f"h{i}.db"
        shutil.copyfile(template, path)
        s = MemoryStore.open(path)
        fill(s, 1 + (i * 7) % 25, seed=i)
        if i % 3 == 0:  # a live WAL, as a crash or a running program leaves it
            dmg.snapshot_with_wal(path, tmp_path / f"h{i}-live.db")
            s.close()
            path = tmp_path / f"h{i}-live.db"
        else:
            s.close()
        code, out, _ = cli("db", "check", "--db", str(path))
        if code != 0:
            alarms.append(out)
    assert alarms == []
    assert time.monotonic() - start < 120
