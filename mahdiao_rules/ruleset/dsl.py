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
from typing import Any

from ..cards import (
    CARD_ALIASES,
    CARD_SUIT,
    CATEGORIES,
    CATEGORY_ALIASES,
    N_CARDS,
    SUIT_MASKS,
    below,
    closest_names,
)
from ..errors import InputError
from ..io.yamlsafe import Document, format_path
from ..units import TICKS_PER_ZHU, exact, is_number

Path = tuple[str | int, ...]
Condition = Callable[["HandState", int], bool]
Amount = Callable[["HandState", int], int]


class HandState:
    """Everything a compiled rule may look at for one hand (mutable, one per replay)."""

    __slots__ = (
        "banker",
        "chong",
        "chong_masks",
        "chong_points",
        "fired",
        "held",
        "pool",
        "sets",
        "stock",
        "trick_winners",
        "tricks",
        "won",
        "won_order",
        "won_tricks",
        "won_upto",
    )

    def __init__(self, banker: int, held: list[int], stock: tuple[int, ...]) -> None:
        self.banker = banker
        self.held = held
        self.stock = stock
        self.won = [0, 0, 0, 0]
        self.tricks = [0, 0, 0, 0]
        self.trick_winners: tuple[int, ...] = ()
        self.won_order: list[tuple[int, ...]] = [(), (), (), ()]
        """Each seat's 上卓 cards in winning order."""
        self.won_tricks: list[tuple[int, ...]] = [(), (), (), ()]
        """Mask of all four cards of each trick a seat won, aligned with won_order."""
        self.won_upto: list[tuple[int, ...]] = [(), (), (), ()]
        """Mask of the cards of each won trick played up to and including the winning card."""
        self.chong: list[tuple[int, ...]] = [(), (), (), ()]
        """Stock cards each seat took in 開沖, in order."""
        self.chong_masks = [0, 0, 0, 0]
        self.chong_points = [0, 0, 0, 0]
        """開沖 points per seat, in ticks."""
        self.sets: list[int] = []
        self.fired = [0, 0, 0, 0]
        """Per seat, a bit per item or group that fired (bits from Compiler.declare_fired)."""
        self.pool = 0


