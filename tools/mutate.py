"""Mutation testing of memdesk.core with mutmut, as one command.

    .venv/bin/python tools/mutate.py                      # every module of core/
    .venv/bin/python tools/mutate.py store/memory_store delta/health   # some modules
    .venv/bin/python tools/mutate.py --report             # only print the table
    .venv/bin/python tools/mutate.py --retest-survivors store/query
    .venv/bin/python tools/mutate.py --sample 400         # estimate all of core/

Why a wrapper: mutmut names a mutant after its file's path (``core/store/query.py`` →
``core.store.query.x_...``) and its trampolines compare that with the running function's
``__module__`` (``memdesk.core.store.query``).  This project maps ``memdesk.core`` onto
``core/`` (setuptools ``package-dir``), so run from the checkout every mutant would be
reported "no tests".  The wrapper stages a tree in the import layout under
``build/mutation/`` (``memdesk/core``, ``memdesk/ui``, ``memdesk/app``, ``tests``,
``pyproject.toml``) and runs mutmut there.

The cache: the staging tree and mutmut's ``mutants/`` directory persist.  Files are
copied only when their bytes changed, keeping their modification times, so mutmut
regenerates and re-tests only the functions whose code changed (it hashes each
function), and collects coverage only for new tests.  A mutant that survived stays
"survived" until it is retested: pass ``--retest-survivors`` after adding tests.
``--clean`` throws the cache away.

The mutmut settings (which tests run, what is not mutated) live in ``[tool.mutmut]`` of
pyproject.toml; paths there are relative to the staging tree.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGE = ROOT / "build" / "mutation"
# (checkout folder, staged folder)
TREES = [("core", "memdesk/core"), ("ui", "memdesk/ui"), ("app", "memdesk/app"),
         ("tests", "tests"), ("docs", "docs"),
         # The extraction set: tests/write/test_extract_fuzz.py mutates its turns.
         ("bench/data", "bench/data")]
SKIP_DIRS = {"__pycache__", ".pytest_cache", ".hypothesis"}
EXCLUDED = ("store/migrations/",)  # schema migrations: tested by replaying them, not mutated

STATUS = {1: "killed", 3: "killed", 37: "killed", 0: "survived", 36: "timeout",
          24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout",
          None: "not checked", 5: "no tests", 33: "no tests", 34: "skipped"}


def _sync_tree(src: Path, dst: Path) -> int:
    """Mirror ``src`` into ``dst``; copy only changed files (keeping mtimes). Returns copies."""
    copied = 0
    wanted: set[Path] = set()
    for path in src.rglob("*"):
        rel = path.relative_to(src)
        if any(part in SKIP_DIRS for part in rel.parts) or path.suffix in (".pyc", ".db"):
            continue
        target = dst / rel
        wanted.add(rel)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif not target.exists() or not filecmp.cmp(path, target, shallow=False):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
            copied += 1
    if dst.exists():
        for path in sorted(dst.rglob("*"), reverse=True):
            rel = path.relative_to(dst)
            if rel not in wanted and not any(p in SKIP_DIRS for p in rel.parts):
                shutil.rmtree(path) if path.is_dir() else path.unlink()
    return copied


def stage() -> None:
    STAGE.mkdir(parents=True, exist_ok=True)
    for src, dst in TREES:
        _sync_tree(ROOT / src, STAGE / dst)
    for name in ("pyproject.toml", "README.md"):
        if not (STAGE / name).exists() or not filecmp.cmp(ROOT / name, STAGE / name, False):
            shutil.copy2(ROOT / name, STAGE / name)


def module_of(key: str) -> str:
    """``memdesk.core.store.query.x_f__mutmut_3`` → ``store/query``."""
    parts = key.split(".")
    for i, p in enumerate(parts):
        if p.startswith(("x_", "xǁ")):
            return "/".join(parts[2:i])
    return "/".join(parts[2:-1])


EQUIVALENT = ROOT / "tools" / "equivalent_mutants.txt"


def equivalents() -> dict[str, str]:
    """Survivors read and judged equivalent: ``name  # reason`` per line of
    tools/equivalent_mutants.txt.  mutmut numbers a function's mutants afresh when the
    function changes, so a changed function's entries must be judged again."""
    out: dict[str, str] = {}
    if EQUIVALENT.exists():
        for line in EQUIVALENT.read_text(encoding="utf-8").splitlines():
            name, _, why = line.partition("#")
            if name.strip():
                out[name.strip()] = why.strip()
    return out


def status_of(key: str, code: int | None, equivalent: dict[str, str]) -> str:
    status = STATUS.get(code, "suspicious")
    return "equivalent" if status == "survived" and key in equivalent else status


def codes() -> dict[str, int | None]:
    """Every mutant of core and its exit code (None: not run), from mutmut's cache."""
    out: dict[str, int | None] = {}
    for meta in sorted((STAGE / "mutants" / "memdesk" / "core").rglob("*.py.meta")):
        out.update(json.loads(meta.read_text()).get("exit_code_by_key", {}))
    return out


