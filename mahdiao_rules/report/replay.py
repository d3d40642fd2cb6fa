"""The replay report model: plain data, built deal by deal, the same for every format.

A replay document is a *head* — envelope (``schema_version``, ``kind``, ``stamp``), the
rulesets (with each rule's citation), the ``sources`` table and the accounts — and its
*deals*, each built from the deal's settlements by :func:`deal_model` when it is needed
and dropped once written, so a replay of any number of deals takes the same memory.

Field names are a contract (``io/schemas/output/replay.schema.json``,
docs/output-formats.md): ``deals[i].results[j].ruleset``, ``.status`` (``played`` or
``mian_dou``), ``.seats.<seat>.tricks`` and ``.net``, ``.fired``, ``.ledger``, ``.matrix``,
``.guan_dui``, ``.notes``.  Amounts are numbers of 注 (:func:`~mahdiao_rules.units.json_number`).
A fired item or ledger line names its source by key (``"source": "fengnd_madiao"``, a key of
the document's ``sources`` table; the whole citation, quoted words and all, is in
``rulesets[k].rules[rule id].citation``); with ``full_sources`` it also carries the citation.
Texts for people (``1½``, 捉/滅, the side-by-side grid, charts, the differences) are views
(views.py), not data.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ..cards import CARD_HANZI
from ..deal import SEATS, Deal
from ..io import dealcode
from ..play.tricks import PlayResult, play_trick
from ..ruleset.model import Ruleset
from ..settle.hand import Settlement
from ..settle.ledger import ACCOUNT_HANZI, ACCOUNT_IDS, GUAN_DUI, matrix
from ..units import json_number
from .contract import citation_data, citation_of, envelope, offences, rules, sources_table

CHANNEL_ORDER = ("kai_zhu", "qiao_men", "gong_he", "san_jia", "guan_dui", "fa_li", "dai_pei")
"""Every ledger channel, in the order reports show their subtotals (both 開注 readings are 開注)."""


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


def ruleset_info(rs: Ruleset) -> dict[str, Any]:
    """A ruleset as a document lists it: names, file, hash, options, unit and every rule's citation."""
    return {
        "id": rs.id,
        "name": rs.name,
        "name_en": rs.name_en,
        "file": rs.file,
        "hash": rs.content_hash,
        "item_count": rs.item_count,
        "options": dict(rs.option_values),
        "zhu_per_diao": rs.zhu_per_diao,
        "rules": rules(rs),
        "offences": offences(rs),
    }


def deal_info(deal: Deal) -> dict[str, Any]:
    """A deal as a replay writes it: :func:`deal_about`, its code and 椿, :func:`deal_cards`,
    the 官堆 it starts with and :func:`events_info`."""
    return {
        **deal_about(deal),
        "code": dealcode.encode(deal),
        "banker": deal.banker.id,
        **deal_cards(deal),
        "guan_dui_start": deal.guan_dui,
        "events": events_info(deal),
    }


def deal_about(deal: Deal) -> dict[str, Any]:
    """What a deal says about itself: id, title, source, notes (the same under any seating)."""
    return {"id": deal.id, "title": deal.title, "source": deal.source, "notes": deal.notes}


def deal_cards(deal: Deal) -> dict[str, Any]:
    """The cards as dealt to the seats, the stock and its face card, whether play was recorded."""
    return {
        "hands": {s.id: [CARD_HANZI[c] for c in deal.hands[s]] for s in SEATS},
        "stock": [CARD_HANZI[c] for c in deal.stock],
        "face": CARD_HANZI[deal.face],
        "recorded": deal.play is not None,
    }


def events_info(deal: Deal) -> list[dict[str, Any]]:
    """The deal's recorded events (releases, interruptions …)."""
    return [{"type": e.type, "seat": e.seat.id, "trick": e.trick,
             "card": CARD_HANZI[e.card] if e.card is not None else None,
             "victim": e.victim.id if e.victim is not None else None}
            for e in deal.events]


def tricks_info(play: PlayResult | None) -> list[dict[str, Any]]:
    """The tricks as played: leader, cards in play order, 捉/滅 of each, winner."""
    if play is None:
        return []
    return [{"lead": t.lead.id, "cards": [CARD_HANZI[c] for c in t.cards], "actions": list(t.actions),
             "winner": t.winner.id} for t in play.tricks]


def recorded_tricks(deal: Deal) -> list[dict[str, Any]]:
    """The deal's recorded tricks with each play's 捉/滅 and the winner (as any ruleset replays them)."""
    if deal.play is None:
        return []
    out = []
    for n, t in enumerate(deal.play, start=1):
        p = play_trick(n, t.lead, t.cards)
        out.append({"lead": p.lead.id, "cards": [CARD_HANZI[c] for c in p.cards], "actions": list(p.actions),
                    "winner": p.winner.id})
    return out


