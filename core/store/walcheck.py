"""Does the WAL hold committed changes SQLite would silently drop?

SQLite replays a write-ahead log frame by frame, checking each frame's salts and
its running checksum, and stops at the first frame that fails: everything after it
is treated as never written, without an error.  When a later frame of the same WAL
generation (same salts) *commits* a transaction, those commits are lost the moment
the next read-write connection checkpoints and resets the WAL.

:func:`scan_wal` reads the ``-wal`` file (never SQLite, never a write) and does the
replay's arithmetic itself, as SQLite's ``wal.c`` describes it: the 32-byte header
(magic, page size, salts, a checksum over its first 24 bytes), then frames of a
24-byte header plus one page, each checksummed cumulatively over the frame header's
first 8 bytes and the page.  Checksums run over 32-bit words in the byte order the
magic number names: ``s1 += x0 + s2; s2 += x1 + s1`` (mod 2**32).  That recurrence is
linear in ``(s1, s2)``, so a frame's effect is ``M @ (s1, s2) + c`` with ``M`` fixed for
the page size and ``c`` computed for every frame at once with numpy: a 16 MB WAL is
scanned in tens of milliseconds, cheap enough for every open that finds a WAL.

A frame of this generation is one with its salts, or one whose checksum continues
the frame before it (a frame whose salts were damaged still chains; a stale frame of
an older generation never chains onto a newer one, its predecessor having been
overwritten).  Frames after the valid end that belong to this generation but hold no
commit mark are a transaction a killed writer left unfinished: dropping them is
correct, and only a note.

Any non-empty WAL whose header SQLite cannot read (all zeros, random bytes, a wrong
magic number, version or page size, a header checksum that does not match, fewer
than 32 bytes) is damage: SQLite ignores such a log entirely and the next read-write
open deletes it, with every commit it holds.  SQLite itself never leaves one: a reset
rewrites a valid header, and a truncated WAL is 0 bytes.

Frames are read and checksummed 4 MB at a time, so the scan's memory is bounded
whatever the WAL's size.  A frame being written while we read can look torn, so a
finding is confirmed by reading again (:func:`wal_problems`).
"""

from __future__ import annotations

import io
import os
import struct
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO, Literal

import numpy as np

WAL_MAGIC = (0x377F0682, 0x377F0683)  # little-endian, big-endian checksums
WAL_HEADER = 32
FRAME_HEADER = 24
_MASK = 0xFFFFFFFF


@dataclass(frozen=True)
class WalScan:
    """What replaying the WAL would keep and drop (frame counts are 1-based ends).

    ``header``: why SQLite cannot read the log's header (None: it can).  SQLite then
    ignores the whole log and the next read-write open deletes it, so every frame in it
    counts as lost.
    """

    frames: int  # complete frames in the file
    replayed: int  # frames SQLite replays: up to the last valid commit frame
    lost_commits: int  # commit frames of this generation after the valid end
    lost_frames: int  # frames of this generation after the valid end
    header: str | None = None
    size: int = 0

    @property
    def header_ok(self) -> bool:
        return self.header is None

    @property
    def problem(self) -> str | None:
        if self.header is not None:
            frames = (f"{self.frames} frame(s), {self.lost_commits} of them ending a "
                      "committed transaction" if self.frames else "no complete frame")
            return (f"the write-ahead log cannot be read ({self.header}): SQLite would ignore "
                    f"all {self.size} bytes of it ({frames}) and the next read-write open "
                    "would delete it, committed changes included")
        if self.lost_commits:
            return (f"the write-ahead log holds {self.lost_commits} committed "
                    f"transaction(s) after a damaged frame ({self.lost_frames} frames after "
                    f"frame {self.replayed}); SQLite would drop them silently when the "
                    "store is next opened read-write")
        return None


