"""Previewing an import, and importing "without the duplicates" a preview found.

:func:`preview_import` reads the file once (streaming, :mod:`reading`), then compares
its items with the store user by user (:mod:`comparing`), and returns an
:class:`ImportPreview`.  It only reads the store: no transaction it opens writes, no
setting, log or audit row is touched, and the items wait in a temporary file outside
the store (:mod:`scratch`).  Cancelling stops it between batches; nothing was written
before either.

:func:`import_without_duplicates` runs the ordinary importer (one audited, undoable
group) over the same file, leaving out the items the preview counted as duplicates.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from memdesk.core.errors import MemdeskError
from memdesk.core.preview.comparing import compare
from memdesk.core.preview.reading import Reader, Vectors
from memdesk.core.preview.report import ImportPreview, Item
from memdesk.core.preview.scratch import Scratch
from memdesk.core.preview.verdicts import judge_turn
from memdesk.core.transfer import formats
from memdesk.core.transfer.importer import (
    Candidate,
    Importer,
    ImportReport,
    OnExisting,
    Source,
    TransferError,
)
from memdesk.core.transfer.recall import SQLITE_MAGIC

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]
TRANSCRIPT = "transcript"
READ_SHARE = 850  # of 1,000: the progress the reading pass takes when the size is known
NOT_FOR_TRANSCRIPTS = ("a transcript's memories are extracted from its turns by the "
                       "worker after the import, so they cannot be compared before")


def _stamp(target: str | Path) -> tuple[int, int] | None:
    if str(target) == "-":
        return None
    try:
        st = Path(target).stat()
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


def check_not_binary(target: str | Path, fmt: str) -> None:
    """A file that is neither a SQLite file nor text (NUL bytes in its first 4 KB) is not
    memories in any format memdesk reads: one clear message instead of a bad line each."""
    if str(target) == "-" or fmt not in ("auto", "jsonl", "mem0", TRANSCRIPT):
        return
    try:
        with Path(target).open("rb") as f:
            head = f.read(4096)
    except OSError:
        return  # open_source says what is wrong with it
    if b"\x00" in head and not head.startswith(SQLITE_MAGIC):
        raise TransferError(
            f"{target} is a binary file, not memories: memdesk imports its JSON Lines, a "
            "Mem0 export (JSON), a Recall SQLite file or a transcript (JSON Lines).")


def preview_import(
    store: Any, target: str | Path, fmt: str = "auto", *, default_user: str | None = None,
    on_existing: OnExisting = "skip", embedder: Any = None, threshold: float | None = None,
    progress: Progress | None = None, cancelled: Cancelled | None = None,
    stdin: IO[bytes] | None = None,
) -> ImportPreview:
    """What importing ``target`` (a path, or ``-``) into ``store`` would do.

    Raises :class:`TransferError` when the input cannot be read at all (missing, a
    folder, binary, not memories in this format); everything else is in the preview,
    including what could not be computed and why."""
    from memdesk.core import embeddings

    started = time.monotonic()
    stop: Cancelled = cancelled or (lambda: False)
    check_not_binary(target, fmt)
    preview = ImportPreview(label="standard input" if str(target) == "-" else str(target),
                            file_stamp=_stamp(target))
    if fmt == TRANSCRIPT:
        _preview_transcript(target, preview, default_user, progress, stop, stdin)
    else:
        embedder = embedder or embeddings.default_embedder()
        with formats.open_source(target, fmt, default_user=default_user, stdin=stdin) as source, \
                Scratch() as scratch:
            known = source.total > 0

            def reading(done: int, total: int) -> None:
                if progress:
                    progress(done * READ_SHARE // total if known else done,
                             1000 if known else 0)

            def comparing(done: int, total: int) -> None:
                if progress and known:
                    progress(READ_SHARE + done * (1000 - READ_SHARE) // max(total, 1), 1000)

            vectors = Vectors.for_store(store, embedder)
            Reader(store, scratch, preview, vectors, on_existing=on_existing).run(
                source, reading, stop)
            if not preview.cancelled:
                reading(source.total, source.total or 1)
                compare(store, scratch, preview, threshold=threshold, progress=comparing,
                        cancelled=stop)
            preview.vectors = vectors.describe()
            if vectors.off:
                preview.duplicates.partial = ("only equal texts were compared: "
                                              + vectors.off.split(";")[0])
    preview.seconds = time.monotonic() - started
    return preview


def _preview_transcript(target: str | Path, preview: ImportPreview,
                        default_user: str | None, progress: Progress | None,
                        cancelled: Cancelled, stdin: IO[bytes] | None) -> None:
    """A transcript's turns: readable or not, and the guard's verdict on each (the
    worker screens the units it extracts with the turn they came from)."""
    import sys

    from memdesk.core.transfer.transcript import lines_of, turn_of

    preview.kind, preview.unit = "transcript", "line"
    preview.duplicates.not_computed = NOT_FOR_TRANSCRIPTS
    preview.contradictions.not_computed = NOT_FOR_TRANSCRIPTS
    preview.vectors = "not needed (nothing is compared before the worker extracts)"
    path = None if str(target) == "-" else Path(target)
    if path is not None and not path.is_file():
        raise TransferError(f"There is no file {path}." if not path.exists()
                            else f"{path} is a folder, not a file to import.")
    total = path.stat().st_size if path is not None else 0
    stream: IO[bytes] = path.open("rb") if path is not None else (stdin or sys.stdin.buffer)
    try:
        for n, raw in lines_of(stream):
            if cancelled():
                preview.cancelled = True
                break
            preview.items += 1
            preview.stopped_at = n
            try:
                if isinstance(raw, MemdeskError):
                    raise raw
                turn = turn_of(raw, default_user)
            except MemdeskError as exc:
                preview.add_bad(Item(n, None, str(exc)))
                continue
            preview.would_add += 1
            verdict = judge_turn(turn.text, turn.user_id)
            if verdict.held or verdict.secret:
                preview.add_flagged(Item(n, None, verdict.reason, verdict.rules),
                                    verdict.secret, verdict.held)
            if progress and n % 500 == 0:
                progress(stream.tell() * 1000 // total if total else n, 1000 if total else 0)
    finally:
        if path is not None:
            stream.close()


class WithoutDuplicates(Source):
    """``inner`` without the items whose numbers are in ``skip`` (counted)."""

    def __init__(self, inner: Source, skip: set[int]) -> None:
        super().__init__()
        self.inner, self.skip, self.skipped = inner, skip, 0
        self.unit, self.kind, self.total, self.label = (inner.unit, inner.kind, inner.total,
                                                        inner.label)
        self.dropped = inner.dropped  # the importer reads it after the pass
        self.path = getattr(inner, "path", None)

    def __iter__(self) -> Iterator[Candidate]:
        for cand in self.inner:
            if cand.number in self.skip:
                self.skipped += 1
                continue
            yield cand


def import_without_duplicates(
    store: Any, target: str | Path, preview: ImportPreview, fmt: str = "auto", *,
    default_user: str | None = None, on_existing: OnExisting = "skip",
    note: str | None = None, keep_ids: bool = False, progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> ImportReport:
    """Import ``target`` as the importer does, leaving out what ``preview`` (of this
    same file, unchanged since) counted as duplicates."""
    if str(target) == "-":
        raise TransferError("Importing without the duplicates reads the file twice "
                            "(preview, then import): give a file, not standard input.")
    if fmt == TRANSCRIPT:
        raise TransferError("A transcript's duplicates are found after the worker "
                            "extracts its memories; import it whole.")
    if preview.cancelled:
        raise TransferError("The preview was cancelled: preview the whole file first.")
    if _stamp(target) != preview.file_stamp:
        raise TransferError(f"{target} changed since it was previewed; preview it again.")
    with formats.open_source(target, fmt, default_user=default_user) as source:
        filtered = WithoutDuplicates(source, preview.skip)
        importer = Importer(store, on_existing=on_existing, keep_ids=keep_ids,
                            note=note or f"import from {target} ({source.kind}), "
                                         "without the duplicates")
        report = importer.run(filtered, progress=progress, cancelled=cancelled)
    report.skipped_duplicates = filtered.skipped
    return report
