"""Read, write and randomly deal 馬吊 deal files (YAML or JSON).

A deal file holds one deal, or ``{deals: [...]}`` (``schemas/deal.schema.json``).
After the schema check each deal is checked for meaning: every card name
parses, the hands and stock make exactly the 40-card deck, and a recorded play
is consistent with the hands.  Every problem is an :class:`InputError` with the
file, the line, the key path and the deal id.

>>> from mahdiao_rules.io.yamlsafe import load_text
>>> deal = random_deals("doc", 1)[0]
>>> parse_deals(load_text(dump_deals([deal]), "doc.yaml")) == [deal]
True
"""

from __future__ import annotations

import io
import json
import os
import random
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NoReturn

import yaml

from ..cards import CARDS, Card, beats, card_name, parse_card
from ..deal import NO_CAPTURE_EVENTS, SEAT_ALIASES, SEATS, Deal, Event, RecordedTrick, Seat, barred_seats
from ..errors import InputError
from .fastcheck import deal_ok
from .jsonstream import (
    JsonItem,
    Prefixed,
    absolute_lines,
    collection_items,
    flat_document,
    jsonl_items,
    jsonl_kind,
    looks_like_json,
    parse_item,
    precise_document,
)
from .schemacheck import check
from .textcheck import control_problem
from .yamlsafe import (
    Document,
    Limits,
    NotAMapping,
    _Lines,
    format_path,
    load_file,
    load_text,
    resolve_limits,
    stream_mapping,
)

__all__ = [
    "DealWriter",
    "body_text",
    "deal_to_data",
    "deals_format",
    "dump_deals",
    "iter_deal_stream",
    "iter_deals",
    "iter_random_deals",
    "load_deals",
    "parse_deals",
    "random_deal",
    "random_deals",
    "read_deal",
    "trick_winner",
]

KeyPath = tuple[str | int, ...]  # keys and list indexes from the document root
HAND_SIZE = 8
STOCK_SIZE = 8
TRICK_SIZE = 4
N_TRICKS = 8

# --------------------------------------------------------------------------- reading


def load_deals(path: str | os.PathLike[str], *, display_name: str | None = None) -> list[Deal]:
    """Read and check every deal of a YAML, JSON or JSON Lines deal file."""
    return list(iter_deals(path, display_name=display_name))


SMALL_FILE = 1 << 16
"""Deal files up to this size are read whole (the limits apply to the file); bigger ones
deal by deal (the limits apply to each deal), in constant memory."""


def deals_format(name: str) -> str:
    """The deal-file format a file name asks for: ``jsonl``, ``json`` or ``yaml``."""
    lower = name.lower()
    if lower.endswith(".jsonl"):
        return "jsonl"
    return "json" if lower.endswith(".json") else "yaml"


class _NoList(Exception):
    """A streamed file turned out not to hold a ``deals:`` list: read it whole."""


def iter_deals(path: str | os.PathLike[str], *, display_name: str | None = None,
               limits: Limits | None = None) -> Iterator[Deal]:
    """The deals of a deal file, read and checked one at a time (a generator).

    A JSON Lines file (``.jsonl``) is read line by line, and a YAML or JSON file bigger
    than :data:`SMALL_FILE` deal by deal from its ``deals:`` list, so memory does not grow
    with the number of deals (except for the ids seen, to refuse a repeated one).
    """
    name = display_name if display_name is not None else os.fspath(path)
    fmt = deals_format(os.fspath(path))
    try:
        size = os.stat(path).st_size if os.path.isfile(path) else -1
    except OSError:
        size = -1
    if size < 0 or (fmt != "jsonl" and size <= SMALL_FILE):
        # Small files, and anything that is not a regular file (the reader words its errors).
        yield from parse_deals(load_file(path, display_name=name, limits=limits))
        return
    try:
        limits = resolve_limits(limits)
    except InputError as exc:
        raise exc.located(file=name) from None
    try:
        with open(path, "rb") as raw:
            if fmt == "jsonl":
                yield from _jsonl_deals(raw, name, limits)
                return
            prefix = raw.read(SMALL_FILE)
            entries: Iterable[Document | JsonItem] = (
                collection_items(raw, name, "deals", limits, prefix) if fmt == "json" else
                stream_mapping(raw, name, list_key="deals", prefix=prefix, limits=limits))
            yield from _collection_deals(entries, name, limits)
            return
    except (NotAMapping, _NoList):
        pass
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", file=name) from None
    yield from parse_deals(load_file(path, display_name=name, limits=limits))


