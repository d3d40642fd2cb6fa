"""Grouped bar charts as SVG text, with the standard library only.

A chart spec is plain data (built by the report models):
``{"categories": [...], "series": [...], "values": [[v per series] per category], "unit": "注"}``
and optionally ``"colours"`` (one per series: a ruleset keeps its colour in every chart);
a value of ``None`` means "absent" and draws a dash instead of a bar.  The same
function gives the inline ``<svg>`` of the HTML report (no namespace URL, HTML5
does not need one) and a standalone ``.svg`` file (``standalone=True``).
"""

from __future__ import annotations

import hashlib
import math
import unicodedata
from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

# Okabe–Ito: distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#999999")
FONT = ("'Noto Serif CJK TC','Noto Serif CJK SC','Source Han Serif TC','Songti TC','PMingLiU',"
        "'Noto Sans CJK TC','Microsoft JhengHei','WenQuanYi Zen Hei','AR PL UMing TW',serif")
SVG_NS = "http://www.w3.org/2000/svg"


def _width(text: str, size: float) -> float:
    """Rough rendered width: a hanzi is one em, other characters about 0.6 em."""
    return sum(size if unicodedata.east_asian_width(ch) in "WF" else size * 0.6 for ch in text)


def _nice_step(span: float, ticks: int = 5) -> float:
    raw = span / ticks if span > 0 else 1
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def _num(v: float) -> str:
    return f"{v:g}"


def _scale(nums: Sequence[float]) -> tuple[float, float, float]:
    """(low, high, step) of a value axis that holds 0 and every number, on round steps."""
    lo, hi = min([0.0, *nums]), max([0.0, *nums])
    step = _nice_step(hi - lo)
    lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
    return lo, (hi if hi != lo else lo + step), step


def _frame(width: int, height: int, title: str, left: float, standalone: bool, size: int) -> list[str]:
    """The opening ``<svg>`` tag, its ``<title>`` and the visible title, if any."""
    ns = f' xmlns="{SVG_NS}"' if standalone else ""
    out = [f'<svg{ns} class="chart" role="img" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="{FONT}" font-size="{size}">',
           f"<title>{escape(title or 'chart')}</title>"]
    if title:
        out.append(f'<text x="{left}" y="18" font-weight="bold">{escape(title)}</text>')
    return out


def _grid(out: list[str], axis: tuple[float, float, float], y: Any, x0: float, x1: float) -> None:
    """Horizontal grid lines with their values (the zero line darker)."""
    lo, hi, step = axis
    v = lo
    while v <= hi + step / 2:
        yy = y(v)
        stroke = "#333" if abs(v) < 1e-9 else "#ddd"
        out.append(f'<line x1="{x0}" y1="{yy:.1f}" x2="{x1}" y2="{yy:.1f}" '
                   f'stroke="{stroke}" stroke-width="1"/>')
        out.append(f'<text x="{x0 - 6}" y="{yy + 4:.1f}" text-anchor="end" fill="#555">'
                   f'{_num(v)}</text>')
        v += step


def _close(out: list[str], standalone: bool) -> str:
    out.append("</svg>")
    svg = "\n".join(out) + "\n"
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + svg if standalone else svg


