"""One deal under one ruleset, start to end: procedure → deal phase → play → settlement.

This is the only place where the stages meet; the command line, ``simulate``,
``history.reconstruct`` and library users call :func:`settle_deal`:

1. the ruleset's procedure sets the hand up — 升代, the first leader
   (:func:`mahdiao_rules.play.procedure.prepare`);
2. settlement's deal phase decides whether the hand is played at all — 免斗, or a
   fine that ends it (:func:`mahdiao_rules.settle.hand.open_hand`);
3. a hand that goes on gets its eight tricks — recorded, given, by a policy, or
   random seeded by ``f"{deal.id}/play"`` (:func:`mahdiao_rules.play.procedure.play_hand`);
4. settlement finishes the hand on those tricks (:func:`mahdiao_rules.settle.hand.close_hand`).

A hand that ends in its deal phase is never played, so no time goes into tricks
nobody settles.

:class:`Quick` is the same composition for simulation, on plain values: the deal
phase, the tricks and the play and end phases, with only the nets, the 免斗 status and
the fired items coming back (no ledger lines, firings or notes).
"""

from __future__ import annotations

import random

from .deal import SEATS, Deal
from .play.policies import Policy
from .play.procedure import banker_table, leader_table, play_hand, prepare
from .play.tricks import BIT, PlayResult, QuickPlay, quick_of, quick_play
from .ruleset.codegen import engine
from .ruleset.model import Ruleset
from .settle.hand import (
    Settlement,
    close_hand,
    open_hand,
    quick_close,
    quick_open,
)
from .settle.kai_chong import QuickChong
from .units import TICKS_PER_ZHU


def settle_deal(ruleset: Ruleset, deal: Deal, *, play: PlayResult | None = None,
                policy: Policy | None = None, rng: random.Random | None = None,
                ledger: bool = True, pool: int | None = None) -> Settlement:
    """Settle *deal* under *ruleset*, playing it by the ruleset's procedure when needed.

    The deal's recorded tricks are used when it has them; otherwise *play* (a play of
    the hands as the ruleset plays them, e.g. from
    :func:`~mahdiao_rules.play.policies.auto_play`), else *policy*'s play, else a
    uniformly random play — *policy* and the random play draw from *rng*, by default
    seeded by ``f"{deal.id}/play"``.  A hand its deal phase ends (免斗) is not played
    and any *play* is ignored.  With ``ledger=False`` (fast simulation) the payments
    are only summed: the settlement has no ledger lines but the same ``nets``.  *pool* is
    the 官堆 in ticks when the hand starts (default: the deal's ``guan_dui`` 注).
    """
    hand = prepare(ruleset, deal)
    opening = open_hand(ruleset, hand.deal, leader=hand.leader, original=deal, notes=hand.notes,
                        ledger=ledger, pool=pool)
    if opening.ended:
        return close_hand(opening, None)
    result, note = play_hand(ruleset, hand, play=play, policy=policy, rng=rng)
    return close_hand(opening, result, note)


QuickResult = tuple[list[int], bool, int]
"""Nets (ticks: east, south, west, north, 官堆), whether the deal phase ended the hand (免斗),
and the fired bits of the hand (``Ruleset.fired_bits`` names them)."""


class Quick:
    """:func:`settle_deal` with ``ledger=False`` for simulation, under one ruleset.

    The same stages and the same results, on plain values: :meth:`random` takes a deal as
    masks and the seats' play orders (shared by every ruleset of a run), :meth:`deal` a
    :class:`Deal` (recorded events are not priced here).
    """

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        engine(ruleset)  # generated now, not in the first deal's time
        self.leaders = leader_table(ruleset)
        self.first_bankers = banker_table(ruleset)
        """By face card: the first hand's 莊 by the ruleset (None: the drawn banker stands)."""
        kc = ruleset.procedure.kai_chong
        self.upto = kc is not None and kc.twins_upto_winner
        """Whether plays bring the cards up to each winning card (play.tricks.quick_play): the
        ruleset's 開沖 reads them (HandState.won_upto)."""
        self.sheng_dai = dict(ruleset.procedure.sheng_dai)
        self.chong = None if kc is None else QuickChong(kc)
        """開沖 for simulation (None: the ruleset has none): it remembers what takes are worth
        from hand to hand."""

    def forget(self) -> None:
        """Forget what earlier hands taught (the 開沖 memory): the next hand starts cold."""
        if self.chong is not None:
            self.chong.forget()

    def random(self, held: list[int], stock: tuple[int, ...], banker: int,
               orders: list[list[int]]) -> QuickResult:
        """A deal (hands as masks) played at random: *orders* are the seats' cards as bits in the
        order each plays them (play.tricks.random_orders).  A hand its deal phase ends is not played."""
        held, orders = self.view(held, orders, stock[0])
        nets = [0, 0, 0, 0, 0]
        st, ended = quick_open(self.ruleset, held, stock, banker, nets)
        play = None if ended else self._tricks(orders, stock[0], banker)
        return nets, ended, quick_close(self.ruleset, st, play, nets, self.chong)

    def play_random(self, held: list[int], stock: tuple[int, ...], banker: int,
                    orders: list[list[int]]) -> tuple[list[int], QuickPlay]:
        """:meth:`random`'s hands (after :meth:`view`) and tricks, played whether or not the deal
        phase ends the hand: what :meth:`played` settles (a benchmark times that alone)."""
        held, orders = self.view(held, orders, stock[0])
        return held, self._tricks(orders, stock[0], banker)

    def _tricks(self, orders: list[list[int]], face: int, banker: int) -> QuickPlay:
        return quick_play(*orders, self.leaders[face][banker], self.upto)

    def played(self, held: list[int], stock: tuple[int, ...], banker: int, play: QuickPlay) -> QuickResult:
        """A deal whose hands (as the ruleset plays them, after :meth:`view`) were played already."""
        nets = [0, 0, 0, 0, 0]
        st, ended = quick_open(self.ruleset, held, stock, banker, nets)
        return nets, ended, quick_close(self.ruleset, st, None if ended else play, nets, self.chong)

    def view(self, held: list[int], orders: list[list[int]], face: int) -> tuple[list[int], list[list[int]]]:
        """The hands and play orders as the ruleset plays them: 升代 puts the face card in the
        place of the card that stands for it."""
        replaced = self.sheng_dai.get(face)
        if replaced is not None:
            r = BIT[replaced]
            for s in range(4):
                if held[s] & r:
                    held = list(held)
                    held[s] ^= r | BIT[face]
                    orders = list(orders)
                    orders[s] = [BIT[face] if x == r else x for x in orders[s]]
                    break
        return held, orders

    def deal(self, deal: Deal, *, play: PlayResult | None = None, policy: Policy | None = None,
             rng: random.Random | None = None) -> QuickResult:
        """*deal* as :func:`settle_deal` settles it (its tricks: recorded, *play*, *policy*'s or
        random), but only the nets, the status and the fired bits."""
        rs = self.ruleset
        hand = prepare(rs, deal)
        nets = [0, 0, 0, 0, 0]
        st, ended = quick_open(rs, [hand.deal.hand_mask(s) for s in SEATS], deal.stock, int(deal.banker),
                               nets, deal.guan_dui * TICKS_PER_ZHU)
        tricks = None
        if not ended:
            result, _note = play_hand(rs, hand, play=play, policy=policy, rng=rng)
            tricks = quick_of(result, self.upto)
        return nets, ended, quick_close(rs, st, tricks, nets, self.chong)
