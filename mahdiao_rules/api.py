"""The Python API: ``import mahdiao_rules as md``, for notebooks and scripts.

Everything here is a thin, documented layer over the pipeline the command line
uses (:func:`mahdiao_rules.pipeline.settle_deal`); docs/api.md shows it at work::

    import mahdiao_rules as md
    table = md.replay("my-deals.yaml", rulesets="all").to_dataframe()
    table.pivot_table(index=["deal", "seat"], columns="ruleset", values="net")

* :func:`load_deals`, :func:`examples`, :func:`deal_from_code`, :func:`random_deals` —
  deals (frozen :class:`~mahdiao_rules.deal.Deal` values);
* :func:`load_ruleset`, :func:`load_rulesets`, :func:`ruleset_ids` — compiled rulesets,
  options as keyword arguments;
* :func:`settle_hand` (one deal, one ruleset) → :class:`Result`; :func:`replay` (deals ×
  rulesets) → :class:`Replay`; :func:`simulate_deals` → :class:`Simulation`;
* :func:`load_sitting`, :func:`replay_sitting` (a sitting × rulesets, the 椿 and the 官堆
  carried from hand to hand) → :class:`SittingReplay` of :class:`SittingRun`.

(No name here is that of a subpackage — ``settle``, ``simulate``, ``ruleset``,
``sitting`` — which the import system would set on the package and so hide: hence
``replay_sitting``, not ``sitting``.)

Amounts are in 注 as exact :class:`~fractions.Fraction` values (the engine counts in
ticks, 24 to the 注: :mod:`mahdiao_rules.units`).  ``to_records()`` gives plain
dicts; ``to_dataframe()`` gives a pandas table when pandas is installed (the
optional extra ``pip install "mahdiao-rules[pandas]"``) — with float amounts by
default, so pandas can compute with them, or the exact Fractions with ``exact=True``.

This module is the top of the library (below only the command line); the package
root exposes its names lazily, so ``import mahdiao_rules`` stays cheap.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from .cards import CARD_HANZI
from .deal import SEAT_ALIASES, SEATS, Deal, Seat
from .errors import InputError
from .io import dealcode
from .io import dealfile as _dealfile
from .io import sittingfile as _sittingfile
from .io.resources import example
from .io.sittingfile import Sitting
from .pipeline import settle_deal
from .play.policies import POLICIES, make_policy
from .report.contract import stamp
from .report.render import formats_for, render_text, replay_report, sitting_report
from .ruleset import bundled_ids, find_ruleset, reading_order, spec_of
from .ruleset.model import Ruleset
from .settle.hand import Settlement
from .settle.ledger import ACCOUNT_IDS, GUAN_DUI
from .simulate import POSITIONS, Plan, Slot, Stats, build_model
from .simulate import run as _run
from .sitting import SittingResult as _SittingResult
from .sitting import play_sitting
from .sitting import tenure as _tenure
from .units import zhu

if TYPE_CHECKING:  # pragma: no cover - only for type checkers
    import pandas

__all__ = [
    "Deal",
    "InputError",
    "Payment",
    "Replay",
    "Result",
    "Ruleset",
    "Seat",
    "Simulation",
    "Sitting",
    "SittingReplay",
    "SittingRun",
    "deal_code",
    "deal_from_code",
    "examples",
    "load_deals",
    "load_ruleset",
    "load_rulesets",
    "load_sitting",
    "random_deals",
    "replay",
    "replay_sitting",
    "ruleset_ids",
    "settle_hand",
    "simulate_deals",
]

PathLike = str | os.PathLike[str]
Policy = Literal["random", "heuristic"]
RulesetSpec = str | os.PathLike[str] | Ruleset
"""A bundled id (``"feng"``), a path to a ruleset YAML file, or a compiled :class:`Ruleset`."""


# ====================================================================== deals


def load_deals(path: PathLike, *, ids: Iterable[str] = ()) -> list[Deal]:
    """The deals of a deal file (YAML or JSON, docs/deal-format.md), only *ids* if given.

    Bad input raises :class:`~mahdiao_rules.errors.InputError` naming file, line and key.
    """
    deals = _dealfile.load_deals(path)
    return _pick(deals, ids, str(path))


def examples(*, ids: Iterable[str] = ()) -> list[Deal]:
    """The bundled curated deals: the worked examples and the cross-ruleset deal
    (what ``mahdiao replay`` shows without a file)."""
    path, shown = example("examples.yaml")
    return _pick(_dealfile.load_deals(path, display_name=shown), ids, shown)


def random_deals(seed: str | int = 0, n: int = 1) -> list[Deal]:
    """*n* random deals, the same for the same seed (as ``mahdiao deal --seed``)."""
    return _dealfile.random_deals(seed, n)


def deal_from_code(code: str) -> Deal:
    """The deal a citable deal code names (no recorded play)."""
    return dealcode.decode(code)


def deal_code(deal: Deal) -> str:
    """The citable code of a deal (hands, stock order, banker; not the play)."""
    return dealcode.encode(deal)


def _pick(deals: list[Deal], ids: Iterable[str], where: str) -> list[Deal]:
    wanted = list(ids)
    if not wanted:
        return deals
    known = {d.id: d for d in deals}
    missing = [i for i in wanted if i not in known]
    if missing:
        raise InputError(f"no deal with id {', '.join(map(repr, missing))} "
                         f"(ids: {', '.join(known)})", file=where)
    return [known[i] for i in wanted]


def _deals(deals: PathLike | Deal | Iterable[Deal] | None) -> list[Deal]:
    if deals is None:
        return examples()
    if isinstance(deals, Deal):
        return [deals]
    if isinstance(deals, (str, os.PathLike)):
        return load_deals(deals)
    out = list(deals)
    bad = [d for d in out if not isinstance(d, Deal)]
    if bad:
        raise TypeError(f"expected Deal values, a deal file path or None, got {type(bad[0]).__name__}")
    return out


# ====================================================================== rulesets


def ruleset_ids() -> list[str]:
    """The bundled rulesets in reading order (Ming → Qing → modern: feng, qing, app)."""
    return bundled_ids()


def load_ruleset(spec: RulesetSpec = "feng", /, **options: str) -> Ruleset:
    """A compiled ruleset by bundled id or YAML path, with option readings as keywords.

    >>> load_ruleset("feng", diao_settlement="winner_only").option_values["diao_settlement"]
    'winner_only'
    """
    if isinstance(spec, Ruleset):
        if not options:
            return spec
        options = {**_changed(spec), **options}
        spec = spec_of(spec)
    return find_ruleset(os.fspath(spec), {k: str(v) for k, v in options.items()} or None)


def _changed(rs: Ruleset) -> dict[str, str]:
    """The options of *rs* set to another reading than their default."""
    return {k: v for k, v in rs.option_values.items() if v != rs.options[k].default}


def load_rulesets(*specs: RulesetSpec | Iterable[RulesetSpec],
             options: Mapping[str, Mapping[str, str]] | None = None) -> list[Ruleset]:
    """Several rulesets: ids, paths, ``"all"`` (every bundled one, in reading order) or
    compiled ones; none given means all.  *options* maps a ruleset id to its readings,
    e.g. ``{"feng": {"diao_settlement": "winner_only"}}``."""
    flat: list[RulesetSpec] = []
    for s in specs or ("all",):
        if isinstance(s, (str, Ruleset, os.PathLike)):
            flat.append(s)
        else:
            flat.extend(s)
    options = options or {}
    out: list[Ruleset] = []
    for s in flat:
        for one in (bundled_ids() if s == "all" else [s]):
            rs = load_ruleset(one)
            if rs.id in options:
                rs = load_ruleset(rs, **options[rs.id])
            if all(r.id != rs.id for r in out):
                out.append(rs)
    out = reading_order(out)
    unknown = set(options) - {r.id for r in out}
    if unknown:
        raise InputError(f"options given for {', '.join(sorted(unknown))}, which is not among the "
                         f"rulesets ({', '.join(r.id for r in out)})")
    return out


# ====================================================================== results


@dataclass(frozen=True)
class Payment:
    """One ledger line in 注: *payer* pays *payee* ``amount`` because of rule *item*."""

    payer: str
    payee: str
    amount: Fraction
    item: str
    name: str
    channel: str
    holder: str
    source: str
    note: str


@dataclass(frozen=True)
class Result:
    """One deal settled under one ruleset.  Seats are ``east``, ``south``, ``west``,
    ``north``; ``guan_dui`` is the 官堆 pool.  Nets include 官堆 payments and, with the
    pool's, sum to zero."""

    settlement: Settlement = field(repr=False)

    @property
    def deal(self) -> Deal:
        return self.settlement.deal

    @property
    def ruleset(self) -> Ruleset:
        return self.settlement.ruleset

    @property
    def status(self) -> str:
        """``played``, or ``mian_dou`` when the hand ended before play (免斗)."""
        return self.settlement.status

    @cached_property
    def nets(self) -> dict[str, Fraction]:
        """Net 注 per seat id, exact."""
        n = self.settlement.nets
        return {s.id: zhu(n[s]) for s in SEATS}

    @property
    def guan_dui(self) -> Fraction:
        """What the 官堆 pool gained (positive) or paid out in this hand, in 注."""
        return zhu(self.settlement.nets[GUAN_DUI])

    def net(self, seat: str | Seat) -> Fraction:
        """The net of one seat (``"east"``, ``"e"``, ``"東"`` or a :class:`Seat`)."""
        return self.nets[_seat(seat).id]

    @property
    def tricks(self) -> dict[str, int]:
        """Tricks won per seat (all 0 for a hand that was not played)."""
        play = self.settlement.play
        return {s.id: (len(play.won[s]) if play else 0) for s in SEATS}

    @property
    def banker(self) -> str:
        return self.deal.banker.id

    @cached_property
    def ledger(self) -> list[Payment]:
        """Every payment, in the order the settlement made them."""
        return [Payment(ACCOUNT_IDS[t.payer], ACCOUNT_IDS[t.payee], zhu(t.amount), t.item, t.name,
                        t.channel, ACCOUNT_IDS[t.holder], t.source, t.note)
                for t in self.settlement.ledger]

    @property
    def fired(self) -> list[dict[str, Any]]:
        """The rule items that paid (or ended the hand): id, name, seat, 注 per counterparty, cards."""
        return [{"item": f.item.id, "name": f.item.name, "seat": f.seat.id, "zhu": zhu(f.amount),
                 "count": f.count, "cards": [CARD_HANZI[c] for c in f.cards]}
                for f in self.settlement.firings if f.amount != 0 or f.item.ends_hand]

    @property
    def notes(self) -> list[str]:
        return list(self.settlement.notes)

    def to_records(self) -> list[dict[str, Any]]:
        """One record per seat: deal, ruleset, seat, role, tricks, status, net (exact 注)."""
        tricks = self.tricks
        return [{"deal": self.deal.id, "ruleset": self.ruleset.id, "seat": s.id,
                 "role": "banker" if s == self.deal.banker else "san", "tricks": tricks[s.id],
                 "status": self.status, "net": self.nets[s.id]} for s in SEATS]

    def ledger_records(self) -> list[dict[str, Any]]:
        """One record per ledger line, amounts exact."""
        return [{"deal": self.deal.id, "ruleset": self.ruleset.id, **vars(p)} for p in self.ledger]

    def to_dataframe(self, *, exact: bool = False) -> pandas.DataFrame:
        return _frame(self.to_records(), exact)

    def __repr__(self) -> str:
        nets = ", ".join(f"{k} {_signed(v)}" for k, v in self.nets.items())
        return f"<Result {self.deal.id} under {self.ruleset.id}: {self.status}; {nets}>"


