"""Why was I paid this?  Every ledger line behind one seat's net, grouped by rule item.

The model answers for one deal, one ruleset and one seat: each group is one
rule item as held by one account (a 吊 the seat won and a 吊 another seat lost
are two groups), with the quoted source phrase, the cards that made it fire,
and the lines in both directions.  The subtotals add up to the net.
"""

from __future__ import annotations

from typing import Any

from ..cards import CARD_HANZI
from ..deal import SEAT_HANZI, Deal, Seat
from ..ruleset.model import Citation, Ruleset
from ..settle.hand import Settlement
from ..settle.ledger import ACCOUNT_HANZI, ACCOUNT_IDS
from ..units import format_zhu, json_number
from .replay import deal_info, ruleset_info, source_list, stamp_info, tricks_info


def citation_of(rs: Ruleset, item_id: str) -> Citation | None:
    """The citation of a rule item, fine or 代賠 offence of *rs*."""
    if item_id in rs.items:
        return rs.items[item_id].source
    if item_id in rs.fines:
        return rs.fines[item_id].source
    if rs.dai_pei is not None and item_id in rs.dai_pei.offences:
        return rs.dai_pei.offences[item_id].source
    return None


def explain_report(deal: Deal, s: Settlement, seat: Seat, *, command: str = "") -> dict[str, Any]:
    rs = s.ruleset
    me = int(seat)
    groups: dict[tuple[str, int], dict[str, Any]] = {}
    for t in s.ledger:
        if me not in (t.payer, t.payee):
            continue
        key = (t.item, t.holder)
        if key not in groups:
            cite = citation_of(rs, t.item)
            item = rs.items.get(t.item)
            groups[key] = {
                "item": t.item,
                "name": t.name,
                "concept": (item.concept or item.id) if item is not None else t.item,
                "gloss": item.gloss if item is not None else "",
                "channel": t.channel,
                "holder": ACCOUNT_IDS[t.holder],
                "holder_hanzi": ACCOUNT_HANZI[t.holder],
                "source": t.source,
                "source_ref": cite.ref if cite else "",
                "quote": cite.quote if cite else "",
                "source_title": rs.sources.get(cite.ref, {}).get("title", "") if cite else "",
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
            "counterparty_hanzi": ACCOUNT_HANZI[other],
            "amount": json_number(t.amount),
            "amount_text": format_zhu(t.amount),
            "signed_text": format_zhu(signed, signed=True),
            "holder": ACCOUNT_IDS[t.holder],
            "item": t.item,
            "name": t.name,
            "source": t.source,
            "note": t.note,
        })
    out_groups = []
    total = 0
    for g in groups.values():
        ticks = g.pop("_ticks")
        total += ticks
        g["subtotal"] = json_number(ticks)
        g["subtotal_text"] = format_zhu(ticks, signed=True)
        out_groups.append(g)
    net = s.nets[me]
    won = list(s.play.won[seat]) if s.play else []
    return {
        "kind": "explain",
        "deal": {**deal_info(deal), "tricks": tricks_info(s.play)},
        "ruleset": ruleset_info(rs),
        "status": s.status,
        "seat": seat.id,
        "seat_hanzi": SEAT_HANZI[seat],
        "role": "椿" if seat == deal.banker else "散",
        "tricks": len(won),
        "won": [CARD_HANZI[c] for c in won],
        "fired": [{"id": f.item.id, "name": f.item.name, "zhu_text": format_zhu(f.amount),
                   "count": f.count, "cards": [CARD_HANZI[c] for c in f.cards],
                   "source": f.item.source.short}
                  for f in s.firings if f.seat == seat and (f.amount or f.item.ends_hand)],
        "groups": out_groups,
        "net": json_number(net),
        "net_text": format_zhu(net, signed=True),
        "balanced": total == net,
        "notes": list(s.notes),
        "accounts": dict(zip(ACCOUNT_IDS, ACCOUNT_HANZI, strict=True)),
        "source_list": source_list([rs]),
        "stamp": stamp_info([rs], [deal.id], command),
    }
