"""Complete a partial deal every way the facts allow, settle each completion, summarise.

A *completion* of a partial deal (:mod:`mahdiao_rules.history.partial`) puts each of the 40
cards in one of the 40 slots (the card each seat plays in each trick, and the eight
stock positions) and chooses who led trick 1; the hands are what the seats play, the
record follows from the leader chain.  The completions are counted and drawn by
:class:`ExactCounter` when it can, else by rejection from :class:`RelaxedCounter`:

* **Exact counting** (``ExactCounter``): a dynamic programme over the slots in play order,
  trick by trick.  Free cards are grouped into *classes* — runs of cards of one suit,
  adjacent in rank, about which every fact says the same — and the state keeps only how
  many cards of each class are left, the leader, the best card of the trick so far (for
  a class member: how many of its class-mates still unplayed rank above it) and the
  counters the facts need (tricks won, cards per suit, ``holds_one_of``).  Cards of one
  class are interchangeable for every fact, so the number of ways to finish depends only
  on that state, and the count is exact (Python integers).  Drawing: walk from the start,
  choosing each step with probability (ways through it) / (ways from here), then a card
  uniformly among the class members that step stands for.  Every completion is reached by
  exactly one walk whose probabilities multiply to 1 / (number of completions): the draw
  is exactly uniform.  Small sets are listed in full instead.
* **Rejection** (``RelaxedCounter`` + :func:`check`): when the exact programme would need
  too many states (hands known card by card with an open play), the facts about single
  slots and hands are counted and drawn exactly as above (seat by seat), giving a uniform
  draw from a set that contains every completion; a draw is kept when it also satisfies
  the trick facts.  Kept draws are uniform over the completions; the count is estimated as
  (size of the relaxed set) × (acceptance rate), with a 95 % interval.

Either/or readings are combined by drawing a reading in proportion to its (relaxed or
exact) count and keeping a draw with probability 1 / (number of readings whose set holds
it), which is uniform over the union; the banker, when open, is drawn independently.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cards import CARD_HANZI, CARD_SUIT, Card, bits_of
from ..deal import SEATS, Deal, Event, RecordedTrick, Seat
from ..errors import InputError
from ..io.dealcode import encode
from ..io.yamlsafe import format_path
from ..pipeline import settle_deal
from ..ruleset.model import Ruleset
from ..settle.hand import MIAN_DOU
from .partial import (
    SEAT_SLOTS,
    Constraints,
    Fact,
    FactConflict,
    PartialDeal,
    Reading,
    compile_facts,
)

__all__ = [
    "METHODS",
    "Completion",
    "ExactCounter",
    "Reconstruction",
    "RelaxedCounter",
    "TooManyStates",
    "check",
    "percent",
    "reconstruct",
]

DEFAULT_STATE_BUDGET = 30_000


class TooManyStates(Exception):
    """The exact programme would need more states than its budget."""


# --------------------------------------------------------------------------- completions


@dataclass(frozen=True)
class Completion:
    """One way to complete a partial deal: the card in each slot and the leader of trick 1."""

    slots: tuple[int, ...]
    first_lead: int
    banker: int = 0
    readings: tuple[str | None, ...] = (None,)
    """The readings (of an either/or) whose facts this completion satisfies."""

    @property
    def key(self) -> tuple[tuple[int, ...], int]:
        return self.slots, self.first_lead

    def hands(self) -> list[list[int]]:
        return [sorted(self.slots[4 * k + s] for k in range(8)) for s in range(4)]

    def tricks(self) -> list[tuple[int, tuple[int, ...], int, int]]:
        """(leader, cards in play order, winner, winning card) per trick."""
        out = []
        lead = self.first_lead
        for k in range(8):
            cards = tuple(self.slots[4 * k + (lead + p) % 4] for p in range(4))
            best = 0
            for p in range(1, 4):
                if CARD_SUIT[cards[p]] == CARD_SUIT[cards[best]] and cards[p] < cards[best]:
                    best = p
            winner = (lead + best) % 4
            out.append((lead, cards, winner, cards[best]))
            lead = winner
        return out

    def to_deal(self, partial: PartialDeal, deal_id: str) -> Deal:
        tricks = self.tricks()
        won_trick = {wc: k + 1 for k, (_l, _c, _w, wc) in enumerate(tricks)}
        events = []
        for e in partial.events:
            trick = e.get("trick")
            if "trick_won_with" in e:
                trick = won_trick.get(e["trick_won_with"])
            events.append(Event(type=e["type"], seat=Seat(e["seat"]), trick=trick,
                                card=Card(e["card"]) if "card" in e else None,
                                victim=Seat(e["victim"]) if "victim" in e else None, note=e.get("note")))
        return Deal(
            id=deal_id, banker=Seat(self.banker),
            hands=tuple(tuple(Card(c) for c in h) for h in self.hands()),  # type: ignore[arg-type]
            stock=tuple(Card(c) for c in self.slots[32:]),
            play=tuple(RecordedTrick(Seat(lead), tuple(Card(c) for c in cards))  # type: ignore[arg-type]
                       for lead, cards, _w, _wc in tricks),
            events=tuple(events), title=partial.title, source=partial.source, guan_dui=partial.guan_dui,
            origin=partial.origin,
        )


def check(cons: Constraints, slots: Sequence[int], first_lead: int, *, relaxed: bool = False) -> bool:
    """True when the completion satisfies every fact of *cons* (only the slot and hand facts if *relaxed*)."""
    for slot, card in cons.placed.items():
        if slots[slot] != card:
            return False
    compat = cons.compat
    for slot in range(40):
        allowed = compat.get(slots[slot])
        if allowed is not None and not allowed >> slot & 1:
            return False
    if first_lead not in cons.first_leads:
        return False
    for (seat, suit), (lo, hi) in cons.suit_counts.items():
        n = sum(1 for k in range(8) if CARD_SUIT[slots[4 * k + seat]] == suit)
        if not lo <= n <= hi:
            return False
    for seat, mask in cons.holds:
        if not any(mask >> slots[4 * k + seat] & 1 for k in range(8)):
            return False
    if relaxed:
        return True
    wins = [0, 0, 0, 0]
    lead = first_lead
    won_by = cons.won_by
    for k in range(8):
        best = 0
        cards = [slots[4 * k + (lead + p) % 4] for p in range(4)]
        for p in range(4):
            slot = 4 * k + (lead + p) % 4
            captures = p > 0 and CARD_SUIT[cards[p]] == CARD_SUIT[cards[best]] and cards[p] < cards[best]
            flag = cons.flags.get(slot)
            if flag is not None and (p == 0 or (flag == "zhuo") != captures):
                return False
            if captures:
                best = p
        winner = (lead + best) % 4
        wc = cards[best]
        if cons.winners.get(k, winner) != winner:
            return False
        for c in cards:
            if c in won_by and c != wc:
                return False
        if winner in cons.exact_seats and won_by.get(wc) != winner:
            return False
        wins[winner] += 1
        lead = winner
    return all(wins[s] == n for s, n in cons.tricks.items())


# --------------------------------------------------------------------------- card classes


@dataclass(frozen=True)
class _Class:
    mask: int
    members: tuple[int, ...]
    compat: int
    suit: int
    top: int
    won_by: int


def _classes(cons: Constraints, *, fine: bool) -> list[_Class]:
    """Group the free cards into classes of cards that every fact treats alike.

    *fine*: classes are also runs adjacent in rank inside a suit, cut at cards placed in
    tricks, so that any two classes (and a class and a placed card) of one suit compare
    as wholes.
    """
    holds = [m for _s, m in cons.holds]
    suits_matter = fine or bool(cons.suit_counts)

    def sig(c: int) -> tuple[Any, ...]:
        return (cons.compat[c], cons.won_by.get(c, -1), tuple(m >> c & 1 for m in holds),
                CARD_SUIT[c] if suits_matter else -1)

    groups: list[list[int]] = []
    if fine:
        in_trick = {c for s, c in cons.placed.items() if s < 32}
        for suit in range(4):
            run: list[int] = []
            for c in (c for c in range(40) if CARD_SUIT[c] == suit):
                if c in cons.compat:
                    if run and sig(run[0]) == sig(c):
                        run.append(c)
                    else:
                        if run:
                            groups.append(run)
                        run = [c]
                elif c in in_trick:
                    if run:
                        groups.append(run)
                    run = []
            if run:
                groups.append(run)
    else:
        by_sig: dict[tuple[Any, ...], list[int]] = {}
        for c in sorted(cons.compat):
            by_sig.setdefault(sig(c), []).append(c)
        groups = list(by_sig.values())
    out = []
    for g in groups:
        mask = 0
        for c in g:
            mask |= 1 << c
        first = g[0]
        won_by = cons.won_by.get(first, -1)
        out.append(_Class(mask, tuple(g), cons.compat[first], CARD_SUIT[first], first, won_by))
    return out




def _pick(rng: random.Random, mask: int) -> int:
    bits = bits_of(mask)
    return bits[rng.randrange(len(bits))]


def _choose(rng: random.Random, weights: Sequence[int]) -> int:
    total = sum(weights)
    r = rng.randrange(total)
    for i, w in enumerate(weights):
        if r < w:
            return i
        r -= w
    raise AssertionError("unreachable")  # pragma: no cover


# --------------------------------------------------------------------------- the exact programme


State = tuple  # (t, rem, counts, leader, best, best_pos, acc)


class ExactCounter:
    """Exact count, uniform draw and listing of the completions of one :class:`Constraints`.

    The state after each slot is ``(t, rem, counts, leader, best, best_pos, acc)``: the
    step (slots in play order, then the stock), the free cards left (a mask) and how many
    of each class, the leader of the trick, its best card so far and who played it, and
    the counters the facts need.  Its memo key drops what cannot matter any more.
    """

    def __init__(self, cons: Constraints, *, budget: int = DEFAULT_STATE_BUDGET) -> None:
        self.cons = cons
        self.budget = budget
        self.classes = _classes(cons, fine=True)
        self.class_masks = tuple(k.mask for k in self.classes)
        self.cls_of: dict[int, int] = {}
        for i, k in enumerate(self.classes):
            for c in k.members:
                self.cls_of[c] = i
        self.by_slot: list[list[int]] = [[i for i, k in enumerate(self.classes) if k.compat >> s & 1]
                                         for s in range(40)]
        self.placed = cons.placed
        self.suit_keys = sorted(cons.suit_counts)
        self.suit_index = {key: i for i, key in enumerate(self.suit_keys)}
        self.trick_seats = sorted(cons.tricks)
        self.trick_index = {s: i for i, s in enumerate(self.trick_seats)}
        self.owner = []
        for k in self.classes:
            own = -1
            for s in range(4):
                if not k.compat & ~SEAT_SLOTS[s]:
                    own = s
            self.owner.append(own)
        self.free_from = [[sum(1 for kk in range(k, 8) if 4 * kk + s not in self.placed) for k in range(9)]
                          for s in range(4)]
        # A class can end a trick as its winning card unless every seat that may play it
        # won only with its listed cards (and the class is not among them).
        self.can_win = [k.won_by >= 0 or any(k.compat & SEAT_SLOTS[s] for s in range(4)
                                             if s not in cons.exact_seats)
                        for k in self.classes]
        self.flagged = 0
        for slot in cons.flags:
            self.flagged |= 1 << slot
        self.later = [[[self._later_slots(k, lead, p) for p in range(5)] for lead in range(4)]
                      for k in range(8)]
        self.memo: dict[tuple[Any, ...], int] = {}
        self._total: int | None = None

    # ---- helpers
    @staticmethod
    def _later_slots(k: int, leader: int, p: int) -> int:
        mask = 0
        for q in range(p, 4):
            mask |= 1 << (4 * k + (leader + q) % 4)
        return mask

    def _rank_matters(self, ci: int, k: int, leader: int, p: int) -> bool:
        """Whether a later card of class *ci* may be compared with a best card of the same class.

        It matters when such a card may be played later in the trick and either its slot
        says 捉 or 滅, or a card of the class may end up winning the trick.
        """
        later = self.classes[ci].compat & self.later[k][leader][p]
        return bool(later and (self.can_win[ci] or later & self.flagged))

    def _key(self, state: State) -> tuple[Any, ...]:
        t, rem, counts, leader, best, best_pos, acc = state
        if t >= 32:
            return (t, counts)
        p = t & 3
        if p == 0:
            return (t, leader, counts, acc)
        ci = self.cls_of.get(best)
        if ci is None:
            return (t, leader, best, counts, acc)  # a placed card: its slot says who played it
        a = 0
        if self._rank_matters(ci, t >> 2, leader, p):
            a = (rem & self.class_masks[ci] & ((1 << best) - 1)).bit_count()
        if not self.can_win[ci] or self.owner[ci] >= 0:
            best_pos = 0  # who played it is known from the class, or cannot matter
        return (t, leader, 40 + ci * 64 + a, best_pos, counts, acc)

    def _beats(self, card: int, best: int) -> bool:
        return CARD_SUIT[card] == CARD_SUIT[best] and card < best

    def _options(self, state: State) -> list[tuple[int, int, int, bool]]:
        """Card choices for the next slot: (representative card, multiplicity, member mask, becomes best).

        All members of one entry lead to states with the same key; a member mask of 0
        means the single representative card.
        """
        t, rem, counts, leader, best, _bp, _acc = state
        if t >= 32:
            card = self.placed.get(t)
            if card is not None:
                return [(card, 1, 0, False)]
            out = []
            for ci in self.by_slot[t]:
                if counts[ci]:
                    mem = rem & self.class_masks[ci]
                    out.append(((mem & -mem).bit_length() - 1, counts[ci], mem, False))
            return out
        k, p = t >> 2, t & 3
        slot = 4 * k + (leader + p) % 4
        card = self.placed.get(slot)
        if card is not None:
            return [(card, 1, 0, p == 0 or self._beats(card, best))]
        out = []
        best_ci = self.cls_of.get(best, -1)
        for ci in self.by_slot[slot]:
            if not counts[ci]:
                continue
            cl = self.classes[ci]
            mem = rem & cl.mask
            if p == 0:
                above, below = mem, 0
            elif cl.suit != CARD_SUIT[best]:
                above, below = 0, mem
            elif best_ci == ci:
                if not self._rank_matters(ci, k, leader, p):
                    above, below = 0, mem  # nothing observes which of the two ranks higher
                else:
                    above = mem & ((1 << best) - 1)
                    below = mem & ~above
            elif cl.top < best:
                above, below = mem, 0
            else:
                above, below = 0, mem
            if above:
                if p < 3 and self._rank_matters(ci, k, leader, p + 1):
                    out.extend((c, 1, 0, True) for c in bits_of(above))
                else:
                    out.append(((above & -above).bit_length() - 1, above.bit_count(), above, True))
            if below:
                out.append(((below & -below).bit_length() - 1, below.bit_count(), below, False))
        return out

    def _after(self, state: State, card: int, becomes_best: bool) -> State | None:
        """The state after *card* fills the next slot, or None when a fact fails."""
        t, rem, counts, leader, best, best_pos, acc = state
        cons = self.cons
        ci = self.cls_of.get(card)
        if ci is not None:
            rem &= ~(1 << card)
            counts = counts[:ci] + (counts[ci] - 1,) + counts[ci + 1:]
        if t >= 32:
            return (t + 1, rem, counts, leader, best, best_pos, acc)
        k, p = t >> 2, t & 3
        seat = (leader + p) % 4
        slot = 4 * k + seat
        flag = cons.flags.get(slot)
        if flag is not None and (p == 0 or (flag == "zhuo") != becomes_best):
            return None
        won_by = cons.won_by
        if card in won_by and not becomes_best:
            return None
        if becomes_best and best >= 0 and best in won_by:
            return None
        suits, holds, wins = acc
        key = (seat, CARD_SUIT[card])
        i = self.suit_index.get(key)
        if i is not None:
            n = suits[i] + 1
            if n > cons.suit_counts[key][1]:
                return None
            suits = suits[:i] + (n,) + suits[i + 1:]
        for j, (s, m) in enumerate(cons.holds):
            if s == seat and m >> card & 1:
                holds |= 1 << j
        if becomes_best:
            best, best_pos = card, p
        if p < 3:
            if not self._can_still_win(k, leader, p + 1, best, counts):
                return None
            return (t + 1, rem, counts, leader, best, best_pos, (suits, holds, wins))
        winner = (leader + best_pos) % 4
        if cons.winners.get(k, winner) != winner:
            return None
        if winner in cons.exact_seats and won_by.get(best) != winner:
            return None
        i = self.trick_index.get(winner)
        if i is not None:
            n = wins[i] + 1
            if n > cons.tricks[winner]:
                return None
            wins = wins[:i] + (n,) + wins[i + 1:]
        for s, j in self.trick_index.items():
            if wins[j] + (7 - k) < cons.tricks[s]:
                return None
        if k == 7:
            for (s, suit), (lo, _hi) in cons.suit_counts.items():
                if suits[self.suit_index[(s, suit)]] < lo:
                    return None
            if holds != (1 << len(cons.holds)) - 1:
                return None
        return (t + 1, rem, counts, winner, -1, 0, (suits, holds, wins))

    def _can_still_win(self, k: int, leader: int, p: int, best: int, counts: tuple[int, ...]) -> bool:
        """Cut: a best card that cannot win the trick must be beatable by a card still to come."""
        ci = self.cls_of.get(best)
        if ci is None or self.can_win[ci]:
            return True
        suit = CARD_SUIT[best]
        for q in range(p, 4):
            slot = 4 * k + (leader + q) % 4
            card = self.placed.get(slot)
            if card is not None:
                if CARD_SUIT[card] == suit and card < best:
                    return True
                continue
            for cj in self.by_slot[slot]:
                cl = self.classes[cj]
                if counts[cj] and cl.suit == suit and (cl.top < best or cj == ci):
                    return True
        return False

    def _feasible(self, t: int, counts: tuple[int, ...]) -> bool:
        """Cut: cards tied to one seat must fit in that seat's remaining free slots."""
        k = t >> 2
        need = [0, 0, 0, 0]
        for ci, own in enumerate(self.owner):
            if own >= 0:
                need[own] += counts[ci]
        return all(need[s] <= self.free_from[s][k] for s in range(4))

    # ---- counting
    def _count(self, state: State) -> int:
        t = state[0]
        if t == 40:
            return 1
        key = self._key(state)
        got = self.memo.get(key)
        if got is not None:
            return got
        if len(self.memo) >= self.budget:
            raise TooManyStates
        total = 0
        if not (t < 32 and t & 3 == 0 and not self._feasible(t, state[2])):
            for card, mult, _mem, bb in self._options(state):
                child = self._after(state, card, bb)
                if child is not None:
                    total += mult * self._count(child)
        self.memo[key] = total
        return total

    def _roots(self) -> list[tuple[int, State]]:
        rem = 0
        for c in self.cons.compat:
            rem |= 1 << c
        counts = tuple(k.mask.bit_count() for k in self.classes)
        acc = (tuple(0 for _ in self.suit_keys), 0, tuple(0 for _ in self.trick_seats))
        return [(lead, (0, rem, counts, lead, -1, 0, acc)) for lead in self.cons.first_leads]

    def count(self) -> int:
        """The exact number of completions (raises :class:`TooManyStates` past the budget)."""
        if self._total is None:
            self._total = sum(self._count(root) for _lead, root in self._roots())
        return self._total

    def sample(self, rng: random.Random) -> Completion:
        """One completion drawn uniformly at random (see the module docstring)."""
        roots = self._roots()
        lead, state = roots[_choose(rng, [self._count(r) for _l, r in roots])]
        slots = [-1] * 40
        for slot, card in self.placed.items():
            slots[slot] = card
        while state[0] < 40:
            opts = []
            for card, mult, mem, bb in self._options(state):
                child = self._after(state, card, bb)
                if child is not None:
                    w = mult * self._count(child)
                    if w:
                        opts.append((card, mem, bb, w))
            card, mem, bb, _w = opts[_choose(rng, [o[3] for o in opts])]
            if mem:
                card = _pick(rng, mem)
            nxt = self._after(state, card, bb)
            assert nxt is not None
            slots[_slot_of(state[0], state[3])] = card
            state = nxt
        return Completion(tuple(slots), lead)

    def enumerate(self) -> Iterator[Completion]:
        """Every completion, each once."""
        slots = [-1] * 40
        for slot, card in self.placed.items():
            slots[slot] = card

        def walk(state: State) -> Iterator[None]:
            if state[0] == 40:
                yield None
                return
            for card0, _mult, mem, bb in self._options(state):
                for card in (bits_of(mem) if mem else [card0]):
                    child = self._after(state, card, bb)
                    if child is not None and self._count(child):
                        slots[_slot_of(state[0], state[3])] = card
                        yield from walk(child)

        for lead, root in self._roots():
            if self._count(root):
                for _ in walk(root):
                    yield Completion(tuple(slots), lead)


