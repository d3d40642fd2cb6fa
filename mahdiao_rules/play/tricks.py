"""The trick engine: replay recorded tricks, or play them with a simple policy.

Madiao has no duty to follow suit: any card may be played.  The led card sets
the suit; a later card *captures* (捉) when it is of the suit of the current
best card and stronger than it, otherwise it is *discarded* (滅).  The best
card of the led suit wins the trick: it goes "上卓" for its owner, who leads
the next trick.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..cards import CARD_HANZI, CARD_SUIT, N_CARDS, SUIT_MASKS, Card
from ..deal import Deal, Seat
from ..errors import InputError

FA, ZHUO, MIE = "fa", "zhuo", "mie"
ACTION_HANZI = {FA: "發", ZHUO: "捉", MIE: "滅"}


@dataclass(frozen=True, slots=True)
class PlayedTrick:
    """One trick after it is played: cards in play order from the leader."""

    number: int
    lead: Seat
    cards: tuple[Card, ...]
    actions: tuple[str, ...]
    """``fa`` for the lead, then ``zhuo`` (capture) or ``mie`` (discard) per play."""
    winner: Seat
    winning_card: Card
    barred: int = 0
    """Seats (a bit per seat) whose plays could not capture (多張/少張, deal.NO_CAPTURE_EVENTS)."""

    def seat_of(self, position: int) -> Seat:
        return self.lead.after(position)

    def __repr__(self) -> str:
        names = " ".join(CARD_HANZI[c] for c in self.cards)
        return (f"PlayedTrick({self.number}, lead={self.lead.id}, cards={names!r}, "
                f"winner={self.winner.id})")


@dataclass(frozen=True, slots=True)
class PlayResult:
    """The eight tricks and what each seat won (上卓 cards in winning order)."""

    tricks: tuple[PlayedTrick, ...]
    won: tuple[tuple[Card, ...], ...]
    won_masks: tuple[int, int, int, int]
    trick_counts: tuple[int, int, int, int]
    recorded: bool
    """True when the tricks came from the deal record, False when played by a policy."""


def play_trick(number: int, lead: Seat, cards: tuple[Card, ...], barred: int = 0) -> PlayedTrick:
    """Classify each play and find the winner of one trick.

    A seat in *barred* may not capture: its plays are 滅.  When it led, the first play of a
    seat that may capture stands in for the lead (INFERENCE: somebody takes the trick);
    when every seat is barred the usual rule decides.
    """
    if barred and (barred & 0b1111) != 0b1111:
        return _play_barred(number, lead, cards, barred)
    best = cards[0]
    best_pos = 0
    actions = [FA]
    for pos in range(1, len(cards)):
        card = cards[pos]
        if CARD_SUIT[card] == CARD_SUIT[best] and card < best:
            best, best_pos = card, pos
            actions.append(ZHUO)
        else:
            actions.append(MIE)
    return PlayedTrick(number, lead, cards, tuple(actions), lead.after(best_pos), best)


def _play_barred(number: int, lead: Seat, cards: tuple[Card, ...], barred: int) -> PlayedTrick:
    best_pos = -1
    actions = []
    for pos, card in enumerate(cards):
        if barred >> lead.after(pos) & 1:
            actions.append(FA if pos == 0 else MIE)
        elif best_pos < 0 or (CARD_SUIT[card] == CARD_SUIT[cards[best_pos]] and card < cards[best_pos]):
            actions.append(FA if pos == 0 else ZHUO)
            best_pos = pos
        else:
            actions.append(MIE)
    return PlayedTrick(number, lead, cards, tuple(actions), lead.after(best_pos), cards[best_pos],
                       barred)


def result_of(tricks: list[PlayedTrick], recorded: bool = False) -> PlayResult:
    """The PlayResult of eight played tricks: who won which cards, in winning order."""
    won: list[list[Card]] = [[], [], [], []]
    for trick in tricks:
        won[trick.winner].append(trick.winning_card)
    masks = [0, 0, 0, 0]
    for seat in range(4):
        for c in won[seat]:
            masks[seat] |= 1 << c
    return PlayResult(
        tricks=tuple(tricks),
        won=tuple(tuple(w) for w in won),
        won_masks=(masks[0], masks[1], masks[2], masks[3]),
        trick_counts=(len(won[0]), len(won[1]), len(won[2]), len(won[3])),
        recorded=recorded,
    )


def replay_recorded(deal: Deal) -> PlayResult:
    """Replay the deal's recorded tricks (already checked by the deal loader)."""
    if deal.play is None:
        raise InputError(f"deal {deal.id!r} has no recorded play")
    if len(deal.play) != 8:
        raise InputError(
            f"deal {deal.id!r} records {len(deal.play)} tricks; a hand has 8",
            **deal.locate("play"),
        )
    tricks = [play_trick(i + 1, t.lead, t.cards, deal.barred(i + 1)) for i, t in enumerate(deal.play)]
    return result_of(tricks, recorded=True)


