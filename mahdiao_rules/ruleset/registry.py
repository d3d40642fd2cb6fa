"""Find rulesets by bundled id (``feng``) or by the path of a YAML file."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

from ..cards import closest_names
from ..errors import InputError
from ..io.resources import data_dir
from .bibliography import BIBLIOGRAPHY
from .compiler import load_ruleset
from .model import Ruleset

NOT_RULESETS = frozenset({BIBLIOGRAPHY})
"""Files of rulesets/ that are data shared by the rulesets, not rulesets."""


def bundled_ids() -> list[str]:
    """Ids of the rulesets shipped with the package, in file-name order."""
    return sorted(p.stem for p in data_dir("rulesets").glob("*.yaml") if p.name not in NOT_RULESETS)


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
    return out
