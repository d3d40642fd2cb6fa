"""開沖 (kai chong): after trick 8 the stock is turned over and linked cards are taken.

The procedure and its point table are data, read from ``procedure.kai_chong`` in
a ruleset (see ``rulesets/app/kai_chong.yaml``)::

    min_tricks: 2                  # fewer 上桌 cards: no 開沖 (APP-U ChongCommand: lWin.Count <= 1)
    anchors: SET                   # 上桌 cards a take can hang from (賞/肩/百/趣)
    links: [ROW, …]                # when two cards are neighbours (LINK_KINDS)
    sequence: [ROW, …]             # what ``connected:`` means in point rows (default: links)
    first: trick_8_winner          # who tries first (FIRST_KINDS)
    after_take: taker              # who tries first for the next card (AFTER_TAKE)
    twins: [{won_with: SET, trick_has: [SET, …], value: N}, …]   # 多胞胎 captures
    points: {rows: [ROW, …], twins: multiply | {add: [{to: SET, points: N | times_points_of: SET}, …]},
             twins_cards: trick | upto_winner, twins_trick: best | first, run: {…}}
    source: {ref: …, quote: …}

Points come from the seat's 上桌 cards of the card's suit (the *sources*, as in
APP-W ``evaluateKaiChong`` and APP-U ``KanChong``): for each source the first
point row whose ``from`` holds the source and ``to`` holds the card, and whose
tests pass, gives its points; the take is worth their sum.  Row tests:

* ``needs: [SET, …]`` — each set has a card of the suit among the seat's won and
  taken cards or the card itself (APP-W's ``uSet``);
* ``with_won: [SET, …]`` — each set has a card of the suit among the seat's 上桌 cards;
* ``connected: true`` — the source is joined to the card through the seat's cards
  (neighbours by ``sequence``, which defaults to ``links``);
* ``alone: false`` — the row does not count when its source is the only one that
  scores (APP-W: "A single Qing card cannot Kai Chong");
* ``exclusive: true`` — when any source matches such a row, only those rows count
  (APP-W 間領沖 returns at once; APP-U's 十-suit 錦張 branch replaces the others);
* ``qing_all: true`` — the points are multiplied by APP-U's ``ChongQingAll`` factor: 2 when
  every value from 2 up to the card's is among the seat's won and taken cards with the 極,
  else 1 when a value is missing below the card (from 2) or above it (up to two below the
  賞 value), else 0 (the row then gives nothing).

``twins`` rows name a seat's 三花 captures (萬萬 or 千萬 winning a trick that held
other 三花 cards); a scheme either multiplies a capturing source's points by
``1 + value`` (APP-W ``getCaptureMultiplier``) or adds points per take times the
seat's value (APP-U ``twins``): a fixed number per take, or (``times_points_of: SET``) the
points of the take's first part whose source is in SET — the code's ``x·twins``.  The
seat's value is its best trick's (``twins_trick: best``) or its first qualifying trick's
(``first``, APP-U ``DiscardCommand`` keeps the first); ``twins_cards: upto_winner`` counts
only the cards played up to and including the winning card, as the code does.

``run`` (APP-U ``CardChong.KanChong``, read literally; see :class:`RunBranch`): the code's
prechecks and its run branch (連續牌組開冲), tried before the point rows.  A card passes the
prechecks, then either a run of ``min_length`` values or more through it, the seat's won
and taken cards scores it by where it lies against the seat's won cards of the run, or the
rows score it.

This module compiles the spec into a :class:`KaiChong` table (card masks and
rows); :mod:`mahdiao_rules.settle.kai_chong` runs it for a played hand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..cards import CARD_SUIT, N_CARDS, bits_of
from .dsl import Compiler, HandState, Path
from .model import Citation

# ====================================================================== spec helpers


def _mapping(c: Compiler, node: Any, path: Path, allowed: set[str], required: set[str],
             what: str) -> dict[str, Any]:
    node, path = c.resolve(node, path)
    if not isinstance(node, dict):
        raise c.error(path, f"{what} is a mapping with {', '.join(sorted(required | allowed))}")
    for key in node:
        if key not in allowed | required:
            raise c.error(path + (key,), f"{what}: unknown key {key!r} "
                                         f"(known: {', '.join(sorted(allowed | required))})")
    for key in sorted(required):
        if key not in node:
            raise c.error(path, f"{what} needs {key}:")
    return node


def _mask(c: Compiler, node: Any, path: Path) -> int:
    expr = c.card_set(node, path)
    if not expr.constant:
        raise c.error(path, "開沖 card sets must not depend on the stock")
    return expr.mask


def _masks(c: Compiler, node: Any, path: Path) -> tuple[int, ...]:
    """A list of sets that must each be met (a set may itself be a list: any of it)."""
    node, path = c.resolve(node, path)
    if not isinstance(node, list):
        node, single = [node], True
    else:
        single = False
    return tuple(_mask(c, n, path if single else path + (i,)) for i, n in enumerate(node))


def _flag(c: Compiler, node: dict[str, Any], key: str, path: Path, default: bool) -> bool:
    value, where = c.resolve(node.get(key, default), path + (key,))
    if not isinstance(value, bool):
        raise c.error(where, f"{key}: is true or false, not {value!r}")
    return value


def _int(c: Compiler, node: dict[str, Any], key: str, path: Path, lo: int, hi: int) -> int:
    value, where = c.resolve(node[key], path + (key,))
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise c.error(where, f"{key}: is a whole number {lo}–{hi}, not {value!r}")
    return value




# ====================================================================== links

def _link_adjacent(c: Compiler, arg: Any, path: Path) -> list[tuple[int, int]]:
    """Cards of the set next to each other in rank, inside one suit."""
    m = _mask(c, arg, path)
    return [(a, a + 1) for a in range(N_CARDS - 1)
            if m >> a & 1 and m >> (a + 1) & 1 and CARD_SUIT[a] == CARD_SUIT[a + 1]]


def _link_pair(c: Compiler, arg: Any, path: Path) -> list[tuple[int, int]]:
    """Each card of the first set with each card of the second set of the same suit."""
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, list) or len(arg) != 2:
        raise c.error(path, "pair: takes [SET, SET] (e.g. [正賞, 極]: the 賞 and the 極 of a suit)")
    a, b = _mask(c, arg[0], path + (0,)), _mask(c, arg[1], path + (1,))
    return [(x, y) for x in bits_of(a) for y in bits_of(b) if x != y and CARD_SUIT[x] == CARD_SUIT[y]]


def _link_mutual(c: Compiler, arg: Any, path: Path) -> list[tuple[int, int]]:
    """Every two cards of the set (e.g. the 十-suit 錦張: 十字互沖)."""
    cards = bits_of(_mask(c, arg, path))
    return [(x, y) for i, x in enumerate(cards) for y in cards[i + 1:]]


LINK_KINDS: dict[str, Callable[[Compiler, Any, Path], list[tuple[int, int]]]] = {
    "adjacent": _link_adjacent,
    "pair": _link_pair,
    "mutual": _link_mutual,
}


def _neighbours(c: Compiler, node: Any, path: Path) -> tuple[int, ...]:
    node, path = c.resolve(node, path)
    if not isinstance(node, list) or not node:
        raise c.error(path, "links: is a list of rows such as {adjacent: [十, 萬門, 索, 文]}")
    table = [0] * N_CARDS
    for i, row in enumerate(node):
        row, where = c.resolve(row, path + (i,))
        if not isinstance(row, dict) or len(row) != 1:
            raise c.error(where, f"a link row has one key: {', '.join(LINK_KINDS)}")
        (kind, arg), = row.items()
        fn = LINK_KINDS.get(kind)
        if fn is None:
            raise c.error(where + (kind,), f"unknown link kind {kind!r} "
                                           f"(known: {', '.join(LINK_KINDS)})")
        for a, b in fn(c, arg, where + (kind,)):
            table[a] |= 1 << b
            table[b] |= 1 << a
    return tuple(table)


# ====================================================================== turn order

FIRST_KINDS: dict[str, Callable[[HandState], int]] = {
    "trick_8_winner": lambda st: st.trick_winners[-1] if st.trick_winners else st.banker,
    "banker": lambda st: st.banker,
}
AFTER_TAKE = ("taker", "unchanged")


# ====================================================================== points


@dataclass(frozen=True, slots=True)
class PointRow:
    kind: str
    frm: int
    to: int
    points: int
    needs: tuple[int, ...] = ()
    with_won: tuple[int, ...] = ()
    connected: bool = False
    alone: bool = True
    exclusive: bool = False
    qing_all: bool = False
    """The points are multiplied by the code's ChongQingAll factor (0, 1 or 2; needs run:)."""


