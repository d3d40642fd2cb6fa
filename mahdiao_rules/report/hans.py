"""Traditional → simplified Chinese for ``--lang zh-Hans``, by a closed table.

Every hanzi a report prints comes from the project's own data, so a table of exactly those
characters (``hans.txt``, generated from OpenCC's t2s by tools/make_hans_table.py and checked
for completeness by the tests) converts them all without a converter dependency; phrases whose
conversion depends on context are listed in the table too and replaced first.  A character the
table does not know (a user's own ruleset or template) is left as written.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

TABLE = Path(__file__).with_name("hans.txt")


@functools.cache
def _table() -> tuple[dict[int, str], dict[str, str]]:
    chars: dict[int, str] = {}
    phrases: dict[str, str] = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        trad, simp = line.split(" ", 1)
        if len(trad) == 1:
            if trad != simp:
                chars[ord(trad)] = simp
        else:
            phrases[trad] = simp
    return chars, phrases


def known_characters() -> set[str]:
    """Every character the table covers (converted or unchanged)."""
    return {line.split(" ", 1)[0] for line in TABLE.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#") and len(line.split(" ", 1)[0]) == 1}


def to_hans(text: str) -> str:
    """*text* with every traditional character the table knows in its simplified form."""
    chars, phrases = _table()
    if phrases:
        pattern = re.compile("|".join(map(re.escape, sorted(phrases, key=len, reverse=True))))
        text = pattern.sub(lambda m: phrases[m.group()], text)
    return text.translate(chars)
