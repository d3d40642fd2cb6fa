"""Prose for a rule item, generated from its YAML (never hand-written), in English or Chinese.

This mirrors the compile tables of dsl.py: each condition, card-set and numeric (amount) kind
maps to one small function that words it through the phrase book :data:`PHRASES` (one entry
per phrase, an ``en`` and a ``zh`` form; zh is written in traditional characters, the report
converts it for zh-Hans).  Adding a kind to the language is one more entry here; a kind
without an entry raises :class:`UndescribedKind`, and the tests walk every bundled ruleset and
compare these tables with dsl.py's, so a new kind cannot be forgotten.

Option switches (``{option: X, cases: …}``) are described by the case the ruleset's current
option values choose, followed by the reading in use.  A sub-expression that many items share
(the 正色樣 bonus) can be named once (``shared``) and referred to by its label.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..cards import CARD_ALIASES, CARD_HANZI, CATEGORIES, CATEGORY_ALIASES
from ..errors import MahdiaoError
from ..units import format_zhu, is_number, ticks
from .model import CHANNEL_HANZI, ItemDef, Ruleset
from .terms import english


class UndescribedKind(MahdiaoError):
    """A node kind that describe.py has no text for (add an entry to its table)."""


LANGS = ("en", "zh")
"""Languages of the prose: a report's zh-Hant and zh-Hans both use ``zh``."""