@dataclass(frozen=True, slots=True)
class TwinRow:
    won_with: int
    trick_has: tuple[int, ...]
    value: int


@dataclass(frozen=True, slots=True)
class BonusRow:
    to: int
    points: int
    times_points_of: int = 0
    """When set: the bonus per twin is the points of the first part whose source is here."""


RUN_POINTS = ("top", "bottom", "middle_above", "middle_below", "middle_below_both_ends",
              "jin_top", "jin_bottom", "jin_middle", "jin_middle_both_ends", "shang_to_ji",
              "twins_jin", "twins_qing")


@dataclass(frozen=True, slots=True)
class RunBranch:
    """APP-U ``KanChong``'s prechecks and run branch, with the code's value line.

    A card's *value* counts up from the bottom of its suit (十: 二十 1 … 九十 8, 百萬 9, 千萬
    10, 萬萬 11; 萬/索: 一 1 … 九 9; 文: 九文 1 … 一文 9, 半文 10, 空文 11); ``ish`` is the
    suit's 賞 value, the value of its card in ``shang_line`` (百萬, 九萬, 九索, 空文).
    The points (``RUN_POINTS``) are the code's, named.
    """

    shang_line: int
    min_length: int
    points: dict[str, int]
    jin_suit: int
    """The suit whose 錦張 get the run's 錦 bonuses and the twins (十)."""
    kind: str


