"""The project's bibliography (``rulesets/sources.yaml``) and what a citation says about an item.

Every bundled ruleset cites sources by key; a user's ruleset may add entries of its own under
``sources:`` (same fields).  :func:`attestation` turns an item's citation into its status:
``attested`` in a named text, ``code`` (read from a program's source), ``inferred`` (the
project's reasoning), to which the compiler adds ``inherited`` for an item a ruleset takes
unchanged from the one it ``extends:``.
"""

from __future__ import annotations

import functools
from typing import Any

from ..io.resources import data_dir
from ..io.schemacheck import check
from ..io.yamlsafe import load_file
from .model import Citation

BIBLIOGRAPHY = "sources.yaml"
"""The bibliography's file name in ``rulesets/``; not a ruleset (registry.py skips it)."""

STATUSES = ("attested", "code", "inferred", "inherited")
"""Attestation statuses, in the order tables explain them."""


@functools.cache
def bundled_sources() -> dict[str, dict[str, Any]]:
    """The bundled bibliography, schema-checked once."""
    doc = load_file(data_dir("rulesets") / BIBLIOGRAPHY, display_name=f"rulesets/{BIBLIOGRAPHY}")
    check(doc, "sources")
    return {k: dict(v) for k, v in doc.data.items()}


def attestation(citation: Citation, sources: dict[str, dict[str, Any]]) -> tuple[str, str]:
    """(status, the text it rests on) for a citation.

    The first part decides: a quotation or paraphrase of a text attests the rule in that
    text (a summary or transcription attests the work it renders); of a program's source it
    is read from the code; an inference is the project's reasoning.
    """
    first = citation.parts[0] if citation.parts else None
    if first is None or not first.ref:
        return "inferred", first.inference if first else ""
    entry = sources.get(first.ref, {})
    if entry.get("role") == "code":
        return "code", first.ref
    work = entry.get("summarises") or first.ref
    return "attested", work