@dataclass(frozen=True, slots=True)
class SetExpr:
    """A compiled card set: a constant mask, or ``fn(state) -> mask``."""

    mask: int = 0
    fn: Callable[[HandState], int] | None = None
    text: str = ""
    slot: int | None = None
    """For a named stock-dependent set: its place in ``HandState.sets``."""

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
    zhu_per_diao: int = 1
    named_sets: dict[str, SetExpr] = field(default_factory=dict)
    dynamic_set_nodes: list[Any] = field(default_factory=list)
    """The definitions of the stock-dependent named sets: node i fills ``HandState.sets[i]``."""
    known_fired: dict[str, int] = field(default_factory=dict)
    """Item and group ids declared so far → their bit in HandState.fired."""
    uses_trick_masks: bool = False
    """Some condition reads whole won tricks (trick_has:), so the engine must keep them."""
    evidence: tuple[list[SetExpr], list[SetExpr]] | None = None
    """While compiling an item: the sets its condition reads in won / held cards."""

    def declare_fired(self, name: str) -> int:
        """The bit recording that item or group *name* fired (declared once, in file order)."""
        if name not in self.known_fired:
            self.known_fired[name] = 1 << len(self.known_fired)
        return self.known_fired[name]

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
            if not isinstance(name, str):
                raise self.error(path + ("option",), f"option: names an option, not {name!r}")
            if not isinstance(node["cases"], dict):
                raise self.error(path + ("cases",), "cases: is a mapping of the option's values "
                                                    "to what each one means")
            if name not in self.options:
                hint = closest_names(str(name), self.options)
                extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
                raise self.error(path + ("option",), f"unknown option {name!r}{extra}")
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
        slot = len(self.dynamic_set_nodes)
        self.dynamic_set_nodes.append(node)
        self.named_sets[name] = SetExpr(fn=lambda st, _s=slot: st.sets[_s], text=name, slot=slot)

    # ------------------------------------------------------------------ conditions

    def condition(self, node: Any, path: Path) -> Condition:
        node, path = self.resolve(node, path)
        if node is True:
            return _always
        if node is False:
            return _never
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
        """A 注 amount as exact ticks (a number must be a whole number of ticks, 1/24 注)."""
        node, path = self.resolve(node, path)
        if not is_number(node):
            raise self.error(path, f"expected a number of 注, got {node!r}")
        value = exact(node) * TICKS_PER_ZHU
        if value.denominator != 1:
            raise self.error(path, f"{node} 注 cannot be paid exactly: an amount is a whole "
                                   f"number of 1/{TICKS_PER_ZHU} 注")
        return int(value)

    def amount(self, node: Any, path: Path) -> Amount:
        """An amount in 注, compiled to ``f(state, seat) -> ticks``."""
        return self.numeric(node, path, TICKS_PER_ZHU)

    def numeric(self, node: Any, path: Path, scale: int) -> Amount:
        """A numeric expression.  *scale* is TICKS_PER_ZHU for 注 amounts (a literal 3 means
        3 注, a count of 2 cards means 2 注) and 1 for plain counts (``value:``, ``per:``)."""
        node, path = self.resolve(node, path)
        if isinstance(node, dict) and len(node) == 1:
            kind, arg = next(iter(node.items()))
            fn = NUMERIC_KINDS.get(kind)
            if fn is None:
                hint = closest_names(str(kind), NUMERIC_KINDS)
                extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
                raise self.error(path + (kind,), f"unknown amount kind {kind!r}{extra} (known: a "
                                                 f"number, {', '.join(NUMERIC_KINDS)})")
            return fn(self, arg, path + (kind,), scale)
        t = self.literal(node, path, scale)
        return lambda st, p: t

    def literal(self, node: Any, path: Path, scale: int) -> int:
        """A literal number of a numeric expression, times *scale* (exact)."""
        if not is_number(node):
            raise self.error(path, f"expected a number or an amount such as {{count: …}}, got {node!r}")
        value = exact(node) * scale
        if value.denominator != 1:
            if scale == 1:
                raise self.error(path, f"{node} is not a whole number")
            raise self.error(path, f"{node} 注 cannot be paid exactly: an amount is a whole "
                                   f"number of 1/{TICKS_PER_ZHU} 注")
        return int(value)

    def counter(self, node: Any, path: Path) -> Callable[[HandState, int], int]:
        """``per:``: how many times an item counts — {won: SET}, {held: SET} or any count."""
        node, path = self.resolve(node, path)
        if isinstance(node, dict) and len(node) == 1 and next(iter(node)) in ("won", "held"):
            (kind, arg), = node.items()
            return self.numeric({"count": {"in": arg, "of": kind}}, path, 1)
        return self.numeric(node, path, 1)

    def source(self, name: Any, path: Path) -> Callable[[HandState, int], int]:
        """Which of a seat's cards an expression looks at (``of:``)."""
        name, path = self.resolve(name, path)
        fn = SOURCES.get(name) if isinstance(name, str) else None
        if fn is None:
            raise self.error(path, f"of: is one of {', '.join(SOURCES)}, not {name!r}")
        return fn


# ====================================================================== helpers


def _always(st: HandState, p: int) -> bool:
    return True


def _never(st: HandState, p: int) -> bool:
    return False


def never_holds(cond: Condition) -> bool:
    """True for a condition that is ``false`` as written (e.g. an option case that turns an item off)."""
    return cond is _never


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


NO_MIN, NO_MAX = float("-inf"), float("inf")
"""The bounds a node leaves out: no limit on that side (any number, negative or large)."""


