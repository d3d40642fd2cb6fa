"""Sittings: a sequence of hands at one table, the 椿 and the 官堆 carried from hand to hand.

* :mod:`.engine` — one sitting under one ruleset (:func:`play_sitting`), by the
  ruleset's own between-hand procedure (``sitting:`` and ``procedure.next_banker``);
* :mod:`.stats` — bank tenure and per-player results of a sitting, for reports and
  simulation.

The layer sits above :mod:`mahdiao_rules.pipeline` (every hand is settled with
``settle_deal``) and below ``simulate``, which plays random sittings with it.
"""

from .engine import HandResult, SittingPlay, SittingResult, draw_cards, play_sitting
from .stats import SittingTally, Spell, Tenure, spells, tenure

__all__ = ["HandResult", "SittingPlay", "SittingResult", "SittingTally", "Spell", "Tenure", "draw_cards",
           "play_sitting", "spells", "tenure"]
