"""A plain reference interpreter of the ruleset YAML, for checking the compiled engine.

Written from ``docs/ruleset-language.md`` alone, independent of ``mahdiao_rules/ruleset``
(dsl.py, compiler.py, layers.py): it reads the YAML files itself, merges ``extends``,
``include`` and ``remove``, and walks the data tree for every seat of every hand —
card sets are Python sets, amounts are exact Fractions of 注, nothing is compiled,
cached or pre-filtered.  It is slow on purpose: it should be obviously correct.

What it borrows: the YAML reader (``yamlsafe.load_file``), the deck (card names,
categories, suits from ``cards.py``), the bundled-file lookup (``resources``) and,
for rulesets that have one, the 開沖 procedure (``procedure.kai_chong``, a module of
its own, not part of the condition language) — its takes are fed in as the
``chong`` cards and points.  Recorded events (fines, 代賠) are not interpreted:
use it on deals without events.

API: ``load(spec, options)`` → :class:`RefRuleset`; ``settle(ref, deal, play)`` →
:class:`RefResult` (nets of the four seats and the 官堆, the firings, the status);
``settle_nets(ref, deal, play)`` → the nets only.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from mahdiao_rules.cards import CARD_ALIASES, CARD_SUIT, CATEGORIES, CATEGORY_ALIASES, N_CARDS
from mahdiao_rules.io.resources import data_dir
from mahdiao_rules.io.yamlsafe import load_file

TICKS = 24  # ticks per 注, as ledger.py counts
GUAN_DUI = 4
SUITS = [frozenset(c for c in range(N_CARDS) if CARD_SUIT[c] == s) for s in range(4)]
ALL_CARDS = frozenset(range(N_CARDS))


def _cards(mask: int) -> frozenset[int]:
    return frozenset(c for c in range(N_CARDS) if mask >> c & 1)


CATEGORY_CARDS = {cid: _cards(mask) for cid, (mask, _names, _gloss) in CATEGORIES.items()}


# ====================================================================== loading


@dataclass
class Tree:
    """The merged ruleset data (before options are applied)."""

    info: dict[str, Any] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    procedure: dict[str, Any] = field(default_factory=dict)
    sets: dict[str, Any] = field(default_factory=dict)
    channels: dict[str, Any] = field(default_factory=dict)
    groups: dict[str, Any] = field(default_factory=dict)
    items: list[dict[str, Any]] = field(default_factory=list)
    removes: list[Any] = field(default_factory=list)


def _read(path: Path) -> dict[str, Any]:
    return load_file(path).data


def _merge_file(path: Path, tree: Tree | None = None) -> Tree:
    data = _read(path)
    if "extends" in data:
        spec = data["extends"]
        if spec.endswith((".yaml", ".yml", ".json")) or "/" in spec:
            base = path.parent / spec
        else:
            base = Path(data_dir("rulesets")) / f"{spec}.yaml"
        tree = _merge_file(base)
    tree = tree or Tree()
    _apply(tree, data)
    for name in data.get("include", []):
        _apply(tree, _read(path.parent / name))
    remove = data.get("remove", [])
    tree.removes.extend(remove if isinstance(remove, list) else [remove])
    return tree


def _apply(tree: Tree, data: dict[str, Any]) -> None:
    for key in ("id", "name", "units"):
        if key in data:
            tree.info[key] = data[key]
    for name, node in data.get("options", {}).items():
        if "choices" in node:
            tree.options[name] = dict(node)
        else:  # a derived ruleset changes an inherited option's default
            tree.options[name] = {**tree.options[name], "default": node["default"]}
    tree.procedure.update(data.get("procedure", {}))
    tree.sets.update(data.get("sets", {}))
    tree.channels.update(data.get("channels", {}))
    tree.groups.update(data.get("groups", {}))
    for item in data.get("items", []):
        old = [i for i, it in enumerate(tree.items) if it["id"] == item["id"]]
        if old:  # override: true — the new definition takes the old one's place
            tree.items[old[0]] = item
        else:
            tree.items.append(item)


@dataclass
class RefRuleset:
    id: str
    tree: Tree
    values: dict[str, str]
    items: list[dict[str, Any]]
    zhu_per_diao: int
    compiled: Any = None
    """The compiled ruleset, used only for its 開沖 procedure (when it has one)."""

    def opt(self, node: Any) -> Any:
        """Resolve ``{option: NAME, cases: {...}}`` (repeatedly) with this run's values."""
        while isinstance(node, dict) and "option" in node and "cases" in node:
            node = node["cases"][self.values[node["option"]]]
        return node


