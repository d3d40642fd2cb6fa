"""A ruleset's procedure *between* hands (``sitting:``), compiled once.

A sitting is a sequence of hands at one table.  The ruleset's ``procedure:`` says who is
the first 椿 (``first_banker``: a draw, or the first 面張) and, after each hand, who becomes
the next (``next_banker`` and the items' and fines' ``bank:``, judged by
:mod:`mahdiao_rules.settle.hand`); this block says the rest, which only a sitting needs::

    sitting:
      seat_draw:                 # how players draw their seats
        order: [十, 萬門, 索, 九文, …, 空文]   # card sets, strongest draw first
        first_seat: east         # the strongest draw sits here, the next in play order
        source: …
      redraw:                    # 另拈椿: the 椿 drawn afresh (settlement said "redraw")
        rule: draw               # a fresh draw, as for the first 椿
        record: use              # use: a hand's recorded 椿 is the draw's outcome
                                 # ignore: always drawn from the sitting's seed
        source: …
      stakes:                    # what the agreed cap (買注) limits
        cap: per_hand            # per_hand: each hand's stake; sitting_loss: a player's
                                 # loss over the sitting; none: nothing
        source: …

Any value may be an option switch.  A ruleset without the block gets
:data:`DEFAULT` (the draw order of the Ming method, redraws use the record, the cap
bounds each hand's stake), with no source.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..cards import CARD_HANZI, N_CARDS, bits_of
from ..deal import SEAT_ALIASES, Seat
from .dsl import Compiler, Path
from .model import Citation

FIRST_BANKER_RULES = {
    "draw": "a second draw: the strongest card is the first 椿",
    "face": "the seat the first hand's 面張 count gives (as for the first lead)",
}
"""procedure.first_banker's rules, as a sitting report words them."""
REDRAW_RULES = {"draw": "a fresh draw: the strongest card takes the 椿"}
REDRAW_RECORD = {
    "use": "a hand's recorded 椿 is the outcome of the draw; without one, drawn from the seed",
    "ignore": "always drawn from the sitting's seed; a recorded 椿 is only compared",
}
STAKE_CAPS = {
    "per_hand": "the agreed floor and cap bound the stake of each hand",
    "sitting_loss": "the cap is the most a player may lose in the sitting: the sitting ends "
                    "after the hand that brings a player to it",
    "none": "the agreed cap limits nothing",
}

# The Ming method as the app's help text gives it: 萬萬>萬>貫>索>九文>文>空文 — the 十 suit,
# 萬, 索 in play order, then 文 from 九文 down to 空文 (the reverse of its play order).
_MING_ORDER = tuple(range(29)) + tuple(range(39, 28, -1))


def _rank_of(order: Sequence[int]) -> tuple[int, ...]:
    """Card → its position in *order* (the draw's ranking, strongest first)."""
    rank = [0] * N_CARDS
    for position, card in enumerate(order):
        rank[card] = position
    return tuple(rank)


@dataclass(frozen=True, slots=True)
class Draw:
    """A draw procedure: which card beats which, and where the strongest draw sits."""

    rank: tuple[int, ...]
    """rank[card]: 0 for the strongest card of a draw, 39 for the weakest."""
    first_seat: Seat
    source: Citation | None = None
    note: str | None = None

    def order(self, cards: list[int]) -> list[int]:
        """Indexes of *cards*, strongest first."""
        return sorted(range(len(cards)), key=lambda i: self.rank[cards[i]])


@dataclass(frozen=True, slots=True)
class Rule:
    """One compiled choice of the block: its value, what it means, and its source."""

    value: str
    meaning: str
    source: Citation | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class SittingProcedure:
    seat_draw: Draw
    redraw: Rule
    redraw_record: str
    """``use`` or ``ignore`` (see :data:`REDRAW_RECORD`)."""
    stakes: Rule


