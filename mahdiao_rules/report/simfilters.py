"""The template filters of the Monte Carlo reports (``simulate``, ``ablate``, ``simulate
--sitting``): estimates with their 95% intervals, shares, and the histogram as inline SVG.

:func:`~.render.environment` registers :data:`FILTERS` for every template; the numbers
of a simulation are floats with a fixed number of digits, never exact 注 (views.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

from markupsafe import Markup

from ..ruleset import PALETTE


def num(value: Any, digits: int = 3) -> str:
    """An estimate with *digits* decimals; — for none (no hand to average over)."""
    if value is None:
        return "—"
    return f"{float(value):.{digits}f}"


def ci(pair: Sequence[float] | None, scale: float = 1, digits: int = 3) -> str:
    """A 95% interval ``[low, high]``, each end times *scale* (100: percent, 1000: per 1,000)."""
    if not pair:
        return "—"
    return f"[{pair[0] * scale:.{digits}f}, {pair[1] * scale:.{digits}f}]"


def pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def histogram_svg(report: dict[str, Any], *, height: int = 220,
                  what: str = "banker net per hand (注)") -> str:
    """An inline ``<svg>`` histogram (by default of the banker's net): one bar per ruleset
    in each bin."""
    hist = report["histogram"]
    bins = hist["bins"]
    series = hist["series"]
    counts = [r["histogram"] for r in report["rulesets"]]
    colours = list(hist.get("colours") or [])
    colours += [PALETTE[j % len(PALETTE)] for j in range(len(colours), len(series))]
    k = max(1, len(series))
    peak = max([1, *[c for row in counts for c in row]])
    bar = max(2.0, min(14.0, 720 / max(1, len(bins) * k)))
    group = bar * k + 2
    left, top, bottom = 48, 14, 46
    width = int(left + group * max(1, len(bins)) + 16)
    legend_w = sum(len(str(s)) * 8 + 30 for s in series)
    width = max(width, left + legend_w + 16, 320)
    total = top + height + bottom + 22
    step = 10 ** math.floor(math.log10(peak)) if peak >= 10 else 1
    while peak / step > 6:
        step *= 2
    out = [f'<svg class="chart" role="img" width="{width}" height="{total}" '
           f'viewBox="0 0 {width} {total}" font-size="11" font-family="sans-serif">',
           f"<title>{escape(what)}</title>"]

    def y(v: float) -> float:
        return top + height * (1 - v / peak)

    v = 0
    while v <= peak:
        out.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{width - 8}" y2="{y(v):.1f}" '
                   f'stroke="{"#333" if v == 0 else "#ddd"}"/>')
        out.append(f'<text x="{left - 4}" y="{y(v) + 4:.1f}" text-anchor="end" fill="#555">{v}</text>')
        v += step
    label_every = max(1, math.ceil(len(bins) / 16))
    for i, b in enumerate(bins):
        x0 = left + i * group + 1
        for j in range(len(series)):
            c = counts[j][i] if j < len(counts) else 0
            if c:
                tip = escape(f"{series[j]}: [{b['lo']}, {b['hi']}) 注 — {c}")
                out.append(f'<rect x="{x0 + j * bar:.1f}" y="{y(c):.1f}" width="{bar:.1f}" '
                           f'height="{top + height - y(c):.1f}" fill="{colours[j]}">'
                           f"<title>{tip}</title></rect>")
        if i % label_every == 0:
            out.append(f'<text x="{x0:.1f}" y="{top + height + 14}" fill="#555">'
                       f'{escape(str(b["lo"]))}</text>')
    out.append(f'<text x="{left}" y="{top + height + 30}" fill="#555">注 (bin start)</text>')
    lx = left
    for j, name in enumerate(series):
        ly = top + height + bottom
        out.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" '
                   f'fill="{colours[j]}"/>')
        out.append(f'<text x="{lx + 16}" y="{ly}">{escape(str(name))}</text>')
        lx += len(str(name)) * 8 + 30
    out.append("</svg>")
    return "\n".join(out) + "\n"


FILTERS = {
    "num": num, "ci": ci, "pct": pct,
    "item": lambda seq, i: seq[i],  # one column of rows: `rows | map("item", i)`
    "histogram_svg": lambda report, **kw: Markup(histogram_svg(report, **kw)),
}
"""The filters these reports' templates use (their names are free in every other template)."""