class SkeletonCounter:
    """Exact count and uniform draw when every trick is won by a listed card.

    Applies when every seat won only with its listed cards (so the 8 listed cards win the
    8 tricks) and nothing else is said about the other cards in the tricks.  Then a
    completion is (a) a *skeleton* — the order in which the listed cards win and who led
    trick 1 — and (b) a placement of the other cards (*fillers*) in the slots the skeleton
    leaves: in the trick won by w, a filler led by another seat must be of w's suit and
    lower, and the other fillers must not beat w.  Which slots need a led filler depends
    only on the set N of listed cards whose trick was led by another seat, so

        completions = Σ_N skeletons(N) × placements(N)

    where skeletons(N) is a small programme over (listed cards used, leader) and
    placements(N) a transportation count of filler classes into slot types.  A draw takes
    N in proportion to its term, a skeleton uniformly among those with that N, then a
    placement uniformly (a table of how many cards of each class go to each slot type,
    in proportion to its number of placements, then cards and slots shuffled).
    """

    def __init__(self, cons: Constraints) -> None:
        self.cons = cons
        self.won = sorted(cons.won_by)
        self.owner = [cons.won_by[c] for c in self.won]
        classes = _classes(cons, fine=True)
        self.fillers = [k for k in classes if k.won_by < 0]
        self.n_won = len(self.won)
        self._skel: dict[tuple[int, int, int, int], int] = {}
        self._match: dict[tuple[Any, ...], int] = {}
        self._table_memo: dict[tuple[frozenset[int], ...], dict[tuple[int, tuple[int, ...]], int]] = {}
        self._split_cache: dict[tuple[Any, ...], tuple[list[int], list[tuple[int, ...]], list[int]]] = {}
        self._terms: dict[int, int] | None = None

    @staticmethod
    def applies(cons: Constraints) -> bool:
        if len(cons.exact_seats) != 4 or len(cons.won_by) != 8:
            return False
        if cons.flags or cons.suit_counts or cons.holds:
            return False
        if any(slot < 32 for slot in cons.placed):
            return False
        trick_slots = (1 << 32) - 1
        for c, m in cons.compat.items():
            if c in cons.won_by:
                if m & trick_slots != SEAT_SLOTS[cons.won_by[c]]:
                    return False
            elif m & trick_slots != trick_slots:
                return False
        return True

    # ---- skeletons
    def _skeletons(self, k: int, used: int, leader: int, target: int) -> int:
        """Skeletons that finish tricks k… (listed cards *used*, *leader* to lead) with N = *target*."""
        if k == 8:
            return 1
        key = (k, used, leader, target)
        got = self._skel.get(key)
        if got is not None:
            return got
        total = 0
        for i in range(self.n_won):
            if used >> i & 1:
                continue
            w = self.owner[i]
            if self.cons.winners.get(k, w) != w or bool(target >> i & 1) != (leader != w):
                continue
            total += self._skeletons(k + 1, used | 1 << i, w, target)
        self._skel[key] = total
        return total

    def terms(self) -> dict[int, int]:
        """N (bit i: listed card i was led to by another seat) → completions with that N."""
        if self._terms is None:
            per_n: Counter[int] = Counter()
            # Per state (k, used, leader): how many ways to finish, split by N.
            per_state: dict[tuple[int, int, int], Counter[int]] = {}

            def table(k: int, used: int, leader: int) -> Counter[int]:
                if k == 8:
                    return Counter({0: 1})
                key = (k, used, leader)
                got = per_state.get(key)
                if got is not None:
                    return got
                out: Counter[int] = Counter()
                for i in range(self.n_won):
                    if used >> i & 1:
                        continue
                    w = self.owner[i]
                    if self.cons.winners.get(k, w) != w:
                        continue
                    bit = (leader != w) << i
                    for n, ways in table(k + 1, used | 1 << i, w).items():
                        out[n | bit] += ways
                per_state[key] = out
                return out

            for lead in self.cons.first_leads:
                per_n.update(table(0, 0, lead))
            self._terms = {n: ways * self.placements(n) for n, ways in per_n.items()}
            self._terms = {n: v for n, v in self._terms.items() if v}
        return self._terms

    def count(self) -> int:
        return sum(self.terms().values())

    # ---- filler placements
    def _slot_types(self, need: int) -> list[tuple[frozenset[int], int]]:
        """(allowed filler classes, number of slots) for the fillers' slots when N = *need*."""
        types: Counter[frozenset[int]] = Counter()
        for i, w in enumerate(self.won):
            led = bool(need >> i & 1)
            if led:
                types[self._led_type(w)] += 1
            types[self._free_type(w)] += 3 - led
        for slot in range(32, 40):
            if slot in self.cons.placed:
                continue
            types[frozenset(j for j, k in enumerate(self.fillers) if k.compat >> slot & 1)] += 1
        return sorted(types.items(), key=lambda kv: sorted(kv[0]))

    def _led_type(self, w: int) -> frozenset[int]:
        return frozenset(j for j, k in enumerate(self.fillers) if k.suit == CARD_SUIT[w] and k.top > w)

    def _free_type(self, w: int) -> frozenset[int]:
        return frozenset(j for j, k in enumerate(self.fillers) if not (k.suit == CARD_SUIT[w] and k.top < w))

    def placements(self, need: int) -> int:
        types = self._slot_types(need)
        caps = tuple(n for _t, n in types)
        key = (tuple(t for t, _n in types), caps)
        got = self._match.get(key)
        if got is None:
            tt = tuple(t for t, _n in types)
            got = self._tables(0, caps, tt, self._table_memo.setdefault(tt, {}))
            for n in caps:
                got *= math.factorial(n)
            self._match[key] = got
        return got

    def _tables(self, j: int, caps: tuple[int, ...], types: tuple[frozenset[int], ...],
                memo: dict[tuple[int, tuple[int, ...]], int]) -> int:
        """Σ over ways to share classes j… among slot types (capacities *caps*) of Π n_K!/Π x!."""
        if j == len(self.fillers):
            return 1 if not any(caps) else 0
        key = (j, caps)
        got = memo.get(key)
        if got is not None:
            return got
        n = len(self.fillers[j].members)
        allowed = [i for i, t in enumerate(types) if j in t and caps[i]]
        total = 0
        for split in _splits(n, [caps[i] for i in allowed]):
            rest = list(caps)
            weight = math.factorial(n)
            for i, x in zip(allowed, split, strict=True):
                rest[i] -= x
                weight //= math.factorial(x)
            total += weight * self._tables(j + 1, tuple(rest), types, memo)
        memo[key] = total
        return total

    def _split_weights(self, j: int, caps: tuple[int, ...], tt: tuple[frozenset[int], ...],
                       memo: dict[tuple[int, tuple[int, ...]], int]
                       ) -> tuple[list[int], list[tuple[int, ...]], list[int]]:
        """For class j and capacities *caps*: the types it may use, its splits among them, their weights."""
        key = (j, caps, tt)
        got = self._split_cache.get(key)
        if got is None:
            n = len(self.fillers[j].members)
            allowed = [x for x, t in enumerate(tt) if j in t and caps[x]]
            splits = list(_splits(n, [caps[x] for x in allowed]))
            weights = []
            for split in splits:
                rest = list(caps)
                weight = math.factorial(n)
                for x, m in zip(allowed, split, strict=True):
                    rest[x] -= m
                    weight //= math.factorial(m)
                weights.append(weight * self._tables(j + 1, tuple(rest), tt, memo))
            got = (allowed, splits, weights)
            self._split_cache[key] = got
        return got

    # ---- drawing
    def sample(self, rng: random.Random) -> Completion:
        terms = self.terms()
        ns = sorted(terms)
        need = ns[_choose(rng, [terms[n] for n in ns])]
        # A skeleton with this N, uniformly: walk with the counts of skeletons ending at N.
        leads = [lead for lead in self.cons.first_leads]
        lead = leads[_choose(rng, [self._skeletons(0, 0, ld, need) for ld in leads])]
        order: list[int] = []
        leaders: list[int] = []
        used, leader = 0, lead
        for k in range(8):
            options = []
            for i in range(self.n_won):
                if used >> i & 1:
                    continue
                w = self.owner[i]
                if self.cons.winners.get(k, w) != w or bool(need >> i & 1) != (leader != w):
                    continue
                ways = self._skeletons(k + 1, used | 1 << i, w, need)
                if ways:
                    options.append((i, ways))
            i = options[_choose(rng, [o[1] for o in options])][0]
            order.append(i)
            leaders.append(leader)
            used |= 1 << i
            leader = self.owner[i]
        # Slots per type, in a fixed order, then a uniform placement of the fillers.
        types = self._slot_types(need)
        type_index = {t: x for x, (t, _n) in enumerate(types)}
        slots_of: list[list[int]] = [[] for _ in types]
        slots = [-1] * 40
        for s, c in self.cons.placed.items():
            slots[s] = c
        for k, i in enumerate(order):
            w, owner, lead_k = self.won[i], self.owner[i], leaders[k]
            slots[4 * k + owner] = w
            for seat in range(4):
                if seat == owner:
                    continue
                t = self._led_type(w) if seat == lead_k else self._free_type(w)
                slots_of[type_index[t]].append(4 * k + seat)
        for slot in range(32, 40):
            if slot not in self.cons.placed:
                t = frozenset(j for j, kk in enumerate(self.fillers) if kk.compat >> slot & 1)
                slots_of[type_index[t]].append(slot)
        caps = [n for _t, n in types]
        tt = tuple(t for t, _n in types)
        memo = self._table_memo.setdefault(tt, {})
        assigned: list[list[int]] = [[] for _ in types]
        for j, cl in enumerate(self.fillers):
            allowed, splits, weights = self._split_weights(j, tuple(caps), tt, memo)
            split = splits[_choose(rng, weights)]
            members = list(cl.members)
            rng.shuffle(members)
            for x, m in zip(allowed, split, strict=True):
                assigned[x].extend(members[:m])
                members = members[m:]
                caps[x] -= m
        for x, cards in enumerate(assigned):
            rng.shuffle(cards)
            for slot, card in zip(slots_of[x], cards, strict=True):
                slots[slot] = card
        return Completion(tuple(slots), lead)


