"""Play a sitting under one ruleset: the hands in order, the 椿 and the 官堆 carried over.

The players keep their seats for the whole sitting; each hand's cards are dealt to the
seats as the file gives them.  The ruleset's own procedure decides everything between
hands (:mod:`mahdiao_rules.ruleset.sitting`): the seats (a draw), the first 椿 (a draw
or the first 面張), the next 椿 after each hand (what settlement says —
``Settlement.next_banker``, from ``procedure.next_banker`` and the items' and fines'
``bank:``), a 椿 drawn afresh (另拈椿), and what the agreed stake cap limits.  The first
椿 is ``procedure.first_banker`` (:func:`mahdiao_rules.play.procedure.first_banker`).  The 官堆
at the end of a hand is the next hand's starting pool.

So two rulesets replaying one sitting may follow two different bank sequences: the
same cards are then settled with a different 椿.

A draw the record does not give is made from the sitting's seed — the same draw for
every ruleset (``f"{seed}/seats"``, ``f"{seed}/first-banker"``, ``f"{seed}/redraw/{n}"``
after hand *n*), so rulesets that draw at the same point draw the same cards.

A recorded 椿 is checked against the procedure of the ruleset the sitting was
``played_under`` (of every ruleset when the file does not say): a contradiction is an
error naming the file, the line and the hand, unless ``trust_record`` (then the record
wins and a note says so).  Other rulesets follow their own procedure.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from ..cards import CARD_HANZI, Card
from ..deal import SEATS, Seat
from ..io.sittingfile import Sitting, SittingHand, node_number
from ..pipeline import settle_deal
from ..play.policies import Policy
from ..play.procedure import first_banker
from ..ruleset.model import Ruleset
from ..ruleset.sitting import DEFAULT, Draw, SittingProcedure
from ..settle.hand import Settlement
from ..settle.ledger import GUAN_DUI
from ..units import TICKS_PER_ZHU

__all__ = ["HandResult", "SittingPlay", "SittingResult", "draw_cards", "play_sitting"]


@dataclass(frozen=True, slots=True)
class HandResult:
    """One hand of a sitting under one ruleset."""

    hand: SittingHand
    banker: Seat
    how: str
    """Why this seat is 椿 (the first draw, 輪椿, 留椿, 奪椿, a fresh draw …)."""
    settlement: Settlement
    pool_before: int
    pool_after: int
    """The 官堆 in ticks before and after the hand."""
    notes: tuple[str, ...] = ()
    money: tuple[Fraction, ...] = ()
    """Per account (four seats, the 官堆), the hand's transfers in the stake unit (see
    :func:`valued`)."""

    @property
    def nets(self) -> list[int]:
        return self.settlement.nets


class _Seated:
    """:attr:`player_at` for a class with ``seat_of`` (player → seat)."""

    seat_of: dict[str, Seat]

    @property
    def player_at(self) -> dict[Seat, str]:
        """Seat → player: the inverse of ``seat_of``."""
        return {seat: name for name, seat in self.seat_of.items()}


@dataclass(frozen=True)
class SittingResult(_Seated):
    """A whole sitting under one ruleset."""

    ruleset: Ruleset
    sitting: Sitting
    seat_of: dict[str, Seat]
    """Player → seat (fixed for the sitting)."""
    seating: str
    """How the seats were taken."""
    hands: tuple[HandResult, ...]
    """The hands played, in order (all of them unless the sitting stopped early)."""
    stopped: str | None = None
    """Why the sitting ended before its last hand (the stake cap), or None."""
    notes: tuple[str, ...] = ()

    def totals(self) -> list[int]:
        """Ticks per seat (east … north) and the 官堆 account over the hands played."""
        out = [0] * 5
        for h in self.hands:
            for k, v in enumerate(h.nets):
                out[k] += v
        return out

    def money(self) -> list[Fraction]:
        """Per account (four seats, the 官堆), the sum over the hands in the stake unit."""
        out = [Fraction(0)] * 5
        for h in self.hands:
            for k, v in enumerate(h.money):
                out[k] += v
        return out


def valued(s: Settlement, stake: Fraction, pool: tuple[int, Fraction]
           ) -> tuple[list[Fraction], tuple[int, Fraction]]:
    """The hand's transfers in money, and the 官堆 after it as (ticks, money).

    A transfer between players, or into the 官堆, is worth its 注 times the hand's stake;
    a take from the 官堆 is worth its share of what the 官堆 holds in money (chips paid
    in at a stake of 2 are not paid out at 3), so money balances to zero like the 注 and
    the 官堆 never holds less than nothing.
    """
    ticks, money = pool
    out = [Fraction(0)] * 5
    lines = s.ledger
    flows = ([(t.payer, t.payee, t.amount) for t in lines] if lines else
             # No ledger lines (fast simulation): the nets, pool payments first.
             [(k, GUAN_DUI, -v) if v < 0 else (GUAN_DUI, k, v)
              for k, v in enumerate(s.nets[:4]) if v])
    for payer, payee, amount in flows:
        if payer == GUAN_DUI and ticks > 0:
            value = money * amount / ticks
        else:
            value = Fraction(amount, TICKS_PER_ZHU) * stake
        if payee == GUAN_DUI:
            ticks, money = ticks + amount, money + value
        elif payer == GUAN_DUI:
            ticks, money = ticks - amount, money - value
        out[payer] -= value
        out[payee] += value
    return out, (ticks, money)


def draw_cards(seed: str, what: str) -> list[Card]:
    """Four different cards drawn from a shuffled pack, seeded by ``f"{seed}/{what}"``."""
    return [Card(c) for c in random.Random(f"{seed}/{what}").sample(range(40), 4)]


def procedure_of(ruleset: Ruleset) -> SittingProcedure:
    return ruleset.sitting if ruleset.sitting is not None else DEFAULT


class SittingPlay(_Seated):
    """A sitting under one ruleset, played hand by hand as it is iterated: each
    :class:`HandResult` is made when it is asked for, so a report can write a sitting of any
    length holding one hand at a time.  The seats are known at once; ``notes`` and
    ``stopped`` are complete once the iteration ends.  Iterate once (a new object replays).

    *policy* plays hands without recorded tricks (default: at random, seeded by the
    sitting's seed and the hand id).  The iteration raises :class:`InputError` for a
    recorded 椿 that contradicts the procedure (unless *trust_record*) and for a stake
    above the cap when the ruleset's cap bounds the stake of a hand.
    """

    def __init__(self, ruleset: Ruleset, sitting: Sitting, *, trust_record: bool = False,
                 policy: Policy | None = None, ledger: bool = True) -> None:
        self.ruleset, self.sitting = ruleset, sitting
        self.policy, self.ledger = policy, ledger
        self._run = _Run(ruleset, procedure_of(ruleset), sitting, trust_record)
        self.seat_of, self.seating = self._run.seats()
        """Player → seat (fixed for the sitting), and how the seats were taken."""
        self.stopped: str | None = None
        """Why the sitting ended before its last hand (the stake cap), or None."""

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(self._run.notes)

    def __iter__(self) -> Iterator[HandResult]:
        sitting, run, ruleset = self.sitting, self._run, self.ruleset
        seat_of = self.seat_of
        pool = sitting.guan_dui * TICKS_PER_ZHU
        floor = sitting.stakes.floor if sitting.stakes else Fraction(1)
        pool_money = (pool, Fraction(sitting.guan_dui) * floor)
        banker, how = run.first_banker(seat_of)
        money = [Fraction(0)] * 4
        prev: HandResult | None = None
        for hand in sitting.hands:
            notes: list[str] = []
            if prev is not None:
                banker, how = run.next_banker(hand, prev, seat_of, notes)
            else:
                banker, how = run.check_record(hand, banker, how, notes)
            run.check_stake(hand)
            deal = dataclasses.replace(hand.deal, banker=banker)
            rng = random.Random(f"{sitting.seed}/{hand.deal.id}/play")
            s = settle_deal(ruleset, deal, policy=self.policy, rng=rng, ledger=self.ledger, pool=pool)
            after = pool + s.nets[GUAN_DUI]
            worth, pool_money = valued(s, hand.stake, pool_money)
            prev = HandResult(hand, banker, how, s, pool, after, tuple(notes), tuple(worth))
            pool = after
            for k in range(4):
                money[k] += worth[k]
            self.stopped = run.loss_cap(hand, money, seat_of)
            yield prev
            if self.stopped:
                return


def play_sitting(ruleset: Ruleset, sitting: Sitting, *, trust_record: bool = False,
                 policy: Policy | None = None, ledger: bool = True) -> SittingResult:
    """Every hand of *sitting* under *ruleset*, the 椿 and the 官堆 carried from hand to hand,
    held in one :class:`SittingResult` (:class:`SittingPlay` makes them one at a time).

    *policy* plays hands without recorded tricks (default: at random, seeded by the
    sitting's seed and the hand id).  Raises :class:`InputError` for a recorded 椿 that
    contradicts the procedure (unless *trust_record*) and for a stake above the cap
    when the ruleset's cap bounds the stake of a hand.
    """
    play = SittingPlay(ruleset, sitting, trust_record=trust_record, policy=policy, ledger=ledger)
    hands = tuple(play)
    return SittingResult(ruleset, sitting, play.seat_of, play.seating, hands, play.stopped, play.notes)


class _Run:
    """The procedure of one ruleset applied to one sitting's record."""

    def __init__(self, ruleset: Ruleset, proc: SittingProcedure, sitting: Sitting,
                 trust: bool) -> None:
        self.rs, self.proc, self.sitting, self.trust = ruleset, proc, sitting, trust
        under = sitting.played_under
        # The record's 椿 are this ruleset's to check (and to follow) when the sitting was
        # played under it, or when the file does not say under which ruleset it was played.
        self.checks = under is None or under == ruleset.id
        self.notes: list[str] = []
        self.ignored = 0

    # ------------------------------------------------------------------ seats and first 椿

    def seats(self) -> tuple[dict[str, Seat], str]:
        s = self.sitting
        if s.seats is not None:
            return dict(s.seats), "as recorded"
        cards = s.seat_draw
        how = "seat draw as recorded"
        if cards is None:
            cards = dict(zip(s.players, draw_cards(s.seed, "seats"), strict=True))
            how = f"seat draw from the seed {s.seed!r}"
        draw = self.proc.seat_draw
        names = list(cards)
        order = draw.order([int(cards[n]) for n in names])
        seat_of = {names[i]: draw.first_seat.after(k) for k, i in enumerate(order)}
        shown = ", ".join(f"{names[i]} {CARD_HANZI[cards[names[i]]]}" for i in order)
        return seat_of, f"{how} ({shown}; strongest to {draw.first_seat.id})"

    def _draw(self, cards: dict[Seat, Card], what: str) -> tuple[Seat, str]:
        draw: Draw = self.proc.seat_draw
        seats = list(cards)
        best = seats[draw.order([int(cards[x]) for x in seats])[0]]
        shown = " ".join(f"{x.hanzi}{CARD_HANZI[cards[x]]}" for x in SEATS if x in cards)
        return best, f"{what} ({shown}): {best.id} draws {CARD_HANZI[cards[best]]}"

    def _seeded(self, what: str, seat_of: dict[str, Seat]) -> dict[Seat, Card]:
        """A draw from the seed: the players draw in the order the file names them."""
        cards = draw_cards(self.sitting.seed, what)
        return {seat_of[name]: card for name, card in zip(self.sitting.players, cards, strict=True)}

    def first_banker(self, seat_of: dict[str, Seat]) -> tuple[Seat, str]:
        s = self.sitting
        first = s.hands[0].deal
        seat = first_banker(self.rs, first)  # None: the first 椿 is drawn
        if seat is not None:
            how = f"first 椿 by the 面張 {CARD_HANZI[first.face]} of hand 1"
            rec = s.first_banker_seat or (seat_of[s.first_banker_player]
                                          if s.first_banker_player is not None else None)
            if rec is None or rec == seat or not self.checks:
                return seat, how
            if self.trust:
                self.notes.append(f"--trust-record: the record has {rec.id} as first 椿 where "
                                  f"{self.rs.id}'s procedure gives {seat.id} ({how})")
                return rec, f"first 椿 as recorded (the procedure gives {seat.id}: {how})"
            raise s.error(("first_banker",), f"the record has {rec.id} as first 椿, but under "
                                             f"{self.rs.id} the procedure gives {seat.id} ({how}); "
                                             "--trust-record lets the record win")
        if s.first_banker_seat is not None:
            return s.first_banker_seat, "first 椿 as recorded"
        if s.first_banker_player is not None:
            return seat_of[s.first_banker_player], "first 椿 as recorded"
        if s.first_banker_draw is not None:
            cards = {seat_of[n]: c for n, c in s.first_banker_draw.items()}
            return self._draw(cards, "first 椿 by the recorded draw")
        if s.hands[0].banker is not None and self.checks:
            return s.hands[0].banker, "first 椿 as recorded in hand 1"
        return self._draw(self._seeded("first-banker", seat_of), f"first 椿 drawn from the seed {s.seed!r}")

    # ------------------------------------------------------------------ between hands

    def next_banker(self, hand: SittingHand, prev: HandResult, seat_of: dict[str, Seat],
                    notes: list[str]) -> tuple[Seat, str]:
        s = prev.settlement
        if s.next_banker is not None:
            return self.check_record(hand, s.next_banker,
                                     f"{s.next_banker_reason} (after hand {prev.hand.number})", notes)
        why = f"{s.next_banker_reason} after hand {prev.hand.number}"
        if hand.banker is not None and self.checks and self.proc.redraw_record == "use":
            return hand.banker, f"{why}: drawn afresh, as recorded"
        cards = self._seeded(f"redraw/{prev.hand.number}", seat_of)
        seat, how = self._draw(cards, f"{why}: drawn afresh from the seed")
        if hand.banker is not None and hand.banker != seat and self.checks:
            notes.append(f"the record has {hand.banker.id} as 椿; under {self.rs.id} the draw is "
                         "made from the seed (sitting.redraw.record: ignore)")
        return seat, how

    def check_record(self, hand: SittingHand, seat: Seat, how: str, notes: list[str]
                     ) -> tuple[Seat, str]:
        """The procedure's *seat* against the hand's recorded 椿."""
        rec = hand.banker
        if rec is None or rec == seat:
            return seat, how
        if not self.checks:
            if self.ignored == 0:
                self.notes.append(f"the record's 椿 follow {self.sitting.played_under}; "
                                  f"{self.rs.id} follows its own procedure")
            self.ignored += 1
            notes.append(f"the record has {rec.id} as 椿 (under {self.sitting.played_under}); "
                         f"{self.rs.id}'s procedure gives {seat.id}")
            return seat, how
        if self.trust:
            notes.append(f"--trust-record: the record has {rec.id} as 椿 where {self.rs.id}'s "
                         f"procedure gives {seat.id} ({how})")
            return rec, f"as recorded (the procedure gives {seat.id}: {how})"
        path = (*hand.path, "banker")
        raise self.sitting.error(path, f"{hand.label}: the record has {rec.id} as 椿, but under "
                                       f"{self.rs.id} the procedure gives {seat.id} ({how}); "
                                       "--trust-record lets the record win")

    # ------------------------------------------------------------------ stakes

    def check_stake(self, hand: SittingHand) -> None:
        stakes = self.sitting.stakes
        if stakes is None or self.proc.stakes.value != "per_hand" or hand.stake <= stakes.cap:
            return
        raise self.sitting.error((*hand.path, "stake"),
                                 f"{hand.label}: the stake {node_number(hand.stake)} is above the "
                                 f"agreed cap {node_number(stakes.cap)} (不得溢額; under "
                                 f"{self.rs.id} the cap bounds each hand's stake)")

    def loss_cap(self, hand: SittingHand, money: list[Fraction], seat_of: dict[str, Seat]) -> str | None:
        stakes = self.sitting.stakes
        if stakes is None or self.proc.stakes.value != "sitting_loss":
            return None
        out = [x for x in SEATS if money[x] <= -stakes.cap]
        if not out or hand.number == len(self.sitting.hands):
            return None
        who = ", ".join(f"{player} ({x.id}) {_money(money[x])}"
                        for x in out for player, seat in seat_of.items() if seat == x)
        return (f"after hand {hand.number}: {who} {stakes.unit}, at or beyond the cap "
                f"{node_number(stakes.cap)} {stakes.unit}; the sitting ends (不得溢額)")


def _money(value: Fraction) -> str:
    return f"{node_number(value)}" if value.denominator in (1, 2, 4) else f"{float(value):.2f}"