def _seat(seat: str | Seat) -> Seat:
    if isinstance(seat, Seat):
        return seat
    found = SEAT_ALIASES.get(str(seat).strip().lower()) or SEAT_ALIASES.get(str(seat).strip())
    if found is None:
        raise ValueError(f"unknown seat {seat!r}: give east, south, west or north")
    return found


def _signed(v: Fraction) -> str:
    return f"{'+' if v > 0 else ''}{v}"


def settle_hand(deal: Deal, ruleset: RulesetSpec = "feng", *, policy: Policy = "random") -> Result:
    """Settle one deal under one ruleset.

    Recorded tricks are replayed; a deal without them is played by *policy* from the
    ruleset's own first leader, seeded by the deal id (the same play as ``mahdiao replay``).
    """
    rs = load_ruleset(ruleset)
    return Result(settle_deal(rs, deal, policy=make_policy(_policy(policy), rs)))


def _policy(name: str) -> str:
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r} (known: {', '.join(POLICIES)})")
    return name


@dataclass(frozen=True)
class Replay:
    """Deals × rulesets: ``results[i][j]`` is deal *i* under ruleset *j*."""

    deals: tuple[Deal, ...]
    rulesets: tuple[Ruleset, ...]
    results: tuple[tuple[Result, ...], ...] = field(repr=False)

    def __iter__(self) -> Iterator[Result]:
        """Every result, deal by deal, rulesets in order."""
        return (r for row in self.results for r in row)

    def __len__(self) -> int:
        return sum(len(row) for row in self.results)

    def result(self, deal: str | int = 0, ruleset: str | int = 0) -> Result:
        """One result, by deal id or index and ruleset id or index."""
        i = deal if isinstance(deal, int) else _index([d.id for d in self.deals], deal, "deal")
        j = ruleset if isinstance(ruleset, int) else _index([r.id for r in self.rulesets], ruleset,
                                                            "ruleset")
        return self.results[i][j]

    def nets(self) -> dict[tuple[str, str], dict[str, Fraction]]:
        """``{(deal id, seat): {ruleset id: net}}`` — the side-by-side table, exact."""
        out: dict[tuple[str, str], dict[str, Fraction]] = {}
        for r in self:
            for s, v in r.nets.items():
                out.setdefault((r.deal.id, s), {})[r.ruleset.id] = v
        return out

    def to_records(self) -> list[dict[str, Any]]:
        """One record per deal, ruleset and seat (see :meth:`Result.to_records`)."""
        return [rec for r in self for rec in r.to_records()]

    def ledger_records(self) -> list[dict[str, Any]]:
        """One record per ledger line of every result."""
        return [rec for r in self for rec in r.ledger_records()]

    def to_dataframe(self, *, exact: bool = False) -> pandas.DataFrame:
        """The records as a pandas DataFrame (float 注 unless *exact*)."""
        return _frame(self.to_records(), exact)

    def report(self, fmt: str = "text", *, lang: str = "en") -> str:
        """The report ``mahdiao replay --format FMT`` writes (text, md, html, latex, csv, ledger,
        json, jsonl; docs/output-formats.md)."""
        known = formats_for("replay")
        if fmt not in known:
            raise ValueError(f"unknown format {fmt!r} (known: {', '.join(known)})")
        rows = [[r.settlement for r in row] for row in self.results]
        doc = replay_report(list(self.deals), self.rulesets, settlements=rows,
                            stamp=stamp("python: mahdiao_rules.replay", self.rulesets))
        return render_text(doc, fmt, lang=lang)

    def __repr__(self) -> str:
        return (f"<Replay {len(self.deals)} deal(s) × {', '.join(r.id for r in self.rulesets)}: "
                f"{len(self)} results>")