def _splits(n: int, caps: list[int]) -> Iterator[tuple[int, ...]]:
    """Ways to write n as an ordered sum x_0 + … with 0 ≤ x_i ≤ caps[i]."""
    if not caps:
        if n == 0:
            yield ()
        return
    if n > sum(caps):
        return
    for x in range(min(n, caps[0]), -1, -1):
        for rest in _splits(n - x, caps[1:]):
            yield (x, *rest)


def _slot_of(t: int, leader: int) -> int:
    return t if t >= 32 else 4 * (t >> 2) + (leader + (t & 3)) % 4


# --------------------------------------------------------------------------- the relaxed programme


_SEAT_ORDER = tuple([4 * k + s for s in range(4) for k in range(8)] + list(range(32, 40)))


class RelaxedCounter:
    """Completions of the slot and hand facts only (tricks ignored), counted seat by seat.

    Its set contains every completion of the full facts, so drawing uniformly from it and
    keeping the draws that pass :func:`check` is a uniform draw of the completions.  The
    programme runs on class counts only: a draw first chooses, slot by slot, which class
    fills it (each step in proportion to the number of ways through it, with the steps of
    each state cached), then deals each class's cards to its slots in a random order.
    """

    def __init__(self, cons: Constraints) -> None:
        self.cons = cons
        self.classes = _classes(cons, fine=False)
        self.by_slot = [[i for i, k in enumerate(self.classes) if k.compat >> s & 1] for s in range(40)]
        self.owned_by = [[i for i, k in enumerate(self.classes) if k.compat and not k.compat & ~SEAT_SLOTS[s]]
                         for s in range(4)]
        self.seat_suits = [[(suit, lo, hi) for (s, suit), (lo, hi) in sorted(cons.suit_counts.items())
                            if s == seat] for seat in range(4)]
        self.seat_holds = [[m for s, m in cons.holds if s == seat] for seat in range(4)]
        self.memo: dict[tuple[Any, ...], int] = {}
        self.steps: dict[tuple[Any, ...], tuple[list[int], list[tuple[Any, ...]], list[int]]] = {}
        counts = tuple(len(k.members) for k in self.classes)
        self.root = (0, counts, (tuple(0 for _ in self.seat_suits[0]), 0))

    def _after(self, state: tuple[Any, ...], ci: int, card: int) -> tuple[Any, ...] | None:
        """The state after the slot of step i takes a card of class *ci* (−1: the placed *card*)."""
        i, counts, acc = state
        if ci >= 0:
            counts = counts[:ci] + (counts[ci] - 1,) + counts[ci + 1:]
        if i >= 32:
            return (i + 1, counts, acc)
        seat = i >> 3
        n_suit, holds = acc
        suits = self.seat_suits[seat]
        if suits:
            n_suit = tuple(n + (CARD_SUIT[card] == suit)
                           for n, (suit, _lo, _hi) in zip(n_suit, suits, strict=True))
            if any(n > hi for n, (_s, _lo, hi) in zip(n_suit, suits, strict=True)):
                return None
        for j, m in enumerate(self.seat_holds[seat]):
            if m >> card & 1:
                holds |= 1 << j
        if i & 7 == 7:  # the seat's hand is complete
            if any(n < lo for n, (_s, lo, _hi) in zip(n_suit, suits, strict=True)):
                return None
            if holds != (1 << len(self.seat_holds[seat])) - 1:
                return None
            if any(counts[cj] for cj in self.owned_by[seat]):
                return None
            nxt = (tuple(0 for _ in self.seat_suits[seat + 1]), 0) if seat < 3 else ((), 0)
            return (i + 1, counts, nxt)
        return (i + 1, counts, (n_suit, holds))

    def _steps(self, state: tuple[Any, ...]) -> tuple[list[int], list[tuple[Any, ...]], list[int]]:
        """(cumulative weights, child states, class per step; −1 for a placed card) from *state*."""
        got = self.steps.get(state)
        if got is not None:
            return got
        i, counts, _acc = state
        slot = _SEAT_ORDER[i]
        cum: list[int] = []
        children: list[tuple[Any, ...]] = []
        which: list[int] = []
        total = 0
        card = self.cons.placed.get(slot)
        if card is not None:
            options = [(-1, card, 1)]
        else:
            options = [(ci, self.classes[ci].members[0], counts[ci])
                       for ci in self.by_slot[slot] if counts[ci]]
        for ci, rep, mult in options:
            child = self._after(state, ci, rep)
            if child is None:
                continue
            w = mult * self._count(child)
            if w:
                total += w
                cum.append(total)
                children.append(child)
                which.append(ci)
        got = (cum, children, which)
        self.steps[state] = got
        return got

    def _count(self, state: tuple[Any, ...]) -> int:
        if state[0] == 40:
            return 1
        got = self.memo.get(state)
        if got is None:
            cum = self._steps(state)[0]
            got = cum[-1] if cum else 0
            self.memo[state] = got
        return got

    def count(self) -> int:
        """Slot assignments × choices of the first leader."""
        return self._count(self.root) * len(self.cons.first_leads)

    def _deal(self, rng: random.Random, which: list[int]) -> tuple[int, ...]:
        slots = [-1] * 40
        for slot, card in self.cons.placed.items():
            slots[slot] = card
        pools = [list(k.members) for k in self.classes]
        for pool in pools:
            rng.shuffle(pool)
        for i, ci in enumerate(which):
            if ci >= 0:
                slots[_SEAT_ORDER[i]] = pools[ci].pop()
        return tuple(slots)

    def sample(self, rng: random.Random) -> Completion:
        state = self.root
        which: list[int] = []
        while state[0] < 40:
            cum, children, classes = self._steps(state)
            j = bisect.bisect_right(cum, rng.randrange(cum[-1])) if len(cum) > 1 else 0
            which.append(classes[j])
            state = children[j]
        leads = self.cons.first_leads
        return Completion(self._deal(rng, which), leads[rng.randrange(len(leads))])

    def enumerate(self) -> Iterator[Completion]:
        """Every completion of the slot and hand facts (for small sets only)."""
        def walk(state: tuple[Any, ...], which: list[int]) -> Iterator[list[int]]:
            if state[0] == 40:
                yield which
                return
            _cum, children, classes = self._steps(state)
            for child, ci in zip(children, classes, strict=True):
                yield from walk(child, [*which, ci])

        if not self._count(self.root):
            return
        for which in walk(self.root, []):
            slot_lists: list[list[int]] = [[] for _ in self.classes]
            for i, ci in enumerate(which):
                if ci >= 0:
                    slot_lists[ci].append(_SEAT_ORDER[i])
            base = [-1] * 40
            for slot, card in self.cons.placed.items():
                base[slot] = card
            perms = [list(itertools.permutations(k.members)) for k in self.classes]
            for choice in itertools.product(*perms):
                slots = list(base)
                for ci, members in enumerate(choice):
                    for slot, card in zip(slot_lists[ci], members, strict=True):
                        slots[slot] = card
                for lead in self.cons.first_leads:
                    yield Completion(tuple(slots), lead)


