"""Importing a conversation transcript: every turn into the write path.

A memory export (memdesk JSON Lines, Mem0, Recall) holds memories; a transcript holds
what was *said*.  Its turns go where an agent's ``store_memory`` sends them: each is a
job, and the worker keeps the turn as said (an episode, with its speaker, session and
time) and extracts its units (docs/write-path.md).  One JSON object per line:

    {"user_id": "mel", "text": "I ran a charity race last Saturday.",
     "speaker": "Melanie", "session_id": "s3", "said_at": "2023-05-08T13:56:00Z"}

``user_id`` may be left out when the operator names one user for the whole file
(``memdesk import --from transcript --user mel``); ``topic`` is optional too.  A line
that cannot be read is reported with its number and reason and queues nothing; the
others are queued (nothing acknowledged is lost: a queued job survives a crash and is
taken by the next worker).  Queueing is one transaction per 500 turns, so a cancelled
import keeps what it queued and says how far it got.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from memdesk.core.errors import MemdeskError, ValidationError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Turn, parse_said_at

BATCH = 500
FIELDS = {"user_id", "text", "speaker", "session_id", "said_at", "topic"}
MAX_SHOWN_BAD = 20


@dataclass
class TranscriptReport:
    """What a transcript import queued, and which lines it could not read."""

    queued: int = 0
    job_ids: list[str] = field(default_factory=list)
    bad: list[tuple[int, str]] = field(default_factory=list)  # (line number, reason)
    cancelled: bool = False

    def summary(self) -> str:
        head = (f"queued {self.queued:,} turn{'' if self.queued == 1 else 's'} for the "
                "write path (each is kept as said and its units extracted by the worker: "
                "`memdesk worker --drain`, or the desk while it is open)")
        if self.bad:
            head += f"; {len(self.bad):,} line(s) not read"
        if self.cancelled:
            head += "; cancelled: the lines after those were not read"
        return head

    def to_json(self) -> dict[str, Any]:
        return {"queued": self.queued, "job_ids": self.job_ids,
                "bad": [{"line": n, "reason": r} for n, r in self.bad],
                "cancelled": self.cancelled}


def turn_of(raw: object, default_user: str | None) -> Turn:
    """One line's turn, or ValidationError saying what is wrong with it."""
    if not isinstance(raw, dict):
        raise ValidationError("line", f"must be a JSON object, got {type(raw).__name__}")
    unknown = sorted(set(raw) - FIELDS)
    if unknown:
        raise ValidationError(unknown[0], "is not a transcript field (expected "
                              + ", ".join(sorted(FIELDS)) + ")")
    text = raw.get("text")
    if not isinstance(text, str):
        raise ValidationError("text", "is missing or not text")
    user = raw.get("user_id", default_user)
    if not isinstance(user, str):
        raise ValidationError("user_id", "is missing (or give --user for the whole file)")
    for name in ("speaker", "session_id", "topic"):
        if raw.get(name) is not None and not isinstance(raw[name], str):
            raise ValidationError(name, "must be text")
    return Turn(text, user, raw.get("session_id"), raw.get("topic"),
                speaker=raw.get("speaker"), said_at=parse_said_at(raw.get("said_at")))


def lines_of(stream: IO[bytes]) -> Iterable[tuple[int, object]]:
    """(line number, parsed JSON or the reason it is not) for each non-blank line."""
    for n, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line.decode("utf-8"))
        except UnicodeDecodeError as exc:
            yield n, ValidationError("line", f"is not UTF-8 ({exc.reason} at byte {exc.start})")
        except (json.JSONDecodeError, RecursionError) as exc:
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
            yield n, ValidationError("line", f"is not JSON ({why})")


def import_transcript(store: MemoryStore, stream: IO[bytes], *,
                      default_user: str | None = None,
                      cancelled: Callable[[], bool] = lambda: False,
                      progress: Callable[[int, int], None] | None = None) -> TranscriptReport:
    """Queue every readable turn of ``stream`` as a write-path job."""
    report = TranscriptReport()
    queue = JobQueue(store)
    batch: list[Turn] = []

    def flush() -> None:
        if not batch:
            return
        with store.write() as conn:
            ids = [queue.enqueue_in(conn, t) for t in batch]
        report.job_ids += ids
        report.queued += len(ids)
        batch.clear()
        if progress is not None:
            progress(report.queued, 0)

    for n, raw in lines_of(stream):
        if cancelled():
            report.cancelled = True
            break
        try:
            if isinstance(raw, ValidationError):
                raise raw
            batch.append(turn_of(raw, default_user))
        except MemdeskError as exc:
            report.bad.append((n, str(exc)))
            continue
        if len(batch) >= BATCH:
            flush()
    flush()
    return report