def _index(ids: Sequence[str], wanted: str, what: str) -> int:
    try:
        return list(ids).index(wanted)
    except ValueError:
        raise KeyError(f"no {what} {wanted!r} (have: {', '.join(ids)})") from None


def replay(deals: PathLike | Deal | Iterable[Deal] | None = None,
           rulesets: RulesetSpec | Iterable[RulesetSpec] = "feng", *,
           options: Mapping[str, Mapping[str, str]] | None = None,
           policy: Policy = "random") -> Replay:
    """Settle every deal under every ruleset, as ``mahdiao replay`` does.

    *deals* is a deal file path, a :class:`Deal`, an iterable of deals, or None for the
    bundled examples; *rulesets* an id, a path, ``"all"``, a compiled ruleset or a list
    of those; *options* maps ruleset id → {option: reading}.
    """
    chosen = load_rulesets(rulesets, options=options)
    items = _deals(deals)
    _policy(policy)
    rows = tuple(tuple(Result(settle_deal(rs, d, policy=make_policy(policy, rs))) for rs in chosen)
                 for d in items)
    return Replay(tuple(items), tuple(chosen), rows)


# ====================================================================== simulation


@dataclass(frozen=True)
class Simulation:
    """A Monte Carlo run: the same random deals under each ruleset.

    ``model`` is the report ``mahdiao simulate --format json`` writes; :meth:`to_records`
    gives one row per ruleset and position relative to the banker, the mean exact.
    """

    plan: Plan = field(repr=False)
    stats: Stats = field(repr=False)

    @property
    def n(self) -> int:
        return self.stats.n

    @property
    def ruleset_ids(self) -> list[str]:
        return [s.label for s in self.plan.slots]

    @cached_property
    def model(self) -> dict[str, Any]:
        return build_model(self.plan, self.stats)

    def mean(self, ruleset: str, position: str = "banker") -> Fraction:
        """The exact mean net in 注 per hand of *position* (banker, xia_jia, dui_jia,
        shang_jia, guan_dui) under *ruleset*."""
        j = _index(self.ruleset_ids, ruleset, "ruleset")
        k = _index([p[0] for p in POSITIONS], position, "position")
        st = self.stats.slots[j]
        return zhu(Fraction(st.sums[k], st.n)) if st.n else Fraction(0)

    def to_records(self) -> list[dict[str, Any]]:
        """Per ruleset and position: n, mean (exact 注), sd and the 95% interval (floats)."""
        out = []
        for j, rs in enumerate(self.model["rulesets"]):
            for p in rs["positions"]:
                ci = p["ci95"] or [None, None]
                out.append({"ruleset": rs["label"], "position": p["id"], "hanzi": p["hanzi"],
                            "n": p["n"], "mean": self.mean(self.ruleset_ids[j], p["id"]),
                            "sd": p["sd"], "ci95_low": ci[0], "ci95_high": ci[1],
                            "mian_dou_share": rs["mian_dou"]["share"]})
        return out

    def to_dataframe(self, *, exact: bool = False) -> pandas.DataFrame:
        return _frame(self.to_records(), exact)

    def __repr__(self) -> str:
        means = ", ".join(f"{rid} {float(self.mean(rid)):+.3f}" for rid in self.ruleset_ids)
        return f"<Simulation {self.n} deals, policy {self.plan.policy}; banker mean 注: {means}>"