# --------------------------------------------------------------------------- one reading's completions


@dataclass
class _Space:
    """The completions of one reading, with whatever counting method works for it."""

    reading: Reading | None
    cons: Constraints
    relaxed: RelaxedCounter
    relaxed_count: int
    sampler: Any = None
    """An exact counter with ``sample(rng)`` (ExactCounter or SkeletonCounter), if one worked."""
    count: int | None = None
    listed: list[Completion] | None = None
    how: str = ""

    @property
    def rid(self) -> str | None:
        return self.reading.id if self.reading is not None else None

    def contains(self, c: Completion) -> bool:
        return check(self.cons, c.slots, c.first_lead)

    def relaxed_contains(self, c: Completion) -> bool:
        return check(self.cons, c.slots, c.first_lead, relaxed=True)

    def exact_sample(self, rng: random.Random) -> Completion:
        if self.listed is not None:
            return self.listed[rng.randrange(len(self.listed))]
        return self.sampler.sample(rng)

    def all(self) -> Iterator[Completion]:
        if self.listed is not None:
            return iter(self.listed)
        if isinstance(self.sampler, ExactCounter):
            return self.sampler.enumerate()
        return ExactCounter(self.cons, budget=10 * DEFAULT_STATE_BUDGET).enumerate()


METHODS = ("auto", "exact", "rejection")
FRUITLESS_DRAWS = 50_000
"""Rejection sampling gives up after this many draws without one completion."""


