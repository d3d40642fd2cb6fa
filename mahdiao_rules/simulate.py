"""Monte Carlo comparison of rulesets on identical deals: running and statistics, streaming.

Deal *i* of a run is ``random_deals(seed, 1, start=i)`` — it depends only on the
seed and *i*, so every ruleset gets the same deals (common random numbers) and
the result does not depend on how the range is split among worker processes.
Each deal is played by the chosen policy under each ruleset's own procedure and settled
by :class:`mahdiao_rules.pipeline.Quick` (what ``settle_deal`` does, nets only; a hand its
deal phase ends is not played).  The random policy draws the seats' play orders from the
deal's own seed ``f"{deal.id}/play"``, like ``mahdiao replay``, once for every ruleset; the
default run handles deals as plain masks.  With ``same_play`` a deal is played once, under
that ruleset, and the one play is settled under every ruleset (mapped through each one's
升代).

Nothing is kept per deal: each chunk of deals adds into integer accumulators
(sums and sums of squares of exact ticks, counts; the fired items are counted per
distinct set of fired bits and named at the end of the chunk), chunks are merged in
order, and the statistics are computed once at the end — exactly, from the integers.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import signal
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .deal import Deal
from .io.dealfile import DealWriter, body_text, deal_id, deal_seed, deals_format, dealt, random_deals
from .io.output import Destination, destination, open_text
from .io.sittingfile import Sitting
from .pipeline import Quick, QuickResult
from .play.policies import POLICIES, auto_play, make_policy
from .play.procedure import as_first_hand, cross_map, play_seed, translate_play
from .play.tricks import BIT, random_orders
from .ruleset import PALETTE, colour_of, find_ruleset
from .ruleset.model import Ruleset
from .settle.hand import MIAN_DOU
from .sitting import play_sitting, spells
from .sitting.stats import Moment, SittingPair, SittingTally
from .units import TICKS_PER_ZHU, json_number

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile: intervals are mean ± Z95·sd/√n (n is large)."""
POSITIONS = (
    ("banker", "椿家", "the banker (椿/莊)"),
    ("xia_jia", "下家", "the seat after the banker"),
    ("dui_jia", "對家", "the seat opposite the banker"),
    ("shang_jia", "上家", "the seat before the banker"),
    ("guan_dui", "官堆", "the public pool"),
)
"""Accounts relative to the banker, in the order the accumulators keep them."""
N_ACC = len(POSITIONS)


# ====================================================================== plan


@dataclass(frozen=True)
class Slot:
    """One ruleset of a run: a bundled id or a path, with its option overrides."""

    spec: str
    overrides: tuple[tuple[str, str], ...] = ()
    label: str = ""

    def ruleset(self) -> Ruleset:
        return find_ruleset(self.spec, dict(self.overrides) or None)


@dataclass(frozen=True)
class Plan:
    """What a run does; everything a worker process needs to do its share."""

    n: int
    seed: str
    slots: tuple[Slot, ...]
    policy: str = "heuristic"
    same_play: int | None = None
    """Index of the slot whose play every slot settles, or None (each plays its own)."""
    sitting: int | None = None
    """Hands per sitting: then *n* counts sittings of that many hands (sitting i plays deals
    ``i·H … i·H+H−1`` of the seed) and each ruleset carries its 椿 and 官堆 across them."""

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"unknown policy {self.policy!r}")
        if self.same_play is not None and not 0 <= self.same_play < len(self.slots):
            raise ValueError("same_play names no slot of the run")
        if self.sitting is not None and (self.sitting < 1 or self.same_play is not None):
            raise ValueError("a sitting has at least one hand, and each ruleset plays its own")

    @property
    def deals(self) -> int:
        """How many deals the run uses."""
        return self.n * (self.sitting or 1)


# ====================================================================== accumulators


@dataclass
class SlotStats:
    """Integer accumulators for one ruleset (ticks; relative positions as in POSITIONS)."""

    n: int = 0
    sums: list[int] = field(default_factory=lambda: [0] * N_ACC)
    squares: list[int] = field(default_factory=lambda: [0] * N_ACC)
    mian_dou: int = 0
    items: Counter[str] = field(default_factory=Counter)
    """Item id → number of deals in which it fired (for any seat)."""
    groups: Counter[str] = field(default_factory=Counter)
    hist: Counter[int] = field(default_factory=Counter)
    """Banker net in ticks → number of deals."""

    def merge(self, other: SlotStats) -> None:
        self.n += other.n
        for k in range(N_ACC):
            self.sums[k] += other.sums[k]
            self.squares[k] += other.squares[k]
        self.mian_dou += other.mian_dou
        self.items.update(other.items)
        self.groups.update(other.groups)
        self.hist.update(other.hist)


