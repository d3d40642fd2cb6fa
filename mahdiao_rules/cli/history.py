"""``mahdiao reconstruct`` and ``mahdiao code``: partial historical deals and citable deal codes.

Standalone click commands; the main group (``cli/__init__.py``) registers them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import click

from ..cards import CARD_HANZI, cards_of
from ..deal import SEAT_ALIASES, SEATS, Seat
from ..errors import InputError
from ..history.partial import parse_partials
from ..history.reconstruct import METHODS, Reconstruction, RulesetSummary, percent
from ..history.reconstruct import reconstruct as run_reconstruct
from ..io.dealcode import decode, encode
from ..io.dealfile import DealWriter, deals_format, dump_deals
from ..io.output import open_stream, open_text
from ..io.resources import example
from ..io.textcheck import printable
from ..io.yamlsafe import load_file
from ..report.contract import envelope, input_info, stamp
from ..report.render import RENDERERS, Report, formats_for, render_report
from ..settle.hand import MIAN_DOU
from ..units import TICKS_PER_ZHU, format_zhu, json_number
from .common import (
    STDIN,
    STDIN_NAME,
    RunOutput,
    check_seed,
    command_line,
    format_option,
    friendly_errors,
    output_format,
    output_place,
    pick_by_id,
    progress,
    read_document,
    rulesets_option,
    settings_option,
    stamp_block,
    stamp_line,
    stream_deal_file,
    write_output,
)

__all__ = ["code", "reconstruct", "render_text", "to_data"]

HISTORICAL = "historical.yaml"
RECONSTRUCT_FORMATS = ["text", *(f for f in formats_for("reconstruct") if f != "text")]


@click.command("reconstruct")
@click.argument("file", required=False)
@rulesets_option("feng")
@settings_option()
@click.option("--deal", "deal_ids", multiple=True, metavar="ID",
              help="Only these partial deals of the file. Repeatable.")
@click.option("--samples", default=1000, show_default=True, type=click.IntRange(1, 1_000_000),
              help="Completions to settle; when there are no more than this, all are listed. "
                   "(Not -n: -n is a count of deals in every command.)")
@click.option("--seed", default="0", show_default=True, help="Seed text for the uniform draws.")
@click.option("--reading", metavar="ID", help="Only this reading of an either/or (default: all together).")
@click.option("--banker", metavar="SEAT", help="Choose the banker (椿) among the deal's banker_choices.")
@click.option("--method", type=click.Choice(METHODS), default="auto", show_default=True,
              help="auto: exact counting when feasible, else rejection sampling.")
@format_option(RECONSTRUCT_FORMATS, "text")
@click.option("-o", "--output", metavar="FILE", help="Write the report here instead of stdout.")
@click.option("--completions", "completions_file", metavar="FILE",
              help="Also write the completions considered as a deal file (mahdiao replay reads it).")
@friendly_errors
def reconstruct(file: str | None, rulesets: tuple[str, ...], settings: tuple[str, ...],
                deal_ids: tuple[str, ...],
                samples: int, seed: str, reading: str | None, banker: str | None, method: str, fmt: str,
                output: str | None, completions_file: str | None) -> None:
    """Complete the partial deals of FILE every way the facts allow and compare rulesets on them.

    \b
    For each partial deal (default file: the bundled historical fixtures):
    counts the complete deals consistent with it (exactly when feasible),
    lists them when there are at most --samples, else draws --samples of them
    uniformly at random, settles each under every ruleset, and reports per
    ruleset and seat what is certain, the range and the distribution of nets.
    """
    check_seed(seed)
    fmt = output_format(fmt, output, RECONSTRUCT_FORMATS, "text")
    if file is None:
        path, shown = example(HISTORICAL)
    else:
        path, shown = Path(file), (STDIN_NAME if file == STDIN else printable(file))
    out = RunOutput(output, [] if file == STDIN else [path])
    completions_dest = (None if completions_file is None else
                        output_place(completions_file, inputs=out.inputs, others=[out.dest]))
    doc = read_document(STDIN) if file == STDIN else load_file(path, display_name=shown)
    partials = pick_by_id(parse_partials(doc), deal_ids, "partial deal", shown)
    seat = None
    if banker is not None:
        found = SEAT_ALIASES.get(banker)
        if found is None:
            raise InputError(f"--banker {banker!r}: use east, south, west or north")
        seat = int(found)
    chosen = out.rulesets(rulesets, settings)
    if completions_file is not None:
        completions_dest = output_place(completions_file, inputs=out.inputs, others=[out.dest])
    results = []
    with progress(2 * samples * len(partials), "reconstructing") as update:
        for p in partials:
            done = [0]

            def step(n: int, done: list[int] = done) -> None:
                done[0] += n
                update(n)
            results.append(run_reconstruct(p, chosen, samples=samples, seed=seed, reading=reading,
                                           banker=seat, method=method,
                                           keep_deals=completions_file is not None, progress=step))
            update(max(0, 2 * samples - done[0]))  # a small space lists fewer completions
    run = stamp(command_line(), chosen, [input_info(None if file == STDIN else path, shown)], seed=seed)
    if fmt == "text":
        text = "\n\n".join(render_text(r) for r in results) + "\n" + stamp_block(run)
    else:
        model = envelope("reconstruct", run, input=shown, rulesets=[rs.id for rs in chosen],
                         partial_deals=[to_data(r) for r in results])
        # json, or md, html, latex, csv: templates/reconstruct.<ext>.j2
        text = (json.dumps(model, ensure_ascii=False, indent=2) + "\n" if fmt == "json" else
                RENDERERS[fmt](model, kind="reconstruct"))
    if completions_dest is not None:
        with open_text(completions_dest) as fh:
            writer = DealWriter(fh, deals_format(completions_dest.name),
                                title=f"completions of {shown} (seed {seed!r})", stamp=run)
            writer.write(d for r in results for d in r.completions)
            writer.close()
    write_output(text, out.dest)


@click.command("code")
@click.argument("file", required=False)
@click.option("--deal", "deal_ids", multiple=True, metavar="ID", help="Only these deal ids. Repeatable.")
@click.option("--decode", "codes", multiple=True, metavar="CODE",
              help="Print the deal of a code (in the deal-file format) instead. Repeatable.")
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json", "yaml", "jsonl"]), default=None,
              help="Codes: text (default) or json; decoded deals: yaml (default), json or jsonl.")
@friendly_errors
def code(file: str | None, deal_ids: tuple[str, ...], codes: tuple[str, ...], fmt: str | None) -> None:
    """Print the canonical code of each deal of FILE, or decode codes given with --decode.

    A deal code (20 characters: the version 2, the banker's letter, 17 base64url
    digits and a check digit; older 18-character codes are still read)
    names the hands, the stock in order and the banker; the recorded play is
    not part of it.
    """
    if codes:
        if file is not None:
            raise InputError("give either FILE (to print codes) or --decode CODE, not both")
        if fmt == "text":
            raise InputError("--format text is for listing codes; decoded deals are yaml, json or jsonl")
        decoded = [decode(c) for c in codes]
        write_output(dump_deals(decoded, fmt=fmt or "yaml", stamp=stamp(command_line())), None)
        return
    if file is None:
        raise InputError("give a deal file (to print its codes) or --decode CODE")
    if fmt in ("yaml", "jsonl"):
        raise InputError(f"--format {fmt} is for --decode; codes are listed as text or json")
    deals, path, shown = stream_deal_file(file, deal_ids)
    run = stamp(command_line(), inputs=[input_info(path, shown)])
    with open_stream(output_place(None)) as out:
        if fmt == "json":  # the envelope, then a code a line as the deals are read
            items = ({"id": d.id, "code": encode(d)} for d in deals)
            render_report(Report("codes", envelope("codes", run, input=shown), items_key="codes",
                                 items=items), "json", out)
            return
        for d in deals:
            out.write(f"{d.id}  {encode(d)}\n")
        out.write(stamp_line(run) + "\n")


# --------------------------------------------------------------------------- reports


def _zhu(t: int) -> str:
    return format_zhu(t, signed=True) if t else "0"


def _seat_label(r: Reconstruction, s: int) -> str:
    name = r.partial.player(s)
    return f"{Seat(s).id}" + (f" {name}" if name else "")


def to_data(r: Reconstruction) -> dict[str, Any]:
    """The reconstruction as plain data (``--format json``); amounts in 注."""
    p = r.partial
    out: dict[str, Any] = {
        "id": p.id, "title": p.title, "source": p.source,
        "players": dict(p.players),
        "bankers": [Seat(b).id for b in r.bankers],
        "banker_choices": dict(p.banker_choices),
        "readings": ({str(k): v for k, v in r.reading_counts.items()} if r.readings != [None] else {}),
        "completions": {
            "count": r.count,
            "exact": r.count is not None,
            "estimate": r.estimate, "interval_95": list(r.interval) if r.interval else None,
            "counting": r.counting,
        },
        "method": r.method, "considered": r.considered, "exhaustive": r.exhaustive,
        "proposals": r.proposals, "accepted": r.accepted, "seed": r.seed,
        "notes": r.notes,
        "seats": {Seat(s).id: {
            "player": p.player(s),
            "tricks": {str(k): v for k, v in sorted(r.tricks[s].items())},
            "always_held": [CARD_HANZI[c] for c in cards_of(r.always_held[s])],
            "cards_seen": r.ever_held[s].bit_count(),
        } for s in SEATS},
        "face": {CARD_HANZI[c]: n for c, n in sorted(r.face.items())},
        "results": [],
    }
    for summ in r.summaries:
        res: dict[str, Any] = {"ruleset": summ.ruleset.id, "name": summ.ruleset.name,
                               "status": dict(summ.status), "basis": summ.basis, "excluded": summ.excluded,
                               "note": summ.note, "seats": {}}
        for s in SEATS:
            seat = summ.seats[s]
            values = sorted(seat.nets)
            res["seats"][Seat(s).id] = {
                "same_in_all": len(values) == 1,
                "certain": len(values) == 1 and r.exhaustive,
                "net": json_number(values[0]) if len(values) == 1 else None,
                "min": json_number(values[0]) if values else None,
                "max": json_number(values[-1]) if values else None,
                "mean": _mean(seat.nets),
                "distribution": [{"net": json_number(v), "count": seat.nets[v]} for v in values],
                "items": [{"item": item_id, "name": name, "count": n, "in_all": n == summ.basis,
                           "amounts": [{"amount": json_number(a), "count": k}
                                       for a, k in sorted(seat.item_amounts[(item_id, name)].items())]}
                          for (item_id, name), n in sorted(seat.items.items(),
                                                           key=lambda kv: (-kv[1], kv[0]))],
            }
        if len(summ.by_reading) > 1:
            res["by_reading"] = {str(rid): {Seat(s).id: {"min": json_number(min(cs[s])),
                                                         "max": json_number(max(cs[s]))} for s in SEATS}
                                 for rid, cs in summ.by_reading.items()}
        out["results"].append(res)
    return out


def _mean(c: Counter[int]) -> float | None:
    n = sum(c.values())
    if not n:
        return None
    return round(sum(v * k for v, k in c.items()) / n / TICKS_PER_ZHU, 4)


def render_text(r: Reconstruction) -> str:
    """A plain-text report: counts and method, what the facts leave open, then per ruleset and seat."""
    p = r.partial
    total = r.considered
    lines: list[str] = [f"{p.title or p.id} — {p.id}"]
    if p.source:
        lines.append(f"source: {' '.join(p.source.split())}")
    banker_text = " or ".join(_seat_label(r, b) for b in r.bankers)
    lines.append(f"banker (椿): {banker_text}" + (" (each equally likely)" if len(r.bankers) > 1 else ""))
    for k, why in p.banker_choices.items():
        if Seat[k.upper()] not in r.bankers:
            lines.append(f"  other choice: --banker {k}: {why}")
    if r.readings != [None]:
        for rid in r.readings:
            rd = p.reading(rid)  # type: ignore[arg-type]
            cnt = r.reading_counts.get(rid)
            shown = f"{cnt:,} completions" if cnt is not None else "count estimated"
            share = percent(r.reading_share[rid], total)
            lines.append(f"reading {rid}: {rd.label} — {shown}; {share} of those "
                         "considered")
    if r.count is not None:
        approx = f" (≈ {r.count:.3g})" if r.count >= 10**6 else ""
        lines.append(f"completions: {r.count:,}{approx}, exact")
    elif r.estimate is not None and r.interval is not None:
        lo, hi = r.interval
        lines.append(f"completions: about {r.estimate:.3g} (95% interval {lo:.3g}–{hi:.3g}), estimated")
    lines.append(f"counted by: {r.counting}")
    lines.append(f"considered: {total:,} — {r.method}")
    if not r.exhaustive and total:
        lines.append(f"  \"same in all\" below: in all the completions drawn; by the rule of three it fails "
                     f"in fewer than {300 / total:.2g}% of all completions (95% confidence)")
    lines.extend(f"note: {n}" for n in r.notes)
    lines.append("")
    lines.append("what the facts leave open")
    for s in SEATS:
        tricks = ", ".join(f"{k} ({percent(v, total)})" for k, v in sorted(r.tricks[s].items()))
        held = " ".join(CARD_HANZI[c] for c in cards_of(r.always_held[s]))
        lines.append(f"  {_seat_label(r, s)}: tricks won {tricks}; holds in every completion: {held or '-'} "
                     f"({r.ever_held[s].bit_count()} different cards seen in this hand)")
    faces = ", ".join(f"{CARD_HANZI[c]} {percent(n, total)}"
                      for c, n in sorted(r.face.items(), key=lambda x: (-x[1], x[0]))[:8])
    more = f" … ({len(r.face)} different)" if len(r.face) > 8 else ""
    lines.append(f"  face card 面張: {faces}{more}")
    for summ in r.summaries:
        lines.append("")
        lines.append(f"{summ.ruleset.id} — {summ.ruleset.name}")
        status = ", ".join(f"{'免斗 (not played)' if k == MIAN_DOU else 'played'} {percent(v, total)}"
                           for k, v in summ.status.most_common())
        lines.append(f"  status: {status}")
        if summ.note:
            lines.append(f"  note: {summ.note}")
        basis = summ.basis
        for s in SEATS:
            lines.extend(_seat_lines(r, summ, s, basis))
        if len(summ.by_reading) > 1:
            for rid, cs in sorted(summ.by_reading.items(), key=lambda kv: str(kv[0])):
                spans = "; ".join(f"{Seat(s).id} {_span(cs[s])}" for s in SEATS)
                lines.append(f"  reading {rid}: {spans}")
    return "\n".join(lines) + "\n"


def _span(c: Counter[int]) -> str:
    lo, hi = min(c), max(c)
    return _zhu(lo) if lo == hi else f"{_zhu(lo)} … {_zhu(hi)}"


def _seat_lines(r: Reconstruction, summ: RulesetSummary, s: int, basis: int) -> list[str]:
    seat = summ.seats[s]
    values = sorted(seat.nets)
    if not values:
        return []
    label = _seat_label(r, s)
    out = []
    if len(values) == 1:
        how = "certain (every completion)" if r.exhaustive else f"same in all {basis:,}"
        out.append(f"  {label}: net {_zhu(values[0])} 注 — {how}")
    else:
        dist = ", ".join(f"{_zhu(v)} ({percent(k, basis)})"
                         for v, k in sorted(seat.nets.items(), key=lambda kv: (-kv[1], kv[0]))[:6])
        more = f"; {len(values)} values" if len(values) > 6 else ""
        out.append(f"  {label}: net {_zhu(values[0])} … {_zhu(values[-1])} 注, mean {_mean(seat.nets):+.2f}; "
                   f"most often {dist}{more}")
    certain = [f"{name} {_amounts(seat.item_amounts[(i, name)])}"
               for (i, name), n in sorted(seat.items.items()) if n == basis]
    maybe = [f"{name} {percent(n, basis)}" for (_i, name), n in
             sorted(seat.items.items(), key=lambda kv: (-kv[1], kv[0])) if n != basis]
    if certain:
        out.append(f"      always: {', '.join(certain)}")
    if maybe:
        out.append(f"      sometimes: {', '.join(maybe[:10])}" + (" …" if len(maybe) > 10 else ""))
    return out


def _amounts(c: Counter[int]) -> str:
    """The amount an item paid its holder (per counterparty), or its range."""
    return f"({_span(c)})"
