"""JSON read strictly, with the line of every value: the ``.json`` half of :mod:`.yamlsafe`.

The json module gives no positions, so a ``.json`` file is scanned here: strings by the
json module's own (C) ``scanstring``, everything else by one regular expression per
token, with an explicit stack instead of recursion.  Every value gets its line (an
object entry the line of its key, as for YAML), so every error in a JSON file names its
line.  What the file may hold is decided by the caller's hooks: *number* turns a number's
text into a value, *text* checks a string (or key); either raises an InputError, which
is given the line and the key path here.  Duplicate keys, ``NaN``/``Infinity``, depth and
the number of values are checked while scanning.

A syntax error is worded by ``json.loads`` itself (``Expecting ',' delimiter``), with
its line, so the messages are the ones JSON users know.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from json.decoder import scanstring
from typing import Any

from ..errors import InputError

__all__ = ["parse"]

_SPACE = re.compile(r"[ \t\n\r]*")
_LITERAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
                      r"|true|false|null|NaN|-?Infinity")
_CONSTANTS = {"true": True, "false": False, "null": None}

Key = str | int
MakeLines = Callable[[int, Any], Any]


class _Frame:
    """An open object or array: its data, its children's lines, where it started."""

    __slots__ = ("data", "first_line", "key", "key_line", "line", "lines", "path_key")

    def __init__(self, data: dict[str, Any] | list[Any], line: int, path_key: Key | None) -> None:
        self.data = data
        self.lines: dict[str, Any] | list[Any] = {} if isinstance(data, dict) else []
        self.line = line
        self.path_key = path_key
        self.key: str | None = None
        self.key_line = 0
        self.first_line: dict[str, int] = {}


def parse(text: str, *, make_lines: MakeLines, number: Callable[[str], Any],
          text_check: Callable[[str], str], max_depth: int, max_nodes: int,
          too_deep: Callable[[int], InputError], too_many: Callable[[int], InputError],
          format_path: Callable[[list[Key]], str]) -> tuple[Any, Any, int]:
    """The data of the JSON *text*, its line tree (``make_lines(line, children)`` per value)
    and its number of values."""
    scanner = _Scanner(text, make_lines, number, text_check, max_depth, max_nodes,
                       too_deep, too_many, format_path)
    data, lines = scanner.run()
    return data, lines, scanner.nodes


