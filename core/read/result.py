"""What one retrieval returned (``RetrievalResult``): the ranked results, the injected
preferences, what the floor and the diversity rule removed, each channel's ranking and
the notes.  Its own module so both the retriever that builds it and the recorder that
stores it import it, and neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memdesk.core.read import fusion, injection


@dataclass
class RetrievalResult:
    """Everything one retrieval returned, and enough to explain it."""

    retrieval_id: str
    at: datetime
    query: str
    user_id: str
    k: int
    channels: tuple[str, ...]
    injected: bool
    results: list[fusion.Hit]
    preferences: list[injection.Preference]
    dropped: list[fusion.Dropped]
    per_channel: dict[str, list[fusion.Hit]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # Why a channel ranked nothing (channel -> reason), for the inspector and the JSON.
    empty_channels: dict[str, str] = field(default_factory=dict)
    duration_ms: float = 0.0

    def to_json(self) -> dict[str, object]:
        return {
            "retrieval_id": self.retrieval_id, "user": self.user_id, "query": self.query,
            "k": self.k, "channels": list(self.channels), "injected": self.injected,
            "results": [h.to_json() for h in self.results],
            "preferences": [p.to_json() for p in self.preferences],
            "dropped": [d.to_json() for d in self.dropped],
            "notes": self.notes, "empty_channels": self.empty_channels,
            "duration_ms": round(self.duration_ms, 2),
        }
