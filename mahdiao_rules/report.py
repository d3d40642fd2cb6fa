"""The report model: plain data built once from settlements, rendered by templates.

Renderers never touch game logic; they only read this model.  The JSON format
is this model as it stands, so its field names are a stable interface:
``deals[i].id``, ``deals[i].results[j].ruleset``, ``.status`` (``played`` or
``mian_dou``), ``.seats.<seat>.tricks``, ``.seats.<seat>.net`` and ``.ledger``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import __version__
from .cards import CARD_HANZI
from .deal import SEATS, Deal
from .ledger import (
    ACCOUNT_HANZI,
    ACCOUNT_IDS,
    GUAN_DUI,
    format_zhu,
    json_number,
    matrix,
)
from .play import ACTION_HANZI, PlayResult
from .ruleset.model import CHANNEL_HANZI, Ruleset
from .settle import Settlement


def _amount(t: int) -> dict[str, Any]:
    return {"zhu": json_number(t), "text": format_zhu(t)}


def ruleset_info(rs: Ruleset) -> dict[str, Any]:
    return {
        "id": rs.id,
        "name": rs.name,
        "name_en": rs.name_en,
        "file": rs.file,
        "hash": rs.content_hash,
        "item_count": rs.item_count,
        "options": dict(rs.option_values),
        "zhu_per_diao": rs.zhu_per_diao,
        "sources": {k: {"title": v.get("title", ""), "where": v.get("where", "")}
                    for k, v in rs.sources.items()},
    }


def deal_info(deal: Deal) -> dict[str, Any]:
    return {
        "id": deal.id,
        "title": deal.title,
        "source": deal.source,
        "notes": deal.notes,
        "banker": deal.banker.id,
        "hands": {s.id: [CARD_HANZI[c] for c in deal.hands[s]] for s in SEATS},
        "stock": [CARD_HANZI[c] for c in deal.stock],
        "face": CARD_HANZI[deal.face],
        "recorded": deal.play is not None,
        "guan_dui_start": deal.guan_dui,
        "events": [
            {"type": e.type, "seat": e.seat.id, "trick": e.trick,
             "card": CARD_HANZI[e.card] if e.card is not None else None,
             "victim": e.victim.id if e.victim is not None else None}
            for e in deal.events
        ],
    }


def tricks_info(play: PlayResult | None) -> list[dict[str, Any]]:
    if play is None:
        return []
    return [
        {
            "number": t.number,
            "lead": t.lead.id,
            "cards": [
                {"seat": t.seat_of(i).id, "card": CARD_HANZI[c], "action": a,
                 "action_hanzi": ACTION_HANZI[a]}
                for i, (c, a) in enumerate(zip(t.cards, t.actions, strict=True))
            ],
            "winner": t.winner.id,
            "winning_card": CARD_HANZI[t.winning_card],
        }
        for t in play.tricks
    ]


def result_info(s: Settlement) -> dict[str, Any]:
    rs = s.ruleset
    nets = s.nets
    banker = s.deal.banker
    seats: dict[str, Any] = {}
    for seat in SEATS:
        won = list(s.play.won[seat]) if s.play else []
        seats[seat.id] = {
            "role": "椿" if seat == banker else "散",
            "tricks": len(won),
            "won": [CARD_HANZI[c] for c in won],
            "net": json_number(nets[seat]),
            "net_text": format_zhu(nets[seat], signed=True),
        }
    items = [
        {
            "id": f.item.id,
            "name": f.item.name,
            "seat": f.seat.id,
            "zhu": json_number(f.amount),
            "zhu_text": format_zhu(f.amount),
            "count": f.count,
            "cards": [CARD_HANZI[c] for c in f.cards],
            "channel": f.item.channel,
            "channel_hanzi": CHANNEL_HANZI.get(f.item.channel, f.item.channel),
            "phase": f.item.phase,
            "ends_hand": f.item.ends_hand,
            "source": f.item.source.short,
            "source_ref": f.item.source.ref,
        }
        for f in s.firings
        if f.amount != 0 or f.item.ends_hand
    ]
    ledger = [
        {
            "payer": ACCOUNT_IDS[t.payer],
            "payee": ACCOUNT_IDS[t.payee],
            "amount": json_number(t.amount),
            "amount_text": format_zhu(t.amount),
            "item": t.item,
            "name": t.name,
            "channel": t.channel,
            "holder": ACCOUNT_IDS[t.holder],
            "note": t.note,
            "source": t.source,
        }
        for t in s.ledger
    ]
    m = matrix(s.ledger)
    return {
        "ruleset": rs.id,
        "ruleset_name": rs.name,
        "status": s.status,
        "first_leader": s.first_leader.id,
        "tricks": tricks_info(s.play),
        "seats": seats,
        "fired": items,
        "ledger": ledger,
        "matrix": {ACCOUNT_IDS[a]: {ACCOUNT_IDS[b]: json_number(m[a][b]) for b in range(5)}
                   for a in range(5)},
        "guan_dui": {
            "start": json_number(s.pool_start),
            "end": json_number(s.pool_end),
            "net": json_number(nets[GUAN_DUI]),
            "net_text": format_zhu(nets[GUAN_DUI], signed=True),
        },
        "balance": json_number(sum(nets)),
        "next_banker": s.next_banker.id if s.next_banker is not None else None,
        "next_banker_reason": s.next_banker_reason,
        "notes": list(s.notes),
    }


def build_report(deals: Sequence[Deal], rulesets: Sequence[Ruleset],
                 settlements: Sequence[Sequence[Settlement]], *, command: str = "",
                 input_name: str = "") -> dict[str, Any]:
    """The whole replay report: settlements[i][j] is deal i under ruleset j."""
    out_deals = []
    for deal, row in zip(deals, settlements, strict=True):
        info = deal_info(deal)
        info["results"] = [result_info(s) for s in row]
        out_deals.append(info)
    return {
        "tool": {"name": "mahdiao-rules", "version": __version__},
        "input": input_name,
        "rulesets": [ruleset_info(rs) for rs in rulesets],
        "accounts": {a: h for a, h in zip(ACCOUNT_IDS, ACCOUNT_HANZI, strict=True)},
        "deals": out_deals,
        "stamp": {
            "version": __version__,
            "rulesets": {rs.id: {"hash": rs.content_hash, "options": dict(rs.option_values)}
                         for rs in rulesets},
            "deals": [d.id for d in deals],
            "command": command,
        },
    }