def iter_deal_stream(raw: Any, name: str, *, limits: Limits | None = None) -> Iterator[Deal]:
    """The deals of an open binary stream (standard input), one at a time: JSON Lines, read
    line by line, when its first line is one JSON object (a deal or a header,
    :func:`~.jsonstream.jsonl_kind`); otherwise one YAML or JSON deal file, read whole
    within the limits."""
    try:
        limits = resolve_limits(limits)
    except InputError as exc:
        raise exc.located(file=name) from None
    first = raw.readline(limits.max_bytes + 2)
    if jsonl_kind(first) is not None:  # a sitting's first line, too: the deal reader words why not
        yield from _jsonl_deals(Prefixed(first, raw), name, limits)
        return
    text = first + raw.read(max(0, limits.max_bytes + 1 - len(first)))
    yield from parse_deals(load_text(text, name, limits=limits, is_json=looks_like_json(text)))


def _is_header(data: Any) -> bool:
    return isinstance(data, dict) and "kind" in data and "id" not in data


def _jsonl_deals(raw: Any, name: str, limits: Limits) -> Iterator[Deal]:
    """One deal per line; a line ``{"kind": "deals", …}`` is a header (provenance) and is checked only."""
    seen: dict[str, int] = {}
    for item in jsonl_items(raw, name, limits):
        data = parse_item(item, limits)
        deal = None if _is_header(data) else _fast_deal(item, name, data)
        if deal is None:
            doc = precise_document(item, name, limits)
            if _is_header(doc.data):
                check(doc, "deals-header")
                continue
            if not isinstance(doc.data, dict):
                raise InputError(f"each line holds one deal, a JSON object; this is {_kind(doc.data)}",
                                 file=name, line=item.line)
            check(doc, "deal", "deal")
            deal = _read_deal(doc, (), doc.data)
        _unique(deal, seen, name, item.line, ())
        yield deal


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    return "text" if isinstance(value, str) else "a single value"


def _fast_deal(item: JsonItem, name: str, data: Any) -> Deal | None:
    """The deal of an ordinary, valid value without jsonschema; None to take the careful way."""
    if data is None or not deal_ok(data):
        return None
    try:
        return _read_deal(flat_document(item, name, data), item.base, data)
    except InputError:
        return None  # read again with a line for every node, to name the exact line


def _collection_deals(entries: Iterable[Document | JsonItem], name: str, limits: Limits) -> Iterator[Deal]:
    """The deals of a streamed ``deals:`` collection; the other top-level entries are its header."""
    header: dict[str, Document] = {}
    in_list = False
    seen: dict[str, int] = {}
    for entry in entries:
        if len(entry.base) == 1:
            doc = entry if isinstance(entry, Document) else precise_document(entry, name, limits)
            header[str(entry.base[0])] = doc
            if in_list:
                _check_header(header, name)
            continue
        if not in_list:
            in_list = True
            _check_header(header, name)
        if isinstance(entry, JsonItem):
            deal = _fast_deal(entry, name, parse_item(entry, limits))
            line = entry.line
            if deal is None:
                entry = precise_document(entry, name, limits)
        else:
            deal, line = None, entry.line_of(entry.base) or 0
        if deal is None:
            if not deal_ok(entry.data):
                check(entry, "deal", "deal")
            deal = _read_deal(entry, entry.base, entry.data)
        _unique(deal, seen, name, line, (*entry.base, "id"))
        yield deal
    if not in_list:
        raise _NoList


