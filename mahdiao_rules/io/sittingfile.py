"""Read sitting files: four players and the hands they played in order (YAML or JSON).

A sitting file (``schemas/sitting.schema.json``, docs/sitting-format.md) names the
players and where they sat, the first 椿 and the agreed stakes when they were
recorded, and the hands in order — each a complete deal (hands, stock, optionally
the recorded tricks and events) or a citable deal code.  A hand's 椿 is optional:
the rulesets' procedures choose it, and a recorded one is checked against them by
the sitting engine (:mod:`mahdiao_rules.sitting`).

Checks after the schema, each naming the file, the line and the hand: every hand's
cards (as for a deal file), unique hand ids, four distinct players, draws of four
distinct cards by exactly the players, a cap not below the floor and no hand staked
below the floor.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..cards import CARD_HANZI, Card, parse_card
from ..deal import SEAT_ALIASES, SEATS, Deal, Seat
from ..errors import InputError
from . import dealcode
from .dealfile import read_deal
from .jsonstream import JsonItem, absolute_lines, jsonl_items, precise_document
from .schemacheck import check
from .yamlsafe import Document, _Lines, current_limits, format_path, load_file

__all__ = ["Sitting", "SittingHand", "Stakes", "json_lines_document", "load_sitting",
           "parse_sitting"]

KeyPath = tuple[str | int, ...]
DEFAULT_PLAYERS = ("東家", "南家", "西家", "北家")
DEFAULT_SEED = "sitting"


@dataclass(frozen=True, slots=True)
class Stakes:
    """買注: the agreed floor and cap of the stake per 注, in *unit*."""

    floor: Fraction
    cap: Fraction
    unit: str = "注"


@dataclass(frozen=True, slots=True)
class SittingHand:
    """One hand of a sitting: the deal as dealt to the seats, and what was recorded about it."""

    number: int
    """1-based position in the sitting."""
    deal: Deal
    """The deal; its ``banker`` is the recorded 椿, or east when none was recorded."""
    banker: Seat | None
    """The 椿 as recorded, or None."""
    stake: Fraction
    """Stake per 注 (the floor unless the hand says otherwise)."""
    code: str | None = None
    """The deal code the hand was given by, if any."""

    @property
    def path(self) -> KeyPath:
        return ("hands", self.number - 1)

    @property
    def label(self) -> str:
        return f"hand {self.number} ({self.deal.id})"


@dataclass(frozen=True)
class Sitting:
    """A sitting as recorded; the draws the record lacks are made by each ruleset."""

    file: str
    doc: Document
    players: tuple[str, ...]
    """The four names, in the order given (by seat when ``seats`` is set)."""
    seats: dict[str, Seat] | None
    """Player → seat when the file says where each sat; else from the seat draw."""
    seat_draw: dict[str, Card] | None
    first_banker_seat: Seat | None
    first_banker_player: str | None
    first_banker_draw: dict[str, Card] | None
    played_under: str | None
    seed: str
    stakes: Stakes | None
    guan_dui: int
    """注 in the 官堆 when the sitting starts."""
    hands: tuple[SittingHand, ...]
    title: str | None = None
    source: str | None = None
    notes: str | None = None

    def line_of(self, path: KeyPath) -> int | None:
        return self.doc.line_of(path)

    def __repr__(self) -> str:
        n = len(self.hands)
        return f"<Sitting {self.file}: {n} hand{'s' if n != 1 else ''}; players {' '.join(self.players)}>"

    def error(self, path: KeyPath, message: str) -> InputError:
        """An error at *path* of the file (``file:line: path: message``)."""
        return InputError(message, file=self.file, line=self.doc.line_of(path),
                          place=format_path(path))

    @property
    def stake_unit(self) -> str:
        return self.stakes.unit if self.stakes else "注"

    @classmethod
    def of_deals(cls, deals: Sequence[Deal], *, seed: str, title: str | None = None) -> Sitting:
        """A sitting of *deals* in order with nothing recorded (the players 東家 … in their
        seats, no stakes, an empty 官堆): every draw is made from *seed*."""
        hands = tuple(SittingHand(i + 1, d, None, Fraction(1)) for i, d in enumerate(deals))
        return cls(file=title or "<sitting>", doc=Document(title or "<sitting>", None),
                   players=DEFAULT_PLAYERS, seats=dict(zip(DEFAULT_PLAYERS, SEATS, strict=True)),
                   seat_draw=None, first_banker_seat=None, first_banker_player=None,
                   first_banker_draw=None, played_under=None, seed=seed, stakes=None, guan_dui=0,
                   hands=hands, title=title)


def load_sitting(path: str | os.PathLike[str], *, display_name: str | None = None) -> Sitting:
    """Read and check a sitting file (YAML, JSON, or JSON Lines for ``.jsonl``)."""
    name = display_name if display_name is not None else os.fspath(path)
    if name.lower().endswith(".jsonl") or os.fspath(path).lower().endswith(".jsonl"):
        return parse_sitting(load_json_lines(path, name))
    return parse_sitting(load_file(path, display_name=display_name))


def load_json_lines(path: str | os.PathLike[str], name: str) -> Document:
    """A ``.jsonl`` sitting: the first line the sitting without ``hands``, each later line
    one hand (blank lines are skipped).  Each line is strict JSON; errors name its line."""
    limit = current_limits().max_bytes
    try:
        with open(path, "rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", file=name) from None
    return json_lines_document(raw, name)


def json_lines_document(raw: bytes, name: str) -> Document:
    """A JSON Lines sitting from its bytes (a file, or standard input) as one document, whose
    lines are those of the file: line *k* holds ``hands[k-2]`` (blank lines aside)."""
    limits = current_limits()
    if len(raw) > limits.max_bytes:
        raise InputError(f"file is too large (more than {limits.max_bytes} bytes)", file=name)
    try:
        items = list(jsonl_items(io.BytesIO(raw), name, limits))
    except InputError as err:
        raise err.located(file=name) from None
    if not items:
        raise InputError("the file is empty; a JSON Lines sitting has the sitting on its first "
                         "line and one hand on each line after it", file=name)
    head, *hands = [precise_document(JsonItem(item.text, item.line, () if i == 0 else ("hands", i - 1)),
                                     name, limits) for i, item in enumerate(items)]
    if not isinstance(head.data, dict) or "hands" in head.data:
        raise InputError("the first line of a JSON Lines sitting is the sitting itself, a mapping "
                         "without hands: (each later line is one hand)", file=name, line=items[0].line)
    data = {**head.data, "hands": [doc.data for doc in hands]}
    lines = absolute_lines(head)
    children = dict(lines.children) if isinstance(lines.children, dict) else {}
    children["hands"] = _Lines(lines.line, [absolute_lines(doc) for doc in hands])
    return Document(name, data, _Lines(lines.line, children))


def looks_like_sitting(data: Any) -> bool:
    """A sitting file: a mapping with ``hands:`` as a list (a deal's ``hands`` is a mapping)."""
    return isinstance(data, dict) and isinstance(data.get("hands"), list)


def parse_sitting(doc: Document) -> Sitting:
    """Schema-check a loaded sitting file, then check and build it."""
    if doc.data is None:
        raise InputError("the file is empty; a sitting file needs at least hands:", file=doc.file)
    check(doc, "sitting")
    data = doc.data
    r = _Reader(doc)
    players, seats = r.players(data.get("players"))
    seat_draw = r.draw(data["seat_draw"], players, ("seat_draw",)) if "seat_draw" in data else None
    if seat_draw is not None and seats is not None:
        r.fail("give the players by seat or a seat_draw, not both (a draw decides the seats)",
               "seat_draw")
    fb = data.get("first_banker", {})
    if len(fb) > 1:
        r.fail(f"first_banker: give the first 椿 one way — seat, player or draw — not "
               f"{' and '.join(fb)}", "first_banker")
    fb_seat = SEAT_ALIASES[fb["seat"]] if "seat" in fb else None  # the schema allows only seat names
    fb_player = fb.get("player")
    if fb_player is not None and fb_player not in players:
        r.fail(f"first_banker.player {fb_player!r} is not one of the players "
               f"({', '.join(players)})", "first_banker", "player")
    fb_draw = r.draw(fb["draw"], players, ("first_banker", "draw")) if "draw" in fb else None
    stakes = r.stakes(data["stakes"]) if "stakes" in data else None
    hands = tuple(r.hand(i, h, stakes) for i, h in enumerate(data["hands"]))
    return Sitting(
        file=doc.file, doc=doc, players=players, seats=seats, seat_draw=seat_draw,
        first_banker_seat=fb_seat, first_banker_player=fb_player, first_banker_draw=fb_draw,
        played_under=data.get("played_under"), seed=str(data.get("seed", DEFAULT_SEED)),
        stakes=stakes, guan_dui=int(data.get("guan_dui", 0)), hands=hands,
        title=data.get("title"), source=data.get("source"), notes=data.get("notes"),
    )


class _Reader:
    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.ids: dict[str, int] = {}

    def fail(self, message: str, *path: str | int) -> Any:
        raise InputError(message, file=self.doc.file, line=self.doc.line_of(path),
                         place=format_path(path))

    def players(self, node: Any) -> tuple[tuple[str, ...], dict[str, Seat] | None]:
        if node is None:
            return DEFAULT_PLAYERS, dict(zip(DEFAULT_PLAYERS, SEATS, strict=True))
        if isinstance(node, dict):
            names = tuple(node[s.id] for s in SEATS)
            seats = {node[s.id]: s for s in SEATS}
            keys: Sequence[str | int] = [s.id for s in SEATS]
        else:
            names, seats, keys = tuple(node), None, range(4)
        seen: dict[str, str | int] = {}
        for key, name in zip(keys, names, strict=True):
            if name in seen:
                self.fail(f"player {name!r} is named twice (also at players.{seen[name]}); "
                          "four different players sit at the table", "players", key)
            seen[name] = key
        return names, seats

    def draw(self, node: Mapping[str, str], players: Sequence[str], path: KeyPath) -> dict[str, Card]:
        """Each player's drawn card: exactly the players, four different cards."""
        out: dict[str, Card] = {}
        where: dict[Card, str] = {}
        for name, text in node.items():
            if name not in players:
                self.fail(f"{name!r} is not one of the players ({', '.join(players)})", *path, name)
            try:
                card = parse_card(text)
            except InputError as err:
                self.fail(err.message, *path, name)
            if card in where:
                self.fail(f"{CARD_HANZI[card]} was drawn twice ({where[card]} and {name}); a draw "
                          "gives four different cards", *path, name)
            where[card] = name
            out[name] = card
        missing = [p for p in players if p not in out]
        if missing:
            self.fail(f"the draw has no card for {', '.join(missing)}", *path)
        return out

    def stakes(self, node: Mapping[str, Any]) -> Stakes:
        floor, cap = Fraction(str(node["floor"])), Fraction(str(node["cap"]))
        if cap < floor:
            self.fail(f"the stake cap {node['cap']} is below the floor {node['floor']} "
                      "(公議若干起若干止: the cap is at least the floor)", "stakes", "cap")
        return Stakes(floor, cap, node.get("unit", "注"))

    def hand(self, i: int, node: Mapping[str, Any], stakes: Stakes | None) -> SittingHand:
        number = i + 1
        base: KeyPath = ("hands", i)
        hand_id = node.get("id", f"h{number}")
        label = f"hand {number} ({hand_id})"
        if hand_id in self.ids:
            self.fail(f"{label}: duplicate hand id {hand_id!r} (first: hand {self.ids[hand_id]})",
                      *base, "id")
        self.ids[hand_id] = number
        recorded = SEAT_ALIASES[node["banker"]] if "banker" in node else None  # a seat name (schema)
        data = dict(node)
        data["id"] = hand_id
        data["banker"] = (recorded or Seat.EAST).id
        code = node.get("code")
        if code is not None:
            if "hands" in node or "stock" in node:
                self.fail(f"{label}: give the deal by code or by hands and stock, not both", *base, "code")
            try:
                decoded = dealcode.decode(code)
            except InputError as err:
                self.fail(f"{label}: {err.message}", *base, "code")
            data["hands"] = {s.id: [CARD_HANZI[c] for c in decoded.hands[s]] for s in SEATS}
            data["stock"] = [CARD_HANZI[c] for c in decoded.stock]
        elif "hands" not in node or "stock" not in node:
            missing = " and ".join(k for k in ("hands", "stock") if k not in node)
            self.fail(f"{label}: the hand has no {missing}; give the deal's hands and stock, or "
                      "its code", *base)
        deal = read_deal(self.doc, base, data, label=label)
        stake = stakes.floor if stakes else Fraction(1)
        if "stake" in node:
            stake = Fraction(str(node["stake"]))
            if stakes is None:
                self.fail(f"{label}: a hand's stake needs the sitting's agreed stakes: "
                          "(floor and cap)", *base, "stake")
            if stake < stakes.floor:
                self.fail(f"{label}: the stake {node['stake']} is below the agreed floor "
                          f"{node_number(stakes.floor)}", *base, "stake")
        return SittingHand(number, deal, recorded, stake, code)


def node_number(value: Fraction) -> int | float:
    """A stake as a plain number for messages and reports (3, not 3/1; 1.5, not 3/2)."""
    return int(value) if value.denominator == 1 else float(value)