def _limits(c: Compiler, arg: Any, path: Path) -> tuple[int | float, int | float]:
    """(lo, hi) of a bounds node — a number, or {min, max, eq} — compared inline on hot paths;
    a side not given is unbounded (NO_MIN, NO_MAX)."""
    arg, path = c.resolve(arg, path)
    if isinstance(arg, int) and not isinstance(arg, bool):
        arg = {"eq": arg}
    if not isinstance(arg, dict):
        raise c.error(path, "expected a number or {min: N, max: N, eq: N}")
    unknown = set(arg) - {"min", "max", "eq"}
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
    return (NO_MIN if lo is None else lo), (NO_MAX if hi is None else hi)


def _bounds(c: Compiler, arg: Any, path: Path) -> Callable[[int], bool]:
    lo, hi = _limits(c, arg, path)
    return lambda n: lo <= n <= hi


def _cond_count(c: Compiler, arg: Any, path: Path) -> Condition:
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, dict) or "in" not in arg:
        raise c.error(path, "count takes {in: SET, of: held|won|…, min/max/eq: N}")
    count = _num_count(c, {k: v for k, v in arg.items() if k in ("in", "of")}, path, 1)
    lo, hi = _limits(c, {k: v for k, v in arg.items() if k in ("min", "max", "eq")}, path)
    return lambda st, p: lo <= count(st, p) <= hi


def _cond_suit_count(c: Compiler, arg: Any, path: Path) -> Condition:
    """Some suit (of those listed) has a card count within bounds."""
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, dict):
        raise c.error(path, "suit_count takes {of: held|won, suits: [...], min/max/eq: N}")
    src = c.source(arg.get("of", "held"), path + ("of",))
    suits = arg.get("suits", ["shi", "wan", "suo", "wen"])
    masks = []
    for i, s in enumerate(suits):
        expr = c.card_set(s, path + ("suits", i))
        if not expr.constant or expr.mask not in SUIT_MASKS:
            raise c.error(path + ("suits", i), f"{s!r} is not a suit (十, 萬門, 索, 文)")
        masks.append(expr.mask)
    lo, hi = _limits(c, {k: v for k, v in arg.items() if k in ("min", "max", "eq")}, path)
    ms = tuple(masks)

    def some_suit(st: HandState, p: int) -> bool:
        cards = src(st, p)
        for m in ms:
            if lo <= (cards & m).bit_count() <= hi:
                return True
        return False
    return some_suit


def _cond_tricks(c: Compiler, arg: Any, path: Path) -> Condition:
    ok = _bounds(c, arg, path)
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
        if not isinstance(name, str):
            raise c.error(path + (i,) if isinstance(arg, list) else path,
                          f"fired: names an item or group id, not {name!r}")
        if name not in c.known_fired:
            where = path + (i,) if isinstance(arg, list) else path
            hint = closest_names(str(name), c.known_fired)
            extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
            raise c.error(where, f"fired: {name!r} is not an item or group declared before "
                                 f"this one{extra}")
    bits = 0
    for name in names:
        bits |= c.known_fired[name]
    return lambda st, p: bool(st.fired[p] & bits)


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



# ====================================================================== sources (of:)


def _others_won(st: HandState, p: int) -> int:
    w = st.won
    return (w[0] | w[1] | w[2] | w[3]) & ~w[p]


SOURCES: dict[str, Callable[[HandState, int], int]] = {
    "held": lambda st, p: st.held[p],
    "won": lambda st, p: st.won[p],
    "chong": lambda st, p: st.chong_masks[p],
    "won_chong": lambda st, p: st.won[p] | st.chong_masks[p],
    "others_won": _others_won,
}
"""held: dealt cards (after any 升代); won: 上卓 cards; chong: cards taken in 開沖;
won_chong: both; others_won: the cards the other three seats won with."""


# ====================================================================== won-order patterns



