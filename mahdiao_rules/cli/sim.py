"""``mahdiao simulate``, ``mahdiao ablate`` and ``mahdiao bench``: Monte Carlo over rulesets.

Standalone click commands; the main group (``cli/__init__.py``) registers them.
Only the report goes to stdout; the progress bar goes to stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from ..errors import InputError
from ..play.policies import POLICIES
from ..report.contract import envelope, stamp
from ..report.render import Report, render_text
from ..ruleset import bundled_ids, find_ruleset, resolve_rulesets, spec_of
from ..simulate import (
    Plan,
    Slot,
    ablation_model,
    ablation_slots,
    benchmark,
    build_model,
    build_sitting_model,
    run,
)
from . import complete
from .common import (
    Destination,
    check_seed,
    check_settings_targets,
    command_line,
    format_option,
    friendly_errors,
    output_format,
    output_place,
    parse_settings,
    progress,
    ruleset_files,
    rulesets_option,
    settings_option,
    write_output,
)

FORMATS = ("text", "json", "md", "html", "latex", "csv")
PROGRESS_MIN = 3000
"""Show a progress bar (on stderr, on a terminal) from this many hands (deals × rulesets) on."""


# ====================================================================== rendering


def render(model: dict[str, Any], fmt: str) -> str:
    """The report in *fmt*, as every report is rendered (report/render.py): JSON as it is, the
    CSV table of report/tables.py or ``simulate.csv.j2``, the ``<kind>.<ext>.j2`` templates.
    An ablation is a simulation report with its ranking first: it shares simulate's templates,
    which branch on ``report.kind``."""
    kind = "simulate-sitting" if model["kind"] == "simulate-sitting" else "simulate"
    return render_text(Report(kind, model), fmt)


# ====================================================================== shared options


def _slots(specs: Sequence[str], settings: Sequence[str]) -> list[Slot]:
    """One slot per ruleset of the run, in reading order (as every report lists them)."""
    parsed = parse_settings(settings)
    chosen = resolve_rulesets(specs or ("all",), parsed)  # checks ids, paths and options
    check_settings_targets(settings, chosen)
    return [Slot(spec_of(rs), tuple(sorted(parsed.get(rs.id, {}).items())), label=rs.id)
            for rs in chosen]


def _jobs(jobs: int) -> int:
    return jobs if jobs > 0 else (os.cpu_count() or 1)


def _stamp(plan: Plan) -> dict[str, Any]:
    return stamp(command_line(), [slot.ruleset() for slot in plan.slots], seed=plan.seed)


def envelope_of(kind: str, model: dict[str, Any], run_stamp: dict[str, Any]) -> dict[str, Any]:
    """The simulation or ablation model in the envelope every JSON output has."""
    return envelope(kind, run_stamp, **{k: v for k, v in model.items() if k != "kind"})


def _run(plan: Plan, jobs: int, deals_out: Destination | None, show: bool | None,
         run_stamp: dict[str, Any] | None = None) -> Any:
    # About 1,500 hands a second per ruleset: a bar from about two seconds of work, on a terminal only.
    wanted = show if show is not None else plan.deals * len(plan.slots) >= PROGRESS_MIN
    with progress(plan.n, "simulating", show=wanted) as update:
        return run(plan, jobs=jobs, deals_out=deals_out, progress=update, stamp=run_stamp)


def _outputs(output: str | None, deals_out: str | None, rulesets: Sequence[Any]
             ) -> tuple[Destination, Destination | None]:
    """Check -o and --deals-out before the run: neither an input, nor the same place."""
    inputs = ruleset_files(rulesets)
    dest = output_place(output, inputs=inputs)
    deals = None if deals_out is None else output_place(deals_out, inputs=inputs, others=[dest])
    return dest, deals


def _common(fn: Any) -> Any:
    for option in reversed([
        click.option("-n", "--count", "n", default=1000, show_default=True,
                     type=click.IntRange(1, 100_000_000), help="How many deals."),
        click.option("--seed", default="0", show_default=True,
                     help="Seed text; deal i is seeded with f'{seed}/{i}', as `mahdiao deal`."),
        click.option("--policy", type=click.Choice(sorted(POLICIES)), default="heuristic",
                     show_default=True, help="How the tool plays each hand."),
        click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(0, 256),
                     help="Worker processes (0: one per CPU). Results do not depend on it."),
        format_option(FORMATS, "text"),
        click.option("-o", "--output", metavar="FILE", help="Write the report here instead of stdout."),
        click.option("--deals-out", metavar="FILE",
                     help="Also write the exact deals used, as they are made (deal-file format: "
                          ".jsonl for JSON Lines, the format for many deals; .json for JSON; else YAML)."),
        click.option("--progress/--no-progress", "show_progress", default=None,
                     help=f"Progress bar on stderr when it is a terminal (default: from {PROGRESS_MIN} "
                          "deals × rulesets; never in a pipe or file)."),
    ]):
        fn = option(fn)
    return fn


# ====================================================================== commands


@click.command()
@rulesets_option("all")
@settings_option()
@click.option("--same-play", metavar="RULESET", shell_complete=complete.one_ruleset,
              help="Play each deal once, under this ruleset, and settle that play under every "
                   "ruleset (isolates scoring differences).")
@click.option("--sitting", "sitting", type=click.IntRange(1, 10_000), metavar="H",
              help="Play sittings of H hands instead of single deals (-n counts sittings): each "
                   "ruleset carries its 椿 and 官堆 from hand to hand; reports bank tenure, the "
                   "官堆 and per-player results.")
@_common
@friendly_errors
def simulate(rulesets: tuple[str, ...], settings: tuple[str, ...], same_play: str | None,
             sitting: int | None, n: int, seed: str, policy: str, jobs: int, fmt: str,
             output: str | None, deals_out: str | None, show_progress: bool | None) -> None:
    """Play and settle N random deals under each ruleset and compare them.

    \b
    The same deals go to every ruleset (common random numbers); each ruleset
    plays them by its own procedure (first leader, 升代, 免斗) with the chosen
    policy.  Reports, per ruleset: mean net per hand for the banker and the
    seats relative to him with standard deviations and 95% intervals, the
    免斗 rate, how often each rule item and 色樣 fires per 1,000 deals and the
    distribution of the banker's net; and, per pair of rulesets, paired
    differences and how often the best seat changes.  Results are the same
    for any --jobs.

    \b
    With --sitting H, N sittings of H hands each: the same seeded deals in the
    same order for every ruleset, the players 東家 南家 西家 北家 in fixed seats,
    each ruleset choosing its own first 椿 and next 椿 and carrying its 官堆.
    Reports bank tenure (spells, bank changes, the longest spell, how often the
    椿 stays), the 官堆 (at the end, its largest, after each hand) and each
    player's net per sitting, with 95% intervals over sittings.
    """
    check_seed(seed)
    slots = _slots(rulesets, settings)
    if sitting is not None and same_play is not None:
        raise InputError("--sitting and --same-play do not go together: in a sitting each "
                         "ruleset plays its own hands with its own 椿")
    sp = None
    if same_play is not None:
        wanted = find_ruleset(same_play).id
        ids = [s.label for s in slots]
        if wanted not in ids:
            raise InputError(f"--same-play {same_play!r} is not among the rulesets of this run "
                             f"({', '.join(ids)})")
        sp = ids.index(wanted)
    fmt = output_format(fmt, output, FORMATS, "text")
    dest, deals_dest = _outputs(output, deals_out, [s.ruleset() for s in slots])
    plan = Plan(n=n, seed=seed, slots=tuple(slots), policy=policy, same_play=sp, sitting=sitting)
    run_stamp = _stamp(plan)
    stats = _run(plan, _jobs(jobs), deals_dest, show_progress, run_stamp)
    build = build_sitting_model if sitting else build_model
    model = build(plan, stats, deals_out=deals_out)
    write_output(render(envelope_of(model["kind"], model, run_stamp), fmt), dest)


@click.command()
@click.option("-r", "--ruleset", "ruleset", required=True, metavar="ID|PATH",
              shell_complete=complete.one_ruleset,
              help="The ruleset whose options are switched.")
@click.option("--options", "options", metavar="A,B,…",
              help="Only these options (default: every option of the ruleset).")
@settings_option("The base reading of an option (default: its default). Repeatable.")
@_common
@friendly_errors
def ablate(ruleset: str, options: str | None, settings: tuple[str, ...], n: int, seed: str,
           policy: str, jobs: int, fmt: str, output: str | None, deals_out: str | None,
           show_progress: bool | None) -> None:
    """Switch each option of a ruleset to each other reading, one at a time, on the same deals,
    and rank the options by their effect on the banker's mean net and on item frequencies."""
    check_seed(seed)
    base = find_ruleset(ruleset)
    parsed = parse_settings(settings)
    for rs_id in parsed:
        if rs_id != base.id:
            raise InputError(f"--set names ruleset {rs_id!r}; ablate runs {base.id!r} only")
    names = [o.strip() for o in options.split(",") if o.strip()] if options else None
    slots = ablation_slots(ruleset, parsed.get(base.id, {}), names)
    if len(slots) < 2:
        raise InputError(f"ruleset {base.id!r} has no option with another reading to switch to")
    fmt = output_format(fmt, output, FORMATS, "text")
    dest, deals_dest = _outputs(output, deals_out, [base])
    plan = Plan(n=n, seed=seed, slots=tuple(slots), policy=policy)
    run_stamp = _stamp(plan)
    stats = _run(plan, _jobs(jobs), deals_dest, show_progress, run_stamp)
    model = ablation_model(plan, stats, build_model(plan, stats, deals_out=deals_out))
    write_output(render(envelope_of("ablate", model, run_stamp), fmt), dest)


