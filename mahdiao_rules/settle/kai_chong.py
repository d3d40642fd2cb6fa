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

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from ..cards import CARD_HANZI, CARD_SUIT, CARDS, N_CARDS, SUIT_MASKS, SUIT_RANGES, Card, bits_of
from ..deal import SEATS, Seat
from ..ruleset.dsl import HandState
from ..ruleset.kai_chong import KaiChong, RunBranch


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
    out: list[ChongTake] = []
    twins: dict[int, int] = {}  # each seat's twins value, worked out once (_seat_twins)

    def take(p: int, card: int, taken: int, taken_order: list[int], duo: bool) -> int | None:
        t = _try(kc, st, p, card, taken, taken_order, duo, twins)
        if t is None:
            return None
        out.append(t)
        return t.points

    _turn_over(kc, st, take)
    return out


class QuickChong:
    """:func:`run` for simulation: the same takes and points in ``st.chong*``, no
    :class:`ChongTake`.

    What a take is worth before the seat's twins depends only on the card and the seat's won
    and taken cards of its suit (unless twins multiply a source's points), so it is worked
    out once for each such triple and remembered; the memory holds at most ``limit`` of
    them and starts afresh when full, so it stays bounded over any number of hands.
    """

    def __init__(self, kc: KaiChong, limit: int = 1 << 17) -> None:
        self.kc = kc
        self.limit = limit
        self.memo: dict[int, tuple[int, int] | None] | None = (
            None if kc.twin_effect == "multiply" else {})

    def forget(self) -> None:
        """Start with an empty memory (a benchmark times each run from cold)."""
        if self.memo is not None:
            self.memo.clear()

    def run(self, st: HandState) -> None:
        kc, memo = self.kc, self.memo
        won = st.won
        twins: dict[int, int] = {}

        def take(p: int, card: int, taken: int, taken_order: list[int], duo: bool) -> int | None:
            suit = SUIT_MASKS[CARD_SUIT[card]]
            if memo is None:
                got = _take(kc, st, p, card, won[p] & suit, taken & suit)
                quote = None if got is None else got[:2]
            else:
                key = ((won[p] & suit) << N_CARDS | (taken & suit)) << 6 | card
                quote = memo.get(key, _MISSING)  # type: ignore[arg-type]
                if quote is _MISSING:
                    got = _take(kc, st, p, card, won[p] & suit, taken & suit)
                    quote = None if got is None else got[:2]
                    if len(memo) >= self.limit:
                        memo.clear()
                    memo[key] = quote
            if quote is None:
                return None
            points, per_twin = quote
            return points + per_twin * _seat_twins(kc, st, p, twins) if per_twin else points

        _turn_over(kc, st, take)


_MISSING = (-1, -1)


def _turn_over(kc: KaiChong, st: HandState,
               take: Callable[[int, int, int, list[int], bool], int | None]) -> None:
    """The stock turned over as the module docstring says; ``take(seat, card, its taken
    cards, their order, 奪沖)`` says what the seat's take of the card is worth, or None."""
    taken = [0, 0, 0, 0]
    order: list[list[int]] = [[], [], [], []]
    points = [0, 0, 0, 0]
    eligible = [st.tricks[p] >= kc.min_tricks for p in range(4)]
    if any(eligible):
        turn = kc.first(st)
        won = st.won
        for card in st.stock[1:]:
            suit = SUIT_MASKS[CARD_SUIT[card]]
            near = kc.neighbours[card] & suit
            for k in range(4):
                p = (turn + k) % 4
                # What _take needs first: a neighbour among the seat's cards of the suit, and
                # an anchor (上桌 賞/肩/百/趣) or a card taken before there to link to.
                if (not eligible[p] or not near & (won[p] | taken[p])
                        or not suit & ((won[p] & kc.anchors) | taken[p])):
                    continue
                got = take(p, card, taken[p], order[p], k > 0)
                if got is None:
                    continue
                taken[p] |= 1 << card
                order[p].append(card)
                points[p] += got
                if kc.keep_taker:
                    turn = p
                break
    st.chong = [tuple(o) for o in order]
    st.chong_masks = taken
    st.chong_points = points


def _component(nb: tuple[int, ...], card: int, mine: int) -> int:
    """The card and every card of *mine* joined to it through neighbours *nb*."""
    reach = frontier = 1 << card
    while frontier:
        grow = 0
        while frontier:  # the neighbours of every card of the frontier (bit by bit, no list)
            low = frontier & -frontier
            grow |= nb[low.bit_length() - 1]
            frontier ^= low
        frontier = grow & mine & ~reach
        reach |= frontier
    return reach