def _space(partial: PartialDeal, reading: Reading | None, *, budget: int, relaxed_list_limit: int,
           method: str = "auto") -> _Space:
    cons = partial.constraints(reading)
    relaxed = RelaxedCounter(cons)
    sp = _Space(reading, cons, relaxed, relaxed.count())
    if method == "rejection":
        return sp
    if SkeletonCounter.applies(cons):
        sk = SkeletonCounter(cons)
        sp.sampler, sp.count = sk, sk.count()
        sp.how = ("exact: every trick is won by a listed card — skeletons (order of the winning cards, "
                  "first leader) × placements of the other cards by class")
        return sp
    try:
        exact = ExactCounter(cons, budget=budget)
        sp.count = exact.count()
        sp.sampler = exact
        sp.how = f"exact: dynamic programme over the slots with {len(exact.classes)} card classes"
    except TooManyStates:
        if method == "exact":
            raise InputError(f"partial deal {partial.id!r}: the exact count needs more than {budget:,} "
                             "states; "
                             "use the default method (rejection sampling)", file=partial.origin) from None
        if sp.relaxed_count <= relaxed_list_limit:
            sp.listed = [c for c in relaxed.enumerate() if sp.contains(c)]
            sp.count = len(sp.listed)
            sp.how = (f"exact: listed from the {sp.relaxed_count:,} completions of the slot and hand facts, "
                      "each checked against the trick facts")
    return sp


