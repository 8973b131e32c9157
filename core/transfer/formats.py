"""Which importer reads a given input: memdesk JSON Lines, a Mem0 export or a Recall
SQLite file, told apart by their first bytes when the operator does not say."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import IO

from memdesk.core.transfer.importer import Source, TransferError
from memdesk.core.transfer.recall import SQLITE_MAGIC


class Format(StrEnum):
    AUTO = "auto"
    JSONL = "jsonl"
    MEM0 = "mem0"
    RECALL = "recall"


# A Mem0 get_all export is one JSON document: {"results": [...]} or a bare list.
# memdesk's JSON Lines start with {"id": ...}; only Mem0 starts with a "results" key.
_MEM0_START = re.compile(rb'^\s*(\[|\{\s*"results"\s*:)')


def sniff(head: bytes) -> Format:
    """The format of an input from its first bytes (a few KB are plenty)."""
    if head.startswith(SQLITE_MAGIC):
        return Format.RECALL
    if _MEM0_START.match(head.lstrip(b"\xef\xbb\xbf")):
        return Format.MEM0
    return Format.JSONL


@contextmanager
def open_source(
    target: str | Path, fmt: Format | str = Format.AUTO, *, default_user: str | None = None,
    stdin: IO[bytes] | None = None,
) -> Iterator[Source]:
    """Open ``target`` (a path, or ``-`` for standard input) as an import source."""
    from memdesk.core.transfer.jsonl import JsonlSource
    from memdesk.core.transfer.mem0 import Mem0Source
    from memdesk.core.transfer.recall import RecallSource

    fmt = Format(fmt)
    if str(target) == "-":
        stream = stdin or sys.stdin.buffer
        if fmt is Format.AUTO:
            fmt = sniff(stream.peek(4096)[:4096]) if hasattr(stream, "peek") else Format.JSONL
        if fmt is Format.RECALL:
            raise TransferError("A Recall SQLite file cannot be read from standard input; "
                                "give its path instead of -.")
        if fmt is Format.MEM0:
            yield Mem0Source(stream, label="standard input", default_user=default_user)
        else:
            yield JsonlSource(stream, label="standard input")
        return
    path = Path(target)
    if not path.exists():
        raise TransferError(f"There is no file {path}.")
    if path.is_dir():
        raise TransferError(f"{path} is a folder, not a file to import.")
    try:
        if fmt is Format.AUTO:
            with path.open("rb") as f:
                fmt = sniff(f.read(4096))
        if fmt is Format.RECALL:
            src = RecallSource(path, label=str(path))
            try:
                yield src
            finally:
                src.close()
            return
        with path.open("rb") as f:
            if fmt is Format.MEM0:
                yield Mem0Source(f, label=str(path), default_user=default_user)
            else:
                yield JsonlSource(f, label=str(path), total=path.stat().st_size)
    except PermissionError:
        raise TransferError(f"Cannot read {path}: permission denied.") from None
    except IsADirectoryError:
        raise TransferError(f"{path} is a folder, not a file to import.") from None