PHRASES: dict[str, tuple[str, str]] = {
    # ---------------------------------------------------------------- joining
    "and": (" and ", "與"),
    "or": (" or ", "或"),
    "list_sep": (", ", "、"),
    "cond_and": (" and ", "，且"),
    "cond_sep": (", ", "，"),
    "cond_or": (" or ", "；或"),
    "either": ("either {x}", "{x}"),
    "always": ("always", "無條件"),
    "not_played": ("the hand was not played: 免斗", "此局免斗，未斗"),
    "never": ("never", "從不"),
    "reading": ("{x} (reading {option} = {value})", "{x}（讀法 {option}＝{value}）"),
    "reading_named": ("{x} (reading “{name}”: {option} = {value})", "{x}（讀法「{name}」）"),
    # ---------------------------------------------------------------- card sets
    "all_n": ("all {n} {set}", "{set}{n}張"),
    "every_card": ("every card of {set}", "{set}每張"),
    "a_card": ("a card of {set}", "{set}任一張"),
    "set_and": ("{a} when it is {b}", "{a}（若為{b}）"),
    "set_or": ("{a} or {b}", "{a}或{b}"),
    "set_except": ("{a} other than {b}", "{a}（{b}除外）"),
    "face": ("the face card (面張)", "面張"),
    "stock_n": ("stock card {n}", "底牌第{n}張"),
    "below": ("the card just below {x}", "{x}之次一張"),
    # ---------------------------------------------------------------- conditions
    "holds": ("holds {x}", "手中有{x}"),
    "won": ("won {x}", "{x}上卓"),
    "chong": ("took {x} in 開沖", "開沖取得{x}"),
    "won_chong": ("won or took in 開沖 {x}", "{x}上卓或開沖取得"),
    "others_won": ("saw the other players win {x}", "他家上卓{x}"),
    "not_holds": ("does not hold {x}", "手中無{x}"),
    "not_won": ("did not win {x}", "{x}未上卓"),
    "not_won_any": ("won no {x}", "{x}皆未上卓"),
    "not_holds_any": ("holds no {x}", "手中無{x}"),
    "not_fired": ("has not made {x}", "未成{x}"),
    "not": ("it is not the case that {x}", "非{x}"),
    "count": ("{where} {bounds} cards of {set}", "{where}{set}{bounds}張"),
    "suit_count": ("{where} {bounds} cards of one suit", "{where}同一門{bounds}張"),
    "suit_count_of": ("{where} {bounds} cards of one of {suits}", "{where}{suits}之一門{bounds}張"),
    "tricks": ("took {bounds} tricks", "得卓{bounds}"),
    "zheng_ben": ("is 正本 (took two tricks or more)", "正本（得二卓以上）"),
    "not_zheng_ben": ("is not 正本 (took fewer than two tricks)", "不正本（不足二卓）"),
    "banker": ("is the 椿", "為椿家"),
    "not_banker": ("is a 散 (not the 椿)", "為散家（非椿）"),
    "won_first_1": ("won the first trick", "得首卓"),
    "won_first_n": ("won each of the first {n} tricks", "前{n}卓皆得"),
    "fired": ("has made {x}", "成{x}"),
    "any_seat": ("some player {x}", "有一家{x}"),
    "no_seat": ("no player {x}", "無一家{x}"),
    "first_won": ("won their first trick with {x}", "首得之卓以{x}得之"),
    "last_won": ("won their last trick with {x}", "末得之卓以{x}得之"),
    "won_sequence": ("won, in this order, {x}", "依次上卓{x}"),
    "then": (" then ", "，再"),
    "in_trick_with": ("{x} in a trick with {y}", "{x}（與{y}同卓）"),
    "only_between": ("{x}, with only {y} between", "{x}，其間只有{y}"),
    "any_order": ("{x}, in either order", "{x}，先後不拘"),
    "at_start": ("{x}, from their first trick", "{x}，自首得之卓起"),
    "not_at_start": ("{x}, not from their first trick", "{x}，非自首得之卓起"),
    "suits_having": ("{bounds} suits in which {of} {sets}", "{of}{sets}之門{bounds}"),
    "four_suits": ("{of} one card of each suit: {kinds}", "四門各一張{of}：{kinds}"),
    "kind_n": ("{n} {set}", "{set}{n}張"),
    "split": ("the tricks fell {x}", "卓數分為{x}"),
    "value": ("{x} is {bounds}", "{x}{bounds}"),
    # ---------------------------------------------------------------- bounds
    "exactly": ("exactly {n}", "恰{n}"),
    "at_least": ("at least {n}", "至少{n}"),
    "at_most": ("at most {n}", "至多{n}"),
    "between": ("{lo} to {hi}", "{lo}至{hi}"),
    "any_number": ("any number of", "任意"),
    # ---------------------------------------------------------------- amounts
    "zhu": ("{n} 注", "{n}注"),
    "in_zhu": ("{x}, in 注", "{x}（以注計）"),
    "diao": ("fewer than {lose} tricks lose one 吊, more than {win} win one 吊",
             "不足{lose}卓輸一吊，多於{win}卓贏一吊"),
    "diao_shared": ("; with {losers} and {winners}, {each} 吊 each", "；{losers}{winners}時各{each}吊"),
    "diao_unit": ("{x} (1 吊 = {n} 注)", "{x}（一吊＝{n}注）"),
    "losers": ("{n} loser{s}", "{n}家輸"),
    "winners": ("{n} winner{s}", "{n}家贏"),
    "pool": ("the whole 官堆", "官堆全數"),
    "chong_points": ("the player's 開沖 points", "開沖所得分數"),
    "n_of": ("the number of {set} {of}", "{of}{set}之張數"),
    "run": ("the longest run of consecutive {set} {of}", "{of}{set}連張之最長張數"),
    "run_any": ("the longest run of consecutive cards of one suit {of}", "{of}同門連張之最長張數"),
    "top_cards": ("the number of cards {of} that no other hand can beat", "{of}之牌中他家無以勝之者之張數"),
    "bottom_cards": ("the number of cards {of} that beat no card of another hand",
                     "{of}之牌中不勝他家任一張者之張數"),
    "sequences": ("the number of times {x} was won in order", "依次上卓{x}之次數"),
    "n_suits": ("the number of suits in which {of} {sets}", "{of}{sets}之門數"),
    "n_tricks": ("the number of tricks taken", "得卓數"),
    "times": ("{a} × {b}", "{a}×{b}"),
    "if": ("({a} if {c}, else {b})", "（若{c}則{a}，否則{b}）"),
    "max": ("the larger of {x}", "{x}中之大者"),
    "min": ("the smaller of {x}", "{x}中之小者"),
    "per_card": ("{a} per {set} {of}", "{of}{set}每張{a}"),
    "per_times": ("{a} × {b}", "{a}×{b}"),
    "shared": ("{label}", "{label}"),
    # ---------------------------------------------------------------- where the cards are
    "of_held": ("held", "手中"),
    "of_won": ("won", "上卓"),
    "of_chong": ("taken in 開沖", "開沖所得"),
    "of_won_chong": ("won or taken in 開沖", "上卓或開沖所得"),
    "of_others_won": ("won by the other players", "他家上卓"),
    "where_held": ("holds", "手中"),
    "where_won": ("won", "上卓之牌中"),
    "where_chong": ("took in 開沖", "開沖所得中"),
    "where_won_chong": ("won or took in 開沖", "上卓或開沖所得中"),
    "where_others_won": ("saw the others win", "他家上卓之牌中"),
}