def simulate_deals(rulesets: RulesetSpec | Iterable[RulesetSpec] = "all", n: int = 1000, *,
             seed: str | int = "0", policy: Policy = "heuristic", jobs: int = 1,
             options: Mapping[str, Mapping[str, str]] | None = None) -> Simulation:
    """Play and settle *n* random deals under each ruleset (as ``mahdiao simulate``)."""
    chosen = load_rulesets(rulesets, options=options)
    slots = [Slot(spec_of(rs), tuple(sorted(_changed(rs).items())), label=rs.id) for rs in chosen]
    plan = Plan(n=n, seed=str(seed), slots=tuple(slots), policy=_policy(policy))
    return Simulation(plan, _run(plan, jobs=jobs))


# ====================================================================== sittings


def load_sitting(path: PathLike | None = None) -> Sitting:
    """The sitting of a sitting file (YAML, JSON, or JSON Lines for ``.jsonl``;
    docs/sitting-format.md), or the bundled six-hand example without *path*.

    Bad input raises :class:`~mahdiao_rules.errors.InputError` naming file, line and hand.
    """
    if path is None:
        path, shown = example("sitting.yaml")
        return _sittingfile.load_sitting(path, display_name=shown)
    return _sittingfile.load_sitting(path)


@dataclass(frozen=True)
class SittingRun:
    """A sitting under one ruleset: the 椿 and the 官堆 carried from hand to hand by the
    ruleset's own procedure.  Amounts are exact 注 per player (players keep their seats)."""

    run: _SittingResult = field(repr=False)

    @property
    def ruleset(self) -> Ruleset:
        return self.run.ruleset

    @property
    def players(self) -> list[str]:
        """The players in seat order (east, south, west, north)."""
        at = self.run.player_at
        return [at[s] for s in SEATS]

    @property
    def seats(self) -> dict[str, str]:
        """Player → seat id, fixed for the sitting."""
        return {p: s.id for p, s in self.run.seat_of.items()}

    @cached_property
    def hands(self) -> list[Result]:
        """Each hand played, as a :class:`Result` (ledger, nets by seat …), with this
        ruleset's 椿; fewer than the sitting's hands when its stake cap ended it."""
        return [Result(h.settlement) for h in self.run.hands]

    @property
    def bank_sequence(self) -> list[str]:
        """The 椿 (player) of each hand."""
        at = self.run.player_at
        return [at[h.banker] for h in self.run.hands]

    @cached_property
    def nets(self) -> list[dict[str, Fraction]]:
        """Each hand's net per player (官堆 payments included)."""
        players = self.players
        return [{players[k]: zhu(h.nets[k]) for k in range(4)} for h in self.run.hands]

    @cached_property
    def running(self) -> list[dict[str, Fraction]]:
        """Each player's total from the start of the sitting, after each hand."""
        out, total = [], dict.fromkeys(self.players, Fraction(0))
        for row in self.nets:
            total = {p: total[p] + v for p, v in row.items()}
            out.append(total)
        return out

    @property
    def totals(self) -> dict[str, Fraction]:
        """Each player's net over the sitting."""
        return self.running[-1] if self.running else dict.fromkeys(self.players, Fraction(0))

    @property
    def money(self) -> dict[str, Fraction]:
        """Each player's net over the sitting in the stake unit (``stakes.unit``)."""
        return dict(zip(self.players, self.run.money()[:4], strict=True))

    @property
    def guan_dui(self) -> list[Fraction]:
        """The 官堆 after each hand."""
        return [zhu(h.pool_after) for h in self.run.hands]

    @property
    def tenure(self) -> dict[str, dict[str, int]]:
        """Per player: hands as 椿, spells (runs of hands) and the longest spell."""
        ten = _tenure([int(h.banker) for h in self.run.hands])
        return {p: {"hands": t.hands, "spells": t.spells, "longest": t.longest}
                for p, t in zip(self.players, ten, strict=True)}

    @property
    def stopped(self) -> str | None:
        """Why the sitting ended before its last hand (the stake cap), or None."""
        return self.run.stopped

    @property
    def notes(self) -> list[str]:
        return list(self.run.notes)

    def to_records(self) -> list[dict[str, Any]]:
        """One record per hand and player: hand (number), hand_id, ruleset, player, seat, role,
        banker (the player), tricks, status, net, running, guan_dui (after the hand)."""
        players, bankers = self.players, self.bank_sequence
        out = []
        for i, (h, res) in enumerate(zip(self.run.hands, self.hands, strict=True)):
            tricks = res.tricks
            for k, seat in enumerate(SEATS):
                p = players[k]
                out.append({"hand": h.hand.number, "hand_id": h.hand.deal.id, "ruleset": self.ruleset.id,
                            "player": p, "seat": seat.id, "role": "banker" if seat == h.banker else "san",
                            "banker": bankers[i], "tricks": tricks[seat.id], "status": res.status,
                            "net": self.nets[i][p], "running": self.running[i][p],
                            "guan_dui": zhu(h.pool_after)})
        return out

    def ledger_records(self) -> list[dict[str, Any]]:
        """One record per ledger line of every hand (with the hand and the players)."""
        at = {s.id: p for s, p in self.run.player_at.items()}
        return [{"hand": h.hand.number, "hand_id": h.hand.deal.id, "ruleset": self.ruleset.id,
                 "payer_player": at.get(p.payer), "payee_player": at.get(p.payee), **vars(p)}
                for h, res in zip(self.run.hands, self.hands, strict=True) for p in res.ledger]

    def __repr__(self) -> str:
        totals = ", ".join(f"{p} {_signed(v)}" for p, v in self.totals.items())
        return f"<SittingRun {len(self.run.hands)} hands under {self.ruleset.id}: {totals}>"


