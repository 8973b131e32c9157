"""The packaged MiniLM model on ONNX Runtime: the same vectors, without torch at run time.

Starting the PyTorch path costs seconds before the first vector: importing
sentence-transformers pulls in torch, transformers, scikit-learn and scipy (12.5 s of
imports at load 4 on 2 cores, measured with ``python -X importtime``; docs/benchmarks.md,
"Cold start").  ONNX Runtime with the ``tokenizers`` package runs the same weights
after importing a few hundred milliseconds of code.

No ONNX file is shipped and nothing is downloaded: :func:`export` writes one from the
packaged PyTorch weights (``torch.onnx.export``, through the already loaded
sentence-transformers model), once, into the user's cache folder, and checks it
against that model before keeping it.  The graph holds the whole sentence-transformers
pipeline after tokenisation (transformer, mean pooling over the attention mask, L2
normalisation), so :class:`OnnxEncoder` gives the vectors sentence-transformers gives
(cosine ≥ 1 − 1e-5; tests/write/test_onnx_matches_sentence_transformers.py).  The file's
name carries a fingerprint of the weights and of this module's graph format, so new
weights or a new graph never reuse an old file.

This module imports nothing of memdesk: the embedder (core/embeddings.py) chooses the
runtime and turns this module's errors into its own.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

# Bumped whenever the exported graph changes: files of an older format are not reused.
GRAPH_FORMAT = 1
OPSET = 17
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
# How close the exported model must come to the PyTorch one before it is kept.
MIN_COSINE = 1.0 - 1e-5
# Texts the export is checked on: a word, a sentence, one past the truncation length
# (padding, truncation and batch shapes other than the traced ones), non-ASCII.
CHECK_TEXTS = (
    "tea",
    "Last Saturday I went hiking with Maria near the lake and we saw two herons.",
    "a long turn " * 120,
    "Ünïcödé, 日本語のテキスト, emoji 🙂 and a tab\there",
)


class OnnxUnavailable(Exception):
    """The ONNX path cannot run here; the message says why (a sentence fragment)."""


def missing_package() -> str | None:
    """The pip name of a package the ONNX path needs and lacks (cheap: no import)."""
    for module, pip_name in (("onnxruntime", "onnxruntime"), ("tokenizers", "tokenizers")):
        if importlib.util.find_spec(module) is None:
            return pip_name
    return None


def fingerprint(model_dir: Path) -> str:
    """A short hash of what the exported graph depends on: the model's configuration,
    the weights (size, first and last MiB) and :data:`GRAPH_FORMAT`.  Milliseconds:
    the weights are not read whole."""
    h = hashlib.sha256(f"graph {GRAPH_FORMAT} opset {OPSET}".encode())
    for name in ("config.json", "sentence_bert_config.json", "tokenizer.json",
                 "1_Pooling/config.json", "modules.json"):
        f = model_dir / name
        h.update(name.encode() + (f.read_bytes() if f.exists() else b"-"))
    weights = model_dir / "model.safetensors"
    size = weights.stat().st_size
    h.update(str(size).encode())
    with weights.open("rb") as fh:
        h.update(fh.read(1 << 20))
        fh.seek(max(0, size - (1 << 20)))
        h.update(fh.read(1 << 20))
    return h.hexdigest()[:16]


def cached_file(model_dir: Path, cache_dir: Path, name: str) -> Path:
    """Where the exported model of ``model_dir`` lives in ``cache_dir``."""
    return cache_dir / f"{name}-{fingerprint(model_dir)}.onnx"


def _max_length(model_dir: Path) -> int:
    config = model_dir / "sentence_bert_config.json"
    return int(json.loads(config.read_text(encoding="utf-8"))["max_seq_length"])


class OnnxEncoder:
    """Tokenise with ``tokenizers``, run the exported graph: unit vectors, float32."""

    def __init__(self, onnx_file: Path, model_dir: Path) -> None:
        missing = missing_package()
        if missing:
            raise OnnxUnavailable(f"the {missing} package is not installed")
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
            # As sentence-transformers tokenises: truncated to the model's
            # max_seq_length (the file says 128, padded to a fixed 128), padded to
            # the longest text of each batch.
            tokenizer.enable_truncation(max_length=_max_length(model_dir))
            pad = tokenizer.token_to_id("[PAD]")
            tokenizer.enable_padding(pad_id=0 if pad is None else pad, pad_token="[PAD]")
            options = ort.SessionOptions()
            options.log_severity_level = 3  # errors only: stderr is read by scripts
            # Threads that spin while waiting cost tenfold on a shared, loaded machine
            # (the retriever's note on torch threads); ORT's workers sleep instead.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self._session = ort.InferenceSession(
                str(onnx_file), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # a corrupt file or a broken install: say which
            raise OnnxUnavailable(f"ONNX Runtime could not load {onnx_file.name} ({exc})"
                                  ) from exc
        self._tokenizer = tokenizer

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        """(len(texts), dim) float32, rows L2-normalised, in the order given.

        Batches are made of texts of similar length (longest first, as
        sentence-transformers does), so little of each batch is padding.
        """
        import numpy as np

        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out: list[np.ndarray] = [np.empty(0)] * len(texts)
        for start in range(0, len(order), max(1, batch_size)):
            idx = order[start:start + max(1, batch_size)]
            for i, vec in zip(idx, self._run([texts[i] for i in idx]), strict=True):
                out[i] = vec
        return np.ascontiguousarray(np.stack(out), dtype=np.float32)

    def _run(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        enc = self._tokenizer.encode_batch(texts)
        feed = {
            "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64),
        }
        result: np.ndarray = self._session.run(None, feed)[0]
        return result


def export(st_model: Any, model_dir: Path, target: Path) -> None:
    """Write ``st_model`` (a loaded sentence-transformers model of ``model_dir``) as an
    ONNX graph at ``target``, checked against ``st_model`` on :data:`CHECK_TEXTS` first.

    The file is written beside ``target`` and renamed into place, so a reader never
    sees half a file and two processes exporting at once both end with a whole one.
    Raises OnnxUnavailable when the export or the check fails.
    """
    if importlib.util.find_spec("onnx") is None:  # torch's exporter writes through it
        raise OnnxUnavailable("the onnx package is not installed (it writes the export)")
    try:
        transformer = st_model[0].auto_model  # first: a model of another kind fails fast

        import numpy as np
        import torch

        class Pipeline(torch.nn.Module):
            """The transformer, mean pooling over real tokens, L2 normalisation."""

            def __init__(self) -> None:
                super().__init__()
                self.transformer = transformer

            def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                        token_type_ids: torch.Tensor) -> torch.Tensor:
                hidden = self.transformer(input_ids=input_ids, attention_mask=attention_mask,
                                          token_type_ids=token_type_ids).last_hidden_state
                mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
                mean = (hidden * mask).sum(1) / torch.clamp(mask.sum(1), min=1e-9)
                return torch.nn.functional.normalize(mean, p=2, dim=1)

        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=target.stem, suffix=".tmp", dir=target.parent)
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            sample = torch.ones((2, 8), dtype=torch.long)
            axes = {name: {0: "batch", 1: "tokens"} for name in INPUTS}
            with torch.no_grad(), warnings.catch_warnings():
                # Tracer warnings about Python branches that never vary for an encoder.
                warnings.simplefilter("ignore")
                torch.onnx.export(
                    Pipeline().eval(), (sample, sample, torch.zeros_like(sample)), str(tmp),
                    input_names=list(INPUTS), output_names=["sentence_embedding"],
                    dynamic_axes={**axes, "sentence_embedding": {0: "batch"}},
                    opset_version=OPSET, dynamo=False)
            texts = list(CHECK_TEXTS)
            ours = OnnxEncoder(tmp, model_dir).encode(texts, batch_size=3)
            ref = np.asarray(st_model.encode(texts, normalize_embeddings=True,
                                             convert_to_numpy=True, show_progress_bar=False))
            worst = float(np.min(np.sum(ours * ref, axis=1)))
            if worst < MIN_COSINE:
                raise OnnxUnavailable(f"the exported model disagrees with PyTorch "
                                      f"(cosine {worst:.6f})")
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
    except OnnxUnavailable:
        raise
    except Exception as exc:  # an exporter that changed or failed: say so, keep PyTorch
        raise OnnxUnavailable(f"the ONNX export failed ({type(exc).__name__}: {exc})"
                              ) from exc