def load(spec: str, options: dict[str, str] | None = None) -> RefRuleset:
    """A bundled ruleset id or a YAML path, with option values."""
    path = Path(spec) if spec.endswith((".yaml", ".yml")) else Path(data_dir("rulesets")) / f"{spec}.yaml"
    tree = _merge_file(path)
    values = {name: o["default"] for name, o in tree.options.items()}
    values.update(options or {})
    ref = RefRuleset(tree.info["id"], tree, values, [], 1)
    drop: set[str] = set()
    for entry in tree.removes:
        entry = ref.opt(entry)
        drop.update(entry if isinstance(entry, list) else [entry])
    ref.items = [it for it in tree.items if it["id"] not in drop]
    ref.zhu_per_diao = tree.info["units"]["zhu_per_diao"]
    if ref.opt(tree.procedure.get("kai_chong")):
        from mahdiao_rules.ruleset import find_ruleset

        ref.compiled = find_ruleset(spec, options or None)
    return ref


# ====================================================================== one hand


@dataclass
class Hand:
    banker: int
    held: list[frozenset[int]]
    stock: tuple[int, ...]
    won: list[set[int]] = field(default_factory=lambda: [set(), set(), set(), set()])
    won_order: list[list[int]] = field(default_factory=lambda: [[], [], [], []])
    won_tricks: list[list[frozenset[int]]] = field(default_factory=lambda: [[], [], [], []])
    won_upto: list[list[frozenset[int]]] = field(default_factory=lambda: [[], [], [], []])
    """The cards of each won trick played up to and including the winning card."""
    trick_winners: list[int] = field(default_factory=list)
    chong: list[frozenset[int]] = field(default_factory=lambda: [frozenset()] * 4)
    chong_points: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    fired: list[set[str]] = field(default_factory=lambda: [set(), set(), set(), set()])
    pool: int = 0
    tricks: list[int] = field(default_factory=lambda: [0, 0, 0, 0])


