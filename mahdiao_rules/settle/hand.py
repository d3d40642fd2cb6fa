"""Settle one hand under one compiled ruleset: fired items → a balanced ledger.

The order is fixed and visible here, in two calls around the play:

1. :func:`open_hand` — the *deal* phase on the dealt hands (異賞, 免斗), then the
   recorded fines; its result says whether the hand ended before any trick;
2. :func:`close_hand` — unless the hand ended, the *play* phase items fire on the
   given tricks (吊, 賞, 開注 combos, 敲門, after 開沖), then 代賠 events; the *end*
   phase (官堆) runs for every hand, 免斗 or not.

Settlement never plays: the tricks come from the caller (:mod:`mahdiao_rules.pipeline`
composes procedure, play and settlement).  Each firing turns into ledger lines through
its payment channel; totals are derived from the ledger only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..cards import CARD_HANZI, cards_of
from ..deal import SEATS, Deal, Event, Seat
from ..errors import InputError
from ..messages import note as make_note
from ..play.tricks import PlayResult, QuickPlay, trick_masks
from ..ruleset.codegen import engine
from ..ruleset.dsl import HandState
from ..ruleset.model import ItemDef, Ruleset
from ..units import TICKS_PER_ZHU
from .kai_chong import QuickChong
from .kai_chong import run as run_kai_chong
from .ledger import GUAN_DUI, Transfer, nets

PLAYED, MIAN_DOU = "played", "mian_dou"


@dataclass(frozen=True, slots=True)
class Firing:
    """A rule item that fired for a seat: *amount* ticks per counterparty, signed."""

    item: ItemDef
    seat: Seat
    amount: int
    count: int = 1
    state: HandState | None = field(default=None, repr=False, compare=False)

    @property
    def cards(self) -> tuple[int, ...]:
        """The seat's cards that made the item fire (computed when asked, for reports)."""
        if self.state is None:
            return ()
        return _evidence(self.item, self.state, self.seat)


@dataclass(frozen=True, slots=True)
class Settlement:
    """The result of one hand under one ruleset."""

    ruleset: Ruleset
    deal: Deal
    status: str
    firings: tuple[Firing, ...]
    ledger: tuple[Transfer, ...]
    play: PlayResult | None
    first_leader: Seat
    pool_start: int
    notes: tuple[str, ...]
    next_banker: Seat | None
    next_banker_reason: str
    chong: tuple[Any, ...] = ()
    """開沖 takes in order (settle.kai_chong.ChongTake), when the ruleset has 開沖."""
    fast_nets: tuple[int, ...] | None = None
    """The summed payments of a ``ledger=False`` settlement (no lines were kept)."""

    @property
    def nets(self) -> list[int]:
        """Net ticks for east, south, west, north and the 官堆, from the ledger."""
        return nets(self.ledger) if self.ledger or self.fast_nets is None else list(self.fast_nets)

    @property
    def pool_end(self) -> int:
        return self.pool_start + self.nets[GUAN_DUI]


class _Books:
    """The books of one hand: ledger lines (or, for fast simulation, only the nets)."""

    __slots__ = ("he_exempt", "lines", "nets", "record", "st")

    def __init__(self, ruleset: Ruleset, st: HandState, record: bool) -> None:
        self.st = st
        self.he_exempt = ruleset.he_exempt
        self.record = record
        self.lines: list[Transfer] = []
        self.nets = [0, 0, 0, 0, 0]

    def pay(self, payer: int, payee: int, amount: int, item_id: str, name: str, source: str,
            channel: str, holder: int, detail: str = "", firing: Firing | None = None) -> None:
        if amount == 0 or payer == payee:
            return
        if amount < 0:
            payer, payee, amount = payee, payer, -amount
        if payee == GUAN_DUI:
            self.st.pool += amount
        elif payer == GUAN_DUI:
            self.st.pool -= amount
        if self.record:
            self.lines.append(Transfer(payer, payee, amount, item_id, name, source, channel,
                                       holder, detail, firing))
        else:
            self.nets[payer] -= amount
            self.nets[payee] += amount

    def channel(self, firing: Firing) -> None:
        """Pay one firing through its channel (ruleset/model.py CHANNELS says what each means)."""
        item, p, a = firing.item, firing.seat, firing.amount
        if a == 0:
            return
        for payer, payee in _PAYERS[item.channel](self, p, a):
            self.pay(payer, payee, a, item.id, item.name, item.source.short, item.channel, p,
                     "", firing)


