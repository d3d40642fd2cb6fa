"""The sitting report model: one sitting under several rulesets, built once, rendered by templates.

Like the replay report (:mod:`.replay`) it is plain data and the JSON format is the model
as it stands.  Stable field names: ``players``, ``hands[i]`` (the deals, once),
``results[j].ruleset``, ``.seats`` (player → seat), ``.hands[i].banker`` /
``.banker_player`` / ``.how`` / ``.status`` / ``.guan_dui.before|after`` /
``.nets.<player>`` / ``.running.<player>`` and ``.settlement`` (the replay report's
per-result record for that hand: fired items, ``ledger``, ``matrix`` …), ``.totals``,
``.tenure``, ``.bank_sequence``; ``bank_differs`` (hands whose 椿 differ between the
rulesets) and the reproducibility ``stamp``.  Amounts are 注 (exact: integers, binary
fractions or "p/q" text); ``money`` multiplies each hand's nets by its stake.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from .. import __version__
from ..cards import CARD_HANZI
from ..deal import SEAT_HANZI, SEATS
from ..io import dealcode
from ..io.sittingfile import Sitting, node_number
from ..ruleset.model import Ruleset
from ..ruleset.sitting import FIRST_BANKER_RULES, REDRAW_RECORD
from ..settle.ledger import ACCOUNT_HANZI, ACCOUNT_IDS, GUAN_DUI
from ..sitting.engine import SittingResult, procedure_of
from ..sitting.stats import spells, tenure
from ..units import format_zhu, json_number, zhu
from .contract import stamp as run_stamp
from .replay import ruleset_info
from .views import settlement_view, source_rows

SAME_DEALS = ("Every ruleset plays the same deals, dealt to the same seats, and follows its own "
              "bank sequence: where the 椿 differ, the same cards are settled with another 椿.")


def _money(value: Fraction) -> int | float | str:
    if value.denominator == 1:
        return value.numerator
    if value.denominator in (2, 4, 8):
        return float(value)
    return f"{value.numerator}/{value.denominator}"


def _money_text(value: Fraction) -> str:
    sign = "+" if value > 0 else ""
    if value.denominator == 1:
        return f"{sign}{value.numerator}"
    return f"{sign}{float(value):.2f}".rstrip("0").rstrip(".")


def procedure_info(rs: Ruleset) -> list[dict[str, str]]:
    """The between-hand procedure of *rs* as rows: what, the rule, and its source."""
    p = procedure_of(rs)
    nb = rs.procedure

    def src(c: Any) -> str:
        return c.short if c is not None else "(not declared: the tool's default)"

    if nb.next_banker_rule == "top_earner":
        rule = "the top earner of the hand; a tie keeps the 椿"
    else:
        rule = f"輪椿: {nb.next_banker_rotate} seat(s) on in play order"
    rows = [
        {"key": "seat_draw", "what": "seats",
         "rule": f"a draw; the strongest card sits {p.seat_draw.first_seat.id}, the others "
                 "follow in play order", "source": src(p.seat_draw.source),
         "note": p.seat_draw.note or ""},
        {"key": "first_banker", "what": "first 椿",
         "rule": FIRST_BANKER_RULES.get(nb.first_banker_rule, nb.first_banker_rule),
         "source": src(nb.first_banker_source), "note": ""},
        {"key": "next_banker", "what": "next 椿", "rule": rule,
         "source": src(nb.next_banker_source), "note": ""},
    ]
    for bank, what in (("seize", "奪椿"), ("keep", "留椿"), ("redraw", "另拈椿")):
        names = [i.name for i in rs.items.values() if i.bank == bank]
        if bank == "redraw":
            names += [f"罰 {f.name}" for f in rs.fines.values() if f.bank == "redraw"]
            if nb.next_banker_mian_dou == "redraw":
                names.append("any 免斗")
        if names:
            rows.append({"key": f"bank_{bank}", "what": what, "rule": ", ".join(names),
                         "source": "", "note": ""})
    takers = [i.name for i in rs.items.values()
              if i.channel == "guan_dui" and i.raw.get("zhu") == {"pool": "guan_dui"}]
    rows += [
        {"key": "redraw", "what": "另拈椿 how",
         "rule": f"{p.redraw.meaning}; record {p.redraw_record}: {_record_meaning(p.redraw_record)}",
         "source": src(p.redraw.source), "note": p.redraw.note or ""},
        {"key": "guan_dui", "what": "官堆",
         "rule": "carried from hand to hand; taken by " + (", ".join(takers) or "no item"),
         "source": "", "note": ""},
        {"key": "stakes", "what": "買注 cap", "rule": p.stakes.meaning,
         "source": src(p.stakes.source), "note": p.stakes.note or ""},
    ]
    return rows


def _record_meaning(value: str) -> str:
    return REDRAW_RECORD[value]


def hand_info(sitting: Sitting, number: int) -> dict[str, Any]:
    """A hand's deal, as dealt to the seats (once for all rulesets)."""
    h = sitting.hands[number - 1]
    deal = h.deal
    return {
        "number": h.number, "id": deal.id, "title": deal.title, "source": deal.source,
        "notes": deal.notes, "given_by_code": h.code,
        "recorded_banker": h.banker.id if h.banker is not None else None,
        "stake": node_number(h.stake),
        "hands": {s.id: [CARD_HANZI[c] for c in deal.hands[s]] for s in SEATS},
        "stock": [CARD_HANZI[c] for c in deal.stock], "face": CARD_HANZI[deal.face],
        "recorded": deal.play is not None,
        "events": [{"type": e.type, "seat": e.seat.id, "trick": e.trick,
                    "card": CARD_HANZI[e.card] if e.card is not None else None,
                    "victim": e.victim.id if e.victim is not None else None} for e in deal.events],
    }


