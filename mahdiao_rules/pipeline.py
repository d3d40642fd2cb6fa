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
"""

from __future__ import annotations

import random

from .deal import Deal
from .play.policies import Policy
from .play.procedure import play_hand, prepare
from .play.tricks import PlayResult
from .ruleset.model import Ruleset
from .settle.hand import Settlement, close_hand, open_hand


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
