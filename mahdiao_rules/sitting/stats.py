"""Bank tenure: who held the 椿, how often and for how long, from a sequence of bankers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
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


@dataclass(slots=True)
class Moment:
    """Σ of a quantity over sittings and Σ of its square (``simulate.describe`` takes them)."""

    sum: int = 0
    sq: int = 0

    def add(self, v: int) -> None:
        self.sum += v
        self.sq += v * v

    def merge(self, other: Moment) -> None:
        self.sum += other.sum
        self.sq += other.sq


def _moments() -> list[Moment]:
    return [Moment() for _ in range(4)]


@dataclass
class SittingTally:
    """Integer accumulators over many sittings of one ruleset (ticks for amounts).

    Each sitting adds one value per quantity, so the sittings are the independent units
    of the statistics (``simulate.describe`` turns sums and sums of squares into means
    and intervals).
    """

    n: int = 0
    hands: int = 0
    nets: list[Moment] = field(default_factory=_moments)
    """Per seat, the sitting's net (ticks)."""
    banker_hands: list[Moment] = field(default_factory=_moments)
    spells: Moment = field(default_factory=Moment)
    longest: Moment = field(default_factory=Moment)
    redraws: Moment = field(default_factory=Moment)
    mian_dou: int = 0
    pool_end: Moment = field(default_factory=Moment)
    pool_max: Moment = field(default_factory=Moment)
    pool_hands: Counter[int] = field(default_factory=Counter)
    """官堆 after each hand (ticks) → number of hands."""
    spell_lengths: Counter[int] = field(default_factory=Counter)
    """Length of each completed spell → count (a sitting's last spell is cut off: not counted)."""

    def add(self, bankers: Sequence[int], runs: Sequence[Spell], nets: Sequence[int],
            pools: Sequence[int], redraws: int, mian_dou: int) -> None:
        """One sitting: the 椿 seat per hand and its :func:`spells`, the seats' nets, the 官堆
        after each hand."""
        self.n += 1
        self.hands += len(bankers)
        held = [0, 0, 0, 0]
        for r in runs:
            held[r.seat] += r.length
        for k in range(4):
            self.nets[k].add(nets[k])
            self.banker_hands[k].add(held[k])
        self.spells.add(len(runs))
        self.longest.add(max((r.length for r in runs), default=0))
        self.spell_lengths.update(r.length for r in runs[:-1])
        self.redraws.add(redraws)
        self.mian_dou += mian_dou
        self.pool_end.add(pools[-1] if pools else 0)
        self.pool_max.add(max(pools, default=0))
        self.pool_hands.update(pools)

    def merge(self, other: SittingTally) -> None:
        merge_fields(self, other)


@dataclass
class SittingPair:
    """Paired differences between two rulesets over the same sittings (a − b)."""

    spells: Moment = field(default_factory=Moment)
    pool_end: Moment = field(default_factory=Moment)
    same_banker: int = 0
    """Hands in which both rulesets had the same 椿."""
    hands: int = 0

    def add(self, a: tuple[list[int], int, int], b: tuple[list[int], int, int]) -> None:
        self.spells.add(a[1] - b[1])
        self.pool_end.add(a[2] - b[2])
        self.same_banker += sum(1 for x, y in zip(a[0], b[0], strict=True) if x == y)
        self.hands += len(a[0])

    def merge(self, other: SittingPair) -> None:
        merge_fields(self, other)


def merge_fields(mine: Any, other: Any) -> None:
    """Add every field of *other* into *mine* (merging the tallies of two chunks): counts,
    :class:`Moment` s (alone or per seat) and counters — a field of another kind is an error,
    so no field is left out silently."""
    for f in fields(mine):
        a, b = getattr(mine, f.name), getattr(other, f.name)
        if isinstance(a, Counter):
            a.update(b)
        elif isinstance(a, Moment):
            a.merge(b)
        elif isinstance(a, list) and all(isinstance(x, Moment) for x in a):
            for x, y in zip(a, b, strict=True):
                x.merge(y)
        elif isinstance(a, int):
            setattr(mine, f.name, a + b)
        else:
            raise TypeError(f"{type(mine).__name__}.{f.name}: no way to merge a {type(a).__name__}")
