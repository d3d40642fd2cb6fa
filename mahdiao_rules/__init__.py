"""mahdiao-rules: replay 馬吊 deals under historical rulesets and explain every payment.

The pipeline is deal → play → settle → report, and the package is laid out in that
order.  The layers, lowest first; each imports only the layers listed before it (and
its own modules), which ``tests/test_layers.py`` checks for every import:

1. ``errors``, ``units`` (exact amounts in ticks), ``cards``, ``deal`` — the values
   every stage shares;
2. ``io/`` — the safe YAML/JSON reader, schema checks, deal files, deal codes and the
   bundled data folders;
3. ``ruleset/`` — YAML rulesets compiled into fast callables (DSL, layers, 開沖 table,
   registry, generated descriptions);
4. ``play/`` — the trick engine, the hand's procedure (升代, first leader) and the
   automatic-play policies; no settlement code;
5. ``settle/`` — settlement of a played hand into a balanced ledger, and 開沖; it
   takes a play result and never plays;
6. ``pipeline`` — :func:`mahdiao_rules.pipeline.settle_deal`: procedure → deal phase
   → play → settlement for one deal under one ruleset, what everything above calls;
7. ``history/`` (partial deals, reconstruction, construction) and ``simulate``
   (streaming Monte Carlo) — side by side, neither imports the other;
8. ``report/`` — report models, comparison, explanations, rule tables, rendering and
   charts;
9. ``cli/`` — the ``mahdiao`` command, one module per command family; nothing
   imports it (``python -m mahdiao_rules`` runs it).
"""

__version__ = "0.1.0"