class Interp:
    """Evaluate card sets, conditions and amounts of one ruleset on one hand."""

    def __init__(self, ref: RefRuleset, hand: Hand) -> None:
        self.ref, self.h = ref, hand
        self.names: dict[str, frozenset[int]] = {}
        """Card sets by name, for this hand (a named set may depend on the stock)."""

    # ------------------------------------------------------------------ card sets

    def cards(self, node: Any) -> frozenset[int]:
        node = self.ref.opt(node)
        if isinstance(node, str):
            if node not in self.names:
                self.names[node] = self.named(node)
            return self.names[node]
        if isinstance(node, list):
            out: frozenset[int] = frozenset()
            for part in node:
                out |= self.cards(part)
            return out
        (kind, arg), = node.items()
        if kind == "and":
            parts = [self.cards(a) for a in self.ref.opt(arg)]
            out = parts[0]
            for part in parts[1:]:
                out &= part
            return out
        if kind == "or":
            return self.cards(list(self.ref.opt(arg)))
        if kind == "except":
            a, b = self.ref.opt(arg)
            return self.cards(a) - self.cards(b)
        if kind == "stock":
            return frozenset([self.h.stock[self.ref.opt(arg)]])
        if kind == "below":
            out = frozenset()
            for c in self.cards(arg):
                if c + 1 < N_CARDS and CARD_SUIT[c + 1] == CARD_SUIT[c]:
                    out |= {c + 1}
            return out
        raise ValueError(f"unknown card-set kind {kind!r}")

    def named(self, name: str) -> frozenset[int]:
        """A set of the ruleset's ``sets:``, else a category, else a card (docs: Card sets)."""
        if name in self.ref.tree.sets:
            return self.cards(self.ref.tree.sets[name]["cards"])
        if name in CATEGORY_ALIASES:
            return CATEGORY_CARDS[CATEGORY_ALIASES[name]]
        card = CARD_ALIASES.get(name, CARD_ALIASES.get(name.lower()))
        if card is None:
            raise ValueError(f"unknown card set {name!r}")
        return frozenset([card])

    def source(self, name: Any, p: int) -> frozenset[int]:
        name = self.ref.opt(name)
        h = self.h
        if name == "held":
            return h.held[p]
        if name == "won":
            return frozenset(h.won[p])
        if name == "chong":
            return h.chong[p]
        if name == "won_chong":
            return frozenset(h.won[p]) | h.chong[p]
        if name == "others_won":
            return frozenset().union(*(h.won[q] for q in range(4) if q != p))
        raise ValueError(f"unknown source {name!r}")

    # ------------------------------------------------------------------ conditions

    def holds(self, node: Any, p: int) -> bool:
        node = self.ref.opt(node)
        if node is True or node is False:
            return node
        if isinstance(node, list):
            return all(self.holds(n, p) for n in node)
        return all(self.kind(kind, arg, p) for kind, arg in node.items())

    @staticmethod
    def within(n: int | Fraction, bounds: Any) -> bool:
        if isinstance(bounds, int) and not isinstance(bounds, bool):
            return n == bounds
        if "eq" in bounds:
            return n == bounds["eq"]
        return bounds.get("min", n) <= n <= bounds.get("max", n)

    def bounds_of(self, arg: dict[str, Any], default: Any = None) -> Any:
        b = {k: self.ref.opt(v) for k, v in arg.items() if k in ("min", "max", "eq")}
        return b or default

    def kind(self, kind: str, arg: Any, p: int) -> bool:
        h, opt = self.h, self.ref.opt
        arg = opt(arg)
        tricks = h.tricks
        if kind == "all":
            return all(self.holds(a, p) for a in arg)
        if kind == "any":
            return any(self.holds(a, p) for a in arg)
        if kind == "not":
            return not self.holds(arg, p)
        if kind == "held":
            return self.cards(arg) <= h.held[p]
        if kind == "won":
            return self.cards(arg) <= h.won[p]
        if kind == "held_any":
            return bool(self.cards(arg) & h.held[p])
        if kind == "won_any":
            return bool(self.cards(arg) & h.won[p])
        if kind == "count":
            n = len(self.cards(arg["in"]) & self.source(arg.get("of", "held"), p))
            return self.within(n, self.bounds_of(arg))
        if kind == "suit_count":
            mine = self.source(arg.get("of", "held"), p)
            suits = [self.cards(s) for s in opt(arg.get("suits", ["十", "萬門", "索", "文"]))]
            return any(self.within(len(mine & s), self.bounds_of(arg)) for s in suits)
        if kind == "tricks":
            return self.within(tricks[p], arg)
        if kind == "zheng_ben":
            return (tricks[p] >= 2) == arg
        if kind == "banker":
            return (h.banker == p) == arg
        if kind == "won_first":
            return len(h.trick_winners) >= arg and all(w == p for w in h.trick_winners[:arg])
        if kind == "fired":
            names = arg if isinstance(arg, list) else [arg]
            return any(n in h.fired[p] for n in names)
        if kind == "any_seat":
            return any(self.holds(arg, q) for q in range(4))
        if kind == "no_seat":
            return not any(self.holds(arg, q) for q in range(4))
        if kind == "first_won":
            return bool(h.won_order[p]) and h.won_order[p][0] in self.cards(arg)
        if kind == "last_won":
            return bool(h.won_order[p]) and h.won_order[p][-1] in self.cards(arg)
        if kind == "won_sequence":
            return self.sequences(arg, p) > 0
        if kind == "suits_having":
            return self.within(self.suits_having(arg, p), self.bounds_of(arg, {"min": 1}))
        if kind == "four_suits":
            return self.four_suits(arg, p)
        if kind == "split":
            return sorted(tricks, reverse=True) == sorted(arg, reverse=True)
        if kind == "value":
            return self.within(self.number(arg["of"], p), self.bounds_of(arg))
        raise ValueError(f"unknown condition kind {kind!r}")

    def sequences(self, arg: Any, p: int) -> int:
        """How many times the elements occur one right after another in p's winning order."""
        arg = self.ref.opt(arg)
        if isinstance(arg, list):
            arg = {"cards": arg}
        elems = []
        for e in self.ref.opt(arg["cards"]):
            e = self.ref.opt(e)
            if isinstance(e, dict) and "card" in e:
                has = self.cards(e["trick_has"]) if "trick_has" in e else None
                elems.append((self.cards(e["card"]), has))
            else:
                elems.append((self.cards(e), None))
        between = self.cards(arg["between"]) if "between" in arg else frozenset()
        orders = list(itertools.permutations(elems)) if arg.get("any_order") else [tuple(elems)]
        order, tricks = self.h.won_order[p], self.h.won_tricks[p]
        total = 0
        for seq in orders:
            for start in range(len(order)):
                if arg.get("at_start") and start != 0:
                    continue
                if arg.get("not_at_start") and start == 0:
                    continue
                total += self._match(seq, order, tricks, start, between)
        return total

    @staticmethod
    def _match(seq: tuple[Any, ...], order: list[int], tricks: list[frozenset[int]], start: int,
               between: frozenset[int]) -> bool:
        j = start
        for k, (cards, has) in enumerate(seq):
            while True:
                if j >= len(order):
                    return False
                c = order[j]
                if c in cards and (has is None or (tricks[j] - {c}) & has):
                    break
                if k == 0 or c not in between:  # the first element starts the run; gaps hold `between`
                    return False
                j += 1
            j += 1
        return True

    def suits_having(self, arg: Any, p: int) -> int:
        arg = self.ref.opt(arg)
        mine = self.source(arg.get("of", "won"), p)
        sets = [self.cards(s) for s in self.ref.opt(arg["all_of"])]
        return sum(all(mine & suit & s for s in sets) for suit in SUITS)

    def four_suits(self, arg: Any, p: int) -> bool:
        mine = self.source(arg.get("of", "won"), p)
        counts = self.ref.opt(arg["counts"])
        kinds = [self.cards(name) for name in counts]
        bag = [i for i, n in enumerate(counts.values()) for _ in range(n)]  # 4 kinds, with repeats
        for pick in set(itertools.permutations(bag)):  # every way to give each suit one kind
            if all(mine & SUITS[s] & kinds[pick[s]] for s in range(4)):
                return True
        return False

    # ------------------------------------------------------------------ numbers

    def number(self, node: Any, p: int) -> Fraction:
        """A numeric expression: literals and counts are plain numbers; 吊, pool and 開沖
        points are 注.  In ``zhu:`` the result is 注 (ticks = 24 × it)."""
        node = self.ref.opt(node)
        h = self.h
        if isinstance(node, int | float | Decimal) and not isinstance(node, bool):  # YAML 0.5 is a Decimal
            return Fraction(str(node))
        (kind, arg), = node.items()
        arg = self.ref.opt(arg)
        if kind == "count":
            return Fraction(len(self.cards(arg["in"]) & self.source(arg.get("of", "held"), p)))
        if kind == "run":
            mine = self.source(arg.get("of", "held"), p)
            mine &= self.cards(arg.get("in", ["十", "萬門", "索", "文"]))
            best = 0
            for c in mine:
                n = 1
                while c + n in mine and CARD_SUIT[c + n] == CARD_SUIT[c]:
                    n += 1
                best = max(best, n)
            return Fraction(best)
        if kind in ("top_cards", "bottom_cards"):
            others = frozenset().union(*(h.held[q] for q in range(4) if q != p))
            n = 0
            for c in self.source(arg, p):
                same = [o for o in others if CARD_SUIT[o] == CARD_SUIT[c]]
                if kind == "top_cards" and not any(o < c for o in same):
                    n += 1
                if kind == "bottom_cards" and not any(o > c for o in same):
                    n += 1
            return Fraction(n)
        if kind == "sequences":
            return Fraction(self.sequences(arg, p))
        if kind == "suits_having":
            return Fraction(self.suits_having(arg, p))
        if kind == "tricks":
            return Fraction(h.tricks[p])
        if kind == "sum":
            return sum((self.number(a, p) for a in arg), Fraction(0))
        if kind == "times":
            a, b = arg
            return self.number(a, p) * self.number(b, p)
        if kind == "if":
            chosen = arg["then"] if self.holds(arg["when"], p) else arg.get("else", 0)
            return self.number(chosen, p)
        if kind == "max":
            return max(self.number(a, p) for a in arg)
        if kind == "min":
            return min(self.number(a, p) for a in arg)
        if kind == "diao":
            return self.diao(arg, p)
        if kind == "pool":
            return Fraction(h.pool, TICKS)
        if kind == "chong_points":
            return Fraction(h.chong_points[p], TICKS)
        raise ValueError(f"unknown amount kind {kind!r}")

    def diao(self, arg: dict[str, Any], p: int) -> Fraction:
        """吊: fewer than lose_below tricks lose one 吊, more than win_above win one; a
        ``shared`` row gives that partition's winners their share.  × zhu_per_diao."""
        t = self.h.tricks
        lose, win = arg.get("lose_below", 2), arg.get("win_above", 2)
        unit = self.ref.zhu_per_diao
        if t[p] < lose:
            return Fraction(-unit)
        if t[p] <= win:
            return Fraction(0)
        losers = sum(n < lose for n in t)
        winners = sum(n > win for n in t)
        for row in arg.get("shared", []):
            if row["losers"] == losers and row["winners"] == winners:
                return Fraction(str(row["each"])) * unit
        return Fraction(unit)

    def per(self, node: Any, p: int) -> int:
        node = self.ref.opt(node)
        if isinstance(node, dict) and len(node) == 1 and next(iter(node)) in ("won", "held"):
            (src, s), = node.items()
            return len(self.cards(s) & self.source(src, p))
        n = self.number(node, p)
        assert n.denominator == 1
        return int(n)


