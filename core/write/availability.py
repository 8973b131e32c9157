"""What optional services the desk can use right now: an Ollama server, embeddings.

Both checks are for the status bar.  The embeddings check is cheap (packages are looked
up, not imported); the Ollama check talks to a server and must run off the GUI thread.
"""

from __future__ import annotations

from dataclasses import dataclass

from memdesk.core import embeddings

OLLAMA_TIMEOUT_S = 1.5


@dataclass(frozen=True)
class Availability:
    """One service: whether it can be used, and a sentence saying why (not)."""

    ok: bool
    detail: str


def ollama(host: str, timeout: float = OLLAMA_TIMEOUT_S) -> Availability:
    """Ask the Ollama server at ``host`` for its models, with a short timeout."""
    try:
        import ollama as client

        models = client.Client(host=host, timeout=timeout).list()
        names = [m.model for m in getattr(models, "models", [])]
        return Availability(True, f"{host}: {len(names)} models")
    except ImportError:
        return Availability(False, "the ollama package is not installed")
    except Exception as exc:  # refused, timeout, bad host: all mean "not reachable" here
        return Availability(False, f"{host}: {type(exc).__name__}: {exc}")


def embedding_vectors() -> Availability:
    """Whether the offline embedder can compute vectors (cheap: nothing is imported)."""
    reason = embeddings.unavailable_reason()
    return Availability(reason is None, reason or "all-MiniLM-L6-v2, offline")

