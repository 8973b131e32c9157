"""The damage corpus: every class of damage is reported by ``db check``, by the check every
open runs and by a read command; none is repaired or truncated silently, and nothing
committed is lost without the operator being told.

Each store starts as the "nothing lost" issue's probe: 120 memories and a ``-wal``
holding 5 committed transactions of 100 edits (tests/helpers/damage_corpus.py), then
one thing is damaged — the WAL (header zeroed, random, bad magic, bad checksum, bad
version, a salt changed in the last commit frame, a damaged page, all zeros, cut
short), the main file (a page, an index, its header), the full-text tables (data,
document sizes, stale text, the table dropped), a trigger dropped or added, an index
or a table dropped.  The files must be byte-identical after the three: the WAL's
frames are still there to be saved.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memdesk.core.errors import StoreCorruptError
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers import damage_corpus as corpus
from tests.helpers.cli import cli


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("probe") / "probe.db"
    corpus.with_committed_wal(path)
    assert corpus.edits_seen(path) == corpus.TRANSACTIONS * corpus.EDITS
    return path


def copy_of(probe: Path, dst: Path) -> Path:
    for suffix in ("", "-wal"):
        shutil.copyfile(str(probe) + suffix, str(dst) + suffix)
    return dst


@pytest.mark.parametrize("kind", sorted(corpus.CORPUS))
def test_each_damage_is_reported_and_nothing_is_changed(
        kind: str, probe: Path, tmp_path: Path) -> None:
    path = copy_of(probe, tmp_path / "store.db")
    corpus.CORPUS[kind](path)
    before = corpus.file_digest(path)

    code, out, err = cli("db", "check", "--db", str(path))
    assert code == 3, (kind, out, err)
    assert "Traceback" not in out + err
    assert corpus.file_digest(path) == before, f"{kind}: db check changed the files"
    if kind in corpus.FULL_CHECK_ONLY:
        return

    with pytest.raises(StoreCorruptError):  # the open check (damaged, or not readable)
        MemoryStore.open(path, create=False)
    assert corpus.file_digest(path) == before, f"{kind}: the open changed the files"

    code, out, err = cli("list", "--db", str(path), "--count")
    assert code == 3, (kind, out, err)
    assert err.strip() and "Traceback" not in err
    assert corpus.file_digest(path) == before, f"{kind}: a read command changed the files"


@pytest.mark.parametrize("kind", sorted(corpus.HARMLESS))
def test_damage_sqlite_rebuilds_loses_nothing(kind: str, probe: Path, tmp_path: Path) -> None:
    """The shared-memory index is a cache of the WAL: SQLite rebuilds it when the first
    connection opens, so it is not reported, and every committed edit is still read."""
    path = copy_of(probe, tmp_path / "store.db")
    listed = cli("list", "--db", str(copy_of(probe, tmp_path / "undamaged.db")), "--count")
    corpus.HARMLESS[kind](path)
    assert cli("db", "check", "--db", str(path))[0] == 0
    assert cli("list", "--db", str(path), "--count") == listed
    assert corpus.edits_seen(path) == corpus.TRANSACTIONS * corpus.EDITS


def test_the_damaged_wal_header_keeps_every_committed_edit_for_the_operator(
        probe: Path, tmp_path: Path) -> None:
    """The issue's probe: the next `list` used to truncate the WAL (500 of 500 edits gone).
    Now it refuses, and once the header is mended (the operator's fix, or a tool's),
    all 500 edits are there."""
    path = copy_of(probe, tmp_path / "store.db")
    good_header = Path(str(path) + "-wal").read_bytes()[:32]
    corpus.wal_header_zeroed(path)
    code, _, err = cli("list", "--db", str(path), "--count")
    assert code == 3 and "write-ahead log" in err
    with open(str(path) + "-wal", "r+b") as fh:
        fh.write(good_header)
    assert corpus.edits_seen(path) == corpus.TRANSACTIONS * corpus.EDITS