def result_block(res: SittingResult) -> dict[str, Any]:
    """One ruleset's sitting: per hand the 椿, the 官堆, nets and running totals."""
    player_at = res.player_at
    players = [player_at[s] for s in SEATS]
    running = [0, 0, 0, 0]
    money = [Fraction(0)] * 4
    lowest = [0, 0, 0, 0]
    highest = [0, 0, 0, 0]
    hands = []
    for h in res.hands:
        nets = h.nets
        for k in range(4):
            running[k] += nets[k]
            money[k] += h.money[k]
            lowest[k] = min(lowest[k], running[k])
            highest[k] = max(highest[k], running[k])
        s = h.settlement
        hands.append({
            "number": h.hand.number, "id": h.hand.deal.id,
            "banker": h.banker.id, "banker_hanzi": SEAT_HANZI[h.banker],
            "banker_player": player_at[h.banker], "how": h.how, "status": s.status,
            "code": dealcode.encode(s.deal),  # the deal with this ruleset's 椿
            "stake": node_number(h.hand.stake),
            "guan_dui": {"before": json_number(h.pool_before), "after": json_number(h.pool_after),
                         "before_text": format_zhu(h.pool_before), "after_text": format_zhu(h.pool_after),
                         "net": json_number(nets[GUAN_DUI])},
            "nets": {players[k]: json_number(nets[k]) for k in range(4)},
            "net_texts": {players[k]: format_zhu(nets[k], signed=True) for k in range(4)},
            "running": {players[k]: json_number(running[k]) for k in range(4)},
            "running_texts": {players[k]: format_zhu(running[k], signed=True) for k in range(4)},
            "row": [format_zhu(nets[k], signed=True) for k in range(4)],
            "running_row": [format_zhu(running[k], signed=True) for k in range(4)],
            "next_banker": s.next_banker.id if s.next_banker is not None else None,
            "next_banker_reason": s.next_banker_reason,
            "notes": list(h.notes),
            "settlement": settlement_view(s),
        })
    bankers = [int(h.banker) for h in res.hands]
    ten = tenure(bankers)
    totals = res.totals()
    return {
        "ruleset": res.ruleset.id,
        "ruleset_name": res.ruleset.name,
        "procedure": procedure_info(res.ruleset),
        "seating": res.seating,
        "seats": [{"seat": s.id, "hanzi": SEAT_HANZI[s], "player": player_at[s]} for s in SEATS],
        "players": {name: seat.id for name, seat in res.seat_of.items()},
        "hands": hands,
        "hands_played": len(res.hands),
        "stopped": res.stopped,
        "bank_sequence": [player_at[SEATS[b]] for b in bankers],
        "spells": [{"player": player_at[SEATS[sp.seat]], "seat": SEATS[sp.seat].id,
                    "start": sp.start, "length": sp.length} for sp in spells(bankers)],
        "tenure": [{"player": players[k], "seat": SEATS[k].id, "hands": t.hands, "spells": t.spells,
                    "longest": t.longest,
                    "share": round(t.hands / len(bankers), 4) if bankers else None}
                   for k, t in enumerate(ten)],
        "totals": {players[k]: {"seat": SEATS[k].id, "net": json_number(totals[k]),
                                "net_text": format_zhu(totals[k], signed=True),
                                "money": _money(money[k]), "money_text": _money_text(money[k]),
                                "lowest": json_number(lowest[k]), "highest": json_number(highest[k])}
                   for k in range(4)},
        "guan_dui": {"start": json_number(res.hands[0].pool_before) if res.hands else 0,
                     "end": json_number(res.hands[-1].pool_after) if res.hands else 0,
                     "end_text": format_zhu(res.hands[-1].pool_after) if res.hands else "0",
                     "net": json_number(totals[GUAN_DUI])},
        "totals_row": [format_zhu(totals[k], signed=True) for k in range(4)],
        "money_row": [_money_text(money[k]) for k in range(4)],
        "balance": json_number(sum(totals)),
        "notes": list(res.notes),
        "chart": running_chart(res),
    }