def _disjoint(a: Constraints, b: Constraints) -> bool:
    """True when some card can sit in no slot that both readings allow."""
    for c in range(40):
        pa = next((1 << s for s, x in a.placed.items() if x == c), a.compat.get(c, 0))
        pb = next((1 << s for s, x in b.placed.items() if x == c), b.compat.get(c, 0))
        if not pa & pb:
            return True
    return False


# --------------------------------------------------------------------------- the result


@dataclass
class SeatSummary:
    nets: Counter[int] = field(default_factory=Counter)
    items: Counter[tuple[str, str]] = field(default_factory=Counter)
    item_amounts: dict[tuple[str, str], Counter[int]] = field(default_factory=dict)


@dataclass
class RulesetSummary:
    """One ruleset over the completions considered (or those it plays, when the source says it was played)."""

    ruleset: Ruleset
    status: Counter[str]
    seats: list[SeatSummary]
    basis: int
    """How many completions the seat summaries are over."""
    excluded: int
    """Completions left out: this ruleset would not play the hand (免斗) but the source says it was played."""
    by_reading: dict[str | None, list[Counter[int]]]
    note: str | None = None


@dataclass
class Reconstruction:
    """What :func:`reconstruct` found: counts, the method, and per ruleset and seat the spread of results."""

    partial: PartialDeal
    bankers: tuple[int, ...]
    readings: list[str | None]
    count: int | None
    """Exact number of completions (× banker choices), or None when only estimated."""
    estimate: float | None
    interval: tuple[float, float] | None
    method: str
    counting: str
    considered: int
    exhaustive: bool
    proposals: int
    accepted: int
    reading_counts: dict[str | None, int | None]
    reading_share: Counter[str | None]
    summaries: list[RulesetSummary]
    tricks: list[Counter[int]]
    always_held: list[int]
    ever_held: list[int]
    face: Counter[int]
    seed: str
    completions: list[Deal]
    notes: list[str]


