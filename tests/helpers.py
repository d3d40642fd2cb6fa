"""Shared helpers for the tests: build deals from worked-example descriptions."""

from __future__ import annotations

from collections.abc import Sequence

from mahdiao_rules.cards import JI, SUIT_MASKS, ZHENG_SHANG, Suit, parse_card
from mahdiao_rules.deal import SEATS, Deal, Seat
from mahdiao_rules.history.construct import construct_deal
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.ruleset import find_ruleset
from mahdiao_rules.settle.hand import Settlement
from mahdiao_rules.settle.ledger import Transfer, nets
from mahdiao_rules.units import TICKS_PER_ZHU

E, S, W, N = Seat.EAST, Seat.SOUTH, Seat.WEST, Seat.NORTH


def playable(deal: Deal) -> bool:
    """True when no Feng 免斗 or 異賞 condition holds for any hand (checked independently)."""
    for seat in SEATS:
        mask = deal.hand_mask(seat)
        counts = [(mask & SUIT_MASKS[s]).bit_count() for s in Suit]
        if counts[Suit.SHI] >= 5 or max(counts[1:]) >= 6:
            return False
        if mask & JI == JI or mask & ZHENG_SHANG == ZHENG_SHANG:
            return False
    return True


def build(wins: Sequence[tuple[Seat, str]], *, banker: Seat, stock: Sequence[str] = (),
          held: dict[Seat, list[str]] | None = None, seed: int = 0, **kw) -> Deal:
    return construct_deal(wins, banker=banker, stock=stock, held=held, seed=seed,
                          accept=playable, **kw)


def zhu(settlement_or_lines: Settlement | Sequence[Transfer], *, item: str | None = None,
        items: Sequence[str] | None = None) -> list[float]:
    """Net 注 per seat (and 官堆 last), optionally only from the given rule items."""
    lines = (settlement_or_lines.ledger if isinstance(settlement_or_lines, Settlement)
             else settlement_or_lines)
    wanted = {item} if item else (set(items) if items else None)
    if wanted is not None:
        lines = [t for t in lines if t.item in wanted]
    return [n / TICKS_PER_ZHU for n in nets(lines)]


def kai_zhu_total(s: Settlement, seat: Seat) -> float:
    """K for one seat: the sum of its 開注 items (吊, 賞, combos), as the sources count it."""
    return sum(f.amount for f in s.firings
               if f.seat == seat and f.item.channel.startswith("kai_zhu")) / TICKS_PER_ZHU


def feng(deal: Deal, **options: str) -> Settlement:
    return settle_deal(find_ruleset("feng", options or None), deal)


def card(name: str) -> int:
    return int(parse_card(name))
