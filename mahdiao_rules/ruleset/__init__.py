"""Rulesets: YAML declarations compiled into fast callables (see compiler.py)."""

from .compiler import compile_document, load_ruleset
from .model import Ruleset
from .registry import bundled_ids, find_ruleset, resolve_rulesets

__all__ = ["Ruleset", "bundled_ids", "compile_document", "find_ruleset", "load_ruleset",
           "resolve_rulesets"]
