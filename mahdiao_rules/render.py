"""Render a report model with jinja2 templates; one renderer per ``--format`` choice.

Templates live in the top-level ``templates/`` folder (shipped in the wheel,
see resources.py).  Text output aligns hanzi by display width, not ``len``.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2

from .resources import data_dir


def display_width(text: Any) -> int:
    """Terminal columns taken by *text*: wide (hanzi) and full-width characters count 2."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in str(text))


def ljust(text: Any, width: int) -> str:
    s = str(text)
    return s + " " * max(0, width - display_width(s))


def rjust(text: Any, width: int) -> str:
    s = str(text)
    return " " * max(0, width - display_width(s)) + s


def environment(template_dir: str | Path | None = None) -> jinja2.Environment:
    loaders: list[jinja2.BaseLoader] = []
    if template_dir is not None:
        loaders.append(jinja2.FileSystemLoader(str(template_dir)))
    loaders.append(jinja2.FileSystemLoader(str(data_dir("templates"))))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",), default=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["ljust_w"] = ljust
    env.filters["rjust_w"] = rjust
    env.filters["width"] = display_width
    return env


def render_json(report: dict[str, Any], **_: Any) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2) + "\n"


def _template(name: str) -> Callable[..., str]:
    def render(report: dict[str, Any], *, template_dir: str | Path | None = None) -> str:
        return environment(template_dir).get_template(name).render(report=report)
    return render


RENDERERS: dict[str, Callable[..., str]] = {
    "text": _template("replay.txt.j2"),
    "json": render_json,
}
