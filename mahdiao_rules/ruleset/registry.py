"""Find rulesets by bundled id (``feng``) or by the path of a YAML file."""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

from ..cards import closest_names
from ..errors import InputError
from ..io.resources import data_dir
from ..io.yamlsafe import load_file
from .bibliography import BIBLIOGRAPHY
from .compiler import load_ruleset
from .correspondences import CORRESPONDENCES
from .model import Ruleset
from .terms import TERMS_FILE

NOT_RULESETS = frozenset({BIBLIOGRAPHY, TERMS_FILE, CORRESPONDENCES})
"""Files of rulesets/ that are data shared by the rulesets, not rulesets."""

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#999999")
"""Okabe–Ito: distinguishable with the common colour-vision deficiencies."""


@lru_cache(maxsize=1)
def _bundled_order() -> tuple[str, ...]:
    ranked = []
    for path in data_dir("rulesets").glob("*.yaml"):
        if path.name in NOT_RULESETS:
            continue
        order = load_file(path).data.get("order")
        ranked.append((order is None, order or 0, path.stem))
    return tuple(stem for _none, _order, stem in sorted(ranked))


def bundled_ids() -> list[str]:
    """Ids of the rulesets shipped with the package, in reading order (their ``order:``:
    Ming → Qing → modern), so ``-r all``, tables and charts always list them alike."""
    return list(_bundled_order())


def reading_order(rulesets: Iterable[Ruleset]) -> list[Ruleset]:
    """*rulesets* in the fixed order of every report: by ``order:`` (the bundled ones),
    then the rest in the order given."""
    items = list(rulesets)
    return sorted(items, key=lambda r: (r.order is None, r.order or 0, items.index(r)))


def colour_of(rs: Ruleset) -> str:
    """The ruleset's colour in every chart: its ``colour:``, else one of the palette's other
    colours picked by a stable hash of its id (the same in every chart and run)."""
    if rs.colour:
        return rs.colour
    taken = {c.lower() for c in _bundled_colours()}
    free = [c for c in PALETTE if c.lower() not in taken] or list(PALETTE)
    return free[zlib.crc32(rs.id.encode()) % len(free)]


@lru_cache(maxsize=1)
def _bundled_colours() -> tuple[str, ...]:
    return tuple(c for p in data_dir("rulesets").glob("*.yaml")
                 if p.name not in NOT_RULESETS and (c := load_file(p).data.get("colour")))


def _is_path(spec: str) -> bool:
    return spec.endswith((".yaml", ".yml", ".json")) or "/" in spec or "\\" in spec


@lru_cache(maxsize=64)
def _cached(path: str, overrides: tuple[tuple[str, str], ...], display: str) -> Ruleset:
    return load_ruleset(path, overrides=dict(overrides), display_name=display)


def find_ruleset(spec: str, overrides: Mapping[str, str] | None = None) -> Ruleset:
    """A compiled ruleset from a bundled id or a file path (compiled once, then cached)."""
    key = tuple(sorted((overrides or {}).items()))
    if _is_path(spec):
        if not Path(spec).is_file():
            raise InputError("no such ruleset file", file=spec)
        return _cached(str(Path(spec).resolve()), key, spec)
    ids = bundled_ids()
    if spec not in ids:
        hint = closest_names(spec, ids)
        extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
        raise InputError(f"unknown ruleset {spec!r}{extra}; bundled: {', '.join(ids)}; "
                         "or give the path of a ruleset YAML file")
    path = data_dir("rulesets") / f"{spec}.yaml"
    return _cached(str(path), key, f"rulesets/{spec}.yaml")


def spec_of(rs: Ruleset) -> str:
    """What :func:`find_ruleset` takes to find *rs* again: its bundled id, or its file path."""
    return rs.id if rs.file == f"rulesets/{rs.id}.yaml" and rs.id in bundled_ids() else rs.file


def resolve_rulesets(specs: Iterable[str], settings: Mapping[str, Mapping[str, str]] | None = None
                     ) -> list[Ruleset]:
    """Rulesets for CLI arguments (``all`` = every bundled one), each with its ``--set`` options.

    Settings are keyed by ruleset *id*, also when the ruleset is given by path.
    """
    settings = settings or {}
    out: list[Ruleset] = []
    for spec in specs:
        for name in bundled_ids() if spec == "all" else [spec]:
            rs = find_ruleset(name)
            if rs.id in settings:
                rs = find_ruleset(name, settings[rs.id])
            if all(r.id != rs.id for r in out):
                out.append(rs)
    return reading_order(out)
