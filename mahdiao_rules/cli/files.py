"""``mahdiao validate`` and ``mahdiao deal``: check deal, sitting and ruleset files, write random deals."""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

import click

from ..errors import InputError
from ..io.dealfile import SMALL_FILE, DealWriter, deals_format, iter_deals, iter_random_deals, parse_deals
from ..io.jsonstream import jsonl_kind
from ..io.output import open_stream
from ..io.sittingfile import load_json_lines, looks_like_sitting, parse_sitting
from ..io.textcheck import printable
from ..io.yamlsafe import Document, load_file
from ..pipeline import settle_deal
from ..play.policies import make_policy
from ..play.procedure import as_first_hand
from ..report.contract import envelope, input_info, stamp
from ..ruleset import compile_document, find_ruleset, resolve_rulesets
from . import complete
from .common import (
    EXIT_INPUT,
    STDIN,
    STDIN_NAME,
    check_seed,
    command_line,
    format_option,
    friendly_errors,
    output_format,
    output_place,
    parse_settings,
    progress,
    read_input,
    settings_option,
    stamp_line,
)


@click.command()
@click.argument("files", nargs=-1, required=True)
@click.option("-r", "--ruleset", "rulesets", multiple=True, metavar="ID|PATH",
              help="Also settle every deal under this ruleset, as `mahdiao replay -r` does "
                   "('all' for every bundled one). Repeatable. Default: feng, as replay.")
@format_option(["text", "json"], "text", "Result format")
@friendly_errors
def validate(files: tuple[str, ...], rulesets: tuple[str, ...], fmt: str | None) -> None:
    """Check deal (YAML, JSON, JSON Lines), sitting and ruleset files (- reads standard
    input); one line per file, then the stamp as a # line.

    A deal file or ruleset is valid when `mahdiao replay` would accept it: each deal of a
    deal file is played and settled under the rulesets of -r (default feng); a ruleset is
    compiled with its defaults and with each other reading of each option.  Exit code 0
    when every file is valid, 2 when any is not.  A deal file of any size is read deal by
    deal.  With --format json the lines are one JSON document on stdout (errors included,
    with file and line).
    """
    results = []
    chosen = None
    for name in files:
        try:
            stdin_deals = None
            if name == STDIN:
                read = read_input(name)
                doc, stdin_deals = (read, None) if isinstance(read, Document) else (None, read)
            elif name.lower().endswith(".jsonl") and not _jsonl_deals(name):
                # A sitting in JSON Lines (the sitting, then one hand a line).
                doc = load_json_lines(name, name)
            else:
                doc = None if _bulk_deals(name) else load_file(name)
            shown = doc.file if doc is not None else STDIN_NAME if name == STDIN else printable(name)
            if doc is not None and _looks_like_ruleset(doc.data):
                rs = compile_every_reading(doc)
                results.append({"file": shown, "ok": True, "kind": "ruleset", "id": rs.id,
                                "items": rs.item_count})
                line = f"{shown}: ok (ruleset {rs.id}, {rs.item_count} items)"
            elif doc is not None and looks_like_sitting(doc.data):
                n = len(parse_sitting(doc).hands)
                results.append({"file": shown, "ok": True, "kind": "sitting", "hands": n})
                line = f"{shown}: ok (sitting of {n} hand{'s' if n != 1 else ''})"
            else:
                deals = (parse_deals(doc) if doc is not None else
                         stdin_deals if stdin_deals is not None else iter_deals(name))
                chosen = chosen or resolve_rulesets(rulesets or ("feng",))
                n = 0
                for deal in deals:
                    for rs in chosen:
                        settle_deal(rs, deal, policy=make_policy("random", rs))
                    n += 1
                results.append({"file": shown, "ok": True, "kind": "deals", "deals": n})
                line = f"{shown}: ok ({n} deal{'s' if n != 1 else ''})"
            if fmt != "json":
                click.echo(printable(line))
        except InputError as e:
            results.append({"file": e.file or name, "ok": False, "line": e.line, "place": e.place,
                            "error": str(e)})
            if fmt != "json":
                click.echo(f"mahdiao: error: {printable(str(e))}", err=True)
    run = stamp(command_line(), chosen or [],
                [input_info(None if name == STDIN else name, name) for name in files])
    ok = all(r["ok"] for r in results)
    if fmt == "json":
        click.echo(json.dumps(envelope("validate", run, files=results, ok=ok), ensure_ascii=False, indent=2))
    elif any(r["ok"] for r in results):  # when every file is bad, stdout stays empty: errors only
        click.echo(stamp_line(run))
    if not ok:
        sys.exit(EXIT_INPUT)


