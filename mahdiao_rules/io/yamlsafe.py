"""Read YAML and JSON input safely, keeping the line of every node.

This is the only way the project reads a YAML or JSON file.  PyYAML composes
the node tree with a SafeLoader-derived loader (nothing is ever constructed by
PyYAML itself, so no tag can run code); we then build plain Python data from
the nodes, remembering where every node started so that later checks can say
``deal.yaml:12: deals[0].hands.east[3]: …``.

Scalars follow YAML 1.2 (core schema) rather than PyYAML's YAML 1.1 defaults:
``yes``/``no``/``on``/``off`` stay text, ``010`` stays text, timestamps stay
text, and only ``true``/``false`` are booleans.

Every problem is an :class:`~mahdiao_rules.errors.InputError` with the file and,
when known, the line and the key path.  Input size, nesting depth and the
number of nodes (aliases counted at every use) are bounded by :class:`Limits`;
the defaults can be changed with the environment variables ``MAHDIAO_MAX_BYTES``,
``MAHDIAO_MAX_NODES`` and ``MAHDIAO_MAX_DEPTH``, read once when this module is
imported (see ``docs/limits.md``).

When PyYAML has its libyaml binding, the events come from libyaml (fast, in C)
and are composed here in Python, so the same limits apply while composing; on a
syntax error in a file of moderate size the pure-Python parser is run instead,
because its messages name the offending character.
"""

from __future__ import annotations

import math
import os
import re
import stat
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

try:  # PyYAML's binding to libyaml; absent when PyYAML was built without it
    from yaml._yaml import CParser as _CParser
except ImportError:  # pragma: no cover - depends on how PyYAML was installed
    _CParser = None

from ..errors import InputError
from . import jsonpos
from .textcheck import control_problem

__all__ = [
    "BUILTIN_LIMITS",
    "DEFAULT_LIMITS",
    "ENV_VARS",
    "LIMIT_RANGES",
    "Document",
    "Limits",
    "check_encoding",
    "format_path",
    "limits_from_env",
    "load_file",
    "load_text",
    "resolve_limits",
    "stream_mapping",
    "too_big",
]


@dataclass(frozen=True)
class Limits:
    """Bounds on what a single input file may cost to read."""

    max_bytes: int = 5_000_000
    """Largest accepted file (or text) size in bytes."""
    max_depth: int = 64
    """Deepest accepted nesting of lists and mappings (the top level counts as 1)."""
    max_nodes: int = 200_000
    """Most nodes constructed, an aliased node's whole subtree counted at every use."""


BUILTIN_LIMITS = Limits()
"""The documented defaults, before any environment variable."""

ENV_VARS: dict[str, str] = {
    "max_bytes": "MAHDIAO_MAX_BYTES",
    "max_nodes": "MAHDIAO_MAX_NODES",
    "max_depth": "MAHDIAO_MAX_DEPTH",
}
"""Limits field → the environment variable that overrides its default."""

LIMIT_RANGES: dict[str, tuple[int, int]] = {
    "max_bytes": (1, 1 << 30),
    "max_nodes": (1, 10_000_000),
    # Deeper documents would overflow the recursion of the ruleset compiler and of
    # jsonschema, which are not guarded the way this module's composer is.
    "max_depth": (1, 200),
}
"""The values an environment variable may set, inclusive."""

_ENV_NUMBER = re.compile(r"[0-9]+(?:_[0-9]+)*\Z")


def limits_from_env(environ: Mapping[str, str]) -> Limits:
    """The limits that *environ* asks for (unset or empty variables keep the default).

    A value must be a whole number (``_`` may group digits) within :data:`LIMIT_RANGES`;
    anything else is an InputError naming the variable.
    """
    values: dict[str, int] = {}
    for name, var in ENV_VARS.items():
        raw = environ.get(var)
        if raw is None or not raw.strip():
            continue
        low, high = LIMIT_RANGES[name]
        text = raw.strip()
        number = int(text) if _ENV_NUMBER.match(text) else None
        if number is None or not low <= number <= high:
            raise InputError(f"environment variable {var}={raw!r}: expected a whole number "
                             f"from {low} to {high:_} (default {getattr(BUILTIN_LIMITS, name):_})")
        values[name] = number
    return Limits(**values)


def _env_limits() -> tuple[Limits, InputError | None]:
    try:
        return limits_from_env(os.environ), None
    except InputError as exc:
        # Reported by the first load instead of here: an import must not fail.
        return BUILTIN_LIMITS, exc


DEFAULT_LIMITS, _ENV_ERROR = _env_limits()
"""The limits every load uses unless given others: the built-in ones, changed by the
environment variables when this module was imported."""

