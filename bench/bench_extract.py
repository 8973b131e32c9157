"""Offline extractor quality: precision and recall on a labelled set of turns.

    python bench/bench_extract.py [--data bench/data/extract_set.jsonl] [--verbose]
                                  [--semantic] [--loose] [--split NAME ...]

Each turn of the set (``bench/data/extract_set.jsonl``, written for this benchmark) has a
category and the units it should give: type, entity, attribute, value, framing, and for
units without a triple a word their text must contain (``text_has``) or a confidence
ceiling (``max_confidence``, for hedged statements); an event may give the day it
resolves to (``when_start``, ISO) against the turn's session time (``said_at``, ISO,
optional).  A turn written as a near-miss (something said that must not become a fact
about the user: reported speech, a question, a plan not done…) names its kind in
``near_miss`` (optional, for reading the set; the score does not use it).  Texts need not
match.

- precision: produced units that match an expected one, over every produced unit (a
  produced unit matching none is a false fact; turns that should give nothing count);
- recall: expected units produced, over the expected units of English turns.

Turns are split: ``dev`` (written with the extractor in view) and ``heldout``,
``heldout2`` … ``heldout11`` (each written after the extractor's previous version and
scored once before any change for it; that first score is the estimate for phrasings
nobody has seen, recorded in docs/benchmarks.md).  Every split is printed; ``--split``
scores only the named ones (to score a new split once, on its own).

Values are compared casefolded, without a leading article or possessive, the last word
singular ("peanut" = "peanuts").  Each expected unit matches at most one produced unit.
The benchmark prints a table per category, the totals, the per-turn time, and exits 1 when
a target (precision >= 0.95, recall >= 0.80) is missed.  Run it from another checkout
(e.g. ``cd /path/to/older/memdesk && python /path/to/bench_extract.py --data …``) to
score that checkout's extractor on the same set.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).parent))

from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.units import Turn, Unit

DATA = Path(__file__).parent / "data" / "extract_set.jsonl"
PRECISION_TARGET, RECALL_TARGET = 0.95, 0.80


def norm(value: str | None) -> str | None:
    if value is None:
        return None
    v = " ".join(value.casefold().replace("’", "'").split()).strip(" .'\"")
    v = re.sub(r"^(?:a|an|the|my|their|some)\s+", "", v)
    words = v.split()
    if words and len(words[-1]) > 3 and words[-1].endswith("s") and not words[-1].endswith(
            ("ss", "us", "is")):
        words[-1] = words[-1][:-1]
    return " ".join(words)


LOOSE = False  # --loose: attribute names and framing not compared (see main)


def matches(unit: Unit, want: dict[str, Any]) -> bool:
    if LOOSE:
        # Naming aside: a hypothetical is any unit at confidence <= 0.3.
        hyp = want.get("framing") is not None
        if unit.type != want["type"] or hyp != (unit.confidence <= 0.3):
            return False
    elif unit.type != want["type"] or getattr(unit, "framing", None) != want.get("framing"):
        return False
    for key in ("entity",) if LOOSE else ("entity", "attribute"):
        got, exp = getattr(unit, key), want.get(key)
        if (got or None) is None and exp is None:
            continue
        if got is None or exp is None or got.casefold() != exp.casefold():
            return False
    if norm(unit.value) != norm(want.get("value")):
        return False
    if "max_confidence" in want and unit.confidence > want["max_confidence"]:
        return False
    if "when_start" in want:
        when = getattr(unit, "when", None)
        if when is None or when.start is None or when.start.isoformat() != want["when_start"]:
            return False
    return not ("text_has" in want and want["text_has"].casefold() not in unit.text.casefold())


def score(turn: dict[str, Any], units: list[Unit]) -> tuple[int, int, list[Unit]]:
    """(produced units matched, expected units matched, the false units)."""
    left = list(turn["expect"])
    false: list[Unit] = []
    for u in units:
        hit = next((w for w in left if matches(u, w)), None)
        if hit is None:
            false.append(u)
        else:
            left.remove(hit)
    return len(units) - len(false), len(turn["expect"]) - len(left), false


def rules_extractor(parser: bool) -> Any:
    """The offline extractor; an older checkout's takes no ``parser`` (and has none)."""
    try:
        return HeuristicExtractor(parser=parser)  # type: ignore[call-arg,unused-ignore]
    except TypeError:
        return HeuristicExtractor()


