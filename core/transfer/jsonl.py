"""memdesk's own exchange format: JSON Lines, one memory per line, every field.

A line is a JSON object whose keys are the store's fields in schema order (``seq`` and
``version``, one store's row number and edit counter, are not part of a memory and are
left out).  Times are ISO-8601 UTC with microseconds and a ``Z``; ``embedding``,
present only when asked for, is the little-endian float32 blob in base64.  Numbers are
written with Python's shortest round-tripping ``repr``, so export -> import -> export
is byte-identical.

Lines are ordered by ``seq`` except that a memory is written after the memory that
superseded it, so an importer reading top to bottom always finds a supersede link's
target already there.  On a store whose links all point backwards (every store this
importer wrote) that order is plain ``seq`` order, which is what makes the round trip
exact.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from sqlalchemy import func, null, select

from memdesk.core.errors import ValidationError
from memdesk.core.store.models import Memory
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.store.records import DATETIME_FIELDS, RECORD_COLUMNS
from memdesk.core.store.vectors import record_columns
from memdesk.core.taxonomy import check_count
from memdesk.core.transfer import checks
from memdesk.core.transfer.importer import (
    STORE_LOCAL,
    Candidate,
    Source,
    TransferError,
    check_text_value,
    check_vector,
)

M = Memory.__table__.c

# Every field of a memory, in schema order; a new column is exported automatically.
FIELDS: tuple[str, ...] = tuple(c for c in RECORD_COLUMNS if c not in STORE_LOCAL)
STRING_FIELDS = frozenset({
    "id", "user_id", "text", "type", "topic", "source_session", "agent_id", "run_id",
    "superseded_by", "entity", "attribute", "value", "layer", "framing",
})
NUMBER_FIELDS = frozenset({"importance", "confidence", "decay_score"})
MODEL_KEY = "embedding_model"  # not a memory field: where a line's vector came from
# A line longer than this is refused unread (the largest valid memory is ~0.5 MB of
# text plus a few KB of embedding); it keeps one runaway line from eating the memory.
MAX_LINE_BYTES = 8 * 1024 * 1024

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]


# -- encoding -------------------------------------------------------------------------
def format_time(value: datetime) -> str:
    """Stored times are naive UTC; written with a Z so other tools read them right."""
    return value.isoformat(timespec="microseconds") + "Z"


# JSON allows these raw inside strings, but many line readers (Python's str.splitlines,
# editors, JavaScript before ES2019) treat them as line ends; escaped, every reader
# sees one memory per line.  They can only occur inside strings, so this is safe.
_LINE_BREAKERS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def encode_row(row: dict[str, Any], *, with_embedding: bool,
               model: str | None = None) -> bytes:
    """One memory as one line of UTF-8 JSON (with the trailing newline).

    With the embedding comes ``embedding_model``, the model the store recorded for its
    vectors (null when it recorded none): vectors of different models are not
    comparable, so an importer must know where a vector came from.
    """
    out: dict[str, Any] = {}
    for name in FIELDS:
        v = row[name]
        if name == "embedding":
            if not with_embedding:
                continue
            out[name] = base64.b64encode(bytes(v)).decode("ascii") if v is not None else None
            out[MODEL_KEY] = model if v is not None else None
            continue
        if isinstance(v, datetime):
            v = format_time(v)
        out[name] = v
    # allow_nan=False: the store never holds NaN, and a file that claims to be JSON
    # must not contain the non-standard NaN token.
    text = json.dumps(out, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return (text.translate(_LINE_BREAKERS) + "\n").encode("utf-8")


# -- decoding -------------------------------------------------------------------------
def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_line(raw: bytes) -> dict[str, Any]:
    """Parse one line's bytes into a field dict; ValueError with a readable reason."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
        ) from None
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg} (column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:  # NaN/Infinity, absurd nesting or digits
        raise ValueError(f"not acceptable JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {_json_kind(data)}")
    return data


def _json_kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, int | float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


def decode_fields(data: dict[str, Any]) -> dict[str, Any]:
    """Check JSON types field by field and turn a line's object into store values.

    The store's own validation (ranges, types, lengths) runs afterwards; this layer
    catches what JSON allows but the format does not: numbers given as strings,
    unknown keys, times that are not text, embeddings that are not float32 base64.
    ``embedding_model`` is passed through for the importer's vector check.
    """
    unknown = sorted(set(data) - set(FIELDS) - {MODEL_KEY})
    if unknown:
        raise ValidationError(unknown[0], "is not a memory field")
    out: dict[str, Any] = {}
    for name, v in data.items():
        if v is None:
            out[name] = None
        elif name in STRING_FIELDS or name == MODEL_KEY:
            if not isinstance(v, str):
                raise ValidationError(name, f"must be a string, got {_json_kind(v)}")
            check_text_value(name, v)
            out[name] = v
        elif name in NUMBER_FIELDS:
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise ValidationError(name, f"must be a number, got {_json_kind(v)}")
            if isinstance(v, float) and not math.isfinite(v):
                raise ValidationError(name, f"must be a finite number, got {v}")
            out[name] = float(v)
        elif name == "access_count":
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValidationError(name, f"must be a whole number, got {_json_kind(v)}")
            out[name] = check_count(name, v)  # the store's own limit, on both backends
        elif name in DATETIME_FIELDS:
            out[name] = parse_time(name, v)
        elif name == "embedding":
            out[name] = decode_embedding(v)
        else:  # a column added later: the store's validation decides
            out[name] = v
    return out


def parse_time(name: str, v: Any) -> datetime:
    """ISO-8601 text; an offset or Z is converted to UTC, no offset means UTC."""
    if not isinstance(v, str):
        raise ValidationError(name, f"must be an ISO-8601 time string, got {_json_kind(v)}")
    try:
        t = datetime.fromisoformat(v)
    except ValueError:
        raise ValidationError(name, f"not an ISO-8601 time: {v[:60]!r}") from None
    if t.tzinfo is not None:
        t = t.astimezone(UTC).replace(tzinfo=None)
    return t


def decode_embedding(v: Any) -> bytes:
    """Base64 of little-endian float32 values, all finite."""
    if not isinstance(v, str):
        raise ValidationError("embedding", f"must be base64 text, got {_json_kind(v)}")
    try:
        blob = base64.b64decode(v, validate=True)
    except (binascii.Error, ValueError):
        raise ValidationError("embedding", "is not valid base64") from None
    check_vector(blob)
    return blob


# -- reading lines --------------------------------------------------------------------
@dataclass(frozen=True)
class Line:
    """One line of input: its 1-based number, its bytes (None when too long) and where
    the reader stands in the input afterwards (bytes, for progress)."""

    number: int
    raw: bytes | None
    position: int


def read_lines(stream: IO[bytes], max_bytes: int | None = None) -> Iterator[Line]:
    """Split on ``\\n`` only: U+2028 and friends may appear raw inside JSON strings.

    Blank lines are skipped (they still count for numbering); a line over ``max_bytes``
    is yielded with ``raw=None`` and the reader skips to the next newline.
    """
    max_bytes = max_bytes or MAX_LINE_BYTES
    number = 0
    position = 0
    while True:
        chunk = stream.readline(max_bytes + 1)
        if not chunk:
            return
        number += 1
        position += len(chunk)
        if len(chunk) > max_bytes and not chunk.endswith(b"\n"):
            while True:  # discard the rest of the over-long line
                rest = stream.readline(1024 * 1024)
                position += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
            yield Line(number, None, position)
            continue
        body = chunk.rstrip(b"\r\n")
        if body.strip():
            yield Line(number, body, position)


class JsonlSource(Source):
    """memdesk JSON Lines from a binary stream; progress in bytes when the size is known."""

    unit = "line"
    kind = "memdesk JSON Lines"

    def __init__(self, stream: IO[bytes], *, label: str = "", total: int = 0) -> None:
        super().__init__()
        self.stream, self.label, self.total = stream, label, total

    def __iter__(self) -> Iterator[Candidate]:
        for line in read_lines(self.stream):
            if line.raw is None:
                yield Candidate(line.number, None,
                                f"longer than {MAX_LINE_BYTES:,} bytes; not read",
                                line.position)
                continue
            try:
                data = parse_line(line.raw)
                if checks.KEY in data:  # a recall check line (core/transfer/checks.py)
                    item = checks.decode(data, parse_time)
                    yield Candidate(line.number, None, None, line.position, item.id, item)
                    continue
                values = decode_fields(data)
            except (ValueError, ValidationError) as exc:
                yield Candidate(line.number, None, str(exc), line.position)
                continue
            yield Candidate(line.number, values, None, line.position)


# -- exporting ------------------------------------------------------------------------
ALL_STATUSES = tuple(Status)


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote: ``dangling`` counts memories whose supersede link points at
    a memory outside the exported set (a filtered export)."""

    written: int
    dangling: int
    cancelled: bool = False
    checks: int = 0  # recall checks written after the memories


def export_filter(flt: MemoryFilter | None) -> MemoryFilter:
    """An export includes soft-deleted rows unless statuses are chosen: it is a copy."""
    flt = flt or MemoryFilter()
    return flt if flt.statuses else flt.with_(statuses=ALL_STATUSES)


def export_jsonl(
    store: Any,
    out: IO[bytes],
    flt: MemoryFilter | None = None,
    *,
    with_embeddings: bool = False,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> ExportReport:
    """Write the memories ``flt`` selects to ``out``; one read transaction, so the file
    is a consistent snapshot even while agents write."""
    flt = export_filter(flt)
    clauses = flt.clauses(store.dialect)
    # Vectors are read (from their own table) only when they are exported.
    cols = (record_columns(RECORD_COLUMNS) if with_embeddings else
            [null().label(c) if c == "embedding" else M[c] for c in RECORD_COLUMNS])
    written = dangling = 0
    with store.read() as conn:
        model = None
        if with_embeddings:
            from memdesk.core.write.embed import recorded_space

            space = recorded_space(conn)
            model = space.model if space else None
        total = int(conn.execute(
            select(func.count()).select_from(Memory.__table__).where(*clauses)
        ).scalar_one())
        # Selected ids that some selected row names as its replacement: only these can
        # make a row wait; a link to a row outside the selection is written as it is.
        linked = select(M.superseded_by).where(*clauses, M.superseded_by.is_not(None))
        inside = set(conn.execute(select(M.id).where(*clauses, M.id.in_(linked))).scalars())
        emitted: set[str] = set()
        held: dict[str, list[dict[str, Any]]] = {}
        result = conn.execute(select(*cols).where(*clauses).order_by(M.seq))

        def emit(row: dict[str, Any]) -> None:
            nonlocal written
            stack = [row]
            while stack:
                r = stack.pop()
                out.write(encode_row(r, with_embedding=with_embeddings, model=model))
                written += 1
                if r["id"] in inside:
                    emitted.add(r["id"])
                    stack.extend(reversed(held.pop(r["id"], [])))  # popped in seq order
                if progress and written % 1000 == 0:
                    progress(written, total)

        for n, rec in enumerate(result):
            if cancelled and n % 256 == 0 and cancelled():
                return ExportReport(written, dangling, cancelled=True)
            row = dict(rec._mapping)
            target = row["superseded_by"]
            if target is not None:
                if target not in inside:
                    dangling += 1
                elif target not in emitted:
                    held.setdefault(target, []).append(row)
                    continue
            emit(row)
        # Nothing is left unless the store holds a supersede cycle; never drop a row.
        rest = sorted((r for rows in held.values() for r in rows), key=lambda r: r["seq"])
        held.clear()
        for row in rest:
            emit(row)
        # The recall checks of the users exported (all when no user is chosen), last:
        # they name memories, and an importer reads those first.
        from memdesk.core.store.recall_checks import list_in

        kept = list_in(conn, user_ids=flt.user_ids or None)
        for check in kept:
            out.write(_line(checks.encode(check, format_time)))
    if progress:
        progress(written, total)
    return ExportReport(written, dangling, checks=len(kept))


def _line(obj: dict[str, Any]) -> bytes:
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return (text.translate(_LINE_BREAKERS) + "\n").encode("utf-8")


def export_to_file(
    store: Any,
    path: Path,
    flt: MemoryFilter | None = None,
    *,
    with_embeddings: bool = False,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> ExportReport:
    """Export to ``path`` through a temporary file next to it, renamed when complete: a
    failed or cancelled export never leaves half a file nor replaces the previous one.
    Refuses the store's own file (an easy slip in a save dialog)."""
    from memdesk.core.store.db import sqlite_path

    path = Path(path).expanduser()
    store_file = sqlite_path(store.url)
    if store_file is not None and path.resolve() in {
        Path(str(store_file) + s).resolve() for s in ("", "-wal", "-shm")
    }:
        raise TransferError(f"{path} is the store itself; choose another file.")
    if path.is_dir():
        raise TransferError(f"{path} is a folder; give a file name.")
    if not path.parent.exists():
        raise TransferError(f"The folder {path.parent} does not exist.")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    except OSError as exc:
        raise TransferError(f"Cannot write in {path.parent}: {exc.strerror}.") from None
    try:
        with os.fdopen(fd, "wb") as f:
            report = export_jsonl(store, f, flt, with_embeddings=with_embeddings,
                                  progress=progress, cancelled=cancelled)
            f.flush()
            os.fsync(f.fileno())
        if report.cancelled:
            os.unlink(tmp)
        else:
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)  # as a plain open() would have created it
            os.replace(tmp, path)
        return report
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise TransferError(f"Cannot write {path}: {exc.strerror or exc}.") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
