"""Readable text for a rule item, generated from its YAML (never hand-written).

This mirrors the compile tables of dsl.py: each condition, card-set and
numeric (amount) kind maps to one small function producing English text with
the hanzi terms kept.  Adding a kind to the language is one more entry here;
a kind without an entry raises :class:`UndescribedKind`, and the tests walk
every bundled ruleset and compare these tables with dsl.py's, so a new kind
cannot be forgotten.

Option switches (``{option: X, cases: …}``) are described by the case the
ruleset's current option values choose, followed by ``[X=value]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..cards import CARD_ALIASES, CARD_HANZI, CATEGORIES, CATEGORY_ALIASES
from ..errors import MahdiaoError
from ..units import format_zhu, is_number, ticks
from .model import CHANNEL_HANZI, ItemDef, Ruleset


class UndescribedKind(MahdiaoError):
    """A node kind that describe.py has no text for (add an entry to its table)."""


# ---------------------------------------------------------------------- small helpers


def join_and(parts: Sequence[str], word: str = "and") -> str:
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + f" {word} " + parts[-1]


def bounds(arg: Any, noun: str = "") -> str:
    """``{min: 2}`` → "at least 2", ``{eq: 8}`` / ``8`` → "exactly 8", min+max → "2 to 5"."""
    if isinstance(arg, int) and not isinstance(arg, bool):
        arg = {"eq": arg}
    if not isinstance(arg, dict):
        return str(arg)
    lo, hi = arg.get("min"), arg.get("max")
    if "eq" in arg:
        text = f"exactly {arg['eq']}"
    elif lo is not None and hi is not None:
        text = f"{lo} to {hi}"
    elif lo is not None:
        text = f"at least {lo}"
    elif hi is not None:
        text = f"at most {hi}"
    else:
        text = "any number"
    return f"{text} {noun}".rstrip()


def zhu_text(value: Any) -> str:
    """A literal amount in 注: ``3`` → "3 注", ``-0.5`` → "-½ 注"."""
    return f"{format_zhu(ticks(value))} 注"


OF_TEXT = {
    "held": "held",
    "won": "won (上卓)",
    "chong": "taken in 開沖",
    "won_chong": "won or taken in 開沖",
    "others_won": "won by the other players",
}
"""The ``of:`` sources: which of a seat's cards an expression looks at."""

OF_VERB = {"held": "holds", "won": "won", "chong": "took in 開沖",
           "won_chong": "won or took in 開沖", "others_won": "saw the others win"}


