"""Rulesets: YAML declarations compiled into fast callables (see compiler.py)."""

from .compiler import compile_document, load_ruleset
from .model import Ruleset
from .registry import PALETTE, bundled_ids, colour_of, find_ruleset, reading_order, resolve_rulesets, spec_of

__all__ = ["PALETTE", "Ruleset", "bundled_ids", "colour_of", "compile_document", "find_ruleset",
           "load_ruleset", "reading_order", "resolve_rulesets",
           "spec_of"]
