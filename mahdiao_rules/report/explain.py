"""Why was I paid this?  Every ledger line behind one seat's net, grouped by rule item.

The model answers for one deal, one ruleset and one seat: each group is one
rule item as held by one account (a 吊 the seat won and a 吊 another seat lost
are two groups), with its source key and quoted phrase, the cards that made it
fire, and the lines in both directions.  The subtotals add up to the net.
:func:`explain_view` adds what the templates show (texts such as ``+1½``).
"""

from __future__ import annotations

from typing import Any

from ..cards import CARD_HANZI
from ..deal import SEAT_HANZI, Deal, Seat
from ..settle.hand import Settlement
from ..settle.ledger import ACCOUNT_HANZI, ACCOUNT_IDS
from ..units import json_number
from .contract import citation_data, citation_of, envelope, sources_table
from .replay import deal_info, ruleset_info, tricks_info
from .views import SourceText, source_list, tricks_view, zhu_text


def explain_report(deal: Deal, s: Settlement, seat: Seat, *, stamp: dict[str, Any]) -> dict[str, Any]:
    rs = s.ruleset
    me = int(seat)
    groups: dict[tuple[str, int], dict[str, Any]] = {}
    for t in s.ledger:
        if me not in (t.payer, t.payee):
            continue
        key = (t.item, t.holder)
        if key not in groups:
            cite = citation_of(rs, t.item, t.channel)
            item = rs.items.get(t.item)
            ref = cite.ref if cite else None
            groups[key] = {
                "item": t.item,
                "name": t.name,
                "concept": (item.concept or item.id) if item is not None else t.item,
                "gloss": item.gloss if item is not None else "",
                "channel": t.channel,
                "holder": ACCOUNT_IDS[t.holder],
                "source": ref,
                "citation": citation_data(cite) if cite else [],
                "cards": t.note,
                "lines": [],
                "_ticks": 0,
            }
        g = groups[key]
        incoming = t.payee == me
        other = t.payer if incoming else t.payee
        signed = t.amount if incoming else -t.amount
        g["_ticks"] += signed
        g["lines"].append({
            "direction": "in" if incoming else "out",
            "payer": ACCOUNT_IDS[t.payer],
            "payee": ACCOUNT_IDS[t.payee],
            "counterparty": ACCOUNT_IDS[other],
            "amount": json_number(t.amount),
            "signed": json_number(signed),
            "holder": ACCOUNT_IDS[t.holder],
            "item": t.item,
            "name": t.name,
            "note": t.note,
        })
    out_groups = []
    total = 0
    for g in groups.values():
        ticks = g.pop("_ticks")
        total += ticks
        g["subtotal"] = json_number(ticks)
        out_groups.append(g)
    net = s.nets[me]
    won = list(s.play.won[seat]) if s.play else []
    return envelope(
        "explain", stamp,
        deal={**deal_info(deal), "tricks": tricks_info(s.play)},
        ruleset=ruleset_info(rs),
        status=s.status,
        seat=seat.id,
        role="椿" if seat == deal.banker else "散",
        tricks=len(won),
        won=[CARD_HANZI[c] for c in won],
        fired=[{"id": f.item.id, "name": f.item.name, "zhu": json_number(f.amount), "count": f.count,
                "cards": [CARD_HANZI[c] for c in f.cards],
                "source": f.item.source.ref}
               for f in s.firings if f.seat == seat and (f.amount or f.item.ends_hand)],
        groups=out_groups,
        net=json_number(net),
        balanced=total == net,
        notes=list(s.notes),
        accounts=dict(zip(ACCOUNT_IDS, ACCOUNT_HANZI, strict=True)),
        sources=sources_table([rs]),
    )


def explain_view(model: dict[str, Any]) -> dict[str, Any]:
    """The explain model as its templates read it (hanzi names, amounts as text, source texts)."""
    hanzi = dict(zip(ACCOUNT_IDS, ACCOUNT_HANZI, strict=True))
    cite = SourceText({"rulesets": [model["ruleset"]]})
    rs_id = model["ruleset"]["id"]
    groups = []
    for g in model["groups"]:
        entry = model["sources"].get(g["source"], {}) if g["source"] else {}
        title = entry.get("title", "")
        lines = [{**line, "counterparty_hanzi": hanzi[line["counterparty"]],
                  "amount_text": zhu_text(line["amount"]), "signed_text": zhu_text(line["signed"], True),
                  "source": cite(rs_id, line["item"], g["channel"])} for line in g["lines"]]
        groups.append({**g, "holder_hanzi": hanzi[g["holder"]], "source_ref": g["source"] or "",
                       "source": cite(rs_id, g["item"], g["channel"]), "source_title": title, "lines": lines,
                       "subtotal_text": zhu_text(g["subtotal"], True)})
    fired = [{**f, "zhu_text": zhu_text(f["zhu"]), "source": cite(rs_id, f["id"])} for f in model["fired"]]
    return {**model, "deal": {**model["deal"], "tricks": tricks_view(model["deal"]["tricks"])},
            "seat_hanzi": SEAT_HANZI[Seat(ACCOUNT_IDS.index(model["seat"]))], "groups": groups,
            "fired": fired, "net_text": zhu_text(model["net"], True), "source_list": source_list(model)}
