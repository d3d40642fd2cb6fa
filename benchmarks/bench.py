"""Speed of settlement and automatic play, measured on one core — never a timed test.

    python benchmarks/bench.py                      # every bundled ruleset, 2,000 deals, best of 3
    python benchmarks/bench.py -r feng -n 5000      # one ruleset, more deals
    python benchmarks/bench.py --profile            # + cProfile of settle (top 15 per ruleset)
    python benchmarks/bench.py --simulate 100000    # + the whole `mahdiao simulate -n 100000
                                                    #   -r all --jobs 2 --policy random` process:
                                                    #   wall time and peak memory

Per ruleset, deals per second of CPU time (the machine may be shared: each case runs
``--repeat`` times and the best run counts), on the code ``mahdiao simulate`` runs:

* ``settle``    — settlement of already-played deals (random plays);
* ``random``    — random play + settlement;
* ``heuristic`` — heuristic play + settlement;
* ``reference`` — the reference interpreter of ``tests/reference_interpreter.py`` on the
  same played deals.

Each figure is printed beside its target (issue 15) and divided by the rate of the toy
engine of ``benchmarks/toy.py`` (deal, random play, trick winners, 吊 only, written for
speed), measured in the same process: the ratio is the figure that travels between
machines and loads.  ``mahdiao bench`` runs the same code (mahdiao_rules.simulate.benchmark).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import resource
import subprocess
import sys
import time

from mahdiao_rules.cli.sim import bench_table, reference_module, toy_module
from mahdiao_rules.io.dealfile import random_deals
from mahdiao_rules.pipeline import Quick
from mahdiao_rules.play.tricks import random_orders
from mahdiao_rules.ruleset import bundled_ids, find_ruleset
from mahdiao_rules.simulate import benchmark

SIMULATE_TARGETS = {100_000: 30.0, 1_000_000: 300.0}
"""Wall seconds issue 15 allows `simulate -n N -r all --jobs 2 --policy random` (flat memory)."""


def profile_settle(rs_id: str, n: int, top: int = 15) -> str:
    """cProfile of the settlement of already-played deals (random plays), by internal time."""
    rs = find_ruleset(rs_id)
    quick = Quick(rs)
    played = []
    for d in random_deals("profile", n):
        held, play = quick.play_random([d.hand_mask(s) for s in range(4)], d.stock, int(d.banker),
                                       random_orders(d.hands, random.Random(f"{d.id}/play")))
        played.append((held, d.stock, int(d.banker), play))
    quick.played(*played[0])
    prof = cProfile.Profile()
    prof.enable()
    for args in played:
        quick.played(*args)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).strip_dirs().sort_stats("tottime").print_stats(top)
    return out.getvalue()


def time_simulate(n: int, jobs: int, rulesets: str = "all") -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS in MB of any one process) of the whole `mahdiao
    simulate` command, started as a fresh process (imports and compiling included, the
    report written to /dev/null)."""
    cmd = [sys.executable, "-m", "mahdiao_rules", "simulate", "-n", str(n), "-r", rulesets,
           "--jobs", str(jobs), "--policy", "random", "--no-progress", "-o", os.devnull]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024  # the largest process reaped so far


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-r", "--ruleset", action="append", help="ruleset id (repeatable; default all)")
    ap.add_argument("-n", "--count", type=int, default=2000, help="deals per case")
    ap.add_argument("--repeat", type=int, default=3, help="runs per case; the best counts")
    ap.add_argument("--no-reference", action="store_true", help="skip the reference interpreter")
    ap.add_argument("--profile", action="store_true", help="cProfile of settle, top 15")
    ap.add_argument("--simulate", type=int, metavar="N", help="also time the whole simulate -n N process")
    ap.add_argument("--jobs", type=int, default=2, help="jobs for --simulate")
    args = ap.parse_args(argv)
    ids = args.ruleset or bundled_ids()
    ref = None if args.no_reference else reference_module()
    toy = toy_module()
    rows = benchmark(ids, n=args.count, repeat=args.repeat, reference=ref, toy=toy)
    print(f"deals per second of CPU time, one core, best of {args.repeat} ({args.count} deals per case)")
    print(bench_table(rows), end="")
    if args.profile:
        for rs_id in ids:
            print(f"\n== cProfile: settle(ruleset={rs_id!r}), {args.count} played deals")
            print(profile_settle(rs_id, args.count))
    if args.simulate:
        toy_rate = next(r.per_second for r in rows if r.what == "toy")
        wall, cpu, peak = time_simulate(args.simulate, args.jobs)
        target = SIMULATE_TARGETS.get(args.simulate)
        verdict = "" if target is None else \
            f" (target < {target:.0f} s: {'met' if wall < target else 'NOT MET'})"
        print(f"\nsimulate -n {args.simulate:,} -r all --jobs {args.jobs} --policy random: {wall:.1f} s wall"
              f"{verdict}, {cpu:.1f} s CPU; peak memory of one process {peak:.0f} MB")
        # The whole-process figure: one ruleset, one process, against the toy.
        n = 20_000
        _wall, cpu, _peak = time_simulate(n, 1, "feng")
        print(f"simulate -n {n:,} -r feng --jobs 1 --policy random, whole process: "
              f"{n / cpu:,.0f} deals/s of CPU = {n / cpu / toy_rate:.2f} × toy")


if __name__ == "__main__":
    main()