class Describer:
    """Describe the nodes of one ruleset (its option values, item and set names)."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.rs = ruleset
        self.options = dict(ruleset.option_values)
        # Named sets' Chinese names, when the compiled ruleset keeps them (see set_names).
        self.set_names = set_names(ruleset)

    # ---------------------------------------------------------------- options

    def resolve(self, node: Any) -> tuple[Any, str]:
        """The node an option switch chooses, and the ``[option=value]`` note."""
        notes = []
        while isinstance(node, dict) and "option" in node and "cases" in node:
            name = node["option"]
            value = self.options.get(name)
            notes.append(f"[{name}={value}]")
            node = node["cases"].get(value)
        return node, " ".join(notes)

    def _with(self, note: str, text: str) -> str:
        return f"{text} {note}" if note else text

    # ---------------------------------------------------------------- card sets

    def card_set(self, node: Any) -> str:
        node, note = self.resolve(node)
        if isinstance(node, str):
            return self._with(note, self.name(node))
        if isinstance(node, list):
            return self._with(note, " ∪ ".join(self.card_set(n) for n in node))
        if isinstance(node, dict) and len(node) == 1:
            (kind, arg), = node.items()
            fn = SET_TEXT.get(kind)
            if fn is None:
                raise UndescribedKind(f"describe.py has no text for card-set kind {kind!r}; "
                                      "add it to SET_TEXT")
            return self._with(note, fn(self, arg))
        raise UndescribedKind(f"describe.py cannot read the card set {node!r}")

    def name(self, name: str) -> str:
        """A card, category or named set as the reader knows it (hanzi)."""
        if name in self.set_names:
            return self.set_names[name]
        cid = CATEGORY_ALIASES.get(name)
        if cid is not None:
            return name if not name.isascii() else CATEGORIES[cid][1][0]
        card = CARD_ALIASES.get(name, CARD_ALIASES.get(name.lower()))
        if card is not None:
            return name if not name.isascii() else CARD_HANZI[card]
        return name

    def size(self, node: Any) -> int | None:
        """How many cards a set has, when that does not depend on the hand."""
        node, _ = self.resolve(node)
        if isinstance(node, str):
            if node in self.rs.named_sets:
                expr = self.rs.named_sets[node]
                return expr.mask.bit_count() if expr.constant else None
            cid = CATEGORY_ALIASES.get(node)
            if cid is not None:
                return CATEGORIES[cid][0].bit_count()
            if node in CARD_ALIASES or node.lower() in CARD_ALIASES:
                return 1
        return None

    def every(self, node: Any) -> str:
        """"百老, 九十 and all 3 雌突": every card of the set, spelt out by part."""
        node, note = self.resolve(node)
        if isinstance(node, list):
            return self._with(note, join_and([self.every(n) for n in node]))
        n = self.size(node)
        text = self.card_set(node)
        if n == 1:
            return self._with(note, text)
        return self._with(note, f"all {n} {text}" if n else f"every card of {text}")

    def some(self, node: Any) -> str:
        node, note = self.resolve(node)
        if self.size(node) == 1:
            return self._with(note, self.card_set(node))
        return self._with(note, f"a card of {self.card_set(node)}")

    # ---------------------------------------------------------------- conditions

    def condition(self, node: Any) -> str:
        node, note = self.resolve(node)
        if node is True or node is None:
            return self._with(note, "always")
        if node is False:
            return self._with(note, "never")
        if isinstance(node, list):
            return self._with(note, join_and([self.condition(n) for n in node]))
        if not isinstance(node, dict) or not node:
            raise UndescribedKind(f"describe.py cannot read the condition {node!r}")
        parts = []
        for kind, arg in node.items():
            fn = CONDITION_TEXT.get(kind)
            if fn is None:
                raise UndescribedKind(f"describe.py has no text for condition kind {kind!r}; "
                                      "add it to CONDITION_TEXT")
            parts.append(fn(self, arg))
        return self._with(note, join_and(parts))

    def fired_name(self, ident: str) -> str:
        if ident in self.rs.items:
            return self.rs.items[ident].name
        group = self.rs.groups.get(ident)
        if isinstance(group, dict) and group.get("name"):
            return str(group["name"])
        return ident

    # ---------------------------------------------------------------- amounts

    def amount(self, node: Any) -> str:
        """An amount in 注 (``zhu:``)."""
        return self.numeric(node, "注")

    def numeric(self, node: Any, unit: str = "") -> str:
        """A numeric expression; *unit* is "注" for an amount and "" for a count."""
        node, note = self.resolve(node)
        if isinstance(node, bool):
            raise UndescribedKind(f"describe.py cannot read the amount {node!r}")
        if is_number(node):
            return self._with(note, zhu_text(node) if unit else f"{node}")
        if isinstance(node, dict) and len(node) == 1:
            (kind, arg), = node.items()
            fn = NUMERIC_TEXT.get(kind)
            if fn is None:
                raise UndescribedKind(f"describe.py has no text for amount kind {kind!r}; "
                                      "add it to NUMERIC_TEXT")
            text = fn(self, arg, unit)
            if unit and kind not in _SAYS_UNIT:
                text += ", in 注"
            return self._with(note, text)
        raise UndescribedKind(f"describe.py cannot read the amount {node!r}")

    def per(self, node: Any) -> str:
        """``per:`` — how many times an item counts."""
        node, note = self.resolve(node)
        if isinstance(node, dict) and len(node) == 1 and next(iter(node)) in ("won", "held"):
            (kind, arg), = node.items()
            return self._with(note, f"per {self.card_set(arg)} {OF_TEXT[kind]}")
        return self._with(note, f"× {self.numeric(node)}")

    # ---------------------------------------------------------------- whole items

    def short_amount(self, raw: dict[str, Any]) -> str | None:
        """The amount in a few characters for a comparison table ("6 × 雌突", "±1 吊"), or
        None when it is an expression that only the full text (:meth:`amount`) can say."""
        node, _ = self.resolve(raw.get("zhu", 0))
        if is_number(node):
            text = format_zhu(ticks(node))
        elif isinstance(node, dict) and "diao" in node:
            text = "±1 吊"
        elif isinstance(node, dict) and "pool" in node:
            text = "官堆"
        else:
            return None
        if "per" in raw:
            per, _ = self.resolve(raw["per"])
            if not (isinstance(per, dict) and len(per) == 1 and next(iter(per)) in ("won", "held")):
                return None
            text += f" × {self.card_set(next(iter(per.values())))}"
        return text

    def zhu_value(self, raw: dict[str, Any]) -> float | None:
        """The amount as a number of 注 when it is one (for charts), else None."""
        node, _ = self.resolve(raw.get("zhu", 0))
        if is_number(node):
            return float(node)
        return None

    def item(self, item: ItemDef) -> dict[str, str]:
        raw = item.raw
        amount = self.amount(raw["zhu"]) if "zhu" in raw else item.zhu_text
        if "per" in raw:
            amount = f"{amount} {self.per(raw['per'])}"
        channel, _ = self.resolve(raw.get("channel", item.channel))
        return {
            "condition": self.condition(raw.get("when", True)),
            "amount": amount,
            "channel": str(channel),
            "channel_hanzi": CHANNEL_HANZI.get(str(channel), str(channel)),
        }


def set_names(ruleset: Ruleset) -> dict[str, str]:
    """Chinese names of the ruleset's named sets, by set id.

    The compiled Ruleset does not keep the ``sets:`` metadata yet; until it
    does (``Ruleset.set_info``, requested from the compiler), a named set is
    shown by its id.
    """
    info = getattr(ruleset, "set_info", None) or {}
    return {k: str(v.get("name", k)) if isinstance(v, dict) else str(v) for k, v in info.items()}


# ====================================================================== card-set kinds


def _stock(d: Describer, arg: Any) -> str:
    return "面張 (the face card)" if arg == 0 else f"stock card {arg + 1} (底牌第{arg + 1}張)"


SET_TEXT: dict[str, Callable[[Describer, Any], str]] = {
    "and": lambda d, a: "(" + " ∩ ".join(d.card_set(n) for n in a) + ")",
    "or": lambda d, a: "(" + " ∪ ".join(d.card_set(n) for n in a) + ")",
    "except": lambda d, a: f"{d.card_set(a[0])} except {d.card_set(a[1])}",
    "stock": _stock,
    "below": lambda d, a: f"the card just below {d.card_set(a)}",
}


# ====================================================================== condition kinds


def _verb(attr: str) -> Callable[[Describer, Any], str]:
    return lambda d, a: f"{OF_VERB[attr]} {d.every(a)}"


def _verb_any(attr: str) -> Callable[[Describer, Any], str]:
    return lambda d, a: f"{OF_VERB[attr]} {d.some(a)}"


def _count(d: Describer, a: dict[str, Any]) -> str:
    of = a.get("of", "held")
    return f"{OF_VERB.get(of, of)} {bounds(a, 'cards')} of {d.card_set(a['in'])}"


def _suit_count(d: Describer, a: dict[str, Any]) -> str:
    of = a.get("of", "held")
    suits = a.get("suits")
    where = "one suit" if not suits else f"one of {', '.join(d.card_set(s) for s in suits)}"
    return f"{OF_VERB.get(of, of)} {bounds(a, 'cards')} of {where}"


def _zheng_ben(d: Describer, a: Any) -> str:
    return "is 正本 (2 tricks or more)" if a else "is not 正本 (fewer than 2 tricks)"


def _fired(d: Describer, a: Any) -> str:
    names = a if isinstance(a, list) else [a]
    return "has " + join_and([d.fired_name(n) for n in names], "or")


def _nested(word: str) -> Callable[[Describer, Any], str]:
    return lambda d, a: f"{word} {d.condition(a)}"


def _won_first(d: Describer, a: Any) -> str:
    return "won the first trick" if a == 1 else f"won each of the first {a} tricks"


def _sequence(d: Describer, a: Any) -> str:
    if isinstance(a, list):
        a = {"cards": a}
    elems = []
    for e in a["cards"]:
        if isinstance(e, dict) and "card" in e:
            extra = f" in a trick with {d.some(e['trick_has'])}" if "trick_has" in e else ""
            elems.append(d.card_set(e["card"]) + extra)
        else:
            elems.append(d.card_set(e))
    text = " then ".join(elems)
    if a.get("between"):
        text += f" (only {d.card_set(a['between'])} between)"
    if a.get("any_order"):
        text += ", in either order"
    if a.get("at_start"):
        text += ", from its first trick"
    if a.get("not_at_start"):
        text += ", not from its first trick"
    return text


def _suits_having(d: Describer, a: dict[str, Any]) -> str:
    sets = join_and([d.card_set(s) for s in a["all_of"]])
    of = OF_TEXT.get(a.get("of", "won"), a.get("of", "won"))
    return f"suits with {sets} {of}"


def _four_suits(d: Describer, a: dict[str, Any]) -> str:
    kinds = join_and([f"{n} × {d.card_set(s)}" for s, n in a["counts"].items()])
    of = OF_TEXT.get(a.get("of", "won"), a.get("of", "won"))
    return f"{of} one card of each suit: {kinds}"


def _value(d: Describer, a: dict[str, Any]) -> str:
    return f"{d.numeric(a['of'])} is {bounds({k: v for k, v in a.items() if k != 'of'})}"


def _suits_having_cond(d: Describer, a: dict[str, Any]) -> str:
    limits = {k: v for k, v in a.items() if k in ("min", "max", "eq")} or {"min": 1}
    return f"has {bounds(limits)} {_suits_having(d, a)}"


CONDITION_TEXT: dict[str, Callable[[Describer, Any], str]] = {
    "all": lambda d, a: join_and([d.condition(n) for n in a]),
    "any": lambda d, a: "either " + join_and([f"({d.condition(n)})" for n in a], "or"),
    "not": lambda d, a: f"not ({d.condition(a)})",
    "held": _verb("held"),
    "held_any": _verb_any("held"),
    "won": _verb("won"),
    "won_any": _verb_any("won"),
    "count": _count,
    "suit_count": _suit_count,
    "tricks": lambda d, a: f"took {bounds(a, 'tricks')}",
    "zheng_ben": _zheng_ben,
    "banker": lambda d, a: "is the 椿" if a else "is a 散 (not the 椿)",
    "won_first": _won_first,
    "fired": _fired,
    "any_seat": _nested("some player"),
    "no_seat": _nested("no player"),
    "first_won": lambda d, a: f"won their first trick with {d.some(a)}",
    "last_won": lambda d, a: f"won their last trick with {d.some(a)}",
    "won_sequence": lambda d, a: f"won in order {_sequence(d, a)}",
    "suits_having": _suits_having_cond,
    "four_suits": _four_suits,
    "split": lambda d, a: "the tricks fell " + "-".join(str(n) for n in sorted(a, reverse=True)),
    "value": _value,
}


# ====================================================================== numeric kinds
# Each entry gets the unit of its context: "注" for an amount, "" for a count.


def _diao(d: Describer, a: dict[str, Any], unit: str) -> str:
    lose, win = a.get("lose_below", 2), a.get("win_above", 2)
    text = f"fewer than {lose} tricks lose 1 吊, more than {win} win 1 吊"
    for row in a.get("shared", []):
        text += (f"; {_plural(row['losers'], 'loser')} and {_plural(row['winners'], 'winner')}: "
                 f"{format_zhu(ticks(row['each']))} 吊 each")
    return f"{text} (1 吊 = {d.rs.zhu_per_diao} 注)"


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _of(a: Any, default: str = "held") -> str:
    of = a.get("of", default) if isinstance(a, dict) else a
    return OF_TEXT.get(of, str(of))


def _run(d: Describer, a: dict[str, Any], unit: str) -> str:
    cards = d.card_set(a["in"]) if "in" in a else "cards of one suit"
    return f"the longest run of consecutive {cards} {_of(a)}"


def _over(word: str, sep: str) -> Callable[[Describer, Any, str], str]:
    return lambda d, a, unit: word + sep.join(d.numeric(n, unit) for n in a)


def _sum(d: Describer, a: Any, unit: str) -> str:
    text = ""
    for i, n in enumerate(a):
        part = d.numeric(n, unit)
        if i == 0:
            text = part
        elif part.startswith("-"):
            text += " − " + part[1:]
        else:
            text += " + " + part
    return text


NUMERIC_TEXT: dict[str, Callable[[Describer, Any, str], str]] = {
    "diao": _diao,
    "pool": lambda d, a, unit: "the whole 官堆",
    "chong_points": lambda d, a, unit: "the seat's 開沖 points",
    "count": lambda d, a, unit: f"the number of {d.card_set(a['in'])} {_of(a)}",
    "run": _run,
    "top_cards": lambda d, a, unit: f"the cards {_of(a)} that no other hand can beat",
    "bottom_cards": lambda d, a, unit: f"the cards {_of(a)} that beat no card of another hand",
    "sequences": lambda d, a, unit: f"the number of times {_sequence(d, a)} was won in order",
    "suits_having": lambda d, a, unit: f"the number of {_suits_having(d, a)}",
    "tricks": lambda d, a, unit: "the number of tricks taken",
    "sum": _sum,
    "times": lambda d, a, unit: f"{d.numeric(a[0], unit)} × {d.numeric(a[1])}",
    "if": lambda d, a, unit: (f"({d.numeric(a['then'], unit)} if {d.condition(a['when'])}, "
                              f"else {d.numeric(a.get('else', 0), unit)})"),
    "max": _over("the larger of ", ", "),
    "min": _over("the smaller of ", ", "),
}

_SAYS_UNIT = frozenset({"diao", "pool", "chong_points", "sum", "times", "if", "max", "min"})
"""Kinds whose text already carries its unit; any other kind counts, and as an amount
each count is worth 1 注 (so the text says "in 注")."""


def describe_ruleset(ruleset: Ruleset) -> dict[str, dict[str, str]]:
    """Every item of *ruleset* described; raises UndescribedKind for an unknown kind."""
    d = Describer(ruleset)
    return {iid: d.item(item) for iid, item in ruleset.items.items()}