# ====================================================================== random play

N_ORDERS = 40320
"""8!: the orders in which a seat can play its eight cards."""
_ORDERS: bytes = b""


def _orders() -> bytes:
    """The 8! permutations of 8 positions in lexicographic order, 8 bytes each (made once)."""
    global _ORDERS
    if not _ORDERS:
        from itertools import permutations

        _ORDERS = bytes(x for perm in permutations(range(8)) for x in perm)
    return _ORDERS


def draw_orders(rng: random.Random) -> tuple[int, int, int, int]:
    """Each seat's play order for a random play: a number 0 … 8!−1, east first.

    A uniformly random card at every play is the same as each seat playing its hand in a
    uniformly random order, independently of the others (every card is legal), so a
    random play draws four numbers and nothing else.  Each is drawn by rejection from 16
    random bits, as ``rng.randrange(8!)`` does.
    """
    bits = rng.getrandbits
    out = []
    for _ in range(4):
        n = bits(16)
        while n >= N_ORDERS:
            n = bits(16)
        out.append(n)
    return out[0], out[1], out[2], out[3]


def in_order(hand: tuple[Card, ...], number: int) -> list[Card]:
    """The eight cards of *hand* in play order *number* (lexicographic rank of the permutation)."""
    if len(hand) != 8:
        raise ValueError(f"a random play needs hands of 8 cards, not {len(hand)}")
    return [hand[j] for j in _orders()[8 * number:8 * number + 8]]


def bits_in_order(hand: tuple[int, ...], number: int) -> list[int]:
    """:func:`in_order` as card bits (for :func:`quick_play`)."""
    if len(hand) != 8:
        raise ValueError(f"a random play needs hands of 8 cards, not {len(hand)}")
    return [BIT[hand[j]] for j in _orders()[8 * number:8 * number + 8]]


def random_orders(hands: tuple[tuple[int, ...], ...], rng: random.Random) -> list[list[int]]:
    """The seats' cards as bits in the play orders of a random play drawn from *rng*
    (:func:`draw_orders`, :func:`bits_in_order`): what :func:`quick_play` plays."""
    numbers = draw_orders(rng)
    return [bits_in_order(hands[s], numbers[s]) for s in range(4)]


def play_in_order(orders: list[list[Card]], first_leader: Seat, barred: tuple[int, ...] = (0,) * 8
                  ) -> PlayResult:
    """Play the eight tricks with each seat playing its cards in the given order (*barred*:
    per trick, the seats that may not capture, as :func:`play_trick` takes them)."""
    tricks: list[PlayedTrick] = []
    lead = first_leader
    for k in range(8):
        trick = play_trick(k + 1, lead, tuple(orders[(lead + pos) % 4][k] for pos in range(4)), barred[k])
        tricks.append(trick)
        lead = trick.winner
    return result_of(tricks, recorded=False)


