"""The ``mahdiao`` command line: replay deals under rulesets and explain the payments.

Every command turns bad input into one line on stderr and exit code 2, and
writes an output file only when the whole report rendered (temp file + rename).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from .. import __version__
from ..deal import SEAT_ALIASES, Deal
from ..errors import InputError
from ..io import dealcode
from ..io.dealfile import dump_deals, load_deals, random_deals
from ..io.resources import data_dir
from ..io.yamlsafe import load_file
from ..pipeline import settle_deal
from ..play.policies import make_policy
from ..report.explain import explain_report
from ..report.render import LANGS, RENDERERS, formats_for, load_labels
from ..report.replay import build_report
from ..report.ruletable import rules_diff, rules_table
from ..report.svg import bar_chart, file_name
from ..ruleset import bundled_ids, compile_document, find_ruleset, resolve_rulesets
from .common import (
    EXIT_INPUT,
    F,
    friendly_errors,
    parse_settings,
    pick_by_id,
    write_output,
)
from .history import code, reconstruct
from .sim import ablate, bench, simulate


def _command_line() -> str:
    return " ".join(shlex.quote(a) for a in ["mahdiao", *sys.argv[1:]])


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mahdiao")
def main() -> None:
    """Replay 馬吊 (Madiao) deals under historical rulesets and explain every payment.

    \b
    Pipeline: deal → play → settle → report.  Start with:
      mahdiao replay                 # the bundled example deals under feng
      mahdiao rulesets               # what rulesets are available
      mahdiao replay my-deals.yaml -r feng --format json -o result.json
    """


def report_options(fn: F) -> F:
    """``--lang`` and ``--template-dir``, shared by every command that renders a report."""
    fn = click.option("--template-dir", type=click.Path(exists=True, file_okay=False),
                      help="Use templates (and labels.yaml) from this folder first.")(fn)
    return click.option("--lang", type=click.Choice(LANGS), default="en", show_default=True,
                        help="Labels: hanzi terms with English (en), or all Chinese.")(fn)


@main.command()
@click.argument("file", required=False)
@click.option("-r", "--ruleset", "rulesets", multiple=True, metavar="ID|PATH",
              help="Ruleset id (see `mahdiao rulesets`), 'all', or a ruleset YAML path. "
                   "Repeatable. Default: feng.")
@click.option("--set", "settings", multiple=True, metavar="RULESET.OPTION=VALUE",
              help="Override a ruleset option for this run. Repeatable.")
@click.option("-f", "--format", "fmt", type=click.Choice(sorted(RENDERERS)), default="text",
              show_default=True, help="Output format.")
@click.option("-o", "--output", metavar="FILE", help="Write the report here instead of stdout.")
@click.option("--deal", "deal_ids", multiple=True, metavar="ID",
              help="Only these deal ids from the file. Repeatable.")
@click.option("--policy", type=click.Choice(["random", "heuristic"]), default="random",
              show_default=True,
              help="How a deal without recorded tricks is played (seeded by the deal id).")
@click.option("--code", "codes", multiple=True, metavar="CODE",
              help="Replay the deal with this citable deal code (see `mahdiao code`) instead "
                   "of a file. Repeatable.")
@click.option("--svg-dir", metavar="DIR",
              help="Also write each deal's chart (net per seat per ruleset) as DIR/<deal>.svg.")
@report_options
@friendly_errors
def replay(file: str | None, rulesets: tuple[str, ...], settings: tuple[str, ...], fmt: str,
           output: str | None, deal_ids: tuple[str, ...], policy: str, codes: tuple[str, ...],
           svg_dir: str | None, lang: str, template_dir: str | None) -> None:
    """Settle each deal of FILE (YAML or JSON) under each ruleset.

    Without FILE the bundled example deals are replayed.  A deal's recorded
    tricks are authoritative; a deal without them is played at random from
    the ruleset's own first leader (seeded by the deal id).  With several
    rulesets the report puts them side by side and explains the differences.
    A deal given by ``--code`` has no recorded play either.
    """
    if codes:
        if file is not None:
            raise InputError("give either FILE or --code, not both")
        deals, shown = [dealcode.decode(c) for c in codes], "--code"
    else:
        deals, shown = _load_deals(file, deal_ids)
    chosen = resolve_rulesets(rulesets or ("feng",), parse_settings(settings))
    _check_settings_targets(settings, chosen)
    rows = [[settle_deal(rs, deal, policy=make_policy(policy, rs)) for rs in chosen] for deal in deals]
    report = build_report(deals, chosen, rows, command=_command_line(), input_name=shown)
    text = RENDERERS[fmt](report, kind="replay", lang=lang, template_dir=template_dir)
    if svg_dir is not None:
        title = load_labels(template_dir, lang).chart_net
        _write_svgs(svg_dir, {d["id"]: d["chart"] for d in report["deals"]}, title)
    write_output(text, output)


def _load_deals(file: str | None, deal_ids: Sequence[str]) -> tuple[list[Deal], str]:
    """The deals of FILE (the bundled examples without one), only *deal_ids* if given."""
    if file is None:
        path, shown = data_dir("examples") / "examples.yaml", "examples/examples.yaml"
    else:
        path, shown = Path(file), file
    return pick_by_id(load_deals(str(path), display_name=shown), deal_ids, "deal", shown), shown


def _write_svgs(folder: str, charts: dict[str, dict[str, Any]], title: str) -> None:
    """Each chart as a standalone DIR/<name>.svg, written atomically like every output."""
    target = Path(folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the folder: {exc.strerror or exc}", file=folder) from None
    for name, spec in charts.items():
        write_output(bar_chart(spec, title=title, standalone=True),
                     str(target / f"{file_name(name)}.svg"))


def _check_settings_targets(settings: Sequence[str], chosen: Sequence[Any]) -> None:
    """Every ``--set`` must name a ruleset of this run (a typo would otherwise be ignored)."""
    ids = {rs.id for rs in chosen}
    for rs_id in parse_settings(settings):
        if rs_id not in ids:
            raise InputError(f"--set names ruleset {rs_id!r}, which is not in this run "
                             f"(rulesets: {', '.join(sorted(ids))})")


@main.command("rulesets")
@friendly_errors
def list_rulesets() -> None:
    """List the bundled rulesets with their names and item counts."""
    _echo_rulesets()


def _echo_rulesets() -> None:
    rows = [find_ruleset(i) for i in bundled_ids()]
    width = max(len(r.id) for r in rows)
    for r in rows:
        extra = f" ({r.name_en})" if r.name_en else ""
        he = [i for i in r.items.values() if i.channel == "gong_he"]
        concepts = len({i.concept for i in he})
        click.echo(f"{r.id.ljust(width)}  {r.item_count:3d} items ({len(he):3d} 公賀 in {concepts:3d} "
                   f"concepts)  {len(r.options):2d} options  {r.name}{extra}")


@main.command()
@click.argument("file", required=False)
@click.option("--deal", "deal_id", metavar="ID",
              help="The deal (required when FILE holds more than one).")
@click.option("-r", "--ruleset", "ruleset", default="feng", show_default=True, metavar="ID|PATH",
              help="Ruleset id or a ruleset YAML path.")
@click.option("--seat", required=True, metavar="SEAT",
              help="east, south, west or north (also e/s/w/n, 東 南 西 北).")
@click.option("--set", "settings", multiple=True, metavar="RULESET.OPTION=VALUE",
              help="Override a ruleset option for this run. Repeatable.")
@click.option("-f", "--format", "fmt", type=click.Choice(formats_for("explain")), default="text",
              show_default=True, help="Output format.")
@click.option("-o", "--output", metavar="FILE", help="Write the explanation here instead of stdout.")
@report_options
@friendly_errors
def explain(file: str | None, deal_id: str | None, ruleset: str, seat: str,
            settings: tuple[str, ...], fmt: str, output: str | None, lang: str,
            template_dir: str | None) -> None:
    """Every ledger line behind one seat's net, grouped by rule item, with its source.

    The answer to "why was I paid this?": for deal ID of FILE (the bundled
    examples without FILE) under one ruleset, each payment to and from SEAT
    with the item, the quoted source phrase and the cards that made it fire.
    """
    deals, shown = _load_deals(file, [deal_id] if deal_id else [])
    if len(deals) > 1:
        raise InputError(f"the file holds {len(deals)} deals; choose one with --deal "
                         f"(ids: {', '.join(d.id for d in deals)})", file=shown)
    who = SEAT_ALIASES.get(seat.strip().lower()) or SEAT_ALIASES.get(seat.strip())
    if who is None:
        raise InputError(f"--seat {seat!r}: give east, south, west or north")
    chosen = resolve_rulesets([ruleset], parse_settings(settings))
    _check_settings_targets(settings, chosen)
    model = explain_report(deals[0], settle_deal(chosen[0], deals[0]), who, command=_command_line())
    write_output(RENDERERS[fmt](model, kind="explain", lang=lang, template_dir=template_dir), output)


@main.group(invoke_without_command=True)
@click.pass_context
@friendly_errors
def rules(ctx: click.Context) -> None:
    """Rule tables for articles: `rules table RULESET`, `rules diff A B …`.

    Without a subcommand, lists the bundled rulesets (as `mahdiao rulesets`).
    """
    if ctx.invoked_subcommand is None:
        _echo_rulesets()


def _rules_options(kind: str) -> Callable[[F], F]:
    def wrap(fn: F) -> F:
        for option in reversed([
            click.option("--set", "settings", multiple=True, metavar="RULESET.OPTION=VALUE",
                         help="Use another reading of an option. Repeatable."),
            click.option("-f", "--format", "fmt", type=click.Choice(formats_for(kind)),
                         default="md", show_default=True, help="Output format."),
            click.option("-o", "--output", metavar="FILE", help="Write the table here instead of stdout."),
            report_options,
        ]):
            fn = option(fn)
        return fn
    return wrap


@rules.command("table")
@click.argument("ruleset", metavar="RULESET")
@_rules_options("rules-table")
@friendly_errors
def rules_table_cmd(ruleset: str, settings: tuple[str, ...], fmt: str, output: str | None,
                    lang: str, template_dir: str | None) -> None:
    """Every item of RULESET: name, pinyin id, gloss, condition (generated from the YAML),
    注, channel and a footnoted source."""
    chosen = resolve_rulesets([ruleset], parse_settings(settings))
    _check_settings_targets(settings, chosen)
    model = rules_table(chosen[0], command=_command_line())
    write_output(RENDERERS[fmt](model, kind="rules-table", lang=lang, template_dir=template_dir),
                 output)


@rules.command("diff")
@click.argument("rulesets", nargs=-1, required=True, metavar="A B [C …]")
@click.option("--svg-dir", metavar="DIR", help="Also write the chart as DIR/rules-diff.svg.")
@_rules_options("rules-diff")
@friendly_errors
def rules_diff_cmd(rulesets: tuple[str, ...], svg_dir: str | None, settings: tuple[str, ...],
                   fmt: str, output: str | None, lang: str, template_dir: str | None) -> None:
    """One row per concept, one column per ruleset (value, or — where absent), with the
    options and their values in use."""
    chosen = resolve_rulesets(rulesets, parse_settings(settings))
    _check_settings_targets(settings, chosen)
    if len(chosen) < 2:
        raise InputError("rules diff compares two rulesets or more")
    model = rules_diff(chosen, command=_command_line())
    text = RENDERERS[fmt](model, kind="rules-diff", lang=lang, template_dir=template_dir)
    if svg_dir is not None:
        _write_svgs(svg_dir, {"rules-diff": model["chart"]}, load_labels(template_dir, lang).chart_diff)
    write_output(text, output)


@main.command()
@click.argument("files", nargs=-1, required=True)
@friendly_errors
def validate(files: tuple[str, ...]) -> None:
    """Check deal files and ruleset files; print one line per file.

    Exit code 0 when every file is valid, 2 when any is not.
    """
    bad = 0
    for name in files:
        try:
            doc = load_file(name)
            if _looks_like_ruleset(doc.data):
                rs = compile_document(doc)
                click.echo(f"{name}: ok (ruleset {rs.id}, {rs.item_count} items)")
            else:
                deals = load_deals(name)
                click.echo(f"{name}: ok ({len(deals)} deal{'s' if len(deals) != 1 else ''})")
        except InputError as e:
            click.echo(f"mahdiao: error: {e}", err=True)
            bad += 1
    if bad:
        sys.exit(EXIT_INPUT)


# Top-level keys only a ruleset has (deal files have hands/deals instead).
_RULESET_KEYS = frozenset({"items", "units", "sources", "options", "procedure", "sets", "channels",
                           "groups", "name_en", "extends", "include", "remove"})


def _looks_like_ruleset(data: Any) -> bool:
    """A ruleset, also when its ``items:`` key is misspelt (so the message names ruleset keys)."""
    if not isinstance(data, dict):
        return False
    return "items" in data or (bool(_RULESET_KEYS & data.keys()) and not {"hands", "deals"} & data.keys())


@main.command()
@click.option("--seed", default="0", show_default=True,
              help="Seed text; the same seed always gives the same deals.")
@click.option("-n", "--count", default=1, show_default=True, type=click.IntRange(1, 1_000_000),
              help="How many deals.")
@click.option("-f", "--format", "fmt", type=click.Choice(["yaml", "json"]), default="yaml",
              show_default=True)
@click.option("-o", "--output", metavar="FILE", help="Write the deals here instead of stdout.")
@friendly_errors
def deal(seed: str, count: int, fmt: str, output: str | None) -> None:
    """Write random deals (no recorded play) in the deal-file format."""
    deals = random_deals(seed, count)
    write_output(dump_deals(deals, fmt=fmt, title=f"random deals, seed {seed!r}"), output)


for _command in (reconstruct, code, simulate, ablate, bench):  # commands in modules of their own
    main.add_command(_command)


if __name__ == "__main__":  # pragma: no cover
    main()