_ROW_KEYS = {"kind", "from", "to", "points", "needs", "with_won", "connected", "alone",
             "exclusive", "qing_all", "note"}


def _point_row(c: Compiler, node: Any, path: Path) -> PointRow:
    node = _mapping(c, node, path, _ROW_KEYS - {"kind", "from", "to", "points"},
                    {"kind", "from", "to", "points"}, "a point row")
    kind, _ = c.resolve(node["kind"], path + ("kind",))
    if not isinstance(kind, str) or not kind:
        raise c.error(path + ("kind",), "kind: names the relation, e.g. 賞沖肩")
    points = c.number(node["points"], path + ("points",))
    if points <= 0:
        raise c.error(path + ("points",), "points: must be positive")
    return PointRow(
        kind=kind,
        frm=_mask(c, node["from"], path + ("from",)),
        to=_mask(c, node["to"], path + ("to",)),
        points=points,
        needs=_masks(c, node["needs"], path + ("needs",)) if "needs" in node else (),
        with_won=_masks(c, node["with_won"], path + ("with_won",)) if "with_won" in node else (),
        connected=_flag(c, node, "connected", path, False),
        alone=_flag(c, node, "alone", path, True),
        exclusive=_flag(c, node, "exclusive", path, False),
        qing_all=_flag(c, node, "qing_all", path, False),
    )


def _twin_rows(c: Compiler, node: Any, path: Path) -> tuple[TwinRow, ...]:
    node, path = c.resolve(node, path)
    if not isinstance(node, list):
        raise c.error(path, "twins: is a list of {won_with: SET, trick_has: [SET, …], value: N}")
    rows = []
    for i, row in enumerate(node):
        where = path + (i,)
        row = _mapping(c, row, where, {"note"}, {"won_with", "trick_has", "value"}, "a twins row")
        rows.append(TwinRow(_mask(c, row["won_with"], where + ("won_with",)),
                            _masks(c, row["trick_has"], where + ("trick_has",)),
                            _int(c, row, "value", where, 1, 9)))
    return tuple(rows)


def _twins_multiply(c: Compiler, arg: Any, path: Path) -> tuple[str, tuple[BonusRow, ...]]:
    return "multiply", ()


