"""The secrets lane: what it catches and what it leaves alone (docs/guarantees.md).

    .venv/bin/python bench/bench_secrets.py [--misses]

On the labelled corpus of bench/secrets_corpus.py (sentences as users type them, made-up
values), for each split — ``tune`` (what the detector was tuned on) and ``held_out``
(disjoint templates and seeds, only measured) —:

- per category, the share of secrets caught (a hit of that category in the sentence);
- the share of look-alikes held (any hit at all), per kind and overall;
- the time :func:`find_secrets` takes per sentence (median of 5 passes).

Targets: ≥ 95 % of secrets caught, ≤ 2 % of look-alikes held.  ``--misses`` prints
what was missed and what was held on the tune split (never tune on the held-out one).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine
from bench.secrets_corpus import Item, corpus
from memdesk.core.guard.secrets import find_secrets


def measure(items: list[Item]) -> tuple[dict[str, list[int]], dict[str, list[int]],
                                          list[tuple[Item, str]]]:
    caught: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    held: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    wrong: list[tuple[Item, str]] = []
    for it in items:
        hits = find_secrets(it.text)
        cats = {h.category.value for h in hits}
        if it.category is None:
            held[it.kind][1] += 1
            if hits:
                held[it.kind][0] += 1
                wrong.append((it, "held: " + ", ".join(f"{h.category.value} {h.value!r}"
                                                       for h in hits)))
        else:
            caught[it.category][1] += 1
            if it.category in cats:
                caught[it.category][0] += 1
            else:
                wrong.append((it, f"missed (found {sorted(cats) or 'nothing'})"))
    return caught, held, wrong


def pct(n: int, d: int) -> str:
    return f"{100 * n / d:5.1f} %" if d else "   - "


def main() -> None:
    show_misses = "--misses" in sys.argv
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"# secrets lane · {machine()} · nproc {os.cpu_count()} · "
          f"{datetime.now():%Y-%m-%d %H:%M}\n# uptime: {load}\n")
    for split in ("tune", "held_out"):
        items = corpus(split)
        caught, held, wrong = measure(items)
        n_sec = sum(d for _, d in caught.values())
        n_look = sum(d for _, d in held.values())
        print(f"## {split}: {n_sec} secrets, {n_look} look-alikes")
        print(f"{'category':<16} {'caught':>8} {'of':>5}")
        for cat, (n, d) in sorted(caught.items()):
            print(f"{cat:<16} {pct(n, d):>8} {d:>5}")
        all_caught = sum(n for n, _ in caught.values())
        print(f"{'ALL SECRETS':<16} {pct(all_caught, n_sec):>8} {n_sec:>5}")
        print(f"\n{'look-alike':<18} {'held':>8} {'of':>5}")
        for kind, (n, d) in sorted(held.items()):
            print(f"{kind:<18} {pct(n, d):>8} {d:>5}")
        all_held = sum(n for n, _ in held.values())
        print(f"{'ALL LOOK-ALIKES':<18} {pct(all_held, n_look):>8} {n_look:>5}")
        rounds = []
        for _ in range(5):
            t = time.perf_counter()
            for it in items:
                find_secrets(it.text)
            rounds.append((time.perf_counter() - t) / len(items) * 1000)
        print(f"\nfind_secrets: {statistics.median(rounds):.2f} ms per sentence "
              f"(median of 5 passes over {len(items)})\n")
        if show_misses and split == "tune":
            for it, why in wrong:
                print(f"  [{it.kind}] {it.text!r}: {why}")
            print()


if __name__ == "__main__":
    main()
