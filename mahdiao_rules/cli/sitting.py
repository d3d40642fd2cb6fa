"""``mahdiao sitting``: a sitting (hands in order) replayed under each ruleset, side by side."""

from __future__ import annotations

from typing import Any

import click

from ..io.output import open_stream
from ..io.resources import example
from ..io.sittingfile import Sitting, load_sitting, parse_sitting
from ..play.policies import make_policy
from ..report.contract import input_info, stamp
from ..report.render import formats_for, load_labels, render_report, sitting_report
from ..report.sittingview import RunningCharts
from ..report.svg import line_chart
from ..sitting import SittingPlay
from .common import (
    STDIN,
    RunOutput,
    command_line,
    format_option,
    friendly_errors,
    full_sources_option,
    output_format,
    read_document,
    report_options,
    rulesets_option,
    settings_option,
    svg_place,
    write_svgs,
)

SITTING_FORMATS = formats_for("sitting")


def load_sitting_file(file: str | None) -> tuple[Sitting, str, str | None]:
    """The sitting of FILE (the bundled example without one; ``-``: standard input, YAML, JSON
    or JSON Lines), the name messages show, and the file to hash for the stamp."""
    if file is None:
        path, shown = example("sitting.yaml")
        return load_sitting(path, display_name=shown), shown, str(path)
    if file == STDIN:
        record = parse_sitting(read_document(file))
        return record, record.file, None
    return load_sitting(file), file, file


@click.command()
@click.argument("file", required=False)
@rulesets_option("feng")
@settings_option()
@format_option(SITTING_FORMATS, "text")
@click.option("-o", "--output", metavar="FILE", help="Write the report here instead of stdout.")
@click.option("--trust-record", is_flag=True,
              help="Where a recorded 椿 contradicts the ruleset's procedure, follow the record "
                   "(and note it) instead of stopping with an error.")
@click.option("--policy", type=click.Choice(["random", "heuristic"]), default="random",
              show_default=True,
              help="How a hand without recorded tricks is played (seeded by the sitting's seed "
                   "and the hand id).")
@click.option("--svg-dir", metavar="DIR",
              help="Also write each ruleset's chart of running totals as DIR/<ruleset>.svg.")
@full_sources_option
@report_options
@friendly_errors
def sitting(file: str | None, rulesets: tuple[str, ...], settings: tuple[str, ...], fmt: str | None,
            output: str | None, trust_record: bool, policy: str, svg_dir: str | None,
            full_sources: bool, lang: str, template_dir: str | None) -> None:
    """Replay the hands of a sitting FILE (YAML, JSON or JSON Lines; - reads standard input)
    in order under each ruleset.

    \b
    Each ruleset follows its own procedure between hands: the seats, the first
    椿, the next 椿 after each hand (輪椿, 留椿, 奪椿, 另拈椿, the app's top
    earner), the 官堆 carried over, the stake cap.  The same deals are dealt to
    the same seats under every ruleset, so where the bank sequences differ the
    same cards are settled with another 椿.  Without FILE the bundled example
    sitting is replayed.  A recorded 椿 that contradicts the procedure is an
    error unless --trust-record.  The format is docs/sitting-format.md; json,
    csv and ledger (one row per payment) are written hand by hand.
    """
    fmt = output_format(fmt, output, SITTING_FORMATS, "text")
    out = RunOutput(output, [file])
    svg = svg_place(svg_dir, others=[out.dest])
    record, shown, path = load_sitting_file(file)
    chosen = out.rulesets(rulesets, settings)

    def play(rs: Any) -> SittingPlay:
        return SittingPlay(rs, record, trust_record=trust_record, policy=make_policy(policy, rs))

    run = stamp(command_line(), chosen, [input_info(path, shown)], seed=record.seed)
    report = sitting_report(record, chosen, stamp=run, play=play, input_name=shown,
                            full_sources=full_sources, trust_record=trust_record)
    charts = RunningCharts([rs.id for rs in chosen])
    report.items = charts.passing(report.items or ())
    with open_stream(out.dest) as fh:
        render_report(report, fmt, fh, lang=lang, template_dir=template_dir)
        if svg is not None:  # before the report is in place: charts and report, all or nothing
            write_svgs(svg, charts.charts(), load_labels(template_dir, lang).chart_running, draw=line_chart)