def running_chart(res: SittingResult) -> dict[str, Any]:
    """Line chart spec (svg.line_chart): each player's running total after each hand."""
    player_at = res.player_at
    values: list[list[float]] = [[0.0] for _ in SEATS]
    run = [0, 0, 0, 0]
    for h in res.hands:
        for k in range(4):
            run[k] += h.nets[k]
            values[k].append(float(zhu(run[k])))
    return {"x": ["0", *[str(h.hand.number) for h in res.hands]],
            "series": [f"{player_at[s]} ({s.id})" for s in SEATS],
            "values": values, "unit": "注",
            "marks": [int(h.banker) for h in res.hands]}


def bank_table(results: Sequence[SittingResult]) -> list[dict[str, Any]]:
    """Per hand, the 椿 under each ruleset, and whether they differ."""
    n = max((len(r.hands) for r in results), default=0)
    rows = []
    for i in range(n):
        cells = []
        for r in results:
            if i < len(r.hands):
                h = r.hands[i]
                cells.append({"seat": h.banker.id, "hanzi": SEAT_HANZI[h.banker],
                              "player": r.player_at[h.banker], "status": h.settlement.status,
                              "text": f"{r.player_at[h.banker]} {SEAT_HANZI[h.banker]}"
                                      + (" 免斗" if h.settlement.status == "mian_dou" else "")})
            else:
                cells.append({"seat": None, "hanzi": "", "player": None, "status": None, "text": "—"})
        present = [c["player"] for c in cells if c["player"] is not None]
        hand = results[0].sitting.hands[i]
        rows.append({"number": i + 1, "id": hand.deal.id, "cells": cells,
                     "differs": len(set(present)) > 1})
    return rows


def stamp(rulesets: Sequence[Ruleset], sitting: Sitting, command: str,
          trust_record: bool) -> dict[str, Any]:
    return {**run_stamp(command, rulesets, seed=sitting.seed), "trust_record": trust_record}


def build_sitting_report(sitting: Sitting, results: Sequence[SittingResult], *, command: str = "",
                         input_name: str = "", trust_record: bool = False) -> dict[str, Any]:
    """The sitting report: results[j] is the sitting under the j-th ruleset."""
    rulesets = [r.ruleset for r in results]
    stakes = sitting.stakes
    table = bank_table(results)
    return {
        "kind": "sitting",
        "tool": {"name": "mahdiao-rules", "version": __version__},
        "input": input_name,
        "title": sitting.title, "source": sitting.source, "notes": sitting.notes,
        "played_under": sitting.played_under,
        "seed": sitting.seed,
        "players": list(sitting.players),
        "stakes": ({"floor": node_number(stakes.floor), "cap": node_number(stakes.cap),
                    "unit": stakes.unit} if stakes else None),
        "unit": sitting.stake_unit,
        "same_deals": SAME_DEALS,
        "rulesets": [ruleset_info(rs) for rs in rulesets],
        "accounts": {a: h for a, h in zip(ACCOUNT_IDS, ACCOUNT_HANZI, strict=True)},
        "hands": [hand_info(sitting, n) for n in range(1, len(sitting.hands) + 1)],
        "bank_table": table,
        "bank_differs": [row["number"] for row in table if row["differs"]],
        "results": [result_block(r) for r in results],
        "source_list": source_rows(rulesets),
        "stamp": stamp(rulesets, sitting, command, trust_record),
    }