class _Replayed:
    """A finished :class:`SittingResult` as the report reads a :class:`SittingPlay`: the same
    attributes, and iterating gives its hands (so a report does not play them again)."""

    def __init__(self, result: _SittingResult) -> None:
        self.result = result

    def __getattr__(self, name: str) -> Any:
        return getattr(self.result, name)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.result.hands)


@dataclass(frozen=True)
class SittingReplay:
    """A sitting replayed under several rulesets, each following its own bank sequence from
    the same deals; ``sit["feng"]`` (or ``sit.result("feng")``) is one ruleset's
    :class:`SittingRun`."""

    sitting: Sitting = field(repr=False)
    rulesets: tuple[Ruleset, ...]
    runs: tuple[SittingRun, ...] = field(repr=False)
    policy: str = "random"
    trust_record: bool = False

    @property
    def players(self) -> list[str]:
        """The players as the file names them."""
        return list(self.sitting.players)

    def __iter__(self) -> Iterator[SittingRun]:
        return iter(self.runs)

    def __len__(self) -> int:
        return len(self.runs)

    def result(self, ruleset: str | int = 0) -> SittingRun:
        j = ruleset if isinstance(ruleset, int) else _index([r.id for r in self.rulesets], ruleset, "ruleset")
        return self.runs[j]

    def __getitem__(self, ruleset: str | int) -> SittingRun:
        return self.result(ruleset)

    def bank_sequences(self) -> dict[str, list[str]]:
        """Ruleset id → the 椿 (player) of each hand."""
        return {r.ruleset.id: r.bank_sequence for r in self.runs}

    @property
    def bank_differs(self) -> list[int]:
        """The hands (numbers) whose 椿 differ between the rulesets."""
        seqs = [r.bank_sequence for r in self.runs]
        n = max((len(s) for s in seqs), default=0)
        return [i + 1 for i in range(n) if len({s[i] for s in seqs if i < len(s)}) > 1]

    def to_records(self) -> list[dict[str, Any]]:
        """One record per ruleset, hand and player (see :meth:`SittingRun.to_records`)."""
        return [rec for r in self.runs for rec in r.to_records()]

    def ledger_records(self) -> list[dict[str, Any]]:
        return [rec for r in self.runs for rec in r.ledger_records()]

    def to_dataframe(self, *, exact: bool = False) -> pandas.DataFrame:
        """The records as a pandas DataFrame (float 注 unless *exact*)."""
        return _frame(self.to_records(), exact)

    def report(self, fmt: str = "text", *, lang: str = "en") -> str:
        """The report ``mahdiao sitting --format FMT`` writes (text, md, html, latex, csv,
        ledger, json; docs/output-formats.md)."""
        known = formats_for("sitting")
        if fmt not in known:
            raise ValueError(f"unknown format {fmt!r} (known: {', '.join(known)})")
        record, trust = self.sitting, self.trust_record
        played = {id(rs): run.run for rs, run in zip(self.rulesets, self.runs, strict=True)}

        def play(rs: Ruleset) -> _Replayed:  # the hands played already, read again
            return _Replayed(played[id(rs)])
        doc = sitting_report(record, self.rulesets, play=play, trust_record=trust, input_name=record.file,
                             stamp=stamp("python: mahdiao_rules.sitting", self.rulesets, seed=record.seed))
        return render_text(doc, fmt, lang=lang)

    def __repr__(self) -> str:
        return (f"<SittingReplay {len(self.sitting.hands)} hand(s) × "
                f"{', '.join(r.id for r in self.rulesets)}>")


