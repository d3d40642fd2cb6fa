"""``mahdiao validate`` and ``mahdiao deal``: check deal and ruleset files, write random deals."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..errors import InputError
from ..io.dealfile import dump_deals, load_deals, random_deals
from ..io.yamlsafe import load_file
from ..play.procedure import as_first_hand
from ..ruleset import compile_document, find_ruleset
from .common import (
    EXIT_INPUT,
    friendly_errors,
    output_place,
    parse_settings,
    write_output,
)


@click.command()
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


@click.command()
@click.option("--seed", default="0", show_default=True,
              help="Seed text; the same seed always gives the same deals.")
@click.option("-n", "--count", default=1, show_default=True, type=click.IntRange(1, 1_000_000),
              help="How many deals.")
@click.option("-f", "--format", "fmt", type=click.Choice(["yaml", "json"]), default="yaml",
              show_default=True)
@click.option("-o", "--output", metavar="FILE", help="Write the deals here instead of stdout.")
@click.option("-r", "--ruleset", metavar="ID|PATH",
              help="Choose each deal's banker by this ruleset's first-banker procedure "
                   "(procedure.first_banker; default: drawn, every seat alike).")
@click.option("--set", "settings", multiple=True, metavar="RULESET.OPTION=VALUE",
              help="An option reading of the -r ruleset (e.g. app.first_banker=face). Repeatable.")
@friendly_errors
def deal(seed: str, count: int, fmt: str, output: str | None, ruleset: str | None,
         settings: tuple[str, ...]) -> None:
    """Write random deals (no recorded play) in the deal-file format.

    Each deal's banker is drawn (every seat alike) unless ``-r`` names a ruleset whose
    first-banker procedure picks it otherwise (the app's ``first_banker=face``: the seat
    the face card's number gives), as for the first hand of a sitting.
    """
    parsed = parse_settings(settings)
    if parsed and ruleset is None:
        raise InputError("--set needs -r RULESET (the ruleset whose options it sets)")
    rs = None
    if ruleset is not None:
        rs = find_ruleset(ruleset)
        extra = set(parsed) - {rs.id}
        if extra:
            raise InputError(f"--set names ruleset {sorted(extra)[0]!r}; this run uses {rs.id!r}")
        rs = find_ruleset(ruleset, parsed.get(rs.id) or None)
    dest = output_place(output)
    deals = random_deals(seed, count)
    if rs is not None:
        deals = [as_first_hand(rs, d) for d in deals]
    write_output(dump_deals(deals, fmt=fmt, title=f"random deals, seed {seed!r}"), dest)
