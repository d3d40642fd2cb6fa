"""Seats, deals, recorded tricks and recorded events: small immutable values.

Seats are ints 0–3 in play order 東→南→西→北 (east → south → west → north).
A :class:`Deal` is what was dealt (four hands, the stock, the banker) plus,
optionally, what was recorded at the table (tricks and events such as a fine).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from .cards import CARD_HANZI, Card


class Seat(IntEnum):
    """The four seats in play order."""

    EAST = 0
    SOUTH = 1
    WEST = 2
    NORTH = 3

    @property
    def id(self) -> str:
        return _SEAT_IDS[self]  # a table, not self.name.lower(): reports ask for it very often

    @property
    def hanzi(self) -> str:
        return SEAT_HANZI[self]

    def after(self, steps: int = 1) -> Seat:
        """The seat *steps* places later in play order."""
        return Seat((self + steps) % 4)

    def __str__(self) -> str:
        return self.id


SEATS = (Seat.EAST, Seat.SOUTH, Seat.WEST, Seat.NORTH)
_SEAT_IDS = tuple(s.name.lower() for s in SEATS)
SEAT_HANZI = ("東", "南", "西", "北")
SEAT_ALIASES: dict[str, Seat] = {}
for _seat in SEATS:
    for _name in (_seat.id, _seat.id[0], _seat.hanzi, {"東": "东"}.get(_seat.hanzi, _seat.hanzi)):
        SEAT_ALIASES[_name] = _seat
del _seat, _name


@dataclass(frozen=True, slots=True)
class RecordedTrick:
    """One trick as recorded: who led and the four cards in play order from the leader."""

    lead: Seat
    cards: tuple[Card, Card, Card, Card]

    def __repr__(self) -> str:
        names = " ".join(CARD_HANZI[c] for c in self.cards)
        return f"RecordedTrick(lead={self.lead.id}, cards={names!r})"


NO_CAPTURE_EVENTS = {"duo_zhang": "多張", "shao_zhang": "少張"}
"""Events after which a seat may not capture: Feng's 「多張者及少張者，俱不准捉…雖賞亦不論」.

From the event's trick (the first when it names none) the seat's plays never win a trick:
each is a 滅.  They change who won what, so the deal layer applies them — reading a
record, playing a hand — whatever the ruleset; a ruleset only prices them."""


def barred_seats(events: tuple[Event, ...] | list[Event], number: int) -> int:
    """The seats (a bit per seat) that may not capture in trick *number* (NO_CAPTURE_EVENTS)."""
    bits = 0
    for e in events:
        if e.type in NO_CAPTURE_EVENTS and (e.trick or 1) <= number:
            bits |= 1 << e.seat
    return bits


@dataclass(frozen=True, slots=True)
class Event:
    """A recorded table event that a ruleset may price (代賠, 罰例 …).

    ``type`` names the event (for example ``release_bai_lao`` or ``wu_chu``);
    ``seat`` is the player responsible; ``trick`` (1-based) and ``card`` locate
    it when the event is about a particular trick or card; ``victim`` names a
    seat the event is about when that is not derivable.
    """

    type: str
    seat: Seat
    trick: int | None = None
    card: Card | None = None
    victim: Seat | None = None
    note: str | None = None
    affected: bool = False
    """The fault changed another player's result (Feng's 「四野如有關係」): 代賠 is due."""


@dataclass(frozen=True, slots=True)
class Deal:
    """A complete deal: hands, stock (``stock[0]`` is the face card 面張) and banker."""

    id: str
    banker: Seat
    hands: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    stock: tuple[Card, ...]
    play: tuple[RecordedTrick, ...] | None = None
    events: tuple[Event, ...] = ()
    title: str | None = None
    source: str | None = None
    guan_dui: int = 0
    """Chips already in the 官堆 pool when the hand starts (in 注)."""
    notes: str | None = None
    origin: str | None = field(default=None, compare=False)
    """Where the deal was read from (file name), for messages."""
    place: str = field(default="", compare=False)
    """The deal's key path in that file (``deals[2]``; empty for a file of one deal)."""
    lines: Mapping[str, int] = field(default_factory=dict, compare=False)
    """The lines of the parts that a later stage may have to name (``play``, ``events[1]``)."""

    def locate(self, part: str) -> dict[str, Any]:
        """``file``, ``line`` and ``place`` of *part* (``play``, ``events[1]``) for an InputError."""
        return {"file": self.origin, "line": self.lines.get(part),
                "place": f"{self.place}.{part}" if self.place else part}

    @property
    def face(self) -> Card:
        return self.stock[0]

    def hand_mask(self, seat: int) -> int:
        mask = 0
        for c in self.hands[seat]:
            mask |= 1 << c
        return mask

    def barred(self, number: int) -> int:
        """The seats (a bit per seat) that may not capture in trick *number* (多張/少張)."""
        return barred_seats(self.events, number) if self.events else 0

    def holder(self, card: int) -> Seat | None:
        """The seat that was dealt *card*, or None when it lies in the stock."""
        for seat in SEATS:
            if card in self.hands[seat]:
                return seat
        return None
