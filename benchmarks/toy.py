"""A toy Madiao engine: the speed baseline `mahdiao bench` compares the real engine with.

Deal, random play, trick winners and the 吊 — nothing else: no ruleset, no 升代, no
first-lead count (the 椿 leads), no 色樣, no 開注, no ledger.  Hard-coded and written for
speed in plain Python, as fast as such a minimal engine reasonably gets, so that the
ratio of a real figure to it is a fair, machine-independent measure:

* each deal is shuffled from its own seed ``f"{seed}/{i}"`` (the reproducibility every
  engine of this tool owes: a deal does not depend on how a run is split);
* a shuffled deck is already a random order, so each seat plays its eight cards in the
  order they were dealt — a uniformly random play with no further draw;
* a trick goes to the strongest card of the led suit, i.e. the lowest card number of the
  led suit (cards are numbered suit by suit, strongest first, as in ``cards.py``);
* the 吊 is feng's: fewer than 2 tricks pay 1, more than 2 win 1, two winners and one
  loser share; paid between the 椿 and each other seat (開注).

    python benchmarks/toy.py -n 20000     # deals per second of CPU time, best of 3
"""

from __future__ import annotations

import argparse
import random
import time

SUIT_START = tuple(0 if c < 11 else 11 if c < 20 else 20 if c < 29 else 29 for c in range(40))
"""For card c, the first (strongest) card of its suit: lo <= x < c means x is of c's suit and beats c."""


def diao(tricks: list[int]) -> list[int]:
    """Each seat's 吊 in halves: −2 below 2 tricks, +2 above 2, +1 when two win and one loses."""
    losers = sum(t < 2 for t in tricks)
    winners = sum(t > 2 for t in tricks)
    win = 1 if (losers, winners) == (1, 2) else 2
    return [-2 if t < 2 else win if t > 2 else 0 for t in tricks]


def run(n: int, seed: str = "toy") -> int:
    """Deal, play and settle *n* deals; return the banker's total in half 吊 (a checksum)."""
    rng = random.Random()
    deck = list(range(40))
    total = 0
    for i in range(n):
        rng.seed(f"{seed}/{i}")
        cards = deck[:]
        rng.shuffle(cards)
        banker = rng.randrange(4)
        tricks = [0, 0, 0, 0]
        lead = banker
        for k in range(8):
            a, b, c, d = cards[k], cards[8 + k], cards[16 + k], cards[24 + k]
            led = (a, b, c, d)[lead]
            lo = SUIT_START[led]
            best, lead_ = led, lead
            if lo <= a < best:
                best, lead_ = a, 0
            if lo <= b < best:
                best, lead_ = b, 1
            if lo <= c < best:
                best, lead_ = c, 2
            if lo <= d < best:
                best, lead_ = d, 3
            lead = lead_
            tricks[lead] += 1
        k_ = diao(tricks)
        # 開注: the 椿 collects (or pays) each other seat's difference.
        total += sum(k_[banker] - k_[s] for s in range(4) if s != banker)
    return total


def rate(n: int = 20000, repeat: int = 3) -> float:
    """Deals per second of CPU time, best of *repeat*."""
    best = 0.0
    for _ in range(repeat):
        t0 = time.process_time()
        run(n)
        best = max(best, n / max(time.process_time() - t0, 1e-9))
    return best


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--count", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"toy engine: {rate(args.count, args.repeat):,.0f} deals/s (CPU, best of {args.repeat})")
