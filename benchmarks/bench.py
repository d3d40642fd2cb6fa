"""Speed of settlement and automatic play, measured on one core — never a timed test.

    python benchmarks/bench.py                      # every bundled ruleset, 2,000 deals, best of 3
    python benchmarks/bench.py -r feng -n 5000      # one ruleset, more deals
    python benchmarks/bench.py --profile            # + cProfile of settle (top 15 per ruleset)
    python benchmarks/bench.py --simulate 100000    # + wall time of `mahdiao simulate -n 100000
                                                    #   --ruleset all --jobs 2` (report included)

Per ruleset, deals per second of CPU time (the machine may be shared: each case runs
``--repeat`` times and the best run counts):

* ``settle``    — settlement of already-played deals, ``settle_deal(..., play=…, ledger=False)``;
* ``random``    — random play + settlement;
* ``heuristic`` — heuristic play + settlement;
* ``reference`` — the reference interpreter of ``tests/reference_interpreter.py`` on the
  same played deals; the last column is how many times faster the compiled engine is.

``mahdiao bench`` runs the same code (mahdiao_rules.simulate.benchmark).
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import io
import pstats
import sys
import time
from pathlib import Path

from mahdiao_rules.cli.sim import bench_table, render
from mahdiao_rules.io.dealfile import random_deals
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.play.policies import auto_play, make_policy
from mahdiao_rules.ruleset import bundled_ids, find_ruleset
from mahdiao_rules.simulate import Plan, Slot, benchmark, build_model, run

ROOT = Path(__file__).resolve().parents[1]
TARGETS = """targets (issue 5, one core): settle ≥ 30,000/s feng, ≥ 10,000/s app; random play + settle
≥ 10,000/s feng; heuristic play + settle ≥ 3,000/s; simulate -n 100000 --ruleset all --jobs 2 < 60 s;
compiled ≥ 5× the reference interpreter."""


def load_reference():
    path = ROOT / "tests" / "reference_interpreter.py"
    spec = importlib.util.spec_from_file_location("reference_interpreter", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def profile_settle(rs_id: str, n: int, top: int = 15) -> str:
    """cProfile of settle_deal(..., ledger=False) on already-played deals, by internal time."""
    rs = find_ruleset(rs_id)
    policy = make_policy("random", rs)
    deals = random_deals("profile", n)
    plays = [auto_play(rs, d, policy) for d in deals]
    prof = cProfile.Profile()
    prof.enable()
    for d, p in zip(deals, plays, strict=True):
        settle_deal(rs, d, play=p, ledger=False)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).strip_dirs().sort_stats("tottime").print_stats(top)
    return out.getvalue()


def time_simulate(n: int, jobs: int) -> float:
    """Wall seconds of `mahdiao simulate -n N --ruleset all --jobs J` (text report included)."""
    plan = Plan(n=n, seed="bench", slots=tuple(Slot(i, label=i) for i in bundled_ids()))
    t0 = time.perf_counter()
    stats = run(plan, jobs=jobs)
    render(build_model(plan, stats), "text")
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-r", "--ruleset", action="append", help="ruleset id (repeatable; default all)")
    ap.add_argument("-n", "--count", type=int, default=2000, help="deals per case")
    ap.add_argument("--repeat", type=int, default=3, help="runs per case; the best counts")
    ap.add_argument("--no-reference", action="store_true", help="skip the reference interpreter")
    ap.add_argument("--profile", action="store_true", help="cProfile of settle, top 15")
    ap.add_argument("--simulate", type=int, metavar="N", help="also time simulate -n N --jobs 2")
    ap.add_argument("--jobs", type=int, default=2, help="jobs for --simulate")
    args = ap.parse_args(argv)
    ids = args.ruleset or bundled_ids()
    ref = None if args.no_reference else load_reference()
    rows = benchmark(ids, n=args.count, repeat=args.repeat, reference=ref)
    print(f"deals per second of CPU time, best of {args.repeat} ({args.count} deals per case)")
    print(bench_table(rows), end="")
    print(TARGETS)
    if args.profile:
        for rs_id in ids:
            print(f"\n== cProfile: settle(ruleset={rs_id!r}, ledger=False), {args.count} played deals")
            print(profile_settle(rs_id, args.count))
    if args.simulate:
        secs = time_simulate(args.simulate, args.jobs)
        print(f"\nsimulate -n {args.simulate} --ruleset all --jobs {args.jobs}: {secs:.1f} s wall")


if __name__ == "__main__":
    main()