def _kai_zhu(books: _Books, p: int, a: int) -> list[tuple[int, int]]:
    b = books.st.banker
    if p == b:
        return [(s, p) for s in range(4) if s != b]
    return [(b, p)]


def _kai_zhu_winner_only(books: _Books, p: int, a: int) -> list[tuple[int, int]]:
    return _kai_zhu(books, p, a) if a > 0 else []


def _qiao_men(books: _Books, p: int, a: int) -> list[tuple[int, int]]:
    b = books.st.banker
    return [] if p == b else [(s, p) for s in range(4) if s not in (b, p)]


def _gong_he(books: _Books, p: int, a: int) -> list[tuple[int, int]]:
    exempt, st = books.he_exempt, books.st
    return [(q, p) for q in range(4) if q != p and not (exempt is not None and exempt(st, q))]


def _san_jia(books: _Books, p: int, a: int) -> list[tuple[int, int]]:
    return [(q, p) for q in range(4) if q != p]


_PAYERS = {
    "kai_zhu": _kai_zhu,
    "kai_zhu_winner_only": _kai_zhu_winner_only,
    "qiao_men": _qiao_men,
    "gong_he": _gong_he,
    "san_jia": _san_jia,
    "guan_dui": lambda books, p, a: [(GUAN_DUI, p)],
    "none": lambda books, p, a: [],
}
"""Channel → who pays whom for an amount *a* fired for seat *p* (the payer/payee pairs)."""


def _evidence(item: ItemDef, st: HandState, p: int) -> tuple[int, ...]:
    mask = 0
    if item.evidence_won is not None:
        # 開沖 cards count as won cards for 沖成 色樣 (sources chong / won_chong).
        mask |= (st.won[p] | st.chong_masks[p]) & item.evidence_won.value(st)
    if item.evidence_held is not None:
        mask |= st.held[p] & item.evidence_held.value(st)
    return tuple(cards_of(mask))


def _run_phase(ruleset: Ruleset, phase: str, st: HandState, books: _Books) -> list[Firing]:
    """Judge one phase with the ruleset's generated engine (ruleset/codegen.py) and pay each
    firing through its channel, in the ruleset's order."""
    eng = engine(ruleset)
    items = eng.items
    fired: list[Firing] = []

    def emit(i: int, p: int, amount: int, count: int) -> None:
        f = Firing(items[i], SEATS[p], amount, count, st)
        fired.append(f)
        books.channel(f)

    eng.fire[phase](st, emit)
    return fired


class Opening:
    """A hand after its deal phase: the books are open and whether it is played is known.

    ``ended`` is True when a deal-phase item (免斗, or a 異賞 that ends the hand) or a
    recorded fine ended the hand before any trick: then it is not played.  An opening
    is closed once (:func:`close_hand` adds to its firings, notes and books).
    """

    __slots__ = ("books", "deal", "ended", "firings", "leader", "notes", "original", "pool_start",
                 "redraw", "ruleset", "st")

    def __init__(self, ruleset: Ruleset, deal: Deal, original: Deal, leader: Seat, notes: list[str],
                 st: HandState, books: _Books, firings: list[Firing], ended: bool,
                 pool_start: int, redraw: str | None = None) -> None:
        self.ruleset = ruleset
        self.deal = deal
        self.original = original
        self.leader = leader
        self.notes = notes
        self.st = st
        self.books = books
        self.firings = firings
        self.ended = ended
        self.pool_start = pool_start
        self.redraw = redraw
        """The name of a recorded fine after which the next 椿 is drawn afresh (另拈椿)."""


def open_hand(ruleset: Ruleset, deal: Deal, *, leader: Seat, original: Deal | None = None,
              notes: tuple[str, ...] | list[str] = (), ledger: bool = True,
              pool: int | None = None) -> Opening:
    """The deal phase of *deal* under *ruleset*: deal-phase items, then the recorded fines.

    *deal* is the hand as the ruleset plays it (after its 升代), *original* the deal as
    dealt (the settlement names it; default *deal*), *leader* the ruleset's first leader
    and *notes* what the procedure noted.  With ``ledger=False`` (fast simulation) the
    payments are only summed: the settlement has no ledger lines but the same ``nets``.
    *pool* is the 官堆 in ticks when the hand starts (a sitting carries it from hand to
    hand); by default the deal's ``guan_dui`` 注.
    """
    notes = list(notes)
    st = HandState(int(deal.banker), [deal.hand_mask(s) for s in SEATS], deal.stock)
    engine(ruleset).sets(st)  # the stock-dependent sets of this hand
    pool_start = deal.guan_dui * TICKS_PER_ZHU if pool is None else pool
    st.pool = pool_start
    books = _Books(ruleset, st, ledger)
    firings = _run_phase(ruleset, "deal", st, books)
    ended = any(f.item.ends_hand for f in firings)
    fines_end, redraw = _fines(ruleset, deal, st, books, notes)
    return Opening(ruleset, deal, original or deal, leader, notes, st, books, firings,
                   ended or fines_end, pool_start, redraw)


