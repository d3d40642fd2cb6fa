"""What the text, Markdown, HTML and LaTeX sitting reports show, derived from the sitting model.

The model (:mod:`.sitting`) runs hand by hand, every ruleset at once; a page shows the
sitting ruleset by ruleset (its table of hands, its tenure, then each hand's ledger).  So
the view is made in two passes over the model: the first keeps a short row per hand and
ruleset (the 椿, the 官堆, nets and running totals as texts), the charts and the bank
table; each ruleset's ledgers come from a second pass, one hand at a time while the
template writes them (:class:`~.render.OnePass`).  A long sitting's page then holds its
rows, never its ledgers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from typing import Any

from ..deal import SEAT_HANZI, SEATS
from ..ruleset.model import Ruleset
from ..units import ticks, zhu
from .contract import citation_of_data
from .views import SourceText, result_view, source_list, with_rules, zhu_text

PROCEDURE_WHAT = {"seat_draw": "seats", "first_banker": "first 椿", "next_banker": "next 椿",
                  "bank_seize": "奪椿", "bank_keep": "留椿", "bank_redraw": "另拈椿",
                  "redraw": "另拈椿 how", "guan_dui": "官堆", "stakes": "買注 cap"}
"""The row names of a ruleset's between-hand procedure (``procedure[].key``)."""
NOT_DECLARED = "(not declared: the tool's default)"


def money_text(value: Any) -> str:
    """An amount in the stake unit (JSON number or "p/q") as people read it: ``+3``, ``-1.33``."""
    q = Fraction(str(value))
    sign = "+" if q > 0 else ""
    if q.denominator == 1:
        return f"{sign}{q.numerator}"
    return f"{sign}{float(q):.2f}".rstrip("0").rstrip(".")


