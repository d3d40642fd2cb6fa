"""The Chinese outputs are Chinese: ``rules table``, ``rules diff`` and ``replay -r all`` in
zh-Hant and zh-Hans, in every text format, carry no English word outside an explicit
allowlist — identifiers (ids, option values, source keys, code identifiers), the sources'
own words (quotations, titles, authors, URLs), the English names the terms file declares
beside each hanzi name, and what a user's deal file says (printed as written).  A reading,
a decision, a note, an inference or an engine note left in English fails here."""

from __future__ import annotations

import csv
import html
import io
import re
import sys
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from mahdiao_rules.cli import main
from mahdiao_rules.io.dealfile import load_deals
from mahdiao_rules.io.resources import data_dir
from mahdiao_rules.io.yamlsafe import load_file
from mahdiao_rules.play.policies import POLICIES
from mahdiao_rules.report.cite import full_reference, short_reference
from mahdiao_rules.report.hans import to_hans
from mahdiao_rules.ruleset import bundled_ids, find_ruleset
from mahdiao_rules.ruleset.bibliography import bundled_sources
from mahdiao_rules.ruleset.terms import all_terms

FORMATS = ("text", "md", "html", "latex", "csv")
COMMANDS = {
    "table-feng": ["rules", "table", "feng"],
    "table-app": ["rules", "table", "app"],
    "table-qing": ["rules", "table", "qing"],
    "diff": ["rules", "diff", "feng", "app", "qing"],
    "replay": ["replay", "-r", "all"],
}
ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")
TOOL_WORDS = ("Unity", "mahdiao-rules", "mahdiao replay --code", "mahdiao deal -r app",
              "latexmk -xelatex", "xelatex", "biber", "mahdiao")


@cache
def allowed_phrases() -> tuple[str, ...]:
    """Exact texts printed as they are: English names, sources' fields, deal-file texts."""
    out: set[str] = set()
    for t in all_terms().values():
        out.add(t["en"])
    for rid in bundled_ids():
        rs = find_ruleset(rid)
        out.update(x for x in (rs.name_en, rs.name) if x)
    for key, e in bundled_sources().items():
        out.add(full_reference(key, e, "zh-Hant"))
        out.add(short_reference(key, e))
        out.add(re.split(r"\s*[(（,]", e.get("author", ""))[0])
        for f, v in e.items():
            if f == "note":
                continue  # the project's words about the source: printed in Chinese
            if isinstance(v, str):
                out.add(v)
            elif isinstance(v, list):
                out.update(x for x in v if isinstance(x, str))
    for d in load_deals(data_dir("examples") / "examples.yaml"):
        out.update(x for x in (d.title, d.notes, d.source) if x)
    out.update(TOOL_WORDS)
    out.update(sys.argv)  # the stamp's command line: this process's, under pytest
    out.update(Path(a).name for a in sys.argv)
    return tuple(sorted((x for x in out if ENGLISH_WORD.search(x)), key=len, reverse=True))


@cache
def identifiers() -> frozenset[str]:
    ids: set[str] = {"east", "south", "west", "north"}
    for rid in bundled_ids():
        rs = find_ruleset(rid)
        ids.add(rs.id)
        ids.update(rs.items)
        ids.update(rs.fines)
        ids.update(rs.groups)
        ids.update(d.id for d in rs.decisions)
        for o in rs.options.values():
            ids.add(o.name)
            ids.update(o.choices)
        if rs.dai_pei:
            ids.update(rs.dai_pei.offences)
    ids.update(bundled_sources())
    ids.update(POLICIES)
    ids.update(locator_symbols())
    ids.update(d.id for d in load_deals(data_dir("examples") / "examples.yaml"))
    return frozenset(ids)


def locator_symbols() -> set[str]:
    """The code symbols the citations name (``GameEngine.cs#JifenBaiTu`` → JifenBaiTu)."""
    out: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            loc = node.get("locator")
            if isinstance(loc, str) and "#" in loc:
                out.add(loc.split("#", 1)[1])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for f in sorted(data_dir("rulesets").rglob("*.yaml")):
        walk(load_file(f).data)
    return out


