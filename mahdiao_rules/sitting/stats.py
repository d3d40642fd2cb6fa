"""Bank tenure: who held the 椿, how often and for how long, from a sequence of bankers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Spell:
    """Consecutive hands with one 椿: his seat, the first hand (1-based) and the length."""

    seat: int
    start: int
    length: int


def spells(bankers: Sequence[int]) -> list[Spell]:
    """The runs of one banker in *bankers* (seat per hand, in order)."""
    out: list[Spell] = []
    for n, seat in enumerate(bankers, start=1):
        if out and out[-1].seat == seat:
            last = out[-1]
            out[-1] = Spell(seat, last.start, last.length + 1)
        else:
            out.append(Spell(seat, n, 1))
    return out


@dataclass(frozen=True, slots=True)
class Tenure:
    """One seat's time as 椿 over a sitting."""

    hands: int
    spells: int
    longest: int

    @property
    def mean(self) -> float | None:
        return self.hands / self.spells if self.spells else None


def tenure(bankers: Sequence[int]) -> list[Tenure]:
    """Per seat (east … north): hands as 椿, spells (連椿 runs) and the longest spell."""
    runs = spells(bankers)
    return [Tenure(sum(r.length for r in runs if r.seat == s), sum(1 for r in runs if r.seat == s),
                   max((r.length for r in runs if r.seat == s), default=0)) for s in range(4)]


@dataclass
class SittingTally:
    """Integer accumulators over many sittings of one ruleset (ticks for amounts).

    Each sitting adds one value per quantity, so the sittings are the independent units
    of the statistics (``simulate.describe`` turns sums and sums of squares into means
    and intervals).
    """

    n: int = 0
    hands: int = 0
    nets: list[int] = field(default_factory=lambda: [0] * 4)
    """Σ per seat of the sitting's net (ticks), and below Σ of its square."""
    nets_sq: list[int] = field(default_factory=lambda: [0] * 4)
    banker_hands: list[int] = field(default_factory=lambda: [0] * 4)
    banker_hands_sq: list[int] = field(default_factory=lambda: [0] * 4)
    spells: int = 0
    spells_sq: int = 0
    longest: int = 0
    longest_sq: int = 0
    redraws: int = 0
    redraws_sq: int = 0
    mian_dou: int = 0
    pool_end: int = 0
    pool_end_sq: int = 0
    pool_max: int = 0
    pool_max_sq: int = 0
    pool_hands: Counter[int] = field(default_factory=Counter)
    """官堆 after each hand (ticks) → number of hands."""
    spell_lengths: Counter[int] = field(default_factory=Counter)
    """Length of each completed spell → count (a sitting's last spell is cut off: not counted)."""

    def add(self, bankers: Sequence[int], nets: Sequence[int], pools: Sequence[int],
            redraws: int, mian_dou: int) -> None:
        """One sitting: the 椿 seat per hand, the seats' nets, the 官堆 after each hand."""
        self.n += 1
        self.hands += len(bankers)
        for k in range(4):
            self.nets[k] += nets[k]
            self.nets_sq[k] += nets[k] * nets[k]
            b = sum(1 for x in bankers if x == k)
            self.banker_hands[k] += b
            self.banker_hands_sq[k] += b * b
        runs = spells(bankers)
        self.spells += len(runs)
        self.spells_sq += len(runs) ** 2
        longest = max((r.length for r in runs), default=0)
        self.longest += longest
        self.longest_sq += longest * longest
        self.spell_lengths.update(r.length for r in runs[:-1])
        self.redraws += redraws
        self.redraws_sq += redraws * redraws
        self.mian_dou += mian_dou
        end = pools[-1] if pools else 0
        top = max(pools, default=0)
        self.pool_end += end
        self.pool_end_sq += end * end
        self.pool_max += top
        self.pool_max_sq += top * top
        self.pool_hands.update(pools)

    def merge(self, other: SittingTally) -> None:
        add_fields(self, other, ("n", "hands", "spells", "spells_sq", "longest", "longest_sq",
                                 "redraws", "redraws_sq", "mian_dou", "pool_end", "pool_end_sq",
                                 "pool_max", "pool_max_sq"))
        for name in ("nets", "nets_sq", "banker_hands", "banker_hands_sq"):
            mine, theirs = getattr(self, name), getattr(other, name)
            for k in range(4):
                mine[k] += theirs[k]
        self.pool_hands.update(other.pool_hands)
        self.spell_lengths.update(other.spell_lengths)


@dataclass
class SittingPair:
    """Paired differences between two rulesets over the same sittings (a − b)."""

    spells: int = 0
    spells_sq: int = 0
    pool_end: int = 0
    pool_end_sq: int = 0
    same_banker: int = 0
    """Hands in which both rulesets had the same 椿."""
    hands: int = 0

    def add(self, a: tuple[list[int], int, int], b: tuple[list[int], int, int]) -> None:
        d = a[1] - b[1]
        self.spells += d
        self.spells_sq += d * d
        p = a[2] - b[2]
        self.pool_end += p
        self.pool_end_sq += p * p
        self.same_banker += sum(1 for x, y in zip(a[0], b[0], strict=True) if x == y)
        self.hands += len(a[0])

    def merge(self, other: SittingPair) -> None:
        add_fields(self, other, ("spells", "spells_sq", "pool_end", "pool_end_sq", "same_banker",
                                 "hands"))


def add_fields(mine: Any, other: Any, names: Sequence[str]) -> None:
    """Add *other*'s integer fields *names* into *mine* (merging the tallies of two chunks)."""
    for name in names:
        setattr(mine, name, getattr(mine, name) + getattr(other, name))