@dataclass
class PairStats:
    """Paired differences (slot a − slot b) per position, and how often the best seat differs."""

    sums: list[int] = field(default_factory=lambda: [0] * N_ACC)
    squares: list[int] = field(default_factory=lambda: [0] * N_ACC)
    best_changed: int = 0

    def merge(self, other: PairStats) -> None:
        for k in range(N_ACC):
            self.sums[k] += other.sums[k]
            self.squares[k] += other.squares[k]
        self.best_changed += other.best_changed


@dataclass
class Stats:
    n: int = 0
    slots: list[SlotStats] = field(default_factory=list)
    pairs: list[PairStats] = field(default_factory=list)
    """One per pair (a, b), a < b, in the order of :func:`pair_indexes`."""
    best_changed_any: int = 0

    @classmethod
    def empty(cls, k: int) -> Stats:
        return cls(0, [SlotStats() for _ in range(k)], [PairStats() for _ in pair_indexes(k)])

    def merge(self, other: Stats) -> None:
        self.n += other.n
        for a, b in zip(self.slots, other.slots, strict=True):
            a.merge(b)
        for a, b in zip(self.pairs, other.pairs, strict=True):
            a.merge(b)
        self.best_changed_any += other.best_changed_any


@dataclass
class SittingStats:
    """A run of sittings: one tally per ruleset, one pair per two rulesets."""

    n: int = 0
    slots: list[SittingTally] = field(default_factory=list)
    pairs: list[SittingPair] = field(default_factory=list)

    @classmethod
    def empty(cls, k: int) -> SittingStats:
        return cls(0, [SittingTally() for _ in range(k)], [SittingPair() for _ in pair_indexes(k)])

    def merge(self, other: SittingStats) -> None:
        self.n += other.n
        for a, b in zip(self.slots, other.slots, strict=True):
            a.merge(b)
        for a, b in zip(self.pairs, other.pairs, strict=True):
            a.merge(b)


def pair_indexes(k: int) -> list[tuple[int, int]]:
    return [(a, b) for a in range(k) for b in range(a + 1, k)]


# ====================================================================== one chunk


