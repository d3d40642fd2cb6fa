"""The generated engine against the plain reference interpreter, one deal at a time.

Shared by ``test_reference.py`` (many random deals per ruleset and option set) and
``test_engine.py`` (a hypothesis property over deals, options and rulesets).  Every path
the tool settles by is checked against ``tests/reference_interpreter.py``:

* the ledger path (``settle_deal``, ``ledger=True``): the nets derived from the ledger
  lines, the fired items with seats and amounts, the status — and every ledger line is
  paid for a firing of its seat and item;
* the nets-only path of ``settle_deal(ledger=False)`` (on every third deal);
* the simulation path (``pipeline.Quick``): nets, 免斗 status and the fired items and
  groups, on the random play as simulate draws it or on a policy's play.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from typing import Any

from mahdiao_rules.deal import Deal
from mahdiao_rules.pipeline import Quick, settle_deal
from mahdiao_rules.play.policies import auto_play, make_policy
from mahdiao_rules.play.tricks import random_orders
from mahdiao_rules.ruleset import find_ruleset
from mahdiao_rules.settle.hand import MIAN_DOU


def _load_reference() -> Any:
    path = Path(__file__).with_name("reference_interpreter.py")
    spec = importlib.util.spec_from_file_location("reference_interpreter", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules.setdefault("reference_interpreter", module)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


R = _load_reference()


def fired_bits(rs: Any, firings: list[tuple[str, int, int]]) -> int:
    """The fired bits the items of *firings* (and their groups) stand for."""
    bits = 0
    for iid, _seat, _amount in firings:
        bits |= rs.fired_bits[iid]
        group = rs.items[iid].group
        if group is not None:
            bits |= rs.fired_bits[group]
    return bits


def compare(rs_id: str, deals: list[Deal], options: dict[str, str] | None = None) -> list[str]:
    """Problems found settling *deals* (played at random and by the heuristic, alternately)."""
    rs = find_ruleset(rs_id, options or None)
    ref = R.load(rs_id, options or None)
    quick = Quick(rs)
    policies = [make_policy("random", rs), make_policy("heuristic", rs)]
    problems = []
    for i, deal in enumerate(deals):
        policy = policies[i % 2]
        play = auto_play(rs, deal, policy)
        want = R.settle(ref, deal, play)
        got = settle_deal(rs, deal, play=play)
        fired = sorted((f.item.id, int(f.seat), f.amount) for f in got.firings)
        why = []
        if got.nets != want.nets or fired != sorted(want.firings) or got.status != want.status:
            extra = sorted(set(fired) ^ set(want.firings))
            why.append(f"ledger nets {got.nets} vs reference {want.nets}; status "
                       f"{got.status}/{want.status}; differing firings {extra}")
        paid = {(f.item.id, int(f.seat)) for f in got.firings}
        if any((t.item, t.holder) not in paid for t in got.ledger):
            why.append("a ledger line without its firing")
        if i % 3 == 0 and settle_deal(rs, deal, play=play, ledger=False).nets != want.nets:
            why.append("ledger=False nets differ")
        if policy.name == "random":  # as simulate plays it: the seats' orders, drawn once
            orders = random_orders(deal.hands, random.Random(f"{deal.id}/play"))
            if deal.guan_dui:
                nets, ended, bits = quick.deal(deal, play=play)
            else:
                nets, ended, bits = quick.random([deal.hand_mask(s) for s in range(4)], deal.stock,
                                                 int(deal.banker), orders)
        else:
            nets, ended, bits = quick.deal(deal, policy=policy)
        if nets != want.nets or ended != (want.status == MIAN_DOU) or bits != fired_bits(rs, want.firings):
            why.append(f"simulation path: nets {nets}, 免斗 {ended}, fired bits differ by "
                       f"{bits ^ fired_bits(rs, want.firings):#x}")
        if why:
            problems.append(f"{deal.id} ({policy.name}): " + "; ".join(why))
    return problems