def _twins_add(c: Compiler, arg: Any, path: Path) -> tuple[str, tuple[BonusRow, ...]]:
    arg, path = c.resolve(arg, path)
    if not isinstance(arg, list) or not arg:
        raise c.error(path, "add: is a list of {to: SET, points: N} (first row holding the card)")
    rows = []
    for i, row in enumerate(arg):
        where = path + (i,)
        row = _mapping(c, row, where, {"note", "points", "times_points_of"}, {"to"},
                       "a twins bonus row")
        if ("points" in row) == ("times_points_of" in row):
            raise c.error(where, "a twins bonus row has points: N or times_points_of: SET")
        if "points" in row:
            rows.append(BonusRow(_mask(c, row["to"], where + ("to",)),
                                 c.number(row["points"], where + ("points",))))
        else:
            rows.append(BonusRow(_mask(c, row["to"], where + ("to",)), 0,
                                 _mask(c, row["times_points_of"], where + ("times_points_of",))))
    return "add", tuple(rows)


def _run_branch(c: Compiler, node: Any, path: Path) -> RunBranch:
    node = _mapping(c, node, path, {"note", "kind"},
                    {"shang_line", "min_length", "points", "jin_suit"}, "run (KanChong's run branch)")
    line = _mask(c, node["shang_line"], path + ("shang_line",))
    if sorted(CARD_SUIT[x] for x in bits_of(line)) != [0, 1, 2, 3]:
        raise c.error(path + ("shang_line",), "shang_line: names one card of each suit")
    pts = _mapping(c, node["points"], path + ("points",), set(), set(RUN_POINTS), "run points")
    jin = _mask(c, node["jin_suit"], path + ("jin_suit",))
    suits = {CARD_SUIT[x] for x in bits_of(jin)}
    if len(suits) != 1:
        raise c.error(path + ("jin_suit",), "jin_suit: names one suit")
    kind, _ = c.resolve(node.get("kind", "連沖"), path + ("kind",))
    return RunBranch(shang_line=line, min_length=_int(c, node, "min_length", path, 1, 11),
                     points={k: c.number(pts[k], path + ("points", k)) for k in RUN_POINTS},
                     jin_suit=suits.pop(), kind=str(kind))


TWIN_EFFECTS: dict[str, Callable[[Compiler, Any, Path], tuple[str, tuple[BonusRow, ...]]]] = {
    "multiply": _twins_multiply,
    "add": _twins_add,
}


def _twin_effect(c: Compiler, node: Any, path: Path) -> tuple[str, tuple[BonusRow, ...]]:
    node, path = c.resolve(node, path)
    if isinstance(node, str):
        kind, arg = node, None
    elif isinstance(node, dict) and len(node) == 1:
        (kind, arg), = node.items()
    else:
        raise c.error(path, f"twins: is one of {', '.join(TWIN_EFFECTS)} "
                            "(add takes a list of {to: SET, points: N})")
    fn = TWIN_EFFECTS.get(kind)
    if fn is None:
        raise c.error(path, f"unknown twins effect {kind!r} (known: {', '.join(TWIN_EFFECTS)})")
    return fn(c, arg, path + ((kind,) if arg is not None else ()))


# ====================================================================== the compiled procedure


@dataclass(frozen=True, slots=True)
class KaiChong:
    """開沖 as compiled from a ruleset (run for one hand by :func:`mahdiao_rules.settle.kai_chong.run`)."""

    min_tricks: int
    anchors: int
    neighbours: tuple[int, ...]
    sequence: tuple[int, ...]
    """Neighbours for the ``connected:`` test of point rows (often the same table)."""
    first: Callable[[HandState], int]
    keep_taker: bool
    rows_to: tuple[tuple[PointRow, ...], ...]
    """For each card, the point rows whose ``to`` holds it, in table order."""
    rows: tuple[PointRow, ...]
    twins: tuple[TwinRow, ...]
    twin_effect: str
    bonus: tuple[BonusRow, ...]
    source: Citation
    twins_upto_winner: bool = False
    """Count a trick's 三花 only up to its winning card (APP-U DiscardCommand)."""
    twins_first: bool = False
    """The seat's first qualifying trick, not its best (APP-U keeps the first)."""
    run: RunBranch | None = None


# ====================================================================== compile

