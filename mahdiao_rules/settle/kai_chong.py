"""開沖 (kai chong) for one played hand: the stock turned over, linked cards taken.

The ruleset's ``procedure.kai_chong`` is compiled into a table by
:mod:`mahdiao_rules.ruleset.kai_chong` (which also says what its rows mean).

Per hand, :func:`run` turns ``stock[1:]`` over in order (``stock[0]`` is
the face card, known to all).  Each card goes to the first seat, in play order
from the seat whose turn it is, that can *link* it: the card must be joined to
one of the seat's anchors (its 上桌 賞/肩/百/趣, or a card it already took — "開沖
後可以繼續翻下一張匹配") through neighbours among the seat's own cards, and the
point table must give it points.  A card nobody can take is skipped.  A take by
a seat other than the one whose turn it was is 奪沖; by default the taker then
tries first for the next card (APP-U ``ChongCommand``: ``imax = i % 4``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import CARD_HANZI, CARD_SUIT, SUIT_MASKS, Card, bits_of
from ..deal import SEATS, Seat
from ..ruleset.dsl import HandState
from ..ruleset.kai_chong import KaiChong


@dataclass(frozen=True, slots=True)
class ChongPart:
    """What one 上桌 source card contributes to a take."""

    source: Card
    kind: str
    points: int
    """Ticks (TICKS_PER_ZHU to the 注)."""


@dataclass(frozen=True, slots=True)
class ChongTake:
    """One stock card taken in 開沖."""

    card: Card
    seat: Seat
    points: int
    """Ticks (TICKS_PER_ZHU to the 注)."""
    kind: str
    """The relation scored, e.g. 賞沖肩, 十字互沖, 順領沖."""
    anchor: Card
    """The seat's card the taken card hangs from (its direct neighbour)."""
    duo: bool
    """奪沖: taken by a seat other than the one whose turn it was."""
    parts: tuple[ChongPart, ...] = ()

    def __str__(self) -> str:
        duo = " 奪沖" if self.duo else ""
        return (f"{self.seat.id} {CARD_HANZI[self.anchor]}→{CARD_HANZI[self.card]} "
                f"{self.kind}{duo}")


def run(kc: KaiChong, st: HandState) -> list[ChongTake]:
    """Turn ``stock[1:]`` over, fill ``st.chong*`` and return the takes in order."""
    taken = [0, 0, 0, 0]
    order: list[list[int]] = [[], [], [], []]
    points = [0, 0, 0, 0]
    eligible = [st.tricks[p] >= kc.min_tricks for p in range(4)]
    out: list[ChongTake] = []
    if any(eligible):
        turn = kc.first(st)
        for card in st.stock[1:]:
            for k in range(4):
                p = (turn + k) % 4
                if not eligible[p]:
                    continue
                take = _try(kc, st, p, card, taken[p], order[p], k > 0)
                if take is None:
                    continue
                out.append(take)
                taken[p] |= 1 << card
                order[p].append(card)
                points[p] += take.points
                if kc.keep_taker:
                    turn = p
                break
    st.chong = [tuple(o) for o in order]
    st.chong_masks = taken
    st.chong_points = points
    return out


def _component(nb: tuple[int, ...], card: int, mine: int) -> int:
    """The card and every card of *mine* joined to it through neighbours *nb*."""
    reach = frontier = 1 << card
    while frontier:
        grow = 0
        for x in bits_of(frontier):
            grow |= nb[x]
        frontier = grow & mine & ~reach
        reach |= frontier
    return reach


def _try(kc: KaiChong, st: HandState, p: int, card: int, taken: int, taken_order: list[int],
         duo: bool) -> ChongTake | None:
    suit = SUIT_MASKS[CARD_SUIT[card]]
    won = st.won[p] & suit
    mine = won | (taken & suit)
    if not kc.neighbours[card] & mine:
        return None
    comp = _component(kc.neighbours, card, mine)
    if not comp & ((won & kc.anchors) | taken):
        return None  # not linked to a 上桌 賞/肩/百/趣 or a card taken before
    if kc.sequence is not kc.neighbours:
        comp = _component(kc.sequence, card, mine)
    parts = _score(kc, st, p, card, won, mine | (1 << card), comp)
    if not parts:
        return None
    total = sum(x.points for x in parts)
    if kc.bonus:
        twins = _twins_of_seat(kc, st, p)
        if twins:
            for row in kc.bonus:
                if row.to >> card & 1:
                    total += row.points * twins
                    break
    anchor = _anchor(kc, st, p, card, mine, taken_order)
    kind = next((x.kind for x in parts if x.source == anchor),
                max(parts, key=lambda x: x.points).kind)
    return ChongTake(Card(card), SEATS[p], total, kind, Card(anchor), duo, tuple(parts))


def _score(kc: KaiChong, st: HandState, p: int, card: int, won: int, union: int,
           comp: int) -> list[ChongPart]:
    rows = kc.rows_to[card]
    parts: list[ChongPart] = []
    alone_ok: list[bool] = []
    exclusive: list[bool] = []
    for s in bits_of(won):
        bit = 1 << s
        for row in rows:
            if not row.frm & bit:
                continue
            if row.connected and not comp & bit:
                continue
            if any(not union & m for m in row.needs):
                continue
            if any(not won & m for m in row.with_won):
                continue
            pts = row.points
            if kc.twin_effect == "multiply":
                pts *= 1 + _twins_of_card(kc, st, p, s)
            parts.append(ChongPart(Card(s), row.kind, pts))
            alone_ok.append(row.alone)
            exclusive.append(row.exclusive)
            break
    if any(exclusive):
        parts = [x for x, e in zip(parts, exclusive, strict=True) if e]
    elif len(parts) == 1 and not alone_ok[0]:
        return []
    return parts


def _twins_of_card(kc: KaiChong, st: HandState, p: int, s: int) -> int:
    """The twins value of the trick the seat won with card *s* (0 when none)."""
    if not kc.twins:
        return 0
    order = st.won_order[p]
    for i, w in enumerate(order):
        if w == s:
            trick = st.won_tricks[p][i] & ~(1 << s)
            for row in kc.twins:
                if row.won_with >> s & 1 and all(trick & m for m in row.trick_has):
                    return row.value
            return 0
    return 0


def _twins_of_seat(kc: KaiChong, st: HandState, p: int) -> int:
    return max((_twins_of_card(kc, st, p, s) for s in st.won_order[p]), default=0)


def _anchor(kc: KaiChong, st: HandState, p: int, card: int, mine: int, taken_order: list[int]) -> int:
    """The seat's most recent card that is a direct neighbour of *card*."""
    direct = kc.neighbours[card] & mine
    for x in reversed(taken_order):
        if direct >> x & 1:
            return x
    for x in reversed(st.won_order[p]):
        if direct >> x & 1:
            return x
    return (direct & -direct).bit_length() - 1