def checkout_module(relative: str, name: str) -> Any:
    """A module of the source checkout outside the package (the test suite's reference
    interpreter, the benchmarks' toy engine), or None in an installed wheel."""
    path = Path(__file__).resolve().parents[2] / relative
    if not path.is_file():
        return None
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def reference_module() -> Any:
    return checkout_module("tests/reference_interpreter.py", "mahdiao_reference_interpreter")


def toy_module() -> Any:
    return checkout_module("benchmarks/toy.py", "mahdiao_toy_engine")


def bench_table(rows: Sequence[Any]) -> str:
    """The benchmark as aligned text: deals per second per ruleset and case, each beside its
    target (issue 15) and divided by the toy engine's rate (the figure that travels between
    machines); then the generated engine's speed-up over the reference interpreter."""
    from ..report.render import text_table

    toy = next((r.per_second for r in rows if r.what == "toy"), None)
    table = [["ruleset", "case", "deals/s", "target", "÷ toy"]]
    for r in rows:
        target = "—" if r.target is None else \
            f"≥ {r.target:,} {'met' if r.per_second >= r.target else 'NOT MET'}"
        ratio = "—" if toy is None else f"{r.per_second / toy:.2f}"
        table.append([r.ruleset, r.what, f"{r.per_second:,.0f}", target, ratio])
    out = text_table(table, "llrlr") + "\n"
    by = {(r.ruleset, r.what): r.per_second for r in rows}
    speedups = [f"{rid} {by[(rid, 'settle')] / by[(rid, 'reference')]:.0f}×"
                for rid in dict.fromkeys(r.ruleset for r in rows)
                if (rid, "reference") in by and (rid, "settle") in by]
    if speedups:
        out += "  settle ÷ reference interpreter: " + ", ".join(speedups) + "\n"
    return out