def make_turn(t: dict[str, Any]) -> Turn:
    """The set's turn, with its session time where it has one (and the checkout can)."""
    if t.get("said_at"):
        try:
            return Turn(t["text"], "bench-user", said_at=datetime.fromisoformat(t["said_at"]))
        except TypeError:
            pass
    return Turn(t["text"], "bench-user")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--verbose", action="store_true", help="list false and missed units")
    ap.add_argument("--semantic", action="store_true",
                    help="also gate clauses with the MiniLM prototype classifier")
    ap.add_argument("--split", action="append", default=None,
                    help="score only this split (repeatable), e.g. a new blind one")
    ap.add_argument("--loose", action="store_true",
                    help="ignore attribute names and framing (compare type, entity, value)")
    ap.add_argument("--no-parser", action="store_true",
                    help="the rules only, without spaCy's dependency parser")
    args = ap.parse_args(argv)
    global LOOSE
    LOOSE = args.loose
    turns = [json.loads(line) for line in args.data.read_text("utf-8").splitlines() if line]
    if args.split:
        turns = [t for t in turns if t.get("split") in args.split]
        if not turns:
            print(f"no turns in split(s) {', '.join(args.split)} of {args.data.name}")
            return 2
    if args.semantic:
        from extract_semantic_gate import SemanticExtractor
        extractor: Any = SemanticExtractor(HeuristicExtractor())
        extractor.warm()
    else:
        extractor = rules_extractor(not args.no_parser)
    stats: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    splits: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    times: list[float] = []
    english_notes = 0
    for t in turns:
        t0 = time.perf_counter()
        out = extractor.extract(make_turn(t))
        times.append((time.perf_counter() - t0) * 1000)
        good, found, false = score(t, out.units)
        for s in (stats[t["category"]], splits[t.get("split", "all")]):
            s[0] += 1
            s[1] += len(out.units)
            s[2] += good
            if t["language"] == "en":
                s[3] += len(t["expect"])
                s[4] += found
        if t["language"] != "en" and any("English only" in n for n in out.notes):
            english_notes += 1
        if args.verbose and (false or found < len(t["expect"])):
            print(f"[{t['id']} {t['category']}] {t['text']}")
            for u in false:
                print(f"   FALSE  {u.type} {(u.entity, u.attribute, u.value)} "
                      f"{getattr(u, 'framing', None)} {u.confidence} | {u.text}")
            for w in t["expect"]:
                if not any(matches(u, w) for u in out.units):
                    print(f"   MISSED {w}")
    print(f"extract benchmark  {datetime.now(UTC):%Y-%m-%d %H:%M} UTC  "
          f"{platform.machine()} {os.cpu_count()} cores  python {platform.python_version()}"
          f"  load average {os.getloadavg()[0]:.2f}")
    parser = getattr(extractor, "parser", None)
    print(f"{len(turns)} turns from {args.data.name}; extractor "
          f"{'heuristic + MiniLM prototypes' if args.semantic else 'heuristic'}"
          f" ({parser.name if parser is not None else 'rules only'})"
          + ("; loose matching (no attribute names, no framing)" if LOOSE else ""))
    print(f"{'category':<16}{'turns':>6}{'expect':>8}{'made':>6}{'precision':>11}{'recall':>8}")
    tot = [0, 0, 0, 0, 0]
    for cat in sorted(stats):
        s = stats[cat]
        tot = [a + b for a, b in zip(tot, s, strict=True)]
        prec = f"{s[2] / s[1]:.3f}" if s[1] else "—"
        rec = f"{s[4] / s[3]:.3f}" if s[3] else "—"
        print(f"{cat:<16}{s[0]:>6}{s[3]:>8}{s[1]:>6}{prec:>11}{rec:>8}")
    precision = tot[2] / tot[1] if tot[1] else 1.0
    recall = tot[4] / tot[3] if tot[3] else 1.0
    print(f"{'all':<16}{tot[0]:>6}{tot[3]:>8}{tot[1]:>6}{precision:>11.3f}{recall:>8.3f}")
    for name, s in sorted(splits.items()):
        print(f"{'  ' + name + ' turns':<16}{s[0]:>6}{s[3]:>8}{s[1]:>6}"
              f"{s[2] / max(s[1], 1):>11.3f}{s[4] / max(s[3], 1):>8.3f}")
    others = sum(1 for t in turns if t["language"] != "en")
    print(f"false facts: {tot[1] - tot[2]}; other-language turns whose notes say "
          f"'English only': {english_notes}/{others}")
    times.sort()
    print(f"per turn: p50 {statistics.median(times):.3f} ms, "
          f"p95 {times[int(0.95 * (len(times) - 1))]:.3f} ms")
    ok = precision >= PRECISION_TARGET and recall >= RECALL_TARGET
    print(f"targets precision >= {PRECISION_TARGET}, recall >= {RECALL_TARGET}: "
          f"{'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