def close_hand(opening: Opening, play: PlayResult | None, note: str | None = None) -> Settlement:
    """The rest of the hand: the play phase on *play* and 代賠, then the end phase (官堆).

    *play* is the eight tricks of the hand as the ruleset plays it, or None — exactly
    when the deal phase ended the hand (``opening.ended``: not played).  *note* says how
    the tricks were chosen; it follows the deal phase's notes.
    """
    ruleset, deal, st, books, notes = (opening.ruleset, opening.deal, opening.st, opening.books,
                                       opening.notes)
    ended = opening.ended
    if (play is None) != ended:
        raise ValueError(f"deal {deal.id!r}: a play is settled exactly when the hand is played "
                         f"(this one {'ended before play' if ended else 'is played'})")
    firings = opening.firings
    played: list[Firing] = []
    chong: tuple[Any, ...] = ()
    if play is not None:
        if note is not None:
            notes.append(note)
        st.won = list(play.won_masks)
        st.tricks = list(play.trick_counts)
        st.trick_winners = tuple(int(t.winner) for t in play.tricks)
        st.won_order = [tuple(w) for w in play.won]
        kc = ruleset.procedure.kai_chong
        if ruleset.needs_trick_masks:  # only trick_has: patterns and 開沖 read them
            whole, ups = trick_masks(play, kc is not None and kc.twins_upto_winner)
            st.won_tricks = [tuple(m) for m in whole]
            if ups is not None:
                st.won_upto = [tuple(m) for m in ups]
        if kc is not None:
            chong = tuple(run_kai_chong(kc, st))
        played = _run_phase(ruleset, "play", st, books)
        firings += played
        _dai_pei(ruleset, deal, st, books, play, notes, played)
    else:
        offences = ruleset.dai_pei.offences if ruleset.dai_pei else {}
        for e in deal.events:
            off = offences.get(e.type)
            if off is not None and (e.affected or not off.requires_affected):
                notes.append(make_note("event_not_played", event=e.type))

    firings += _run_phase(ruleset, "end", st, books)
    nb, why = _next_banker(ruleset, deal, firings, books, opening.leader, opening.redraw, ended)
    return Settlement(
        ruleset=ruleset, deal=opening.original, status=MIAN_DOU if ended else PLAYED,
        firings=tuple(firings), ledger=tuple(books.lines), play=play, first_leader=opening.leader,
        pool_start=opening.pool_start, notes=tuple(notes), next_banker=nb, next_banker_reason=why,
        chong=chong, fast_nets=None if books.record else tuple(books.nets),
    )


# ====================================================================== quick settlement


def quick_open(ruleset: Ruleset, held: list[int], stock: tuple[int, ...], banker: int,
               nets: list[int], pool: int = 0) -> tuple[HandState, bool]:
    """:func:`open_hand` for simulation: the deal phase on the dealt masks (after 升代), its
    payments added into *nets* (four seats and the 官堆, ticks); no firings, no ledger, no
    events.  Returns the hand's state and whether the deal phase ended the hand."""
    eng = engine(ruleset)
    st = HandState(banker, held, stock)
    st.pool = pool
    eng.sets(st)
    eng.fast["deal"](st, nets)
    f = st.fired
    return st, bool((f[0] | f[1] | f[2] | f[3]) & eng.ends)


def quick_close(ruleset: Ruleset, st: HandState, play: QuickPlay | None, nets: list[int],
                chong: QuickChong | None) -> int:
    """:func:`close_hand` for simulation: the play phase on *play* (None: the hand ended in its
    deal phase) and the end phase, added into *nets*.  Returns the fired bits of the hand,
    every seat's together (``Ruleset.fired_bits`` names them).  *play* brings the cards up
    to each winning card when the ruleset's 開沖 reads them (its ``twins_upto_winner``); *chong* is the
    ruleset's 開沖 for simulation, kept from hand to hand (None: the ruleset has none)."""
    eng = engine(ruleset)
    if play is not None:
        won, tricks, winners, order, whole, ups = play
        st.won, st.tricks, st.trick_winners = won, tricks, winners
        st.won_order, st.won_tricks = order, whole  # type: ignore[assignment]
        if ups is not None:
            st.won_upto = ups  # type: ignore[assignment]
        if chong is not None:
            chong.run(st)
        eng.fast["play"](st, nets)
    eng.fast["end"](st, nets)
    f = st.fired
    return f[0] | f[1] | f[2] | f[3]


