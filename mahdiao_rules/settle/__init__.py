"""Settlement of a hand already played (or ended before play): the deal, play and end phases
of a compiled ruleset turned into a balanced ledger (``hand``: ``open_hand`` decides in the
deal phase whether the hand is played, ``close_hand`` settles the given tricks), the ledger
lines and accounts (``ledger``) and 開沖 after trick 8 (``kai_chong``, running the table
``ruleset.kai_chong`` compiles).  It takes a play result and never plays: it may import the
shared values, ``io``, ``ruleset`` and the trick engine's result types (``play.tricks``),
never the procedure or the policies.
"""
