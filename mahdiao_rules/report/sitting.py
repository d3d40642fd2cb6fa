"""The sitting report model: one sitting under several rulesets, plain data, built hand by hand.

A sitting document (``io/schemas/output/sitting.schema.json``, docs/output-formats.md) is
a *head* — the envelope (``schema_version``, ``kind``, ``stamp``), the sitting as recorded
(players, stakes, seed …), the rulesets with every rule's citation, the ``sources`` table
and the accounts —, then its ``hands`` and, once every hand is played, each ruleset's
summary (``results``) and ``bank_differs``.  The rulesets play in lockstep: hand *i* of
the document is the deal once and its result under every ruleset (each following its own
bank sequence), built when a writer gets to it and dropped after, so a sitting of any
length takes the same memory (the summaries keep a few bytes a hand: the bank sequence).

Stable field names: ``players``, ``hands[i].results[j].ruleset``, ``.banker`` /
``.banker_player`` / ``.how``, ``.nets.<player>``, ``.running.<player>`` (注, from the
start of the sitting), ``.money.<player>`` (the hand in the stake unit) and
``.settlement`` (the replay's per-result record of that hand: ``status``, ``fired``,
``ledger`` with sources by key, ``matrix``, ``guan_dui`` before and after …);
``results[j].bank_sequence``, ``.spells``, ``.tenure``, ``.totals``, ``.guan_dui``.
Amounts are numbers of 注 (exact: integers, binary fractions or "p/q" text).  Texts for
people (``+1½``, the bank table, charts) are views (:mod:`.sittingview`), not data.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

from ..deal import SEATS
from ..io import dealcode
from ..io.sittingfile import Sitting, SittingHand, node_number
from ..ruleset.model import Citation, Ruleset
from ..ruleset.sitting import FIRST_BANKER_RULES, REDRAW_RECORD
from ..settle.ledger import ACCOUNT_HANZI, ACCOUNT_IDS, GUAN_DUI
from ..sitting.engine import HandResult, SittingPlay, procedure_of
from ..sitting.stats import spells, tenure
from ..units import TICKS_PER_ZHU, fraction_number, json_number
from .contract import cite_info, envelope, sources_table
from .replay import (
    CHANNEL_ORDER,
    deal_about,
    deal_cards,
    events_info,
    recorded_tricks,
    result_info,
    ruleset_info,
    tricks_once,
)

# ---------------------------------------------------------------------- the head


def procedure_info(rs: Ruleset) -> list[dict[str, Any]]:
    """The between-hand procedure of *rs* as rows: ``key``, the ``rule`` in words, a ``note``,
    and its ``source`` key and whole ``citation`` (null and empty where the ruleset declares
    none and the tool's default applies)."""
    p = procedure_of(rs)
    nb = rs.procedure

    def cite(c: Citation | None) -> dict[str, Any]:
        # A step without a source, or resting on the project's own inference: source null.
        if c is None:
            return {"source": None, "citation": []}
        out = cite_info(c)
        return {**out, "source": out["source"] or None}

    if nb.next_banker_rule == "top_earner":
        rule = "the top earner of the hand; a tie keeps the 椿"
    else:
        rule = f"輪椿: {nb.next_banker_rotate} seat(s) on in play order"
    rows = [
        {"key": "seat_draw",
         "rule": f"a draw; the strongest card sits {p.seat_draw.first_seat.id}, the others "
                 "follow in play order", "note": p.seat_draw.note or None, **cite(p.seat_draw.source)},
        {"key": "first_banker", "rule": FIRST_BANKER_RULES.get(nb.first_banker_rule, nb.first_banker_rule),
         "note": None, **cite(nb.first_banker_source)},
        {"key": "next_banker", "rule": rule, "note": None, **cite(nb.next_banker_source)},
    ]
    for bank in ("seize", "keep", "redraw"):
        names = [i.name for i in rs.items.values() if i.bank == bank]
        if bank == "redraw":
            names += [f"罰 {f.name}" for f in rs.fines.values() if f.bank == "redraw"]
            if nb.next_banker_mian_dou == "redraw":
                names.append("any 免斗")
        if names:
            rows.append({"key": f"bank_{bank}", "rule": ", ".join(names), "note": None, **cite(None)})
    takers = [i.name for i in rs.items.values()
              if i.channel == "guan_dui" and i.raw.get("zhu") == {"pool": "guan_dui"}]
    rows += [
        {"key": "redraw",
         "rule": f"{p.redraw.meaning}; record {p.redraw_record}: {REDRAW_RECORD[p.redraw_record]}",
         "note": p.redraw.note or None, **cite(p.redraw.source)},
        {"key": "guan_dui", "rule": "carried from hand to hand; taken by " + (", ".join(takers) or "no item"),
         "note": None, **cite(None)},
        {"key": "stakes", "rule": p.stakes.meaning, "note": p.stakes.note or None, **cite(p.stakes.source)},
    ]
    return rows


def sitting_head(sitting: Sitting, rulesets: Sequence[Ruleset], stamp: dict[str, Any], *,
                 input_name: str = "", full_sources: bool = False, trust_record: bool = False
                 ) -> dict[str, Any]:
    """Everything of a sitting document before its hands."""
    stakes = sitting.stakes
    head = envelope(
        "sitting", stamp,
        input=input_name,
        full_sources=full_sources,
        trust_record=trust_record,
        title=sitting.title, source=sitting.source, notes=sitting.notes,
        played_under=sitting.played_under,
        seed=sitting.seed,
        players=list(sitting.players),
        stakes=({"floor": node_number(stakes.floor), "cap": node_number(stakes.cap), "unit": stakes.unit}
                if stakes else None),
        unit=sitting.stake_unit,
        guan_dui_start=sitting.guan_dui,
        hand_count=len(sitting.hands),
        rulesets=[{**ruleset_info(rs), "procedure": procedure_info(rs)} for rs in rulesets],
        accounts=dict(zip(ACCOUNT_IDS, ACCOUNT_HANZI, strict=True)),
        channels=list(CHANNEL_ORDER),
        sources=sources_table(rulesets),
    )
    return head


# ---------------------------------------------------------------------- the hands


def hand_info(h: SittingHand) -> dict[str, Any]:
    """A hand's deal, as dealt to the seats (once for all rulesets), and what was recorded."""
    deal = h.deal
    return {
        "number": h.number, **deal_about(deal), "given_by_code": h.code,
        "recorded_banker": h.banker.id if h.banker is not None else None,
        "stake": node_number(h.stake),
        **deal_cards(deal),
        "events": events_info(deal),
        "tricks": recorded_tricks(deal),
    }


class _Tally:
    """What one ruleset's summary needs, added hand by hand (ticks and money, per seat)."""

    def __init__(self, play: SittingPlay, pool: int) -> None:
        self.play = play
        self.players = [play.player_at[s] for s in SEATS]
        self.running = [0] * 5
        self.money = [Fraction(0)] * 4
        self.lowest = [0] * 4
        self.highest = [0] * 4
        self.bankers: list[int] = []
        self.pool_start = self.pool_end = self.pool_max = pool

    def add(self, h: HandResult) -> None:
        for k, v in enumerate(h.nets):
            self.running[k] += v
        for k in range(4):
            self.money[k] += h.money[k]
            self.lowest[k] = min(self.lowest[k], self.running[k])
            self.highest[k] = max(self.highest[k], self.running[k])
        self.bankers.append(int(h.banker))
        self.pool_end = h.pool_after
        self.pool_max = max(self.pool_max, h.pool_after)


class SittingStream:
    """A sitting under every ruleset of *plays*, in lockstep: :meth:`hands` yields one hand
    model at a time; :meth:`tail` gives what comes after the hands (each ruleset's summary,
    the hands whose 椿 differ) once they are all written."""

    def __init__(self, sitting: Sitting, plays: Sequence[SittingPlay], *,
                 full_sources: bool = False) -> None:
        self.sitting, self.plays, self.full = sitting, list(plays), full_sources
        self.tallies = [_Tally(p, sitting.guan_dui * TICKS_PER_ZHU) for p in self.plays]
        self.bank_differs: list[int] = []
        self.done = False

    def hands(self) -> Iterator[dict[str, Any]]:
        iters: list[Iterator[HandResult] | None] = [iter(p) for p in self.plays]
        for hand in self.sitting.hands:
            info = hand_info(hand)
            results = []
            bankers = set()
            for j, it in enumerate(iters):
                h = next(it, None) if it is not None else None
                if h is None:  # this ruleset's sitting ended early (the stake cap)
                    iters[j] = None
                    continue
                tally = self.tallies[j]
                tally.add(h)
                bankers.add(tally.players[int(h.banker)])
                results.append(self._result(h, tally, info["tricks"]))
            if not results:
                break
            if len(bankers) > 1:
                self.bank_differs.append(hand.number)
            info["results"] = results
            yield info
        for it in iters:  # let each play finish (its `stopped` and notes)
            if it is not None:
                next(it, None)
        self.done = True

    def _result(self, h: HandResult, tally: _Tally, recorded: list[dict[str, Any]]) -> dict[str, Any]:
        players, s = tally.players, h.settlement
        settlement = tricks_once(result_info(s, full_sources=self.full), recorded)
        return {
            "ruleset": s.ruleset.id,
            "banker": h.banker.id,
            "banker_player": players[int(h.banker)],
            "how": h.how,
            "code": dealcode.encode(s.deal),  # the deal with this ruleset's 椿
            "nets": {players[k]: json_number(s.nets[k]) for k in range(4)},
            "running": {players[k]: json_number(tally.running[k]) for k in range(4)},
            "money": {players[k]: fraction_number(h.money[k]) for k in range(4)},
            "notes": list(h.notes),
            "settlement": settlement,
        }

    def tail(self) -> dict[str, Any]:
        """The fields after the hands: ``bank_differs`` and ``results`` (one summary per ruleset)."""
        if not self.done:
            raise RuntimeError("the summaries come after every hand was written")
        return {"bank_differs": list(self.bank_differs), "results": [summary(t) for t in self.tallies]}


def summary(t: _Tally) -> dict[str, Any]:
    """One ruleset's sitting: seats, bank sequence and tenure, totals, the 官堆."""
    play, players, bankers = t.play, t.players, t.bankers
    return {
        "ruleset": play.ruleset.id,
        "seating": play.seating,
        "players": {name: seat.id for name, seat in play.seat_of.items()},
        "hands_played": len(bankers),
        "stopped": play.stopped,
        "bank_sequence": [players[b] for b in bankers],
        "spells": [{"player": players[sp.seat], "seat": SEATS[sp.seat].id, "start": sp.start,
                    "length": sp.length} for sp in spells(bankers)],
        "tenure": [{"player": players[k], "seat": SEATS[k].id, "hands": x.hands, "spells": x.spells,
                    "longest": x.longest, "share": round(x.hands / len(bankers), 4) if bankers else None}
                   for k, x in enumerate(tenure(bankers))],
        "totals": {players[k]: {"seat": SEATS[k].id, "net": json_number(t.running[k]),
                                "money": fraction_number(t.money[k]), "lowest": json_number(t.lowest[k]),
                                "highest": json_number(t.highest[k])} for k in range(4)},
        "guan_dui": {"start": json_number(t.pool_start), "end": json_number(t.pool_end),
                     "largest": json_number(t.pool_max), "net": json_number(t.running[GUAN_DUI])},
        "balance": json_number(sum(t.running)),
        "notes": list(play.notes),
    }