def reconstruct(partial: PartialDeal, rulesets: Sequence[Ruleset], *, samples: int = 1000,
                seed: str | int = 0,
                reading: str | None = None, banker: int | None = None, budget: int = DEFAULT_STATE_BUDGET,
                max_proposals: int | None = None, keep_deals: bool = False, method: str = "auto",
                enumerate_up_to: int | None = None,
                progress: Callable[[int], None] | None = None) -> Reconstruction:
    """Complete *partial* (every reading, or one), settle each completion under each ruleset.

    When the exact count is at most *enumerate_up_to* (default: *samples*) every
    completion is settled; otherwise *samples* completions are drawn uniformly (seeded by
    *seed* and the deal id).  *method* ``exact`` or ``rejection`` forces a method.
    *progress* is called with 1 for each completion drawn and each one settled (at most
    2 × *samples* in all), for a progress bar.
    """
    tick = progress or (lambda _n: None)
    if samples < 1:
        raise InputError("--samples must be at least 1")
    bankers = partial.bankers
    if banker is not None:
        if partial.banker_choices and Seat(banker).id not in partial.banker_choices and banker not in bankers:
            raise InputError(f"partial deal {partial.id!r}: banker {Seat(banker).id} is not one of its "
                             "choices "
                             f"({', '.join(partial.banker_choices)})", file=partial.origin)
        bankers = (banker,)
    chosen = [partial.reading(reading)] if reading is not None else (list(partial.readings) or [None])
    if method not in METHODS:
        raise InputError(f"unknown method {method!r} (use {', '.join(METHODS)})")
    spaces = [_space(partial, r, budget=budget, relaxed_list_limit=max(20_000, samples * 20), method=method)
              for r in chosen]
    rng = random.Random(f"{seed}/{partial.id}")
    notes: list[str] = []
    nb = len(bankers)

    exact_all = all(sp.count is not None for sp in spaces)
    disjoint = all(_disjoint(a.cons, b.cons) for i, a in enumerate(spaces) for b in spaces[:i])
    picked: list[Completion] = []
    proposals = accepted = 0
    exhaustive = False
    count: int | None = None
    estimate: float | None = None
    interval: tuple[float, float] | None = None

    if exact_all and disjoint:
        count = sum(sp.count for sp in spaces) * nb  # type: ignore[misc]
    limit = samples if enumerate_up_to is None else enumerate_up_to
    if exact_all and sum(sp.count for sp in spaces) * nb <= limit:  # type: ignore[misc]
        try:
            picked = _list_all(spaces, bankers)
            count = len(picked)
            exhaustive = True
            how = "every completion listed (exact enumeration)"
        except TooManyStates:  # counted another way than it can be listed: draw instead
            picked = []
    if exhaustive:
        pass
    elif exact_all and sum(sp.count for sp in spaces):  # type: ignore[misc]
        weights = [sp.count for sp in spaces]
        while len(picked) < samples:
            proposals += 1
            i = _choose(rng, weights)  # type: ignore[arg-type]
            c = spaces[i].exact_sample(rng)
            inside = [sp.rid for sp in spaces if sp is spaces[i] or sp.contains(c)]
            if len(inside) > 1 and rng.randrange(len(inside)):
                continue
            accepted += 1
            picked.append(Completion(c.slots, c.first_lead, bankers[rng.randrange(nb)], tuple(inside)))
            tick(1)
        how = f"{samples} completions drawn uniformly at random by exact sequential sampling (seed {seed!r})"
        if len(spaces) > 1:
            how += ("; a reading is drawn in proportion to its count, and a completion that several readings "
                    "allow is kept with probability 1/(number of them)")
        if count is None:
            total = sum(weights) * nb  # type: ignore[arg-type]
            estimate = total * accepted / proposals
            interval = tuple(total * x for x in _wilson(accepted, proposals))  # type: ignore[assignment]
    elif exact_all:
        count = 0
        how = "no completion"
    else:
        weights = [sp.relaxed_count for sp in spaces]
        if not sum(weights):
            count = 0
            how = "no completion"
        else:
            budget_draws = max_proposals if max_proposals is not None else 600 * samples + 50_000
            while len(picked) < samples and proposals < budget_draws:
                if proposals == FRUITLESS_DRAWS and not accepted:
                    break  # 50,000 draws and no completion: more draws would find too few to use
                proposals += 1
                i = _choose(rng, weights)
                c = spaces[i].relaxed.sample(rng)
                inside = [sp.rid for sp in spaces if sp.contains(c)]
                if not inside:
                    continue
                m = 1 if len(spaces) == 1 else sum(sp.relaxed_contains(c) for sp in spaces)
                if m > 1 and rng.randrange(m):
                    continue
                accepted += 1
                picked.append(Completion(c.slots, c.first_lead, bankers[rng.randrange(nb)], tuple(inside)))
                tick(1)
            total = sum(weights) * nb
            estimate = total * accepted / proposals
            interval = tuple(total * x for x in _wilson(accepted, proposals))  # type: ignore[assignment]
            how = (f"rejection sampling: {proposals:,} uniform draws from the completions of the slot and "
                      f"hand facts ({total:,} of them, counted exactly), {accepted:,} kept because they also "
                      f"satisfy the trick facts (acceptance {accepted / proposals:.3%}; seed {seed!r})")
            if len(picked) < samples:
                notes.append(f"only {len(picked)} of the {samples} requested completions were found in "
                             f"{proposals:,} draws (the budget of draws); the trick facts leave few "
                             "completions among those of the slot and hand facts")
            if accepted == 0:
                _none_found(partial, spaces, proposals, total, budget)

    if count == 0:
        _explain_no_completion(partial, spaces)

    counting = _counting_text(spaces, count, estimate, interval, nb, exact_all, disjoint)
    result = _summarise(partial, rulesets, picked, keep_deals, tick)
    reading_counts = {sp.rid: (sp.count * nb if sp.count is not None else None) for sp in spaces}
    return Reconstruction(
        partial=partial, bankers=bankers, readings=[sp.rid for sp in spaces], count=count, estimate=estimate,
        interval=interval, method=how, counting=counting, considered=len(picked), exhaustive=exhaustive,
        proposals=proposals, accepted=accepted, reading_counts=reading_counts,
        reading_share=Counter(rid for c in picked for rid in c.readings), seed=str(seed), notes=notes,
        **result,
    )


def _list_all(spaces: list[_Space], bankers: tuple[int, ...]) -> list[Completion]:
    """Every completion of every reading, each once, for each banker."""
    found: dict[tuple[tuple[int, ...], int], list[str | None]] = {}
    for sp in spaces:
        for c in sp.all():
            found.setdefault(c.key, []).append(sp.rid)
    return [Completion(slots, lead, b, tuple(rids)) for (slots, lead), rids in found.items() for b in bankers]


def _counting_text(spaces: list[_Space], count: int | None, estimate: float | None,
                   interval: tuple[float, float] | None, nb: int, exact_all: bool, disjoint: bool) -> str:
    parts = []
    for sp in spaces:
        label = f"reading {sp.rid!r}: " if sp.rid is not None else ""
        if sp.count is not None:
            parts.append(f"{label}{sp.count:,} ({sp.how})" if len(spaces) > 1 else sp.how)
        else:
            parts.append(f"{label}estimated by rejection from the {sp.relaxed_count:,} completions of the "
                         "slot and hand facts (counted exactly)")
    text = "; ".join(parts)
    if nb > 1:
        text += f"; × {nb} possible bankers"
    if len(spaces) > 1 and exact_all and not disjoint:
        text += "; the readings may overlap, so their union is estimated"
    if count is None and estimate is not None and interval is not None:
        text += f"; estimate {estimate:.4g} (95% interval {interval[0]:.3g}–{interval[1]:.3g})"
    return text