_NEXT_SAME_SUIT = sum(1 << c for c in range(N_CARDS - 1) if CARD_SUIT[c] == CARD_SUIT[c + 1])
"""Bit c is set when card c + 1 is of the same suit as card c."""


def longest_run(mask: int) -> int:
    """Length of the longest run of consecutive cards of one suit in *mask*.

    ``run`` keeps bit c while cards c … c+n of one suit are all in *mask*; each step
    lengthens the run by one card.
    """
    if not mask:
        return 0
    n = 1
    run = mask & (mask >> 1) & _NEXT_SAME_SUIT
    while run:
        n += 1
        run &= run >> 1
    return n


Matcher = tuple[SetExpr, SetExpr | None]


def _matchers(c: Compiler, items: list[Any], path: Path) -> tuple[Matcher, ...]:
    out = []
    for i, elem in enumerate(items):
        elem, epath = c.resolve(elem, path + (i,))
        if isinstance(elem, dict) and "card" in elem:
            unknown = set(elem) - {"card", "trick_has"}
            if unknown:
                raise c.error(epath, f"a sequence element takes card: and trick_has:, not "
                                     f"{sorted(unknown)[0]!r}")
            card = c.card_set(elem["card"], epath + ("card",))
            has = c.card_set(elem["trick_has"], epath + ("trick_has",)) if "trick_has" in elem else None
            c.uses_trick_masks |= has is not None
            out.append((card, has))
        else:
            out.append((c.card_set(elem, epath), None))
        c.note_evidence("won", out[-1][0])
    return tuple(out)


def count_sequences(order: Sequence[int], tricks: Sequence[int],
                    elems: tuple[tuple[int, int | None], ...], between: int, at_start: bool,
                    not_at_start: bool) -> int:
    """How many positions of *order* (a seat's won cards, in winning order) start *elems*.

    *elems* gives per element a card mask and, or None, a mask the element's whole trick
    (*tricks*, aligned with *order*) must meet besides the card; cards of *between* may sit
    in the gaps.  Shared by the closures and the generated engine (ruleset/codegen.py).
    """
    n = len(order)
    if not n:
        return 0
    first, first_has = elems[0]
    count = 0
    for start in range(1) if at_start else range(1 if not_at_start else 0, n):
        bit = 1 << order[start]
        if not bit & first or (first_has is not None and not tricks[start] & ~bit & first_has):
            continue
        j = start + 1
        for card, has in elems[1:]:
            while j < n:
                bit = 1 << order[j]
                if bit & card and (has is None or tricks[j] & ~bit & has):
                    break
                if not bit & between:
                    j = n
                    break
                j += 1
            if j >= n:
                break
            j += 1
        else:
            count += 1
    return count


@dataclass(frozen=True, slots=True)
class SequenceSpec:
    """A won-order pattern as read from the YAML: the element orders tried, gaps and anchors."""

    orders: tuple[tuple[Matcher, ...], ...]
    """The elements in order, and reversed too for ``any_order``."""
    between: int
    at_start: bool
    not_at_start: bool

    def masks(self, st: HandState) -> list[tuple[tuple[int, int | None], ...]]:
        return [tuple((card.value(st), None if has is None else has.value(st)) for card, has in elems)
                for elems in self.orders]

    def count(self, st: HandState, p: int) -> int:
        order = st.won_order[p]
        if not order:
            return 0
        tricks = st.won_tricks[p]
        return sum(count_sequences(order, tricks, e, self.between, self.at_start, self.not_at_start)
                   for e in self.masks(st))