def _event_error(deal: Deal, index: int, message: str) -> InputError:
    return InputError(f"deal {deal.id!r}: {message}", **deal.locate(f"events[{index}]"))


def _fines(ruleset: Ruleset, deal: Deal, st: HandState, books: _Books, notes: list[str]
           ) -> tuple[bool, str | None]:
    """Book recorded fines (罰例): whether one of them ends the hand, and the name of the
    first one after which the bank is drawn afresh (另拈椿), if any."""
    ended = False
    redraw: str | None = None
    offences = ruleset.dai_pei.offences if ruleset.dai_pei else {}
    for i, e in enumerate(deal.events):
        fine = ruleset.fines.get(e.type)
        if fine is None:
            if e.type not in offences:
                notes.append(make_note("event_not_priced", event=e.type, seat=e.seat.id, ruleset=ruleset.id))
            continue
        try:
            amount = fine.amount(st, e)
        except InputError as err:
            raise _event_error(deal, i, err.message) from None
        payee = _fine_payee(fine.to, deal, e, i)
        source = fine.source.short
        if payee is None or payee == e.seat:
            notes.append(make_note("fine_nobody_to_pay", event=e.type, fine=fine.name))
        else:
            books.pay(int(e.seat), payee, amount, fine.id, fine.name, source, "fa_li",
                      int(e.seat))
        ended |= fine.ends_hand
        if fine.bank == "redraw" and redraw is None and (
                fine.bank_card is None
                or (e.card is not None and (1 << e.card) & fine.bank_card.value(st))):
            redraw = fine.name
    return ended, redraw


def _fine_payee(to: str, deal: Deal, e: Event, index: int) -> int | None:
    if to == "guan_dui":
        return GUAN_DUI
    if to == "bai_lao_holder":
        return deal.holder(2)  # Card.SHI_BAI
    if to == "card_holder":
        if e.card is None:
            raise _event_error(deal, index, f"event {e.type!r} needs card: (the card concerned)")
        return deal.holder(e.card)
    if to == "victim":
        if e.victim is None:
            raise _event_error(deal, index, f"event {e.type!r} needs victim: (the seat concerned)")
        return int(e.victim)
    raise _event_error(deal, index, f"unknown fine recipient {to!r}")


def _dai_pei(ruleset: Ruleset, deal: Deal, st: HandState, books: _Books, result: PlayResult,
             notes: list[str], played: list[Firing]) -> None:
    """代賠: the offender pays, on behalf of others, what his fault let someone win.

    The amount is 1 注 for a compensated player who is 正本, else 2 (``fixed``); option
    ``dai_pei_amount`` caps it at the loss the fault caused before netting (``gross``: what
    the compensated player paid the activated player's own items, *played*) or at his net
    loss (``capped``).
    """
    dp = ruleset.dai_pei
    if dp is None:
        return
    once = ruleset.option_values.get("dai_pei_repeat", "once") == "once"
    mode = ruleset.option_values.get("dai_pei_amount", "fixed")
    with_san = ruleset.option_values.get("dai_pei_beneficiaries", "banker_only") == "banker_and_san"
    before = nets(books.lines) if books.record else list(books.nets)
    paid: set[tuple[str, int, int]] = set()
    for i, e in enumerate(deal.events):
        off = dp.offences.get(e.type)
        if off is None or (off.requires_affected and not e.affected):
            continue
        if not result.recorded:
            notes.append(make_note("event_not_recorded", event=e.type))
            continue
        if off.activated == "banker":
            activated = st.banker
        else:
            if e.trick is None or not 1 <= e.trick <= len(result.tricks):
                raise _event_error(deal, i, f"event {e.type!r} needs trick: (1–8), the trick "
                                            "whose winner the fault let through")
            trick = result.tricks[e.trick - 1]
            activated = int(trick.winner)
            if off.requires_card is not None and not (
                    (1 << trick.winning_card) & off.requires_card.value(st)):
                raise _event_error(deal, i, f"event {e.type!r}: trick {e.trick} was won by "
                                            f"{CARD_HANZI[trick.winning_card]}, which is not "
                                            f"{off.requires_card.text}")
            if off.requires_banker and activated != st.banker:
                raise _event_error(deal, i, f"event {e.type!r}: trick {e.trick} was won by "
                                            f"{trick.winner.id}, not by the 椿")
        if activated == e.seat:
            notes.append(make_note("offender_activated_himself", event=e.type, seat=e.seat.id))
            continue
        if off.exempt_only_left is not None and e.trick is not None:
            at = _fault_trick(result, e.seat, e.trick, off.exempt_at_play_of, st)
            left = deal.hand_mask(e.seat)
            for t in result.tricks[:at - 1]:
                left &= ~(1 << t.cards[(e.seat - t.lead) % 4])
            if not left & ~off.exempt_only_left.value(st):
                notes.append(make_note("offender_exhausted", event=e.type, seat=e.seat.id,
                                  cards=off.exempt_only_left.text, trick=at))
                continue
        if activated == st.banker:
            compensated = [s for s in range(4) if s not in (st.banker, e.seat)]
        else:
            compensated = [st.banker]
            if with_san:
                compensated += [s for s in range(4) if s not in (st.banker, activated, e.seat)]
        for q in compensated:
            key = (off.id, int(e.seat), q)
            if once and key in paid:
                continue
            paid.add(key)
            amount = dp.zheng_ben if st.tricks[q] >= 2 else dp.not_zheng_ben
            if mode == "capped":
                amount = min(amount, max(0, -before[q]))
            elif mode == "gross":
                amount = min(amount, _paid_to(books, played, q, activated))
            books.pay(int(e.seat), q, amount, off.id, off.name, off.source.short,
                      "dai_pei", int(e.seat), make_note("ledger_trick", trick=e.trick) if e.trick else "")