def _check_header(header: dict[str, Document], name: str) -> None:
    """The top-level keys beside ``deals:`` (title, source, notes, stamp), checked by the schema."""
    data = {key: doc.data for key, doc in header.items()}
    lines = _Lines(1, {key: absolute_lines(doc) for key, doc in header.items()})
    check(Document(name, data, lines), "deal", "deal_collection", without=("deals",))


def _unique(deal: Deal, seen: dict[str, int], name: str, line: int, path: KeyPath) -> None:
    first = seen.get(deal.id)
    if first is not None:
        raise InputError(f"duplicate deal id {deal.id!r} (first at line {first})", file=name, line=line,
                         place=format_path(path) if path else "id")
    seen[deal.id] = line


def parse_deals(doc: Document) -> list[Deal]:
    """Schema-check a loaded deal file, then check and build each deal."""
    if doc.data is None:
        raise InputError("the file is empty; a deal file holds one deal or a deals: list",
                         file=doc.file)
    check(doc, "deal")
    data = doc.data
    if "deals" not in data:
        return [_read_deal(doc, (), data)]
    deals: list[Deal] = []
    first_index: dict[str, int] = {}
    for i, item in enumerate(data["deals"]):
        deal_id = item["id"]
        if deal_id in first_index:
            first = ("deals", first_index[deal_id], "id")
            line = doc.line_of(first)
            where = f"line {line}" if line is not None else format_path(first)
            path = ("deals", i, "id")
            raise InputError(f"duplicate deal id {deal_id!r} (first at {where})", file=doc.file,
                             line=doc.line_of(path), place=format_path(path))
        first_index[deal_id] = i
        deals.append(_read_deal(doc, ("deals", i), item))
    return deals


class _DealReader:
    """Reads values of one deal; every failure names the deal and its place in the file."""

    def __init__(self, doc: Document, base: KeyPath, deal_id: str, label: str | None = None) -> None:
        self.doc = doc
        self.base = base
        self.deal_id = deal_id
        self.label = label or f"deal {deal_id!r}"

    def fail(self, message: str, *rel: str | int) -> NoReturn:
        path = self.base + rel
        raise InputError(f"{self.label}: {message}", file=self.doc.file,
                         line=self.doc.line_of(path), place=format_path(path))

    def card(self, text: str, *rel: str | int) -> Card:
        try:
            return parse_card(text)
        except InputError as err:
            message = err.message  # re-raised below, outside the handler, with the location
        self.fail(message, *rel)

    def seat(self, text: str, *rel: str | int) -> Seat:
        seat = SEAT_ALIASES.get(text) if isinstance(text, str) else None
        if seat is None:
            self.fail(f"unknown seat {text!r} (use east, south, west, north or 東 南 西 北)", *rel)
        return seat

    def cards(self, names: Sequence[str], size: int, what: str, *rel: str | int) -> tuple[Card, ...]:
        cards = tuple(self.card(name, *rel, k) for k, name in enumerate(names))
        if len(cards) != size:
            self.fail(f"{what} has {len(cards)} cards; it needs {size}", *rel)
        return cards


def read_deal(doc: Document, base: KeyPath, data: Mapping[str, Any], *, label: str | None = None
              ) -> Deal:
    """One deal at key path *base* of a schema-checked document (``data`` is the node there).

    Every problem names the file, the line and *label* (default ``deal 'ID'``); a sitting
    file reads its hands with this, labelled by hand number.
    """
    return _read_deal(doc, base, data, label)