def _try(kc: KaiChong, st: HandState, p: int, card: int, taken: int, taken_order: list[int],
         duo: bool, twins: dict[int, int]) -> ChongTake | None:
    suit = SUIT_MASKS[CARD_SUIT[card]]
    won, mine = st.won[p] & suit, (st.won[p] | taken) & suit
    got = _take(kc, st, p, card, won, taken & suit)
    if got is None:
        return None
    points, per_twin, parts = got
    if per_twin:
        points += per_twin * _seat_twins(kc, st, p, twins)
    anchor = _anchor(kc, st, p, card, mine, taken_order)
    if not parts:  # the run branch: one part, the whole take
        assert kc.run is not None
        return ChongTake(CARDS[card], SEATS[p], points, kc.run.kind, CARDS[anchor], duo,
                         (ChongPart(CARDS[anchor], kc.run.kind, points),))
    kind = next((x.kind for x in parts if x.source == anchor),
                max(parts, key=lambda x: x.points).kind)
    return ChongTake(CARDS[card], SEATS[p], points, kind, CARDS[anchor], duo, tuple(parts))


def _take(kc: KaiChong, st: HandState, p: int, card: int, won: int, taken: int
          ) -> tuple[int, int, list[ChongPart]] | None:
    """What seat *p* taking *card* is worth, from its *won* and *taken* cards of the card's
    suit: (points before its twins, points per twin of the seat, the parts scored — none for
    the run branch), or None when it cannot take it.  *st* and *p* are read only when twins
    multiply a source's points (``twin_effect: multiply``)."""
    mine = won | taken
    if not kc.neighbours[card] & mine:
        return None
    comp = _component(kc.neighbours, card, mine)
    if not comp & ((won & kc.anchors) | taken):
        return None  # not linked to a 上桌 賞/肩/百/趣 or a card taken before
    if kc.run is not None:
        if _blocked(kc.run, card, won, mine):
            return None
        run = _run_points(kc.run, card, won, mine)
        if run is not None:
            per_twin = 0
            if CARD_SUIT[card] == kc.run.jin_suit:
                per_twin = kc.run.points["twins_jin" if _is_jin(kc.run, card) else "twins_qing"]
            return run, per_twin, []
    if kc.sequence is not kc.neighbours:
        comp = _component(kc.sequence, card, mine)
    parts = _score(kc, st, p, card, won, mine | (1 << card), comp)
    if not parts:
        return None
    per_twin = 0
    for row in kc.bonus:
        if row.to >> card & 1:
            per_twin = (next((x.points for x in parts if row.times_points_of >> x.source & 1), 0)
                        if row.times_points_of else row.points)
            break
    return sum(x.points for x in parts), per_twin, parts


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
            if row.needs and any(not union & m for m in row.needs):
                continue
            if row.with_won and any(not won & m for m in row.with_won):
                continue
            pts = row.points
            if row.qing_all:
                pts *= _qing_all(kc.run, card, union & ~(1 << card))  # type: ignore[arg-type]
                if not pts:
                    break  # the code's factor is 0: this source adds nothing
            if kc.twin_effect == "multiply":
                pts *= 1 + _twins_of_card(kc, st, p, s)
            parts.append(ChongPart(CARDS[s], row.kind, pts))
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
    masks = st.won_upto[p] if kc.twins_upto_winner else st.won_tricks[p]
    for i, w in enumerate(order):
        if w == s:
            trick = masks[i] & ~(1 << s)
            for row in kc.twins:
                if row.won_with >> s & 1 and all(trick & m for m in row.trick_has):
                    return row.value
            return 0
    return 0


def _seat_twins(kc: KaiChong, st: HandState, p: int, memo: dict[int, int]) -> int:
    """:func:`_twins_of_seat`, once per seat and hand (it reads only the seat's won tricks)."""
    if p not in memo:
        memo[p] = _twins_of_seat(kc, st, p)
    return memo[p]


def _twins_of_seat(kc: KaiChong, st: HandState, p: int) -> int:
    """The seat's twins value: its best trick's, or (``twins_first``) its first qualifying one's."""
    values = (_twins_of_card(kc, st, p, s) for s in st.won_order[p])
    if kc.twins_first:
        return next((v for v in values if v), 0)
    return max(values, default=0)


# ---------------------------------------------------------------- APP-U KanChong, literally

