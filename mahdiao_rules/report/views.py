"""Views: what the text, Markdown, HTML and LaTeX templates show, derived from a report model.

The model (replay.py) is data: numbers, ids, source keys.  A template also wants texts
(``+1½``, 捉, the quoted source), the side-by-side grid of one deal, its chart and the
differences between rulesets.  All of them are derived here from the model and the
rulesets, one deal at a time, and never written to JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from ..deal import SEAT_HANZI, SEATS
from ..play.tricks import ACTION_HANZI
from ..ruleset import colour_of
from ..ruleset.model import CHANNEL_HANZI, Ruleset
from ..units import format_zhu, ticks, zhu
from .cite import bibliography
from .compare import differences
from .contract import citation_of_data
from .replay import CHANNEL_ORDER

ALWAYS_SHOWN = ("kai_zhu", "qiao_men", "gong_he", "guan_dui")
"""Side-by-side subtotal rows: 開注, 敲門, 賀 and 官堆 always, the others when nonzero."""

_SEATS = {s.id: s for s in SEATS}


def zhu_text(value: Any, signed: bool = False) -> str:
    """A model amount (注, as JSON writes it) as people read it: ``3``, ``-1½``, ``+⅓``."""
    return format_zhu(ticks(value), signed=signed)


class SourceText:
    """Citation texts (``S3「…」``) of the rulesets of a document, from its citations tables."""

    def __init__(self, head: dict[str, Any]) -> None:
        self.rules = {r["id"]: r["rules"] for r in head["rulesets"]}
        self.offences = {r["id"]: r.get("offences", {}) for r in head["rulesets"]}
        self.memo: dict[tuple[str, str, bool], str] = {}

    def __call__(self, rs: Ruleset | str, rule_id: str, channel: str = "") -> str:
        rs_id = rs if isinstance(rs, str) else rs.id
        offence = channel == "dai_pei" and rule_id in self.offences.get(rs_id, {})
        key = (rs_id, rule_id, offence)
        if key not in self.memo:
            rule = (self.offences if offence else self.rules).get(rs_id, {}).get(rule_id)
            self.memo[key] = citation_of_data(rule["citation"]).short if rule else ""
        return self.memo[key]


def source_list(head: dict[str, Any]) -> list[dict[str, Any]]:
    """The document's sources as the closing section of a report lists them: key, short and
    full reference (``title``), URL (``where``), the rulesets that cite it."""
    sources = {k: {f: v for f, v in e.items() if f != "rulesets"} for k, e in head["sources"].items()}
    by = {k: e.get("rulesets", []) for k, e in head["sources"].items()}
    rows = bibliography(sources)
    return [{**r, "rulesets": by.get(r["key"], []), "title": r["text"], "where": r["url"]} for r in rows]


def head_view(head: dict[str, Any], deals: Any) -> dict[str, Any]:
    """The document as templates read it: the head, ``source_list``, and *deals* (views)."""
    return {**head, "source_list": source_list(head), "deals": deals}


def tricks_view(tricks: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for n, t in enumerate(tricks, start=1):
        lead = _SEATS[t["lead"]]
        cards = [{"seat": lead.after(i).id, "card": c, "action": a, "action_hanzi": ACTION_HANZI[a]}
                 for i, (c, a) in enumerate(zip(t["cards"], t["actions"], strict=True))]
        winning = next(c["card"] for c in cards if c["seat"] == t["winner"])
        out.append({"number": n, "lead": t["lead"], "cards": cards, "winner": t["winner"],
                    "winning_card": winning})
    return out


def with_rules(r: dict[str, Any], rules: dict[str, dict[str, Any]], recorded: list[Any]) -> dict[str, Any]:
    """A result with what its fired items refer to filled in (concept, channel, phase, ends_hand)
    and its tricks written out where the model says "the recorded ones" (null)."""
    fired = []
    for f in r["fired"]:
        rule = rules.get(f["id"], {})
        fired.append({"concept": rule.get("concept", f["id"]), "channel": rule.get("channel", ""),
                      "phase": rule.get("phase", ""), "ends_hand": rule.get("ends_hand", False), **f})
    return {**r, "fired": fired, "tricks": recorded if r["tricks"] is None else r["tricks"]}


def result_view(r: dict[str, Any], rs: Ruleset, cite: SourceText) -> dict[str, Any]:
    seats = {k: {**v, "net_text": zhu_text(v["net"], True)} for k, v in r["seats"].items()}
    fired = [{**f, "zhu_text": zhu_text(f["zhu"]),
              "channel_hanzi": CHANNEL_HANZI.get(f["channel"], f["channel"]),
              "source_ref": f["source"], "source": cite(rs, f["id"])} for f in r["fired"]]
    ledger = [{**line, "amount_text": zhu_text(line["amount"]), "source_ref": line["source"],
               "source": cite(rs, line["item"], line["channel"])} for line in r["ledger"]]
    matrix_text = {a: {b: zhu_text(v) if v else "" for b, v in row.items()} for a, row in r["matrix"].items()}
    return {
        **r,
        "ruleset_name": rs.name,
        "tricks": tricks_view(r["tricks"]),
        "seats": seats,
        "fired": fired,
        "ledger": ledger,
        "matrix_text": matrix_text,
        "guan_dui": {**r["guan_dui"], "net_text": zhu_text(r["guan_dui"]["net"], True)},
        "chong": [{**c, "points_text": zhu_text(c["points"])} for c in r["chong"]],
    }


def deal_view(deal: dict[str, Any], rulesets: Sequence[Ruleset], cite: SourceText,
              lang: str = "en") -> dict[str, Any]:
    """One deal of a replay model as the templates show it (in *lang*, where words differ)."""
    results = [with_rules(r, cite.rules.get(r["ruleset"], {}), deal["tricks"]) for r in deal["results"]]
    recorded_lead = deal["tricks"][0]["lead"] if deal["tricks"] else None
    return {
        **deal,
        "tricks": tricks_view(deal["tricks"]),
        "results": [result_view(r, rs, cite) for r, rs in zip(results, rulesets, strict=True)],
        "grid": grid(results, rulesets, deal["banker"], cite),
        "chart": net_chart(results, rulesets),
        "differences": differences(recorded_lead, results, rulesets, cite, lang),
    }


def deal_views(deals: Iterable[dict[str, Any]], rulesets: Sequence[Ruleset],
               head: dict[str, Any], lang: str = "en") -> Iterator[dict[str, Any]]:
    cite = SourceText(head)
    for deal in deals:
        yield deal_view(deal, rulesets, cite, lang)


# ---------------------------------------------------------------------- the side-by-side grid


def _plain(text: str, state: str = "value") -> dict[str, Any]:
    """A grid cell that is not a firing (tricks, subtotals, net, an absent or silent item)."""
    return {"state": state, "text": text, "cards": [], "names": [], "sources": [], "refs": []}


def _cell(firings: list[dict[str, Any]], rs: Ruleset, cite: Callable[[Ruleset, str], str]) -> dict[str, Any]:
    parts = []
    for f in firings:
        text = zhu_text(f["zhu"]) + (f" (×{f['count']})" if f["count"] > 1 else "")
        parts.append(text + (" 免斗" if f["ends_hand"] else ""))
    return {
        "state": "fired",
        "text": " ".join(parts),
        "cards": [c for f in firings for c in f["cards"]],
        "names": sorted({f["name"] for f in firings}),
        "sources": sorted({cite(rs, f["id"]) for f in firings}),
        "refs": sorted({f["source"] or "" for f in firings}),
    }


def grid(results: Sequence[dict[str, Any]], rulesets: Sequence[Ruleset], banker: str,
         cite: Callable[[Ruleset, str], str]) -> dict[str, Any]:
    """The side-by-side table of one deal: per seat, rows × one column per ruleset.

    Rows are the seat's tricks, each item concept that fired for the seat under
    some ruleset ("·" where it exists but did not fire, "—" where the ruleset has
    no such item), the subtotals by channel and the net; every cell has "text".
    """
    concepts: dict[str, str] = {}  # concept → name, in the rulesets' order
    has: list[set[str]] = []
    for rs in rulesets:
        own = set()
        for item in rs.items.values():
            concept = item.concept or item.id
            concepts.setdefault(concept, item.name)
            own.add(concept)
        has.append(own)
    used = {k for r in results for v in r["seats"].values() for k, x in v["by_channel"].items() if ticks(x)}
    shown = [c for c in CHANNEL_ORDER if c in ALWAYS_SHOWN or c in used]
    shown += sorted(used - set(shown))
    seats = []
    for seat in SEATS:
        tricks = [str(r["seats"][seat.id]["tricks"]) if r["tricks"] else "—" for r in results]
        rows: list[dict[str, Any]] = [{
            "kind": "tricks", "key": "tricks", "name": "卓",
            "cells": [_plain(t) for t in tricks], "differs": len(set(tricks)) > 1,
        }]
        mine = [[f for f in r["fired"] if f["seat"] == seat.id] for r in results]
        for concept, name in concepts.items():
            fired = [[f for f in fs if f["concept"] == concept] for fs in mine]
            if not any(fired):
                continue
            cells = []
            for rs, own, fs in zip(rulesets, has, fired, strict=True):
                if fs:
                    cells.append(_cell(fs, rs, cite))
                else:
                    cells.append(_plain("·", "silent") if concept in own else _plain("—", "absent"))
            rows.append({"kind": "item", "key": concept, "name": name, "cells": cells,
                         "differs": len({c["text"] for c in cells}) > 1})
        for ch in shown:
            values = [ticks(r["seats"][seat.id]["by_channel"].get(ch, 0)) for r in results]
            rows.append({"kind": "channel", "key": ch, "name": CHANNEL_HANZI.get(ch, ch),
                         "cells": [_plain(format_zhu(v, signed=True)) for v in values],
                         "differs": len(set(values)) > 1})
        net = [ticks(r["seats"][seat.id]["net"]) for r in results]
        rows.append({"kind": "net", "key": "net", "name": "淨",
                     "cells": [_plain(format_zhu(v, signed=True)) for v in net],
                     "differs": len(set(net)) > 1})
        seats.append({"seat": seat.id, "hanzi": SEAT_HANZI[seat],
                      "role": "椿" if seat == _SEATS[banker] else "散", "rows": rows})
    return {"rulesets": [r["ruleset"] for r in results], "seats": seats}


def net_chart(results: Sequence[dict[str, Any]], rulesets: Sequence[Ruleset]) -> dict[str, Any]:
    """Chart spec (svg.py): net 注 per seat, one bar per ruleset, each in its own colour."""
    return {
        "categories": [f"{SEAT_HANZI[seat]} {seat.id}" for seat in SEATS],
        "series": [r["ruleset"] for r in results],
        "colours": [colour_of(rs) for rs in rulesets],
        "values": [[float(zhu(ticks(r["seats"][seat.id]["net"]))) for r in results] for seat in SEATS],
        "unit": "注",
    }