def phrase(lang: str, key: str, **fields: Any) -> str:
    """A phrase of :data:`PHRASES` in *lang* (``en`` or ``zh``), its fields filled in."""
    return PHRASES[key][LANGS.index(lang)].format(**fields)


# ---------------------------------------------------------------------- small helpers


def join_and(parts: Sequence[str], word: str = "and", lang: str = "en") -> str:
    """"A, B and C" / 「A、B與C」; *word* is the phrase key of the last joint."""
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return "".join(parts)
    sep = phrase(lang, "list_sep")
    return sep.join(parts[:-1]) + phrase(lang, word) + parts[-1]


def join_conditions(parts: Sequence[str], lang: str) -> str:
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return "".join(parts)
    return phrase(lang, "cond_sep").join(parts[:-1]) + phrase(lang, "cond_and") + parts[-1]


def bounds(arg: Any, noun: str = "", lang: str = "en") -> str:
    """``{min: 2}`` → "at least 2", ``{eq: 8}`` / ``8`` → "exactly 8", min+max → "2 to 5"."""
    if isinstance(arg, int) and not isinstance(arg, bool):
        arg = {"eq": arg}
    if not isinstance(arg, dict):
        return str(arg)
    lo, hi = arg.get("min"), arg.get("max")
    if "eq" in arg:
        text = phrase(lang, "exactly", n=arg["eq"])
    elif lo is not None and hi is not None:
        text = phrase(lang, "between", lo=lo, hi=hi)
    elif lo is not None:
        text = phrase(lang, "at_least", n=lo)
    elif hi is not None:
        text = phrase(lang, "at_most", n=hi)
    else:
        text = phrase(lang, "any_number")
    return f"{text} {noun}".rstrip() if noun else text


def zhu_text(value: Any, lang: str = "en") -> str:
    """A literal amount in 注: ``3`` → "3 注", ``-0.5`` → "-½ 注"."""
    return phrase(lang, "zhu", n=format_zhu(ticks(value)))


OF_TEXT = {"held": "of_held", "won": "of_won", "chong": "of_chong", "won_chong": "of_won_chong",
           "others_won": "of_others_won"}
"""The ``of:`` sources: which of a seat's cards an expression looks at (phrase keys)."""

OF_VERB = {"held": "where_held", "won": "where_won", "chong": "where_chong",
           "won_chong": "where_won_chong", "others_won": "where_others_won"}


