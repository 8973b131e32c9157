"""Optional reranker: a local model behind Ollama scores each candidate 0–10.

Only through the official ``ollama`` client.  When the server is unreachable (or the
model is missing) the retrieval goes on without it and says so in its notes: the
reranker refines the order, it is never what keeps unrelated entries out (the
relevance floor does that).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memdesk.core.read.fusion import Hit

PROMPT = (
    "Rate how relevant the memory is to the query, from 0 (unrelated) to 10 (directly "
    "answers it). Reply with the number only.\n\nQuery: {query}\nMemory: {memory}\nScore:"
)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


class OllamaReranker:
    """Scores (query, memory) pairs with ``model`` on the Ollama server at ``host``."""

    def __init__(self, model: str, host: str | None = None, timeout: float = 10.0) -> None:
        self.model = model
        self.host = host or "http://127.0.0.1:11434"
        self.timeout = timeout

    def scores(self, query: str, hits: Sequence[Hit]) -> tuple[list[float] | None, str | None]:
        """(one score in [0, 1] per hit, None) or (None, why the reranker was skipped)."""
        try:
            import ollama
        except ImportError:
            return None, "reranker skipped: the ollama package is not installed"
        client = ollama.Client(host=self.host, timeout=self.timeout)
        out: list[float] = []
        try:
            for h in hits:
                reply = client.generate(model=self.model, prompt=PROMPT.format(
                    query=query, memory=h.text), options={"temperature": 0})
                m = _NUMBER.search(reply.response or "")
                out.append(min(max(float(m.group()) / 10.0, 0.0), 1.0) if m else 0.0)
        except ollama.ResponseError as exc:
            return None, f"reranker skipped: Ollama at {self.host} refused ({exc.error})"
        except Exception as exc:  # connection refused, timeout, DNS: the server is not there
            return None, f"reranker skipped: Ollama is not reachable at {self.host} ({exc})"
        return out, None
