"""Play: the trick engine (``tricks``: 捉, 滅 and the winner of each trick, recorded tricks
replayed, a random play), the procedure of a hand under a ruleset (``procedure``: 升代, the
first leader, where the eight tricks come from) and automatic play by a policy
(``policies``).  It may import the shared values (``errors``, ``cards``, ``deal``,
``units``), ``io`` and ``ruleset`` (to read a ruleset's procedure) — and no settlement
code: what a hand pays is none of its business.
"""