def results(all_codes: dict[str, int | None]) -> dict[str, Counter[str]]:
    """Per-module counts of each status."""
    out: dict[str, Counter[str]] = {}
    equivalent = equivalents()
    for key, code in all_codes.items():
        out.setdefault(module_of(key), Counter())[status_of(key, code, equivalent)] += 1
    return out


def _keys(modules: list[str], want: set[int | None]) -> list[str]:
    return [key for key, code in codes().items()
            if code in want and (not modules or module_of(key) in modules)]


SAMPLE = STAGE / "sample.json"


def draw_sample(size: int, seed: int) -> list[str]:
    """A uniform random sample of all of core's mutants (kept in build/mutation)."""
    import random

    keys = sorted(codes())
    picked = sorted(random.Random(seed).sample(keys, min(size, len(keys))))
    SAMPLE.write_text(json.dumps({"seed": seed, "population": len(keys), "keys": picked}))
    return picked


def wilson(k: int, n: int) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion k/n (statsmodels)."""
    from statsmodels.stats.proportion import proportion_confint

    if n == 0:
        return 0.0, 1.0
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return float(lo), float(hi)


def print_sample_estimate(all_codes: dict[str, int | None]) -> None:
    if not SAMPLE.exists():
        return
    data = json.loads(SAMPLE.read_text())
    equivalent = equivalents()
    status = Counter(status_of(k, all_codes[k], equivalent) for k in data["keys"]
                     if k in all_codes)
    # "no tests" is a result (nothing detects it); "not checked" is unknown, left out.
    run = sum(n for st, n in status.items() if st not in ("not checked", "equivalent"))
    if not run:
        return
    detected = status["killed"] + status["timeout"]
    lo, hi = wilson(detected, run)
    print(f"core/ estimated from a uniform sample of {len(data['keys'])} of "
          f"{data['population']} mutants (seed {data['seed']}), {run} run: "
          f"{100 * detected / run:.1f}% detected (95% interval {100 * lo:.1f}–"
          f"{100 * hi:.1f}%); survived {status['survived']}, no tests {status['no tests']}, "
          f"timeout {status['timeout']}, "
          f"judged equivalent {status['equivalent']} (left out)")


def survivors(modules: list[str]) -> list[str]:
    # And "no tests": new tests may reach them.  Not the ones judged equivalent.
    equivalent = equivalents()
    return [k for k in _keys(modules, {0, 5, 33}) if k not in equivalent]


def to_retest(modules: list[str]) -> set[str]:
    """Survivors and what has no result yet (a changed function's mutants)."""
    return set(survivors(modules)) | set(unchecked(modules))


def unchecked(modules: list[str]) -> list[str]:
    # "no tests" too: tests added since may reach the function now.
    return _keys(modules, {None, 5, 33})


# Mutant generation only (mutmut 3.8's own steps, in its order): writes mutants/ and the
# per-file .meta with per-function hashes, resetting results of changed functions.
GENERATE = """
import os
from mutmut.__main__ import copy_also_copy_files, copy_src_dir, create_mutants
from mutmut.mutation.trampoline import set_mutant_under_test
set_mutant_under_test("mutant_generation")
os.makedirs("mutants", exist_ok=True)
copy_src_dir()
copy_also_copy_files()
create_mutants(1)
"""


# mutmut with one change: a mutant's tests run fastest first.  mutmut passes them to
# pytest -x as a set, in arbitrary order, so a mutant that a 0.1 s test kills often
# waited for a 15 s CLI test first (undo's killed mutants took 7.5 s each, median).
RUN = """
import sys
from mutmut.__main__ import cli
from mutmut.runners.harness import PytestRunner
from mutmut.state import state

_args = PytestRunner._pytest_args_regular_run


def _fastest_first(self, tests):
    took = state().duration_by_test
    return _args(self, sorted(tests, key=lambda t: (took.get(t, 0.0), t)))


PytestRunner._pytest_args_regular_run = _fastest_first
sys.argv[0] = "mutmut"
sys.exit(cli())
"""


def stats_out_of_date() -> bool:
    """Whether core changed since mutmut recorded which tests reach which function.

    mutmut re-collects that map only for new tests: a function added or changed since
    keeps the tests mapped to it then (none, for a new one), so its mutants would run
    against a handful of tests and read as survivors.  Any such change: collect the
    whole map again (2-3 minutes here)."""
    stats = STAGE / "mutants" / "mutmut-stats.json"
    if not stats.exists():
        return False
    known = json.loads(stats.read_text()).get("function_hashes", {})
    base = STAGE / "mutants"
    for meta in (base / "memdesk" / "core").rglob("*.py.meta"):
        module = ".".join(meta.relative_to(base).with_suffix("").with_suffix("").parts)
        module = module.removesuffix(".__init__")
        for fn, digest in json.loads(meta.read_text()).get("hash_by_function_name", {}).items():
            if known.get(f"{module}.{fn}") != digest:
                return True
    return False


def print_report(modules: list[str]) -> None:
    all_codes = codes()
    res = results(all_codes)
    rows = [(m, c) for m, c in sorted(res.items()) if not modules or m in modules]
    print(f"{'module':28} {'mutants':>7} {'killed':>7} {'survived':>8} {'equiv':>6} "
          f"{'timeout':>7} {'other':>6} {'score':>6}")
    total: Counter[str] = Counter()
    for mod, c in rows:
        total.update(c)
        _row(mod, c)
    if len(rows) > 1:
        _row("TOTAL", total)
    print("score = (killed + timeout) / (mutants - equivalent); 'equiv' = survivors judged "
          "equivalent (tools/equivalent_mutants.txt); 'other' = not checked, no tests, "
          "suspicious")
    stale = sorted(k for k in equivalents() if k not in all_codes)
    if stale:
        print(f"{len(stale)} names in {EQUIVALENT.name} are no longer mutants (their "
              f"function changed; judge its survivors again): {', '.join(stale[:5])}")
    if not modules:
        print_sample_estimate(all_codes)


def _row(name: str, c: Counter[str]) -> None:
    n = sum(c.values())
    other = n - c["killed"] - c["survived"] - c["equivalent"] - c["timeout"]
    scored = n - c["equivalent"]
    # A timeout is detected too: the tests did not pass (the mutant made them hang).
    score = f"{100 * (c['killed'] + c['timeout']) / scored:5.1f}%" if scored else "  -  "
    print(f"{name:28} {n:7} {c['killed']:7} {c['survived']:8} {c['equivalent']:6} "
          f"{c['timeout']:7} {other:6} {score:>6}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", nargs="*",
                    help="core modules to run, e.g. store/query delta/health (default: all)")
    ap.add_argument("--max-children", type=int, default=1,
                    help="parallel mutant runs (default 1: the machine is shared)")
    ap.add_argument("--report", action="store_true", help="only print the table from the cache")
    ap.add_argument("--retest-survivors", action="store_true",
                    help="retest mutants that survived before (after adding tests), and "
                         "those without a result")
    ap.add_argument("--clean", action="store_true", help="discard the cache first")
    ap.add_argument("--sample", type=int, metavar="N",
                    help="test a uniform random sample of N of all core mutants (those "
                         "without a result, and survivors) and print the estimated score "
                         "of core/")
    ap.add_argument("--seed", type=int, default=13, help="the sample's seed (default 13)")
    ap.add_argument("--rerun", action="store_true",
                    help="test every selected mutant again (of the sample, or of the "
                         "modules named), killed ones too: after a change to how tests run, "
                         "which the cache cannot see")
    ap.add_argument("--fresh-stats", action="store_true",
                    help="record which tests reach which function again (done by itself "
                         "when core changed since it was recorded)")
    args = ap.parse_args(argv)
    modules = [m.removeprefix("core/").removesuffix(".py") for m in args.modules]
    for m in modules:
        if not (ROOT / "core" / f"{m}.py").exists() or m.startswith(EXCLUDED):
            ap.error(f"no mutated module core/{m}.py")
    if args.report:
        print_report(modules)
        return 0
    if args.clean and STAGE.exists():
        shutil.rmtree(STAGE)
    stage()
    # The shared demo store is built once by unmutated code (see tests/conftest.py); a
    # fresh cache per wrapper run, so it always matches the current tests and core.
    cache = STAGE / "fixture-cache"
    shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", MEMDESK_TEST_FIXTURE_CACHE=str(cache))
    subprocess.check_call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/demo/test_demo.py::test_shape_of_a_demo_store"],
                          cwd=ROOT, env=env)
    names: list[str] = []
    if args.sample and (modules or args.retest_survivors):
        ap.error("--sample draws from every module; name none")
    if args.rerun and not (args.sample or modules):
        ap.error("--rerun needs --sample or the modules to run again")
    # Generate first (cheap; per-function hashes reset the results of what changed).
    subprocess.check_call([sys.executable, "-c", GENERATE], cwd=STAGE, env=env)
    if args.fresh_stats or stats_out_of_date():
        print("core changed since the test map was recorded: recording it again")
        (STAGE / "mutants" / "mutmut-stats.json").unlink()
    if modules or args.retest_survivors or args.sample:
        # mutmut re-runs every mutant named on its command line, cached or not, so name
        # only the ones to test: the unchecked ones, or the survivors.
        if args.sample:
            todo = to_retest([])
            drawn = draw_sample(args.sample, args.seed)
            equivalent = equivalents()
            names = ([k for k in drawn if k not in equivalent] if args.rerun
                     else [k for k in drawn if k in todo])
        elif args.rerun and modules:
            equivalent = equivalents()
            names = sorted(k for k in codes()
                           if module_of(k) in modules and k not in equivalent)
        else:
            names = (sorted(to_retest(modules)) if args.retest_survivors
                     else unchecked(modules))
        if not names:
            print("nothing to test: every selected mutant has a cached result")
            print_report(modules)
            return 0
    rc = subprocess.call([sys.executable, "-c", RUN, "run", "--max-children",
                          str(args.max_children), *names], cwd=STAGE, env=env)
    print()
    print_report(modules)
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