def _read_deal(doc: Document, base: KeyPath, data: Mapping[str, Any], label: str | None = None) -> Deal:
    r = _DealReader(doc, base, data["id"], label)
    banker = r.seat(data["banker"], "banker")
    hands = tuple(r.cards(data["hands"][s.id], HAND_SIZE, f"hands.{s.id}", "hands", s.id) for s in SEATS)
    stock = r.cards(data["stock"], STOCK_SIZE, "stock", "stock")
    _check_deck(r, hands, stock)
    raw_events = data.get("events", ())
    play = _read_play(r, data["play"], hands, _no_capture(r, raw_events)) if "play" in data else None
    events = tuple(_read_event(r, i, e, play) for i, e in enumerate(raw_events))
    parts = [("play",)] + [("events", i) for i in range(len(events))]
    lines = {format_path(rel): line for rel in parts
             if (line := doc.line_of((*base, *rel))) is not None}
    return Deal(
        id=data["id"], banker=banker, hands=hands, stock=stock, play=play,  # type: ignore[arg-type]
        events=events, title=data.get("title"), source=data.get("source"),
        guan_dui=data.get("guan_dui", 0), notes=data.get("notes"), origin=doc.file,
        place=format_path(base) if base else "", lines=lines,
    )


def _check_deck(r: _DealReader, hands: Sequence[Sequence[Card]], stock: Sequence[Card]) -> None:
    """The 40 slots must hold the 40 cards: name the first duplicate and the cards it displaces."""
    slots: list[tuple[KeyPath, Card]] = [
        (("hands", s.id, k), c) for s in SEATS for k, c in enumerate(hands[s])]
    slots += [(("stock", k), c) for k, c in enumerate(stock)]
    missing = sorted(set(Card) - {c for _, c in slots})
    first: dict[Card, KeyPath] = {}
    for rel, card in slots:
        if card in first:
            lost = ", ".join(card_name(c) for c in missing)
            r.fail(f"{card} appears twice: {format_path(first[card])} and {format_path(rel)} "
                   f"(cards missing: {lost})", *rel)
        first[card] = rel


def trick_winner(lead: Seat, cards: Sequence[int], barred: int = 0) -> Seat:
    """The seat whose card wins: the strongest card of the led suit (no trumps); a seat in
    *barred* (多張/少張) may not capture, see :func:`mahdiao_rules.play.tricks.play_trick`."""
    if barred and barred & 0b1111 != 0b1111:
        open_pos = [k for k in range(len(cards)) if not barred >> lead.after(k) & 1]
        best = open_pos[0]
        for k in open_pos[1:]:
            if beats(cards[k], cards[best]):
                best = k
        return lead.after(best)
    best = 0
    for k in range(1, len(cards)):
        if beats(cards[k], cards[best]):
            best = k
    return lead.after(best)


def _no_capture(r: _DealReader, raw_events: Sequence[Mapping[str, Any]]) -> list[Event]:
    """The 多張/少張 events, read before the play because they change who won a trick."""
    out = []
    for i, e in enumerate(raw_events):
        if e["type"] in NO_CAPTURE_EVENTS:
            trick = e.get("trick")
            out.append(Event(e["type"], r.seat(e["seat"], "events", i, "seat"),
                             int(trick) if trick is not None else None))
    return out