class Runner:
    """Compiled rulesets and policies for a plan, built once per process."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.rulesets = [slot.ruleset() for slot in plan.slots]
        self.policies = [make_policy(plan.policy, rs) for rs in self.rulesets]
        self.quick = [Quick(rs) for rs in self.rulesets]
        self.pairs = pair_indexes(len(self.rulesets))
        self.names = [_bit_names(rs) for rs in self.rulesets]
        self.rng = random.Random()

    def results(self, deal: Deal) -> list[tuple[int, QuickResult]]:
        """(banker, result) of *deal* under every slot, each played as the module docstring says.

        Every deal is a sitting's first hand: a ruleset whose first 莊 is not drawn
        (procedure.first_banker, e.g. the app's ``first_banker=face``) gets its own banker.
        """
        rss = self.rulesets
        sp = self.plan.same_play
        hands = [as_first_hand(rs, deal) for rs in rss]
        if sp is not None:
            base = auto_play(rss[sp], hands[sp], self.policies[sp])
            return [(int(d.banker), q.deal(d, play=base if k == sp else
                                           translate_play(base, cross_map(rss[sp], rs, deal))))
                    for k, (q, rs, d) in enumerate(zip(self.quick, rss, hands, strict=True))]
        # Each slot plays from its own first leader; a policy that draws does so from the deal's
        # own seed (play.procedure.play_seed), so every slot draws the same numbers — the random
        # policy the same play orders.  (The default random run takes chunk's fast path instead.)
        return [(int(d.banker), q.deal(d, policy=policy))
                for q, policy, d in zip(self.quick, self.policies, hands, strict=True)]

    def chunk(self, start: int, count: int, deals: Sequence[Deal] | None = None) -> Stats:
        """Deals ``start … start+count-1`` of the plan's seed, settled under every slot; *deals*
        are those deals when the caller made them already (to write them out)."""
        tally = Tally(self)
        seed = self.plan.seed
        if self.plan.policy != "random" or self.plan.same_play is not None:
            for deal in random_deals(seed, count, start=start) if deals is None else deals:
                tally.add(self.results(deal))
            return tally.stats()
        # The default: deals as plain values, one random draw of the play orders per deal.
        rng, quick = self.rng, self.quick
        for i in range(start, start + count):
            if deals is None:
                rng.seed(deal_seed(seed, i))  # = random_deals(seed, 1, start=i)
                hands, stock, banker = dealt(rng)
            else:
                d = deals[i - start]
                hands, stock, banker = d.hands, tuple(int(c) for c in d.stock), int(d.banker)
            rng.seed(play_seed(deal_id(seed, i)))  # = the deal's own random play
            orders = random_orders(hands, rng)
            held = [sum(BIT[c] for c in h) for h in hands]
            results = []
            for q in quick:  # a sitting's first hand: a ruleset may choose its own 莊
                b = q.first_bankers[stock[0]]
                b = banker if b is None else b
                results.append((b, q.random(held, stock, b, orders)))
            tally.add(results)
        return tally.stats()

    def add_sittings(self, first: int, deals: Sequence[Deal]) -> SittingStats:
        """Sittings ``first, first+1, …`` of ``plan.sitting`` consecutive *deals* each, under
        every slot; sitting i draws its 椿 from the seed ``f"{seed}/sitting/{i}"``."""
        h = self.plan.sitting or 1
        stats = SittingStats.empty(len(self.rulesets))
        for start in range(0, len(deals), h):
            index = first + start // h
            record = Sitting.of_deals(deals[start:start + h], seed=f"{self.plan.seed}/sitting/{index}")
            rows = []
            for slot, rs, policy in zip(stats.slots, self.rulesets, self.policies, strict=True):
                res = play_sitting(rs, record, policy=policy, ledger=False)
                bankers = [int(x.banker) for x in res.hands]
                runs = spells(bankers)
                pools = [x.pool_after for x in res.hands]
                redraws = sum(1 for x in res.hands[:-1] if x.settlement.next_banker is None)
                mian_dou = sum(1 for x in res.hands if x.settlement.status == MIAN_DOU)
                totals = res.totals()
                slot.add(bankers, runs, totals[:4], pools, redraws, mian_dou)
                rows.append((bankers, len(runs), pools[-1]))
            for (a, b), pair in zip(self.pairs, stats.pairs, strict=True):
                pair.add(rows[a], rows[b])
            stats.n += 1
        return stats


def _bit_names(rs: Ruleset) -> dict[int, tuple[bool, str]]:
    """Fired bit → (is a group, item or group id)."""
    return {bit: (name in rs.groups and name not in rs.items, name) for name, bit in rs.fired_bits.items()}


class Tally:
    """One chunk's accumulators; fired items are counted per distinct set and named at the end."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.k = len(runner.rulesets)
        self.totals = Stats.empty(self.k)
        self.fired: list[Counter[int]] = [Counter() for _ in range(self.k)]
        self.pairs = [(a, b, self.totals.pairs[i]) for i, (a, b) in enumerate(runner.pairs)]

    def add(self, results: list[tuple[int, QuickResult]]) -> None:
        """One deal: each slot's (banker, result); positions are relative to that slot's banker."""
        rel_all = []
        best_all = []
        for slot, fired, (b, (nets, ended, bits)) in zip(self.totals.slots, self.fired, results, strict=True):
            rel = [nets[b], nets[(b + 1) % 4], nets[(b + 2) % 4], nets[(b + 3) % 4], nets[4]]
            sums, squares = slot.sums, slot.squares
            for j in range(N_ACC):
                v = rel[j]
                sums[j] += v
                squares[j] += v * v
            slot.n += 1
            if ended:
                slot.mian_dou += 1
            if bits:
                fired[bits] += 1
            slot.hist[rel[0]] += 1
            top = max(nets[0], nets[1], nets[2], nets[3])
            best_all.append((nets[0] == top) | (nets[1] == top) << 1 | (nets[2] == top) << 2
                            | (nets[3] == top) << 3)
            rel_all.append(rel)
        for a, c, pair in self.pairs:
            ra, rc = rel_all[a], rel_all[c]
            psums, psquares = pair.sums, pair.squares
            for j in range(N_ACC):
                d = ra[j] - rc[j]
                psums[j] += d
                psquares[j] += d * d
            if best_all[a] != best_all[c]:
                pair.best_changed += 1
        if self.k > 1 and any(x != best_all[0] for x in best_all):
            self.totals.best_changed_any += 1
        self.totals.n += 1

    def stats(self) -> Stats:
        for slot, fired, names in zip(self.totals.slots, self.fired, self.runner.names, strict=True):
            for bits, count in fired.items():
                while bits:
                    low = bits & -bits
                    bits ^= low
                    is_group, name = names[low]
                    (slot.groups if is_group else slot.items)[name] += count
        return self.totals


_RUNNER: Runner | None = None


def _init_worker(plan: Plan) -> None:
    global _RUNNER
    _RUNNER = Runner(plan)


def _start_worker(plan: Plan, parent: int) -> None:
    """A pool worker: the parent alone answers Ctrl-C and SIGTERM (it ends the pool), and a
    worker ends with its parent, quietly, even when the parent is killed outright."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    _die_with_parent(parent)
    _init_worker(plan)


def _die_with_parent(parent: int) -> None:
    """Ask Linux to send SIGTERM when the parent dies (PR_SET_PDEATHSIG); elsewhere a worker
    notices on its next result instead.  Exits at once if the parent is already gone."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # pragma: no cover - no libc to ask
            pass
    if os.getppid() != parent:
        os._exit(0)


def _work(start: int, count: int, deals_fmt: str | None) -> tuple[Any, str | None]:
    assert _RUNNER is not None
    h = _RUNNER.plan.sitting
    if h:
        deals = random_deals(_RUNNER.plan.seed, count * h, start=start * h)
        text = body_text(deals, deals_fmt) if deals_fmt else None
        return _RUNNER.add_sittings(start, deals), text
    if not deals_fmt:
        return _RUNNER.chunk(start, count), None
    deals = random_deals(_RUNNER.plan.seed, count, start=start)  # made once: written and settled
    return _RUNNER.chunk(start, count, deals), body_text(deals, deals_fmt)


# ====================================================================== running


def chunks(n: int, size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, n, size):
        yield start, min(size, n - start)


def chunk_size(n: int, jobs: int) -> int:
    """Big enough to keep workers busy, small enough to bound memory and show progress."""
    return max(25, min(1000, -(-n // (jobs * 8))))


def run(plan: Plan, *, jobs: int = 1, deals_out: str | Destination | None = None,
        progress: Callable[[int], None] | None = None, title: str | None = None,
        chunk: int | None = None, stamp: dict[str, Any] | None = None) -> Stats:
    """Run *plan*, merging the chunks in order; identical for any *jobs* and *chunk*.

    *progress* is called with the number of deals finished after each chunk;
    *deals_out* receives the deals in the deal-file format its name asks for (YAML, JSON for
    ``.json``, JSON Lines for ``.jsonl``), with *stamp* at the top, written as they come.
    At most ``2·jobs + 1`` chunks are in flight, so memory does not grow with ``plan.n``.
    """
    total: Any = (SittingStats if plan.sitting else Stats).empty(len(plan.slots))
    if isinstance(deals_out, str):
        deals_out = destination(deals_out)
    fmt = deals_format(deals_out.name) if deals_out is not None else None
    # A chunk of sittings holds as many deals as a chunk of single deals would.
    size = chunk or max(1, chunk_size(plan.deals, jobs) // (plan.sitting or 1))
    with ExitStack() as stack:
        writer = None
        if deals_out is not None and fmt is not None:
            writer = DealWriter(stack.enter_context(open_text(deals_out)), fmt,
                                title=title or f"random deals, seed {plan.seed!r}", stamp=stamp)
        for stats, text in _results(plan, jobs, size, fmt):
            total.merge(stats)
            if writer is not None and text is not None:
                writer.write_body(text)
            if progress is not None:
                progress(stats.n)
        if writer is not None:
            writer.close()
    return total


def _results(plan: Plan, jobs: int, size: int, fmt: str | None) -> Iterator[tuple[Stats, str | None]]:
    if jobs <= 1 or plan.n <= size:
        _init_worker(plan)
        for start, count in chunks(plan.n, size):
            yield _work(start, count, fmt)
        return
    # Compile the rulesets and their engines here: forked workers inherit them (caches of
    # ruleset.registry and ruleset.codegen) instead of compiling them again each.
    _init_worker(plan)
    ctx = multiprocessing.get_context()
    window = 2 * jobs + 1  # results held at once: bounded whatever n is
    with ctx.Pool(jobs, initializer=_start_worker, initargs=(plan, os.getpid())) as pool:
        todo = chunks(plan.n, size)
        pending: deque[Any] = deque()
        for start, count in todo:
            pending.append(pool.apply_async(_work, (start, count, fmt)))
            if len(pending) >= window:
                break
        while pending:
            result = pending.popleft().get()
            nxt = next(todo, None)
            if nxt is not None:
                pending.append(pool.apply_async(_work, (*nxt, fmt)))
            yield result


# ====================================================================== statistics


def zhu(ticks: int | Fraction) -> float:
    return float(Fraction(ticks) / TICKS_PER_ZHU)


def describe(n: int, s: int, q: int, scale: int = TICKS_PER_ZHU) -> dict[str, Any]:
    """Mean, standard deviation and 95% interval in 注 from exact integer sums of ticks
    (of plain counts with ``scale=1``).

    The variance is computed exactly, ``(n·Σx² − (Σx)²) / (n(n−1))``, before any float.
    """
    if n == 0:
        return {"n": 0, "mean": None, "sd": None, "ci95": None, "sum": 0}
    mean = Fraction(s, n * scale)
    out: dict[str, Any] = {"n": n, "mean": _r(float(mean)), "sd": None, "ci95": None,
                           "sum": json_number(s) if scale == TICKS_PER_ZHU else s}
    if n > 1:
        var = Fraction(n * q - s * s, n * (n - 1)) / (scale * scale)
        sd = math.sqrt(var)
        half = Z95 * sd / math.sqrt(n)
        out["sd"] = _r(sd)
        out["ci95"] = [_r(float(mean) - half), _r(float(mean) + half)]
    return out


def described(n: int, m: Moment, scale: int = TICKS_PER_ZHU) -> dict[str, Any]:
    """:func:`describe` of a :class:`~mahdiao_rules.sitting.stats.Moment` over *n* sittings."""
    return describe(n, m.sum, m.sq, scale)


def proportion(k: int, n: int) -> dict[str, Any]:
    """A share with its 95% Wilson interval."""
    if n == 0:
        return {"count": 0, "share": None, "ci95": None}
    p = k / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return {"count": k, "share": _r(p), "ci95": [_r(max(0.0, centre - half)), _r(min(1.0, centre + half))]}


def _r(x: float) -> float:
    return round(x, 4) + 0.0  # no -0.0 in reports


def histogram(hists: Sequence[Counter[int]], max_bins: int = 40) -> dict[str, Any]:
    """Common bins (in 注) for several distributions of ticks, so they compare side by side."""
    values = [v for h in hists for v in h]
    if not values:
        return {"width": 1, "bins": []}
    lo, hi = min(values), max(values)
    span = (hi - lo) / TICKS_PER_ZHU
    width = Fraction(1, 2)
    for w in (Fraction(1, 2), 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000):
        width = Fraction(w)
        if span / width < max_bins:
            break
    wt = int(width * TICKS_PER_ZHU)
    first = lo // wt
    last = hi // wt
    bins = []
    for i in range(first, last + 1):
        bins.append({"lo": json_number(i * wt), "hi": json_number((i + 1) * wt),
                     "counts": [0] * len(hists)})
    for j, h in enumerate(hists):
        for v, c in h.items():
            bins[v // wt - first]["counts"][j] += c
    return {"width": json_number(wt), "bins": bins}


def build_model(plan: Plan, stats: Stats, *, deals_out: str | None = None) -> dict[str, Any]:
    """The report model of a run: plain data, the same for any number of jobs."""
    rulesets = [slot.ruleset() for slot in plan.slots]
    labels = [slot.label or rs.id for slot, rs in zip(plan.slots, rulesets, strict=True)]
    n = stats.n
    hist = histogram([s.hist for s in stats.slots])
    out_rs = []
    for j, (rs, label, st) in enumerate(zip(rulesets, labels, stats.slots, strict=True)):
        positions = []
        for k, (pid, hanzi, gloss) in enumerate(POSITIONS):
            positions.append({"id": pid, "hanzi": hanzi, "gloss": gloss,
                              **describe(st.n, st.sums[k], st.squares[k])})
        items = []
        for item in rs.items.values():
            count = st.items.get(item.id, 0)
            group = rs.groups.get(item.group or "", {})
            items.append({
                "id": item.id, "name": item.name, "channel": item.channel, "phase": item.phase,
                "se_yang": item.channel == "gong_he", "group": item.group,
                "group_name": group.get("name") if group else None,
                "concept": item.concept, "count": count, "per_1000": _r(1000 * count / n) if n else None,
            })
        groups = [{"id": gid, "name": g.get("name", gid), "count": st.groups.get(gid, 0),
                   "per_1000": _r(1000 * st.groups.get(gid, 0) / n) if n else None}
                  for gid, g in rs.groups.items()]
        out_rs.append({
            "label": label, "id": rs.id, "name": rs.name, "name_en": rs.name_en,
            "content_hash": rs.content_hash, "options": dict(rs.option_values),
            "options_changed": {k: v for k, v in rs.option_values.items()
                                if v != rs.options[k].default},
            "n": st.n, "mian_dou": {**proportion(st.mian_dou, st.n),
                                    "per_1000": _r(1000 * st.mian_dou / n) if n else None},
            "positions": positions,
            "items": items,
            "groups": groups,
            "banker_net_values": [[json_number(v), c] for v, c in sorted(st.hist.items())],
            "histogram": [b["counts"][j] for b in hist["bins"]],
        })
    pairs = []
    for (a, b), ps in zip(pair_indexes(len(rulesets)), stats.pairs, strict=True):
        pairs.append({
            "a": labels[a], "b": labels[b],
            "positions": [{"id": pid, "hanzi": hanzi, **describe(n, ps.sums[k], ps.squares[k])}
                          for k, (pid, hanzi, _g) in enumerate(POSITIONS)],
            "best_seat_changed": proportion(ps.best_changed, n),
        })
    return {
        "kind": "simulate",
        "settings": {
            "n": plan.n, "seed": plan.seed, "policy": plan.policy,
            "same_play": labels[plan.same_play] if plan.same_play is not None else None,
            "rulesets": labels, "deals": "random_deals(seed, n): deal i seeded with f'{seed}/{i}'",
            "deals_out": deals_out,
            "interval": "95% normal interval: mean ± 1.96·sd/√n; shares: Wilson",
            "unit": "注",
        },
        "n": n,
        "rulesets": out_rs,
        "pairs": pairs,
        "best_seat_changed_any": proportion(stats.best_changed_any, n) if len(rulesets) > 1 else None,
        "histogram": {"width": hist["width"], "bins": [{"lo": b["lo"], "hi": b["hi"]} for b in hist["bins"]],
                      "series": labels, "colours": [colour_of(rs) for rs in rulesets]},
    }


# ====================================================================== sittings


def build_sitting_model(plan: Plan, stats: SittingStats, *, deals_out: str | None = None
                        ) -> dict[str, Any]:
    """The report model of a run of sittings: bank tenure, the 官堆 and per-player results.

    Every quantity is one value per sitting (the sittings are independent; the hands of a
    sitting are not), so means and intervals are over sittings.
    """
    rulesets = [slot.ruleset() for slot in plan.slots]
    labels = [slot.label or rs.id for slot, rs in zip(plan.slots, rulesets, strict=True)]
    h = plan.sitting or 1
    n = stats.n
    pool_hist = histogram([t.pool_hands for t in stats.slots])
    out_rs = []
    for j, (rs, label, t) in enumerate(zip(rulesets, labels, stats.slots, strict=True)):
        lengths = sorted(t.spell_lengths.items())
        done = sum(t.spell_lengths.values())
        out_rs.append({
            "label": label, "id": rs.id, "name": rs.name, "name_en": rs.name_en,
            "content_hash": rs.content_hash, "options": dict(rs.option_values),
            "n": t.n, "hands": t.hands,
            "players": [{"seat": seat, "hanzi": hanzi, "player": player,
                         **described(t.n, t.nets[k]),
                         "banker_hands": described(t.n, t.banker_hands[k], 1)}
                        for k, (seat, hanzi, player) in enumerate(zip(
                            ("east", "south", "west", "north"), ("東", "南", "西", "北"),
                            ("東家", "南家", "西家", "北家"), strict=True))],
            "tenure": {
                "spells": described(t.n, t.spells, 1),
                "changes": describe(t.n, t.spells.sum - t.n, t.spells.sq - 2 * t.spells.sum + t.n, 1),
                "longest": described(t.n, t.longest, 1),
                "redraws": described(t.n, t.redraws, 1),
                "mean_spell": _r(t.hands / t.spells.sum) if t.spells.sum else None,
                "stays": proportion(t.hands - t.spells.sum, t.hands - t.n) if h > 1 else None,
                "completed_spells": [{"length": k, "count": c, "share": _r(c / done)}
                                     for k, c in lengths],
            },
            "mian_dou": {**proportion(t.mian_dou, t.hands),
                         "per_1000": _r(1000 * t.mian_dou / t.hands) if t.hands else None},
            "guan_dui": {
                "end": described(t.n, t.pool_end),
                "max": described(t.n, t.pool_max),
                "nonempty": proportion(sum(c for v, c in t.pool_hands.items() if v > 0), t.hands),
                "values": [[json_number(v), c] for v, c in sorted(t.pool_hands.items())],
            },
            "histogram": [b["counts"][j] for b in pool_hist["bins"]],
        })
    pairs = []
    for (a, b), ps in zip(pair_indexes(len(rulesets)), stats.pairs, strict=True):
        pairs.append({
            "a": labels[a], "b": labels[b],
            "spells": described(n, ps.spells, 1),
            "guan_dui_end": described(n, ps.pool_end),
            "same_banker": proportion(ps.same_banker, ps.hands),
        })
    return {
        "kind": "simulate-sitting",
        "settings": {
            "n": plan.n, "hands": h, "seed": plan.seed, "policy": plan.policy,
            "rulesets": labels,
            "deals": f"random_deals(seed, n·{h}): sitting i plays deals i·{h} … i·{h}+{h - 1}; "
                     "its draws are seeded with f'{seed}/sitting/{i}'",
            "players": "東家 南家 西家 北家 in the seats east, south, west, north for every sitting",
            "deals_out": deals_out,
            "interval": "95% normal interval over sittings: mean ± 1.96·sd/√n; shares: Wilson",
            "unit": "注 per sitting",
        },
        "n": n,
        "rulesets": out_rs,
        "pairs": pairs,
        "histogram": {"width": pool_hist["width"],
                      "bins": [{"lo": b["lo"], "hi": b["hi"]} for b in pool_hist["bins"]],
                      "series": labels, "colours": [colour_of(rs) for rs in rulesets]},
    }


# ====================================================================== ablation


def ablation_slots(spec: str, overrides: dict[str, str], options: Sequence[str] | None
                   ) -> list[Slot]:
    """The base ruleset, then one slot per (option, other value), one change at a time."""
    base = find_ruleset(spec, overrides or None)
    names = list(options) if options else list(base.options)
    for name in names:
        if name not in base.options:
            from .cards import closest_names
            from .errors import InputError

            hint = closest_names(name, base.options)
            extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
            raise InputError(f"ruleset {base.id!r} has no option {name!r}{extra}; "
                             f"options: {', '.join(base.options)}")
    base_ov = tuple(sorted(overrides.items()))
    slots = [Slot(spec, base_ov, label=base.id)]
    for name in names:
        current = base.option_values[name]
        for value in base.options[name].choices:
            if value == current:
                continue
            ov = dict(overrides)
            ov[name] = value
            slots.append(Slot(spec, tuple(sorted(ov.items())), label=f"{name}={value}"))
    return slots


def ablation_model(plan: Plan, stats: Stats, model: dict[str, Any]) -> dict[str, Any]:
    """Rank the options by their effect on the banker's mean net (paired with the base)."""
    base = plan.slots[0].ruleset()
    rows: dict[str, list[dict[str, Any]]] = {}
    index = {pair: i for i, pair in enumerate(pair_indexes(len(plan.slots)))}
    base_items = {it["id"]: it for it in model["rulesets"][0]["items"]}
    for j, slot in enumerate(plan.slots[1:], start=1):
        name, _, value = slot.label.partition("=")
        ps = stats.pairs[index[(0, j)]]
        # pair (0, j) holds base − variant: report variant − base.
        d = describe(stats.n, -ps.sums[0], ps.squares[0])
        items = {it["id"]: it for it in model["rulesets"][j]["items"]}
        changes = []
        for iid in sorted(set(base_items) | set(items)):
            before = base_items.get(iid, {}).get("per_1000") or 0.0
            after = items.get(iid, {}).get("per_1000") or 0.0
            if after != before:
                name_ = (items.get(iid) or base_items.get(iid) or {}).get("name", iid)
                changes.append({"id": iid, "name": name_, "base": before, "variant": after,
                                "change": _r(after - before)})
        changes.sort(key=lambda c: (-abs(c["change"]), c["id"]))
        ci = d["ci95"]
        rows.setdefault(name, []).append({
            "value": value, "label": slot.label, "banker_diff": d,
            # The paired 95% interval lies wholly on one side of 0: a real effect, not noise.
            "excludes_zero": bool(ci and (ci[0] > 0 or ci[1] < 0)),
            "best_seat_changed": proportion(ps.best_changed, stats.n),
            "item_change_total": _r(sum(abs(c["change"]) for c in changes)),
            "items": changes,
        })
    ranking = []
    for name, alts in rows.items():
        effect = max(abs(a["banker_diff"]["mean"] or 0.0) for a in alts)
        items_effect = max(a["item_change_total"] for a in alts)
        # What the options can be told apart by: the smallest |effect| consistent with the data
        # (the interval's end nearest 0; 0 when the interval includes 0).
        bound = max((min(abs(a["banker_diff"]["ci95"][0]), abs(a["banker_diff"]["ci95"][1]))
                     for a in alts if a["excludes_zero"]), default=0.0)
        ranking.append({"option": name, "title": base.options[name].title,
                        "default": base.option_values[name], "effect": _r(effect),
                        "excludes_zero": any(a["excludes_zero"] for a in alts),
                        "effect_bound": _r(bound),
                        "item_effect": items_effect, "alternatives": alts})
    # Ranked by effect, but an effect whose interval includes 0 is not ranked above one that
    # excludes it: first the options with a real effect (by the point estimate), then the rest.
    ranking.sort(key=lambda r: (not r["excludes_zero"], -r["effect"], -r["item_effect"], r["option"]))
    for i, r in enumerate(ranking, start=1):
        r["rank"] = i
    model = dict(model)
    # Every slot is the same ruleset: its variants get the palette's colours in turn.
    model["histogram"] = {**model["histogram"],
                          "colours": [PALETTE[j % len(PALETTE)] for j in range(len(plan.slots))]}
    model["kind"] = "ablate"
    model["ablation"] = {"ruleset": base.id, "name": base.name, "ranking": ranking}
    return model


# ====================================================================== benchmark


BENCH_TARGETS: dict[tuple[str, str], int] = {
    ("feng", "settle"): 30_000, ("app", "settle"): 10_000, ("qing", "settle"): 10_000,
    ("feng", "random"): 15_000, ("app", "random"): 8_000, ("qing", "random"): 8_000,
}
"""Deals per second of one core that issue 15 asks for (qing, built on app, like app)."""


@dataclass
class BenchRow:
    ruleset: str
    what: str
    per_second: float
    runs: list[float]

    @property
    def target(self) -> int | None:
        return BENCH_TARGETS.get((self.ruleset, self.what))


def best_rate(fn: Callable[[], Any], count: int, repeat: int,
              progress: Callable[[int], None] | None = None) -> tuple[float, list[float]]:
    """Items per second of CPU time of *fn* doing *count* items: the best of *repeat* runs."""
    runs = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        runs.append(count / max(time.process_time() - t0, 1e-9))
        if progress is not None:
            progress(1)  # one timed run of one case
    return max(runs), runs


def benchmark(rulesets: Sequence[str] = ("feng", "app", "qing"), n: int = 2000, repeat: int = 3,
              seed: str = "bench", reference: Any = None, toy: Any = None,
              progress: Callable[[int], None] | None = None) -> list[BenchRow]:
    """Deals per second on one core (CPU time, best of *repeat*) for each ruleset, measured on
    the code ``mahdiao simulate`` runs (:class:`mahdiao_rules.pipeline.Quick`); *progress* is
    called after each timed run:

    * ``settle`` — settlement of already-played deals (random plays);
    * ``random`` — random play (the deal's seeded draw of the play orders) + settlement;
    * ``heuristic`` — heuristic play + settlement;
    * ``reference`` — when a reference interpreter module is given, its speed on the
      same played deals;
    * ``toy`` (ruleset ``toy``) — when the toy engine of ``benchmarks/toy.py`` is given:
      deal, random play and the 吊 only, the baseline the figures are divided by.
    """
    deals = random_deals(seed, n)
    rows = []
    if toy is not None:
        rate, runs = best_rate(lambda: toy.run(n, seed), n, repeat, progress)
        rows.append(BenchRow("toy", "toy", rate, runs))
    rng = random.Random()
    held = [[d.hand_mask(s) for s in range(4)] for d in deals]
    for rid in rulesets:
        rs = find_ruleset(rid)
        quick = Quick(rs)
        heur = make_policy("heuristic", rs)
        played = []
        for d, h in zip(deals, held, strict=True):
            view, play = quick.play_random(h, d.stock, int(d.banker),
                                           random_orders(d.hands, random.Random(play_seed(d.id))))
            played.append((view, d.stock, int(d.banker), play))

        quick.played(*played[0])  # the generated engine is built before any timing

        # Each timed run starts cold (Quick.forget): the cases replay the same deals, and a
        # run must not profit from the 開沖 memory of the one before.
        def settle_only(quick: Quick = quick, played: list[Any] = played) -> None:
            quick.forget()
            for h, stock, banker, play in played:
                quick.played(h, stock, banker, play)

        def random_play(quick: Quick = quick) -> None:
            quick.forget()
            for d, h in zip(deals, held, strict=True):
                rng.seed(play_seed(d.id))
                quick.random(h, d.stock, int(d.banker), random_orders(d.hands, rng))

        def heuristic(quick: Quick = quick, heur: Any = heur) -> None:
            quick.forget()
            for d in deals:
                quick.deal(d, policy=heur)

        cases: list[tuple[str, Callable[[], None], int]] = [
            ("settle", settle_only, n), ("random", random_play, n), ("heuristic", heuristic, n)]
        if reference is not None:
            ref = reference.load(rid)
            m = max(1, n // 10)
            plays = [auto_play(rs, d, make_policy("random", rs)) for d in deals[:m]]

            def ref_only(ref: Any = ref, plays: list[Any] = plays, m: int = m) -> None:
                for d, p in zip(deals[:m], plays, strict=True):
                    reference.settle_nets(ref, d, p)
            cases.append(("reference", ref_only, m))
        for what, fn, count in cases:
            rate, runs = best_rate(fn, count, repeat, progress)
            rows.append(BenchRow(rid, what, rate, runs))
    return rows