def bar_chart(spec: dict[str, Any], *, title: str = "", standalone: bool = False,
              bar: int = 18, height: int = 220) -> str:
    """The SVG text of a grouped bar chart (categories along x, one bar per series)."""
    cats: Sequence[str] = [str(c) for c in spec["categories"]]
    series: Sequence[str] = [str(s) for s in spec["series"]]
    values: Sequence[Sequence[float | None]] = spec["values"]
    colours = list(spec.get("colours") or [])
    colours += [PALETTE[j % len(PALETTE)] for j in range(len(colours), len(series))]
    nums = [float(v) for row in values for v in row if v is not None]
    axis = _scale(nums)
    lo, hi, _step = axis

    size = 12
    label_w = max((_width(c, size) for c in cats), default=0)
    # Many long labels (a rule diff's concepts) are slanted; a few (seats) stay level.
    rotate = len(cats) > 8 and label_w + 8 > bar * len(series) + 16
    left, right, top = 44, 12, 30 if title else 12
    # Negative bars carry their value label below the bar: leave room above the axis labels.
    gap = 14 if any(v < 0 for v in nums) else 0
    bottom = (label_w * 0.75 + 22 + gap) if rotate else 26 + gap
    legend_h = 22 if len(series) > 1 else 0
    group_w = max(bar * len(series) + 16, 0 if rotate else label_w + 12)
    width = int(left + right + group_w * max(1, len(cats)))
    legend_w = sum(_width(s, size) + 34 for s in series)
    width = max(width, int(left + legend_w + right), 240)
    total_h = int(top + height + bottom + legend_h)

    def y(v: float) -> float:
        return top + height * (hi - v) / (hi - lo)

    out = _frame(width, total_h, title, left, standalone, size)
    _grid(out, axis, y, left, width - right)
    if spec.get("unit") and not title:
        out.append(f'<text x="{left - 6}" y="{top - 8}" text-anchor="end" fill="#555">'
                   f'{escape(str(spec["unit"]))}</text>')
    # Bars.
    for i, cat in enumerate(cats):
        gx = left + i * group_w + (group_w - bar * len(series)) / 2
        for j, name in enumerate(series):
            val = values[i][j] if j < len(values[i]) else None
            x = gx + j * bar
            tip = f"{cat} · {name}: {'—' if val is None else _num(float(val))}"
            if val is None:
                out.append(f'<text x="{x + bar / 2:.1f}" y="{y(0) - 3:.1f}" text-anchor="middle" '
                           f'fill="#999">—<title>{escape(tip)}</title></text>')
                continue
            y0, y1 = sorted((y(0), y(float(val))))
            out.append(f'<rect x="{x + 1:.1f}" y="{y0:.1f}" width="{bar - 2}" '
                       f'height="{max(y1 - y0, 0.5):.1f}" fill="{colours[j]}">'
                       f'<title>{escape(tip)}</title></rect>')
            ty = y0 - 3 if float(val) >= 0 else y1 + 11
            out.append(f'<text x="{x + bar / 2:.1f}" y="{ty:.1f}" text-anchor="middle" '
                       f'font-size="10" fill="#333">{_num(float(val))}</text>')
        cx = left + i * group_w + group_w / 2
        base = top + height + 16 + gap
        if rotate:
            out.append(f'<text x="{cx:.1f}" y="{base:.1f}" text-anchor="end" '
                       f'transform="rotate(-45 {cx:.1f} {base:.1f})">{escape(cat)}</text>')
        else:
            out.append(f'<text x="{cx:.1f}" y="{base:.1f}" text-anchor="middle">{escape(cat)}</text>')
    # Legend.
    if legend_h:
        lx, ly = left, top + height + bottom + 6
        for j, name in enumerate(series):
            out.append(f'<rect x="{lx:.1f}" y="{ly:.1f}" width="12" height="12" '
                       f'fill="{colours[j]}"/>')
            out.append(f'<text x="{lx + 16:.1f}" y="{ly + 10:.1f}">{escape(name)}</text>')
            lx += _width(name, size) + 34
    return _close(out, standalone)


MAX_STEM = 64
"""Longest chart file stem: well under every file system's 255-byte limit, in any script."""

_RESERVED = frozenset({"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)),
                       *(f"LPT{i}" for i in range(10))})
"""Names Windows refuses for a file, whatever the extension."""


def file_name(name: str) -> str:
    """A safe file stem for a chart (deal ids may hold any character): letters, digits,
    ``-``, ``_`` and ``.`` kept, everything else ``_``, at most :data:`MAX_STEM` characters."""
    keep = "".join(ch if (ch.isalnum() and ch.isprintable()) or ch in "-_." else "_" for ch in name)
    keep = keep.strip("._")[:MAX_STEM].rstrip("._")
    return keep or "chart"