def _read_play(r: _DealReader, tricks: Sequence[Mapping[str, Any]],
               hands: Sequence[Sequence[Card]], no_capture: Sequence[Event] = ()
               ) -> tuple[RecordedTrick, ...]:
    """Check that each card comes from its player's hand once, and the winner leads next
    (a seat with a 多張/少張 event does not win from that event's trick on)."""

    holder = {card: seat for seat in SEATS for card in hands[seat]}
    played: dict[Card, int] = {}
    winner: Seat | None = None
    out: list[RecordedTrick] = []
    barred = 0
    for i, trick in enumerate(tricks):
        n = i + 1
        lead = r.seat(trick["lead"], "play", i, "lead")
        if winner is not None and lead != winner:
            why = " (a seat that may not capture, 多張/少張, does not win)" if barred else ""
            r.fail(f"trick {n} must be led by {winner}, who won trick {n - 1}{why}", "play", i, "lead")
        cards = r.cards(trick["cards"], TRICK_SIZE, f"trick {n}", "play", i, "cards")
        for k, card in enumerate(cards):
            seat = lead.after(k)
            if card in played:
                r.fail(f"trick {n}: {card} already played in trick {played[card]}", "play", i, "cards", k)
            owner = holder.get(card)
            if owner != seat:
                whose = f"{owner} holds it" if owner is not None else "it lies in the stock"
                r.fail(f"trick {n}: {card} was played by {seat} but {seat} does not hold it ({whose})",
                       "play", i, "cards", k)
            played[card] = n
        barred = barred_seats(list(no_capture), n)
        winner = trick_winner(lead, cards, barred)
        out.append(RecordedTrick(lead, cards))  # type: ignore[arg-type]
    return tuple(out)


def _read_event(r: _DealReader, i: int, data: Mapping[str, Any],
                play: Sequence[RecordedTrick] | None) -> Event:
    rel = ("events", i)
    seat = r.seat(data["seat"], *rel, "seat")
    trick = data.get("trick")  # an int: the reader gives whole numbers (4.0) as ints
    n_tricks = N_TRICKS if play is None else len(play)
    if trick is not None and not 1 <= trick <= n_tricks:
        why = "" if play is None else f" (the recorded play has {n_tricks} tricks)"
        r.fail(f"event {i + 1} ({data['type']}): trick {trick} is outside 1..{n_tricks}{why}", *rel, "trick")
    card = r.card(data["card"], *rel, "card") if "card" in data else None
    victim = r.seat(data["victim"], *rel, "victim") if "victim" in data else None
    affected = bool(data.get("affected", False))
    if affected and trick is None:
        r.fail(f"event {i + 1} ({data['type']}): affected: true needs trick: (the trick whose "
               "winner the fault let through)", *rel, "affected")
    return Event(type=data["type"], seat=seat, trick=trick, card=card, victim=victim,
                 note=data.get("note"), affected=affected)


# --------------------------------------------------------------------------- writing


def deal_to_data(deal: Deal) -> dict[str, Any]:
    """Plain data in the deal-file format: hanzi card names, seat ids, optional keys only when set."""
    data: dict[str, Any] = {"id": deal.id}
    if deal.title is not None:
        data["title"] = deal.title
    if deal.source is not None:
        data["source"] = deal.source
    data["banker"] = deal.banker.id
    data["hands"] = {s.id: _names(deal.hands[s]) for s in SEATS}
    data["stock"] = _names(deal.stock)
    if deal.guan_dui:
        data["guan_dui"] = deal.guan_dui
    if deal.play:
        data["play"] = [{"lead": t.lead.id, "cards": _names(t.cards)} for t in deal.play]
    if deal.events:
        data["events"] = [_event_data(e) for e in deal.events]
    if deal.notes is not None:
        data["notes"] = deal.notes
    return data


def _names(cards: Sequence[int]) -> list[str]:
    return [card_name(c) for c in cards]


def _event_data(event: Event) -> dict[str, Any]:
    data: dict[str, Any] = {"type": event.type, "seat": event.seat.id}
    if event.trick is not None:
        data["trick"] = event.trick
    if event.card is not None:
        data["card"] = card_name(event.card)
    if event.victim is not None:
        data["victim"] = event.victim.id
    if event.note is not None:
        data["note"] = event.note
    if event.affected:
        data["affected"] = True
    return data


def dump_deals(deals: Iterable[Deal], *, fmt: str = "yaml", title: str | None = None,
               stamp: dict[str, Any] | None = None, progress: Callable[[int], None] | None = None) -> str:
    """A deal file (YAML or JSON ``deals:``, or JSON Lines) that :func:`load_deals` reads back
    to equal deals.  *progress*, when given, is called with 1 after each deal is written."""
    buf = io.StringIO()
    writer = DealWriter(buf, fmt, title=title, stamp=stamp)
    writer.write(deals, progress=progress)
    writer.close()
    return buf.getvalue()