class _Scanner:
    def __init__(self, text: str, make_lines: MakeLines, number: Callable[[str], Any],
                 text_check: Callable[[str], str], max_depth: int, max_nodes: int,
                 too_deep: Callable[[int], InputError], too_many: Callable[[int], InputError],
                 format_path: Callable[[list[Key]], str]) -> None:
        self.text = text
        self.make = make_lines
        self.number = number
        self.text_check = text_check
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.too_deep = too_deep
        self.too_many = too_many
        self.format_path = format_path
        self.stack: list[_Frame] = []
        self.nodes = 0
        # Lines are counted incrementally: the text is read once, left to right.
        self.line = 1
        self.line_pos = 0

    # ------------------------------------------------------------------ positions

    def line_at(self, pos: int) -> int:
        if pos < self.line_pos:  # pragma: no cover - the scan never goes back
            return self.text.count("\n", 0, pos) + 1
        self.line += self.text.count("\n", self.line_pos, pos)
        self.line_pos = pos
        return self.line

    def path(self) -> list[Key]:
        out: list[Key] = []
        for frame in self.stack[1:]:
            assert frame.path_key is not None
            out.append(frame.path_key)
        if self.stack:
            top = self.stack[-1]
            if isinstance(top.data, dict):
                if top.key is not None:
                    out.append(top.key)
            else:
                out.append(len(top.data))
        return out

    def fail(self, message: str, pos: int, path: list[Key] | None = None) -> InputError:
        return InputError(message, line=self.line_at(pos),
                          place=self.format_path(self.path() if path is None else path))

    def located(self, err: InputError, pos: int, path: list[Key] | None = None) -> InputError:
        return err.located(line=self.line_at(pos),
                           place=self.format_path(self.path() if path is None else path))

    def syntax(self, pos: int) -> InputError:
        """The json module's own message for the error at (or after) *pos*."""
        try:
            json.loads(self.text)
        except json.JSONDecodeError as exc:
            return InputError(f"JSON syntax error: {exc.msg}", line=exc.lineno)
        except (ValueError, RecursionError):
            pass
        return InputError("JSON syntax error: unexpected character", line=self.line_at(pos))

    # ------------------------------------------------------------------ the scan

    def count(self, pos: int) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise self.too_many(self.line_at(pos))

    def run(self) -> tuple[Any, Any]:
        text = self.text
        end = len(text)
        pos = self.skip(0)
        while True:
            if pos >= end:
                raise self.syntax(pos)
            top = self.stack[-1] if self.stack else None
            ch = text[pos]
            done: tuple[Any, Any] | None = None
            if top is not None and isinstance(top.data, dict) and top.key is None:
                # In an object, before a key: the key, or the end of an empty object.
                if ch == "}" and not top.data:
                    pos, done = pos + 1, self.close()
                elif ch == '"':
                    pos = self.key(pos, top)
                    continue
                else:
                    raise self.syntax(pos)
            elif top is not None and isinstance(top.data, list) and ch == "]" and not top.data:
                pos, done = pos + 1, self.close()
            else:
                opened, done, pos = self.value(pos)
                if opened:
                    continue
            # After a value: a comma, or the end of the enclosing object or array.
            while done is None:
                pos = self.skip(pos)
                top = self.stack[-1]
                if pos < end and text[pos] == ",":
                    pos = self.skip(pos + 1)
                    break
                if pos < end and text[pos] == ("}" if isinstance(top.data, dict) else "]"):
                    pos, done = pos + 1, self.close()
                    continue
                raise self.syntax(pos)
            else:
                pos = self.skip(pos)
                if pos != end:
                    raise self.syntax(pos)
                return done

    def skip(self, pos: int) -> int:
        return _SPACE.match(self.text, pos).end()  # type: ignore[union-attr]

    def key(self, pos: int, top: _Frame) -> int:
        """Read an object key and its colon; the position of the value."""
        key_line = self.line_at(pos)
        try:
            key, pos = scanstring(self.text, pos + 1, True)
        except json.JSONDecodeError:
            raise self.syntax(pos) from None
        path = [*self.path(), key]
        try:
            key = self.text_check(key)
        except InputError as err:
            raise err.located(line=key_line, place=self.format_path(path)) from None
        seen = top.first_line.get(key)
        if seen is not None:
            raise InputError(f"duplicate key {key!r} (first at line {seen})", line=key_line,
                             place=self.format_path(path))
        top.first_line[key] = key_line
        top.key, top.key_line = key, key_line
        pos = self.skip(pos)
        if pos >= len(self.text) or self.text[pos] != ":":
            raise self.syntax(pos)
        return self.skip(pos + 1)

    def value(self, pos: int) -> tuple[bool, tuple[Any, Any] | None, int]:
        """Read the value at *pos*: open a container, or add a scalar to the open one.
        Returns (whether a container opened, the whole document when it was one scalar,
        the position after)."""
        text = self.text
        ch = text[pos]
        line = self.line_at(pos)
        self.count(pos)
        if ch in "{[":
            if len(self.stack) + 1 > self.max_depth:
                raise self.too_deep(line)
            key = self.slot_key()
            self.stack.append(_Frame({} if ch == "{" else [], line, key))
            return True, None, self.skip(pos + 1)
        if ch == '"':
            try:
                value, new = scanstring(text, pos + 1, True)
            except json.JSONDecodeError:
                raise self.syntax(pos) from None
            try:
                value = self.text_check(value)
            except InputError as err:
                raise self.located(err, pos) from None
        else:
            match = _LITERAL.match(text, pos)
            if match is None:
                raise self.syntax(pos)
            token, new = match.group(), match.end()
            if token in _CONSTANTS:
                value = _CONSTANTS[token]
            elif token in ("NaN", "Infinity", "-Infinity"):
                raise self.fail(f"{token} is not a JSON value (infinity and NaN are not allowed)", pos)
            else:
                try:
                    value = self.number(token)
                except InputError as err:
                    raise self.located(err, pos) from None
        lines = self.make(line, None)
        if not self.stack:
            return False, (value, lines), new
        self.add(value, lines)
        return False, None, new

    def slot_key(self) -> Key | None:
        if not self.stack:
            return None
        top = self.stack[-1]
        return top.key if isinstance(top.data, dict) else len(top.data)

    def add(self, value: Any, lines: Any) -> None:
        top = self.stack[-1]
        if isinstance(top.data, dict):
            assert top.key is not None
            top.data[top.key] = value
            top.lines[top.key] = self.make(top.key_line, lines.children)  # type: ignore[index]
            top.key = None
        else:
            top.data.append(value)
            top.lines.append(lines)  # type: ignore[union-attr]

    def close(self) -> tuple[Any, Any] | None:
        """Close the innermost container; the whole document when it was the outermost."""
        frame = self.stack.pop()
        lines = self.make(frame.line, frame.lines)
        if not self.stack:
            return frame.data, lines
        self.add(frame.data, lines)
        return None