def procedure_view(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for p in rows:
        source = citation_of_data(p["citation"]).short if p["citation"] else ""
        if not source and p["key"] in ("seat_draw", "first_banker", "next_banker", "redraw", "stakes"):
            source = NOT_DECLARED
        out.append({**p, "what": PROCEDURE_WHAT.get(p["key"], p["key"]), "source_ref": p["source"],
                    "source": source, "note": p["note"] or ""})
    return out


class RunningCharts:
    """Each ruleset's running totals after each hand, kept from the hand models as they pass
    (a few numbers a hand): the line charts of a sitting report and of ``--svg-dir``."""

    def __init__(self, rulesets: Sequence[str]) -> None:
        self.ids = list(rulesets)
        self.values: dict[str, list[list[float]]] = {}
        self.x: dict[str, list[str]] = {i: ["0"] for i in self.ids}
        self.marks: dict[str, list[int]] = {i: [] for i in self.ids}
        self.series: dict[str, list[str]] = {}

    def add(self, hand: dict[str, Any]) -> None:
        for r in hand["results"]:
            rid, players = r["ruleset"], list(r["running"])
            if rid not in self.values:
                self.values[rid] = [[0.0] for _ in players]
                self.series[rid] = [f"{p} ({s.id})" for p, s in zip(players, SEATS, strict=True)]
            for k, p in enumerate(players):
                self.values[rid][k].append(float(zhu(ticks(r["running"][p]))))
            self.x[rid].append(str(hand["number"]))
            self.marks[rid].append(next(k for k, s in enumerate(SEATS) if s.id == r["banker"]))

    def passing(self, hands: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for hand in hands:
            self.add(hand)
            yield hand

    def chart(self, rid: str) -> dict[str, Any]:
        """Line chart spec (svg.line_chart): each player's running total after each hand."""
        return {"x": self.x[rid], "series": self.series.get(rid, []), "values": self.values.get(rid, []),
                "unit": "注", "marks": self.marks[rid]}

    def charts(self) -> list[tuple[str, dict[str, Any]]]:
        return [(rid, self.chart(rid)) for rid in self.ids]


def _pool(settlement: dict[str, Any]) -> dict[str, str]:
    """The 官堆 before and after a hand, as texts."""
    return {"before_text": zhu_text(settlement["guan_dui"]["start"]),
            "after_text": zhu_text(settlement["guan_dui"]["end"])}


def _row(hand: dict[str, Any], r: dict[str, Any], acc: dict[str, str]) -> dict[str, Any]:
    """A hand under one ruleset as a row of its table: texts, no ledger."""
    s = r["settlement"]
    return {
        "number": hand["number"], "id": hand["id"], "banker": r["banker"], "banker_hanzi": acc[r["banker"]],
        "banker_player": r["banker_player"], "how": r["how"], "status": s["status"], "notes": r["notes"],
        "guan_dui": _pool(s),
        "row": [zhu_text(v, True) for v in r["nets"].values()],
        "running_row": [zhu_text(v, True) for v in r["running"].values()],
    }


def sitting_view(head: dict[str, Any], hands: Iterable[dict[str, Any]], tail: Callable[[], dict[str, Any]],
                 details: Callable[[int], Iterable[dict[str, Any]]], rulesets: Sequence[Ruleset]
                 ) -> dict[str, Any]:
    """The sitting as the templates read it.  *hands* are the hand models (first pass), *tail*
    gives the summaries once they are read, ``details(j)`` the hand models of ruleset *j*
    again (second pass, read while the template writes the ledgers)."""
    from .render import OnePass

    acc = head["accounts"]
    ids = [r["id"] for r in head["rulesets"]]
    charts = RunningCharts(ids)
    rows: dict[str, list[dict[str, Any]]] = {i: [] for i in ids}
    bank_table = []
    for hand in charts.passing(hands):
        by = {r["ruleset"]: r for r in hand["results"]}
        cells = []
        for rid in ids:
            r = by.get(rid)
            if r is None:  # this ruleset's sitting ended at the stake cap
                cells.append({"seat": None, "hanzi": "", "player": None, "status": None, "text": "—"})
                continue
            rows[rid].append(_row(hand, r, acc))
            status = r["settlement"]["status"]
            cells.append({"seat": r["banker"], "hanzi": acc[r["banker"]], "player": r["banker_player"],
                          "status": status, "text": f"{r['banker_player']} {acc[r['banker']]}"
                                                    + (" 免斗" if status == "mian_dou" else "")})
        bank_table.append({"number": hand["number"], "id": hand["id"], "cells": cells})
    after = tail()
    differs = set(after["bank_differs"])  # the hands whose 椿 differ, as the stream found them
    for row in bank_table:
        row["differs"] = row["number"] in differs
    results = []
    for j, (info, s, rs) in enumerate(zip(head["rulesets"], after["results"], rulesets, strict=True)):
        seats = {seat: name for name, seat in s["players"].items()}
        order = [seats[x.id] for x in SEATS]
        results.append({
            **s,
            "ruleset_name": info["name"],
            "procedure": procedure_view(info["procedure"]),
            "seats": [{"seat": x.id, "hanzi": SEAT_HANZI[x], "player": seats[x.id]} for x in SEATS],
            "hands": rows[s["ruleset"]],
            "details": OnePass(_details(details(j), rs, head, acc), s["hands_played"]),
            "totals": {p: {**t, "net_text": zhu_text(t["net"], True), "money_text": money_text(t["money"])}
                       for p, t in s["totals"].items()},
            "guan_dui": {**s["guan_dui"], "end_text": zhu_text(s["guan_dui"]["end"])},
            "totals_row": [zhu_text(s["totals"][p]["net"], True) for p in order],
            "money_row": [money_text(s["totals"][p]["money"]) for p in order],
            "chart": charts.chart(s["ruleset"]),
        })
    return {**head, "source_list": source_list(head), "bank_table": bank_table,
            "bank_differs": after["bank_differs"], "results": results}


def _details(hands: Iterable[dict[str, Any]], rs: Ruleset, head: dict[str, Any], acc: dict[str, str]
             ) -> Iterator[dict[str, Any]]:
    """Each hand under one ruleset with its ledger as the templates show it."""
    cite = SourceText(head)
    rules = cite.rules.get(rs.id, {})
    for hand in hands:  # a stream of this one ruleset: each hand has its one result
        for r in hand["results"]:
            s = with_rules(r["settlement"], rules, hand["tricks"])
            yield {"number": hand["number"], "id": hand["id"], "deal": hand, "banker": r["banker"],
                   "banker_hanzi": acc[r["banker"]], "banker_player": r["banker_player"], "code": r["code"],
                   "status": s["status"], "stake": hand["stake"], "guan_dui": _pool(s),
                   "settlement": result_view(s, rs, cite)}