def sequence_spec(c: Compiler, arg: Any, path: Path) -> SequenceSpec:
    arg, path = c.resolve(arg, path)
    if isinstance(arg, list):
        arg = {"cards": arg}
    if not isinstance(arg, dict) or "cards" not in arg:
        raise c.error(path, "a sequence is {cards: [SET, …], between: SET, at_start: true, "
                            "not_at_start: true, any_order: true}")
    unknown = set(arg) - {"cards", "between", "at_start", "not_at_start", "any_order"}
    if unknown:
        raise c.error(path + (sorted(unknown)[0],), f"unknown key {sorted(unknown)[0]!r}")
    elems = _matchers(c, _list(c, arg["cards"], path + ("cards",), "cards"), path + ("cards",))
    between_expr = c.card_set(arg["between"], path + ("between",)) if "between" in arg else None
    if between_expr is not None and not between_expr.constant:
        raise c.error(path + ("between",), "between: must not depend on the stock")
    orders = [elems]
    if arg.get("any_order") and len(elems) > 1:
        orders.append(tuple(reversed(elems)))
    return SequenceSpec(tuple(orders), between_expr.mask if between_expr else 0,
                        bool(arg.get("at_start", False)), bool(arg.get("not_at_start", False)))


def _sequence_counter(c: Compiler, arg: Any, path: Path) -> Callable[[HandState, int], int]:
    return sequence_spec(c, arg, path).count


def _cond_won_sequence(c: Compiler, arg: Any, path: Path) -> Condition:
    count = _sequence_counter(c, arg, path)
    return lambda st, p: count(st, p) > 0


def _cond_first_won(c: Compiler, arg: Any, path: Path) -> Condition:
    expr = c.card_set(arg, path)
    c.note_evidence("won", expr)
    return lambda st, p: bool(st.won_order[p]) and bool((1 << st.won_order[p][0]) & expr.value(st))


def _cond_last_won(c: Compiler, arg: Any, path: Path) -> Condition:
    expr = c.card_set(arg, path)
    c.note_evidence("won", expr)
    return lambda st, p: bool(st.won_order[p]) and bool((1 << st.won_order[p][-1]) & expr.value(st))


def source_name(c: Compiler, node: Any, path: Path) -> str:
    """The ``of:`` source a node names (checked; option switches resolved)."""
    c.source(node, path)
    return c.resolve(node, path)[0]


def suits_having_spec(c: Compiler, arg: Any, path: Path) -> tuple[list[SetExpr], str]:
    """The sets every counted suit must meet, and the source (``of:``) of the cards."""
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, dict) or "all_of" not in arg:
        raise c.error(path, "suits_having takes {all_of: [SET, …], of: won|held|…}")
    sets = [c.card_set(s, path + ("all_of", i))
            for i, s in enumerate(_list(c, arg["all_of"], path + ("all_of",), "all_of"))]
    attr = source_name(c, arg.get("of", "won"), path + ("of",))
    for s in sets:
        c.note_evidence(attr if attr in ("won", "held") else "won", s)
    return sets, attr


def _suits_having_counter(c: Compiler, arg: Any, path: Path) -> Callable[[HandState, int], int]:
    sets, attr = suits_having_spec(c, arg, path)
    src = SOURCES[attr]

    def count(st: HandState, p: int) -> int:
        mine = src(st, p)
        return sum(all(mine & suit & s.value(st) for s in sets) for suit in SUIT_MASKS)
    return count


