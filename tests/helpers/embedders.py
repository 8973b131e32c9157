"""Stand-ins for the embedding model: deterministic vectors, every call recorded."""

from __future__ import annotations

import hashlib

import numpy as np

from memdesk.core import embeddings


class CountingEmbedder:
    """Deterministic vectors (from the text's hash) and a record of every encode call."""

    name, dim = embeddings.MODEL_NAME, embeddings.DIM

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        self.calls.append(list(texts))
        if any("POISON" in t for t in texts):
            raise RuntimeError("the encoder choked")
        return np.stack([self.vector(t) for t in texts]) if texts else np.zeros((0, 384))

    @staticmethod
    def vector(text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
        v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
        return v / np.linalg.norm(v)