def play_random(deal: Deal, first_leader: Seat, rng: random.Random) -> PlayResult:
    """Play all eight tricks choosing a uniformly random card for every play.

    Every card is legal in Madiao, so this is the simplest faithful policy; the
    same *rng* state always gives the same play (:func:`draw_orders`).
    """
    numbers = draw_orders(rng)
    return play_in_order([in_order(deal.hands[s], numbers[s]) for s in range(4)], first_leader,
                         tuple(deal.barred(n) for n in range(1, 9)))


# ====================================================================== the same, on bits

BIT = tuple(1 << c for c in range(N_CARDS))
LED_SUIT = {1 << c: SUIT_MASKS[CARD_SUIT[c]] for c in range(N_CARDS)}
"""A card's bit → the mask of its suit (the cards that can win a trick it leads)."""


QuickPlay = tuple[list[int], list[int], list[int], list[list[int]], list[list[int]], "list[list[int]] | None"]
"""A play for simulation: won masks and trick counts per seat; the winner of each trick;
then per seat, for each trick it won in order, the winning card, the mask of all four cards
and (when asked for) the mask of the cards played up to and including the winning card —
HandState's ``won``, ``tricks``, ``trick_winners``, ``won_order``, ``won_tricks``, ``won_upto``."""

_SPAN = tuple(tuple(tuple((lead + j) % 4 for j in range((winner - lead) % 4 + 1)) for winner in range(4))
              for lead in range(4))
"""``_SPAN[lead][winner]``: the seats that played, in order, up to the winner."""


def quick_play(b0: list[int], b1: list[int], b2: list[int], b3: list[int], leader: int,
               upto: bool = False) -> QuickPlay:
    """The eight tricks of seats playing the card bits *b0*–*b3* in order, from *leader*.

    The same tricks as :func:`play_in_order`, for simulation: the winner of a trick holds
    the strongest card of the led suit, which is its lowest card number, i.e. the lowest
    bit of the trick's mask within that suit.  Returns a :data:`QuickPlay`, with the masks
    up to each winning card only with *upto* (else None).
    """
    won = [0, 0, 0, 0]
    tricks = [0, 0, 0, 0]
    winners: list[int] = []
    order: list[list[int]] = [[], [], [], []]
    whole: list[list[int]] = [[], [], [], []]
    ups: list[list[int]] | None = [[], [], [], []] if upto else None
    lead = leader
    for x0, x1, x2, x3 in zip(b0, b1, b2, b3, strict=True):
        xs = (x0, x1, x2, x3)
        m = x0 | x1 | x2 | x3
        t = m & LED_SUIT[xs[lead]]
        t &= -t
        w = 0 if t == x0 else 1 if t == x1 else 2 if t == x2 else 3
        if ups is not None:
            u = 0
            for s in _SPAN[lead][w]:
                u |= xs[s]
            ups[w].append(u)
        lead = w
        won[w] |= t
        tricks[w] += 1
        winners.append(w)
        order[w].append(t.bit_length() - 1)
        whole[w].append(m)
    return won, tricks, winners, order, whole, ups


def trick_masks(result: PlayResult, upto: bool) -> tuple[list[list[int]], list[list[int]] | None]:
    """Per seat, for each trick it won in order, the mask of all four cards and, with *upto*,
    of the cards played up to and including the winning card (else None)."""
    whole: list[list[int]] = [[], [], [], []]
    ups: list[list[int]] | None = [[], [], [], []] if upto else None
    for t in result.tricks:
        m = 0
        for c in t.cards:
            m |= BIT[c]
            if ups is not None and c == t.winning_card:
                ups[t.winner].append(m)
        whole[t.winner].append(m)
    return whole, ups


def quick_of(result: PlayResult, upto: bool = False) -> QuickPlay:
    """A :class:`PlayResult` as a :data:`QuickPlay` (with *upto*, the cards up to each winning card)."""
    whole, ups = trick_masks(result, upto)
    return (list(result.won_masks), list(result.trick_counts), [int(t.winner) for t in result.tricks],
            [[int(c) for c in w] for w in result.won], whole, ups)