class Describer:
    """Describe the nodes of one ruleset (its option values, item and set names) in *lang*.

    *shared* maps the text of a sub-expression many items share to a label ("(A)"): the
    label is printed in its place and the table states the expression once.
    """

    def __init__(self, ruleset: Ruleset, lang: str = "en", shared: dict[str, str] | None = None,
                 named_readings: bool = True) -> None:
        if lang not in LANGS:
            raise ValueError(f"describe language {lang!r}: one of {LANGS}")
        self.rs = ruleset
        self.lang = lang
        self.options = dict(ruleset.option_values)
        self.shared = shared or {}
        self.named_readings = named_readings
        """Whether a reading is named (the text compared across rulesets names none)."""
        # Named sets' Chinese names, when the compiled ruleset keeps them (see set_names).
        self.set_names = set_names(ruleset)

    def t(self, key: str, **fields: Any) -> str:
        return phrase(self.lang, key, **fields)

    # ---------------------------------------------------------------- options

    def resolve(self, node: Any) -> tuple[Any, list[tuple[str, str]]]:
        """The node an option switch chooses, and the (option, value) readings it went through."""
        notes = []
        while isinstance(node, dict) and "option" in node and "cases" in node:
            name = node["option"]
            value = self.options.get(name)
            notes.append((name, str(value)))
            node = node["cases"].get(value)
        return node, notes

    def _with(self, notes: list[tuple[str, str]], text: str) -> str:
        # A reading is named where the ruleset names it (Chinese, or its English name from
        # terms.yaml); English keeps the option=value ids --set takes, Chinese the name only
        # (the options table pairs each name with its ids).
        for name, value in notes:
            option = self.rs.options.get(name)
            reading = option.reading_name(value) if option is not None and self.named_readings else ""
            if reading and self.lang == "en":
                reading = english(reading)
            key = "reading_named" if reading else "reading"
            text = self.t(key, x=text, option=name, value=value, name=reading)
        return text

    # ---------------------------------------------------------------- card sets

    def card_set(self, node: Any) -> str:
        node, note = self.resolve(node)
        if isinstance(node, str):
            return self._with(note, self.name(node))
        if isinstance(node, list):
            return self._with(note, join_and([self.card_set(n) for n in node], "or", self.lang))
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
            return self._with(note, join_and([self.every(n) for n in node], lang=self.lang))
        n = self.size(node)
        text = self.card_set(node)
        if n == 1:
            return self._with(note, text)
        return self._with(note, self.t("all_n", n=n, set=text) if n else self.t("every_card", set=text))

    def some(self, node: Any) -> str:
        node, note = self.resolve(node)
        if self.size(node) == 1:
            return self._with(note, self.card_set(node))
        return self._with(note, self.t("a_card", set=self.card_set(node)))

    # ---------------------------------------------------------------- conditions

    def condition(self, node: Any) -> str:
        node, note = self.resolve(node)
        if node is True or node is None:
            return self._with(note, self.t("always"))
        if node is False:
            return self._with(note, self.t("never"))
        if isinstance(node, list):
            return self._with(note, join_conditions([self.condition(n) for n in node], self.lang))
        if not isinstance(node, dict) or not node:
            raise UndescribedKind(f"describe.py cannot read the condition {node!r}")
        parts = []
        for kind, arg in node.items():
            fn = CONDITION_TEXT.get(kind)
            if fn is None:
                raise UndescribedKind(f"describe.py has no text for condition kind {kind!r}; "
                                      "add it to CONDITION_TEXT")
            parts.append(fn(self, arg))
        return self._with(note, join_conditions(parts, self.lang))

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
            return self._with(note, zhu_text(node, self.lang) if unit else f"{node}")
        if isinstance(node, dict) and len(node) == 1:
            (kind, arg), = node.items()
            fn = NUMERIC_TEXT.get(kind)
            if fn is None:
                raise UndescribedKind(f"describe.py has no text for amount kind {kind!r}; "
                                      "add it to NUMERIC_TEXT")
            text = fn(self, arg, unit)
            if unit and kind not in _SAYS_UNIT:
                text = self.t("in_zhu", x=text)
            return self._with(note, text)
        raise UndescribedKind(f"describe.py cannot read the amount {node!r}")

    def per(self, node: Any, amount: str) -> str:
        """``per:`` — how many times an item counts, with the amount it multiplies."""
        node, note = self.resolve(node)
        if isinstance(node, dict) and len(node) == 1 and next(iter(node)) in ("won", "held"):
            (kind, arg), = node.items()
            text = self.t("per_card", a=amount, set=self.card_set(arg), of=self.t(OF_TEXT[kind]))
            return self._with(note, text)
        return self._with(note, self.t("per_times", a=amount, b=self.numeric(node)))

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

    def sum_parts(self, raw: dict[str, Any]) -> list[str]:
        """The texts of the terms of an item's amount when it is a sum (to find shared ones)."""
        node, _ = self.resolve(raw.get("zhu", 0))
        if isinstance(node, dict) and "sum" in node:
            return [self.numeric(n, "注") for n in node["sum"]]
        return []

    def item(self, item: ItemDef) -> dict[str, str]:
        raw = item.raw
        amount = self.amount(raw["zhu"]) if "zhu" in raw else item.zhu_text
        if "per" in raw:
            amount = self.per(raw["per"], amount)
        channel, _ = self.resolve(raw.get("channel", item.channel))
        return {
            "condition": self.condition(raw.get("when", True)),
            "amount": amount,
            "channel": str(channel),
            "channel_hanzi": CHANNEL_HANZI.get(str(channel), str(channel)),
        }