@click.command()
@click.option("-r", "--ruleset", "rulesets", multiple=True, metavar="ID", shell_complete=complete.ruleset_ids,
              help="Rulesets to measure (default: every bundled one).")
@click.option("-n", "--count", "n", default=2000, show_default=True, type=click.IntRange(10, 10**7))
@click.option("--repeat", default=3, show_default=True, type=click.IntRange(1, 50),
              help="Runs per case; the best is reported (the machine may be shared).")
@click.option("--reference/--no-reference", default=True, show_default=True,
              help="Also time the test suite's reference interpreter (checkout only).")
@click.option("--toy/--no-toy", default=True, show_default=True,
              help="Also time the toy engine of benchmarks/toy.py and divide by it (checkout only).")
@friendly_errors
def bench(rulesets: tuple[str, ...], n: int, repeat: int, reference: bool, toy: bool) -> None:
    """Deals per second on one core (CPU time): settle only, random play + settle,
    heuristic play + settle, each beside its target and divided by the toy engine's rate —
    the same code as benchmarks/bench.py."""
    ids = list(rulesets) or bundled_ids()
    ref = reference_module() if reference else None
    toy_engine = toy_module() if toy else None
    cases = 3 + (ref is not None)
    runs = (len(ids) * cases + (toy_engine is not None)) * repeat
    with progress(runs, "benchmarking") as update:
        rows = benchmark(ids, n=n, repeat=repeat, reference=ref, toy=toy_engine, progress=update)
    click.echo(f"deals per second of CPU time, one core, best of {repeat} ({n} deals per case)")
    click.echo(bench_table(rows), nl=False)
