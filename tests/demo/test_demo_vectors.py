"""The default demo's vectors ship with memdesk (core/demo/vectors.npz), so a new demo is
searchable at once: every text of the default demo has one, they are the packaged
model's vectors, the desk's build writes them without loading the model, and
`memdesk demo --out` says plainly how many memories got one and what to run for the
rest."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from memdesk.core import demo, embeddings
from memdesk.core.demo import store as demo_store
from memdesk.core.demo import vectors
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.embed import missing_count
from tests.helpers.cli import cli

REBUILD = "run tools/build_demo_vectors.py after changing the demo's texts"


def _texts(end: datetime) -> set[str]:
    return {r.text for r in demo.DemoGenerator(vectors.SEED, end).rows(vectors.SIZE)}


def test_every_text_of_the_default_demo_has_a_shipped_vector() -> None:
    data = vectors.shipped()
    assert data is not None and data.model == embeddings.MODEL_NAME
    # The texts do not depend on the day the demo is built.
    texts = _texts(datetime(2026, 11, 1))
    assert texts == _texts(datetime(2031, 2, 3))
    lacking = [t for t in texts if data.blob(t) is None]
    assert not lacking, f"{len(lacking)} texts lack a vector ({REBUILD}): {lacking[:3]}"


def test_the_shipped_vectors_are_the_models(embedder) -> None:  # type: ignore[no-untyped-def]
    data = vectors.shipped()
    assert data is not None
    sample = sorted(_texts(datetime(2026, 11, 1)))[::250]
    want = embedder.encode(sample)
    got = np.stack([embeddings.from_blob(data.blob(t) or b"") for t in sample])
    cosines = (want * got).sum(axis=1) / np.linalg.norm(got, axis=1)
    assert cosines.min() > 0.999, REBUILD


def test_the_desks_build_writes_them_without_the_model(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def no_model(self):  # type: ignore[no-untyped-def]
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(embeddings.Embedder, "load", no_model)
    calls: list[tuple[int, int]] = []
    out = demo_store.build_demo(tmp_path / "d.db", progress=lambda d, t: calls.append((d, t)),
                                vectors=True, embed_rest=False)
    s = MemoryStore.open(out)
    try:
        assert missing_count(s) == 0
    finally:
        s.close()
    assert calls[-1] == (2000, 2000)


def test_demo_out_says_every_memory_has_a_vector(tmp_path: Path) -> None:
    code, out, err = cli("demo", "--out", str(tmp_path / "d.db"))
    assert code == 0, err
    assert "vectors: 5,000 of 5,000 memories (shipped with memdesk)" in out


def test_demo_out_of_another_seed_says_what_lacks_one_and_what_to_run(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    code, out, err = cli("demo", "--out", str(db), "--size", "400", "--seed", "3")
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("vectors:"))
    written, left = (int(n.replace(",", ""))
                     for n in re.findall(r"([\d,]+) (?:written|memories have none)", line))
    assert written > 0 and left > 0
    assert f"memdesk embed --backfill --db {db}" in line
    s = MemoryStore.open(db)
    try:
        assert missing_count(s) == left
    finally:
        s.close()


def test_demo_out_with_no_vectors_says_so(tmp_path: Path) -> None:
    code, out, _ = cli("demo", "--out", str(tmp_path / "d.db"), "--size", "50", "--no-vectors")
    assert code == 0
    assert "vectors: none written (--no-vectors)" in out and "embed --backfill" in out


@pytest.mark.parametrize("broken", ["missing", "other-model"])
def test_without_usable_shipped_vectors_demo_out_says_why(tmp_path: Path, monkeypatch,  # type: ignore[no-untyped-def]
                                                          broken: str) -> None:
    if broken == "missing":
        monkeypatch.setattr(vectors, "FILE", tmp_path / "absent.npz")
        vectors.shipped.cache_clear()
    else:
        monkeypatch.setattr(vectors, "shipped",
                            lambda: vectors.Shipped("another-model", {}, np.zeros((0, 384))))
    try:
        code, out, _ = cli("demo", "--out", str(tmp_path / "d.db"), "--size", "50")
    finally:
        vectors.shipped.cache_clear() if broken == "missing" else None
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("vectors:"))
    assert line.startswith("vectors: none written: ")
    assert ("not installed" if broken == "missing" else "another-model") in line


def test_a_damaged_file_counts_as_absent(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "vectors.npz"
    bad.write_bytes(b"not a zip")
    monkeypatch.setattr(vectors, "FILE", bad)
    vectors.shipped.cache_clear()
    try:
        assert vectors.shipped() is None
    finally:
        vectors.shipped.cache_clear()


def test_the_shipped_vectors_are_unit_length() -> None:
    data = vectors.shipped()
    assert data is not None
    assert np.allclose(np.linalg.norm(data.vectors, axis=1), 1.0, atol=1e-6)
