"""Static bounds, checked when a ruleset compiles: what a hand may cost, and what a rule may pay.

Both are properties of the condition language's tree — the YAML as written, with each
option switch resolved — not of the code that runs it, so they hold for the compiled
closures and for any other engine built from the same tree.

**Cost.** Every node of an item's ``when:``, ``zhu:`` and ``per:`` (and of a group's
``all_when:``, the 公賀 ``exempt:`` and the named sets) counts one *step*; a condition
under ``any_seat:`` or ``no_seat:`` is evaluated for each of the four seats, so it counts
four times, and nested under another such node sixteen times, and so on.  Items are judged
for each of the four seats.  The sum is the hand's cost in steps: each step is a small,
bounded piece of work (a mask test, a count over at most 40 cards, a scan of at most eight
tricks).  A ruleset whose cost exceeds :func:`cost_limit` is refused, naming the costliest
item and the place where the seat loops nest.  Without seat loops a ruleset costs at most
four steps per value it holds, so every ruleset the node limit admits is within the limit;
the limit stops only the multiplication.

**Amounts.** Every amount expression has a largest possible value, computed from the tree
(a count of cards is at most 40, a number of tricks at most 8, ``times`` multiplies the
bounds, ``sum`` adds them …).  An item whose payment could exceed :data:`MAX_ZHU` 注 is
refused at its ``zhu:`` — before a deal could make it overflow a float, a chart or a JSON
reader.  With at most :data:`MAX_ZHU` 注 per ledger line, every total the tool prints stays
far below 2**53 ticks, where binary floats are still exact.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, MahdiaoError
from ..io.yamlsafe import DEFAULT_LIMITS
from ..units import TICKS_PER_ZHU, exact, format_zhu, is_number
from .dsl import Compiler
from .layers import Entry, KeyPath, Merged

__all__ = ["MAX_ZHU", "check_bounds", "cost_limit"]

SEATS = 4
SEAT_LOOPS = frozenset({"any_seat", "no_seat"})
"""Condition kinds that evaluate their condition once for each seat."""

MAX_ZHU = 1_000_000_000
"""The most one ledger line may pay, in 注 (a billion: no historical stake comes near)."""
MAX_TICKS = MAX_ZHU * TICKS_PER_ZHU

MAX_POOL_ZHU = 1_000_000
"""The most a deal may put in the 官堆 at the start (the deal schema's limit for guan_dui)."""

MIN_COST_LIMIT = 1_000_000


def cost_limit() -> int:
    """The most steps a hand may cost: a million (about a second of Python), or five steps
    per value the node limit admits when ``MAHDIAO_MAX_NODES`` is raised beyond that."""
    return max(MIN_COST_LIMIT, 5 * DEFAULT_LIMITS.max_nodes)


# ====================================================================== cost


@dataclass
class _Cost:
    steps: int = 0
    nest: int = 0
    """The deepest nesting of seat loops seen, and where it starts."""
    nest_path: KeyPath = ()


def _cost(c: Compiler, node: Any, path: KeyPath, into: _Cost, depth: int = 0) -> int:
    """Steps to evaluate *node* once (option switches resolved)."""
    node, path = c.resolve(node, path)
    if isinstance(node, list):
        return 1 + sum(_cost(c, n, (*path, i), into, depth) for i, n in enumerate(node))
    if isinstance(node, dict):
        total = 1
        for key, value in node.items():
            if key in SEAT_LOOPS:
                if depth + 1 > into.nest:
                    into.nest, into.nest_path = depth + 1, (*path, key)
                total += SEATS * _cost(c, value, (*path, key), into, depth + 1)
            else:
                total += _cost(c, value, (*path, key), into, depth)
        return total
    return 1


@dataclass(frozen=True)
class _Part:
    """One expression the engine evaluates per hand: where it is, and how often."""

    entry: Entry
    keys: tuple[str, ...]
    times: int


def _parts(m: Merged) -> Iterator[_Part]:
    for e in m.items:
        yield from (_Part(e, (k,), SEATS) for k in ("when", "zhu", "per") if k in e.node)
    for e in m.groups.values():
        if "all_when" in e.node:
            yield _Part(e, ("all_when",), SEATS)
    gong_he = m.channels.get("gong_he")
    if gong_he is not None and gong_he.node.get("exempt") is not None:
        yield _Part(gong_he, ("exempt",), SEATS)
    for e in m.sets.values():
        yield _Part(e, ("cards",), 1)


def _check_cost(c: Compiler, m: Merged) -> int:
    total = 0
    per_entry: dict[int, tuple[Entry, int, _Cost]] = {}
    for part in _parts(m):
        c.doc = part.entry.doc
        node = part.entry.node
        for key in part.keys:
            node = node[key]
        info = _Cost()
        steps = part.times * _cost(c, node, (*part.entry.path, *part.keys), info)
        total += steps
        entry, before, deepest = per_entry.get(id(part.entry), (part.entry, 0, _Cost()))
        per_entry[id(part.entry)] = (entry, before + steps, info if info.nest > deepest.nest else deepest)
    limit = cost_limit()
    if total <= limit:
        return total
    entry, steps, info = max(per_entry.values(), key=lambda r: r[1])
    path = info.nest_path or entry.path
    nest = (f"; its any_seat/no_seat conditions nest {info.nest} deep, and each level "
            f"multiplies the work by 4" if info.nest > 1 else "")
    raise InputError(
        f"the ruleset would cost about {total:,} steps per hand (this part {steps:,}){nest}; "
        f"the limit is {limit:,} (docs/limits.md): write the condition without nesting seat loops",
        file=entry.doc.file, line=entry.doc.line_of(path), place=_fmt(path))


# ====================================================================== amounts


_COUNT_BOUNDS = {"count": 40, "run": 40, "top_cards": 40, "bottom_cards": 40, "sequences": 16,
                 "suits_having": 4, "tricks": 8}
"""The largest value of each counting expression: cards (40), won-order positions in either
order (8 × 2), suits (4), tricks (8)."""


class _Magnitude:
    """The largest absolute value an amount or count expression can take, in ticks (amounts)
    or plain units (counts)."""

    def __init__(self, c: Compiler, pool: int, chong: int) -> None:
        self.c, self.pool, self.chong = c, pool, chong

    def of(self, node: Any, path: KeyPath, scale: int) -> int:
        c = self.c
        node, path = c.resolve(node, path)
        if is_number(node):
            return abs(int(exact(node) * scale))
        if not isinstance(node, dict) or len(node) != 1:
            raise MahdiaoError(f"bounds.py cannot bound the amount {node!r}")
        (kind, arg), = node.items()
        where = (*path, kind)
        if kind in _COUNT_BOUNDS:
            return _COUNT_BOUNDS[kind] * scale
        if kind == "sum":
            arg, where = c.resolve(arg, where)
            return sum(self.of(n, (*where, i), scale) for i, n in enumerate(arg))
        if kind in ("max", "min"):
            arg, where = c.resolve(arg, where)
            return max(self.of(n, (*where, i), scale) for i, n in enumerate(arg))
        if kind == "times":
            arg, where = c.resolve(arg, where)
            return self.of(arg[0], (*where, 0), scale) * self.of(arg[1], (*where, 1), 1)
        if kind == "if":
            arg, where = c.resolve(arg, where)
            return max(self.of(arg["then"], (*where, "then"), scale),
                       self.of(arg.get("else", 0), (*where, "else"), scale))
        if kind == "diao":
            arg, where = c.resolve(arg, where)
            rows = arg.get("shared", []) if isinstance(arg, dict) else []
            each = max([TICKS_PER_ZHU, *(abs(c.number(r["each"], (*where, "shared", i, "each")))
                                         for i, r in enumerate(rows))])
            return each * c.zhu_per_diao
        if kind == "pool":
            return self.pool
        if kind == "chong_points":
            return self.chong
        raise MahdiaoError(f"bounds.py has no bound for the amount kind {kind!r}; add it")

    def item(self, e: Entry) -> int:
        """The most one ledger line of item *e* may pay (per counterparty; ``per`` counted)."""
        amount = self.of(e.node["zhu"], (*e.path, "zhu"), TICKS_PER_ZHU)
        if "per" in e.node:
            per, where = self.c.resolve(e.node["per"], (*e.path, "per"))
            if isinstance(per, dict) and len(per) == 1 and next(iter(per)) in ("won", "held"):
                amount *= _COUNT_BOUNDS["count"]
            else:
                amount *= self.of(per, where, 1)
        return amount


def _chong_bound(kc: Any) -> int:
    """The most 開沖 points a seat can gather in a hand, in ticks (generously: seven stock
    cards, each joined to at most eight won cards, every multiplier at its largest)."""
    if kc is None:
        return 0
    twin = 8 * max([0, *(abs(t.value) for t in kc.twins)])
    row = max([0, *(abs(r.points) for r in kc.rows)])
    bonus = max([0, *(abs(b.points) for b in kc.bonus)])
    run = 0
    if kc.run is not None:
        run = max(abs(v) for v in kc.run.points.values()) * (1 + twin)
    part = row * (1 + twin)
    take = 8 * part + twin * max(bonus, 8 * part) + run
    return 7 * take


def _check_amounts(c: Compiler, m: Merged, kai_chong: Any) -> None:
    pool_items = [e for e in m.items if _reads(c, e, "pool")]
    chong = _chong_bound(kai_chong)
    mag = _Magnitude(c, 0, chong)
    others = 0
    for e in m.items:
        if e in pool_items:
            continue
        c.doc = e.doc
        others += _check_one(mag, e)
    # The pool: what the deal brings plus what every other line of the hand could add.
    mag.pool = MAX_POOL_ZHU * TICKS_PER_ZHU + SEATS * others
    for e in pool_items:
        c.doc = e.doc
        _check_one(mag, e)
    for e in [*m.fines, *([m.dai_pei] if m.dai_pei is not None else [])]:
        c.doc = e.doc
        for path, value in _numbers(c, e.node, e.path):
            if abs(exact(value)) > MAX_ZHU:
                raise InputError(f"{value} 注 is more than a rule may pay ({MAX_ZHU:,} 注, "
                                 "docs/limits.md)", file=e.doc.file, line=e.doc.line_of(path),
                                 place=_fmt(path))


def _numbers(c: Compiler, node: Any, path: KeyPath) -> Iterator[tuple[KeyPath, Any]]:
    """Every number of *node* (option switches resolved) with its path."""
    node, path = c.resolve(node, path)
    if is_number(node):
        yield path, node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from _numbers(c, v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _numbers(c, v, (*path, i))


def _check_one(mag: _Magnitude, e: Entry) -> int:
    bound = mag.item(e)
    if bound > MAX_TICKS:
        path = (*e.path, "zhu")
        shown = format_zhu(bound) if bound < 10 ** 60 else f"about 10^{len(str(bound // TICKS_PER_ZHU)) - 1}"
        raise InputError(f"item {e.node['id']!r} could pay {shown} 注 in one ledger line; a rule "
                         f"may pay at most {MAX_ZHU:,} 注 (docs/limits.md)",
                         file=e.doc.file, line=e.doc.line_of(path), place=_fmt(path))
    return bound


def _reads(c: Compiler, e: Entry, kind: str) -> bool:
    found = False

    def visit(node: Any, path: KeyPath) -> None:
        nonlocal found
        node, path = c.resolve(node, path)
        if isinstance(node, dict):
            if kind in node:
                found = True
            for k, v in node.items():
                visit(v, (*path, k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                visit(v, (*path, i))

    c.doc = e.doc
    visit(e.node["zhu"], (*e.path, "zhu"))
    return found


# ====================================================================== entry point


def _fmt(path: KeyPath) -> str:
    from ..io.yamlsafe import format_path

    return format_path(path)


def check_bounds(c: Compiler, m: Merged, kai_chong: Any) -> int:
    """Refuse a ruleset whose hand could cost more than :func:`cost_limit` steps, or one of
    whose items could pay more than :data:`MAX_ZHU` 注 in one line; return the hand's cost
    in steps.  Called once the ruleset has compiled, so every node is known to be well formed."""
    doc = c.doc
    try:
        cost = _check_cost(c, m)
        _check_amounts(c, m, kai_chong)
    finally:
        c.doc = doc
    return cost