def set_names(ruleset: Ruleset) -> dict[str, str]:
    """Chinese names of the ruleset's named sets, by set id."""
    info = getattr(ruleset, "set_info", None) or {}
    return {k: str(v.get("name", k)) if isinstance(v, dict) else str(v) for k, v in info.items()}


# ====================================================================== card-set kinds


def _stock(d: Describer, arg: Any) -> str:
    return d.t("face") if arg == 0 else d.t("stock_n", n=arg + 1)


def _set_and(d: Describer, a: list[Any]) -> str:
    text = d.card_set(a[0])
    for n in a[1:]:
        text = d.t("set_and", a=text, b=d.card_set(n))
    return text


def _set_or(d: Describer, a: list[Any]) -> str:
    text = d.card_set(a[0])
    for n in a[1:]:
        text = d.t("set_or", a=text, b=d.card_set(n))
    return text


SET_TEXT: dict[str, Callable[[Describer, Any], str]] = {
    "and": _set_and,
    "or": _set_or,
    "except": lambda d, a: d.t("set_except", a=d.card_set(a[0]), b=d.card_set(a[1])),
    "stock": _stock,
    "below": lambda d, a: d.t("below", x=d.card_set(a)),
}


# ====================================================================== condition kinds


def _verb(key: str, every: bool) -> Callable[[Describer, Any], str]:
    return lambda d, a: d.t(key, x=d.every(a) if every else d.some(a))


def _count(d: Describer, a: dict[str, Any]) -> str:
    of = a.get("of", "held")
    verb = d.t(OF_VERB.get(of, "where_held"))
    return d.t("count", where=verb, bounds=bounds(a, lang=d.lang), set=d.card_set(a["in"]))


def _suit_count(d: Describer, a: dict[str, Any]) -> str:
    of = a.get("of", "held")
    verb = d.t(OF_VERB.get(of, "where_held"))
    suits = a.get("suits")
    if not suits:
        return d.t("suit_count", where=verb, bounds=bounds(a, lang=d.lang))
    names = join_and([d.card_set(s) for s in suits], "or", d.lang)
    return d.t("suit_count_of", where=verb, bounds=bounds(a, lang=d.lang), suits=names)


def _zheng_ben(d: Describer, a: Any) -> str:
    return d.t("zheng_ben" if a else "not_zheng_ben")


def _fired(d: Describer, a: Any) -> str:
    names = a if isinstance(a, list) else [a]
    return d.t("fired", x=join_and([d.fired_name(n) for n in names], "or", d.lang))