# ====================================================================== settling


@dataclass
class RefResult:
    nets: list[int]
    firings: list[tuple[str, int, int]]
    """(item id, seat, ticks per counterparty) in evaluation order."""
    status: str


def _sheng_dai(ref: RefRuleset, deal: Any) -> list[frozenset[int]]:
    """升代: the holder of the mapped card holds the face card in its place."""
    held = [frozenset(h) for h in deal.hands]
    spec = ref.opt(ref.tree.procedure.get("sheng_dai")) or {}
    face = deal.stock[0]
    interp = Interp(ref, Hand(0, held, tuple(deal.stock)))
    for face_name, card_name in (spec.get("map") or {}).items():
        (f,) = interp.cards(face_name)
        (r,) = interp.cards(card_name)
        if f == face:
            for p in range(4):
                if r in held[p]:
                    held[p] = (held[p] - {r}) | {face}
    return held


def _steps(ref: RefRuleset, phase: str) -> list[tuple[str | None, list[dict[str, Any]]]]:
    """The items of a phase in file order; a group is one step at its first member's place."""
    steps: list[tuple[str | None, list[dict[str, Any]]]] = []
    placed: dict[str, list[dict[str, Any]]] = {}
    for item in ref.items:
        if item["phase"] != phase:
            continue
        g = item.get("group")
        if g is None:
            steps.append((None, [item]))
        elif g in placed:
            placed[g].append(item)
        else:
            placed[g] = [item]
            steps.append((g, placed[g]))
    return steps


