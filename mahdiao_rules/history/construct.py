"""Construct a complete, legal deal from a partial description of who won what.

Worked examples in the sources say which cards each player won (上卓) and a few
facts about the stock, not whole deals.  :func:`construct_deal` finds a full
deal and recorded play that realise such a description exactly, so the
example can be replayed and settled like any other deal.  It searches at
random with a fixed seed, so the same description always gives the same deal.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from ..cards import CARD_SUIT, Card, parse_card
from ..deal import SEATS, Deal, RecordedTrick, Seat
from ..play.tricks import play_trick


def _cards(names: Sequence[str | int]) -> list[int]:
    return [n if isinstance(n, int) else int(parse_card(n)) for n in names]


def construct_deal(
    wins: Sequence[tuple[Seat, str | int]],
    *,
    banker: Seat,
    first_leader: Seat | None = None,
    stock: Sequence[str | int] = (),
    held: Mapping[Seat, Sequence[str | int]] | None = None,
    avoid_held: Mapping[Seat, Sequence[str | int]] | None = None,
    deal_id: str = "constructed",
    seed: int = 0,
    tries: int = 20000,
    accept: Callable[[Deal], bool] | None = None,
) -> Deal:
    """A deal whose eight tricks are won, in order, as *wins* says.

    *wins* lists (winner, winning card) for tricks 1–8.  *stock* fixes the
    first stock cards (face card first).  *held* names cards a seat must hold
    without winning with them; *avoid_held* cards it must not hold; *accept*
    may reject candidate deals (for example hands that would not be played).
    Raises ValueError when no such deal is found.
    """
    if len(wins) != 8:
        raise ValueError("wins must list the winner of each of the 8 tricks")
    win_cards = [_cards([c])[0] for _, c in wins]
    fixed_stock = _cards(stock)
    held_req = {s: _cards(v) for s, v in (held or {}).items()}
    avoid = {s: set(_cards(v)) for s, v in (avoid_held or {}).items()}
    used = set(win_cards) | set(fixed_stock) | {c for v in held_req.values() for c in v}
    if len(used) != len(win_cards) + len(fixed_stock) + sum(map(len, held_req.values())):
        raise ValueError("a card is named twice in the description")
    leaders = [first_leader if first_leader is not None else wins[0][0]]
    for w, _ in wins[:-1]:
        leaders.append(w)
    rng = random.Random(seed)
    for _ in range(tries):
        deal = _attempt(rng, wins, win_cards, leaders, fixed_stock, held_req, avoid, banker, deal_id)
        if deal is not None and (accept is None or accept(deal)):
            return deal
    raise ValueError("no deal found for this description")


def _attempt(rng: random.Random, wins: Sequence[tuple[Seat, str | int]], win_cards: list[int],
             leaders: list[Seat], fixed_stock: list[int], held_req: dict[Seat, list[int]],
             avoid: dict[Seat, set[int]], banker: Seat, deal_id: str) -> Deal | None:
    pool = [c for c in range(40) if c not in set(win_cards) | set(fixed_stock)
            and all(c not in v for v in held_req.values())]
    rng.shuffle(pool)
    # Required held cards are played as fillers of their seat, in a random trick.
    forced: dict[Seat, list[int]] = {s: list(v) for s, v in held_req.items()}
    for v in forced.values():
        rng.shuffle(v)
    tricks: list[RecordedTrick] = []
    hands: dict[Seat, list[int]] = {s: [] for s in SEATS}
    for k in range(8):
        winner, card = wins[k][0], win_cards[k]
        lead = leaders[k]
        played: dict[Seat, int] = {winner: card}
        for pos in range(4):
            seat = lead.after(pos)
            if seat == winner:
                continue
            need_same_suit_lower = seat == lead
            choice = _pick(rng, pool, forced.get(seat, []), avoid.get(seat, set()), card,
                           need_same_suit_lower, tricks_left=8 - k)
            if choice is None:
                return None
            played[seat] = choice
        cards = tuple(Card(played[lead.after(pos)]) for pos in range(4))
        t = play_trick(k + 1, lead, cards)
        if t.winner != winner or t.winning_card != card:
            return None
        tricks.append(RecordedTrick(lead, cards))
        for seat, c in played.items():
            hands[seat].append(c)
    if any(forced.get(s) for s in SEATS):
        return None
    rest = list(pool)
    stock = fixed_stock + rest[: 8 - len(fixed_stock)]
    if len(stock) != 8 or len(rest) != 8 - len(fixed_stock):
        return None
    return Deal(
        id=deal_id, banker=banker,
        hands=tuple(tuple(Card(c) for c in sorted(hands[s])) for s in SEATS),  # type: ignore[arg-type]
        stock=tuple(Card(c) for c in stock), play=tuple(tricks),
    )


def _pick(rng: random.Random, pool: list[int], forced: list[int], avoid: set[int], best: int,
          same_suit_lower: bool, tricks_left: int) -> int | None:
    """A filler card that does not beat *best* (or, for a leader, is below it in suit)."""
    def ok(c: int) -> bool:
        if c in avoid:
            return False
        if same_suit_lower:
            return CARD_SUIT[c] == CARD_SUIT[best] and c > best
        return not (CARD_SUIT[c] == CARD_SUIT[best] and c < best)
    # Place forced cards early enough: use one now with probability that finishes them in time.
    if forced and (len(forced) >= tricks_left or rng.random() < 0.5):
        for i, c in enumerate(forced):
            if ok(c):
                return forced.pop(i)
    for i, c in enumerate(pool):
        if ok(c):
            return pool.pop(i)
    return None