def _not(d: Describer, a: Any) -> str:
    """"has not made 異賞", "did not win 百老": plain negation of a single test."""
    node, note = d.resolve(a)
    if isinstance(node, dict) and len(node) == 1:
        (kind, arg), = node.items()
        if kind == "fired":
            names = arg if isinstance(arg, list) else [arg]
            return d._with(note, d.t("not_fired", x=join_and([d.fired_name(n) for n in names], "or", d.lang)))
        if kind in ("won", "held"):
            return d._with(note, d.t("not_won" if kind == "won" else "not_holds", x=d.every(arg)))
        if kind in ("won_any", "held_any"):
            key = "not_won_any" if kind == "won_any" else "not_holds_any"
            return d._with(note, d.t(key, x=d.card_set(arg)))
        if kind == "zheng_ben":
            return d._with(note, _zheng_ben(d, not arg))
        if kind == "banker":
            return d._with(note, d.t("not_banker" if arg else "banker"))
    return d._with(note, d.t("not", x=d.condition(node)))


def _any(d: Describer, a: list[Any]) -> str:
    parts = [d.condition(n) for n in a]
    return d.t("either", x=phrase(d.lang, "cond_or").join(parts))


def _won_first(d: Describer, a: Any) -> str:
    return d.t("won_first_1") if a == 1 else d.t("won_first_n", n=a)


def _sequence(d: Describer, a: Any) -> str:
    if isinstance(a, list):
        a = {"cards": a}
    elems = []
    for e in a["cards"]:
        if isinstance(e, dict) and "card" in e:
            text = d.card_set(e["card"])
            if "trick_has" in e:
                text = d.t("in_trick_with", x=text, y=d.some(e["trick_has"]))
            elems.append(text)
        else:
            elems.append(d.card_set(e))
    text = d.t("then").join(elems)
    if a.get("between"):
        text = d.t("only_between", x=text, y=d.card_set(a["between"]))
    if a.get("any_order"):
        text = d.t("any_order", x=text)
    if a.get("at_start"):
        text = d.t("at_start", x=text)
    if a.get("not_at_start"):
        text = d.t("not_at_start", x=text)
    return text


def _suit_sets(d: Describer, a: dict[str, Any]) -> tuple[str, str]:
    sets = join_and([d.card_set(s) for s in a["all_of"]], lang=d.lang)
    of = d.t(OF_VERB.get(a.get("of", "won"), "where_won"))
    return sets, of


def _four_suits(d: Describer, a: dict[str, Any]) -> str:
    kinds = join_and([d.t("kind_n", n=n, set=d.card_set(s)) for s, n in a["counts"].items()], lang=d.lang)
    return d.t("four_suits", of=d.t(OF_TEXT.get(a.get("of", "won"), "of_won")), kinds=kinds)


def _value(d: Describer, a: dict[str, Any]) -> str:
    return d.t("value", x=d.numeric(a["of"]),
               bounds=bounds({k: v for k, v in a.items() if k != "of"}, lang=d.lang))


def _suits_having_cond(d: Describer, a: dict[str, Any]) -> str:
    limits = {k: v for k, v in a.items() if k in ("min", "max", "eq")} or {"min": 1}
    sets, of = _suit_sets(d, a)
    return d.t("suits_having", bounds=bounds(limits, lang=d.lang), of=of, sets=sets)


CONDITION_TEXT: dict[str, Callable[[Describer, Any], str]] = {
    "all": lambda d, a: join_conditions([d.condition(n) for n in a], d.lang),
    "any": _any,
    "not": _not,
    "held": _verb("holds", True),
    "held_any": _verb("holds", False),
    "won": _verb("won", True),
    "won_any": _verb("won", False),
    "count": _count,
    "suit_count": _suit_count,
    "tricks": lambda d, a: d.t("tricks", bounds=bounds(a, lang=d.lang)),
    "zheng_ben": _zheng_ben,
    "banker": lambda d, a: d.t("banker" if a else "not_banker"),
    "won_first": _won_first,
    "fired": _fired,
    "any_seat": lambda d, a: d.t("any_seat", x=d.condition(a)),
    "no_seat": lambda d, a: d.t("no_seat", x=d.condition(a)),
    "first_won": lambda d, a: d.t("first_won", x=d.some(a)),
    "last_won": lambda d, a: d.t("last_won", x=d.some(a)),
    "won_sequence": lambda d, a: d.t("won_sequence", x=_sequence(d, a)),
    "suits_having": _suits_having_cond,
    "four_suits": _four_suits,
    "split": lambda d, a: d.t("split", x="-".join(str(n) for n in sorted(a, reverse=True))),
    "value": _value,
}