PathKey = str | int


class _Lines:
    """Where a node starts, plus the same for its children (a tree parallel to the data).

    For a mapping entry the line is that of the *key*, which is where a reader
    looks for ``hands:`` even when its value starts on the next line.
    """

    __slots__ = ("children", "line")

    def __init__(self, line: int, children: dict[Any, _Lines] | list[_Lines] | None) -> None:
        self.line = line
        self.children = children


@dataclass(frozen=True)
class Document:
    """A parsed input file: plain data plus the line of every node."""

    file: str
    """The name to show in messages (the path as given)."""
    data: Any
    """Plain Python: dict / list / str / int / Decimal / bool / None.  A number is exactly
    what the text states: an int when whole, else a Decimal (never a binary float); only
    YAML's ``.inf`` and ``.nan`` are floats, for the schema check to refuse."""
    _lines: _Lines | None = field(default=None, repr=False, compare=False)
    nodes: int = field(default=0, repr=False, compare=False)
    """How many values the document holds, an alias counted in full at every use."""
    base: tuple[PathKey, ...] = ()
    """Where :attr:`data` sits in the whole file (``("deals", 7)`` for one deal read from a
    streamed collection): :meth:`line_of` takes paths from the file's root."""
    offset: int = 0
    """Lines before the text this document was parsed from (one line of a JSON Lines file)."""

    def line_of(self, path: Sequence[PathKey]) -> int | None:
        """The 1-based line of the node at key *path* (an entry's key line for mapping entries).

        For a path that does not exist, the line of its deepest existing
        ancestor; None when no line is known (empty document, JSON fallback,
        or a Document built by hand).
        """
        node = self._lines
        if node is None:
            return None
        if self.base:
            if tuple(path[:len(self.base)]) != self.base:
                return node.line + self.offset
            path = path[len(self.base):]
        for key in path:
            child = _child_lines(node, key)
            if child is None:
                break
            node = child
        return node.line + self.offset


def _child_lines(node: _Lines, key: PathKey) -> _Lines | None:
    children = node.children
    if isinstance(children, dict):
        if key in children and not isinstance(key, bool):
            return children[key]
        if isinstance(key, str):
            # Validators see integer keys as text (JSON has only text keys).
            for k, child in children.items():
                if isinstance(k, int) and str(k) == key:
                    return child
        return None
    if isinstance(children, list) and isinstance(key, int) and not isinstance(key, bool):
        if 0 <= key < len(children):
            return children[key]
    return None


_PLAIN_KEY = re.compile(r"[^\s.\[\]'\"]+\Z")


def format_path(path: Sequence[PathKey]) -> str:
    """``("deals", 0, "hands", "east", 3)`` → ``deals[0].hands.east[3]``; ``()`` → ``(top level)``."""
    out: list[str] = []
    for key in path:
        if isinstance(key, int):
            out.append(f"[{key}]")
        elif _PLAIN_KEY.match(key):
            out.append(f".{key}" if out else key)
        else:
            out.append(f"[{key!r}]")
    return "".join(out) or "(top level)"


# --------------------------------------------------------------------------- scalars

_TAG_PREFIX = "tag:yaml.org,2002:"
_STR = _TAG_PREFIX + "str"
_INT = _TAG_PREFIX + "int"
_FLOAT = _TAG_PREFIX + "float"
_BOOL = _TAG_PREFIX + "bool"
_NULL = _TAG_PREFIX + "null"
_SEQ = _TAG_PREFIX + "seq"
_MAP = _TAG_PREFIX + "map"

# YAML 1.2 core schema, except that integers (and the integer part of floats)
# may not have a leading zero, so that ``010`` stays text instead of silently
# becoming 10 or 8.
_NULL_RE = re.compile(r"(?:~|null|Null|NULL|)\Z")
_BOOL_RE = re.compile(r"(?:true|false)\Z", re.IGNORECASE)
_DEC_RE = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
_HEX_RE = re.compile(r"0x[0-9a-fA-F]+\Z")
_OCT_RE = re.compile(r"0o[0-7]+\Z")
_INT_RE = re.compile(rf"(?:{_DEC_RE.pattern[:-2]}|{_HEX_RE.pattern[:-2]}|{_OCT_RE.pattern[:-2]})\Z")
_FLOAT_RE = re.compile(
    r"[-+]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z"
    r"|[-+]?\.(?:inf|Inf|INF)\Z"
    r"|\.(?:nan|NaN|NAN)\Z"
)
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


