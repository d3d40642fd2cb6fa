"""Reports: golden files per format, escaping (HTML, LaTeX, Markdown, CSV), alignment, charts,
explain, rule tables, and the describe table's coverage of the ruleset language.

Golden files live in tests/golden/ and change only deliberately:
``python -m pytest tests/test_reports.py --update-golden`` rewrites them.
They are rendered through the library with a fixed command line, so they hold
no volatile text (the real command line, absolute paths); ruleset content hashes
are replaced by a placeholder.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from mahdiao_rules.cli import main
from mahdiao_rules.deal import SEATS
from mahdiao_rules.io.dealfile import load_deals
from mahdiao_rules.io.resources import data_dir
from mahdiao_rules.io.stamp import input_info
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.report.contract import stamp
from mahdiao_rules.report.explain import explain_report, explain_view
from mahdiao_rules.report.render import (
    LANGS,
    display_width,
    explain_doc,
    formats_for,
    latex_escape,
    load_labels,
    md_escape,
    render_text,
    replay_report,
    rules_diff_report,
    rules_table_report,
    text_table,
)
from mahdiao_rules.report.ruletable import rules_diff
from mahdiao_rules.report.svg import bar_chart
from mahdiao_rules.report.tables import csv_cell
from mahdiao_rules.report.views import deal_views
from mahdiao_rules.ruleset import bundled_ids, dsl, find_ruleset
from mahdiao_rules.ruleset.describe import (
    CONDITION_TEXT,
    NUMERIC_TEXT,
    SET_TEXT,
    Describer,
    UndescribedKind,
    describe_ruleset,
)
from mahdiao_rules.units import TICKS_PER_ZHU

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
DEALS = "tests/data/report_deals.yaml"
VARIANT = "tests/data/feng_variant.yaml"
REPLAY_COMMAND = f"mahdiao replay {DEALS} -r feng -r {VARIANT}"
EXT = {"text": "txt", "md": "md", "html": "html", "latex": "tex", "csv": "csv", "json": "json",
       "jsonl": "jsonl", "ledger": "ledger.csv"}
FORMATS = formats_for("replay")
SPECIALS = "& % $ # _ { } ~ ^ \\"


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    """Relative paths (deal file, test ruleset) as the golden files show them."""
    monkeypatch.chdir(ROOT)


def rulesets():
    return [find_ruleset("feng"), find_ruleset(VARIANT)]


def run_stamp(command, chosen=None, inputs=True):
    chosen = chosen if chosen is not None else rulesets()
    return stamp(command, chosen, [input_info(DEALS, DEALS)] if inputs else [])


def replay_doc(deals=None, command=REPLAY_COMMAND):
    """A replay of the test deals under feng and its variant, ready to render."""
    deals = deals if deals is not None else load_deals(DEALS)
    chosen = rulesets()
    return replay_report(deals, chosen, stamp=run_stamp(command, chosen),
                         settle_row=lambda d: [settle_deal(rs, d) for rs in chosen], input_name=DEALS)


def replay_text(fmt, deals=None):
    return render_text(replay_doc(deals), fmt)


def replay_model(deals=None, command=REPLAY_COMMAND):
    """The replay as JSON data (the model)."""
    return json.loads(render_text(replay_doc(deals, command), "json"))


def replay_views(deals=None):
    """Each deal as the templates see it (with its grid and differences)."""
    model = replay_model(deals)
    return list(deal_views(model["deals"], rulesets(), model))


def explain_text(fmt, deal, s, seat, command=""):
    return render_text(explain_doc(deal, s, seat, stamp=run_stamp(command, [s.ruleset])), fmt)


def rules_table_text(fmt, command=""):
    feng = find_ruleset("feng")
    return render_text(rules_table_report(feng, stamp=run_stamp(command, [feng], inputs=False)), fmt)


def rules_diff_model(command=""):
    return rules_diff(rulesets(), stamp=run_stamp(command, inputs=False))


def rules_diff_text(fmt, command=""):
    return render_text(rules_diff_report(rulesets(), stamp=run_stamp(command, inputs=False)), fmt)


def check_golden(name: str, text: str, update: bool) -> None:
    # A ruleset's content hash changes with any edit of its file, even a note; the golden
    # files name it instead, so they change only when the report itself does.
    for rs in rulesets():
        text = text.replace(rs.content_hash, f"<hash of {rs.id}>")
    path = GOLDEN / name
    if update:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
        return
    assert path.is_file(), f"{path} is missing: run pytest --update-golden once and review it"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} differs from its golden file (pytest --update-golden to accept)"


# ---------------------------------------------------------------------- golden files


@pytest.mark.parametrize("fmt", FORMATS)
def test_replay_golden(fmt, update_golden):
    text = replay_text(fmt)
    assert str(ROOT) not in text
    check_golden(f"replay.{EXT[fmt]}", text, update_golden)


def test_explain_golden(update_golden):
    deal = load_deals(DEALS)[0]
    text = explain_text("text", deal, settle_deal(find_ruleset("feng"), deal), deal.banker,
                        command=f"mahdiao explain {DEALS} --deal {deal.id} --seat north")
    check_golden("explain.txt", text, update_golden)


@pytest.mark.parametrize("fmt", ["md", "latex", "csv"])
def test_rules_table_golden(fmt, update_golden):
    check_golden(f"rules-table.{EXT[fmt]}", rules_table_text(fmt, f"mahdiao rules table feng -f {fmt}"),
                 update_golden)


@pytest.mark.parametrize("fmt", ["text", "md", "latex"])
def test_rules_diff_golden(fmt, update_golden):
    text = rules_diff_text(fmt, f"mahdiao rules diff feng {VARIANT} -f {fmt}")
    check_golden(f"rules-diff.{EXT[fmt]}", text, update_golden)


# ---------------------------------------------------------------------- the model


def test_json_keeps_the_stable_field_names():
    report = replay_model()
    result = report["deals"][0]["results"][0]
    assert report["deals"][0]["id"] == "cross-ruleset"
    assert result["ruleset"] == "feng" and result["status"] == "played"
    assert {"tricks", "net"} <= result["seats"]["east"].keys()
    assert result["ledger"] and result["fired"]
    assert report["stamp"]["command"] == REPLAY_COMMAND
    assert [d["id"] for d in report["deals"]] == ["cross-ruleset", "si-ji-mian-dou", "er-shi-won"]
    assert [r["id"] for r in report["stamp"]["rulesets"]] == ["feng", "feng_variant"]
    assert report["stamp"]["inputs"][0]["path"] == DEALS and len(report["stamp"]["inputs"][0]["sha256"]) == 64


def test_differences_explain_the_whole_gap_between_nets():
    """Concepts left out pay alike under every ruleset, so net minus the listed effects is the
    same for all rulesets: the differences section accounts for the whole gap."""
    for deal in replay_views():
        concepts = deal["differences"]["concepts"]
        for seat in ("east", "south", "west", "north"):
            rest = set()
            for j, result in enumerate(deal["results"]):
                listed = sum(zhu(e["rows"][j]["effect"].get(seat, "0")) for e in concepts)
                rest.add(zhu(result["seats"][seat]["net"]) - listed)
            assert len(rest) == 1, (deal["id"], seat)


def zhu(value) -> float:
    """A 注 amount from the model (number or signed text such as "+1½")."""
    if isinstance(value, int | float):
        return float(value)
    text = str(value).replace("½", ".5").replace("+", "")
    return float(text) if text not in ("", "-") else 0.0


def test_difference_names_an_item_one_ruleset_does_not_have():
    deal = replay_views()[2]
    entry = next(e for e in deal["differences"]["concepts"] if e["concept"] == "mei_ren_qu")
    assert [r["state"] for r in entry["rows"]] == ["absent", "fired"]
    text = replay_text("text")
    assert "feng has no such item; feng_variant pays 美人趣 2 to 東 for 二十" in text


def test_items_align_across_rulesets_by_concept():
    """feng's xiao_tu and the variant's xiao_tu_v (concept xiao_tu) share one row."""
    model = rules_diff_model()
    row = next(r for r in model["rows"] if r["concept"] == "xiao_tu")
    assert [c["item"] for c in row["cells"]] == ["xiao_tu", "xiao_tu_v"]
    assert not any(r["concept"] == "xiao_tu_v" for r in model["rows"])


def test_procedure_notes_when_a_ruleset_would_lead_otherwise():
    deal = replay_views()[0]  # cross-ruleset: the record has east lead
    leaders = {p["ruleset"]: p["leader"] for p in deal["differences"]["procedure"]}
    assert leaders == {"feng": "south", "feng_variant": "north"}


# ---------------------------------------------------------------------- HTML


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str]] = []
        self.table_classes: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [(k, v or "") for k, v in attrs]
        if tag == "table":
            self.table_classes.append(dict(attrs).get("class", ""))


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    page.close()
    return page


def hostile_deals():
    deals = load_deals(DEALS)
    return [dataclasses.replace(deals[0], title="<script>alert(1)</script> & " + SPECIALS,
                                notes="=HYPERLINK(\"x\") | pipe"), *deals[1:]]


def all_html():
    """Every HTML page the tool writes (replay, explain, rule table, rule diff)."""
    deal = hostile_deals()[0]
    yield replay_text("html", hostile_deals())
    yield explain_text("html", deal, settle_deal(find_ruleset("feng"), deal), deal.banker)
    yield rules_table_text("html")
    yield rules_diff_text("html")


def test_html_parses_is_self_contained_and_escapes_user_text():
    for html in all_html():
        page = parse(html)
        assert page.tags[0] == "html" and "body" in page.tags
        # Nothing is fetched: the only addresses are links (<a href>) to cited sources.
        links = [v for n, v in page.attrs if n == "href"]
        assert html.count("://") == sum(v.count("://") for v in links)
        for name, value in page.attrs:
            if name == "href":
                assert value.startswith("#") or re.match(r"https?://[^\s\"'<>]+$", value), value
            elif name in ("src", "action", "xlink:href", "srcset", "poster", "data"):
                assert not value.startswith("//") and "://" not in value, (name, value)
        assert not {"script", "link", "img", "iframe", "object", "embed"} & set(page.tags)
        assert "url(" not in html and "@import" not in html
    replay = replay_text("html", hostile_deals())
    assert "<script>" not in replay
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; " in replay


def test_html_has_the_seat_table_and_inline_svg_charts():
    page = parse(replay_text("html"))
    assert "seats" in page.table_classes
    assert page.tags.count("svg") == 3  # one chart per deal
    assert "svg" in parse(rules_diff_text("html")).tags


CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed "
                    "(Debian: apt-get install chromium); the HTML is still parsed and checked above")
def test_html_renders_in_headless_chromium(tmp_path):
    page = tmp_path / "report.html"
    page.write_text(replay_text("html", hostile_deals()), encoding="utf-8")
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert '<table class="seats">' in dom
    assert "<svg" in dom
    assert "<script>alert(1)</script>" not in dom


# ---------------------------------------------------------------------- LaTeX


def test_latex_escapes_the_ten_specials():
    assert latex_escape(SPECIALS) == (r"\& \% \$ \# \_\allowbreak{} \{ \} \textasciitilde{} "
                                      r"\textasciicircum{} \textbackslash{}")
    tex = replay_text("latex", hostile_deals())
    title = latex_escape("<script>alert(1)</script> & " + SPECIALS)
    assert title in tex
    assert "\\section{cross-ruleset · " + title + "}" in tex
    # escaped once, never twice
    assert "feng\\_\\allowbreak{}variant" in tex and "feng\\textbackslash{}" not in tex


XELATEX = shutil.which("xelatex")


@pytest.mark.skipif(XELATEX is None, reason="xelatex is not installed (Debian: texlive-xetex and "
                    "texlive-lang-chinese); the LaTeX text is still checked above")
@pytest.mark.parametrize("kind", ["rules-table", "rules-diff", "replay"])
def test_latex_compiles_with_xelatex(kind, tmp_path):
    text = {"rules-table": lambda: rules_table_text("latex"),
            "rules-diff": lambda: rules_diff_text("latex"),
            "replay": lambda: replay_text("latex", hostile_deals())}[kind]()
    (tmp_path / "t.tex").write_text(text, encoding="utf-8")
    done = subprocess.run([XELATEX, "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:]
    assert (tmp_path / "t.pdf").stat().st_size > 1000


# ---------------------------------------------------------------------- text, Markdown, CSV


def test_text_table_aligns_by_display_width_not_len():
    rows = [["東 east", "大活百突", "6"], ["south", "敲門", "-12"], ["官堆", "x", "+1½"]]
    lines = text_table(rows, "llr", indent=0).splitlines()
    assert len({display_width(line) for line in lines}) == 1
    assert len({len(line) for line in lines}) > 1  # len() would have misaligned them
    starts = {display_width(line[:line.index(cell)]) for line, cell in zip(lines, ["大活百突", "敲門", "x"],
                                                                                strict=True)}
    assert len(starts) == 1


def test_text_side_by_side_columns_stay_aligned():
    text = replay_text("text")
    block = text.split("── side by side ──")[1].split("── differences ──")[0]
    lines = [line for line in block.splitlines()[1:] if line.strip()]
    grid = [line for line in lines if not line.startswith("  東") and not line.startswith("  南")
            and not line.startswith("  西") and not line.startswith("  北")]
    # Every row ends with a right-aligned number column: same display width throughout.
    assert len({display_width(line) for line in grid}) == 1, grid


def test_markdown_cells_cannot_break_the_table_or_inject_html():
    assert md_escape("a|b<i>\nc") == "a\\|b&lt;i&gt; c"
    md = replay_text("md", hostile_deals())
    assert "<script>" not in md and "&lt;script&gt;" in md
    assert "\\| pipe" in md


def test_csv_has_bom_one_row_per_deal_ruleset_seat_and_no_formulas():
    text = replay_text("csv", hostile_deals())
    assert text.startswith("\ufeffdeal,title,code,ruleset,")
    lines = text.lstrip("\ufeff").splitlines()
    assert len(lines) == 1 + 3 * 2 * 4
    assert csv_cell("=SUM(A1)") == "'=SUM(A1)" and csv_cell("@x") == "'@x"
    assert csv_cell("+1") == "'+1" and csv_cell("-1") == "'-1" and csv_cell(-14) == "-14"
    # A net is a number; a minus sign in front of a number is not neutralised.
    assert ",-14," in text


def test_csv_neutralises_a_formula_in_a_deal_title():
    deals = load_deals(DEALS)
    evil = [dataclasses.replace(deals[0], title='=HYPERLINK("http://x","click")')]
    text = replay_text("csv", evil)
    assert "'=HYPERLINK(" in text and ',=HYPERLINK' not in text


# ---------------------------------------------------------------------- charts


def test_svg_chart_is_standalone_xml_or_inline_html():
    spec = {"categories": ["東 east", "南"], "series": ["a<b", "c"], "values": [[1, -2.5], [None, 0]],
            "unit": "注"}
    inline = bar_chart(spec, title="t & u")
    assert inline.startswith("<svg ") and "xmlns" not in inline and "http" not in inline
    assert "a&lt;b" in inline and "t &amp; u" in inline
    standalone = bar_chart(spec, standalone=True)
    assert standalone.startswith("<?xml") and 'xmlns="http://www.w3.org/2000/svg"' in standalone
    import xml.dom.minidom

    xml.dom.minidom.parseString(standalone)  # well-formed


# ---------------------------------------------------------------------- describe.py


def every_ruleset():
    return [find_ruleset(i) for i in bundled_ids()] + [find_ruleset(VARIANT)]


def test_every_item_of_every_bundled_ruleset_is_described():
    for rs in every_ruleset():
        described = describe_ruleset(rs)
        assert set(described) == set(rs.items)
        for iid, text in described.items():
            assert text["condition"] and text["amount"], (rs.id, iid)


def test_describe_tables_cover_every_kind_of_the_language():
    """A kind added to dsl.py without a text in describe.py fails here, by name."""
    numeric = getattr(dsl, "NUMERIC_KINDS", None) or dsl.AMOUNT_KINDS
    assert set(dsl.CONDITION_KINDS) - set(CONDITION_TEXT) == set()
    assert set(dsl.SET_KINDS) - set(SET_TEXT) == set()
    assert set(numeric) - set(NUMERIC_TEXT) == set()


def test_unknown_kind_raises_a_clear_error():
    d = Describer(find_ruleset("feng"))
    with pytest.raises(UndescribedKind, match=r"condition kind 'teleported'.*CONDITION_TEXT"):
        d.condition({"teleported": 3})
    with pytest.raises(UndescribedKind, match=r"card-set kind 'nearby'.*SET_TEXT"):
        d.card_set({"nearby": "百老"})
    with pytest.raises(UndescribedKind, match=r"amount kind 'bonus'.*NUMERIC_TEXT"):
        d.amount({"bonus": 1})


def test_describe_reads_conditions_as_text():
    d = Describer(find_ruleset("feng"))
    assert d.condition({"held": ["百老", "九十", "ci_tu"]}) == "holds 百老, 九十 and all 3 雌突"
    assert d.condition({"won": "百老", "zheng_ben": True}) == "won 百老 and is 正本 (took two tricks or more)"
    assert d.condition({"no_seat": {"fired": "da_huo_bai"}}) == "no player has made 大活百"
    assert d.condition({"not": {"fired": "yi_shang"}}) == "has not made 異賞"
    assert d.condition({"option": "qi_zhuo", "cases": {"first_seven": {"won_first": 7}}}) == (
        "won each of the first 7 tricks (reading “First seven tricks”: qi_zhuo = first_seven)")
    assert Describer(find_ruleset("feng"), "zh").condition(
        {"option": "qi_zhuo", "cases": {"first_seven": {"won_first": 7}}}) == "前7卓皆得（讀法「前七卓」）"
    assert d.card_set({"below": {"and": [{"stock": 0}, "zheng_shang"]}}) == (
        "the card just below the face card (面張) when it is 正賞")
    z = Describer(find_ruleset("feng"), "zh")
    assert z.condition({"held": ["百老", "九十", "ci_tu"]}) == "手中有百老、九十與雌突3張"
    assert z.condition({"won": "百老", "zheng_ben": True}) == "百老上卓，且正本（得二卓以上）"
    assert z.condition({"no_seat": {"fired": "da_huo_bai"}}) == "無一家成大活百"


def test_describe_reads_won_order_and_numeric_expressions():
    d = Describer(find_ruleset("feng"))
    assert d.condition({"split": [4, 2, 1, 1]}) == "the tricks fell 4-2-1-1"
    assert d.condition({"first_won": "百老"}) == "won their first trick with 百老"
    assert d.condition({"value": {"of": {"count": {"in": "正賞", "of": "won"}}, "min": 2}}) == (
        "the number of 正賞 won is at least 2")
    assert d.amount({"times": [2, {"count": {"in": "ci_tu", "of": "won"}}]}) == (
        "2 注 × the number of 雌突 won")
    assert d.amount({"sum": [3, -1]}) == "3 注 − 1 注"


# ---------------------------------------------------------------------- explain


def test_explain_lines_add_up_to_the_net_of_every_seat():
    for deal in load_deals(DEALS):
        for rs in rulesets():
            s = settle_deal(rs, deal)
            for seat in SEATS:
                model = explain_report(deal, s, seat, stamp=run_stamp(""))
                assert model["balanced"], (deal.id, rs.id, seat)
                total = sum(zhu(g["subtotal"]) for g in model["groups"])
                assert total == s.nets[seat] / TICKS_PER_ZHU
                for g in explain_view(model)["groups"]:
                    for line in g["lines"]:
                        assert {"holder", "item", "name", "source", "note"} <= line.keys()
                        assert line["source"]  # a citation: key, place, quote or paraphrase


# ---------------------------------------------------------------------- command line


def run(*args: str):
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result


@pytest.mark.parametrize("fmt", FORMATS)
def test_cli_replay_every_format(fmt, tmp_path):
    out = tmp_path / f"r.{EXT[fmt]}"
    result = run("replay", DEALS, "-r", "feng", "-r", VARIANT, "-f", fmt, "-o", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert "cross-ruleset" in text
    # The reproducibility stamp ends every report (in CSV, it is in every row).
    assert "0.1.0" in text and find_ruleset(VARIANT).content_hash in text


def test_cli_svg_dir_writes_one_standalone_chart_per_deal(tmp_path):
    result = run("replay", DEALS, "-r", "feng", "-r", VARIANT, "-f", "html", "-o",
                 str(tmp_path / "r.html"), "--svg-dir", str(tmp_path / "charts"))
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in (tmp_path / "charts").iterdir())
    assert names == ["cross-ruleset.svg", "er-shi-won.svg", "si-ji-mian-dou.svg"]
    assert (tmp_path / "charts" / "cross-ruleset.svg").read_text(encoding="utf-8").startswith("<?xml")
    result = run("rules", "diff", "feng", VARIANT, "--svg-dir", str(tmp_path / "d"))
    assert result.exit_code == 0 and (tmp_path / "d" / "rules-diff.svg").is_file()


def test_cli_template_dir_overrides_a_template_and_labels(tmp_path):
    (tmp_path / "replay.txt.j2").write_text("{{ L.deal }}: {{ report.deals | length }}\n", encoding="utf-8")
    (tmp_path / "labels.yaml").write_text("deal: {en: Partie}\n", encoding="utf-8")
    result = run("replay", DEALS, "--template-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.stdout == "Partie: 3\n"


def test_cli_broken_user_template_is_one_error_line(tmp_path):
    (tmp_path / "replay.txt.j2").write_text("{{ report.nope.deeper }}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", DEALS, "--template-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.startswith("mahdiao: error: ") and "replay.txt.j2" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("lang", LANGS)
def test_cli_lang_picks_labels(lang):
    result = run("replay", DEALS, "--deal", "cross-ruleset", "-r", "feng", "-r", VARIANT, "--lang", lang)
    assert result.exit_code == 0, result.output
    labels = load_labels(None, lang)
    assert labels.side_by_side in result.stdout and labels.differences in result.stdout


def test_labels_have_every_language():
    table = load_labels(None, "en")._table
    for key, entry in table.items():
        assert set(entry) == set(LANGS), key
        fields = {lang: set(re.findall(r"{(\w+)}", text)) for lang, text in entry.items()}
        if key.startswith("note_"):  # an engine note: Chinese names a seat once (東), English twice
            assert fields["zh-Hant"] == fields["zh-Hans"] <= fields["en"], key
            continue
        assert all(f == fields["en"] for f in fields.values()), key  # the same fields everywhere


def test_cli_explain_answers_why(tmp_path):
    result = run("explain", DEALS, "--deal", "cross-ruleset", "--seat", "east")
    assert result.exit_code == 0, result.output
    assert "東 east nets +14 注 under feng" in result.stdout
    assert "大活百突 (da_huo_bai_tu)" in result.stdout
    assert "anon_nd_jiaolisummary, 名目 + 開注: 隨配一雌突曰大活百突" in result.stdout
    for fmt in ("md", "html", "csv", "json"):
        assert run("explain", DEALS, "--deal", "er-shi-won", "--seat", "西", "-r", VARIANT,
                   "-f", fmt).exit_code == 0


def test_cli_explain_refuses_an_unknown_seat_or_an_ambiguous_file():
    bad = CliRunner().invoke(main, ["explain", DEALS, "--deal", "cross-ruleset", "--seat", "middle"])
    assert bad.exit_code == 2 and "--seat 'middle'" in bad.stderr
    many = CliRunner().invoke(main, ["explain", DEALS, "--seat", "east"])
    assert many.exit_code == 2 and "--deal" in many.stderr


def test_cli_rules_is_a_group_and_rulesets_still_lists():
    listing = run("rulesets").stdout.splitlines()
    assert run("rules").stdout.splitlines()[:-1] == listing[:-1]  # all but the stamp (its command)
    table = run("rules", "table", "feng", "-f", "md")
    assert table.exit_code == 0 and "| **大活百突** *dà huó bǎi tū* " in table.stdout
    assert "[^1]: 馬吊腳例（明刊本）前七頁提要, n.d., 開注 (the summary's wording): " in table.stdout
    diff = run("rules", "diff", "feng", VARIANT, "-f", "text")
    assert diff.exit_code == 0 and "美人趣" in diff.stdout
    one = CliRunner().invoke(main, ["rules", "diff", "feng"])
    assert one.exit_code == 2 and "two rulesets or more" in one.stderr


def test_every_report_has_every_format_for_people_and_a_csv_table():
    names = {p.name for p in data_dir("templates").iterdir()}
    for kind in ("replay", "rules-table", "rules-diff"):
        for fmt in ("text", "md", "html", "latex"):
            assert f"{kind}.{EXT[fmt]}.j2" in names, (kind, fmt)
        assert {"csv", "json"} <= set(formats_for(kind)), kind
    assert {"jsonl", "ledger"} <= set(formats_for("replay"))
