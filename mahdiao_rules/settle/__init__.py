"""Settlement: the deal, play and end phases of a compiled ruleset turned into a balanced
ledger (``hand``), and the ledger lines and accounts (``ledger``).
"""