class _Limited(Composer):
    """PyYAML's composer, counting nodes and nesting depth as it goes."""

    limits: Limits
    depth: int
    composed: int
    what: str

    def _start(self, limits: Limits) -> None:
        self.limits = limits
        self.depth = 0
        self.composed = 0
        self.what = "the document"

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        self.composed += 1
        if self.composed > self.limits.max_nodes:
            raise _too_many_nodes(self.limits, self.peek_event().start_mark.line + 1,
                                  aliases=bool(getattr(self, "anchors", None)), what=self.what)
        return super().compose_node(parent, index)

    # PyYAML composes recursively: refuse deep nesting before Python's own
    # recursion limit turns it into a RecursionError.
    def compose_sequence_node(self, anchor: str | None) -> Node:
        self._descend()
        try:
            return super().compose_sequence_node(anchor)
        finally:
            self.depth -= 1

    def compose_mapping_node(self, anchor: str | None) -> Node:
        self._descend()
        try:
            return super().compose_mapping_node(anchor)
        finally:
            self.depth -= 1

    def _descend(self) -> None:
        self.depth += 1
        if self.depth > self.limits.max_depth:
            raise _too_deep(self.limits, self.peek_event().start_mark.line + 1)


class _Loader(_Limited, yaml.SafeLoader):
    """SafeLoader whose implicit scalar types are YAML 1.2's, with limits checked while composing.

    Only ``compose`` is ever used: PyYAML never constructs Python objects for us.
    """

    # A fresh dict in the class body: add_implicit_resolver then appends to it
    # instead of to a copy of SafeLoader's YAML 1.1 resolvers.
    yaml_implicit_resolvers: dict[Any, list[tuple[str, re.Pattern[str]]]] = {}  # noqa: RUF012

    def __init__(self, stream: str, limits: Limits) -> None:
        yaml.SafeLoader.__init__(self, stream)
        self._start(limits)


_Loader.add_implicit_resolver(_NULL, _NULL_RE, None)
_Loader.add_implicit_resolver(_BOOL, _BOOL_RE, None)
_Loader.add_implicit_resolver(_INT, _INT_RE, None)
_Loader.add_implicit_resolver(_FLOAT, _FLOAT_RE, None)

_FastLoader: Any = None
if _CParser is not None:
    class _FastLoader(_Limited, _CParser, SafeConstructor, Resolver):  # type: ignore[no-redef]
        """libyaml's events composed by :class:`_Limited` (so the limits and YAML 1.2 scalars hold)."""

        yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers

        def __init__(self, stream: str, limits: Limits) -> None:
            _CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            self._start(limits)

_REPARSE_MAX = 64 * 1024
"""Largest text that PyYAML's own parser (up to 25 µs a character) reads when libyaml is there:
to word a syntax error, or because the text has tabs.  Bigger texts get libyaml's verdict."""


def _too_many_nodes(limits: Limits, line: int | None, *, aliases: bool = False,
                    what: str = "the document") -> InputError:
    # Blame aliases only where there are some: a big file without any is just big.
    if aliases:
        head = f"too many nodes (alias expansion?): {what} would have more than {limits.max_nodes} values"
    else:
        head = f"too many nodes: {what} has more than {limits.max_nodes} values"
    return InputError(f"{head}; {ENV_VARS['max_nodes']} raises the limit", line=line)


def _too_deep(limits: Limits, line: int | None) -> InputError:
    return InputError(f"nested too deeply (more than {limits.max_depth} levels); "
                      f"{ENV_VARS['max_depth']} raises the limit", line=line)


def _show_tag(tag: str) -> str:
    return "!!" + tag[len(_TAG_PREFIX):] if tag.startswith(_TAG_PREFIX) else tag


