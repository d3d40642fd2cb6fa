"""The ruleset condition language, compiled once into fast closures.

A ruleset's YAML describes *card sets*, *conditions* and *amounts* as small
data trees.  Each node kind maps to one compile function in a table (as
jsonschema maps keywords to validators); compiling a node is a table lookup
plus binding parameters.  The results are plain closures over ints:

* a card set compiles to :class:`SetExpr` — a constant mask, or a function of
  the hand (when it depends on the stock, such as the promoted 次賞);
* a condition compiles to ``f(state, seat) -> bool``;
* an amount compiles to ``f(state, seat) -> ticks``.

Any node may instead be ``{option: NAME, cases: {VALUE: node, …}}``; the
option's value is known at compile time, so the choice costs nothing per hand.
Nothing here evaluates text as code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..cards import (
    CARD_ALIASES,
    CATEGORIES,
    CATEGORY_ALIASES,
    N_CARDS,
    SUIT_MASKS,
    below,
    closest_names,
)
from ..errors import InputError
from ..ledger import TICKS_PER_ZHU
from ..yamlsafe import Document, format_path

Path = tuple[str | int, ...]
Condition = Callable[["HandState", int], bool]
Amount = Callable[["HandState", int], int]


class HandState:
    """Everything a compiled rule may look at for one hand (mutable, one per replay)."""

    __slots__ = ("banker", "fired", "held", "pool", "sets", "stock", "trick_winners",
                 "tricks", "won")

    def __init__(self, banker: int, held: list[int], stock: tuple[int, ...]) -> None:
        self.banker = banker
        self.held = held
        self.stock = stock
        self.won = [0, 0, 0, 0]
        self.tricks = [0, 0, 0, 0]
        self.trick_winners: tuple[int, ...] = ()
        self.sets: list[int] = []
        self.fired: list[set[str]] = [set(), set(), set(), set()]
        self.pool = 0


@dataclass(frozen=True, slots=True)
class SetExpr:
    """A compiled card set: a constant mask, or ``fn(state) -> mask``."""

    mask: int = 0
    fn: Callable[[HandState], int] | None = None
    text: str = ""

    @property
    def constant(self) -> bool:
        return self.fn is None

    def value(self, st: HandState) -> int:
        return self.mask if self.fn is None else self.fn(st)


@dataclass
class Compiler:
    """Compile context: the document (for file:line errors), options and named sets."""

    doc: Document
    options: dict[str, str]
    named_sets: dict[str, SetExpr] = field(default_factory=dict)
    dynamic_sets: list[Callable[[HandState], int]] = field(default_factory=list)
    known_fired: set[str] = field(default_factory=set)
    options_used: set[str] = field(default_factory=set)
    evidence: tuple[list[SetExpr], list[SetExpr]] | None = None
    """While compiling an item: the sets its condition reads in won / held cards."""

    def note_evidence(self, attr: str, expr: SetExpr) -> None:
        if self.evidence is not None:
            self.evidence[0 if attr == "won" else 1].append(expr)

    # ------------------------------------------------------------------ errors

    def error(self, path: Path, message: str) -> InputError:
        return InputError(message, file=self.doc.file, line=self.doc.line_of(path),
                          place=format_path(path))

    # ------------------------------------------------------------------ options

    def resolve(self, node: Any, path: Path) -> tuple[Any, Path]:
        """Replace ``{option: X, cases: {...}}`` by the case chosen by option X."""
        while isinstance(node, dict) and "option" in node and "cases" in node:
            name = node["option"]
            if name not in self.options:
                hint = closest_names(str(name), self.options)
                extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
                raise self.error(path + ("option",), f"unknown option {name!r}{extra}")
            self.options_used.add(name)
            value = self.options[name]
            cases = node["cases"]
            if value not in cases:
                raise self.error(path + ("cases",),
                                 f"option {name!r} has value {value!r} but no case for it "
                                 f"(cases: {', '.join(map(str, cases))})")
            node, path = cases[value], path + ("cases", value)
        return node, path

    # ------------------------------------------------------------------ card sets

    def card_set(self, node: Any, path: Path) -> SetExpr:
        node, path = self.resolve(node, path)
        if isinstance(node, str):
            return self._named(node, path)
        if isinstance(node, list):
            parts = [self.card_set(n, path + (i,)) for i, n in enumerate(node)]
            return _combine(parts, "|")
        if isinstance(node, dict) and len(node) == 1:
            kind, arg = next(iter(node.items()))
            fn = SET_KINDS.get(kind)
            if fn is None:
                raise self.error(path, f"unknown card-set kind {kind!r} "
                                       f"(known: {', '.join(SET_KINDS)})")
            return fn(self, arg, path + (kind,))
        raise self.error(path, "a card set is a card or category name, a list of them, "
                               "or one of " + ", ".join(SET_KINDS))

    def _named(self, name: str, path: Path) -> SetExpr:
        if name in self.named_sets:
            return self.named_sets[name]
        cid = CATEGORY_ALIASES.get(name)
        if cid is not None:
            return SetExpr(mask=CATEGORIES[cid][0], text=name)
        card = CARD_ALIASES.get(name)
        if card is None:
            card = CARD_ALIASES.get(name.lower())
        if card is not None:
            return SetExpr(mask=1 << card, text=name)
        pool = [*self.named_sets, *CATEGORY_ALIASES, *CARD_ALIASES]
        hint = closest_names(name, pool)
        extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
        raise self.error(path, f"unknown card, category or set {name!r}{extra}")

    def define_set(self, name: str, node: Any, path: Path) -> None:
        """Define a named set; a stock-dependent one is evaluated once per hand."""
        expr = self.card_set(node, path)
        if expr.constant:
            self.named_sets[name] = SetExpr(mask=expr.mask, text=name)
            return
        slot = len(self.dynamic_sets)
        self.dynamic_sets.append(expr.fn)  # type: ignore[arg-type]
        self.named_sets[name] = SetExpr(fn=lambda st, _s=slot: st.sets[_s], text=name)

    # ------------------------------------------------------------------ conditions

    def condition(self, node: Any, path: Path) -> Condition:
        node, path = self.resolve(node, path)
        if node is True:
            return _always
        if isinstance(node, list):
            return _all([self.condition(n, path + (i,)) for i, n in enumerate(node)])
        if not isinstance(node, dict) or not node:
            raise self.error(path, "a condition is a mapping such as {won: 百老}, or a list "
                                   "of conditions that must all hold")
        parts = []
        for kind, arg in node.items():
            fn = CONDITION_KINDS.get(kind)
            if fn is None:
                hint = closest_names(str(kind), CONDITION_KINDS)
                extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
                raise self.error(path + (kind,), f"unknown condition kind {kind!r}{extra}")
            parts.append(fn(self, arg, path + (kind,)))
        return parts[0] if len(parts) == 1 else _all(parts)

    # ------------------------------------------------------------------ amounts

    def number(self, node: Any, path: Path) -> int:
        """A 注 amount as exact ticks (numbers must be multiples of ½)."""
        node, path = self.resolve(node, path)
        if isinstance(node, bool) or not isinstance(node, int | float):
            raise self.error(path, f"expected a number of 注, got {node!r}")
        value = Fraction(str(node)) * TICKS_PER_ZHU
        if value.denominator != 1:
            raise self.error(path, f"{node} 注 is not a whole number of ½ 注")
        return int(value)

    def amount(self, node: Any, path: Path, *, zhu_per_diao: int) -> Amount:
        node, path = self.resolve(node, path)
        if isinstance(node, dict) and len(node) == 1:
            kind, arg = next(iter(node.items()))
            fn = AMOUNT_KINDS.get(kind)
            if fn is None:
                raise self.error(path, f"unknown amount kind {kind!r} "
                                       f"(known: a number, {', '.join(AMOUNT_KINDS)})")
            return fn(self, arg, path + (kind,), zhu_per_diao)
        t = self.number(node, path)
        return lambda st, p: t

    def counter(self, node: Any, path: Path) -> Callable[[HandState, int], int]:
        """``per: {won: SET}`` / ``{held: SET}``: how many times an item counts."""
        node, path = self.resolve(node, path)
        if not isinstance(node, dict) or len(node) != 1:
            raise self.error(path, "per: takes {won: SET} or {held: SET}")
        (kind, arg), = node.items()
        if kind not in ("won", "held"):
            raise self.error(path + (kind,), f"per: counts 'won' or 'held' cards, not {kind!r}")
        expr = self.card_set(arg, path + (kind,))
        attr = kind
        self.note_evidence(attr, expr)
        if expr.constant:
            m = expr.mask
            if attr == "won":
                return lambda st, p: (st.won[p] & m).bit_count()
            return lambda st, p: (st.held[p] & m).bit_count()
        f = expr.fn
        if attr == "won":
            return lambda st, p: (st.won[p] & f(st)).bit_count()  # type: ignore[misc]
        return lambda st, p: (st.held[p] & f(st)).bit_count()  # type: ignore[misc]


# ====================================================================== helpers


def _always(st: HandState, p: int) -> bool:
    return True


def _all(parts: Sequence[Condition]) -> Condition:
    parts = tuple(parts)
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        a, b = parts
        return lambda st, p: a(st, p) and b(st, p)
    return lambda st, p: all(c(st, p) for c in parts)


def _combine(parts: list[SetExpr], op: str) -> SetExpr:
    consts = [x.mask for x in parts if x.constant]
    dyns = [x.fn for x in parts if not x.constant]
    text = op.join(x.text for x in parts)
    if op == "|":
        base = 0
        for m in consts:
            base |= m
        if not dyns:
            return SetExpr(mask=base, text=text)

        def union(st: HandState) -> int:
            m = base
            for f in dyns:
                m |= f(st)  # type: ignore[misc]
            return m
        return SetExpr(fn=union, text=text)
    base = (1 << N_CARDS) - 1
    for m in consts:
        base &= m
    if not dyns:
        return SetExpr(mask=base, text=text)

    def inter(st: HandState) -> int:
        m = base
        for f in dyns:
            m &= f(st)  # type: ignore[misc]
        return m
    return SetExpr(fn=inter, text=text)


def _list(c: Compiler, arg: Any, path: Path, what: str) -> list[Any]:
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, list) or not arg:
        raise c.error(path, f"{what} takes a non-empty list")
    return arg


# ====================================================================== card-set kinds


def _set_and(c: Compiler, arg: Any, path: Path) -> SetExpr:
    items = _list(c, arg, path, "and")
    return _combine([c.card_set(n, path + (i,)) for i, n in enumerate(items)], "&")


def _set_or(c: Compiler, arg: Any, path: Path) -> SetExpr:
    items = _list(c, arg, path, "or")
    return _combine([c.card_set(n, path + (i,)) for i, n in enumerate(items)], "|")


def _set_except(c: Compiler, arg: Any, path: Path) -> SetExpr:
    items = _list(c, arg, path, "except")
    if len(items) != 2:
        raise c.error(path, "except takes [SET, SET_TO_REMOVE]")
    a, b = c.card_set(items[0], path + (0,)), c.card_set(items[1], path + (1,))
    if a.constant and b.constant:
        return SetExpr(mask=a.mask & ~b.mask)
    return SetExpr(fn=lambda st: a.value(st) & ~b.value(st))


def _set_stock(c: Compiler, arg: Any, path: Path) -> SetExpr:
    arg, path = c.resolve(arg, path)
    if isinstance(arg, bool) or not isinstance(arg, int) or not 0 <= arg < 8:
        raise c.error(path, "stock: takes a position 0–7 (0 is the face card 面張)")
    return SetExpr(fn=lambda st, _i=arg: 1 << st.stock[_i], text=f"stock[{arg}]")


BELOW_TABLE = tuple(0 if below(card) is None else 1 << below(card) for card in range(N_CARDS))


def _below_mask(mask: int) -> int:
    out = 0
    while mask:
        low = mask & -mask
        out |= BELOW_TABLE[low.bit_length() - 1]
        mask ^= low
    return out


def _set_below(c: Compiler, arg: Any, path: Path) -> SetExpr:
    inner = c.card_set(arg, path)
    if inner.constant:
        return SetExpr(mask=_below_mask(inner.mask))
    f = inner.fn
    return SetExpr(fn=lambda st: _below_mask(f(st)))  # type: ignore[misc]


SET_KINDS: dict[str, Callable[[Compiler, Any, Path], SetExpr]] = {
    "and": _set_and,
    "or": _set_or,
    "except": _set_except,
    "stock": _set_stock,
    "below": _set_below,
}


# ====================================================================== condition kinds


def _cond_all(c: Compiler, arg: Any, path: Path) -> Condition:
    items = _list(c, arg, path, "all")
    return _all([c.condition(n, path + (i,)) for i, n in enumerate(items)])


def _cond_any(c: Compiler, arg: Any, path: Path) -> Condition:
    items = _list(c, arg, path, "any")
    parts = tuple(c.condition(n, path + (i,)) for i, n in enumerate(items))
    return lambda st, p: any(f(st, p) for f in parts)


def _cond_not(c: Compiler, arg: Any, path: Path) -> Condition:
    inner = c.condition(arg, path)
    return lambda st, p: not inner(st, p)


def _subset(attr: str) -> Callable[[Compiler, Any, Path], Condition]:
    def compile_(c: Compiler, arg: Any, path: Path) -> Condition:
        expr = c.card_set(arg, path)
        c.note_evidence(attr, expr)
        if expr.constant:
            m = expr.mask
            if attr == "won":
                return lambda st, p: st.won[p] & m == m
            return lambda st, p: st.held[p] & m == m
        f = expr.fn

        def dyn(st: HandState, p: int) -> bool:
            m = f(st)  # type: ignore[misc]
            return bool(m) and getattr(st, attr)[p] & m == m
        return dyn
    return compile_


def _overlap(attr: str) -> Callable[[Compiler, Any, Path], Condition]:
    def compile_(c: Compiler, arg: Any, path: Path) -> Condition:
        expr = c.card_set(arg, path)
        c.note_evidence(attr, expr)
        if expr.constant:
            m = expr.mask
            if attr == "won":
                return lambda st, p: bool(st.won[p] & m)
            return lambda st, p: bool(st.held[p] & m)
        f = expr.fn
        return lambda st, p: bool(getattr(st, attr)[p] & f(st))  # type: ignore[misc]
    return compile_


def _bounds(c: Compiler, arg: Any, path: Path, allowed: set[str]) -> Callable[[int], bool]:
    arg, path = c.resolve(arg, path)
    if isinstance(arg, int) and not isinstance(arg, bool):
        arg = {"eq": arg}
    if not isinstance(arg, dict):
        raise c.error(path, "expected a number or {min: N, max: N, eq: N}")
    unknown = set(arg) - allowed - {"min", "max", "eq"}
    if unknown:
        raise c.error(path + (sorted(unknown)[0],), f"unknown key {sorted(unknown)[0]!r}")
    lo, hi = arg.get("min"), arg.get("max")
    if "eq" in arg:
        lo = hi = arg["eq"]
    for key, v in (("min", lo), ("max", hi)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise c.error(path + (key,), f"expected a whole number, got {v!r}")
    if lo is None and hi is None:
        raise c.error(path, "give min, max or eq")
    lo_ = -1 if lo is None else lo
    hi_ = 99 if hi is None else hi
    return lambda n: lo_ <= n <= hi_


def _cond_count(c: Compiler, arg: Any, path: Path) -> Condition:
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, dict) or "in" not in arg:
        raise c.error(path, "count takes {in: SET, of: held|won, min/max/eq: N}")
    of = arg.get("of", "held")
    if of not in ("held", "won"):
        raise c.error(path + ("of",), f"of: is 'held' or 'won', not {of!r}")
    expr = c.card_set(arg["in"], path + ("in",))
    c.note_evidence(of, expr)
    ok = _bounds(c, {k: v for k, v in arg.items() if k in ("min", "max", "eq")}, path, set())
    if expr.constant:
        m = expr.mask
        return lambda st, p: ok((getattr(st, of)[p] & m).bit_count())
    f = expr.fn
    return lambda st, p: ok((getattr(st, of)[p] & f(st)).bit_count())  # type: ignore[misc]


def _cond_suit_count(c: Compiler, arg: Any, path: Path) -> Condition:
    """Some suit (of those listed) has a card count within bounds."""
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, dict):
        raise c.error(path, "suit_count takes {of: held|won, suits: [...], min/max/eq: N}")
    of = arg.get("of", "held")
    if of not in ("held", "won"):
        raise c.error(path + ("of",), f"of: is 'held' or 'won', not {of!r}")
    suits = arg.get("suits", ["shi", "wan", "suo", "wen"])
    masks = []
    for i, s in enumerate(suits):
        expr = c.card_set(s, path + ("suits", i))
        if not expr.constant or expr.mask not in SUIT_MASKS:
            raise c.error(path + ("suits", i), f"{s!r} is not a suit (十, 萬門, 索, 文)")
        masks.append(expr.mask)
    ok = _bounds(c, {k: v for k, v in arg.items() if k in ("min", "max", "eq")}, path, set())
    ms = tuple(masks)
    return lambda st, p: any(ok((getattr(st, of)[p] & m).bit_count()) for m in ms)


def _cond_tricks(c: Compiler, arg: Any, path: Path) -> Condition:
    ok = _bounds(c, arg, path, set())
    return lambda st, p: ok(st.tricks[p])


def _flag(c: Compiler, arg: Any, path: Path) -> bool:
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, bool):
        raise c.error(path, f"expected true or false, got {arg!r}")
    return arg


def _cond_zheng_ben(c: Compiler, arg: Any, path: Path) -> Condition:
    want = _flag(c, arg, path)
    return lambda st, p: (st.tricks[p] >= 2) == want


def _cond_banker(c: Compiler, arg: Any, path: Path) -> Condition:
    want = _flag(c, arg, path)
    return lambda st, p: (st.banker == p) == want


def _cond_won_first(c: Compiler, arg: Any, path: Path) -> Condition:
    arg, path = c.resolve(arg, path)
    if isinstance(arg, bool) or not isinstance(arg, int) or not 1 <= arg <= 8:
        raise c.error(path, "won_first: takes a number of tricks 1–8")
    n = arg
    return lambda st, p: len(st.trick_winners) >= n and all(w == p for w in st.trick_winners[:n])


def _cond_fired(c: Compiler, arg: Any, path: Path) -> Condition:
    arg, path = c.resolve(arg, path)
    names = arg if isinstance(arg, list) else [arg]
    for i, name in enumerate(names):
        if name not in c.known_fired:
            where = path + (i,) if isinstance(arg, list) else path
            hint = closest_names(str(name), c.known_fired)
            extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
            raise c.error(where, f"fired: {name!r} is not an item or group declared before "
                                 f"this one{extra}")
    keys = frozenset(names)
    return lambda st, p: not keys.isdisjoint(st.fired[p])


def _cond_any_seat(c: Compiler, arg: Any, path: Path) -> Condition:
    inner = c.condition(arg, path)
    return lambda st, p: any(inner(st, q) for q in range(4))


def _cond_no_seat(c: Compiler, arg: Any, path: Path) -> Condition:
    inner = c.condition(arg, path)
    return lambda st, p: not any(inner(st, q) for q in range(4))


CONDITION_KINDS: dict[str, Callable[[Compiler, Any, Path], Condition]] = {
    "all": _cond_all,
    "any": _cond_any,
    "not": _cond_not,
    "held": _subset("held"),
    "held_any": _overlap("held"),
    "won": _subset("won"),
    "won_any": _overlap("won"),
    "count": _cond_count,
    "suit_count": _cond_suit_count,
    "tricks": _cond_tricks,
    "zheng_ben": _cond_zheng_ben,
    "banker": _cond_banker,
    "won_first": _cond_won_first,
    "fired": _cond_fired,
    "any_seat": _cond_any_seat,
    "no_seat": _cond_no_seat,
}


# ====================================================================== amount kinds


def _amount_diao(c: Compiler, arg: Any, path: Path, zhu_per_diao: int) -> Amount:
    """The 吊 rule: <lose_below tricks → −1 吊, >win_above → +1, with shared wins.

    ``shared`` lists partitions where the winners split what the losers pay
    (Feng: 兩人三卓一人無牌則分贏一吊 — one loser, two winners, ½ each).
    """
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, dict):
        raise c.error(path, "diao: takes {lose_below: N, win_above: N, shared: [...]}")
    lose_below = arg.get("lose_below", 2)
    win_above = arg.get("win_above", 2)
    shared: dict[tuple[int, int], int] = {}
    for i, row in enumerate(arg.get("shared", [])):
        where = path + ("shared", i)
        if not isinstance(row, dict) or {"losers", "winners", "each"} - set(row):
            raise c.error(where, "a shared row is {losers: N, winners: N, each: 吊}")
        shared[(row["losers"], row["winners"])] = c.number(row["each"], where + ("each",))
    unit = zhu_per_diao

    def diao(st: HandState, p: int) -> int:
        t = st.tricks
        n = t[p]
        if n < lose_below:
            return -TICKS_PER_ZHU * unit
        if n <= win_above:
            return 0
        losers = (t[0] < lose_below) + (t[1] < lose_below) + (t[2] < lose_below) + (t[3] < lose_below)
        winners = (t[0] > win_above) + (t[1] > win_above) + (t[2] > win_above) + (t[3] > win_above)
        each = shared.get((losers, winners))
        return TICKS_PER_ZHU * unit if each is None else each * unit
    return diao


def _amount_pool(c: Compiler, arg: Any, path: Path, zhu_per_diao: int) -> Amount:
    arg, path = c.resolve(arg, path)
    if arg != "guan_dui":
        raise c.error(path, "pool: names the pool to take; only guan_dui exists")
    return lambda st, p: st.pool


AMOUNT_KINDS: dict[str, Callable[[Compiler, Any, Path, int], Amount]] = {
    "diao": _amount_diao,
    "pool": _amount_pool,
}
