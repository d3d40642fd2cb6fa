"""Emitters: one per node kind of the rule language, each producing a Python expression.

The generated engine (:mod:`mahdiao_rules.ruleset.codegen`) is built from these.  The
compiler has already checked the ruleset, so an emitter walks the same validated tree
(option switches resolved with the run's values, card sets read by
:meth:`Compiler.card_set`, bounds by :func:`dsl._limits`, patterns by the ``*_spec``
readers of :mod:`dsl`) and returns an expression over *local variables of the generated
function* for one seat ``p``, a constant of the code:

* ``h0``–``h3``, ``w0``–``w3``, ``t0``–``t3`` — the seats' dealt and won cards (40-bit
  masks) and trick counts; ``b`` the banker; ``FD`` the fired bits (``HandState.fired``);
* derived values computed once per phase call (the *prologue*): stock-dependent sets,
  the first and last won card, the sorted trick counts, the 吊 of each seat, …;
* card sets as integer literals.

A kind without an emitter (or a case an emitter does not cover) falls back to the
closure the compiler makes for that node, called through the constants tuple as
``K[i](st, p)``: every kind of the language works, only slower.  The text of the
generated code is made here from identifiers and integers only; nothing from the YAML
(names, ids, quotes) ever reaches it.

A condition is a conjunction of *terms* ``(code, cost, requirement)``: terms of one
condition may be reordered (they have no side effects), so the cheap ones — trick counts,
mask tests — are tested first, and a group of items can share the tests common to all
its members (``requirement``: at least k cards of a mask, used to build such guards).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..cards import SUIT_MASKS
from ..io.yamlsafe import Document
from . import dsl
from .dsl import Compiler

# Rough relative costs of a term, to test cheap terms first.
VAR, MASK, COUNT, CALL, FALLBACK = 1, 2, 3, 20, 50

Req = tuple[str, int, int]
"""(source code, mask, k): the term implies at least k cards of mask in that source."""
Term = tuple[str, int, Req | None]
Cond = tuple[Term, ...]
"""A conjunction of terms; () is true."""
TRUE: Cond = ()
FALSE: Cond = (("False", 0, None),)


class NoEmitter(Exception):
    """This node has no emitter (or not for this case): use the compiled closure."""


@dataclass(frozen=True, slots=True)
class Num:
    """A numeric expression: its code, cost and, when known, its constant value or range."""

    code: str
    cost: int
    const: int | None = None
    lo: int | None = None
    hi: int | None = None
    run_of: tuple[str, int] | None = None
    """For the longest run of (source, mask): a run of k needs k such cards in one suit."""


def const_num(value: int) -> Num:
    return Num(str(value), 0, value, value, value)


def hexm(mask: int) -> str:
    return hex(mask)


def paren(code: str) -> str:
    """*code* safe to combine with other operators."""
    if code.isidentifier() or code.lstrip("-").isdigit() or code.startswith("0x"):
        return code
    if code.startswith("(") and code.endswith(")") and _closes_at_end(code):
        return code
    return f"({code})"


def _closes_at_end(code: str) -> bool:
    depth = 0
    for i, ch in enumerate(code):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and i != len(code) - 1:
                return False
    return True


def c_and(parts: Sequence[Cond]) -> Cond:
    out: list[Term] = []
    seen: set[str] = set()
    for part in parts:
        if part == FALSE:
            return FALSE
        for term in part:
            if term[0] not in seen:
                seen.add(term[0])
                out.append(term)
    return tuple(out)


def c_code(cond: Cond) -> str:
    """The condition as one expression, cheapest terms first."""
    if not cond:
        return "True"
    terms = sorted(cond, key=lambda t: t[1])
    if len(terms) == 1:
        return terms[0][0]
    return " and ".join(paren(t[0]) for t in terms)


def c_cost(cond: Cond) -> int:
    return sum(t[1] for t in cond)


def c_or(parts: Sequence[Cond]) -> Cond:
    alts: list[Cond] = []
    for part in parts:
        if part == TRUE:
            return TRUE
        if part != FALSE and part not in alts:
            alts.append(part)
    if not alts:
        return FALSE
    if len(alts) == 1:
        return alts[0]
    code = " or ".join(paren(c_code(a)) for a in alts)
    return ((f"({code})", sum(c_cost(a) for a in alts), _common_req(alts)),)


def _common_req(alts: Sequence[Cond]) -> Req | None:
    """A requirement implied by every alternative (the union of their masks, the least k)."""
    reqs = [strongest_req(a) for a in alts]
    if any(r is None for r in reqs) or len({r[0] for r in reqs}) != 1:  # type: ignore[index]
        return None
    mask = 0
    for r in reqs:
        mask |= r[1]  # type: ignore[index]
    return reqs[0][0], mask, min(r[2] for r in reqs)  # type: ignore[index]


def strongest_req(cond: Cond, src: str | None = None) -> Req | None:
    """The requirement of *cond* that says the most (largest k, then smallest mask)."""
    best: Req | None = None
    for _code, _cost, req in cond:
        if req is None or (src is not None and req[0] != src):
            continue
        if best is None or (req[2], -req[1].bit_count()) > (best[2], -best[1].bit_count()):
            best = req
    return best


def has_all(src: str, mask: int) -> Cond:
    """Every card of *mask* is among *src*."""
    return ((f"{src} & {hexm(mask)} == {hexm(mask)}", MASK, (src, mask, mask.bit_count())),)


def has_any(src: str, mask: int) -> Cond:
    """Some card of *mask* is among *src*."""
    return ((f"{src} & {hexm(mask)} != 0", MASK, (src, mask, 1)),)


def meets_each(src: str, masks: list[int]) -> Cond:
    """*src* has a card of every mask (false when a mask is empty); the single cards are
    tested together in one mask test."""
    every, anys = 0, []
    for m in masks:
        if m.bit_count() == 1:
            every |= m
        else:
            anys.append(m)
    if 0 in anys:
        return FALSE
    return c_and(([has_all(src, every)] if every else []) + [has_any(src, m) for m in sorted(anys)])


def c_not(cond: Cond) -> Cond:
    if cond == TRUE:
        return FALSE
    if cond == FALSE:
        return TRUE
    return ((f"not {paren(c_code(cond))}", c_cost(cond), None),)


def bounded(expr: str, lo: float, hi: float, cost: int, vmin: int | None, vmax: int | None) -> Cond:
    """``lo <= expr <= hi`` (an infinite bound is no bound), dropping what the known range
    [vmin, vmax] of *expr* makes true."""
    low = lo != dsl.NO_MIN and (vmin is None or lo > vmin)
    high = hi != dsl.NO_MAX and (vmax is None or hi < vmax)
    if vmin is not None and vmax is not None:
        if lo > hi or lo > vmax or hi < vmin:
            return FALSE
    if not low and not high:
        return TRUE
    e = paren(expr)
    lo = int(lo) if low else 0  # validated whole numbers; only integers reach the code
    hi = int(hi) if high else 0
    if low and high:
        code = f"{e} == {lo}" if lo == hi else f"{lo} <= {e} <= {hi}"
    elif low:
        code = f"{e} >= {lo}"
    else:
        code = f"{e} <= {hi}"
    return ((code, cost, None),)


# ====================================================================== the emitter


class Emitter:
    """Emit the expressions of one ruleset; *scope* (the function being generated) holds
    the prologue values and constants the expressions use."""

    def __init__(self, ruleset: Any, scope: Any, tables: dict[int, ByTricks] | None = None) -> None:
        self.c = Compiler(doc=Document("<generated engine>", None), options=dict(ruleset.option_values),
                          zhu_per_diao=ruleset.zhu_per_diao, named_sets=dict(ruleset.named_sets),
                          known_fired=dict(ruleset.fired_bits))
        self.scope = scope
        self.tables: dict[int, ByTricks] = tables if tables is not None else {}
        """Tables made per node (by id), shared by the four seats and the functions."""

    def resolve(self, node: Any) -> Any:
        return self.c.resolve(node, ())[0]

    def need(self, name: str) -> str:
        return self.scope.need(name)

    # ------------------------------------------------------------------ card sets

    def card_set(self, node: Any) -> tuple[str, int | None]:
        """(code, constant mask or None) of a card set; a stock-dependent one is computed in
        the prologue (it is the same for the whole hand)."""
        code, mask = self._set(node)
        if mask is not None:
            return hexm(mask), mask
        if code.isidentifier():
            return code, None
        return self.scope.derive(code), None

    def _set(self, node: Any) -> tuple[str, int | None]:
        node = self.resolve(node)
        try:
            if isinstance(node, str):
                expr = self.c.card_set(node, ())
                if expr.constant:
                    return hexm(expr.mask), expr.mask
                if expr.slot is None:
                    raise NoEmitter
                return self.need(f"ds{expr.slot}"), None
            if isinstance(node, list):
                return self._combine([self._set(n) for n in node], "|")
            if isinstance(node, dict) and len(node) == 1:
                kind, arg = next(iter(node.items()))
                fn = SET_EMITTERS.get(kind)
                if fn is not None:
                    return fn(self, arg)
        except NoEmitter:
            pass
        expr = self.c.card_set(node, ())  # the compiled set, called once per hand
        if expr.constant:
            return hexm(expr.mask), expr.mask
        return f"{self.scope.const(expr.fn)}(st)", None

    @staticmethod
    def _combine(parts: list[tuple[str, int | None]], op: str) -> tuple[str, int | None]:
        base = 0 if op == "|" else (1 << 40) - 1
        dyn = []
        for code, mask in parts:
            if mask is None:
                dyn.append(paren(code))
            elif op == "|":
                base |= mask
            else:
                base &= mask
        if not dyn:
            return hexm(base), base
        if (op == "|" and base) or (op == "&" and base != (1 << 40) - 1):
            dyn.append(hexm(base))
        return "(" + f" {op} ".join(dyn) + ")", None

    def source(self, of: str, p: int) -> str:
        """The cards of seat *p* an ``of:`` source names."""
        if of == "held":
            return self.need(f"h{p}")
        if of == "won":
            return self.need(f"w{p}")
        if of == "chong":
            return self.need(f"c{p}")
        if of == "won_chong":  # computed once a phase, like the other sources
            return self.scope.derive(f"{self.need(f'w{p}')} | {self.need(f'c{p}')}")
        if of == "others_won":
            return self.scope.derive(f"{self.need('WA')} & ~{self.need(f'w{p}')}")
        raise NoEmitter

    def source_of(self, node: Any, default: str, p: int) -> tuple[str, str]:
        name = dsl.source_name(self.c, node if node is not None else default, ())
        return name, self.source(name, p)

    # ------------------------------------------------------------------ conditions

    def cond(self, node: Any, p: int) -> Cond:
        node = self.resolve(node)
        if node is True:
            return TRUE
        if node is False:
            return FALSE
        if isinstance(node, list):
            return c_and([self.cond(n, p) for n in node])
        parts = []
        for kind, arg in node.items():
            fn = COND_EMITTERS.get(kind)
            try:
                if fn is None:
                    raise NoEmitter
                parts.append(fn(self, arg, p))
            except NoEmitter:
                closure = self.c.condition({kind: arg}, ())
                parts.append(((f"{self.scope.const(closure, fallback=True)}(st, {p})", FALLBACK, None),))
        return c_and(parts)

    # ------------------------------------------------------------------ numbers

    def num(self, node: Any, p: int, scale: int) -> Num:
        node = self.resolve(node)
        if isinstance(node, dict) and len(node) == 1:
            kind, arg = next(iter(node.items()))
            fn = NUM_EMITTERS.get(kind)
            try:
                if fn is None:
                    raise NoEmitter
                return fn(self, arg, p, scale)
            except NoEmitter:
                closure = self.c.numeric(node, (), scale)
                return Num(f"{self.scope.const(closure, fallback=True)}(st, {p})", FALLBACK)
        return const_num(self.c.literal(node, (), scale))

    def counter(self, node: Any, p: int) -> Num:
        """``per:``: {won: SET}, {held: SET} or any count."""
        node = self.resolve(node)
        if isinstance(node, dict) and len(node) == 1 and next(iter(node)) in ("won", "held"):
            (kind, arg), = node.items()
            return self.num({"count": {"in": arg, "of": kind}}, p, 1)
        return self.num(node, p, 1)

    # ------------------------------------------------------------------ patterns

    def pattern(self, spec: dsl.SequenceSpec, p: int) -> tuple[str, Cond]:
        """A won-order pattern: (code counting its matches, necessary terms to test first)."""
        orders = []
        for elems in spec.orders:
            masks = []
            for card, has in elems:
                if not card.constant or (has is not None and not has.constant):
                    raise NoEmitter
                masks.append((card.mask, None if has is None else has.mask))
            orders.append(tuple(masks))
        won = self.need(f"w{p}")
        guard: list[Cond] = []
        every = 0
        for card, _has in orders[0]:
            if card == 0:
                return "0", FALSE
            if card.bit_count() == 1:
                every |= card
            else:
                guard.append(has_any(won, card))
        if every:
            guard.insert(0, has_all(won, every))
        if spec.at_start:
            firsts = 0
            for o in orders:
                firsts |= o[0][0]
            guard.insert(0, ((f"{self.need(f'fb{p}')} & {hexm(firsts)} != 0", MASK, None),))
        pattern = (tuple(orders), spec.between, spec.at_start, spec.not_at_start)
        tricks = self.need(f"K{p}") if any(h is not None for o in orders for _c, h in o) else "()"
        code = f"SEQ({self.need(f'O{p}')}, {tricks}, {self.scope.const(pattern)})"
        return code, c_and(guard)

    def suits_having(self, arg: Any, p: int) -> tuple[list[Cond], str]:
        """Per suit that can count, the test that it does; and the source."""
        sets, of = dsl.suits_having_spec(self.c, arg, ())
        if any(not s.constant for s in sets):
            raise NoEmitter
        src = self.source(of, p)
        tests = [meets_each(src, [s.mask & suit for s in sets]) for suit in SUIT_MASKS]
        return [t for t in tests if t != FALSE], src


def _sum_of_tests(tests: list[Cond]) -> Num:
    if not tests:
        return const_num(0)
    if len(tests) == 1:
        code = paren(c_code(tests[0]))
        return Num(f"int({code})" if tests[0] else "1", sum(c_cost(t) for t in tests), None, 0, 1)
    code = " + ".join(paren(c_code(t)) for t in tests)
    return Num(f"({code})", sum(c_cost(t) for t in tests), None, 0, len(tests))


# ====================================================================== card-set kinds


def _s_and(e: Emitter, arg: Any) -> tuple[str, int | None]:
    return e._combine([e._set(n) for n in e.resolve(arg)], "&")


def _s_or(e: Emitter, arg: Any) -> tuple[str, int | None]:
    return e._combine([e._set(n) for n in e.resolve(arg)], "|")


def _s_except(e: Emitter, arg: Any) -> tuple[str, int | None]:
    (a, am), (b, bm) = (e._set(n) for n in e.resolve(arg))
    if am is not None and bm is not None:
        return hexm(am & ~bm), am & ~bm
    return f"({paren(a)} & ~{paren(b)})", None


def _s_stock(e: Emitter, arg: Any) -> tuple[str, int | None]:
    i = e.resolve(arg)
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < 8:
        raise NoEmitter
    return f"(1 << {e.need('ST')}[{i}])", None


def _s_below(e: Emitter, arg: Any) -> tuple[str, int | None]:
    code, mask = e._set(arg)
    if mask is not None:
        below = dsl._below_mask(mask)
        return hexm(below), below
    return f"BELOW({code})", None


SET_EMITTERS: dict[str, Callable[[Emitter, Any], tuple[str, int | None]]] = {
    "and": _s_and,
    "or": _s_or,
    "except": _s_except,
    "stock": _s_stock,
    "below": _s_below,
}


# ====================================================================== condition kinds


def _c_subset(attr: str) -> Callable[[Emitter, Any, int], Cond]:
    def emit(e: Emitter, arg: Any, p: int) -> Cond:
        code, mask = e.card_set(arg)
        src = e.source(attr, p)
        if mask is None:
            return ((f"({code} != 0 and {src} & {code} == {code})", MASK + 1, None),)
        if mask == 0:
            return TRUE
        return ((f"{src} & {code} == {code}", MASK, (src, mask, mask.bit_count())),)
    return emit


def _c_overlap(attr: str) -> Callable[[Emitter, Any, int], Cond]:
    def emit(e: Emitter, arg: Any, p: int) -> Cond:
        code, mask = e.card_set(arg)
        src = e.source(attr, p)
        if mask == 0:
            return FALSE
        return ((f"{src} & {code} != 0", MASK, None if mask is None else (src, mask, 1)),)
    return emit


def _count_cond(src: str, code: str, mask: int | None, lo: int, hi: int) -> Cond:
    if mask is None:
        return bounded(f"({src} & {code}).bit_count()", lo, hi, COUNT, 0, 40)
    n = mask.bit_count()
    if lo > hi or lo > n or hi < 0:
        return FALSE
    if lo <= 0 and hi >= n:
        return TRUE
    if lo <= 0 and hi == 0:
        return ((f"{src} & {code} == 0", MASK, None),)
    if lo == 1 and hi >= n:
        return ((f"{src} & {code} != 0", MASK, (src, mask, 1)),)
    if lo == n:
        return ((f"{src} & {code} == {code}", MASK, (src, mask, n)),)
    cond = bounded(f"({src} & {code}).bit_count()", lo, hi, COUNT, 0, n)
    return tuple((c, cost, (src, mask, lo) if lo > 0 else None) for c, cost, _r in cond)


def _limits(e: Emitter, arg: dict[str, Any]) -> tuple[int, int]:
    return dsl._limits(e.c, {k: v for k, v in arg.items() if k in ("min", "max", "eq")}, ())


def _c_count(e: Emitter, arg: Any, p: int) -> Cond:
    arg = e.resolve(arg)
    _of, src = e.source_of(arg.get("of"), "held", p)
    code, mask = e.card_set(arg["in"])
    lo, hi = _limits(e, arg)
    return _count_cond(src, code, mask, lo, hi)


def _c_suit_count(e: Emitter, arg: Any, p: int) -> Cond:
    arg = e.resolve(arg)
    _of, src = e.source_of(arg.get("of"), "held", p)
    lo, hi = _limits(e, arg)
    alts = []
    for s in arg.get("suits", ["shi", "wan", "suo", "wen"]):
        code, mask = e.card_set(s)
        if mask is None:
            raise NoEmitter
        alts.append(_count_cond(src, code, mask, lo, hi))
    return c_or(alts)


def _c_tricks(e: Emitter, arg: Any, p: int) -> Cond:
    lo, hi = dsl._limits(e.c, arg, ())
    return bounded(e.need(f"t{p}"), lo, hi, VAR, 0, 8)


def _c_zheng_ben(e: Emitter, arg: Any, p: int) -> Cond:
    want = dsl._flag(e.c, arg, ())
    return ((f"{e.need(f't{p}')} {'>=' if want else '<'} 2", VAR, None),)


def _c_banker(e: Emitter, arg: Any, p: int) -> Cond:
    want = dsl._flag(e.c, arg, ())
    return ((f"{e.need('b')} {'==' if want else '!='} {p}", VAR, None),)


def _c_won_first(e: Emitter, arg: Any, p: int) -> Cond:
    n = e.resolve(arg)
    if isinstance(n, bool) or not isinstance(n, int):
        raise NoEmitter
    return ((f"{e.need('FW')} == {p} and {e.need('FR')} >= {int(n)}", VAR + 1, None),)


def _c_fired(e: Emitter, arg: Any, p: int) -> Cond:
    arg = e.resolve(arg)
    bits = 0
    for name in arg if isinstance(arg, list) else [arg]:
        if name not in e.c.known_fired:
            raise NoEmitter
        bits |= e.c.known_fired[name]
    return ((f"{e.need('FD')}[{p}] & {hexm(bits)} != 0", MASK, None),)


def _c_any_seat(e: Emitter, arg: Any, p: int) -> Cond:
    return c_or([e.cond(arg, q) for q in range(4)])


def _c_no_seat(e: Emitter, arg: Any, p: int) -> Cond:
    return c_not(_c_any_seat(e, arg, p))


def _c_all(e: Emitter, arg: Any, p: int) -> Cond:
    return c_and([e.cond(n, p) for n in e.resolve(arg)])


def _c_any(e: Emitter, arg: Any, p: int) -> Cond:
    return c_or([e.cond(n, p) for n in e.resolve(arg)])


def _c_not(e: Emitter, arg: Any, p: int) -> Cond:
    return c_not(e.cond(arg, p))


def _c_end_won(which: str) -> Callable[[Emitter, Any, int], Cond]:
    def emit(e: Emitter, arg: Any, p: int) -> Cond:
        code, mask = e.card_set(arg)
        if mask == 0:
            return FALSE
        return ((f"{e.need(f'{which}{p}')} & {code} != 0", MASK, None),)
    return emit


def _c_won_sequence(e: Emitter, arg: Any, p: int) -> Cond:
    code, guard = e.pattern(dsl.sequence_spec(e.c, arg, ()), p)
    if guard == FALSE:
        return FALSE
    return c_and([guard, ((f"{code} > 0", CALL, None),)])


def _c_suits_having(e: Emitter, arg: Any, p: int) -> Cond:
    counted, bounds = dsl.suits_having_parts(e.resolve(arg))
    tests, _src = e.suits_having(counted, p)
    lo, hi = dsl._limits(e.c, bounds, ())
    n = len(tests)  # the count is 0 … n
    if n and lo == 1 and hi >= n:
        return c_or(tests)  # some suit
    if n and lo <= 0 and hi == 0:
        return c_not(c_or(tests))  # no suit
    count = _sum_of_tests(tests)
    return bounded(count.code, lo, hi, count.cost, 0, n)


def _c_four_suits(e: Emitter, arg: Any, p: int) -> Cond:
    assignments, masks, of = dsl.four_suits_spec(e.c, arg, ())
    src = e.source(of, p)
    alts = [meets_each(src, [SUIT_MASKS[s] & masks[k] for s, k in enumerate(a)]) for a in assignments]
    alts = [a for a in alts if a != FALSE]
    found = c_or(alts)
    if len(alts) <= 1:
        return found
    union = 0
    for m in masks:
        union |= m
    guard = ((f"({src} & {hexm(union)}).bit_count() >= 4", COUNT, (src, union, 4)),)
    return c_and([guard, found])


def _c_split(e: Emitter, arg: Any, p: int) -> Cond:
    arg = e.resolve(arg)
    want = ", ".join(str(int(n)) for n in sorted(arg, reverse=True))
    return ((f"{e.need('TS')} == ({want})", MASK, None),)


def _c_value(e: Emitter, arg: Any, p: int) -> Cond:
    arg = e.resolve(arg)
    n = e.num(arg["of"], p, 1)
    lo, hi = _limits(e, arg)
    if n.const is not None:
        return TRUE if lo <= n.const <= hi else FALSE
    found = bounded(n.code, lo, hi, n.cost, n.lo, n.hi)
    if n.run_of is not None and lo >= 2:  # a run of lo cards needs lo cards of one suit
        src, mask = n.run_of
        suits = [((f"({src} & {hexm(mask & s)}).bit_count() >= {int(lo)}", COUNT, (src, mask & s, int(lo))),)
                 for s in SUIT_MASKS if (mask & s).bit_count() >= lo]
        found = c_and([c_or(suits), found])
    return found


COND_EMITTERS: dict[str, Callable[[Emitter, Any, int], Cond]] = {
    "all": _c_all,
    "any": _c_any,
    "not": _c_not,
    "held": _c_subset("held"),
    "held_any": _c_overlap("held"),
    "won": _c_subset("won"),
    "won_any": _c_overlap("won"),
    "count": _c_count,
    "suit_count": _c_suit_count,
    "tricks": _c_tricks,
    "zheng_ben": _c_zheng_ben,
    "banker": _c_banker,
    "won_first": _c_won_first,
    "fired": _c_fired,
    "any_seat": _c_any_seat,
    "no_seat": _c_no_seat,
    "first_won": _c_end_won("fb"),
    "last_won": _c_end_won("lb"),
    "won_sequence": _c_won_sequence,
    "suits_having": _c_suits_having,
    "four_suits": _c_four_suits,
    "split": _c_split,
    "value": _c_value,
}


# ====================================================================== numeric kinds


def _scaled(code: str, cost: int, scale: int, lo: int | None = None, hi: int | None = None) -> Num:
    if scale == 1:
        return Num(code, cost, None, lo, hi)
    return Num(f"{paren(code)} * {scale}", cost + 1, None,
               None if lo is None else lo * scale, None if hi is None else hi * scale)


def _n_count(e: Emitter, arg: Any, p: int, scale: int) -> Num:
    arg = e.resolve(arg)
    _of, src = e.source_of(arg.get("of"), "held", p)
    code, mask = e.card_set(arg["in"])
    if mask == 0:
        return const_num(0)
    n = 40 if mask is None else mask.bit_count()
    return _scaled(f"({src} & {code}).bit_count()", COUNT, scale, 0, n)


def _n_run(e: Emitter, arg: Any, p: int, scale: int) -> Num:
    arg = e.resolve(arg)
    _of, src = e.source_of(arg.get("of"), "held", p)
    code, mask = e.card_set(arg.get("in", ["十", "萬門", "索", "文"]))
    if mask is None:
        raise NoEmitter
    n = _scaled(f"RUN({src} & {code})", CALL, scale, 0, 11)
    return Num(n.code, n.cost, None, n.lo, n.hi, (src, mask) if scale == 1 else None)


def _n_unmatched(helper: str) -> Callable[[Emitter, Any, int, int], Num]:
    def emit(e: Emitter, arg: Any, p: int, scale: int) -> Num:
        _of, src = e.source_of(arg, "held", p)
        others = f"({e.need('HA')} & ~{e.need(f'h{p}')})"
        return _scaled(f"{helper}({src}, {others})", CALL, scale, 0, 40)
    return emit


def _n_sequences(e: Emitter, arg: Any, p: int, scale: int) -> Num:
    code, guard = e.pattern(dsl.sequence_spec(e.c, arg, ()), p)
    if guard == FALSE:
        return const_num(0)
    if guard:
        code = f"({code} if {c_code(guard)} else 0)"
    return _scaled(code, CALL, scale, 0, 8)


def _n_suits_having(e: Emitter, arg: Any, p: int, scale: int) -> Num:
    tests, _src = e.suits_having(arg, p)
    n = _sum_of_tests(tests)
    if n.const is not None:
        return const_num(n.const * scale)
    return _scaled(n.code, n.cost, scale, n.lo, n.hi)


def _n_tricks(e: Emitter, arg: Any, p: int, scale: int) -> Num:
    if e.resolve(arg) != "self":
        raise NoEmitter
    return _scaled(e.need(f"t{p}"), VAR, scale, 0, 8)


def _fold(parts: list[Num], op: str) -> Num:
    if all(n.const is not None for n in parts):
        value = 0 if op == "+" else 1
        for n in parts:
            value = value + n.const if op == "+" else value * n.const  # type: ignore[operator]
        return const_num(value)
    return Num("(" + f" {op} ".join(paren(n.code) for n in parts) + ")", sum(n.cost for n in parts))


def _n_sum(e: Emitter, arg: Any, p: int, scale: int) -> Num:
    parts = [e.num(n, p, scale) for n in e.resolve(arg)]
    const = sum(n.const for n in parts if n.const is not None)
    dyn = [n for n in parts if n.const is None]
    if not dyn:
        return const_num(const)
    return _fold(dyn + ([const_num(const)] if const else []), "+")


def _n_times(e: Emitter, arg: Any, p: int, scale: int) -> Num:
    a, b = e.resolve(arg)
    x, y = e.num(a, p, scale), e.num(b, p, 1)
    if x.const == 0 or y.const == 0:
        return const_num(0)
    return _fold([x, y], "*")


def _n_if(e: Emitter, arg: Any, p: int, scale: int) -> Num:
    arg = e.resolve(arg)
    cond = e.cond(arg["when"], p)
    then = e.num(arg["then"], p, scale)
    other = e.num(arg.get("else", 0), p, scale)
    if cond == TRUE:
        return then
    if cond == FALSE:
        return other
    code = f"({paren(then.code)} if {c_code(cond)} else {paren(other.code)})"
    return Num(code, c_cost(cond) + max(then.cost, other.cost))


def _n_extreme(name: str) -> Callable[[Emitter, Any, int, int], Num]:
    def emit(e: Emitter, arg: Any, p: int, scale: int) -> Num:
        parts = [e.num(n, p, scale) for n in e.resolve(arg)]
        if all(n.const is not None for n in parts):
            pick = max if name == "max" else min
            return const_num(pick(n.const for n in parts))  # type: ignore[type-var]
        return Num(f"{name}({', '.join(n.code for n in parts)})", sum(n.cost for n in parts) + 2)
    return emit


def _n_diao(e: Emitter, arg: Any, p: int, scale: int) -> Num:
    # The 吊 depends on the four trick counts only: a table per ruleset, looked up once a phase.
    by_tricks = e.tables.get(id(arg))
    if by_tricks is None:
        by_tricks = e.tables[id(arg)] = ByTricks(e.c.numeric({"diao": arg}, (), scale))
    table = e.scope.derive(f"{e.scope.const(by_tricks)}[{e.need('t0')}, {e.need('t1')}, "
                           f"{e.need('t2')}, {e.need('t3')}]")
    return Num(f"{table}[{p}]", MASK)


def _n_pool(e: Emitter, arg: Any, p: int, scale: int) -> Num:
    if e.resolve(arg) != "guan_dui" or scale == 1:
        raise NoEmitter
    e.scope.reads_pool = True
    return Num("st.pool", MASK)


def _n_chong_points(e: Emitter, arg: Any, p: int, scale: int) -> Num:
    if e.resolve(arg) != "self" or scale == 1:
        raise NoEmitter
    return Num(e.need(f"cp{p}"), VAR)


NUM_EMITTERS: dict[str, Callable[[Emitter, Any, int, int], Num]] = {
    "count": _n_count,
    "run": _n_run,
    "top_cards": _n_unmatched("TOP"),
    "bottom_cards": _n_unmatched("BOTTOM"),
    "sequences": _n_sequences,
    "suits_having": _n_suits_having,
    "tricks": _n_tricks,
    "sum": _n_sum,
    "times": _n_times,
    "if": _n_if,
    "max": _n_extreme("max"),
    "min": _n_extreme("min"),
    "diao": _n_diao,
    "pool": _n_pool,
    "chong_points": _n_chong_points,
}


class _Tricks:
    """What a 吊 closure reads: the trick counts."""

    __slots__ = ("tricks",)

    def __init__(self, tricks: tuple[int, ...]) -> None:
        self.tricks = list(tricks)


class ByTricks(dict):  # type: ignore[type-arg]
    """(t0, t1, t2, t3) → the amount of each seat, filled from the compiled closure when asked."""

    def __init__(self, fn: Callable[[Any, int], int]) -> None:
        super().__init__()
        self.fn = fn

    def __missing__(self, key: tuple[int, ...]) -> tuple[int, ...]:
        st = _Tricks(key)
        value = tuple(self.fn(st, p) for p in range(4))
        self[key] = value
        return value
