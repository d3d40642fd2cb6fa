"""The project's bibliography and citations: every key resolves, quotations are quotations,
no product file or output points outside the repository, the exports parse."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mahdiao_rules.io.yamlsafe import load_file
from mahdiao_rules.report.cite import to_bibtex, to_csl_json, to_markdown, used_sources
from mahdiao_rules.report.contract import stamp
from mahdiao_rules.report.render import render_text, rules_diff_report, rules_table_report
from mahdiao_rules.ruleset import bundled_ids, find_ruleset
from mahdiao_rules.ruleset.bibliography import bundled_sources
from mahdiao_rules.ruleset.model import Citation

ROOT = Path(__file__).resolve().parent.parent
RULESET_FILES = sorted(p for p in (ROOT / "rulesets").rglob("*.yaml") if p.name != "sources.yaml")
HANZI = re.compile(r"[\u3400-\u9fff]")


def citations(node, path=()):
    """Every citation part of a YAML tree, with its key path."""
    if isinstance(node, dict):
        if ("ref" in node and ("quote" in node or "paraphrase" in node)) or "inference" in node:
            yield path, node
            return
        for k, v in node.items():
            yield from citations(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from citations(v, (*path, i))


def all_parts():
    for f in RULESET_FILES:
        for path, part in citations(load_file(f).data):
            yield f.relative_to(ROOT), path, part


def test_the_bibliography_is_complete_where_it_can_be():
    sources = bundled_sources()
    for key, e in sources.items():
        assert e["type"] and e["role"] and e["title"], key
        if e["role"] == "code":
            assert e.get("repository") and re.fullmatch(r"[0-9a-f]{40}", e.get("commit", "")), key
            assert e.get("paths"), key
        if e.get("url"):
            assert e.get("accessed"), f"{key}: a web address needs its access date"
        if not e.get("url") and e["role"] not in ("primary",) and e["type"] != "article":
            assert "not found" in e.get("note", "") or "not identified" in e.get("note", ""), (
                f"{key}: a source without an address says that it was not found")
        for k in ("summarises", "transcribes"):
            if k in e:
                assert e[k] in sources, key


def test_every_citation_key_resolves_and_every_bundled_ruleset_compiles():
    sources = bundled_sources()
    for f, path, part in all_parts():
        for key in [part.get("ref"), part.get("via"), *part.get("basis", [])]:
            if key is not None:
                assert key in sources, f"{f}: {path}: unknown source {key!r}"
    for rid in bundled_ids():
        rs = find_ruleset(rid)
        assert rs.sources and set(rs.sources) <= set(sources)


def test_a_quotation_is_a_quotation():
    """A verbatim quote is not a § pointer, not English in place of a Chinese text, and a code
    quote names where in the repository it is."""
    sources = bundled_sources()
    for f, path, part in all_parts():
        q = part.get("quote")
        if q is None:
            continue
        where = f"{f}: {'.'.join(map(str, path))}: {q!r}"
        assert "§" not in q and "digest" not in q.lower(), where
        entry = sources[part["ref"]]
        if entry.get("role") == "code":
            continue  # code and its comments, in the repository's own characters
        if entry.get("language") == "en":
            assert not HANZI.search(q) or re.search(r"[A-Za-z]{3}", q), where
            continue
        assert HANZI.search(q), f"{where}: a quotation of a Chinese text has no hanzi"
        assert not re.search(r"[A-Za-z]+ [A-Za-z]+ [A-Za-z]+", q), f"{where}: English in a quotation"


def test_a_summary_is_cited_as_a_paraphrase_never_as_the_authors_words():
    sources = bundled_sources()
    summaries = {k for k, e in sources.items() if e["role"] == "summary"}
    paraphrased = set()
    for f, path, part in all_parts():
        if part.get("ref") in summaries:
            assert "paraphrase" in part, f"{f}: {path}: a summary's wording is cited as a quote"
            paraphrased.add(part["paraphrase"])
    assert paraphrased
    for fmt in ("text", "md", "html", "latex"):
        out = render_text(rules_table_report(find_ruleset("feng"), stamp=stamp("")), fmt)
        for text in paraphrased:
            assert f"「{text}」" not in out, (fmt, text)


def test_the_digest_and_the_old_keys_are_gone():
    for f in RULESET_FILES:
        text = f.read_text(encoding="utf-8")
        assert "DIGEST" not in text and "digest" not in text.lower(), f
        assert not re.search(r"ref: (S[0-3]|B[23T]|APP-[UW]|JHY|QB|HLM|W)\b", text), f


# ---------------------------------------------------------------------- nothing points outside

PRODUCT = ["mahdiao_rules", "rulesets", "templates", "docs", "examples", "tests/golden", "README.md",
           "pyproject.toml", "CITATION.cff", ".ci"]
OUTSIDE = re.compile(r"shared/|rules-digest|seeds/\d|(?<![\w.:/~-])/(?:work|home|root|tmp|Users|mnt)/")


def product_files():
    for name in PRODUCT:
        p = ROOT / name
        files = [p] if p.is_file() else sorted(x for x in p.rglob("*") if x.is_file()) if p.exists() else []
        for f in files:
            if "__pycache__" not in f.parts and f.suffix not in (".pyc",):
                yield f


def test_no_product_file_names_a_path_outside_the_repository():
    for f in product_files():
        text = f.read_text(encoding="utf-8", errors="replace")
        m = OUTSIDE.search(text)
        assert m is None, f"{f.relative_to(ROOT)}: {text[max(0, m.start() - 40):m.end() + 40]!r}"


@pytest.mark.parametrize("fmt", ["text", "md", "html", "latex", "csv", "json"])
def test_no_output_names_a_path_outside_the_repository(fmt):
    rulesets = [find_ruleset(i) for i in bundled_ids()]
    outs = [render_text(rules_table_report(rs, stamp=stamp("")), fmt) for rs in rulesets]
    outs.append(render_text(rules_diff_report(rulesets, stamp=stamp("")), fmt))
    for out in outs:
        m = OUTSIDE.search(out)
        assert m is None, out[max(0, m.start() - 60):m.end() + 60]


# ---------------------------------------------------------------------- exports

BIBTEX_ENTRY = re.compile(r"@([a-z]+)\{([A-Za-z][A-Za-z0-9_]*),\n((?:  [a-z]+ = \{.*\},?\n)+)\}\n")
BIBLATEX_TYPES = {"book", "article", "online", "software", "misc"}


def balanced(text: str) -> bool:
    depth = 0
    for i, ch in enumerate(text):
        if ch == "\\":
            continue
        if ch == "{" and (i == 0 or text[i - 1] != "\\"):
            depth += 1
        elif ch == "}" and (i == 0 or text[i - 1] != "\\"):
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def test_bibtex_export_is_strict_entry_syntax():
    sources = bundled_sources()
    text = to_bibtex(sources)
    entries = text.split("\n\n")
    keys = []
    for e in entries:
        m = BIBTEX_ENTRY.fullmatch(e if e.endswith("\n") else e + "\n")
        assert m, e
        assert m.group(1) in BIBLATEX_TYPES, e
        keys.append(m.group(2))
        fields = [line.strip().rstrip(",") for line in m.group(3).splitlines()]
        names = [f.split(" = ", 1)[0] for f in fields]
        assert len(names) == len(set(names)) and "title" in names, e
        for f in fields:
            value = f.split(" = ", 1)[1]
            assert value.startswith("{") and value.endswith("}") and balanced(value), f
    assert sorted(keys) == sorted(sources)


def test_csl_json_export_parses():
    items = json.loads(to_csl_json(bundled_sources()))
    assert {i["id"] for i in items} == set(bundled_sources())
    for i in items:
        assert i["type"] in {"book", "article-journal", "webpage", "software", "manuscript"}
        assert i["title"]
        for k in ("issued", "accessed"):
            if k in i and "date-parts" in i[k]:
                assert all(isinstance(x, int) for x in i[k]["date-parts"][0])


def test_markdown_export_links_every_address():
    md = to_markdown(bundled_sources())
    for e in bundled_sources().values():
        if e.get("url"):
            assert f"<{e['url']}>" in md


def test_used_sources_brings_the_work_a_summary_renders():
    feng = find_ruleset("feng")
    assert "fengnd_madiao" in used_sources([feng])


def test_a_citation_prints_only_a_quotation_in_brackets():
    c = Citation.of([{"ref": "anon_nd_jiaolisummary", "section": "開注", "paraphrase": "渾成賀四注"},
                     {"inference": "the project's reading", "basis": ["fengnd_madiao"]}])
    assert "「" not in c.short and c.keys == ("anon_nd_jiaolisummary", "fengnd_madiao")
    q = Citation.of({"ref": "fengnd_madiao", "via": "aloneinthefart2011recon4", "quote": "顯滅者罰二注。"})
    assert q.short.endswith("「顯滅者罰二注。」")


def test_the_cli_exports_the_bibliography(tmp_path):
    from click.testing import CliRunner

    from mahdiao_rules.cli import main

    out = tmp_path / "refs.json"
    r = CliRunner().invoke(main, ["rules", "sources", "feng", "-f", "csl-json", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert {i["id"] for i in json.loads(out.read_text())} == set(used_sources([find_ruleset("feng")]))
    r = CliRunner().invoke(main, ["rules", "sources"])
    assert r.exit_code == 0 and r.output.count("\n@") + 1 == len(bundled_sources())
