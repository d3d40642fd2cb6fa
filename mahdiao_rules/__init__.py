"""mahdiao-rules: replay 馬吊 deals under historical rulesets and explain every payment.

The pipeline is deal → play → settle → report:

* :mod:`mahdiao_rules.cards` and :mod:`mahdiao_rules.deal` hold the values,
* :mod:`mahdiao_rules.play` plays or replays the eight tricks,
* :mod:`mahdiao_rules.ruleset` compiles a YAML ruleset into fast callables,
* :mod:`mahdiao_rules.settle` turns a played hand into a balanced ledger,
* :mod:`mahdiao_rules.report` builds the report model the templates render.
"""

__version__ = "0.1.0"
