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

from ..cards import CARD_HANZI, CARD_SUIT, Card
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


def play_random(deal: Deal, first_leader: Seat, rng: random.Random) -> PlayResult:
    """Play all eight tricks choosing a uniformly random card for every play.

    Every card is legal in Madiao, so this is the simplest faithful policy; the
    same *rng* state always gives the same play.
    """
    hands = [list(h) for h in deal.hands]
    tricks: list[PlayedTrick] = []
    lead = first_leader
    for number in range(1, 9):
        cards = []
        for pos in range(4):
            hand = hands[(lead + pos) % 4]
            cards.append(hand.pop(rng.randrange(len(hand))))
        trick = play_trick(number, lead, tuple(cards), deal.barred(number))
        tricks.append(trick)
        lead = trick.winner
    return result_of(tricks, recorded=False)