class DealWriter:
    """Write a deal file to a text stream one deal (or one chunk of deals) at a time.

    ``yaml`` and ``json`` write a ``deals:`` collection with *title* and *stamp* at the top;
    ``jsonl`` writes one deal per line after a header line ``{"kind": "deals", …}`` (when
    there is a title or stamp).  The text equals what one call with every deal would write.
    """

    def __init__(self, fh: Any, fmt: str, *, title: str | None = None,
                 stamp: dict[str, Any] | None = None) -> None:
        if fmt not in ("yaml", "json", "jsonl"):
            raise ValueError(f"unknown deal file format {fmt!r} (use yaml, json or jsonl)")
        self.fh, self.fmt, self.first = fh, fmt, True
        header: dict[str, Any] = {"title": title} if title is not None else {}
        _check_texts(header, [])
        if stamp is not None:
            header["stamp"] = stamp
        if fmt == "jsonl":
            if header:
                from .stamp import SCHEMA_VERSION

                fh.write(_jsonl({"kind": "deals", "schema_version": SCHEMA_VERSION, **header}))
        elif fmt == "yaml":
            # One deal per block with a blank line between them, so a long file stays scannable.
            fh.write((_yaml(header) if header else "") + "deals:\n")
        else:
            fh.write("{\n" + "".join(f"  {_json(k)}: {_json(v, 1)},\n" for k, v in header.items())
                     + '  "deals": [\n')

    def write(self, deals: Iterable[Deal], progress: Callable[[int], None] | None = None) -> None:
        """Write *deals* (any iterable: it is consumed one deal at a time); *progress*, when
        given, is called with 1 after each deal (a progress bar)."""
        for deal in deals:
            self.write_body(body_text([deal], self.fmt))
            if progress is not None:
                progress(1)

    def write_body(self, body: str) -> None:
        """Write deals already rendered by :func:`body_text` (in a worker process, say)."""
        if not body:
            return
        if not self.first and self.fmt != "jsonl":
            self.fh.write("\n" if self.fmt == "yaml" else ",\n")
        self.fh.write(body)
        self.first = False

    def close(self) -> None:
        if self.fmt == "json":
            self.fh.write(("" if self.first else "\n") + "  ]\n}\n")


def body_text(deals: Iterable[Deal], fmt: str) -> str:
    """Deals as the body of a deal file in *fmt*, without its header (see DealWriter)."""
    items = [deal_to_data(d) for d in deals]
    _check_texts({}, items)
    if fmt == "jsonl":
        return "".join(_jsonl(item) for item in items)
    if fmt == "json":
        return ",\n".join("    " + _json(item, 2) for item in items)
    return "\n".join(_yaml([item]) for item in items)