MARKUP = [
    re.compile(r"<[^>]*>"),                         # HTML tags
    re.compile(r"\\[A-Za-z]+\*?"),                  # LaTeX commands
    re.compile(r"\{[a-z]+(?:/[a-z]+)*\}"),          # LaTeX arguments such as {longtable}, {l}
    re.compile(r"&[a-z]+;"),                        # HTML entities
]
PINYIN = re.compile(r"[a-zü]*[āáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜ][a-züāáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜ]*", re.I)
"""A pinyin syllable with its tone mark (its Latin letters are not English)."""
CODE_SNIPPETS = re.compile(r'"[^"\n]*"|\w+\([^)]*\)|\b(?:null|int|else|if|jifen|Jifen|region|Name|Shang)\b')
"""Code in the notes and quotations: strings in ASCII quotes, calls, keywords and names."""
ADDRESS = re.compile(r"mahdiao (?:rules|replay) [^\n|}<]*|sha256:\S+|\b[0-9a-f]{12,}\b|https?://[^\s<>]+|\b[\w.-]+\.(?:com|org|net|io|cn|tw)\b[^\s<>)）]*"
                     r"|[\w./-]+\.(?:yaml|json|tex|cs|ts|html)\b")
"""The stamp's command line and hashes, web addresses and file paths."""
SOURCE_WORDS = [
    re.compile(r"「[^」]*」"),                      # quotations: the source's own words
    re.compile(r"`[^`]*`"),                         # monospace (Markdown)
]
CODE = re.compile(r"\b(?:[A-Za-z_]\w*[.#])+\w+(?:\(\w*[^)]*\))?|\b\w*[a-z][A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*"
                  r"|\b[A-Za-z]+\d\w*|\b\w+_\w+\b|\b[a-z0-9]+(?:-[a-z0-9]+)+\b", re.ASCII)


ENUMS = frozenset({"units", "true", "false", "attested", "code", "inferred", "inherited", "deal", "play",
                   "end", "seize", "keep", "redraw", "same", "differs", "partial", "distinct", "played",
                   "kai_zhu", "qiao_men", "gong_he", "san_jia", "guan_dui", "fa_li", "dai_pei"})
"""Values of enumerated CSV columns (status, phase, bank, state, channel): ids, not prose."""


def strip_format(text: str, fmt: str) -> str:
    """What a reader reads: no page furniture (CSS, the LaTeX preamble and embedded .bib, chart
    code, comments), no CSV header (stable English column names by contract)."""
    if fmt == "html":
        text = re.sub(r"<(style|script)\b.*?</\1>", " ", text, flags=re.S)
        text = html.unescape(re.sub(r"<[^>]*>", " ", text))
    if fmt == "latex":
        text = text.split("\\begin{document}", 1)[-1]
        text = re.sub(r"\\begin\{tikzpicture\}.*?\\end\{tikzpicture\}", " ", text, flags=re.S)
        text = re.sub(r"(?<!\\)%.*", " ", text)
        text = text.replace("\\_\\allowbreak{}", "_")
        text = re.sub(r"\\([_#&%$])", r"\1", text)
        text = re.sub(r"\\begin\{longtable\}\{[^\n]*|\\definecolor\{\w+\}\{HTML\}|\[\w+=", " ", text)
    if fmt == "csv":
        text = "\n".join(" | ".join(row) for row in list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))[1:])
    return text


@cache
def phrases_re() -> re.Pattern[str]:
    # each as written, in simplified characters (zh-Hans), and with its addresses taken out
    phrases = sorted({r for p in allowed_phrases() for q in (p, to_hans(p))
                      for r in (q, ADDRESS.sub(" ", q))}, key=len, reverse=True)
    edge = "A-Za-z0-9_"
    return re.compile("|".join(rf"(?<![{edge}])" + re.escape(p) + rf"(?![{edge}])" for p in phrases))


def leftover(text: str, fmt: str = "text") -> list[str]:
    text = ADDRESS.sub(" ", strip_format(text, fmt))
    text = phrases_re().sub(" ", text)
    for rx in MARKUP + SOURCE_WORDS + [PINYIN, CODE_SNIPPETS]:
        text = rx.sub(" ", text)
    text = CODE.sub(" ", text)
    ids = identifiers()
    return [w for w in ENGLISH_WORD.findall(text) if w not in ids and not (fmt == "csv" and w in ENUMS)]


@cache
def output(command: str, lang: str, fmt: str) -> str:
    result = CliRunner().invoke(main, [*COMMANDS[command], "--lang", lang, "-f", fmt])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("lang", ["zh-Hant", "zh-Hans"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_zh_outputs_have_no_english_outside_the_allowlist(command, lang, fmt):
    words = leftover(output(command, lang, fmt), fmt)
    assert not words, f"English in {command} --lang {lang} -f {fmt}: {sorted(set(words))[:40]}"
