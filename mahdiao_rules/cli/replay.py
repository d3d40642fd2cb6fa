"""``mahdiao replay`` and ``mahdiao explain``: deals settled under rulesets, as reports.

Both go through the whole pipeline (:func:`mahdiao_rules.pipeline.settle_deal`): a
deal's recorded tricks are replayed, a deal without them is played from the
ruleset's own first leader (random, or ``replay --policy``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import click

from ..deal import SEAT_ALIASES, Deal
from ..errors import InputError
from ..io import dealcode
from ..io.output import open_stream
from ..pipeline import settle_deal
from ..play.policies import make_policy
from ..report.contract import input_info, stamp
from ..report.render import (
    STREAMED,
    explain_doc,
    formats_for,
    load_labels,
    render_report,
    replay_report,
)
from ..report.views import net_chart
from . import common, complete
from .common import (
    STDIN,
    RunOutput,
    command_line,
    deal_file,
    format_option,
    friendly_errors,
    full_sources_option,
    load_deal_file,
    output_format,
    progress,
    report_options,
    rulesets_option,
    settings_option,
    stream_deal_file,
    svg_place,
    write_svgs,
)

REPLAY_FORMATS = formats_for("replay")
EXPLAIN_FORMATS = formats_for("explain")
REPORT_DEALS = 10_000
"""Most deals a text, md, html or latex replay holds: a document for reading (each deal is
settled when the template reaches it, but the deals themselves are kept, to be counted)."""


@click.command()
@click.argument("file", required=False)
@rulesets_option("feng")
@settings_option()
@format_option(REPLAY_FORMATS, "text")
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
@full_sources_option
@report_options
@friendly_errors
def replay(file: str | None, rulesets: tuple[str, ...], settings: tuple[str, ...], fmt: str | None,
           output: str | None, deal_ids: tuple[str, ...], policy: str, codes: tuple[str, ...],
           svg_dir: str | None, full_sources: bool, lang: str, template_dir: str | None) -> None:
    """Settle each deal of FILE (YAML, JSON or JSON Lines; - reads standard input) under each ruleset.

    Without FILE the bundled worked examples are replayed.  A deal's recorded
    tricks are authoritative; a deal without them is played at random from
    the ruleset's own first leader (seeded by the deal id).  With several
    rulesets the report puts them side by side and explains the differences.
    A deal given by ``--code`` has no recorded play either.
    """
    if codes and file is not None:
        raise InputError("give either FILE or --code, not both")
    fmt = output_format(fmt, output, REPLAY_FORMATS, "text")
    out = RunOutput(output, [file])
    svg = svg_place(svg_dir, others=[out.dest])
    if codes:
        deals: Iterable[Deal] = [dealcode.decode(c) for c in codes]
        shown, inputs = "--code", []
    else:
        deals, path, shown = stream_deal_file(file, deal_ids)
        inputs = [input_info(path, shown)]
    chosen = out.rulesets(rulesets, settings)
    policies = [make_policy(policy, rs) for rs in chosen]
    if fmt not in STREAMED:
        deals = list(itertools.islice(deals, REPORT_DEALS + 1))
        if len(deals) > REPORT_DEALS:
            raise InputError(f"a {fmt} report holds at most {REPORT_DEALS} deals; write bulk results "
                             "with --format json, jsonl, csv or ledger (they are written deal by deal)",
                             file=shown)
    count = len(deals) if isinstance(deals, list) else None
    # About 1,500 hands a second under app: a bar for runs of a few seconds, on a terminal only
    # (a count of deals where their number is not known ahead: a bulk file read as it goes).
    with progress(count or 0, "replaying", show=(count or 10**9) * len(chosen) >= 3000,
                  unknown=count is None) as update:

        def settle_row(deal: Deal) -> list[Any]:
            update(1)
            return [settle_deal(rs, deal, policy=p) for rs, p in zip(chosen, policies, strict=True)]

        report = replay_report(deals, chosen, stamp=stamp(command_line(), chosen, inputs),
                               settle_row=settle_row, input_name=shown, full_sources=full_sources)
        charts: list[tuple[str, dict[str, Any]]] = []
        if svg is not None:
            report.items = _keep_charts(report.items or (), charts, chosen)
        with open_stream(out.dest) as fh:
            render_report(report, fmt, fh, lang=lang, template_dir=template_dir)
            if svg is not None:  # before the report is in place: charts and report, all or nothing
                write_svgs(svg, charts, load_labels(template_dir, lang).chart_net)
    if file is None and not codes and common.stderr_is_terminal():
        click.echo(FIRST_RUN_HINT, err=True)


def _keep_charts(items: Iterable[dict[str, Any]], charts: list[Any], rulesets: Sequence[Any]
                 ) -> Iterator[dict[str, Any]]:
    """Pass the deals through, keeping each one's chart (a few numbers) for ``--svg-dir``, which
    writes them all or none at the end."""
    for item in items:
        charts.append((item["id"], net_chart(item["results"], rulesets)))
        yield item


FIRST_RUN_HINT = """
These are the bundled worked examples (examples/examples.yaml). To see more:
  mahdiao replay -r all                          the same deals under feng, qing and app
  mahdiao explain --deal cross-ruleset --seat east   every payment behind one net
  mahdiao deal -n 5 | mahdiao replay -           random deals, played from each ruleset's leader
  mahdiao replay my-deals.yaml -o report.html    your own deals (docs/deal-format.md)
  mahdiao reconstruct                            historical fragments; mahdiao rulesets, mahdiao --help"""
"""Printed on stderr after a replay of the bundled examples, when a person is watching."""


@click.command()
@click.argument("file", required=False)
@click.option("--deal", "deal_id", metavar="ID",
              help="The deal (required when FILE holds more than one).")
@click.option("-r", "--ruleset", "ruleset", default="feng", show_default=True, metavar="ID|PATH",
              shell_complete=complete.one_ruleset,
              help="Ruleset id or a ruleset YAML path.")
@click.option("--seat", required=True, metavar="SEAT", shell_complete=complete.seats,
              help="east, south, west or north (also e/s/w/n, 東 南 西 北).")
@settings_option()
@format_option(EXPLAIN_FORMATS, "text")
@click.option("-o", "--output", metavar="FILE", help="Write the explanation here instead of stdout.")
@report_options
@friendly_errors
def explain(file: str | None, deal_id: str | None, ruleset: str, seat: str,
            settings: tuple[str, ...], fmt: str | None, output: str | None, lang: str,
            template_dir: str | None) -> None:
    """Every ledger line behind one seat's net, grouped by rule item, with its source.

    The answer to "why was I paid this?": for deal ID of FILE (the bundled
    examples without FILE) under one ruleset, each payment to and from SEAT
    with the item, the quoted source phrase and the cards that made it fire.
    """
    fmt = output_format(fmt, output, EXPLAIN_FORMATS, "text")
    out = RunOutput(output, [file])
    deals, shown = load_deal_file(file, [deal_id] if deal_id else [])
    if len(deals) > 1:
        raise InputError(f"the file holds {len(deals)} deals; choose one with --deal "
                         f"(ids: {', '.join(d.id for d in deals)})", file=shown)
    who = SEAT_ALIASES.get(seat.strip().lower()) or SEAT_ALIASES.get(seat.strip())
    if who is None:
        raise InputError(f"--seat {seat!r}: give east, south, west or north")
    chosen = out.rulesets([ruleset], settings)
    run = stamp(command_line(), chosen, [input_info(None if file == STDIN else deal_file(file)[0], shown)])
    report = explain_doc(deals[0], settle_deal(chosen[0], deals[0]), who, stamp=run)
    with open_stream(out.dest) as fh:
        render_report(report, fmt, fh, lang=lang, template_dir=template_dir)