_SPEC_KEYS = {"min_tricks", "anchors", "links", "sequence", "first", "after_take", "twins",
              "points", "source", "note"}
_OPTIONAL_KEYS = {"sequence", "twins", "after_take", "note"}
_SCHEME_KEYS = {"rows", "twins", "twins_cards", "twins_trick", "run", "source", "note"}


def compile_kai_chong(c: Compiler, node: dict[str, Any], path: Path) -> KaiChong:
    """Compile the ``procedure.kai_chong`` spec (errors name file:line through ``c.error``)."""
    spec = _mapping(c, node, path, _OPTIONAL_KEYS, _SPEC_KEYS - _OPTIONAL_KEYS,
                    "procedure.kai_chong")
    first, first_path = c.resolve(spec["first"], path + ("first",))
    if first not in FIRST_KINDS:
        raise c.error(first_path, f"first: is one of {', '.join(FIRST_KINDS)}, not {first!r}")
    after, after_path = c.resolve(spec.get("after_take", "taker"), path + ("after_take",))
    if after not in AFTER_TAKE:
        raise c.error(after_path, f"after_take: is one of {', '.join(AFTER_TAKE)}, not {after!r}")
    src, src_path = c.resolve(spec["source"], path + ("source",))
    if not isinstance(src, dict) or not {"ref", "quote"} <= set(src):
        raise c.error(src_path, "source: is {ref: KEY, quote: TEXT}")

    scheme_node, spath = c.resolve(spec["points"], path + ("points",))
    scheme = _mapping(c, scheme_node, spath, _SCHEME_KEYS - {"rows"}, {"rows"},
                      "points (a 開沖 point scheme)")
    rows_node, rows_path = c.resolve(scheme["rows"], spath + ("rows",))
    if not isinstance(rows_node, list) or not rows_node:
        raise c.error(rows_path, "rows: is a non-empty list of point rows "
                                 "{kind, from, to, points, …}")
    rows = tuple(_point_row(c, r, rows_path + (i,)) for i, r in enumerate(rows_node))
    effect, bonus = (_twin_effect(c, scheme["twins"], spath + ("twins",)) if "twins" in scheme
                     else ("none", ()))
    twins = _twin_rows(c, spec["twins"], path + ("twins",)) if "twins" in spec else ()
    if effect != "none" and not twins:
        raise c.error(spath + ("twins",), "a twins effect needs procedure.kai_chong.twins rows")
    cards, cards_path = c.resolve(scheme.get("twins_cards", "trick"), spath + ("twins_cards",))
    if cards not in ("trick", "upto_winner"):
        raise c.error(cards_path, f"twins_cards: is trick or upto_winner, not {cards!r}")
    which, which_path = c.resolve(scheme.get("twins_trick", "best"), spath + ("twins_trick",))
    if which not in ("best", "first"):
        raise c.error(which_path, f"twins_trick: is best or first, not {which!r}")
    run = _run_branch(c, scheme["run"], spath + ("run",)) if "run" in scheme else None
    for i, row in enumerate(rows):
        if row.qing_all and run is None:
            raise c.error(rows_path + (i, "qing_all"), "qing_all: needs the scheme's run: "
                                                       "(its shang_line gives the value line)")
    neighbours = _neighbours(c, spec["links"], path + ("links",))
    sequence = neighbours
    if "sequence" in spec:
        sequence = _neighbours(c, spec["sequence"], path + ("sequence",))
        if sequence == neighbours:
            sequence = neighbours  # one table: the component is computed once
    return KaiChong(
        min_tricks=_int(c, spec, "min_tricks", path, 0, 8),
        anchors=_mask(c, spec["anchors"], path + ("anchors",)),
        neighbours=neighbours,
        sequence=sequence,
        first=FIRST_KINDS[first],
        keep_taker=after == "taker",
        rows_to=tuple(tuple(r for r in rows if r.to >> card & 1) for card in range(N_CARDS)),
        rows=rows,
        twins=twins,
        twin_effect=effect,
        bonus=bonus,
        source=Citation.of(src),
        twins_upto_winner=cards == "upto_winner",
        twins_first=which == "first",
        run=run,
    )
