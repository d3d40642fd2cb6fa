"""Characters that must never reach a terminal, a CSV cell or a report: the one decision.

Control characters (C0 except tab and line feed, DEL, C1), the Unicode line and paragraph
separators, and the bidirectional embeddings, overrides, isolates and marks (the "Trojan
source" characters) can recolour a terminal, ring its bell, hide or reorder text, or split
a CSV row.  The decision, for every format at once:

* **input files refuse them** — any text (a value or a key) of a YAML or JSON file that
  holds one is an error naming the line, the key path and the character
  (:func:`control_problem`, called by the reader), so no id, title, note or quote can
  carry one into a report;
* **text that does not come from a file** (a file name, a seed or an id typed on the
  command line) is shown with such characters written as escapes (:func:`printable`) in
  error lines and in the command line stamped on reports; a seed, which becomes deal ids,
  is refused.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["UNSAFE", "control_problem", "describe_char", "printable"]

UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"   # C0 except tab and line feed, DEL, C1
    "\u2028\u2029"                    # line and paragraph separators
    "\u061c\u200e\u200f"              # bidi marks (ALM, LRM, RLM)
    "\u202a-\u202e\u2066-\u2069]"     # bidi embeddings, overrides and isolates
)
"""One character that no text of an input file may hold."""

_NAMES = {0x00: "NUL", 0x07: "BEL", 0x08: "BS", 0x0B: "VT", 0x0C: "FF", 0x0D: "CR",
          0x1B: "ESC", 0x7F: "DEL", 0x85: "NEL", 0x9B: "CSI"}


def describe_char(ch: str) -> str:
    """``U+001B (ESC)``, ``U+202E (RIGHT-TO-LEFT OVERRIDE)``."""
    code = ord(ch)
    name = _NAMES.get(code) or unicodedata.name(ch, "")
    return f"U+{code:04X}" + (f" ({name})" if name else "")


def control_problem(text: str) -> str | None:
    """Why *text* may not be used (None when it may)."""
    found = UNSAFE.search(text)
    if found is None:
        return None
    return (f"text may not hold the control character {describe_char(found.group())} "
            f"(at character {found.start() + 1}); remove it")


def printable(text: str) -> str:
    """*text* with every unsafe character written as a Python-style escape (``\\x1b``)."""
    if UNSAFE.search(text) is None:
        return text
    return UNSAFE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