def _payers(ref: RefRuleset, interp: Interp, channel: str, p: int, a: int) -> list[tuple[int, int]]:
    """(payer, payee) pairs for amount *a* fired for seat *p* (docs: Channels)."""
    b = interp.h.banker
    others = [q for q in range(4) if q != p]
    if channel in ("kai_zhu", "kai_zhu_winner_only"):
        if channel == "kai_zhu_winner_only" and a < 0:
            return []
        return [(q, p) for q in others] if p == b else [(b, p)]
    if channel == "qiao_men":
        return [] if p == b else [(q, p) for q in others if q != b]
    if channel == "gong_he":
        exempt = ref.opt((ref.tree.channels.get("gong_he") or {}).get("exempt"))
        return [(q, p) for q in others if exempt is None or not interp.holds(exempt, q)]
    if channel == "san_jia":
        return [(q, p) for q in others]
    if channel == "guan_dui":
        return [(GUAN_DUI, p)]
    if channel == "none":
        return []
    raise ValueError(f"unknown channel {channel!r}")


def _phase(ref: RefRuleset, interp: Interp, phase: str, nets: list[int],
           firings: list[tuple[str, int, int]]) -> bool:
    """Judge and pay one phase; True when a firing ends the hand."""
    h = interp.h
    ended = False
    for group, members in _steps(ref, phase):
        step: list[tuple[dict[str, Any], int, int]] = []
        for item in members:
            fired_for = []
            for p in range(4):
                if not interp.holds(item.get("when", True), p):
                    continue
                count = interp.per(item["per"], p) if "per" in item else 1
                if "per" in item and count == 0:
                    continue
                fired_for.append((p, count))
            for p, count in fired_for:
                amount = interp.number(item["zhu"], p) * TICKS * count
                if item.get("split") == "holders":
                    amount /= len(fired_for)
                assert amount.denominator == 1, f"{item['id']}: {amount} ticks is not exact"
                step.append((item, p, int(amount)))
        if group is not None:
            spec = ref.tree.groups[group]
            keep = []
            for p in range(4):
                mine = [f for f in step if f[1] == p]
                if not mine:
                    continue
                if "all_when" in spec and interp.holds(spec["all_when"], p):
                    keep += mine
                else:
                    best = max(f[2] for f in mine)
                    keep.append(next(f for f in mine if f[2] == best))  # the first best
                h.fired[p].add(group)
            step = [f for f in step if f in keep]  # member order, then seat
        for item, p, _a in step:
            h.fired[p].add(item["id"])
        for item, p, a in step:
            firings.append((item["id"], p, a))
            ended |= bool(item.get("ends_hand"))
            for payer, payee in _payers(ref, interp, ref.opt(item["channel"]), p, a):
                nets[payer] -= a
                nets[payee] += a
                if payer == GUAN_DUI:
                    h.pool -= a
                if payee == GUAN_DUI:
                    h.pool += a
    return ended