def compile_every_reading(doc: Any) -> Any:
    """Compile the ruleset with its defaults, then with each other reading of each option in
    turn: ``replay --set RULESET.OPTION=VALUE`` must not find a mistake that validate missed
    (a case that is compiled only when its reading is chosen)."""
    rs = compile_document(doc)
    for option in rs.options.values():
        for choice in option.choices:
            if choice != option.default:
                compile_document(doc, overrides={option.name: choice})
    return rs



_DEAL_KEYS = re.compile(r'(?m)^(?:deals|hands)\s*:|"(?:deals|hands)"\s*:')


def _jsonl_deals(name: str) -> bool:
    """Whether a ``.jsonl`` file holds deals, not a sitting (:func:`~..io.jsonstream.jsonl_kind`
    of its first line that is not blank)."""
    try:
        with open(name, "rb") as fh:
            for raw in fh:
                if raw.strip():
                    return jsonl_kind(raw) != "sitting"
    except OSError:
        return True  # the deal reader words the error
    return True


def _bulk_deals(name: str) -> bool:
    """A file read deal by deal: JSON Lines, or a big file that looks like deals (not a ruleset)."""
    if deals_format(name) == "jsonl":
        return True
    try:
        if not os.path.isfile(name) or os.path.getsize(name) <= SMALL_FILE:
            return False
        with open(name, "rb") as fh:
            head = fh.read(SMALL_FILE).decode("utf-8", "replace")
    except OSError:
        return False
    return bool(_DEAL_KEYS.search(head))


DEAL_FORMATS = ["yaml", "json", "jsonl"]

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
@click.option("-n", "--count", default=1, show_default=True, type=click.IntRange(1, 100_000_000),
              help="How many deals.")
@format_option(DEAL_FORMATS, "yaml", "Deal file format (jsonl: one deal per line, for many deals)")
@click.option("-o", "--output", metavar="FILE", help="Write the deals here instead of stdout.")
@click.option("-r", "--ruleset", metavar="ID|PATH", shell_complete=complete.one_ruleset,
              help="Choose each deal's banker by this ruleset's first-banker procedure "
                   "(procedure.first_banker; default: drawn, every seat alike).")
@settings_option("An option reading of the -r ruleset (e.g. app.first_banker=face). Repeatable.")
@friendly_errors
def deal(seed: str, count: int, fmt: str | None, output: str | None, ruleset: str | None,
         settings: tuple[str, ...]) -> None:
    """Write random deals (no recorded play) in the deal-file format.

    Each deal's banker is drawn (every seat alike) unless ``-r`` names a ruleset whose
    first-banker procedure picks it otherwise (the app's ``first_banker=face``: the seat
    the face card's number gives), as for the first hand of a sitting.  The deals are
    written as they are made, so any number of them takes the same memory.
    """
    check_seed(seed)
    fmt = output_format(fmt, output, DEAL_FORMATS, "yaml")
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
    run = stamp(command_line(), [rs] if rs is not None else [], seed=seed)
    deals = iter_random_deals(seed, count)
    if rs is not None:
        deals = (as_first_hand(rs, d) for d in deals)
    # Dealing and writing 20,000 deals takes seconds: a progress bar on a terminal.
    with progress(count, "dealing", show=count >= 2000) as update, open_stream(dest) as fh:
        writer = DealWriter(fh, fmt, title=f"random deals, seed {seed!r}", stamp=run)
        writer.write(deals, progress=update)
        writer.close()
