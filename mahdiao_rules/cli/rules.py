"""``mahdiao rulesets`` and ``mahdiao rules table|diff``: what the rulesets say, as tables."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from .. import __version__
from ..errors import InputError
from ..io.output import open_stream
from ..io.resources import data_dir
from ..io.yamlsafe import load_file
from ..report.cite import to_bibtex, to_csl_json, to_markdown, used_sources
from ..report.contract import envelope, stamp
from ..report.render import formats_for, load_labels, render_report, rules_diff_report, rules_table_report
from ..ruleset import bundled_ids, colour_of, find_ruleset, resolve_rulesets
from ..ruleset.bibliography import bundled_sources
from ..ruleset.codegen import engine_source
from . import complete
from .common import (
    F,
    check_settings_targets,
    command_line,
    format_option,
    friendly_errors,
    output_format,
    output_place,
    parse_settings,
    report_options,
    ruleset_files,
    settings_option,
    stamp_line,
    svg_place,
    write_output,
    write_svgs,
)


@click.command("rulesets")
@format_option(["text", "json"], "text")
@friendly_errors
def list_rulesets(fmt: str | None) -> None:
    """List the bundled rulesets (in reading order) with their names and item counts."""
    _echo_rulesets(fmt or "text")


def rulesets_data(rows: list[Any]) -> dict[str, Any]:
    """The bundled rulesets as data (``rulesets --format json``)."""
    return envelope("rulesets", stamp(command_line(), rows), rulesets=[{
        "id": r.id, "name": r.name, "name_en": r.name_en, "description": r.description,
        "order": r.order, "colour": colour_of(r), "extends": list(r.extends), "hash": r.content_hash,
        "zhu_per_diao": r.zhu_per_diao, "items": r.item_count,
        "gong_he_items": sum(1 for i in r.items.values() if i.channel == "gong_he"),
        "options": {name: {"default": o.default, "choices": list(o.choices)}
                    for name, o in r.options.items()},
    } for r in rows])


def _echo_rulesets(fmt: str = "text") -> None:
    rows = [find_ruleset(i) for i in bundled_ids()]
    model = rulesets_data(rows)
    if fmt == "json":
        click.echo(json.dumps(model, ensure_ascii=False, indent=2))
        return
    width = max(len(r.id) for r in rows)
    for r in rows:
        extra = f" ({r.name_en})" if r.name_en else ""
        he = [i for i in r.items.values() if i.channel == "gong_he"]
        concepts = len({i.concept for i in he})
        click.echo(f"{r.id.ljust(width)}  {r.item_count:3d} items ({len(he):3d} 公賀 in {concepts:3d} "
                   f"concepts)  {len(r.options):2d} options  {r.name}{extra}")
    click.echo(stamp_line(model["stamp"]))


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
            settings_option("Use another reading of an option. Repeatable."),
            format_option(formats_for(kind), "md"),
            click.option("-o", "--output", metavar="FILE", help="Write the table here instead of stdout."),
            report_options,
        ]):
            fn = option(fn)
        return fn
    return wrap


@rules.command("table")
@click.argument("ruleset", metavar="RULESET", shell_complete=complete.one_ruleset)
@_rules_options("rules-table")
@friendly_errors
def rules_table_cmd(ruleset: str, settings: tuple[str, ...], fmt: str | None, output: str | None,
                    lang: str, template_dir: str | None) -> None:
    """Every item of RULESET: name, pinyin id, gloss, condition (generated from the YAML),
    注, channel and a footnoted source."""
    fmt = output_format(fmt, output, formats_for("rules-table"), "md")
    chosen = resolve_rulesets([ruleset], parse_settings(settings))
    check_settings_targets(settings, chosen)
    dest = output_place(output, inputs=ruleset_files(chosen))
    report = rules_table_report(chosen[0], stamp=stamp(command_line(), chosen), lang=lang)
    with open_stream(dest) as out:
        render_report(report, fmt, out, lang=lang,
                      template_dir=template_dir)


@rules.command("diff")
@click.argument("rulesets", nargs=-1, required=True, metavar="A B [C …]", shell_complete=complete.one_ruleset)
@click.option("--svg-dir", metavar="DIR", help="Also write the chart as DIR/rules-diff.svg.")
@_rules_options("rules-diff")
@friendly_errors
def rules_diff_cmd(rulesets: tuple[str, ...], svg_dir: str | None, settings: tuple[str, ...],
                   fmt: str | None, output: str | None, lang: str, template_dir: str | None) -> None:
    """One row per concept, one column per ruleset (value, or — where absent), with the
    options and their values in use."""
    fmt = output_format(fmt, output, formats_for("rules-diff"), "md")
    chosen = resolve_rulesets(rulesets, parse_settings(settings))
    check_settings_targets(settings, chosen)
    if len(chosen) < 2:
        raise InputError("rules diff compares two rulesets or more")
    dest = output_place(output, inputs=ruleset_files(chosen))
    svg = svg_place(svg_dir, others=[dest])
    report = rules_diff_report(chosen, stamp=stamp(command_line(), chosen), lang=lang)
    with open_stream(dest) as out:
        render_report(report, fmt, out, lang=lang,
                      template_dir=template_dir)
        if svg is not None:
            write_svgs(svg, [("rules-diff", report.view(report.model)["chart"])],  # type: ignore[misc]
                       load_labels(template_dir, lang).chart_diff)


SOURCE_FORMATS = {"bibtex": to_bibtex, "csl-json": to_csl_json, "md": to_markdown}


@rules.command("sources")
@click.argument("rulesets", nargs=-1, metavar="[RULESET …]", shell_complete=complete.one_ruleset)
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


@rules.command("show")
@click.argument("ruleset", metavar="RULESET", shell_complete=complete.one_ruleset)
@click.option("-o", "--output", metavar="FILE", help="Write the YAML here instead of stdout.")
@click.option("--copy-to", "folder", metavar="DIR",
              help="Write the file and every fragment it includes into DIR, ready to edit.")
@friendly_errors
def rules_show(ruleset: str, output: str | None, folder: str | None) -> None:
    """Print the bundled YAML of RULESET (an id, or one of its fragments such as
    app/kai_zhu.yaml) to copy and change.

    \b
    A new ruleset can also start from `extends: RULESET` and say only what
    differs (docs/ruleset-language.md).  The header names the fragment files
    the ruleset includes and how to get them; --copy-to DIR writes the file and
    its fragments together so that the includes still resolve.
    """
    root = data_dir("rulesets").resolve()
    path, shown = _bundled_file(root, ruleset)
    includes = load_file(path, display_name=shown).data.get("include", [])
    files = [path, *(path.parent / name for name in includes)]
    if folder is not None:
        target = Path(folder)
        for f in files:
            dest = target / f.relative_to(path.parent)
            if dest.exists():
                raise InputError("will not overwrite an existing file", file=str(dest))
        for f in files:
            dest = target / f.relative_to(path.parent)
            try:
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, dest)
            except OSError as exc:
                raise InputError(f"cannot write: {exc.strerror or exc}", file=str(dest)) from None
            click.echo(f"wrote {dest}")
        return
    dest = output_place(output, inputs=files)
    write_output(_show_header(path, shown, files[1:]) + path.read_text(encoding="utf-8"), dest)


def _bundled_file(root: Path, name: str) -> tuple[Path, str]:
    """The bundled ruleset ``<id>.yaml`` or fragment file a user names (never outside rulesets/)."""
    rel = name if name.endswith((".yaml", ".yml")) else f"{name}.yaml"
    path = (root / rel).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        raise InputError(f"no bundled ruleset or fragment {name!r}; bundled rulesets: "
                         f"{', '.join(bundled_ids())} (fragments: "
                         f"{', '.join(sorted(str(p.relative_to(root)) for p in root.glob('*/*.yaml')))})")
    return path, f"rulesets/{path.relative_to(root)}"


def _show_header(path: Path, shown: str, fragments: list[Path]) -> str:
    lines = [f"# {shown}, as bundled with mahdiao-rules {__version__}."]
    data = load_file(path, display_name=shown).data
    rs_id = data.get("id")
    if rs_id and not fragments:
        lines += [f"# To write your own: save it (mahdiao rules show {rs_id} > my.yaml), give it a new",
                  "# id and name, and run it with -r my.yaml; or start a file with",
                  f"# `extends: {rs_id}` and write only what differs (docs/ruleset-language.md)."]
    elif rs_id:
        lines += [f"# To write your own: mahdiao rules show {rs_id} --copy-to DIR writes this file and",
                  "# the fragments it includes; give it a new id and name and run it with",
                  f"# -r DIR/{path.name}.  Or start a file with `extends: {rs_id}` and write only",
                  "# what differs (docs/ruleset-language.md).",
                  "# This file includes, relative to itself:"]
        lines += [f"#   {f.relative_to(path.parent)}  (mahdiao rules show {f.relative_to(path.parent)})"
                  for f in fragments]
    if data.get("extends"):
        lines.append(f"# It extends {data['extends']}: mahdiao rules show {data['extends']} prints the base.")
    return "\n".join(lines) + "\n#\n"


@rules.command("engine", hidden=True)
@click.argument("ruleset", metavar="RULESET")
@settings_option("Use another reading of an option. Repeatable.")
@click.option("-o", "--output", metavar="FILE", help="Write the source here instead of stdout.")
@friendly_errors
def rules_engine_cmd(ruleset: str, settings: tuple[str, ...], output: str | None) -> None:
    """The Python source generated for RULESET's settlement engine, for reading (docs/engine.md);
    MAHDIAO_ENGINE_DUMP=DIR writes every engine the tool makes to DIR."""
    chosen = resolve_rulesets([ruleset], parse_settings(settings))
    check_settings_targets(settings, chosen)
    write_output(engine_source(chosen[0]), output_place(output))
