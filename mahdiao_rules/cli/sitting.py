"""``mahdiao sitting``: a sitting (hands in order) replayed under each ruleset, side by side."""

from __future__ import annotations

import click

from ..io.resources import data_dir
from ..io.sittingfile import Sitting, load_sitting, parse_sitting
from ..play.policies import make_policy
from ..report.render import RENDERERS, load_labels
from ..report.sitting import build_sitting_report
from ..report.svg import line_chart
from ..ruleset import resolve_rulesets
from ..sitting import play_sitting
from . import complete
from .common import (
    STDIN,
    check_settings_targets,
    command_line,
    format_option,
    friendly_errors,
    output_format,
    output_place,
    parse_settings,
    read_document,
    report_options,
    ruleset_files,
    svg_place,
    write_output,
    write_svgs,
)

SITTING_FORMATS = sorted(RENDERERS)


def load_sitting_file(file: str | None) -> tuple[Sitting, str]:
    """The sitting of FILE (the bundled example without one; ``-``: standard input)."""
    if file is None:
        return (load_sitting(str(data_dir("examples") / "sitting.yaml"),
                             display_name="examples/sitting.yaml"), "examples/sitting.yaml")
    if file == STDIN:
        record = parse_sitting(read_document(file))
        return record, record.file
    return load_sitting(file), file


@click.command()
@click.argument("file", required=False)
@click.option("-r", "--ruleset", "rulesets", multiple=True, metavar="ID|PATH",
              shell_complete=complete.ruleset_ids,
              help="Ruleset id (see `mahdiao rulesets`), 'all', or a ruleset YAML path. "
                   "Repeatable. Default: feng.")
@click.option("--set", "settings", multiple=True, metavar="RULESET.OPTION=VALUE",
              shell_complete=complete.settings,
              help="Override a ruleset option for this run. Repeatable.")
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
@report_options
@friendly_errors
def sitting(file: str | None, rulesets: tuple[str, ...], settings: tuple[str, ...], fmt: str | None,
            output: str | None, trust_record: bool, policy: str, svg_dir: str | None, lang: str,
            template_dir: str | None) -> None:
    """Replay the hands of a sitting FILE (YAML or JSON; - reads standard input) in order
    under each ruleset.

    \b
    Each ruleset follows its own procedure between hands: the seats, the first
    椿, the next 椿 after each hand (輪椿, 留椿, 奪椿, 另拈椿, the app's top
    earner), the 官堆 carried over, the stake cap.  The same deals are dealt to
    the same seats under every ruleset, so where the bank sequences differ the
    same cards are settled with another 椿.  Without FILE the bundled example
    sitting is replayed.  A recorded 椿 that contradicts the procedure is an
    error unless --trust-record.  The format is docs/sitting-format.md.
    """
    fmt = output_format(fmt, output, SITTING_FORMATS, "text")
    inputs = [file] if file not in (None, STDIN) else []
    dest = output_place(output, inputs=inputs)
    svg = svg_place(svg_dir, others=[dest])
    record, shown = load_sitting_file(file)
    chosen = resolve_rulesets(rulesets or ("feng",), parse_settings(settings))
    check_settings_targets(settings, chosen)
    dest = output_place(output, inputs=[*inputs, *ruleset_files(chosen)])
    results = [play_sitting(rs, record, trust_record=trust_record, policy=make_policy(policy, rs))
               for rs in chosen]
    report = build_sitting_report(record, results, command=command_line(), input_name=shown,
                                  trust_record=trust_record)
    text = RENDERERS[fmt](report, kind="sitting", lang=lang, template_dir=template_dir)
    if svg is not None:
        title = load_labels(template_dir, lang).chart_running
        write_svgs(svg, [(r["ruleset"], r["chart"]) for r in report["results"]], title,
                   draw=line_chart)
    write_output(text, dest)
