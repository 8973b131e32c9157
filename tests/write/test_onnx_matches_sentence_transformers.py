"""The fast runtime gives the reference vectors: all-MiniLM-L6-v2 on ONNX Runtime (the
file exported from the packaged weights into the cache) against sentence-transformers
on PyTorch, on varied texts and batch sizes; and a process on the fast path never
imports torch (the cold start it exists for).  The packaged model; nothing is
downloaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memdesk.core import embeddings
from memdesk.core.embeddings import Embedder

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(embeddings.unavailable_reason() is not None
                       or embeddings.onnx_encoder.missing_package() is not None,
                       reason="needs sentence-transformers, the model and onnxruntime"),
]

TEXTS = [
    "tea",
    "",
    "   ",
    "I moved to Oslo last March and started a new job at the hospital.",
    "What did I say about my sister's wedding?",
    "Ünïcödé, naïve café, 日本語のテキスト, Ελληνικά, emoji 🙂🎉",
    "def f(x):\n    return x ** 2  # code, tabs\tand newlines",
    "2024-03-17 at 09:45, $1,299.99, +47 22 33 44 55",
    "A long turn about many things. " * 60,  # past 256 tokens: truncated alike
    "word " * 255,  # right at the truncation length
    "ALL CAPS SHOUTING and MiXeD cAsE",
    "\u202eright-to-left override and zero\u200bwidth",
]


@pytest.fixture(scope="module")
def both() -> tuple[Embedder, Embedder]:
    fast = Embedder(runtime="onnx")
    fast.load()  # exports into the test run's cache (tests/conftest.py) on first use
    return fast, Embedder(runtime="torch")


@pytest.mark.parametrize("batch_size", [1, 5, 64])
def test_onnx_vectors_equal_sentence_transformers(both: tuple[Embedder, Embedder],
                                                  batch_size: int) -> None:
    fast, ref = both
    ours = fast.encode(TEXTS, batch_size=batch_size)
    theirs = ref.encode(TEXTS, batch_size=batch_size)
    assert fast.runtime == "onnxruntime" and ref.runtime == "sentence-transformers"
    assert ours.shape == theirs.shape == (len(TEXTS), embeddings.DIM)
    assert ours.dtype == np.float32 and ours.flags["C_CONTIGUOUS"]
    cosine = np.sum(ours * theirs, axis=1)
    assert cosine.min() >= 1 - 1e-5, cosine
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    # The order given is the order returned, whatever the batches did.
    assert np.allclose(ours[3], fast.encode([TEXTS[3]])[0], atol=1e-6)


def test_the_fast_path_never_imports_torch(both: tuple[Embedder, Embedder]) -> None:
    """In a new process (the cache already holds the export), the first vector comes
    from ONNX Runtime and neither torch nor sentence-transformers is imported."""
    code = (
        "import sys\n"
        "from memdesk.core import embeddings\n"
        "assert embeddings.fast_start_ready()\n"
        "e = embeddings.Embedder()\n"
        "v = e.encode(['warm up'])\n"
        "print(e.runtime, v.shape, 'torch' in sys.modules,"
        " 'sentence_transformers' in sys.modules)\n")
    env = {k: v for k, v in os.environ.items() if k != embeddings.RUNTIME_ENV}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.split() == ["onnxruntime", "(1,", "384)", "False", "False"]


def test_a_retrieval_on_the_fast_path_never_imports_torch(
        both: tuple[Embedder, Embedder], tmp_path: Path) -> None:
    """The retriever's query path (one query thread) leaves torch unloaded too."""
    db = tmp_path / "store.db"
    code = (
        "import sys\n"
        "from memdesk.core.store.memory_store import MemoryStore\n"
        "from memdesk.core.read.retriever import Retriever\n"
        f"s = MemoryStore.open({str(db)!r})\n"
        "s.add(user_id='alice', text='alice prefers green tea', type='preference')\n"
        "r = Retriever(s).retrieve('green tea', 'alice')\n"
        "print(','.join(r.channels), 'torch' in sys.modules)\n")
    env = {k: v for k, v in os.environ.items() if k != embeddings.RUNTIME_ENV}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    channels, torch_loaded = proc.stdout.split()
    assert "vector" in channels.split(",") and torch_loaded == "False"