def _wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def _summarise(partial: PartialDeal, rulesets: Sequence[Ruleset], picked: list[Completion],
               keep_deals: bool, tick: Callable[[int], None]) -> dict[str, Any]:
    tricks = [Counter[int]() for _ in SEATS]
    always = [(1 << 40) - 1] * 4 if picked else [0] * 4
    ever = [0] * 4
    face: Counter[int] = Counter()
    kept: list[Deal] = []
    records: list[list[tuple[str, list[int], dict[tuple[int, tuple[str, str]], int],
                             tuple[str | None, ...]]]] = [[] for _ in rulesets]
    for n, c in enumerate(picked):
        deal = c.to_deal(partial, f"{partial.id}-{n + 1}")
        if keep_deals:
            code = encode(deal)
            which = ", ".join(str(r) for r in c.readings if r is not None)
            kept.append(dataclasses.replace(
                deal, notes=f"completion {n + 1} of partial deal {partial.id!r}"
                            + (f", reading {which}" if which else "") + f"; deal code {code}"))
        for s in SEATS:
            m = deal.hand_mask(s)
            always[s] &= m
            ever[s] |= m
        face[int(deal.stock[0])] += 1
        counts = [0, 0, 0, 0]
        for _l, _cards, w, _wc in c.tricks():
            counts[w] += 1
        for s in SEATS:
            tricks[s][counts[s]] += 1
        for i, rs in enumerate(rulesets):
            st = settle_deal(rs, deal)
            fired: dict[tuple[int, tuple[str, str]], int] = {}
            for f in st.firings:
                key = (int(f.seat), (f.item.id, f.item.name))
                fired[key] = fired.get(key, 0) + f.amount
            for t in st.ledger:  # 代賠 and fines come from recorded events, not from rule items
                if t.channel in ("dai_pei", "fa_li") and t.holder < 4:
                    key = (t.holder, (t.item, t.name))
                    fired[key] = fired.get(key, 0) - t.amount
            records[i].append((st.status, st.nets, fired, c.readings))
        tick(1)
    summaries = [_ruleset_summary(partial, rs, recs) for rs, recs in zip(rulesets, records, strict=True)]
    return {"summaries": summaries, "tricks": tricks, "always_held": always, "ever_held": ever, "face": face,
            "completions": kept}


def _ruleset_summary(partial: PartialDeal, rs: Ruleset,
                     recs: list[tuple[str, list[int], dict[tuple[int, tuple[str, str]], int],
                                      tuple[str | None, ...]]]) -> RulesetSummary:
    status = Counter(r[0] for r in recs)
    note = None
    basis = recs
    if partial.played and recs:
        played = [r for r in recs if r[0] != MIAN_DOU]
        if played and len(played) < len(recs):
            basis = played
            left = percent(len(recs) - len(played), len(recs))
            note = (f"{left} of the completions would not be played under {rs.id} (免斗); the source says "
                    "the hand was played, so they are left out below")
        elif not played:
            note = (f"under {rs.id} the hand is never played (免斗 in every completion), though the source "
                    "plays it")
    seats = [SeatSummary() for _ in SEATS]
    by_reading: dict[str | None, list[Counter[int]]] = {}
    for _status, nets, fired, readings in basis:
        for s in SEATS:
            seats[s].nets[nets[s]] += 1
        for reading in readings:
            per_reading = by_reading.setdefault(reading, [Counter() for _ in SEATS])
            for s in SEATS:
                per_reading[s][nets[s]] += 1
        for (s, item), amount in fired.items():
            seats[s].items[item] += 1
            seats[s].item_amounts.setdefault(item, Counter())[amount] += 1
    return RulesetSummary(rs, status, seats, len(basis), len(recs) - len(basis), by_reading, note)


def percent(n: int, total: int) -> str:
    """*n* of *total* as a short percentage ("all" when equal)."""
    if total == 0:
        return "-"
    if n == total:
        return "all"
    p = 100 * n / total
    return f"{p:.1f}%" if p >= 0.1 else f"{p:.2f}%"


# --------------------------------------------------------------------------- explaining an empty set


def _none_found(partial: PartialDeal, spaces: list[_Space], proposals: int, total: int,
                budget: int) -> None:
    """Rejection sampling drew nothing.  Decide exactly where the dynamic programme can
    (within its *budget* of states): no completion at all is a conflict, named by its facts;
    some completions mean the draws missed them.  Otherwise the budget of draws ran out, and
    the error says so — never a report of "about 0 completions"."""
    counts = []
    for sp in spaces:
        try:
            counts.append(sp.count if sp.count is not None else ExactCounter(sp.cons, budget=budget).count())
        except TooManyStates:
            counts.append(None)
    if counts and all(n == 0 for n in counts):
        _explain_no_completion(partial, spaces)
    found = sum(n for n in counts if n)
    if found:
        raise InputError(f"partial deal {partial.id!r}: {proposals:,} random draws found none of its "
                         f"{found:,} completions (the exact count); use --method auto, which draws them "
                         "exactly", file=partial.origin)
    raise InputError(f"partial deal {partial.id!r}: no completion found in {proposals:,} random draws "
                     f"(sampling stops after {FRUITLESS_DRAWS:,} draws without one) among the {total:,} "
                     "completions of its slot and hand facts; its trick facts contradict each other, or "
                     "allow too few completions to find by sampling, and the exact count would need more "
                     f"than {budget:,} states to tell which: check the trick facts, or state more of "
                     "the hands", file=partial.origin)


def _explain_no_completion(partial: PartialDeal, spaces: list[_Space]) -> None:
    """No completion at all: find a smallest set of statements that cannot hold together and name it.

    The facts are grouped by statement (one hand list, one seat's won cards with its
    ``won_exactly``, one trick entry), and statements are dropped one at a time while the
    rest still has no completion (a deletion filter); what is left is a minimal conflicting set.
    """
    sp = spaces[0]
    groups = _statements(partial.facts_for(sp.reading))

    def consistent(chosen: list[list[Fact]]) -> bool:
        try:
            cons = compile_facts([f for g in chosen for f in g])
            return ExactCounter(cons, budget=20_000).count() > 0
        except FactConflict:
            return False
        except TooManyStates:
            return True

    core = list(groups)
    if consistent(core):
        raise InputError(f"partial deal {partial.id!r}: no complete deal is consistent with its facts",
                         file=partial.origin)
    i = 0
    while i < len(core):
        trial = core[:i] + core[i + 1:]
        if not consistent(trial):
            core = trial
        else:
            i += 1
    listed = "; ".join(_statement_text(g) for g in core)
    which = f" (reading {sp.rid!r})" if sp.rid is not None else ""
    raise FactConflict(f"partial deal {partial.id!r}{which}: no complete deal satisfies these facts "
                       f"together: {listed}", [f for g in core for f in g], file=partial.origin)


def _statements(facts: Sequence[Fact]) -> list[list[Fact]]:
    """Facts grouped as the file states them: a list of cards is one statement, and so on."""
    groups: dict[tuple[Any, ...], list[Fact]] = {}
    for f in facts:
        if f.kind in ("in_hand", "won", "in_stock") and f.path and isinstance(f.path[-1], int):
            key: tuple[Any, ...] = ("list", f.kind, f.path[:-1], f.reading)
            if f.kind == "won":
                key = ("won", f.seat, f.reading)
        elif f.kind == "won_exactly":
            key = ("won", f.seat, f.reading)
        elif f.slot is not None and f.kind in ("place", "slot_allowed", "flag"):
            key = ("entry", f.slot, f.reading)
        else:
            key = ("fact", id(f))
        groups.setdefault(key, []).append(f)
    return list(groups.values())


def _statement_text(group: list[Fact]) -> str:
    first = group[0]
    seat = Seat(first.seat).id if first.seat is not None else ""
    cards = " ".join(CARD_HANZI[f.card] for f in group if f.card is not None)
    kinds = {f.kind for f in group}
    if kinds == {"in_hand"}:
        text = f"{seat} holds {cards}"
    elif kinds <= {"won", "won_exactly"}:
        text = f"{seat} won tricks with {cards or 'no listed card'}"
        if "won_exactly" in kinds:
            text += " and no others"
    elif kinds == {"in_stock"}:
        text = f"{cards} lie in the stock"
    else:
        text = "; ".join(f.text for f in group)
    path = first.path[:-1] if first.path and isinstance(first.path[-1], int) else first.path
    where = format_path(path) + (f", line {first.line}" if first.line is not None else "")
    if first.reading:
        where += f", reading {first.reading!r}"
    return f"{text} ({where})"