def chart_file_names(names: Sequence[str]) -> list[str]:
    """One distinct file stem per chart, in order, even when ids differ only in characters a
    file name cannot hold, in case, or in length beyond :data:`MAX_STEM`.

    A stem that is the id itself stays as it is; any other (changed, cut, reserved, or taken
    by an earlier chart) gets ``-`` and 8 hex digits of the id's SHA-256 (then a counter,
    for an id given twice).
    """
    out: list[str] = []
    taken: set[str] = set()
    for name in names:
        stem = file_name(name)
        if stem != name or stem.casefold() in taken or stem.upper().split(".")[0] in _RESERVED:
            digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
            base = f"{stem[:MAX_STEM - 9]}-{digest}"
            stem, n = base, 1
            while stem.casefold() in taken:
                n += 1
                stem = f"{base}-{n}"
        taken.add(stem.casefold())
        out.append(stem)
    return out

def line_chart(spec: dict[str, Any], *, title: str = "", standalone: bool = False,
               width: int = 640, height: int = 240) -> str:
    """The SVG text of a line chart: one polyline per series over the x labels.

    ``{"x": [labels], "series": [names], "values": [[v per x] per series], "unit": "注"}``;
    an optional ``"marks": [series index per x after the first]`` draws a ring on that
    series' point (a sitting marks each hand's 椿).
    """
    xs: Sequence[str] = [str(x) for x in spec["x"]]
    series: Sequence[str] = [str(s) for s in spec["series"]]
    values: Sequence[Sequence[float]] = spec["values"]
    marks: Sequence[int] = spec.get("marks", ())
    axis = _scale([float(v) for row in values for v in row])
    lo, hi, _step = axis
    size = 12
    left, right, top = 48, 16, 30 if title else 14
    bottom = 30
    legend_h = 22
    plot_w = max(width - left - right, 40 * max(1, len(xs) - 1))
    width = int(left + plot_w + right)
    legend_w = sum(_width(s, size) + 34 for s in series)
    width = max(width, int(left + legend_w + right))
    total_h = int(top + height + bottom + legend_h)

    def x(i: int) -> float:
        return left + (plot_w * i / (len(xs) - 1) if len(xs) > 1 else plot_w / 2)

    def y(v: float) -> float:
        return top + height * (hi - v) / (hi - lo)

    out = _frame(width, total_h, title, left, standalone, size)
    _grid(out, axis, y, left, left + plot_w)
    every = max(1, math.ceil(len(xs) / 20))
    for i, label in enumerate(xs):
        if i % every == 0 or i == len(xs) - 1:
            out.append(f'<text x="{x(i):.1f}" y="{top + height + 16}" text-anchor="middle" '
                       f'fill="#555">{escape(label)}</text>')
    if spec.get("unit") and not title:
        out.append(f'<text x="{left - 6}" y="{top - 4}" text-anchor="end" fill="#555">'
                   f'{escape(str(spec["unit"]))}</text>')
    dashes = ("", ' stroke-dasharray="6 3"', ' stroke-dasharray="2 3"', ' stroke-dasharray="8 3 2 3"')
    for j, name in enumerate(series):
        colour = PALETTE[j % len(PALETTE)]
        row = values[j]
        points = " ".join(f"{x(i):.1f},{y(float(v)):.1f}" for i, v in enumerate(row))
        out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"'
                   f'{dashes[j % len(dashes)]}><title>{escape(name)}</title></polyline>')
        for i, v in enumerate(row):
            tip = f"{name} · {xs[i]}: {_num(float(v))}"
            ring = i > 0 and i - 1 < len(marks) and marks[i - 1] == j
            r, fill = (4.5, "#fff") if ring else (2.5, colour)
            out.append(f'<circle cx="{x(i):.1f}" cy="{y(float(v)):.1f}" r="{r}" fill="{fill}" '
                       f'stroke="{colour}" stroke-width="1.5"><title>{escape(tip)}</title></circle>')
    lx, ly = left, top + height + bottom + 6
    for j, name in enumerate(series):
        colour = PALETTE[j % len(PALETTE)]
        out.append(f'<line x1="{lx:.1f}" y1="{ly + 6:.1f}" x2="{lx + 14:.1f}" y2="{ly + 6:.1f}" '
                   f'stroke="{colour}" stroke-width="2"{dashes[j % len(dashes)]}/>')
        out.append(f'<text x="{lx + 18:.1f}" y="{ly + 10:.1f}">{escape(name)}</text>')
        lx += _width(name, size) + 34
    return _close(out, standalone)
