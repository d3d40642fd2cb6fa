"""Read big JSON input a value at a time: JSON Lines, and the list of a JSON collection.

Both yield :class:`JsonItem` — the JSON text of one value with the line it starts on and
its key path in the file — and keep only that value in memory, so a file of any size is
read in constant memory.  Turning a value into data is the caller's job
(:func:`parse_item`): a fast path with the ``json`` module for ordinary values, and the
safe reader (:mod:`.yamlsafe`, with a line for every node) for anything unusual and for
every value that turns out to be wrong, so that an error names its exact line.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from ..errors import InputError
from .yamlsafe import (
    ENV_VARS,
    Document,
    Limits,
    NotAMapping,
    _Lines,
    check_encoding,
    format_path,
    load_text,
    not_utf8,
    too_big,
)

__all__ = ["JsonItem", "Prefixed", "absolute_lines", "collection_items", "jsonl_items", "jsonl_kind",
           "looks_like_json", "parse_item", "precise_document"]

CHUNK = 1 << 16


@dataclass(frozen=True)
class JsonItem:
    """One JSON value of a bigger file."""

    text: str
    line: int
    """The line (1-based) where the value starts."""
    base: tuple[str | int, ...]
    """Its key path from the file's root: ``("deals", 7)`` in a collection, ``()`` for a line."""


# --------------------------------------------------------------------------- JSON Lines

UTF8_BOM = b"\xef\xbb\xbf"


