"""Run a call that a bug could turn into an endless loop, so the test fails instead.

Walks along links another tool may have made cyclic (supersede chains, undo chains)
must end.  A test that simply called them would hang on such a bug until pytest's
global timeout; ``finishes`` gives it a deadline and a plain failure.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def finishes(call: Callable[[], T], seconds: float = 20.0) -> T:
    """``call()``'s result (or its exception), run on a thread with a deadline."""
    out: list[T] = []
    err: list[BaseException] = []

    def run() -> None:
        try:
            out.append(call())
        except BaseException as exc:  # handed back to the caller
            err.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        raise AssertionError(f"still running after {seconds} s: an endless walk?")
    if err:
        raise err[0]
    return out[0]
