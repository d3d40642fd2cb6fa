"""Declared correspondences between concepts of different rulesets (``rulesets/correspondences.yaml``).

``rules diff`` puts items of different rulesets in one row when they share a concept id; a
``same`` entry joins concepts that carry different names (feng 渾成 and app 八同), a
``distinct`` entry separates items that share an id but not a definition (feng 八紅, app 八紅).
Each entry cites its source or states the project's reading.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from ..io.resources import data_dir
from ..io.schemacheck import check
from ..io.yamlsafe import load_file
from .model import Citation, Ruleset

CORRESPONDENCES = "correspondences.yaml"


@dataclass(frozen=True)
class Same:
    concept: str
    name: str
    members: dict[str, tuple[str, ...]]
    source: Citation


@dataclass(frozen=True)
class Distinct:
    concept: str
    rulesets: tuple[str, ...]
    source: Citation


@functools.cache
def correspondences() -> tuple[tuple[Same, ...], tuple[Distinct, ...]]:
    path = data_dir("rulesets") / CORRESPONDENCES
    doc = load_file(path, display_name=f"rulesets/{CORRESPONDENCES}")
    check(doc, "correspondences")
    data: dict[str, Any] = doc.data or {}
    same = tuple(Same(e["concept"], e["name"], {k: tuple(v) for k, v in e["members"].items()},
                      Citation.of(e["source"])) for e in data.get("same", []))
    distinct = tuple(Distinct(e["concept"], tuple(e["rulesets"]), Citation.of(e["source"]))
                     for e in data.get("distinct", []))
    return same, distinct


def family(rs: Ruleset) -> tuple[str, ...]:
    """The ids a correspondence may name *rs* by: its own and those of the rulesets it extends."""
    return (rs.id, *rs.extends)


def row_key(rs: Ruleset, concept: str) -> tuple[str, Same | Distinct | None]:
    """The diff row of *concept* in *rs*, and the declaration that put it there (if any)."""
    same, distinct = correspondences()
    ids = family(rs)
    for s in same:
        for rid, concepts in s.members.items():
            if rid in ids and concept in concepts:
                return s.concept, s
    for d in distinct:
        if concept == d.concept:
            for rid in d.rulesets[1:]:
                if rid in ids:
                    return f"{concept}@{rid}", d
            return concept, d
    return concept, None
