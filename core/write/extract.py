"""Choosing an extractor: Ollama when configured, the heuristic one offline or as fallback.

``ExtractorConfig`` is what the CLI flags (``--ollama-host/--ollama-model``), the
environment (``MEMDESK_OLLAMA_HOST``/``MEMDESK_OLLAMA_MODEL``) and the GUI's settings
feed.  :class:`FallbackExtractor` tries Ollama and, when it cannot answer (unreachable,
timeout, model not found, malformed reply), runs the heuristic extractor and notes why;
with fallback off the failure is raised as a readable :class:`ExtractionError`.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.extract_ollama import (
    DEFAULT_HOST,
    DEFAULT_MODEL,
    DEFAULT_TIMEOUT_S,
    OllamaExtractor,
)
from memdesk.core.write.units import Extraction, ExtractionError, Extractor, Turn

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExtractorConfig:
    """How to extract: offline only, or Ollama at ``host`` with ``model``."""

    offline: bool = False
    host: str = DEFAULT_HOST
    model: str = DEFAULT_MODEL
    timeout: float = DEFAULT_TIMEOUT_S
    fallback: bool = True

    @classmethod
    def from_env(cls, *, offline: bool = False, host: str | None = None,
                 model: str | None = None, timeout: float | None = None,
                 fallback: bool = True) -> ExtractorConfig:
        """Explicit arguments win over the environment, which wins over the defaults."""
        return cls(
            offline=offline,
            host=host or os.environ.get("MEMDESK_OLLAMA_HOST") or DEFAULT_HOST,
            model=model or os.environ.get("MEMDESK_OLLAMA_MODEL") or DEFAULT_MODEL,
            timeout=DEFAULT_TIMEOUT_S if timeout is None else timeout,
            fallback=fallback,
        )


class FallbackExtractor:
    """``primary`` first; on ExtractionError the heuristic extractor, with the reason."""

    def __init__(self, primary: Extractor, fallback: Extractor | None = None) -> None:
        self.primary = primary
        self.fallback = fallback if fallback is not None else HeuristicExtractor()
        self.name = primary.name
        self.model = primary.model

    def extract(self, turn: Turn) -> Extraction:
        try:
            out = self.primary.extract(turn)
        except ExtractionError as exc:
            reason = f"{self.primary.name} failed: {exc}; used the {self.fallback.name} extractor"
            log.info(reason)
            out = self.fallback.extract(turn)
            out.notes.insert(0, reason)
        for note in out.notes:
            if note.startswith("rejected"):
                log.info("%s: %s", out.extractor, note)
        return out


def make_extractor(config: ExtractorConfig) -> Extractor:
    if config.offline:
        return HeuristicExtractor()
    ollama = OllamaExtractor(config.host, config.model, config.timeout)
    return FallbackExtractor(ollama) if config.fallback else ollama