def _fault_trick(result: PlayResult, seat: int, trick: int, played: Any, st: HandState) -> int:
    """The trick of *seat*'s last play of a card of *played* up to *trick* (else *trick*)."""
    if played is not None:
        mask = played.value(st)
        for t in reversed(result.tricks[:trick]):
            if (1 << t.cards[(seat - t.lead) % 4]) & mask:
                return t.number
    return trick


def _paid_to(books: _Books, played: list[Firing], payer: int, payee: int) -> int:
    """What *payer* paid *payee* for *payee*'s own play-phase items (gross, before netting)."""
    total = 0
    for f in played:
        if f.seat == payee and f.amount > 0 and (payer, payee) in _PAYERS[f.item.channel](
                books, payee, f.amount):
            total += f.amount
    return total


def _next_banker(ruleset: Ruleset, deal: Deal, firings: list[Firing], books: _Books,
                 leader: Seat, redraw: str | None, ended: bool) -> tuple[Seat | None, str]:
    """The next 椿 (None: drawn afresh, 另拈椿 — a sitting draws it) and why.

    In order: an item that seizes the bank (異賞奪椿); a fine or an item that redraws it,
    or a hand not played when the ruleset says ``next_banker.mian_dou: redraw``
    (凡遇免斗俱另拈椿); the 椿's item that keeps it (大活留椿); else the ruleset's rule.
    """
    seize = [f for f in firings if f.item.bank == "seize"]
    if seize:
        # Several 異賞 holders: the first in play order from the 頭家 (the first leader).
        f = min(seize, key=lambda f: (f.seat - leader) % 4)
        return f.seat, f"{f.item.name}: 奪椿"
    if redraw is not None:
        return None, f"{redraw}: 另拈椿"
    for f in firings:
        if f.item.bank == "redraw":
            return None, f"{f.item.name}: 另拈椿"
    if ended and ruleset.procedure.next_banker_mian_dou == "redraw":
        return None, "免斗: 另拈椿"
    for f in firings:
        if f.item.bank == "keep" and f.seat == deal.banker:
            return deal.banker, f"{f.item.name}: 留椿"
    proc = ruleset.procedure
    if proc.next_banker_rule == "top_earner":
        net = (nets(books.lines) if books.record else books.nets)[:4]
        top = max(net)
        leaders = [s for s in SEATS if net[s] == top]
        if len(leaders) > 1:
            # S0 and the app's code: a shared top keeps the previous 莊, among them or not.
            return deal.banker, make_note("bank_top_earners_tie")
        if leaders[0] == deal.banker:
            return deal.banker, make_note("bank_banker_top_earner")
        return leaders[0], make_note("bank_top_earner")
    return deal.banker.after(proc.next_banker_rotate), "輪椿"