@lru_cache(maxsize=8)
def _frame_matrix(pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """``A**pairs`` and the stacked powers ``A**(pairs-1-i)`` for the recurrence.

    One step maps (s1, s2) to (s1 + s2 + x0, s1 + 2*s2 + x0 + x1): A = [[1, 1], [1, 2]].
    uint64 arithmetic wraps mod 2**64, which keeps every result right mod 2**32.
    """
    a = np.array([[1, 1], [1, 2]], dtype=np.uint64)
    powers = np.empty((pairs, 2, 2), dtype=np.uint64)
    p: np.ndarray = np.eye(2, dtype=np.uint64)
    for k in range(pairs):
        powers[pairs - 1 - k] = p  # powers[i] = A**(pairs-1-i)
        p = (a @ p) & _MASK
    return p, powers


def _checksum_terms(x0: np.ndarray, x1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of word pairs (x0, x1): ``c`` with checksum = A**n @ init + c (mod 2**32).

    The step's constant term is (x0, x0 + x1); summed through the powers of A that is
    four matrix-vector products (uint64 wraps, which keeps the low 32 bits right).
    """
    _, powers = _frame_matrix(x0.shape[1])
    p00, p01, p10, p11 = powers[:, 0, 0], powers[:, 0, 1], powers[:, 1, 0], powers[:, 1, 1]
    c0 = x0 @ (p00 + p01) + x1 @ p01
    c1 = x0 @ (p10 + p11) + x1 @ p11
    return c0 & _MASK, c1 & _MASK


def _checksum(words: np.ndarray, init: tuple[int, int]) -> tuple[int, int]:
    m, _ = _frame_matrix(len(words) // 2)
    w = words.astype(np.uint64).reshape(1, -1)
    c0, c1 = (int(v[0]) for v in _checksum_terms(w[:, 0::2], w[:, 1::2]))
    s1 = (int(m[0, 0]) * init[0] + int(m[0, 1]) * init[1] + c0) & _MASK
    s2 = (int(m[1, 0]) * init[0] + int(m[1, 1]) * init[1] + c1) & _MASK
    return s1, s2


WAL_VERSION = 3007000
CHUNK_BYTES = 4 * 1024 * 1024  # frames are checksummed this many bytes at a time


def _valid_page_size(size: int) -> bool:
    return 512 <= size <= 65536 and size & (size - 1) == 0


def _header_problem(head: bytes, dtype: np.dtype) -> str | None:
    magic, version, page_size, _seq, _s1, _s2, ck1, ck2 = struct.unpack(">8I", head)
    if not any(head):
        return "its header is all zero bytes"
    if magic not in WAL_MAGIC:
        return "its header does not start with the WAL magic number"
    if version != WAL_VERSION:
        return f"its header names format version {version}, not {WAL_VERSION}"
    if not _valid_page_size(page_size):
        return f"its header names page size {page_size}"
    if _checksum(np.frombuffer(head[:24], dtype=dtype), (0, 0)) != (ck1, ck2):
        return "its header's checksum does not match"
    return None


def _read(fh: BinaryIO, n: int) -> bytes:
    out = fh.read(n)
    return out if out is not None else b""


def scan_file(fh: BinaryIO, size: int, db_page_size: int | None = None) -> WalScan | None:
    """Scan WAL contents read from ``fh`` (``size`` bytes); None for an empty WAL.

    Frames are read and checksummed :data:`CHUNK_BYTES` at a time, so memory stays
    bounded whatever the WAL's size.  ``db_page_size``: the database's page size, used
    to count frames when the header is unreadable.
    """
    if size == 0:
        return None
    head = _read(fh, WAL_HEADER)
    if len(head) < WAL_HEADER:
        return WalScan(0, 0, 0, 0, f"it is only {len(head)} bytes, shorter than a header",
                       len(head))
    magic, _v, page_size, _seq, salt1, salt2, ck1, ck2 = struct.unpack(">8I", head)
    order: Literal[">", "<"] = ">" if magic & 1 else "<"
    dtype = np.dtype(np.uint32).newbyteorder(order)
    header = _header_problem(head, dtype)
    if header is not None:
        # Count what SQLite would throw away, with the database's page size when the
        # header's own is unreadable.
        psize = page_size if _valid_page_size(page_size) else (db_page_size or 0)
        frames = commits = 0
        if _valid_page_size(psize):
            fsize = FRAME_HEADER + psize
            frames = (size - WAL_HEADER) // fsize
            for i in range(frames):
                fh.seek(WAL_HEADER + i * fsize + 4)
                commits += struct.unpack(">I", _read(fh, 4).ljust(4, b"\0"))[0] != 0
        return WalScan(frames, 0, commits, frames, header, size)
    frame_size = FRAME_HEADER + page_size
    frames = (size - WAL_HEADER) // frame_size
    if frames == 0:
        return WalScan(0, 0, 0, 0, size=size)
    m, _ = _frame_matrix((8 + page_size) // 8)
    m00, m01, m10, m11 = (np.uint64(int(v)) for v in m.ravel())
    stored = np.empty((frames, 2), dtype=np.uint64)  # each frame's checksum, as written
    linked = np.empty(frames, dtype=bool)  # frame i continues frame i-1's checksum
    salts_ok = np.empty(frames, dtype=bool)
    commit = np.empty(frames, dtype=bool)
    pgno_ok = np.empty(frames, dtype=bool)
    prev = np.array([ck1, ck2], dtype=np.uint64)
    per_chunk = max(1, CHUNK_BYTES // frame_size)
    for first in range(0, frames, per_chunk):
        n = min(per_chunk, frames - first)
        raw = _read(fh, n * frame_size)
        n = len(raw) // frame_size  # the file may have shrunk while read: stop there
        if n == 0:
            frames = first
            break
        body = np.frombuffer(raw, dtype=np.uint8, count=n * frame_size).reshape(n, frame_size)
        hdr = body[:, :FRAME_HEADER].copy().view(">u4")  # frame headers are big-endian
        # Checksummed per frame: the frame header's first 8 bytes, then the page.
        words = np.empty((n, 2 + page_size // 4), dtype=np.uint64)
        words[:, :2] = body[:, :8].view(dtype)
        words[:, 2:] = body[:, FRAME_HEADER:].view(dtype)
        c0, c1 = _checksum_terms(words[:, 0::2], words[:, 1::2])
        del words
        got = hdr[:, 4:6].astype(np.uint64)
        before = np.vstack([prev[None, :], got[:-1]])
        e0 = (m00 * before[:, 0] + m01 * before[:, 1] + c0) & _MASK
        e1 = (m10 * before[:, 0] + m11 * before[:, 1] + c1) & _MASK
        sl = slice(first, first + n)
        stored[sl] = got
        linked[sl] = (e0 == got[:, 0]) & (e1 == got[:, 1])
        salts_ok[sl] = (hdr[:, 2] == salt1) & (hdr[:, 3] == salt2)
        commit[sl] = hdr[:, 1] != 0
        pgno_ok[sl] = hdr[:, 0] != 0
        prev = got[-1]
        if n < per_chunk and first + n < frames:
            frames = first + n
            break
    valid = (salts_ok & linked & pgno_ok)[:frames]
    bad = np.flatnonzero(~valid)
    end = int(bad[0]) if bad.size else frames
    commits_before = np.flatnonzero(commit[:end])
    replayed = int(commits_before[-1]) + 1 if commits_before.size else 0
    # Frames after the valid end that belong to this generation: those with its salts,
    # and those whose checksum continues a frame of it (a frame whose salts were
    # damaged still chains; a stale frame of an older generation never chains onto a
    # newer one, its predecessor having been overwritten).
    lost_frames = lost_commits = 0
    ours = True  # the frame before the valid end (or the header) is this generation's
    for i in range(end, frames):
        ours = bool(salts_ok[i]) or (ours and bool(linked[i]))
        if ours:
            lost_frames += 1
            lost_commits += bool(commit[i])
    return WalScan(frames, replayed, lost_commits, lost_frames, size=size)


def scan_bytes(data: bytes, db_page_size: int | None = None) -> WalScan | None:
    """:func:`scan_file` over WAL contents in memory."""
    return scan_file(io.BytesIO(data), len(data), db_page_size)


def wal_path(store_path: Path) -> Path:
    return Path(str(store_path) + "-wal")


def db_page_size(store_path: Path) -> int | None:
    """The page size the database file's header names (None: unreadable)."""
    try:
        with open(store_path, "rb") as fh:
            head = fh.read(18)
    except OSError:
        return None
    if len(head) < 18:
        return None
    size = int.from_bytes(head[16:18], "big")
    return 65536 if size == 1 else size


def scan_wal(store_path: Path) -> WalScan | None:
    """Scan ``store_path``'s WAL file (None: there is none, or it is empty)."""
    try:
        with open(wal_path(store_path), "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            return scan_file(fh, size, db_page_size(store_path))
    except OSError:
        return None


def wal_problems(store_path: Path, *, confirm: int = 3, pause_s: float = 0.05) -> list[str]:
    """The WAL's damage as check problems (empty: none).

    A finding is read again ``confirm`` times: a writer appending a frame while we
    read, or resetting the WAL, can make one read look torn, never several in a row.
    """
    try:
        if os.stat(wal_path(store_path)).st_size == 0:
            return []
    except OSError:
        return []
    problem = None
    for attempt in range(max(1, confirm)):
        scan = scan_wal(store_path)
        problem = scan.problem if scan is not None else None
        if problem is None:
            return []
        if attempt + 1 < confirm:
            time.sleep(pause_s)
    return [problem] if problem else []
