"""A hand-written check equivalent to the deal schema, for reading bulk files fast.

``jsonschema`` takes about a third of the time of replaying a deal that is read from a
big file.  :func:`deal_ok` answers the same question as ``schemas/deal.schema.json``'s
``$defs/deal`` for plain JSON data in a few microseconds.  It is only ever a shortcut:
when it says no, the deal goes through jsonschema, which words the error.  So it may
refuse what the schema accepts (whole-number floats such as ``3.0`` always take the
long way) but must never accept what the schema refuses; ``tests/test_bulk.py``
checks both directions on random deals.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["deal_ok"]

SEATS = frozenset({"east", "south", "west", "north", "e", "s", "w", "n", "東", "南", "西", "北", "东"})
HAND_KEYS = frozenset({"east", "south", "west", "north"})
DEAL_KEYS = frozenset({"id", "title", "source", "banker", "hands", "stock", "guan_dui", "play", "events",
                       "notes"})
REQUIRED = frozenset({"id", "banker", "hands", "stock"})
TRICK_KEYS = frozenset({"lead", "cards"})
EVENT_KEYS = frozenset({"type", "seat", "trick", "card", "victim", "note"})
EVENT_TYPE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
TEXT_KEYS = ("title", "source", "notes")


def _cards(value: Any) -> bool:
    if type(value) is not list:
        return False
    for name in value:
        if type(name) is not str or not name:
            return False
    return True


def _int_in(value: Any, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


def _seat(value: Any) -> bool:
    return type(value) is str and value in SEATS


def deal_ok(d: Any) -> bool:
    """True when *d* certainly satisfies the deal schema (``$defs/deal``)."""
    if type(d) is not dict:
        return False
    keys = d.keys()
    if not keys <= DEAL_KEYS or not REQUIRED <= keys:
        return False
    deal_id = d["id"]
    if type(deal_id) is not str or not deal_id:
        return False
    for key in TEXT_KEYS:
        if key in d and type(d[key]) is not str:
            return False
    if not _seat(d["banker"]):
        return False
    hands = d["hands"]
    if type(hands) is not dict or hands.keys() != HAND_KEYS:
        return False
    for cards in hands.values():
        if not _cards(cards):
            return False
    if not _cards(d["stock"]):
        return False
    if "guan_dui" in d and not _int_in(d["guan_dui"], 0, 1_000_000):
        return False
    if "play" in d and not _play_ok(d["play"]):
        return False
    return "events" not in d or _events_ok(d["events"])


def _play_ok(play: Any) -> bool:
    if type(play) is not list or not 1 <= len(play) <= 8:
        return False
    for trick in play:
        if type(trick) is not dict or trick.keys() != TRICK_KEYS:
            return False
        if not _seat(trick["lead"]) or not _cards(trick["cards"]):
            return False
    return True


def _events_ok(events: Any) -> bool:
    if type(events) is not list:
        return False
    for e in events:
        if type(e) is not dict or not e.keys() <= EVENT_KEYS or "type" not in e or "seat" not in e:
            return False
        kind = e["type"]
        if type(kind) is not str or not EVENT_TYPE.fullmatch(kind) or not _seat(e["seat"]):
            return False
        if "trick" in e and not _int_in(e["trick"], 1, 8):
            return False
        if "card" in e and type(e["card"]) is not str:
            return False
        if "victim" in e and not _seat(e["victim"]):
            return False
        if "note" in e and type(e["note"]) is not str:
            return False
    return True
