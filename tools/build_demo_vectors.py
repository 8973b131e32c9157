"""Build core/demo/vectors.npz: the default demo's vectors, shipped with memdesk.

Run after changing what the demo's memories say (tests/demo/test_demo_vectors.py fails
until then, naming this script):

    .venv/bin/python tools/build_demo_vectors.py

Every distinct text of the default demo (seed 7, 5,000 rows) is embedded with the
packaged model and stored as float16 under its 64-bit key (core/demo/vectors.py).
"""

from __future__ import annotations

import sys
import time
from datetime import datetime

import numpy as np

from memdesk.core import demo, embeddings
from memdesk.core.demo import vectors


def main() -> int:
    texts = sorted({r.text for r in demo.DemoGenerator(vectors.SEED, datetime(2026, 1, 1))
                    .rows(vectors.SIZE)})
    start = time.perf_counter()
    encoded = embeddings.Embedder().encode(texts, batch_size=32)
    keys = np.array([vectors.key(t) for t in texts], dtype=np.uint64)
    if len(set(keys.tolist())) != len(texts):
        print("two texts share a key; widen vectors.key", file=sys.stderr)
        return 1
    np.savez_compressed(vectors.FILE, keys=keys, vectors=encoded.astype(np.float16),
                        model=np.array(embeddings.MODEL_NAME))
    print(f"{len(texts):,} vectors in {time.perf_counter() - start:.0f} s -> {vectors.FILE} "
          f"({vectors.FILE.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
