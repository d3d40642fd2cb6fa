"""Bulk files, end to end: recorded deals replayed under every ruleset, and big deal files read back.

    python benchmarks/bulk.py                  # 5,000 recorded deals, -r all, -f jsonl, best of 3
    python benchmarks/bulk.py -n 20000 -f json # another size or output format
    python benchmarks/bulk.py --read 100000    # + `mahdiao validate` of a 100,000-deal .jsonl

Each measurement is a fresh ``mahdiao`` process (as a user runs it): wall time, CPU time and
peak memory (maximum resident set size) of the whole process, start-up included.  The deals
are random deals whose tricks were played at random under feng and recorded, so ``replay``
replays them (the issue's "recorded deals") instead of playing them itself.  Prints
deal-rulesets per second (deals × 3 rulesets ÷ wall seconds) and bytes written per deal
and ruleset.  Never a timed test: the machine may be shared, so the best of ``--repeat``
runs counts.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mahdiao_rules.deal import RecordedTrick
from mahdiao_rules.io.dealfile import DealWriter, iter_random_deals
from mahdiao_rules.play.policies import auto_play, make_policy
from mahdiao_rules.ruleset import find_ruleset

# Peak memory from /proc/self/status VmHWM, which starts afresh with the process's image:
# Linux keeps ru_maxrss across fork and exec, so getrusage would report the benchmark's own
# size when that is the larger.
RUN = """
import sys, time
from mahdiao_rules.cli import main
t0, c0 = time.perf_counter(), time.process_time()
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    with open("/proc/self/status") as status:
        hwm = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    print(f"@@ {time.perf_counter() - t0} {time.process_time() - c0} {hwm}", file=sys.stderr)
"""


def recorded_deals(path: Path, n: int, seed: str = "bulk") -> None:
    """*n* random deals with their tricks played at random under feng and recorded, as JSON Lines."""
    rs = find_ruleset("feng")
    policy = make_policy("random", rs)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = DealWriter(fh, "jsonl", title=f"{n} recorded random deals, seed {seed!r}")

        def played():
            for deal in iter_random_deals(seed, n):
                play = auto_play(rs, deal, policy)
                tricks = tuple(RecordedTrick(t.lead, tuple(t.cards)) for t in play.tricks)
                yield dataclasses.replace(deal, play=tricks)
        writer.write(played())
        writer.close()


def measure(args: list[str]) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS kB) of one `mahdiao ARGS` process."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"mahdiao {' '.join(args)} failed:\n{done.stderr}")
    line = next(x for x in done.stderr.splitlines() if x.startswith("@@ "))
    _at, _inner, cpu, rss = line.split()
    return wall, float(cpu), int(rss)


def best(args: list[str], repeat: int) -> tuple[float, float, int]:
    runs = [measure(args) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=5000, help="recorded deals to replay (default 5000)")
    ap.add_argument("-f", "--format", default="jsonl", help="replay output format (default jsonl)")
    ap.add_argument("-r", "--ruleset", default="all")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--read", type=int, default=0, help="also validate a .jsonl of this many deals")
    ap.add_argument("--full-sources", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        deals = Path(tmp) / "recorded.jsonl"
        recorded_deals(deals, a.n)
        out = Path(tmp) / f"out.{a.format}"
        args = ["replay", str(deals), "-r", a.ruleset, "-f", a.format, "-o", str(out)]
        if a.full_sources:
            args.append("--full-sources")
        wall, cpu, rss = best(args, a.repeat)
        k = 3 if a.ruleset == "all" else 1
        size = out.stat().st_size
        print(f"replay {a.n} recorded deals -r {a.ruleset} -f {a.format}: {wall:.2f} s wall, {cpu:.2f} s CPU "
              f"→ {a.n * k / wall:,.0f} deal-rulesets/s (wall), {a.n * k / cpu:,.0f}/s (CPU); "
              f"{size / (a.n * k):,.0f} bytes per deal and ruleset; peak memory {rss / 1024:.0f} MB")
        if a.format in ("json", "jsonl"):
            lines = out.read_text(encoding="utf-8").splitlines()
            biggest = max(len(x.encode()) for x in lines[1:] if x.startswith(("{", "    {")))
            print(f"  largest deal: {biggest / k:,.0f} bytes per ruleset")
            json.loads(out.read_text(encoding="utf-8")) if a.format == "json" else None
        if a.read:
            big = Path(tmp) / "big.jsonl"
            wall, cpu, rss = best(["deal", "-n", str(a.read), "-o", str(big)], 1)
            print(f"deal -n {a.read} -o big.jsonl: {wall:.2f} s, {big.stat().st_size / 1e6:.1f} MB, "
                  f"peak memory {rss / 1024:.0f} MB")
            wall, cpu, rss = best(["validate", str(big)], a.repeat)
            print(f"validate big.jsonl ({a.read} deals): {wall:.2f} s wall, {a.read / wall:,.0f} deals/s; "
                  f"peak memory {rss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
