"""The settlement engine: specialised Python source generated once per compiled ruleset.

Why generated code.  A hand is judged item by item and seat by seat: the app's ruleset
has 170 items, so a design that calls a closure per item and seat (and per node of its
condition) spends almost all its time in Python's call overhead.  Here, as jinja2
compiles a template to Python, the compiler's validated rule tree is turned into the
source of a few plain functions per ruleset — one per phase (``deal``, ``play``,
``end``) — in which every item is unrolled for the four seats into straight-line mask
tests on local variables (:mod:`mahdiao_rules.ruleset.emit` makes the expressions), the
values the whole hand shares are computed once at the top, the tests shared by the
members of a group guard the whole group, and payments are added inline into the nets.
The source is compiled with :func:`compile` and cached per ruleset hash and options.

Each phase comes in two variants of the same code:

* ``fire_<phase>(st, E)`` calls ``E(item_index, seat, amount, count)`` for every firing,
  in the order of the ruleset (items in file order, a group as one step, seats in play
  order) — :mod:`mahdiao_rules.settle.hand` turns them into firings and ledger lines;
* ``fast_<phase>(st, N)`` only adds the payments into ``N`` (four seats and the 官堆)
  and sets the fired bits — what simulation needs.

``sets(st)`` computes the stock-dependent named sets of a hand.  Both variants must be
identical to the reference interpreter (``tests/test_engine.py``).

Safety: the generated text is made only of identifiers and integers the generator made
(item ids, names and quotes never reach it; items are indexes into tuples).  Set
``MAHDIAO_ENGINE_DUMP=DIR`` to write each generated module to DIR for reading, or call
:func:`engine_source`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from ..units import TICKS_PER_ZHU
from . import dsl
from .emit import (
    FALSE,
    TRUE,
    Cond,
    Emitter,
    Num,
    c_and,
    c_code,
    hexm,
    paren,
    strongest_req,
)
from .model import PHASES, ItemDef, Ruleset, Step

SEATS = (0, 1, 2, 3)
GUAN_DUI = 4

# Locals loaded together from one HandState attribute: prefix → attribute.
_GROUPS = {"h": "held", "w": "won", "t": "tricks", "c": "chong_masks", "cp": "chong_points",
           "O": "won_order", "K": "won_tricks"}
_SINGLES = {"b": "st.banker", "FD": "st.fired", "TW": "st.trick_winners", "ST": "st.stock"}
_ORDER_NAMES = ("O", "K", "fb", "lb", "FW", "FR", "TW")
"""Locals that read the won order or trick winners (the caller must fill them in)."""


class Scope:
    """One generated function: the values its prologue computes, in dependency order."""

    def __init__(self, consts: Constants, defined: tuple[str, ...] = ()) -> None:
        self.consts = consts
        self.lines: dict[str, str] = {}
        self.derived: dict[str, str] = {}
        self.defined = set(defined)
        self.used: set[str] = set()
        self.fallback = False
        self.reads_pool = False

    def need(self, name: str) -> str:
        self.used.add(name)
        if name in self.lines or name in self.defined:
            return name
        prefix = name[:-1]
        if name[-1:] in "0123" and prefix in _GROUPS:
            key = prefix + "*"
            if key not in self.lines:
                self.lines[key] = f"{prefix}0, {prefix}1, {prefix}2, {prefix}3 = st.{_GROUPS[prefix]}"
            return name
        if name in _SINGLES:
            self.lines[name] = f"{name} = {_SINGLES[name]}"
        elif name == "WA":
            self.lines[name] = f"WA = {self.need('w0')} | w1 | w2 | w3"
        elif name == "HA":
            self.lines[name] = f"HA = {self.need('h0')} | h1 | h2 | h3"
        elif name[:2] in ("fb", "lb") and name[2:] in ("0", "1", "2", "3"):
            order = self.need("O" + name[2:])
            where = "0" if name[:2] == "fb" else "-1"
            self.lines[name] = f"{name} = 1 << {order}[{where}] if {order} else 0"
        elif name in ("FW", "FR"):
            self.need("TW")
            self.lines["FW"] = "FW, FR = LEADRUN(TW)"
        elif name == "TS":
            self.need("t0")
            self.lines[name] = "TS = tuple(sorted((t0, t1, t2, t3), reverse=True))"
        elif name.startswith("ds") and name[2:].isdigit():
            self.lines[name] = f"{name} = st.sets[{int(name[2:])}]"
        else:
            raise KeyError(name)
        return name

    def derive(self, code: str) -> str:
        """A local for *code*, computed once in the prologue (*code* must be the same all phase)."""
        if code not in self.derived:
            name = f"x{len(self.derived)}"
            self.derived[code] = name
            self.lines[name] = f"{name} = {code}"
        return self.derived[code]

    def define(self, name: str, code: str) -> str:
        if name not in self.lines:
            self.lines[name] = f"{name} = {code}"
        return name

    def const(self, obj: Any, fallback: bool = False) -> str:
        self.fallback |= fallback
        return self.consts.ref(obj)

    def prologue(self) -> list[str]:
        return list(self.lines.values())

    @property
    def reads_order(self) -> bool:
        return self.fallback or any(n.startswith(_ORDER_NAMES) for n in self.used)


@dataclass
class Constants:
    """The objects generated code refers to as ``K[i]`` (closures, tables, patterns)."""

    items: list[Any] = field(default_factory=list)
    index: dict[int, int] = field(default_factory=dict)

    def ref(self, obj: Any) -> str:
        key = id(obj)
        if key not in self.index:
            self.index[key] = len(self.items)
            self.items.append(obj)
        return f"K[{self.index[key]}]"


# ====================================================================== runtime helpers


def _leadrun(winners: tuple[int, ...]) -> tuple[int, int]:
    """(first trick's winner, how many tricks he won from the first on); (-1, 0) unplayed."""
    if not winners:
        return -1, 0
    first = winners[0]
    n = 0
    for w in winners:
        if w != first:
            break
        n += 1
    return first, n


def _seq(order: Any, tricks: Any, pattern: tuple[Any, int, bool, bool]) -> int:
    orders, between, at_start, not_at_start = pattern
    return sum(dsl.count_sequences(order, tricks, e, between, at_start, not_at_start) for e in orders)


def _pick(found: list[tuple[int, int, int, int]], keep_all: tuple[bool, ...] | None
          ) -> list[tuple[int, int, int, int]]:
    """A group's firings (item, seat, amount, count): each seat's best (the first on a tie),
    or all of a seat's where *keep_all* holds for it."""
    best: dict[int, tuple[int, int, int, int]] = {}
    for f in found:
        p = f[1]
        if p not in best or f[2] > best[p][2]:
            best[p] = f
    return [f for f in found if best[f[1]] is f or (keep_all is not None and keep_all[f[1]])]


def _payers(channel: str) -> Callable[[list[int], Any, int, int, Any], None]:
    """A channel's payment added into nets N (for group and shared steps; single items are inline)."""
    if channel == "kai_zhu":
        def pay(N: list[int], st: Any, p: int, a: int, ex: Any) -> None:
            b = st.banker
            if b == p:
                for q in SEATS:
                    N[q] -= a
                N[p] += 4 * a
            else:
                N[p] += a
                N[b] -= a
    elif channel == "kai_zhu_winner_only":
        def pay(N: list[int], st: Any, p: int, a: int, ex: Any) -> None:
            if a > 0:
                _KAI_ZHU(N, st, p, a, ex)
    elif channel == "qiao_men":
        def pay(N: list[int], st: Any, p: int, a: int, ex: Any) -> None:
            b = st.banker
            if b != p:
                for q in SEATS:
                    if q != p and q != b:
                        N[q] -= a
                        N[p] += a
    elif channel in ("gong_he", "san_jia"):
        def pay(N: list[int], st: Any, p: int, a: int, ex: Any) -> None:
            for q in SEATS:
                if q != p and not (ex is not None and channel == "gong_he" and ex[q]):
                    N[q] -= a
                    N[p] += a
    elif channel == "guan_dui":
        def pay(N: list[int], st: Any, p: int, a: int, ex: Any) -> None:
            N[p] += a
            N[GUAN_DUI] -= a
            st.pool -= a
    elif channel == "none":
        def pay(N: list[int], st: Any, p: int, a: int, ex: Any) -> None:
            return None
    else:
        raise ValueError(f"no payment code for channel {channel!r}")
    return pay


_KAI_ZHU = _payers("kai_zhu")
_PAYERS = {ch: _payers(ch) for ch in ("kai_zhu", "kai_zhu_winner_only", "qiao_men", "gong_he",
                                       "san_jia", "guan_dui", "none")}

_HELPERS: dict[str, Any] = {
    "LEADRUN": _leadrun,
    "SEQ": _seq,
    "RUN": dsl.longest_run,
    "TOP": dsl.top_cards,
    "BOTTOM": dsl.bottom_cards,
    "BELOW": dsl._below_mask,
    "PICK": _pick,
}


# ====================================================================== the generator


def _indent(lines: list[str], n: int = 1) -> list[str]:
    pad = "    " * n
    return [pad + line for line in lines]


class _Generator:
    def __init__(self, ruleset: Ruleset) -> None:
        self.rs = ruleset
        self.consts = Constants()
        self.items: list[ItemDef] = list(ruleset.items.values())
        self.index = {item.id: i for i, item in enumerate(self.items)}
        self.bits = [ruleset.fired_bits[item.id] for item in self.items]
        self.item_bits = tuple(self.bits)
        self.item_payers = tuple(_PAYERS[item.channel] for item in self.items)
        self.reads_order = False
        self.fallbacks = 0
        self.tables: dict[int, Any] = {}

    # ------------------------------------------------------------------ functions

    def module(self) -> str:
        parts = ["# Generated by mahdiao_rules.ruleset.codegen: do not edit.", ""]
        parts += self.sets_function()
        for phase in PHASES:
            for variant in ("fast", "fire"):
                parts += ["", ""] + self.phase_function(phase, variant)
        return "\n".join(parts) + "\n"

    def sets_function(self) -> list[str]:
        nodes = self.rs.dynamic_set_nodes
        scope = Scope(self.consts, defined=tuple(f"ds{i}" for i in range(len(nodes))))
        e = Emitter(self.rs, scope, self.tables)
        body = ["S = st.sets = []"]
        for i, node in enumerate(nodes):
            code, mask = e._set(node)
            body += scope.prologue()
            scope.lines.clear()
            body.append(f"ds{i} = {code if mask is None else hexm(mask)}")
            body.append(f"S.append(ds{i})")
        self.fallbacks += scope.fallback
        return ["def sets(st):", *_indent(body + ["return S"])]

    def phase_function(self, phase: str, variant: str) -> list[str]:
        scope = Scope(self.consts)
        e = Emitter(self.rs, scope, self.tables)
        body: list[str] = []
        run: list[_Single] = []  # consecutive single items that share a test (for seat 0)
        shared: set[str] = set()
        for step in self.rs.phases[phase]:
            code = self.step(e, step, variant)
            if isinstance(code, _Single) and run and shared & code.tests():
                run.append(code)
                shared &= code.tests()
                continue
            if run:
                body += self.block(e, run)
            run, shared = ([code], code.tests()) if isinstance(code, _Single) else ([], set())
            if not isinstance(code, _Single):
                body += code
        if run:
            body += self.block(e, run)
        self.reads_order |= scope.reads_order
        self.fallbacks += scope.fallback
        arg = "N" if variant == "fast" else "E"
        lines = scope.prologue() + body
        return [f"def {variant}_{phase}(st, {arg}):", *_indent(lines or ["pass"])]

    # ------------------------------------------------------------------ steps

    def parts(self, e: Emitter, item: ItemDef, p: int) -> tuple[Cond, Num | None, Num]:
        raw = item.raw
        cond = e.cond(raw.get("when", True), p)
        per = e.counter(raw["per"], p) if "per" in raw else None
        return cond, per, e.num(raw["zhu"], p, TICKS_PER_ZHU)

    def step(self, e: Emitter, step: Step, variant: str) -> list[str] | _Single:
        """The code of one step, or (fast variant) a single item that may join a block."""
        if step.group is not None:
            return self.group(e, step, variant)
        item = step.items[0]
        i = self.index[item.id]
        before = e.scope.reads_pool, e.scope.fallback
        e.scope.reads_pool = e.scope.fallback = False
        seats = [(p, *self.parts(e, item, p)) for p in SEATS]
        collect = variant == "fire" or item.split or e.scope.reads_pool or e.scope.fallback
        e.scope.reads_pool |= before[0]
        e.scope.fallback |= before[1]
        if collect:
            return self.collected(e, item, i, seats, variant)
        single = _Single(item, i, seats)
        return single if item.channel != "guan_dui" and single.own_seat_only() else self.single(e, single)

    def single(self, e: Emitter, single: _Single) -> list[str]:
        out: list[str] = []
        for p, cond, per, amt in single.seats:
            if cond == FALSE or (per is not None and per.const == 0):
                continue
            fire = self.fire_fast(e, single.item, single.index, p, per, amt)
            out += [f"if {c_code(cond)}:", *_indent(fire)] if cond else fire
        return out

    def count_lines(self, per: Num | None, then: list[str]) -> list[str]:
        """``then`` for a seat whose count (``per:``) is not 0; ``n`` holds the count."""
        if per is None or per.const is not None:
            return then
        return [f"n = {per.code}", "if n:", *_indent(then)]

    @staticmethod
    def amount(per: Num | None, amt: Num) -> str:
        if per is None:
            return amt.code
        if per.const is not None:
            if amt.const is not None:
                return str(amt.const * per.const)
            return f"{paren(amt.code)} * {per.const}"
        return f"{paren(amt.code)} * n"

    def fire_fast(self, e: Emitter, item: ItemDef, i: int, p: int, per: Num | None, amt: Num) -> list[str]:
        lines = [f"{e.need('FD')}[{p}] |= {hexm(self.bits[i])}"]
        amount = self.amount(per, amt)
        if amount.lstrip("-").isdigit():
            lines += self.pay_inline(e, item.channel, p, int(amount))
        else:
            pay = self.pay_inline(e, item.channel, p, "a")
            if pay:
                lines += [f"a = {amount}", *pay]
        return self.count_lines(per, lines)

    def collected(self, e: Emitter, item: ItemDef, i: int, seats: list[Any], variant: str) -> list[str]:
        """Judge all four seats first, then pay (shared amounts, the pool read, the ledger order)."""
        out = ["L = []"]
        if item.split:
            out.append("k = 0")
        for p, cond, per, amt in seats:
            if cond == FALSE:
                continue
            if per is not None and per.const == 0:
                continue
            count = "n" if per is not None and per.const is None else str(per.const if per else 1)
            # split: the amount is shared among the seats the item fires for (count not 0)
            then = self.count_lines(per, (["k += 1"] if item.split else [])
                                    + [f"L.append(({i}, {p}, {self.amount(per, amt)}, {count}))"])
            out += [f"if {c_code(cond)}:", *_indent(then)] if cond else then
        body = []
        if item.split:
            body.append("if k > 1: L = [(i_, p_, a_ // k, n_) for i_, p_, a_, n_ in L]")
        fd = e.need("FD")
        bit = hexm(self.bits[i])
        if variant == "fire":
            body += [f"for i_, p_, a_, n_ in L: {fd}[p_] |= {bit}", "for x_ in L: E(*x_)"]
        else:
            ex = self.exempt_tuple(e) if item.channel == "gong_he" else "None"
            body += ["for i_, p_, a_, n_ in L:",
                     f"    {fd}[p_] |= {bit}",
                     f"    {self.consts.ref(self.item_payers[i])}(N, st, p_, a_, {ex})"]
        return out + ["if L:", *_indent(body)]

    def group(self, e: Emitter, step: Step, variant: str) -> list[str]:
        members = [(self.index[item.id], item) for item in step.items]
        per_seat = {p: [(i, item, *self.parts(e, item, p)) for i, item in members] for p in SEATS}
        gbit = self.rs.fired_bits[step.group]  # type: ignore[index]
        out = ["G = []"]
        if variant == "fire":  # the ledger order: member, then seat
            for i, _item in members:
                for p in SEATS:
                    _i, _item, cond, per, amt = next(m for m in per_seat[p] if m[0] == i)
                    out += self.group_member(cond, per, amt, i, p)
        else:
            for p in SEATS:
                out += self.group_seat(per_seat[p], p)
        fd = e.need("FD")
        body = []
        keep = "None"
        spec = self.rs.groups.get(step.group or "", {})
        if "all_when" in spec:
            conds = [e.cond(spec["all_when"], p) for p in SEATS]
            keep = "(" + ", ".join(f"bool({c_code(c)})" for c in conds) + ")"
        body.append(f"G = PICK(G, {keep})")
        bits = f"{fd}[p_] |= {self.consts.ref(self.item_bits)}[i_] | {hexm(gbit)}"
        if variant == "fire":
            body += [f"for i_, p_, a_, n_ in G: {bits}", "for x_ in G: E(*x_)"]
        else:
            body += ["for i_, p_, a_, n_ in G:", f"    {bits}",
                     f"    {self.consts.ref(self.item_payers)}[i_](N, st, p_, a_, {self.exempt_tuple(e)})"]
        return out + ["if G:", *_indent(body)]

    def group_member(self, cond: Cond, per: Num | None, amt: Num, i: int, p: int) -> list[str]:
        if cond == FALSE or (per is not None and per.const == 0):
            return []
        count = "n" if per is not None and per.const is None else str(per.const if per else 1)
        then = self.count_lines(per, [f"G.append(({i}, {p}, {self.amount(per, amt)}, {count}))"])
        return [f"if {c_code(cond)}:", *_indent(then)] if cond else then

    def group_seat(self, members: list[Any], p: int) -> list[str]:
        """A group's members for one seat, under the tests they all share."""
        live = [m for m in members if m[2] != FALSE and not (m[3] is not None and m[3].const == 0)]
        guard, conds = _shared_guard([m[2] for m in live])
        body: list[str] = []
        for (i, _item, _cond, per, amt), cond in zip(live, conds, strict=True):
            body += self.group_member(cond, per, amt, i, p)
        return _guarded(guard, body)

    def block(self, e: Emitter, singles: list[_Single]) -> list[str]:
        """Consecutive single items whose judgement only reads and sets their own seat's state:
        judged seat by seat (the same payments and fired bits in another order), each seat's
        items under the tests they all share — a seat without the cards skips them all."""
        if len(singles) == 1:
            return self.single(e, singles[0])
        out: list[str] = []
        for p in SEATS:
            live = [(s, cond, per, amt) for s in singles for q, cond, per, amt in s.seats
                    if q == p and cond != FALSE and not (per is not None and per.const == 0)]
            guard, conds = _shared_guard([m[1] for m in live])
            body: list[str] = []
            for (s, _cond, per, amt), cond in zip(live, conds, strict=True):
                fire = self.fire_fast(e, s.item, s.index, p, per, amt)
                body += [f"if {c_code(cond)}:", *_indent(fire)] if cond else fire
            out += _guarded(guard, body)
        return out

    # ------------------------------------------------------------------ payments

    def exempt_tuple(self, e: Emitter) -> str:
        if self.rs.he_exempt_node is None:
            return "None"
        return e.scope.define("EXT", "(" + ", ".join(self.exempt(e, q) for q in SEATS) + ")")

    def exempt(self, e: Emitter, q: int) -> str:
        """Whether seat q is exempt from paying 賀 (the same all hand)."""
        cond = e.cond(self.rs.he_exempt_node, q)
        return e.scope.define(f"EX{q}", f"bool({c_code(cond)})")

    def pay_inline(self, e: Emitter, channel: str, p: int, a: int | str) -> list[str]:
        """Statements adding amount *a* fired for seat *p* into N through *channel*."""
        if a == 0 or channel == "none":
            return []
        others = [q for q in SEATS if q != p]

        def times(k: int) -> str:
            return str(k * a) if isinstance(a, int) else f"{k} * {a}"

        if channel in ("kai_zhu", "kai_zhu_winner_only"):
            if channel == "kai_zhu_winner_only" and isinstance(a, int) and a < 0:
                return []
            b = e.need("b")
            lines = [f"if {b} == {p}:",
                     "    " + "; ".join([f"N[{q}] -= {a}" for q in others] + [f"N[{p}] += {times(3)}"]),
                     "else:",
                     f"    N[{p}] += {a}; N[{b}] -= {a}"]
            if channel == "kai_zhu_winner_only" and not isinstance(a, int):
                return [f"if {a} > 0:", *_indent(lines)]
            return lines
        if channel == "qiao_men":
            b = e.need("b")
            return [f"if {b} != {p}:",
                    "    " + "; ".join([f"N[{q}] -= {a}" for q in others]
                                       + [f"N[{p}] += {times(2)}", f"N[{b}] += {a}"])]
        if channel == "gong_he" and self.rs.he_exempt_node is not None:
            return [f"if not {self.exempt(e, q)}: N[{q}] -= {a}; N[{p}] += {a}" for q in others]
        if channel in ("gong_he", "san_jia"):
            return ["; ".join([f"N[{q}] -= {a}" for q in others] + [f"N[{p}] += {times(3)}"])]
        if channel == "guan_dui":
            return [f"N[{p}] += {a}; N[{GUAN_DUI}] -= {a}; st.pool -= {a}"]
        raise ValueError(f"no payment code for channel {channel!r}")


@dataclass
class _Single:
    """A single item's parts per seat (fast variant), before it is placed in a block."""

    item: ItemDef
    index: int
    seats: list[tuple[int, Cond, Num | None, Num]]

    def own_seat_only(self) -> bool:
        """Judging seat p reads no other seat's fired bits (the only state items change that
        conditions read, with the pool, which blocks leave out)."""
        for p, cond, per, amt in self.seats:
            code = " ".join([c_code(cond), amt.code] + ([per.code] if per else []))
            if any(f"FD[{q}]" in code for q in SEATS if q != p):
                return False
        return True

    def tests(self) -> set[str]:
        """The tests of seat 0's condition (every seat's have the same shape)."""
        return {t[0] for t in self.seats[0][1]}


def _shared_guard(conds: list[Cond]) -> tuple[Cond, list[Cond]]:
    """For conditions judged one after another for one seat: the tests they all share and a
    test implied by each of them (at least k cards of the union of their masks), and the
    conditions without the shared tests."""
    if not conds:
        return TRUE, []
    common = [t for t in conds[0] if all(any(u[0] == t[0] for u in c) for c in conds[1:])]
    codes = {t[0] for t in common}
    rest = [tuple(t for t in cond if t[0] not in codes) for cond in conds]
    guard: Cond = tuple(common)
    reqs = [strongest_req(c) for c in rest]
    if len(rest) > 1 and all(r is not None for r in reqs) and len({r[0] for r in reqs}) == 1:  # type: ignore[index]
        union = 0
        for r in reqs:
            union |= r[1]  # type: ignore[index]
        k = min(r[2] for r in reqs)  # type: ignore[index]
        src = reqs[0][0]  # type: ignore[index]
        test = f"{src} & {hexm(union)} != 0" if k == 1 else f"({src} & {hexm(union)}).bit_count() >= {k}"
        guard = c_and([guard, ((test, 3, None),)])
    return guard, rest


def _guarded(guard: Cond, body: list[str]) -> list[str]:
    if not body or guard == TRUE:
        return body
    return [f"if {c_code(guard)}:", *_indent(body)]


# ====================================================================== the engine


@dataclass(frozen=True)
class Engine:
    """The generated functions of one ruleset (see the module docstring)."""

    source: str
    sets: Callable[[Any], list[int]]
    fast: dict[str, Callable[[Any, list[int]], None]]
    fire: dict[str, Callable[[Any, Callable[..., None]], None]]
    ends: int
    """Fired bits of the deal-phase items that end the hand."""
    reads_order: bool
    """Some phase reads the won order or the trick winners (HandState.won_order, …)."""
    fallbacks: int
    """How many functions call a compiled closure for a node without an emitter."""
    items: tuple[ItemDef, ...]
    """The items by index (the generated code names items by index only)."""

    @property
    def legend(self) -> tuple[str, ...]:
        return tuple(item.id for item in self.items)


_CACHE: dict[tuple[Any, ...], Engine] = {}


def engine(ruleset: Ruleset) -> Engine:
    """The generated engine of *ruleset* (made once per ruleset hash and option values)."""
    eng = ruleset.engine
    if eng is None:
        key = (__version__, ruleset.content_hash, tuple(sorted(ruleset.option_values.items())),
               tuple(ruleset.items))
        eng = _CACHE.get(key)
        if eng is None:
            eng = _CACHE[key] = _build(ruleset)
        ruleset.engine = eng
    return eng


def engine_source(ruleset: Ruleset) -> str:
    """The generated source of *ruleset*'s engine, after a legend of its item indexes."""
    return engine_source_of(engine(ruleset))


def _build(ruleset: Ruleset) -> Engine:
    gen = _Generator(ruleset)
    source = gen.module()
    namespace: dict[str, Any] = dict(_HELPERS)
    namespace["K"] = tuple(gen.consts.items)
    filename = f"<mahdiao engine {ruleset.content_hash}>"
    exec(compile(source, filename, "exec"), namespace)  # generated from validated data only
    ends = 0
    for step in ruleset.phases["deal"]:
        for item in step.items:
            if item.ends_hand:
                ends |= ruleset.fired_bits[item.id]
    eng = Engine(
        source=source,
        sets=namespace["sets"],
        fast={phase: namespace[f"fast_{phase}"] for phase in PHASES},
        fire={phase: namespace[f"fire_{phase}"] for phase in PHASES},
        ends=ends,
        reads_order=gen.reads_order,
        fallbacks=gen.fallbacks,
        items=tuple(gen.items),
    )
    folder = os.environ.get("MAHDIAO_ENGINE_DUMP")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / f"engine-{ruleset.content_hash}.py").write_text(
            engine_source_of(eng), encoding="utf-8")
    return eng


def engine_source_of(eng: Engine) -> str:
    legend = "\n".join(f"#   {i}: {iid!r}" for i, iid in enumerate(eng.legend))
    return f"# items by index:\n{legend}\n\n{eng.source}"