DEFAULT = SittingProcedure(
    seat_draw=Draw(rank=_rank_of(_MING_ORDER), first_seat=Seat.EAST),
    redraw=Rule("draw", REDRAW_RULES["draw"]),
    redraw_record="use",
    stakes=Rule("per_hand", STAKE_CAPS["per_hand"]),
)


def compile_sitting(c: Compiler, entries: dict[str, tuple[Any, Path, Any]],
                    cite: Callable[[Any], Citation]) -> SittingProcedure:
    """The block's entries (key → (node, path, document)) with *c*'s options resolved."""
    out = DEFAULT
    if "seat_draw" in entries:
        node, path = _entry(c, entries["seat_draw"], {"order", "first_seat", "source", "note"})
        first = node.get("first_seat", "east")
        if first not in SEAT_ALIASES:
            raise c.error((*path, "first_seat"), "first_seat is a seat (east, south, west, north), "
                                                 f"not {first!r}")
        draw = Draw(_rank(c, node["order"], (*path, "order")), SEAT_ALIASES[first],
                    cite(node["source"]), node.get("note"))
        out = replace(out, seat_draw=draw)
    if "redraw" in entries:
        node, path = _entry(c, entries["redraw"], {"rule", "record", "source", "note"})
        record = _value(c, node, path, "record", REDRAW_RECORD, default="use")
        out = replace(out, redraw=_rule(c, node, path, "rule", REDRAW_RULES, cite),
                      redraw_record=record)
    if "stakes" in entries:
        node, path = _entry(c, entries["stakes"], {"cap", "source", "note"})
        out = replace(out, stakes=_rule(c, node, path, "cap", STAKE_CAPS, cite))
    return out


def _entry(c: Compiler, entry: tuple[Any, Path, Any], allowed: set[str]) -> tuple[dict[str, Any], Path]:
    node, path, doc = entry
    c.doc = doc
    node, path = c.resolve(node, path)
    if not isinstance(node, dict):
        raise c.error(path, f"sitting.{path[-1]} is a mapping with {', '.join(sorted(allowed))}")
    for key in node:
        if key not in allowed:
            raise c.error((*path, key), f"sitting.{path[-1]}: unknown key {key!r} "
                                        f"(keys: {', '.join(sorted(allowed))})")
    if "source" not in node:
        raise c.error(path, f"sitting.{path[-1]} needs source:")
    return node, path


def _value(c: Compiler, node: dict[str, Any], path: Path, key: str, meanings: dict[str, str],
           default: str | None = None) -> str:
    value, vpath = c.resolve(node.get(key, default), (*path, key))
    if value not in meanings:
        raise c.error(vpath, f"{key} is one of {', '.join(meanings)}, not {value!r}")
    return str(value)


def _rule(c: Compiler, node: dict[str, Any], path: Path, key: str, meanings: dict[str, str],
          cite: Callable[[Any], Citation]) -> Rule:
    value = _value(c, node, path, key, meanings)
    return Rule(value, meanings[value], cite(node["source"]), node.get("note"))


def _rank(c: Compiler, node: Any, path: Path) -> tuple[int, ...]:
    """A draw order: card sets strongest first, each set's cards in play order; all 40 once."""
    node, path = c.resolve(node, path)
    if not isinstance(node, list) or not node:
        raise c.error(path, "order is a list of card sets, strongest draw first")
    order: list[int] = []
    seen: dict[int, int] = {}
    for i, part in enumerate(node):
        for card in bits_of(c.card_set(part, (*path, i)).mask):
            if card in seen:
                raise c.error((*path, i), f"{CARD_HANZI[card]} is already in order[{seen[card]}]")
            seen[card] = i
            order.append(card)
    missing = [CARD_HANZI[k] for k in range(N_CARDS) if k not in seen]
    if missing:
        raise c.error(path, f"order must rank all 40 cards; missing: {' '.join(missing)}")
    return _rank_of(order)

