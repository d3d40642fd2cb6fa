"""mahdiao-rules: replay 馬吊 deals under historical rulesets and explain every payment.

The pipeline is deal → play → settle → report, and the package is laid out in that
order.  The layers, lowest first; each imports only the layers listed before it (and
its own modules), which ``tests/test_layers.py`` checks for every import:

1. ``errors``, ``messages`` (notes by message id), ``units`` (exact amounts in ticks),
   ``cards``, ``deal`` — the values every stage shares;
2. ``io/`` — the safe YAML/JSON reader, schema checks, deal and sitting files, deal
   codes and the bundled data folders;
3. ``ruleset/`` — YAML rulesets compiled into closures and then into generated Python
   code, the settlement engine (DSL, emitters, code generator, layers, 開沖 table,
   registry, generated descriptions);
4. ``play/`` — the trick engine, the hand's procedure (升代, first leader) and the
   automatic-play policies; no settlement code;
5. ``settle/`` — settlement of a played hand into a balanced ledger, and 開沖; it
   takes a play result and never plays;
6. ``pipeline`` — :func:`mahdiao_rules.pipeline.settle_deal`: procedure → deal phase
   → play → settlement for one deal under one ruleset, what everything above calls;
7. ``sitting/`` — a sequence of hands under one ruleset, the 椿 and the 官堆 carried
   from hand to hand (it settles every hand through the pipeline);
8. ``history/`` (partial deals, reconstruction, construction) and ``simulate``
   (streaming Monte Carlo, also of sittings) — side by side, neither imports the other;
9. ``report/`` — report models, comparison, explanations, rule tables, sittings,
   rendering and charts;
10. ``api`` — the Python API (``import mahdiao_rules as md``; docs/api.md): load deals,
    rulesets and sittings, replay, settle, simulate; results in exact 注;
11. ``cli/`` — the ``mahdiao`` command, one module per command family; nothing
    imports it (``python -m mahdiao_rules`` runs it).

The API's names are exported here *lazily*: the
module ``__getattr__`` below imports ``api`` on first use, so ``import mahdiao_rules``
(and every module's ``from .. import __version__``) loads nothing else.  This is the one
place where a lower layer names a higher one, and ``tests/test_layers.py`` allows it
only here (in ``__getattr__`` and under ``TYPE_CHECKING``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "Deal",
    "InputError",
    "Payment",
    "Replay",
    "Result",
    "Ruleset",
    "Seat",
    "Simulation",
    "Sitting",
    "SittingReplay",
    "SittingRun",
    "__version__",
    "deal_code",
    "deal_from_code",
    "examples",
    "load_deals",
    "load_ruleset",
    "load_rulesets",
    "load_sitting",
    "random_deals",
    "replay",
    "replay_sitting",
    "ruleset_ids",
    "settle_hand",
    "simulate_deals",
]
_API = frozenset(__all__) - {"__version__"}

if TYPE_CHECKING:  # type checkers see the exports; at run time __getattr__ loads them
    from .api import (
        Deal,
        InputError,
        Payment,
        Replay,
        Result,
        Ruleset,
        Seat,
        Simulation,
        Sitting,
        SittingReplay,
        SittingRun,
        deal_code,
        deal_from_code,
        examples,
        load_deals,
        load_ruleset,
        load_rulesets,
        load_sitting,
        random_deals,
        replay,
        replay_sitting,
        ruleset_ids,
        settle_hand,
        simulate_deals,
    )


def __getattr__(name: str) -> Any:
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'mahdiao_rules' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