def settle(ref: RefRuleset, deal: Any, play: Any) -> RefResult:
    """Settle *deal* whose eight tricks (under this ruleset's 升代) are *play*."""
    assert not deal.events, "the reference interpreter does not price events"
    h = Hand(int(deal.banker), _sheng_dai(ref, deal), tuple(deal.stock))
    h.pool = deal.guan_dui * TICKS
    interp = Interp(ref, h)
    nets = [0, 0, 0, 0, 0]
    firings: list[tuple[str, int, int]] = []
    ended = _phase(ref, interp, "deal", nets, firings)
    if not ended:
        for trick in play.tricks:  # the best card of the led suit wins (docs: play)
            cards = list(trick.cards)
            best = min(c for c in cards if CARD_SUIT[c] == CARD_SUIT[cards[0]])
            winner = (int(trick.lead) + cards.index(best)) % 4
            h.won[winner].add(best)
            h.won_order[winner].append(best)
            h.won_tricks[winner].append(frozenset(cards))
            h.won_upto[winner].append(frozenset(cards[:cards.index(best) + 1]))
            h.trick_winners.append(winner)
            h.tricks[winner] += 1
        if ref.compiled is not None:
            _chong(ref, h, play)
        _phase(ref, interp, "play", nets, firings)
    _phase(ref, interp, "end", nets, firings)
    return RefResult(nets, firings, "mian_dou" if ended else "played")


def settle_nets(ref: RefRuleset, deal: Any, play: Any) -> list[int]:
    return settle(ref, deal, play).nets


def _chong(ref: RefRuleset, h: Hand, play: Any) -> None:
    """開沖 is a procedure module of its own: run the compiled one on this hand's facts."""
    from mahdiao_rules.ruleset.dsl import HandState
    from mahdiao_rules.settle.kai_chong import run as run_kai_chong

    st = HandState(h.banker, [sum(1 << c for c in h.held[p]) for p in range(4)], h.stock)
    st.won = [sum(1 << c for c in h.won[p]) for p in range(4)]
    st.tricks = h.tricks
    st.trick_winners = tuple(h.trick_winners)
    st.won_order = [tuple(o) for o in h.won_order]
    st.won_tricks = [tuple(sum(1 << c for c in t) for t in h.won_tricks[p]) for p in range(4)]
    st.won_upto = [tuple(sum(1 << c for c in t) for t in h.won_upto[p]) for p in range(4)]
    run_kai_chong(ref.compiled.procedure.kai_chong, st)
    h.chong = [frozenset(st.chong[p]) for p in range(4)]
    h.chong_points = list(st.chong_points)