class _Cite:
    """Source keys (and quotes) of one ruleset's rules, looked up once per rule id."""

    def __init__(self, rs: Ruleset, full: bool) -> None:
        self.rs, self.full = rs, full
        self.memo: dict[str, dict[str, Any]] = {}

    def __call__(self, rule_id: str, channel: str = "") -> dict[str, Any]:
        memo = rule_id if channel != "dai_pei" else "dai_pei:" + rule_id
        out = self.memo.get(memo)
        if out is None:
            c = citation_of(self.rs, rule_id, channel)
            out = {"source": c.ref if c is not None else None}
            if self.full:
                out["citation"] = citation_data(c) if c is not None else []
            self.memo[memo] = out
        return out


def result_info(s: Settlement, *, full_sources: bool = False) -> dict[str, Any]:
    """One deal under one ruleset."""
    rs = s.ruleset
    cite = _Cite(rs, full_sources)
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
            "by_channel": {k: json_number(v) for k, v in channels[seat].items()},
        }
    cards: dict[int, str] = {}  # firing → its cards as text, computed once for all its lines

    def cards_of(f: Any) -> list[str]:
        return [CARD_HANZI[c] for c in f.cards]

    items = []
    for f in s.firings:
        if f.amount == 0 and not f.item.ends_hand:
            continue
        shown = cards_of(f)
        cards[id(f)] = " ".join(shown)
        items.append({
            "id": f.item.id,
            "name": f.item.name,
            "seat": f.seat.id,
            "zhu": json_number(f.amount),
            "count": f.count,
            "cards": shown,
            **cite(f.item.id),
        })
    ledger = []
    for t in s.ledger:
        if t.detail or t.firing is None:
            note = t.detail
        else:
            note = cards.get(id(t.firing))
            if note is None:
                note = cards[id(t.firing)] = " ".join(cards_of(t.firing))
        ledger.append({
            "payer": ACCOUNT_IDS[t.payer],
            "payee": ACCOUNT_IDS[t.payee],
            "amount": json_number(t.amount),
            "item": t.item,
            "name": t.name,
            "channel": t.channel,
            "holder": ACCOUNT_IDS[t.holder],
            "note": note,
            **cite(t.item, t.channel),
        })
    m = matrix(s.ledger)
    return {
        "ruleset": rs.id,
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
        "guan_dui": {
            "start": json_number(s.pool_start),
            "end": json_number(s.pool_end),
            "net": json_number(nets[GUAN_DUI]),
        },
        "balance": json_number(sum(nets)),
        "next_banker": s.next_banker.id if s.next_banker is not None else None,
        "next_banker_reason": s.next_banker_reason,
        "notes": list(s.notes),
        "chong": [
            {"order": i + 1, "card": CARD_HANZI[t.card], "seat": t.seat.id,
             "anchor": CARD_HANZI[t.anchor], "kind": t.kind, "duo": t.duo,
             "points": json_number(t.points)}
            for i, t in enumerate(s.chong)
        ],
    }


def deal_model(deal: Deal, row: Sequence[Settlement], *, full_sources: bool = False) -> dict[str, Any]:
    """One deal of a replay: what was dealt (and recorded), and its result under each ruleset.

    ``tricks`` is the recorded play as replayed (empty without a record); a result's
    ``tricks`` is the play under that ruleset, or null when it is exactly the deal's
    ``tricks`` (so a recorded play is written once, not once per ruleset)."""
    info = deal_info(deal)
    results = [result_info(s, full_sources=full_sources) for s in row]
    info["tricks"] = recorded_tricks(deal)
    for r in results:
        tricks_once(r, info["tricks"])
    info["results"] = results
    return info


def tricks_once(result: dict[str, Any], recorded: list[dict[str, Any]]) -> dict[str, Any]:
    """*result* (of :func:`result_info`) with its ``tricks`` null when they are the *recorded*
    ones, so a recorded play is written once, not once per ruleset."""
    if recorded and result["tricks"] == recorded:
        result["tricks"] = None
    return result


def replay_head(rulesets: Sequence[Ruleset], stamp: dict[str, Any], *, input_name: str = "",
                full_sources: bool = False) -> dict[str, Any]:
    """Everything of a replay document but its deals."""
    return envelope(
        "replay", stamp,
        input=input_name,
        full_sources=full_sources,
        rulesets=[ruleset_info(rs) for rs in rulesets],
        accounts=dict(zip(ACCOUNT_IDS, ACCOUNT_HANZI, strict=True)),
        channels=list(CHANNEL_ORDER),
        sources=sources_table(rulesets),
    )


def replay_deals(deals: Iterable[Deal], settle_row: Any, *,
                 full_sources: bool = False) -> Iterator[dict[str, Any]]:
    """The deal models of *deals*, one at a time; ``settle_row(deal)`` settles one deal under
    every ruleset of the run."""
    for deal in deals:
        yield deal_model(deal, settle_row(deal), full_sources=full_sources)
