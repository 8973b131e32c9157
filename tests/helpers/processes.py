"""Racing work in separate processes (spawned, so each one opens the store itself, as
two memdesk programs would)."""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Sequence
from typing import Any


def run_workers(workers: Sequence[tuple[Callable[..., None], tuple[Any, ...]]], *,
                timeout: float, barrier: bool = False) -> list[Any]:
    """Run each ``(target, args)`` in its own process as ``target(*args, [start,] queue)``
    and return what each put on the queue (one report per process, ``timeout`` seconds
    each).  With ``barrier`` every target also gets a barrier ``start`` to wait on, so the
    race begins when all are ready.  A process still alive after reporting is killed,
    so a hung worker fails its test instead of hanging the run."""
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    extra = (ctx.Barrier(len(workers)),) if barrier else ()
    procs = [ctx.Process(target=target, args=(*args, *extra, q)) for target, args in workers]
    for p in procs:
        p.start()
    try:
        return [q.get(timeout=timeout) for _ in procs]
    finally:
        for p in procs:
            p.join(timeout=60)
            if p.is_alive():
                p.kill()
