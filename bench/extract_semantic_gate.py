"""An experiment for bench_extract.py --semantic: does the shipped MiniLM model, used as a
nearest-prototype classifier over labelled example sentences, make the offline extractor
more precise?

The gate embeds each turn and compares it with prototype sentences of a "statement" class
and of the classes the extractor must not store (jokes, reported speech, complaints,
questions, small talk).  When the best non-statement prototype beats the best statement
prototype by ``MARGIN``, the turn's units are dropped.  It can only remove units (the
triples still come from the rules), so it can raise precision and only lower recall.

The prototypes are written for this experiment and share no sentence with the
extraction set.  Results are in docs/benchmarks.md ("Offline extraction"); the gate is
not part of memdesk because it did not help there.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from memdesk.core.embeddings import default_embedder
from memdesk.core.write.units import Extraction, Turn

MARGIN = float(os.environ.get("EXTRACT_GATE_MARGIN", "0.05"))
PROTOTYPES: dict[str, tuple[str, ...]] = {
    "statement": (
        "I work as an accountant in a bank.", "I am allergic to shellfish.",
        "My son is ten and plays chess.", "I prefer light themes in my editor.",
        "I live in Madrid with my family.", "I switched from Java to Kotlin.",
        "We decided to release every two weeks.", "My husband is a teacher.",
        "I don't eat meat, I'm vegetarian.", "I usually write my scripts in Bash.",
        "Actually, I moved to Seattle last spring.", "I'm a software tester at a startup.",
    ),
    "joke": (
        "I'm allergic to hard work, lol.", "My cat is the real boss here, haha.",
        "I'm basically a professional napper, just kidding.",
        "I run on coffee and sarcasm, jk.", "I'm fluent in sarcasm, haha.",
    ),
    "reported": (
        "My neighbour told me he is a spy.", "She said she works for the government.",
        "My uncle claims he invented the internet.", "He says he prefers Windows.",
        "They told me the meeting moved to Friday.",
    ),
    "complaint": (
        "I always lose my wallet, it drives me nuts.", "Ugh, I keep missing my train.",
        "I hate it when my laptop freezes.", "I constantly forget passwords, so annoying.",
    ),
    "question": (
        "Can you help me write a SQL query?", "What is the best way to learn Rust?",
        "How do I center a div?", "Do you know what time it is in Tokyo?",
    ),
    "small_talk": (
        "Thanks so much, that was useful!", "Good evening, how are you?",
        "Okay, let's keep going.", "Nice, that works.", "See you tomorrow!",
    ),
}


class SemanticExtractor:
    """``inner``'s units, unless the turn reads like a joke, a report, a complaint, a
    question or small talk to the MiniLM model."""

    name = "heuristic+minilm"
    model: str | None = "all-MiniLM-L6-v2"

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.embedder = default_embedder()
        self.labels: list[str] = []
        self.matrix: np.ndarray | None = None

    def warm(self) -> None:
        texts = [t for ts in PROTOTYPES.values() for t in ts]
        self.labels = [c for c, ts in PROTOTYPES.items() for _ in ts]
        self.matrix = self.embedder.encode(texts)

    def extract(self, turn: Turn) -> Extraction:
        out: Extraction = self.inner.extract(turn)
        if not out.units:
            return out
        assert self.matrix is not None
        sims = self.matrix @ self.embedder.encode([turn.text])[0]
        best: dict[str, float] = {}
        for label, s in zip(self.labels, sims, strict=True):
            best[label] = max(best.get(label, -1.0), float(s))
        keep = best.pop("statement")
        label, other = max(best.items(), key=lambda kv: kv[1])
        if other - keep > MARGIN:
            out.notes.append(f"MiniLM gate: reads as {label} ({other:.2f} vs {keep:.2f})")
            out.units = []
        return out
