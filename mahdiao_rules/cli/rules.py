"""``mahdiao rulesets`` and ``mahdiao rules table|diff``: what the rulesets say, as tables."""

from __future__ import annotations

from collections.abc import Callable

import click

from ..errors import InputError
from ..report.cite import to_bibtex, to_csl_json, to_markdown, used_sources
from ..report.render import RENDERERS, formats_for, load_labels
from ..report.ruletable import rules_diff, rules_table
from ..ruleset import bundled_ids, find_ruleset, resolve_rulesets
from ..ruleset.bibliography import bundled_sources
from .common import (
    F,
    check_settings_targets,
    command_line,
    friendly_errors,
    output_place,
    parse_settings,
    report_options,
    ruleset_files,
    svg_place,
    write_output,
    write_svgs,
)


@click.command("rulesets")
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


@click.group(invoke_without_command=True)
@click.pass_context
@friendly_errors
def rules(ctx: click.Context) -> None:
    """Rule tables for articles: `rules table RULESET`, `rules diff A B …`, `rules sources`.

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
    check_settings_targets(settings, chosen)
    dest = output_place(output, inputs=ruleset_files(chosen))
    model = rules_table(chosen[0], command=command_line())
    write_output(RENDERERS[fmt](model, kind="rules-table", lang=lang, template_dir=template_dir),
                 dest)


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
    check_settings_targets(settings, chosen)
    if len(chosen) < 2:
        raise InputError("rules diff compares two rulesets or more")
    dest = output_place(output, inputs=ruleset_files(chosen))
    svg = svg_place(svg_dir, others=[dest])
    model = rules_diff(chosen, command=command_line())
    text = RENDERERS[fmt](model, kind="rules-diff", lang=lang, template_dir=template_dir)
    if svg is not None:
        write_svgs(svg, [("rules-diff", model["chart"])], load_labels(template_dir, lang).chart_diff)
    write_output(text, dest)


SOURCE_FORMATS = {"bibtex": to_bibtex, "csl-json": to_csl_json, "md": to_markdown}


@rules.command("sources")
@click.argument("rulesets", nargs=-1, metavar="[RULESET …]")
@click.option("-f", "--format", "fmt", type=click.Choice(list(SOURCE_FORMATS)), default="bibtex",
              show_default=True, help="bibtex (biblatex entries), csl-json (Zotero, pandoc) or md.")
@click.option("-o", "--output", metavar="FILE", help="Write the bibliography here instead of stdout.")
@friendly_errors
def rules_sources_cmd(rulesets: tuple[str, ...], fmt: str, output: str | None) -> None:
    """The project's bibliography, for a paper's reference list: every source the bundled
    rulesets cite (or only those RULESETs cite, with their own added sources).  The keys are
    the ones `rules table --format latex` cites."""
    if rulesets:
        sources = used_sources(resolve_rulesets(rulesets))
    else:
        sources = dict(bundled_sources())
    write_output(SOURCE_FORMATS[fmt](sources), output_place(output))
