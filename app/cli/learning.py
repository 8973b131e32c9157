"""CLI for what the desk learns from sweep decisions, under ``memdesk sweep``:
``estimate`` (the share of a band an operator would raise, with 95 % intervals),
``train`` (the guided-sweep model and the importance calibration), ``calibration``
(its error before/after and suggestions), ``auto-apply`` (per source) and ``calibrate``
(apply suggestions: one audited group; ``calibrate --undo GROUP`` reverts it)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from memdesk.app.cli.common import JSON_HELP, open_store, parse_range
from memdesk.app.cli.shown import cell, json_text
from memdesk.core.errors import ValidationError

if TYPE_CHECKING:
    from memdesk.core.curation.estimate import Share
    from memdesk.core.curation.mixing import PickInfo
    from memdesk.core.curation.service import Sweeps


def register_learning(ss: argparse._SubParsersAction[argparse.ArgumentParser],
                      common: argparse.ArgumentParser) -> None:
    q = ss.add_parser("estimate", parents=[common],
                      help="share of the band an operator would raise/lower (95 %% interval)")
    q.add_argument("--band", type=parse_range, metavar="LO:HI",
                   help="importance band (default: the latest whole-band sweep's)")
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_estimate)
    q = ss.add_parser("train", parents=[common],
                      help="train the guided-sweep model and the calibration on decisions")
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_train)
    q = ss.add_parser("calibration", parents=[common],
                      help="the calibration's error before/after; suggestions for memories")
    q.add_argument("memory_ids", nargs="*", help="memories to suggest an importance for")
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_calibration)
    q = ss.add_parser("auto-apply", parents=[common],
                      help="apply suggested importances to new memories of a source")
    q.add_argument("source", help="extractor name, or 'direct' (no extraction)")
    q.add_argument("state", choices=("on", "off"),
                   help="on: apply new calibrations as they are trained; off: ask first")
    q.set_defaults(handler=cmd_auto_apply)
    q = ss.add_parser("calibrate", parents=[common],
                      help="apply suggestions (given memories, or pending ones of "
                           "auto-apply sources); --undo GROUP reverts one application")
    q.add_argument("memory_ids", nargs="*",
                   help="memory ids or prefixes to calibrate (none: every one in the band)")
    q.add_argument("--undo", metavar="GROUP", help="undo the application with this group id")
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_calibrate)


def _print_json(data: Any) -> None:
    print(json_text(data, indent=1, default=str))


def picks_json(picks: dict[int, PickInfo]) -> dict[str, Any]:
    return {"picks": [{"item": p.pos + 1, "guided": p.guided, "inclusion_p": p.inclusion_p,
                       "score": p.score, "reason": p.reason}
                      for p in sorted(picks.values(), key=lambda p: p.pos)]}


def print_guidance(sweeps: Sweeps, share: str, picks: dict[int, PickInfo]) -> None:
    guided = [p for p in picks.values() if p.guided]
    if guided:
        print(f"{len(guided)} guided picks, {len(picks) - len(guided)} uniform draws "
              "(shuffled together):")
        for p in sorted(guided, key=lambda p: p.pos):
            print(f"  item {p.pos + 1}: {cell(p.reason)}")
    elif float(share or 0) > 0:
        print("All uniform: " + sweeps.guidance().message)


def _share(s: Share) -> str:
    n = f", ≈ {s.memories:,}" if s.memories is not None else ""
    return f"{s.p:6.1%} ({s.lo:.1%}–{s.hi:.1%}{n}; n={s.n})"


def cmd_estimate(args: argparse.Namespace) -> int:
    from memdesk.core.curation.service import Sweeps

    store = open_store(args, create=False)
    est = Sweeps(store).estimate(args.band)
    if args.json:
        _print_json(est.to_json())
        return 0
    print(est.headline())
    if est.raised is None:
        return 0
    print(f"method: {est.method} (95 % Wilson interval"
          + (" at the effective sample size)" if est.method == "weighted" else ")"))
    for title, groups in (("type", est.by_type), ("source", est.by_source)):
        print(f"by {title}:{'':<10} raised{'':<26} lowered")
        for k, g in sorted(groups.items()):
            print(f"  {k:<14} {_share(g.raised):<32} {_share(g.lowered)}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    from memdesk.core.curation.guided import ColdStart
    from memdesk.core.curation.service import Calibrations, Sweeps

    store = open_store(args, create=False)
    sweeps = Sweeps(store)
    out: dict[str, Any] = {}
    try:
        model = sweeps.train()
        out["guided"] = {"trained_at": model.trained_at.isoformat(),
                         "decisions": model.decisions, "raised": model.raised}
    except ColdStart as exc:
        out["guided"] = {"cold_start": str(exc)}
    try:
        cal = Calibrations(store).train()
        out["calibration"] = {"trained_at": cal.trained_at.isoformat(),
                              "decisions": cal.decisions, **cal.metrics()}
    except ColdStart as exc:
        out["calibration"] = {"cold_start": str(exc)}
    if args.json:
        _print_json(out)
        return 0
    print(sweeps.guidance().message)
    cal_now = Calibrations(store).current()
    print(cal_now.describe() if "cold_start" not in out["calibration"] and cal_now
          else out["calibration"]["cold_start"])
    return 0


def cmd_calibration(args: argparse.Namespace) -> int:
    from memdesk.core.curation.service import Calibrations

    store = open_store(args, create=False)
    cals = Calibrations(store)
    cal = cals.current()
    sugs = cals.suggest(args.memory_ids) if args.memory_ids else []
    auto = cals.auto_sources()
    if args.json:
        _print_json({
            "trained_at": cal.trained_at.isoformat() if cal else None,
            "decisions": cal.decisions if cal else 0,
            **(cal.metrics() if cal else {}),
            "auto_apply": sorted(auto),
            "suggestions": [{"memory_id": s.memory_id, "write_time": s.write_time,
                             "suggested": s.suggested, "source": s.source,
                             "p_raise": round(s.p_raise, 4), "applied": s.applied,
                             "importance": s.write_time if s.current is None else s.current}
                            for s in sugs]})
        return 0
    print(cal.describe() if cal else "No calibration yet: train it (memdesk sweep train).")
    print("auto-apply: " + (", ".join(sorted(auto)) or "off for every source"))
    for s in sugs:
        sug = "—" if s.suggested is None else f"{s.suggested:.2f}"
        now = f"; now {s.current:.2f}, calibrated" if s.applied and s.current is not None else ""
        print(f"  {s.memory_id}  write-time {s.write_time:.2f} → {sug}  (source {s.source}, "
              f"P(raise) {s.p_raise:.0%}{now})")
    return 0


def cmd_auto_apply(args: argparse.Namespace) -> int:
    from memdesk.core.curation.service import Calibrations

    store = open_store(args, create=False)
    Calibrations(store).set_auto_apply(args.source, args.state == "on")
    print(f"auto-apply of calibrated importance for source {args.source}: {args.state}"
          + (" (the job worker calibrates its new memories as it stores them)"
             if args.state == "on" else ""))
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from memdesk.core.curation.service import Calibrations

    store = open_store(args, create=False)
    cals = Calibrations(store)
    if args.undo:
        ch = cals.undo(args.undo)
        print(f"undone: calibration of {len(ch.memory_ids)} memories (redo group {ch.group_id})")
        return 0
    if cals.current() is None:
        raise ValidationError("calibration", "none trained yet (memdesk sweep train)")
    done = cals.apply(args.memory_ids) if args.memory_ids else cals.apply_pending(
        actor="operator")
    if args.json:
        _print_json({"applied": done.count, "group_id": done.changes.group_id,
                     "memory_ids": list(done.changes.memory_ids)})
        return 0
    if not done.count:
        print("nothing to calibrate")
        return 0
    print(f"calibrated {done.count} memories; undo: memdesk sweep calibrate --undo "
          f"{done.changes.group_id}")
    return 0
