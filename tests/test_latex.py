"""The bundled rule tables compile as written: latexmk -xelatex (xelatex, biber, xelatex,
xelatex), no error, no overfull box, no missing glyph.  Skipped, with the reason, where TeX is
not installed (Debian: texlive-xetex texlive-lang-chinese texlive-latex-extra texlive-pictures
texlive-bibtex-extra biber latexmk).  By default one document per kind and language;
MAHDIAO_LATEX_ALL=1 compiles every bundled table and the full comparison in every language."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from mahdiao_rules.report.render import RENDERERS
from mahdiao_rules.report.ruletable import rules_diff_view as rules_diff
from mahdiao_rules.report.ruletable import rules_table_view as rules_table
from mahdiao_rules.ruleset import bundled_ids, find_ruleset

TOOLS = ("xelatex", "biber", "latexmk")
MISSING = [t for t in TOOLS if shutil.which(t) is None]
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"TeX tools not installed: {', '.join(MISSING)}")

DEFAULT = [("table", "feng", "en"), ("table", "qing", "zh-Hant"), ("diff", "feng app qing", "zh-Hans")]
EVERY = [("table", rid, lang) for rid in bundled_ids() for lang in ("en", "zh-Hant", "zh-Hans")] + [
    ("diff", "feng app qing", lang) for lang in ("en", "zh-Hant", "zh-Hans")]
CASES = EVERY if os.environ.get("MAHDIAO_LATEX_ALL") else DEFAULT


def document(kind: str, ids: str, lang: str) -> str:
    rulesets = [find_ruleset(i) for i in ids.split()]
    if kind == "table":
        return RENDERERS["latex"](rules_table(rulesets[0], lang=lang), kind="rules-table", lang=lang)
    return RENDERERS["latex"](rules_diff(rulesets, lang=lang), kind="rules-diff", lang=lang)


@pytest.mark.parametrize(("kind", "ids", "lang"), CASES)
def test_bundled_tables_compile_without_overfull_boxes(kind, ids, lang, tmp_path):
    tex = tmp_path / "table.tex"
    tex.write_text(document(kind, ids, lang), encoding="utf-8")
    assert "latexmk -xelatex" in tex.read_text(encoding="utf-8")  # the instructions say how
    run = subprocess.run(["latexmk", "-xelatex", "-interaction=nonstopmode", "-halt-on-error", tex.name],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600)
    log = (tmp_path / "table.log").read_text(encoding="utf-8", errors="replace")
    assert run.returncode == 0, log[-3000:]
    assert (tmp_path / "table.pdf").is_file()
    assert "Overfull" not in log, [line for line in log.splitlines() if "Overfull" in line][:5]
    assert "Missing character" not in log
    assert "There were undefined references" not in log and "Citation" not in log.split("Output written")[-1]
    assert "Rerun" not in log.split("Output written")[-1]  # latexmk ran every pass it needed
