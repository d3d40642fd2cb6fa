"""The report model: plain data built once from settlements, rendered by templates.

Renderers never touch game logic; they only read this model.  The JSON format
is this model as it stands, so its field names are a stable interface:
``deals[i].id``, ``deals[i].results[j].ruleset``, ``.status`` (``played`` or
``mian_dou``), ``.seats.<seat>.tricks``, ``.seats.<seat>.net``, ``.ledger`` and
``.fired``.  Newer fields are only ever added: per deal the side-by-side
``grid`` (one column per ruleset), the ``chart`` of nets, the ``differences``
(compare.py); per seat ``by_channel``; at the end the reproducibility ``stamp``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import __version__
from ..cards import CARD_HANZI
from ..deal import SEAT_HANZI, SEATS, Deal
from ..io import dealcode
from ..play.tricks import ACTION_HANZI, PlayResult
from ..ruleset import colour_of
from ..ruleset.model import CHANNEL_HANZI, Ruleset
from ..settle.hand import Firing, Settlement
from ..settle.ledger import ACCOUNT_HANZI, ACCOUNT_IDS, GUAN_DUI, matrix
from ..units import format_zhu, json_number, zhu
from .cite import bibliography, used_sources
from .compare import differences

CHANNEL_ORDER = ("kai_zhu", "qiao_men", "gong_he", "san_jia", "guan_dui", "fa_li", "dai_pei")
ALWAYS_SHOWN = ("kai_zhu", "qiao_men", "gong_he", "guan_dui")
"""Side-by-side subtotal rows: 開注, 敲門, 賀 and 官堆 always, the others when nonzero."""


def channel_bucket(channel: str) -> str:
    """The subtotal a ledger channel counts in (both 開注 readings are 開注)."""
    return "kai_zhu" if channel.startswith("kai_zhu") else channel


def by_channel(s: Settlement) -> list[dict[str, int]]:
    """Per seat: net ticks by subtotal channel."""
    out: list[dict[str, int]] = [{}, {}, {}, {}]
    for t in s.ledger:
        key = channel_bucket(t.channel)
        for account, sign in ((t.payer, -1), (t.payee, 1)):
            if account < 4:
                out[account][key] = out[account].get(key, 0) + sign * t.amount
    return out


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
        "sources": {k: {"title": v.get("title", ""), "url": v.get("url", "")}
                    for k, v in rs.sources.items()},
    }


def deal_info(deal: Deal) -> dict[str, Any]:
    return {
        "id": deal.id,
        "title": deal.title,
        "source": deal.source,
        "notes": deal.notes,
        "code": dealcode.encode(deal),
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
    channels = by_channel(s)
    seats: dict[str, Any] = {}
    for seat in SEATS:
        won = list(s.play.won[seat]) if s.play else []
        seats[seat.id] = {
            "role": "椿" if seat == banker else "散",
            "tricks": len(won),
            "won": [CARD_HANZI[c] for c in won],
            "net": json_number(nets[seat]),
            "net_text": format_zhu(nets[seat], signed=True),
            "by_channel": {k: json_number(v) for k, v in channels[seat].items()},
        }
    items = [
        {
            "id": f.item.id,
            "concept": f.item.concept or f.item.id,
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
        "first_leader_differs": bool(s.play is not None and s.play.recorded
                                     and s.play.tricks[0].lead != s.first_leader),
        "tricks": tricks_info(s.play),
        "seats": seats,
        "fired": items,
        "ledger": ledger,
        "matrix": {ACCOUNT_IDS[a]: {ACCOUNT_IDS[b]: json_number(m[a][b]) for b in range(5)}
                   for a in range(5)},
        "matrix_text": {ACCOUNT_IDS[a]: {ACCOUNT_IDS[b]: format_zhu(m[a][b]) if m[a][b] else ""
                                         for b in range(5)} for a in range(5)},
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
        "chong": [
            {"order": i + 1, "card": CARD_HANZI[t.card], "seat": t.seat.id,
             "anchor": CARD_HANZI[t.anchor], "kind": t.kind, "duo": t.duo,
             "points": json_number(t.points), "points_text": format_zhu(t.points)}
            for i, t in enumerate(s.chong)
        ],
    }


def _plain(text: str, state: str = "value") -> dict[str, Any]:
    """A grid cell that is not a firing (tricks, subtotals, net, an absent or silent item)."""
    return {"state": state, "text": text, "cards": [], "names": [], "sources": [], "refs": []}


def _cell(firings: list[Firing]) -> dict[str, Any]:
    parts = []
    for f in firings:
        text = format_zhu(f.amount) + (f" (×{f.count})" if f.count > 1 else "")
        parts.append(text + (" 免斗" if f.item.ends_hand else ""))
    return {
        "state": "fired",
        "text": " ".join(parts),
        "cards": [CARD_HANZI[c] for f in firings for c in f.cards],
        "names": sorted({f.item.name for f in firings}),
        "sources": sorted({f.item.source.short for f in firings}),
        "refs": sorted({f.item.source.ref for f in firings}),
    }


def grid_info(row: Sequence[Settlement]) -> dict[str, Any]:
    """The side-by-side table of one deal: per seat, rows × one column per ruleset.

    Rows are the seat's tricks, each item concept that fired for the seat under
    some ruleset ("·" where it exists but did not fire, "—" where the ruleset has
    no such item), the subtotals by channel and the net; every cell has "text".
    """
    concepts: dict[str, str] = {}  # concept → name, in the rulesets' order
    for s in row:
        for item in s.ruleset.items.values():
            concepts.setdefault(item.concept or item.id, item.name)
    channels = [by_channel(s) for s in row]
    used = {k for per_seat in channels for seat in per_seat for k, v in seat.items() if v}
    shown = [c for c in CHANNEL_ORDER if c in ALWAYS_SHOWN or c in used]
    shown += sorted(used - set(shown))
    seats = []
    for seat in SEATS:
        tricks = [str(len(s.play.won[seat])) if s.play else "—" for s in row]
        rows: list[dict[str, Any]] = [{
            "kind": "tricks", "key": "tricks", "name": "卓",
            "cells": [_plain(t) for t in tricks], "differs": len(set(tricks)) > 1,
        }]
        for concept, name in concepts.items():
            fired = [[f for f in s.firings if f.seat == seat and (f.item.concept or f.item.id) == concept
                      and (f.amount or f.item.ends_hand)] for s in row]
            if not any(fired):
                continue
            cells = []
            for s, fs in zip(row, fired, strict=True):
                if fs:
                    cells.append(_cell(fs))
                else:
                    has = any((i.concept or i.id) == concept for i in s.ruleset.items.values())
                    cells.append(_plain("·", "silent") if has else _plain("—", "absent"))
            rows.append({"kind": "item", "key": concept, "name": name, "cells": cells,
                         "differs": len({c["text"] for c in cells}) > 1})
        for ch in shown:
            values = [c[seat].get(ch, 0) for c in channels]
            rows.append({"kind": "channel", "key": ch, "name": CHANNEL_HANZI.get(ch, ch),
                         "cells": [_plain(format_zhu(v, signed=True)) for v in values],
                         "differs": len(set(values)) > 1})
        net = [s.nets[seat] for s in row]
        rows.append({"kind": "net", "key": "net", "name": "淨",
                     "cells": [_plain(format_zhu(v, signed=True)) for v in net],
                     "differs": len(set(net)) > 1})
        seats.append({"seat": seat.id, "hanzi": SEAT_HANZI[seat],
                      "role": "椿" if seat == row[0].deal.banker else "散", "rows": rows})
    return {"rulesets": [s.ruleset.id for s in row], "seats": seats}


def net_chart(row: Sequence[Settlement]) -> dict[str, Any]:
    """Chart spec (svg.py): net 注 per seat, one bar per ruleset."""
    return {
        "categories": [f"{SEAT_HANZI[seat]} {seat.id}" for seat in SEATS],
        "series": [s.ruleset.id for s in row],
        "colours": [colour_of(s.ruleset) for s in row],
        "values": [[float(zhu(s.nets[seat])) for s in row] for seat in SEATS],
        "unit": "注",
    }


def _channels_used(deals: list[dict[str, Any]]) -> list[str]:
    """Subtotal channels of the whole report: the usual ones in order, then any other."""
    seen = {k for d in deals for r in d["results"] for v in r["seats"].values() for k in v["by_channel"]}
    return [c for c in CHANNEL_ORDER if c in ALWAYS_SHOWN or c in seen] + sorted(seen - set(CHANNEL_ORDER))


def source_list(rulesets: Sequence[Ruleset]) -> list[dict[str, Any]]:
    """Every cited source once: key, full reference (``title``), URL (``where``), citing rulesets."""
    rows = bibliography(used_sources(rulesets), rulesets)
    return [{**r, "title": r["text"], "where": r["url"]} for r in rows]


def stamp_info(rulesets: Sequence[Ruleset], deal_ids: Sequence[str], command: str) -> dict[str, Any]:
    """What it takes to reproduce a report: tool version, rulesets (hash, options), deals, command."""
    return {
        "version": __version__,
        "rulesets": {rs.id: {"hash": rs.content_hash, "options": dict(rs.option_values)}
                     for rs in rulesets},
        "deals": list(deal_ids),
        "command": command,
    }


def build_report(deals: Sequence[Deal], rulesets: Sequence[Ruleset],
                 settlements: Sequence[Sequence[Settlement]], *, command: str = "",
                 input_name: str = "", lang: str = "en") -> dict[str, Any]:
    """The whole replay report: settlements[i][j] is deal i under ruleset j (the differences
    worded for the report language *lang*)."""
    out_deals = []
    for deal, row in zip(deals, settlements, strict=True):
        info = deal_info(deal)
        info["results"] = [result_info(s) for s in row]
        played = next((r for r in info["results"] if r["tricks"]), None)
        info["tricks"] = played["tricks"] if deal.play is not None and played else []
        info["grid"] = grid_info(row)
        info["chart"] = net_chart(row)
        info["differences"] = differences(deal.play[0].lead.id if deal.play else None, row, lang)
        out_deals.append(info)
    return {
        "tool": {"name": "mahdiao-rules", "version": __version__},
        "input": input_name,
        "rulesets": [ruleset_info(rs) for rs in rulesets],
        "accounts": {a: h for a, h in zip(ACCOUNT_IDS, ACCOUNT_HANZI, strict=True)},
        "deals": out_deals,
        "channels": _channels_used(out_deals),
        "source_list": source_list(rulesets),
        "stamp": stamp_info(rulesets, [d.id for d in deals], command),
    }