def replay_sitting(source: PathLike | Sitting | None = None,
            rulesets: RulesetSpec | Iterable[RulesetSpec] = "feng", *,
            options: Mapping[str, Mapping[str, str]] | None = None, policy: Policy = "random",
            trust_record: bool = False) -> SittingReplay:
    """Replay a sitting under every ruleset, as ``mahdiao sitting`` does: each ruleset
    chooses its own 椿 hand after hand and carries its 官堆.

    *source* is a sitting file path, a :class:`Sitting` (:func:`load_sitting`), or None for
    the bundled six-hand example; *rulesets*, *options* and *policy* as for :func:`replay`.
    A recorded 椿 that contradicts a ruleset's procedure raises
    :class:`~mahdiao_rules.errors.InputError` unless *trust_record*.
    """
    record = source if isinstance(source, Sitting) else load_sitting(source)
    chosen = load_rulesets(rulesets, options=options)
    _policy(policy)
    runs = tuple(SittingRun(play_sitting(rs, record, trust_record=trust_record,
                                         policy=make_policy(policy, rs))) for rs in chosen)
    return SittingReplay(record, tuple(chosen), runs, policy, trust_record)


# ====================================================================== pandas


def _frame(records: list[dict[str, Any]], exact: bool) -> pandas.DataFrame:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("to_dataframe() needs pandas: pip install \"mahdiao-rules[pandas]\" "
                          "(to_records() gives the same rows as plain dicts)") from None
    if not exact:
        records = [{k: float(v) if isinstance(v, Fraction) else v for k, v in r.items()}
                   for r in records]
    return pd.DataFrame.from_records(records)