def jsonl_kind(first_line: bytes) -> str | None:
    """What the first line of a text says it is, for input without a telling name (standard
    input, a ``.jsonl`` file): ``"deals"`` — JSON Lines deals, a deal (``hands`` a mapping)
    or a header (``kind``) on it; ``"sitting"`` — a sitting in JSON Lines, the sitting
    itself (a JSON object with neither) on it; None — not JSON Lines: one whole YAML or
    JSON document (a line that is not a JSON object, or a whole deal file ``{"deals": …}``
    or sitting ``{"hands": [...]}`` on one line)."""
    try:
        head = json.loads(first_line.removeprefix(UTF8_BOM).decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(head, dict) or "deals" in head or isinstance(head.get("hands"), list):
        return None
    return "deals" if "hands" in head or "kind" in head else "sitting"


def looks_like_json(text: bytes) -> bool:
    """Whether a whole document without a name is JSON: a deal or sitting file is a mapping,
    so its first character tells (JSON is then read strictly, YAML otherwise)."""
    return text.lstrip(UTF8_BOM + b" \t\r\n")[:1] == b"{"


class Prefixed:
    """A binary stream whose first line was already read (to tell its format): reading
    starts again with that line."""

    def __init__(self, first: bytes, raw: Any) -> None:
        self.first, self.raw = first, raw

    def readline(self, size: int = -1) -> bytes:
        if self.first:
            line, self.first = self.first, b""
            return line
        return self.raw.readline(size)


def jsonl_items(raw: BinaryIO, file: str, limits: Limits) -> Iterator[JsonItem]:
    """Every non-blank line of a JSON Lines stream, one at a time (a line at most max_bytes)."""
    number = 0
    first = True
    while True:
        line = raw.readline(limits.max_bytes + 2)
        if not line:
            return
        number += 1
        if first:
            check_encoding(line)
            line = line.removeprefix(UTF8_BOM)
            first = False
        if len(line) > limits.max_bytes + 1 or (len(line) > limits.max_bytes and not line.endswith(b"\n")):
            raise InputError(too_big("the line", limits), file=file, line=number)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise not_utf8(line, exc, number).located(file=file) from None
        text = text.strip()
        if text:
            yield JsonItem(text, number, ())


# --------------------------------------------------------------------------- JSON collections


class _Scanner:
    """A JSON text read in chunks; values are cut out with ``json``'s own decoder."""

    _WS = re.compile(r"[ \t\n\r]*")

    def __init__(self, raw: BinaryIO, prefix: bytes, file: str, limits: Limits) -> None:
        self.raw = raw
        self.file = file
        self.limits = limits
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.buf = ""
        self.pos = 0
        self.line = 1  # the line of buf[pos]
        self.eof = False
        self.json = json.JSONDecoder()
        head = prefix or raw.read(CHUNK)
        check_encoding(head)
        self._feed(head.removeprefix(b"\xef\xbb\xbf") if head.startswith(b"\xef\xbb\xbf") else head)

    def _feed(self, data: bytes) -> None:
        try:
            text = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            line = self.line + self.buf.count("\n", self.pos)
            raise not_utf8(data, exc, line).located(file=self.file) from None
        if not data:
            self.eof = True
        self.buf = self.buf[self.pos:] + text
        self.pos = 0

    def more(self) -> bool:
        if self.eof:
            return False
        self._feed(self.raw.read(CHUNK))
        return True

    def ws(self) -> str:
        """Skip white space; the next character, or "" at the end."""
        while True:
            end = self._WS.match(self.buf, self.pos).end()
            self.line += self.buf.count("\n", self.pos, end)
            self.pos = end
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def error(self, message: str, line: int | None = None) -> InputError:
        return InputError(f"JSON syntax error: {message}", file=self.file,
                          line=self.line if line is None else line)

    def expect(self, chars: str) -> str:
        ch = self.ws()
        if not ch or ch not in chars:
            wanted = " or ".join(repr(c) for c in chars)
            found = "" if ch else ", found the end of the file"
            raise self.error(f"expecting {wanted}{found}")
        self.pos += 1
        return ch

    def value(self) -> tuple[str, Any, int]:
        """The next JSON value: its text, its data (json module) and the line it starts on."""
        self.ws()
        start_line = self.line
        while True:
            try:
                data, end = self.json.raw_decode(self.buf, self.pos)
                if end < len(self.buf) or self.eof:
                    break
            except json.JSONDecodeError as exc:
                if self.eof or len(self.buf) - self.pos > self.limits.max_bytes + CHUNK:
                    line = start_line + self.buf.count("\n", self.pos, exc.pos)
                    raise self.error(exc.msg, line) from None
            except RecursionError:
                raise InputError(f"nested too deeply; {ENV_VARS['max_depth']} raises the limit",
                                 file=self.file, line=start_line) from None
            if len(self.buf) - self.pos > self.limits.max_bytes + CHUNK:
                raise InputError(too_big("this value", self.limits, unit="characters"),
                                 file=self.file, line=start_line)
            self.more()
        text = self.buf[self.pos:end]
        if len(text) > self.limits.max_bytes:
            raise InputError(too_big("this value", self.limits, unit="characters"),
                             file=self.file, line=start_line)
        self.line += text.count("\n")
        self.pos = end
        return text, data, start_line


def collection_items(raw: BinaryIO, file: str, list_key: str, limits: Limits,
                     prefix: bytes = b"") -> Iterator[JsonItem]:
    """The top-level entries of a JSON object, and the items of its *list_key* array one at a time.

    An entry other than the list comes as a JsonItem whose ``text`` is the value's JSON text
    and ``base`` is ``(key,)``.  Raises :class:`NotAMapping` when the top level is not an object.
    """
    sc = _Scanner(raw, prefix, file, limits)
    if sc.ws() != "{":
        raise NotAMapping
    sc.pos += 1
    seen: dict[str, int] = {}
    if sc.ws() == "}":
        sc.pos += 1
    else:
        while True:
            _text, key, key_line = sc.value()
            if not isinstance(key, str):
                raise sc.error("expecting a property name enclosed in double quotes", key_line)
            if key in seen:
                raise InputError(f"duplicate key {key!r} (first at line {seen[key]})", file=file,
                                 line=key_line, place="(top level)")
            seen[key] = key_line
            sc.expect(":")
            if key == list_key and sc.ws() == "[":
                sc.pos += 1
                index = 0
                if sc.ws() == "]":
                    sc.pos += 1
                else:
                    while True:
                        text, _data, line = sc.value()
                        yield JsonItem(text, line, (list_key, index))
                        index += 1
                        if sc.expect(",]") == "]":
                            break
            else:
                text, _data, _line = sc.value()
                yield JsonItem(text, key_line, (key,))
            if sc.expect(",}") == "}":
                break
    if sc.ws():
        raise sc.error("extra data after the top-level object")


# --------------------------------------------------------------------------- values → data

_FAST_MAX = 1 << 16
_UNUSUAL = re.compile("[\\\\\x00-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069\ufeff\ufff0-\uffff\ud800-\udfff]")
"""Escapes, control and format characters: such values take the safe reader's path, which
decides on them exactly as it does for every other file."""


class _Slow(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Slow
    return out


def _slow(_text: str) -> Any:
    raise _Slow


def parse_item(item: JsonItem, limits: Limits) -> Any:
    """The data of an ordinary value, read with the ``json`` module; None when the value is
    unusual (escapes, control characters, floats, duplicate keys, very big) and must be
    read by :func:`precise_document` instead."""
    text = item.text
    if len(text) > min(_FAST_MAX, limits.max_nodes) or limits.max_depth < 8 or _UNUSUAL.search(text):
        return None
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_float=_slow,
                          parse_constant=_slow)
    except (_Slow, ValueError, RecursionError):
        return None


def flat_document(item: JsonItem, file: str, data: Any) -> Document:
    """*data* as a Document whose every node is on the value's first line."""
    return Document(file, data, _Lines(item.line, None), base=item.base)


def precise_document(item: JsonItem, file: str, limits: Limits) -> Document:
    """The value read by the safe reader: strict JSON, the limits, a line for every node."""
    try:
        doc = load_text(item.text, file, limits=limits, is_json=True)
    except InputError as exc:
        line = None if exc.line is None else exc.line + item.line - 1
        raise InputError(exc.message, file=file, line=line if line is not None else item.line,
                         place=prefixed(item.base, exc.place)) from None
    return Document(file, doc.data, doc._lines, base=item.base, offset=item.line - 1)


def absolute_lines(doc: Document) -> _Lines:
    """The line tree of a value read on its own (:func:`precise_document`) with the lines of
    the whole file, to be put into the tree of a bigger document."""
    def shift(node: _Lines) -> _Lines:
        children = node.children
        if isinstance(children, dict):
            children = {k: shift(v) for k, v in children.items()}
        elif isinstance(children, list):
            children = [shift(v) for v in children]
        return _Lines(node.line + doc.offset, children)
    return shift(doc._lines) if doc._lines is not None else _Lines(1 + doc.offset, None)


def prefixed(base: tuple[str | int, ...], place: str | None) -> str | None:
    """A key path *place* inside the value at *base*, written from the file's root."""
    if not base:
        return place
    if place is None or place == "(top level)":
        return format_path(base)
    return format_path(base) + ("" if place.startswith("[") else ".") + place
