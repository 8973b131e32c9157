"""``memdesk embed`` loads the model even with nothing to embed, so running it once after
installing leaves the fast runtime's model exported in the cache: the next
``memdesk mcp`` starts with vectors in about a second instead of paying the export.
(The packaged MiniLM model; nothing is downloaded.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.app.main import main
from memdesk.core import embeddings
from memdesk.core.store.memory_store import MemoryStore

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(embeddings.unavailable_reason() is not None
                       or embeddings.onnx_encoder.missing_package() is not None,
                       reason="needs the model, sentence-transformers and onnxruntime"),
]


def test_embed_with_nothing_to_do_prepares_the_fast_runtime(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "fresh-cache"))
    monkeypatch.delenv(embeddings.RUNTIME_ENV, raising=False)
    monkeypatch.setattr(embeddings, "_default", None)  # a process that has not loaded it
    db = tmp_path / "s.db"
    MemoryStore.open(db).close()
    assert not embeddings.fast_start_ready()
    assert main(["--db", str(db), "embed"]) == 0
    assert "embedded 0 memories" in capsys.readouterr().out
    assert embeddings.fast_start_ready()
    assert embeddings.default_embedder().runtime == "onnxruntime"