def suits_having_parts(arg: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A suits_having condition split into its count and its bounds (default: at least 1)."""
    return ({k: v for k, v in arg.items() if k in ("all_of", "of")},
            {k: v for k, v in arg.items() if k in ("min", "max", "eq")} or {"min": 1})


def _cond_suits_having(c: Compiler, arg: Any, path: Path) -> Condition:
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, dict):
        raise c.error(path, "suits_having takes {all_of: [SET, …], of: …, min/max/eq: N}")
    counted, bounds = suits_having_parts(arg)
    count = _suits_having_counter(c, counted, path)
    ok = _bounds(c, bounds, path)
    return lambda st, p: ok(count(st, p))


def four_suits_spec(c: Compiler, arg: Any, path: Path
                    ) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], str]:
    """(assignments, masks, source): each assignment gives suit s the kind ``masks[a[s]]``."""
    from itertools import permutations

    arg, path = c.resolve(arg, path)
    if not isinstance(arg, dict) or "counts" not in arg:
        raise c.error(path, "four_suits takes {counts: {SET: N, …}, of: won|…}")
    counts = arg["counts"]
    if not isinstance(counts, dict) or sum(counts.values()) != 4:
        raise c.error(path + ("counts",), "counts must name sets whose numbers add up to 4")
    sets = [c.card_set(name, path + ("counts", name)) for name in counts]
    for s in sets:
        if not s.constant:
            raise c.error(path + ("counts",), "four_suits sets must not depend on the stock")
        c.note_evidence("won", s)
    bag = [i for i, n in enumerate(counts.values()) for _ in range(n)]
    # Every way to give each suit one kind, with the multiset of kinds as required.
    assignments = tuple(sorted(set(permutations(bag))))
    return assignments, tuple(s.mask for s in sets), source_name(c, arg.get("of", "won"), path + ("of",))


def _cond_four_suits(c: Compiler, arg: Any, path: Path) -> Condition:
    """One card from each suit whose kinds make up *counts* (the app's 4-card 正色樣)."""
    assignments, masks, attr = four_suits_spec(c, arg, path)
    src = SOURCES[attr]

    def holds(st: HandState, p: int) -> bool:
        mine = src(st, p)
        avail = [[bool(mine & suit & m) for m in masks] for suit in SUIT_MASKS]
        return any(all(avail[s][k] for s, k in enumerate(a)) for a in assignments)
    return holds


def _cond_split(c: Compiler, arg: Any, path: Path) -> Condition:
    arg, path = c.resolve(arg, path)
    if (not isinstance(arg, list) or len(arg) != 4 or sum(arg) != 8
            or any(isinstance(n, bool) or not isinstance(n, int) for n in arg)):
        raise c.error(path, "split: lists the four trick counts, largest first, adding up to 8")
    want = sorted(arg, reverse=True)
    return lambda st, p: sorted(st.tricks, reverse=True) == want


def _cond_value(c: Compiler, arg: Any, path: Path) -> Condition:
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, dict) or "of" not in arg:
        raise c.error(path, "value takes {of: EXPRESSION, min/max/eq: N}")
    fn = c.numeric(arg["of"], path + ("of",), 1)
    ok = _bounds(c, {k: v for k, v in arg.items() if k != "of"}, path)
    return lambda st, p: ok(fn(st, p))


CONDITION_KINDS.update({
    "first_won": _cond_first_won,
    "last_won": _cond_last_won,
    "won_sequence": _cond_won_sequence,
    "suits_having": _cond_suits_having,
    "four_suits": _cond_four_suits,
    "split": _cond_split,
    "value": _cond_value,
})


# ====================================================================== numeric kinds


def _num_count(c: Compiler, arg: Any, path: Path, scale: int) -> Amount:
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, dict) or "in" not in arg:
        raise c.error(path, "count takes {in: SET, of: held|won|chong|won_chong|others_won}")
    of = arg.get("of", "held")
    src = c.source(of, path + ("of",))
    expr = c.card_set(arg["in"], path + ("in",))
    c.note_evidence(of if of in ("won", "held") else "won", expr)
    if expr.constant:
        m = expr.mask
        if of == "won":
            return lambda st, p: (st.won[p] & m).bit_count() * scale
        if of == "held":
            return lambda st, p: (st.held[p] & m).bit_count() * scale
        return lambda st, p: (src(st, p) & m).bit_count() * scale
    f = expr.fn
    return lambda st, p: (src(st, p) & f(st)).bit_count() * scale  # type: ignore[misc]