# ====================================================================== numeric kinds
# Each entry gets the unit of its context: "注" for an amount, "" for a count.


def _diao(d: Describer, a: dict[str, Any], unit: str) -> str:
    text = d.t("diao", lose=a.get("lose_below", 2), win=a.get("win_above", 2))
    for row in a.get("shared", []):
        losers, winners = row["losers"], row["winners"]
        text += d.t("diao_shared", losers=d.t("losers", n=losers, s="" if losers == 1 else "s"),
                    winners=d.t("winners", n=winners, s="" if winners == 1 else "s"),
                    each=format_zhu(ticks(row["each"])))
    return d.t("diao_unit", x=text, n=d.rs.zhu_per_diao)


def _of(d: Describer, a: Any, default: str = "held") -> str:
    of = a.get("of", default) if isinstance(a, dict) else a
    return d.t(OF_TEXT.get(of, "of_held"))


def _run(d: Describer, a: dict[str, Any], unit: str) -> str:
    if "in" in a:
        return d.t("run", set=d.card_set(a["in"]), of=_of(d, a))
    return d.t("run_any", of=_of(d, a))


def _over(key: str) -> Callable[[Describer, Any, str], str]:
    return lambda d, a, unit: d.t(key, x=join_and([d.numeric(n, unit) for n in a], lang=d.lang))


def _sum(d: Describer, a: Any, unit: str) -> str:
    text = ""
    for i, n in enumerate(a):
        part = d.numeric(n, unit)
        part = d.shared.get(part, part)
        if i == 0:
            text = part
        elif part.startswith("-"):
            text += " − " + part[1:]
        else:
            text += " + " + part
    return text


def _suits_having_num(d: Describer, a: dict[str, Any], unit: str) -> str:
    sets, of = _suit_sets(d, a)
    return d.t("n_suits", of=of, sets=sets)


NUMERIC_TEXT: dict[str, Callable[[Describer, Any, str], str]] = {
    "diao": _diao,
    "pool": lambda d, a, unit: d.t("pool"),
    "chong_points": lambda d, a, unit: d.t("chong_points"),
    "count": lambda d, a, unit: d.t("n_of", set=d.card_set(a["in"]), of=_of(d, a)),
    "run": _run,
    "top_cards": lambda d, a, unit: d.t("top_cards", of=_of(d, a)),
    "bottom_cards": lambda d, a, unit: d.t("bottom_cards", of=_of(d, a)),
    "sequences": lambda d, a, unit: d.t("sequences", x=_sequence(d, a)),
    "suits_having": _suits_having_num,
    "tricks": lambda d, a, unit: d.t("n_tricks"),
    "sum": _sum,
    "times": lambda d, a, unit: d.t("times", a=d.numeric(a[0], unit), b=d.numeric(a[1])),
    "if": lambda d, a, unit: d.t("if", a=d.numeric(a["then"], unit), c=d.condition(a["when"]),
                                 b=d.numeric(a.get("else", 0), unit)),
    "max": _over("max"),
    "min": _over("min"),
}

_SAYS_UNIT = frozenset({"diao", "pool", "chong_points", "sum", "times", "if", "max", "min"})
"""Kinds whose text already carries its unit; any other kind counts, and as an amount
each count is worth 1 注 (so the text says "in 注")."""


def describe_ruleset(ruleset: Ruleset, lang: str = "en") -> dict[str, dict[str, str]]:
    """Every item of *ruleset* described; raises UndescribedKind for an unknown kind."""
    d = Describer(ruleset, lang)
    return {iid: d.item(item) for iid, item in ruleset.items.items()}
