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

Frames after the valid end that carry this generation's salts but no commit mark are
a transaction a killed writer left unfinished: dropping them is correct, and only a
note.  A frame being written while we read can look torn, so a finding is confirmed
by reading again (:func:`wal_problems`).
"""

from __future__ import annotations

import os
import struct
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

WAL_MAGIC = (0x377F0682, 0x377F0683)  # little-endian, big-endian checksums
WAL_HEADER = 32
FRAME_HEADER = 24
_MASK = 0xFFFFFFFF


@dataclass(frozen=True)
class WalScan:
    """What replaying the WAL would keep and drop (frame counts are 1-based ends)."""

    frames: int  # complete frames in the file
    replayed: int  # frames SQLite replays: up to the last valid commit frame
    lost_commits: int  # commit frames of this generation after the valid end
    lost_frames: int  # frames of this generation after the valid end
    header_ok: bool = True

    @property
    def problem(self) -> str | None:
        if not self.header_ok and self.frames:
            return (f"the write-ahead log's header is damaged: SQLite would ignore all "
                    f"{self.frames} of its frames, committed changes included")
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
    p = np.eye(2, dtype=np.uint64)
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


def scan_bytes(data: bytes) -> WalScan | None:
    """Scan WAL contents; None when there is no header (an empty or reset WAL)."""
    if len(data) < WAL_HEADER:
        return None
    magic, _version, page_size, _seq, salt1, salt2, ck1, ck2 = struct.unpack(">8I", data[:32])
    if magic not in WAL_MAGIC:
        return None if not any(data[:32]) else WalScan(0, 0, 0, 0, header_ok=False)
    order = ">" if magic & 1 else "<"
    dtype = np.dtype(np.uint32).newbyteorder(order)
    frame_size = FRAME_HEADER + page_size
    valid_page = page_size >= 512 and page_size & (page_size - 1) == 0 and page_size <= 65536
    frames = (len(data) - WAL_HEADER) // frame_size if valid_page else 0
    head_words = np.frombuffer(data[:24], dtype=dtype)
    if not valid_page or _checksum(head_words, (0, 0)) != (ck1, ck2):
        return WalScan(frames, 0, 0, 0, header_ok=False)
    if frames == 0:
        return WalScan(0, 0, 0, 0)
    body = np.frombuffer(data, dtype=np.uint8, count=frames * frame_size, offset=WAL_HEADER)
    body = body.reshape(frames, frame_size)
    headers = body[:, :FRAME_HEADER].copy().view(">u4")  # frame headers are big-endian
    pgno, commit = headers[:, 0], headers[:, 1]
    salts_ok = (headers[:, 2] == salt1) & (headers[:, 3] == salt2)
    # Checksummed per frame: the frame header's first 8 bytes, then the page.
    words = np.empty((frames, 2 + page_size // 4), dtype=np.uint64)
    words[:, :2] = body[:, :8].view(dtype)
    words[:, 2:] = body[:, FRAME_HEADER:].view(dtype)
    c0s, c1s = _checksum_terms(words[:, 0::2], words[:, 1::2])
    c0s, c1s = c0s.tolist(), c1s.tolist()
    m, _ = _frame_matrix(words.shape[1] // 2)
    m00, m01, m10, m11 = (int(v) for v in m.ravel())
    s1, s2 = ck1, ck2
    replayed = 0
    end = frames
    for i in range(frames):
        c0, c1 = c0s[i], c1s[i]
        n1 = (m00 * s1 + m01 * s2 + c0) & _MASK
        n2 = (m10 * s1 + m11 * s2 + c1) & _MASK
        if not salts_ok[i] or pgno[i] == 0 or (n1, n2) != (int(headers[i, 4]), int(headers[i, 5])):
            end = i
            break
        s1, s2 = n1, n2
        if commit[i]:
            replayed = i + 1
    after = slice(end, frames) if end < frames else slice(frames, frames)
    lost_frames = int(np.count_nonzero(salts_ok[after]))
    lost_commits = int(np.count_nonzero(salts_ok[after] & (commit[after] != 0)))
    return WalScan(frames, replayed, lost_commits, lost_frames)


def wal_path(store_path: Path) -> Path:
    return Path(str(store_path) + "-wal")


def scan_wal(store_path: Path) -> WalScan | None:
    """Scan ``store_path``'s WAL file (None: there is none, or it is empty)."""
    try:
        with open(wal_path(store_path), "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    return scan_bytes(data)


def wal_problems(store_path: Path, *, confirm: int = 3, pause_s: float = 0.05) -> list[str]:
    """The WAL's damage as check problems (empty: none).

    A finding is read again ``confirm`` times: a writer appending a frame while we
    read, or resetting the WAL, can make one read look torn, never several in a row.
    """
    try:
        if os.stat(wal_path(store_path)).st_size < WAL_HEADER:
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