def _num_run(c: Compiler, arg: Any, path: Path, scale: int) -> Amount:
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, dict):
        raise c.error(path, "run takes {in: SET, of: held|won|…}: the longest run of consecutive cards")
    src = c.source(arg.get("of", "held"), path + ("of",))
    expr = c.card_set(arg.get("in", ["十", "萬門", "索", "文"]), path + ("in",))
    m = expr.mask if expr.constant else None
    if m is None:
        raise c.error(path + ("in",), "run: in: must not depend on the stock")
    return lambda st, p: longest_run(src(st, p) & m) * scale


def top_cards(mine: int, others: int) -> int:
    """How many cards of *mine* no card of *others* beats (八大): those stronger, i.e. lower,
    than every card of *others* in their suit."""
    return _unmatched(mine, others, True)


def bottom_cards(mine: int, others: int) -> int:
    """How many cards of *mine* beat no card of *others* (八小): those weaker, i.e. higher,
    than every card of *others* in their suit."""
    return _unmatched(mine, others, False)


def _unmatched(mine: int, others: int, top: bool) -> int:
    n = 0
    for suit in SUIT_MASKS:
        m = mine & suit
        if m:
            o = others & suit
            if not o:
                n += m.bit_count()
            elif top:
                n += (m & ((o & -o) - 1)).bit_count()
            else:
                n += (m >> o.bit_length()).bit_count()
    return n


def _unmatched_cards(count_of: Callable[[int, int], int]) -> Callable[[Compiler, Any, Path, int], Amount]:
    """A count of the seat's cards against the cards the other three hands hold."""
    def compile_(c: Compiler, arg: Any, path: Path, scale: int) -> Amount:
        src = c.source(arg, path)

        def count(st: HandState, p: int) -> int:
            others = 0
            for q in range(4):
                if q != p:
                    others |= st.held[q]
            return count_of(src(st, p), others) * scale
        return count
    return compile_


_num_top_cards = _unmatched_cards(top_cards)
_num_bottom_cards = _unmatched_cards(bottom_cards)


def _num_sequences(c: Compiler, arg: Any, path: Path, scale: int) -> Amount:
    count = _sequence_counter(c, arg, path)
    return lambda st, p: count(st, p) * scale


def _num_suits_having(c: Compiler, arg: Any, path: Path, scale: int) -> Amount:
    count = _suits_having_counter(c, arg, path)
    return lambda st, p: count(st, p) * scale


def _num_tricks(c: Compiler, arg: Any, path: Path, scale: int) -> Amount:
    arg, path = c.resolve(arg, path)
    if arg != "self":
        raise c.error(path, "tricks: self — the number of tricks the seat won")
    return lambda st, p: st.tricks[p] * scale


def _num_sum(c: Compiler, arg: Any, path: Path, scale: int) -> Amount:
    parts = tuple(c.numeric(n, path + (i,), scale)
                  for i, n in enumerate(_list(c, arg, path, "sum")))
    return lambda st, p: sum(f(st, p) for f in parts)


def _num_times(c: Compiler, arg: Any, path: Path, scale: int) -> Amount:
    items = _list(c, arg, path, "times")
    if len(items) != 2:
        raise c.error(path, "times takes [AMOUNT, COUNT]: the amount, then how many times")
    a = c.numeric(items[0], path + (0,), scale)
    b = c.numeric(items[1], path + (1,), 1)
    return lambda st, p: a(st, p) * b(st, p)


def _num_if(c: Compiler, arg: Any, path: Path, scale: int) -> Amount:
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, dict) or "when" not in arg or "then" not in arg:
        raise c.error(path, "if takes {when: CONDITION, then: AMOUNT, else: AMOUNT}")
    cond = c.condition(arg["when"], path + ("when",))
    then = c.numeric(arg["then"], path + ("then",), scale)
    other = c.numeric(arg.get("else", 0), path + ("else",), scale)
    return lambda st, p: then(st, p) if cond(st, p) else other(st, p)