def _value(card: int) -> int:
    """The code's value of a card: counted up from the bottom of its suit (二十 = 1, 萬萬 = 11)."""
    return SUIT_RANGES[CARD_SUIT[card]][1] - card


def _ish(run: RunBranch, suit: int) -> int:
    """The suit's 賞 value: the value of its card in shang_line (十: 百萬 = 9)."""
    return _shang_value(run.shang_line, suit)


@cache
def _shang_value(shang_line: int, suit: int) -> int:
    return _value((shang_line & SUIT_MASKS[suit]).bit_length() - 1)


@cache  # masks of one suit: a few thousand at most, asked for again and again
def _values(mask: int) -> frozenset[int]:
    return frozenset(_value(c) for c in bits_of(mask))


def _is_jin(run: RunBranch, card: int) -> bool:
    v = _value(card)
    return v == 1 or v >= _ish(run, CARD_SUIT[card])


def _qing_all(run: RunBranch, card: int, pile: int) -> int:
    """APP-U ``ChongQingAll``: 2 when every value from 2 below the card is in the pile and the
    pile holds the 極; else 1 when a value is missing from 2 up to the card or from the card up
    to two below the 賞 value; else 0 (with the code's two 賞/極 special cases)."""
    ish = _ish(run, CARD_SUIT[card])
    v = _value(card)
    vals = _values(pile)
    s1 = 1 if any(i not in vals for i in range(2, v)) else 0
    if s1 == 0 and (v == 1 or 1 in vals):
        s1 = 2
    s2 = 1 if any(i not in vals for i in range(ish - 2, v, -1)) else 0
    if s1 == 0 and v == ish and (ish - 1) in vals:
        s1 = 2
    if s2 == 0 and v == 1 and (ish - 1) in vals and ish in vals:
        s2 = 2
    return max(s1, s2)


def _blocked(run: RunBranch, card: int, won: int, pile: int) -> bool:
    """The code's 「肩上桌不遇賞」: the seat won the 肩 (ish − 1) but holds no 賞-class card
    and no 極 among its won and taken cards, and the card lies below the 賞 value."""
    ish = _ish(run, CARD_SUIT[card])
    if (ish - 1) not in _values(won):
        return False
    p = _values(pile)
    return not (p and max(p) >= ish) and 1 not in p and _value(card) < ish


def _run_points(run: RunBranch, card: int, won: int, pile: int) -> int | None:
    """KanChong's run branch: the points of taking *card*, or None when no run of
    ``min_length`` values goes through the seat's won and taken cards (*pile*) and it.

    The run is read as the code reads it: up from value 1 while present, then down from
    the 賞 value while present (a value may count twice); when the card lies above a gap in
    the low run and below a gap in the high one, there is no run.  A run the seat won
    none of makes the code fail; here the rows are tried instead (a limit).
    """
    ish = _ish(run, CARD_SUIT[card])
    v = _value(card)
    present = _values(pile) | {v}
    low: list[int] = []
    reaches = True
    for j in range(1, ish + 1):
        if j in present:
            low.append(j)
        else:
            if v > j:
                reaches = False
            break
    high: list[int] = []
    for i in range(ish, 0, -1):
        if i in present:
            high.append(i)
        elif not reaches and v < i:
            low, high = [], []
            break
        else:
            break
    run_values = low + high
    if len(run_values) < run.min_length:
        return None
    a = _values(won)
    f = sorted(set(run_values) & a)
    if not f:
        return None
    pt = run.points
    jin = (CARD_SUIT[card] == run.jin_suit and _is_jin(run, card)
           and any(x >= ish or x == 1 for x in f))
    n_shang = sum(1 for x in a if x >= ish)
    n_spade = n_shang + (1 in a)
    m = len(f)
    if v >= f[-1]:
        return pt["top"] * m + (pt["jin_top"] * n_spade if jin else 0)
    if v <= f[0]:
        extra = pt["jin_bottom"] * n_spade if jin else (pt["shang_to_ji"] if ish in f and v == 1 else 0)
        return pt["bottom"] * m + extra
    above = sum(1 for x in f if x > v)
    below = [x for x in f if x < v]
    jb = sum(1 for x in below if x >= ish or x == 1)
    if 1 in f and ish in f:
        return (pt["middle_above"] * above + pt["middle_below_both_ends"] * len(below)
                + (pt["jin_middle_both_ends"] * jb if jin else 0))
    return (pt["middle_above"] * above + pt["middle_below"] * len(below)
            + (pt["jin_middle"] * jb if jin else 0))


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