def _node_kind(node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    return "a single value"


# --------------------------------------------------------------------------- construction


class _Builder:
    """Turns a composed node graph into plain data plus a parallel line tree."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        # Per node (by identity): expanded size and height, from _measure.
        self.measured: dict[int, tuple[int, int]] = {}
        self.in_progress: set[int] = set()
        # Per node: its line tree, shared by every use of an aliased node.
        self.lines: dict[int, _Lines] = {}
        self.path: list[PathKey] = []
        self.aliased = False
        self.what = "the document"

    def build(self, root: Node, depth: int = 0) -> tuple[Any, _Lines]:
        """*depth*: the collections enclosing *root* in its file (for one item of a streamed list)."""
        # Measure first so that an alias bomb or a recursive alias is refused
        # before anything big is built.
        self._measure(root, depth)
        return self._construct(root)

    def _measure(self, node: Node, depth: int) -> int:
        """Expanded size of *node* (aliases counted at every use); check depth and cycles.

        *depth* counts the collections enclosing *node*.  Memoised per node, so an
        aliased subtree is walked once however often it is used.
        """
        key = id(node)
        if key in self.in_progress:
            raise InputError("an alias refers to a node that contains it (recursive alias)",
                             line=node.start_mark.line + 1)
        known = self.measured.get(key)
        if known is not None:
            self.aliased = True  # a node met twice: an alias uses it
            size, height = known
            if depth + height > self.limits.max_depth:
                raise _too_deep(self.limits, node.start_mark.line + 1)
            return size
        if isinstance(node, ScalarNode):
            self.measured[key] = (1, 0)
            return 1
        if depth + 1 > self.limits.max_depth:
            raise _too_deep(self.limits, node.start_mark.line + 1)
        children: list[Node]
        if isinstance(node, MappingNode):
            children = [n for pair in node.value for n in pair]
        else:
            children = node.value
        self.in_progress.add(key)
        size, height = 1, 0
        for child in children:
            size += self._measure(child, depth + 1)
            height = max(height, self.measured[id(child)][1])
            if size > self.limits.max_nodes:
                raise _too_many_nodes(self.limits, node.start_mark.line + 1, aliases=self.aliased,
                                      what=self.what)
        self.in_progress.discard(key)
        self.measured[key] = (size, height + 1)
        return size

    def _error(self, message: str, node: Node, path: Sequence[PathKey] | None = None) -> InputError:
        return InputError(message, line=node.start_mark.line + 1,
                          place=format_path(self.path if path is None else path))

    def _construct(self, node: Node) -> tuple[Any, _Lines]:
        if isinstance(node, ScalarNode):
            value = self._scalar(node)
            lines = self.lines.get(id(node))
            if lines is None:
                lines = self.lines[id(node)] = _Lines(node.start_mark.line + 1, None)
            return value, lines
        if isinstance(node, SequenceNode):
            if node.tag != _SEQ:
                raise self._tag_error(node)
            items: list[Any] = []
            item_lines: list[_Lines] = []
            for index, child in enumerate(node.value):
                self.path.append(index)
                value, lines = self._construct(child)
                self.path.pop()
                items.append(value)
                item_lines.append(lines)
            return items, self._remember(node, item_lines)
        if isinstance(node, MappingNode):
            if node.tag != _MAP:
                raise self._tag_error(node)
            return self._mapping(node)
        raise AssertionError(f"unexpected node {node!r}")  # pragma: no cover

    def _remember(self, node: Node, children: dict[Any, _Lines] | list[_Lines]) -> _Lines:
        lines = self.lines.get(id(node))
        if lines is None:
            lines = self.lines[id(node)] = _Lines(node.start_mark.line + 1, children)
        return lines

    def _mapping(self, node: MappingNode) -> tuple[dict[Any, Any], _Lines]:
        result: dict[Any, Any] = {}
        entry_lines: dict[Any, _Lines] = {}
        # Integer keys clash with their text form once a validator sees the
        # data as JSON, so 1 and "1" count as the same key.
        first_line: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = self._key(key_node)
            key_line = key_node.start_mark.line + 1
            seen = first_line.get(str(key))
            if seen is not None:
                raise self._error(f"duplicate key {str(key)!r} (first at line {seen})", key_node)
            first_line[str(key)] = key_line
            self.path.append(key)
            value, value_lines = self._construct(value_node)
            self.path.pop()
            result[key] = value
            entry_lines[key] = _Lines(key_line, value_lines.children)
        return result, self._remember(node, entry_lines)

    def _key(self, node: Node) -> str | int:
        if not isinstance(node, ScalarNode):
            raise self._error(
                f"a key must be a single value (text or a whole number), not {_node_kind(node)}", node)
        # A plain scalar's style is None from PyYAML's parser and "" from libyaml's.
        if node.tag == _STR and not node.style and node.value == "<<":
            raise self._error("merge keys ('<<') are not supported: write the keys out in full", node)
        key = self._scalar(node)
        if isinstance(key, bool) or not isinstance(key, str | int):
            raise self._error(
                f"the key {node.value!r} is read as {_describe_scalar(key)}; put it in quotes "
                "to use it as text", node)
        return key

    def _tag_error(self, node: Node) -> InputError:
        tag = node.tag
        if tag in (_STR, _INT, _FLOAT, _BOOL, _NULL, _SEQ, _MAP):
            return self._error(f"the tag {_show_tag(tag)} cannot be used on {_node_kind(node)}", node)
        return self._error(f"unsupported YAML tag {_show_tag(tag)}", node)

    def _scalar(self, node: ScalarNode) -> Any:
        tag, text = node.tag, node.value
        if tag == _STR:
            return self._text(node)
        if tag == _NULL:
            if _NULL_RE.match(text):
                return None
        elif tag == _BOOL:
            if _BOOL_RE.match(text):
                return text.lower() == "true"
        elif tag == _INT:
            if _INT_RE.match(text):
                return self._int(node)
        elif tag == _FLOAT:
            if _FLOAT_RE.match(text):
                try:
                    return _float(text)
                except InputError as err:
                    raise self._error(err.message, node) from None
            if _INT_RE.match(text):
                return self._int(node)
        else:
            raise self._tag_error(node)
        raise self._error(f"{text!r} is not a valid {_show_tag(tag)} value", node)

    def _int(self, node: ScalarNode) -> int:
        text = node.value
        try:
            if text.startswith("0x"):
                return int(text[2:], 16)
            if text.startswith("0o"):
                return int(text[2:], 8)
            return int(text)
        except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
            raise self._error("this number has too many digits", node) from None

    def _text(self, node: ScalarNode) -> str:
        try:
            return _checked_text(node.value)
        except InputError as err:
            raise self._error(err.message, node) from None


def _checked_text(text: str) -> str:
    """A text value or key as it may be used: surrogate halves joined, no control characters."""
    if _SURROGATE_RE.search(text):
        # "\ud83d\ude00"-style escapes (as JSON writes them) may arrive as two halves;
        # join them, and refuse a lone half.
        try:
            text = text.encode("utf-16", "surrogatepass").decode("utf-16")
        except UnicodeDecodeError:
            raise InputError("invalid \\u escape: unpaired surrogate") from None
    problem = control_problem(text)
    if problem is not None:
        raise InputError(problem)
    return text


_MAX_DIGITS = 4300
"""The most digits a number may have, before or after the point (Python's own limit for
turning text into an int); beyond it a number is refused rather than computed."""


def _exact(text: str) -> int | Decimal:
    """A decimal number's text as the exact value it states: an int when it is whole
    (``4.0``, ``1e3``), else a Decimal (``0.5``, ``2.0000000000000001``) — never a binary
    float, which would turn ``2.0000000000000001`` into 2."""
    value = Decimal(text)
    _sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # finite: the patterns admit no inf or nan here
    if value.adjusted() >= _MAX_DIGITS or exponent < -_MAX_DIGITS or len(digits) > _MAX_DIGITS:
        raise InputError("this number has too many digits")
    if value == value.to_integral_value():
        return int(value)
    return value


def _json_number(text: str) -> int | Decimal:
    if "." in text or "e" in text or "E" in text:
        return _exact(text)
    try:
        return int(text)
    except ValueError:  # more digits than Python converts
        raise InputError("this number has too many digits") from None


def _float(text: str) -> float | int | Decimal:
    special = text.lstrip("+-").lower()
    if special == ".inf":
        return -math.inf if text.startswith("-") else math.inf
    if special == ".nan":
        return math.nan
    return _exact(text)


def _describe_scalar(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, float | Decimal):
        return "a number"
    return "a value"


# --------------------------------------------------------------------------- loading


def resolve_limits(limits: Limits | None) -> Limits:
    """*limits*, or the defaults (and then a bad limit variable is reported here, once per load)."""
    if limits is not None:
        return limits
    if _ENV_ERROR is not None:
        raise _ENV_ERROR
    return DEFAULT_LIMITS


def load_file(path: str | os.PathLike[str], *, limits: Limits | None = None,
              display_name: str | None = None) -> Document:
    """Read and parse the YAML or JSON file at *path* (``.json`` files may fall back to the json module).

    *display_name* replaces the path in messages and in :attr:`Document.file`.
    *limits* defaults to :data:`DEFAULT_LIMITS`.  The size is checked on the file's
    metadata before it is opened, and at most one byte more than the limit is read.
    """
    name = display_name if display_name is not None else os.fspath(path)
    try:
        limits = resolve_limits(limits)
    except InputError as exc:
        raise exc.located(file=name) from None
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise InputError("cannot read file: it is a directory", file=name)
        if info.st_size > limits.max_bytes:
            raise InputError(too_big("file", limits, info.st_size), file=name)
        with open(path, "rb") as fh:
            # Read one byte more than allowed: a pipe or special file has no
            # meaningful stat size.
            raw = fh.read(limits.max_bytes + 1)
    except FileNotFoundError:
        raise InputError("cannot read file: no such file", file=name) from None
    except PermissionError:
        raise InputError("cannot read file: permission denied", file=name) from None
    except IsADirectoryError:
        raise InputError("cannot read file: it is a directory", file=name) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", file=name) from None
    return _load(raw, name, limits, is_json=_is_json(os.fspath(path)) or _is_json(name))


def load_text(text: str | bytes, file: str, *, limits: Limits | None = None,
              is_json: bool | None = None) -> Document:
    """Parse *text* (YAML, or JSON when *file* ends in ``.json`` or *is_json* says so) as if
    read from *file*."""
    try:
        limits = resolve_limits(limits)
    except InputError as exc:
        raise exc.located(file=file) from None
    return _load(text, file, limits, is_json=_is_json(file) if is_json is None else is_json)


def current_limits() -> Limits:
    """The limits in force (the defaults, or the environment's)."""
    return resolve_limits(None)


def _is_json(name: str) -> bool:
    return name.lower().endswith(".json")


def too_big(what: str, limits: Limits, size: int | None = None, unit: str = "bytes") -> str:
    """The message for input over the size limit: *size* when known, else "more than" it."""
    amount = f"{size} {unit}" if size is not None else f"more than {limits.max_bytes} {unit}"
    return (f"{what} is too large ({amount}; the limit is {limits.max_bytes}, "
            f"which {ENV_VARS['max_bytes']} raises)")


def _load(raw: str | bytes, file: str, limits: Limits, *, is_json: bool) -> Document:
    try:
        text = _decode(raw, limits)
        return _parse(text, file, limits, is_json=is_json)
    except InputError as exc:
        raise exc.located(file=file) from None


def _decode(raw: str | bytes, limits: Limits) -> str:
    if isinstance(raw, str):
        size = len(raw.encode("utf-8", "surrogatepass"))
        if size > limits.max_bytes:
            raise InputError(too_big("file", limits, size))
        return raw.removeprefix("\ufeff")
    if len(raw) > limits.max_bytes:
        raise InputError(too_big("file", limits, len(raw)))
    check_encoding(raw)
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise not_utf8(raw, exc, 1, _legacy_hint(raw)) from None


def check_encoding(head: bytes) -> None:
    """Refuse UTF-16 and UTF-32 text, told by the first bytes of a file (or of a stream)."""
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        raise InputError("the file is saved as UTF-32; save it as UTF-8 instead", line=1)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError("the file is saved as UTF-16; save it as UTF-8 instead", line=1)
    if b"\x00" in head[:4]:
        # YAML text never holds NUL: "a\0:\0" is UTF-16 (or UTF-32) without a byte-order mark.
        raise InputError("the file looks like UTF-16 or UTF-32 text (it has NUL bytes); "
                         "save it as UTF-8 instead", line=1)


def not_utf8(data: bytes, exc: UnicodeDecodeError, line: int, hint: str = "") -> InputError:
    """The error for a byte that is not UTF-8: *data* failed to decode at ``exc.start``, and
    its first byte is on *line*."""
    return InputError(f"the file is not UTF-8 text (byte 0x{data[exc.start]:02x} here); "
                      f"save it as UTF-8{hint}", line=line + data.count(b"\n", 0, exc.start))


def _legacy_hint(raw: bytes) -> str:
    """A hint when *raw* reads cleanly as a Chinese legacy encoding (as many Windows editors save)."""
    for codec in ("big5", "gb18030"):
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        if re.search("[\u4e00-\u9fff]", text):
            return " (it looks like Big5 or GBK, which Chinese editors often use)"
    return ""


@contextmanager
def _stack_room(limits: Limits) -> Iterator[None]:
    """Enough recursion headroom for a document at the depth limit.

    PyYAML's composer and the builder below recurse about four frames per level;
    the limit itself is what keeps the recursion bounded.
    """
    frame, used = sys._getframe(), 0
    while frame is not None:
        frame, used = frame.f_back, used + 1
    old = sys.getrecursionlimit()
    needed = used + 8 * limits.max_depth + 200
    if needed > old:
        sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        if needed > old:
            sys.setrecursionlimit(old)


# Where libyaml and PyYAML's own parser disagree: libyaml accepts tabs as separation
# space in more places and a byte-order mark after the start, and reads a bare "!" tag
# differently.  Texts with these go to PyYAML's parser, as they always did, unless big.
_PARSERS_DIFFER = re.compile(r"[\t\ufeff]|(?:^|[\s\[{,])!", re.MULTILINE)


def _question_in_flow(text: str) -> bool:
    """Whether a ``?`` may stand inside a flow collection: libyaml reads ``[a?]`` as the
    scalar ``a?``, PyYAML's own parser as a key indicator (an error).  A cheap, linear
    over-approximation — a ``?`` after the first ``[`` or ``{`` — sends such texts to
    PyYAML's parser, so both installs give one verdict."""
    last = text.rfind("?")
    if last < 0:
        return False
    first = min((i for i in (text.find("["), text.find("{")) if i >= 0), default=-1)
    return 0 <= first < last


def _compose(text: str, limits: Limits) -> Node | None:
    if _FastLoader is not None and (len(text) > _REPARSE_MAX or not (
            _PARSERS_DIFFER.search(text) or _question_in_flow(text))):
        try:
            return yaml.compose(text, Loader=lambda stream: _FastLoader(stream, limits))
        except yaml.YAMLError:
            if len(text) > _REPARSE_MAX:
                raise
            # Fall through: the pure-Python parser words the same error better
            # ("found character '\t'" rather than "found character").
    return yaml.compose(text, Loader=lambda stream: _Loader(stream, limits))


def _parse(text: str, file: str, limits: Limits, *, is_json: bool) -> Document:
    if is_json:
        return _parse_json(text, file, limits)
    with _stack_room(limits):
        try:
            root = _compose(text, limits)
        except yaml.YAMLError as exc:
            raise _yaml_error(exc, text) from None
        except RecursionError:
            raise _too_deep(limits, None) from None
        if root is None:
            return Document(file, None)
        builder = _Builder(limits)
        try:
            data, lines = builder.build(root)
        except RecursionError:  # pragma: no cover - _stack_room leaves room for max_depth
            raise _too_deep(limits, None) from None
    return Document(file, data, lines, nodes=builder.measured[id(root)][0])


def _parse_json(text: str, file: str, limits: Limits) -> Document:
    """A ``.json`` file: strict JSON (no comments, trailing commas, NaN …), read by
    :mod:`.jsonpos` with the line of every value, under the same limits and rules for
    numbers and text as YAML."""
    if not text.strip(" \t\n\r"):
        return Document(file, None)
    data, lines, nodes = jsonpos.parse(
        text, make_lines=_Lines, number=_json_number, text_check=_checked_text,
        max_depth=limits.max_depth, max_nodes=limits.max_nodes,
        too_deep=lambda line: _too_deep(limits, line),
        too_many=lambda line: _too_many_nodes(limits, line), format_path=format_path)
    return Document(file, data, lines, nodes=nodes)


def _yaml_error(exc: yaml.YAMLError, text: str) -> InputError:
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        problem, context = exc.problem or "", exc.context or ""
        if "duplicate anchor" in context and exc.context_mark is not None:
            # PyYAML puts the statement in the context: "found duplicate anchor 'x'; first occurrence".
            message = f"{context.split(';')[0]} (first at line {exc.context_mark.line + 1})"
        elif problem and context:
            # Composer errors read as one sentence ("expected a single document in
            # the stream" + "but found another document"); scanner and parser
            # errors put the problem first and the "while …" context after it.
            message = f"{context}, {problem}" if problem.startswith("but ") else f"{problem} ({context})"
        else:
            message = problem or context or "invalid YAML"
        if "maximum nesting depth" in message:
            # PyYAML 6.0.4 and later stop deep nesting themselves; say it as we do.
            return InputError("nested too deeply (more levels than the YAML reader allows)",
                              line=mark.line + 1 if mark else None)
        if "'\\t'" in message or (mark is not None and "cannot start any token" in message
                                   and "\t" in _line_text(text, mark.line)):
            message += "; use spaces, not tabs, for indentation"
        return InputError(f"YAML syntax error: {message}", line=mark.line + 1 if mark else None)
    if isinstance(exc, yaml.reader.ReaderError):
        # Non-printable characters (NUL, most control codes) in the text.
        line = text.count("\n", 0, exc.position) + 1 if isinstance(exc.position, int) else None
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        return InputError(f"unacceptable character #x{code:04x} (control characters are not allowed)",
                          line=line)
    return InputError(f"YAML error: {exc}")


def _line_text(text: str, line: int) -> str:
    """Line *line* (0-based) of *text*."""
    start = 0
    for _ in range(line):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


# --------------------------------------------------------------------------- streaming


class NotAMapping(Exception):
    """The streamed file's top level is not a mapping: read it whole instead."""


class _TextStream:
    """UTF-8 bytes → text for libyaml, a chunk at a time, with the line of a bad byte."""

    def __init__(self, raw: Any, prefix: bytes) -> None:
        import codecs

        self.raw = raw
        self.pending = prefix
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.lines = 0
        self.first = True

    def read(self, size: int) -> str:
        data = self.pending or self.raw.read(size)
        self.pending = b""
        if self.first:
            self.first = False
            check_encoding(data)
            data = data.removeprefix(b"\xef\xbb\xbf")
        try:
            text = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            raise not_utf8(data, exc, self.lines + 1) from None
        self.lines += text.count("\n")
        return text


def stream_mapping(raw: Any, file: str, *, list_key: str, prefix: bytes = b"",
                   limits: Limits | None = None) -> Iterator[Document]:
    """Read a big YAML file whose top level is a mapping, one entry at a time, and the
    items of its *list_key* list one at a time, in constant memory.

    *raw* is a binary stream (after *prefix*, bytes already read from it).  Yields one
    Document per top-level entry (``base`` = ``(key,)``) and one per item of the list
    under *list_key* (``base`` = ``(list_key, i)``).  The limits apply to each yielded
    Document, not to the file: its nodes, its depth counted from the file's root, and its
    text (in characters).  Raises :class:`NotAMapping` before yielding anything when the
    top level is something else.
    """
    if _CParser is None:  # pragma: no cover - depends on how PyYAML was installed
        raise NotAMapping
    limits = resolve_limits(limits)
    stream = _TextStream(raw, prefix)
    loader = _FastLoader(stream, limits)
    loader.anchors = {}
    try:
        with _stack_room(limits):
            yield from _stream_entries(loader, file, list_key, limits)
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, "").located(file=file) from None
    except InputError as exc:
        raise exc.located(file=file) from None
    except RecursionError:
        raise _too_deep(limits, None).located(file=file) from None


def _stream_entries(loader: Any, file: str, list_key: str, limits: Limits) -> Iterator[Document]:
    from yaml.events import (
        DocumentStartEvent,
        MappingEndEvent,
        MappingStartEvent,
        SequenceEndEvent,
        SequenceStartEvent,
        StreamEndEvent,
    )

    loader.get_event()  # stream start
    if loader.check_event(StreamEndEvent):
        raise NotAMapping
    loader.get_event()  # document start
    if not loader.check_event(MappingStartEvent):
        raise NotAMapping
    start = loader.get_event()
    if start.anchor is not None or start.tag not in (None, "!", _MAP):
        raise NotAMapping  # the whole-file reader words these
    loader.depth = 1
    seen: dict[str, int] = {}
    keys = _Builder(limits)
    while not loader.check_event(MappingEndEvent):
        loader.composed = 0
        key_node = loader.compose_node(None, None)
        key = keys._key(key_node)
        key_line = key_node.start_mark.line + 1
        if str(key) in seen:
            raise keys._error(f"duplicate key {str(key)!r} (first at line {seen[str(key)]})", key_node)
        seen[str(key)] = key_line
        if key == list_key and loader.check_event(SequenceStartEvent):
            event = loader.get_event()
            if event.anchor is not None:
                raise InputError("an anchor on the whole list cannot be used here", line=key_line)
            loader.depth = 2
            index = 0
            while not loader.check_event(SequenceEndEvent):
                loader.composed = 0
                loader.what = f"{list_key}[{index}]"
                node = loader.compose_node(None, None)
                yield _item_document(node, file, (list_key, index), limits, 2)
                index += 1
            loader.get_event()
            loader.depth = 1
            continue
        loader.what = f"the value of {key!r}"
        node = loader.compose_node(None, None)
        doc = _item_document(node, file, (key,), limits, 1, measure=False)
        lines = _Lines(key_line, doc._lines.children if doc._lines is not None else None)
        yield Document(file, doc.data, lines, base=(key,))
    loader.get_event()  # mapping end
    loader.get_event()  # document end
    if loader.check_event(DocumentStartEvent):
        line = loader.peek_event().start_mark.line + 1
        raise InputError("expected a single document in the stream, but found another document",
                         line=line)


def _item_document(node: Node, file: str, base: tuple[PathKey, ...], limits: Limits,
                   depth: int, measure: bool = True) -> Document:
    # A block collection ends where the next token starts, comments after it included; so
    # only list items are measured (their values are bounded by the node limit anyway).
    size = node.end_mark.index - node.start_mark.index
    if measure and size > limits.max_bytes:
        raise InputError(f"{format_path(base)} is too large ({size} characters; the limit is "
                         f"{limits.max_bytes}, which {ENV_VARS['max_bytes']} raises)",
                         line=node.start_mark.line + 1)
    builder = _Builder(limits)
    builder.what = format_path(base)
    builder.path = list(base)
    data, lines = builder.build(node, depth)
    return Document(file, data, lines, base=base)