def _num_extreme(pick: Callable[..., int]) -> Callable[[Compiler, Any, Path, int], Amount]:
    def compile_(c: Compiler, arg: Any, path: Path, scale: int) -> Amount:
        parts = tuple(c.numeric(n, path + (i,), scale)
                      for i, n in enumerate(_list(c, arg, path, "max/min")))
        return lambda st, p: pick(f(st, p) for f in parts)
    return compile_


def _num_diao(c: Compiler, arg: Any, path: Path, scale: int) -> Amount:
    """The 吊 rule: <lose_below tricks → −1 吊, >win_above → +1, with shared wins.

    ``shared`` lists partitions where the winners split what the losers pay
    (Feng: 兩人三卓一人無牌則分贏一吊 — one loser, two winners, ½ each).
    """
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, dict):
        raise c.error(path, "diao: takes {lose_below: N, win_above: N, shared: [...]}")
    lose_below = _whole(c, arg.get("lose_below", 2), path + ("lose_below",), 0, 8)
    win_above = _whole(c, arg.get("win_above", 2), path + ("win_above",), 0, 8)
    shared: dict[tuple[int, int], int] = {}
    rows = arg.get("shared", [])
    if not isinstance(rows, list):
        raise c.error(path + ("shared",), "shared: is a list of {losers: N, winners: N, each: 吊}")
    for i, row in enumerate(rows):
        where = path + ("shared", i)
        if not isinstance(row, dict) or {"losers", "winners", "each"} - set(row):
            raise c.error(where, "a shared row is {losers: N, winners: N, each: 吊}")
        _whole(c, row["losers"], where + ("losers",), 0, 4)
        _whole(c, row["winners"], where + ("winners",), 0, 4)
        shared[(row["losers"], row["winners"])] = c.number(row["each"], where + ("each",))
    if scale != TICKS_PER_ZHU:
        raise c.error(path, "diao is an amount in 注, not a count")
    unit = c.zhu_per_diao
    full = TICKS_PER_ZHU * unit

    def diao(st: HandState, p: int) -> int:
        t = st.tricks
        n = t[p]
        if n < lose_below:
            return -full
        if n <= win_above:
            return 0
        losers = (t[0] < lose_below) + (t[1] < lose_below) + (t[2] < lose_below) + (t[3] < lose_below)
        winners = (t[0] > win_above) + (t[1] > win_above) + (t[2] > win_above) + (t[3] > win_above)
        each = shared.get((losers, winners))
        return full if each is None else each * unit
    return diao


def _whole(c: Compiler, value: Any, path: Path, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise c.error(path, f"expected a whole number from {lo} to {hi}, got {value!r}")
    return value


def _num_pool(c: Compiler, arg: Any, path: Path, scale: int) -> Amount:
    arg, path = c.resolve(arg, path)
    if arg != "guan_dui":
        raise c.error(path, "pool: names the pool to take; only guan_dui exists")
    if scale != TICKS_PER_ZHU:
        raise c.error(path, "pool is an amount in 注, not a count")
    return lambda st, p: st.pool


def _num_chong_points(c: Compiler, arg: Any, path: Path, scale: int) -> Amount:
    arg, path = c.resolve(arg, path)
    if arg != "self":
        raise c.error(path, "chong_points: self — the seat's 開沖 points")
    if scale != TICKS_PER_ZHU:
        raise c.error(path, "chong_points is an amount in 注, not a count")
    return lambda st, p: st.chong_points[p]


NUMERIC_KINDS: dict[str, Callable[[Compiler, Any, Path, int], Amount]] = {
    "count": _num_count,
    "run": _num_run,
    "top_cards": _num_top_cards,
    "bottom_cards": _num_bottom_cards,
    "sequences": _num_sequences,
    "suits_having": _num_suits_having,
    "tricks": _num_tricks,
    "sum": _num_sum,
    "times": _num_times,
    "if": _num_if,
    "max": _num_extreme(max),
    "min": _num_extreme(min),
    "diao": _num_diao,
    "pool": _num_pool,
    "chong_points": _num_chong_points,
}
