"""Shell completion with values from the data: ruleset ids, ``--set`` keys and readings, seats.

click's completion (``_MAHDIAO_COMPLETE=bash_source mahdiao``; README "Shell completion")
asks these functions for the candidates of an option or argument as the user types.  They
must never fail: a broken ruleset file just completes nothing.
"""

from __future__ import annotations

from typing import Any

import click
from click.shell_completion import CompletionItem

from ..deal import SEATS
from ..ruleset import bundled_ids, find_ruleset


def ruleset_ids(ctx: click.Context | None, param: click.Parameter | None, incomplete: str,
                *, with_all: bool = True) -> list[Any]:
    """Bundled ruleset ids (and ``all``), or YAML files once the text looks like a path."""
    if "/" in incomplete or incomplete.startswith(".") or incomplete.endswith((".yaml", ".yml")):
        return [CompletionItem(incomplete, type="file")]
    ids = [*bundled_ids(), *(["all"] if with_all else [])]
    out = []
    for rs_id in ids:
        if rs_id.startswith(incomplete):
            help_text = "every bundled ruleset" if rs_id == "all" else _name(rs_id)
            out.append(CompletionItem(rs_id, help=help_text))
    return out


def one_ruleset(ctx: click.Context | None, param: click.Parameter | None, incomplete: str) -> list[Any]:
    return ruleset_ids(ctx, param, incomplete, with_all=False)


def settings(ctx: click.Context | None, param: click.Parameter | None, incomplete: str) -> list[Any]:
    """``RULESET.OPTION=VALUE``: the ruleset, then its options, then their readings."""
    rs_part, dot, rest = incomplete.partition(".")
    if not dot:
        return [CompletionItem(f"{i}.", help=_name(i)) for i in bundled_ids() if i.startswith(rs_part)]
    try:
        rs = find_ruleset(rs_part)
    except Exception:
        return []
    option, eq, value = rest.partition("=")
    if not eq:
        return [CompletionItem(f"{rs.id}.{name}=", help=o.title) for name, o in rs.options.items()
                if name.startswith(option)]
    opt = rs.options.get(option)
    if opt is None:
        return []
    return [CompletionItem(f"{rs.id}.{option}={choice}", help=text[:60])
            for choice, text in opt.choices.items() if choice.startswith(value)]


def seats(ctx: click.Context | None, param: click.Parameter | None, incomplete: str) -> list[Any]:
    return [CompletionItem(s.id, help=s.hanzi) for s in SEATS if s.id.startswith(incomplete)]


def _name(rs_id: str) -> str:
    try:
        return find_ruleset(rs_id).name
    except Exception:
        return ""