def _jsonl(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", text) + "\n"


def _check_texts(header: dict[str, Any], items: Sequence[dict[str, Any]]) -> None:
    """The reader refuses control characters in any text (io/textcheck.py); a file the tool
    writes must read back, so such text is refused here, naming the deal and the field."""
    stack: list[tuple[str, Any]] = [("title", header.get("title"))]
    stack += [(f"deal {item.get('id')!r}", item) for item in items]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            problem = control_problem(value)
            if problem is not None:
                raise InputError(f"{where}: {problem}; it could not be read back")
        elif isinstance(value, dict):
            stack += [(f"{where}: {k}", v) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(where, v) for v in value]


# Characters a YAML reader refuses raw or folds as line breaks (even inside a JSON string),
# so they must be written as escapes.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


class _Dumper(yaml.SafeDumper):
    """Card lists and tricks in flow style (one line each); never anchors."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) or value is None


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    style = '"' if _YAML_UNSAFE.search(data) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


def _represent_list(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=all(map(_is_scalar, data)))


def _represent_dict(dumper: yaml.SafeDumper, data: dict[str, Any]) -> yaml.Node:
    return dumper.represent_mapping("tag:yaml.org,2002:map", data, flow_style="lead" in data)


# PyYAML's resolvers follow YAML 1.1, yamlsafe reads YAML 1.2 ("0E0" and ".5" are numbers there,
# "yes" is text): quote any text that either reading could take for a number, a boolean or null.
_Dumper.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"[-+]?\.?[0-9]|[-+]?\.(?:inf|nan)\Z|(?:true|false|yes|no|on|off|y|n|null|~)\Z", re.I),
    None,
)
_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(list, _represent_list)
_Dumper.add_representer(dict, _represent_dict)


def _yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=120,
                     default_flow_style=False)


def _json(value: Any, depth: int = 0) -> str:
    """Indented JSON, except that card lists and tricks stay on one line."""
    flat = (isinstance(value, list) and all(map(_is_scalar, value))) or (
        isinstance(value, dict) and "lead" in value)
    if flat or not isinstance(value, (list, dict)) or not value:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
        return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)
    pad = "  " * (depth + 1)
    if isinstance(value, dict):
        lines = [f"{pad}{_json(k)}: {_json(v, depth + 1)}" for k, v in value.items()]
        open_, close = "{", "}"
    else:
        lines = [pad + _json(v, depth + 1) for v in value]
        open_, close = "[", "]"
    return open_ + "\n" + ",\n".join(lines) + "\n" + "  " * depth + close


# --------------------------------------------------------------------------- random deals


def dealt(rng: random.Random, banker: int | None = None
          ) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], int]:
    """Shuffle the 40 cards: 8 to each hand (sorted, strongest first), the last 8 as the
    stock; then the banker, drawn when not given.  Plain ints (simulation needs no Deal)."""
    cards = list(range(len(CARDS)))
    rng.shuffle(cards)
    hands = tuple(tuple(sorted(cards[HAND_SIZE * s:HAND_SIZE * (s + 1)])) for s in SEATS)
    stock = tuple(cards[HAND_SIZE * len(SEATS):])
    if banker is None:
        banker = rng.randrange(len(SEATS))
    return hands, stock, banker


def random_deal(rng: random.Random, deal_id: str, banker: Seat | None = None) -> Deal:
    """A :func:`dealt` deal as a :class:`Deal`."""
    hands, stock, seat = dealt(rng, banker)
    return Deal(id=deal_id, banker=Seat(seat), hands=tuple(tuple(CARDS[c] for c in h) for h in hands),
                stock=tuple(CARDS[c] for c in stock))  # type: ignore[arg-type]


def deal_seed(seed: str | int, i: int) -> str:
    """The string deal *i* (from 0) of *seed* is shuffled from: :func:`random_deals` and the
    simulation's fast path (which deals without a :class:`Deal`) must agree on it."""
    return f"{seed}/{i}"


def deal_id(seed: str | int, i: int) -> str:
    """The id of deal *i* (from 0) of *seed*; deals are numbered from 1."""
    return f"{seed}-{i + 1}"


def iter_random_deals(seed: str | int, count: int, *, start: int = 0) -> Iterator[Deal]:
    """:func:`random_deals` one at a time, for writing any number of them in constant memory."""
    for i in range(start, start + count):
        yield random_deal(random.Random(deal_seed(seed, i)), deal_id(seed, i))


def random_deals(seed: str | int, count: int, *, start: int = 0) -> list[Deal]:
    """Deals ``start … start+count-1`` of a seed; deal i depends only on (seed, i).

    Seeding with the string ``f"{seed}/{i}"`` hashes it with SHA-512, so the deals do not
    depend on PYTHONHASHSEED, the worker count or how the range is split.
    """
    return list(iter_random_deals(seed, count, start=start))
