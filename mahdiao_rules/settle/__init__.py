"""Settlement: the deal, play and end phases of a compiled ruleset turned into a balanced
ledger (``hand``), the ledger lines and accounts (``ledger``) and 開沖 after trick 8
(``kai_chong``, running the table ``ruleset.kai_chong`` compiles).
"""
