"""Sitting reports: golden files per format (the bundled sitting under feng and app), what
each format must show, escaping of what a sitting file may hold, the CLI, and
``simulate --sitting``.

Golden files: ``python -m pytest tests/test_sitting_reports.py --update-golden``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cli_helpers import KEEP, error_line, invoke

from mahdiao_rules.io.sittingfile import load_sitting
from mahdiao_rules.report.render import LANGS, RENDERERS
from mahdiao_rules.report.sitting import build_sitting_report
from mahdiao_rules.ruleset import find_ruleset
from mahdiao_rules.sitting import play_sitting

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
EXAMPLE = "examples/sitting.yaml"
COMMAND = f"mahdiao sitting {EXAMPLE} -r feng -r app"
EXT = {"text": "txt", "md": "md", "html": "html", "latex": "tex", "csv": "csv", "json": "json"}
SEATS = ("east", "south", "west", "north")


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def model(path: str = EXAMPLE, ids: tuple[str, ...] = ("feng", "app"), **kw) -> dict:
    record = load_sitting(path)
    results = [play_sitting(find_ruleset(r), record, **kw) for r in ids]
    return build_sitting_report(record, results, command=COMMAND, input_name=path)


def check_golden(name: str, text: str, update: bool) -> None:
    for rid in ("feng", "app"):
        text = text.replace(find_ruleset(rid).content_hash, f"<hash of {rid}>")
    path = GOLDEN / name
    if update:
        path.write_text(text, encoding="utf-8", newline="")
        return
    assert path.is_file(), f"{path} is missing: run pytest --update-golden once and review it"
    assert text == path.read_text(encoding="utf-8"), \
        f"{name} differs from its golden file (pytest --update-golden to accept)"


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
def test_sitting_golden(fmt, update_golden):
    check_golden(f"sitting.{EXT[fmt]}", RENDERERS[fmt](model(), kind="sitting"), update_golden)


# --------------------------------------------------------------------------- contents


def test_json_has_both_bank_sequences_and_every_ledger():
    report = json.loads(RENDERERS["json"](model(), kind="sitting"))
    assert report["kind"] == "sitting"
    feng, app = report["results"]
    assert feng["bank_sequence"] == ["丙", "丁", "丁", "甲", "乙", "丙"]
    assert app["bank_sequence"] != feng["bank_sequence"]
    assert report["bank_differs"] == [n for n, (a, b) in enumerate(
        zip(feng["bank_sequence"], app["bank_sequence"], strict=True), start=1) if a != b]
    for r in (feng, app):
        running = dict.fromkeys(report["players"], 0)
        for h in r["hands"]:
            ledger = h["settlement"]["ledger"]
            # every transfer is in the hand's ledger: the nets are its sums
            by_account = dict.fromkeys([*SEATS, "guan_dui"], 0)
            for line in ledger:
                assert line["item"] and line["source"]
                by_account[line["payer"]] -= line["amount"]
                by_account[line["payee"]] += line["amount"]
            assert sum(by_account.values()) == 0
            for player, seat in r["players"].items():
                assert h["nets"][player] == by_account[seat]
                running[player] += h["nets"][player]
                assert h["running"][player] == running[player]
            assert h["guan_dui"]["after"] - h["guan_dui"]["before"] == by_account["guan_dui"]
        assert {p: t["net"] for p, t in r["totals"].items()} == running
        assert r["balance"] == 0


def test_html_shows_two_bank_sequences_charts_and_ledgers():
    html = RENDERERS["html"](model(), kind="sitting")
    assert html.count('<svg class="chart"') == 2 and html.count("<polyline") == 8
    assert "Every ruleset plays the same deals" in html
    assert re.search(r'<tr class="differs"><td class="num">2</td>', html)
    assert html.count('<table class="ledger">') == 12  # a 免斗 hand pays its 子 too
    assert "大活百得官堆" in html and "顯滅" in html
    assert "<script" not in html


def test_labels_in_every_language():
    for lang in LANGS:
        text = RENDERERS["text"](model(), kind="sitting", lang=lang)
        assert ("歷局之椿" in text) or ("历局之椿" in text) or ("the 椿 hand by hand" in text)


HOSTILE = """title: '<script>alert(1)</script> & {\\\\} | =SUM(A1)'
players: {east: '=1+1', south: '<b>乙</b>', west: '丙|丙', north: '\\textbf{丁}'}
first_banker: {seat: east}
"""


@pytest.fixture
def hostile(tmp_path):
    text = (ROOT / "tests" / "bad" / "base_sitting.yaml").read_text(encoding="utf-8")
    text = HOSTILE + text[text.index("hands:\n"):]
    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_hostile_names_are_escaped(hostile):
    m = model(hostile)
    html = RENDERERS["html"](m, kind="sitting")
    assert "<script>" not in html and "<b>乙</b>" not in html and "&lt;b&gt;乙" in html
    HTMLParser().feed(html)
    tex = RENDERERS["latex"](m, kind="sitting")
    assert "\\textbf{丁}" not in tex and "\\textbackslash{}textbf\\{丁\\}" in tex
    md = RENDERERS["md"](m, kind="sitting")
    assert "丙\\|丙" in md
    rows = list(csv.reader(io.StringIO(RENDERERS["csv"](m, kind="sitting").lstrip("\ufeff"))))
    assert all(not cell.startswith("=") for row in rows for cell in row)
    assert any(cell == "'=1+1" for row in rows for cell in row)


def test_csv_columns_are_fixed():
    rows = list(csv.DictReader(io.StringIO(RENDERERS["csv"](model(), kind="sitting").lstrip("\ufeff"))))
    assert len(rows) == 2 * 6 * 4
    assert list(rows[0])[:6] == ["ruleset", "ruleset_hash", "hand", "hand_id", "banker_seat",
                                 "banker_player"]
    feng = [r for r in rows if r["ruleset"] == "feng" and r["hand"] == "6"]
    assert sorted(float(r["running"]) for r in feng) == sorted(
        float(v) for v in json.loads(RENDERERS["json"](model(), kind="sitting"))["results"][0]["totals_row"])


# --------------------------------------------------------------------------- the command


def test_cli_default_is_the_bundled_sitting():
    result = invoke("sitting")
    assert result.exit_code == 0, result.stderr
    assert "六局" in result.stdout and "feng" in result.stdout


def test_cli_html_and_svg_dir(tmp_path):
    out, charts = tmp_path / "s.html", tmp_path / "charts"
    result = invoke("sitting", EXAMPLE, "-r", "feng", "-r", "app", "--format", "html",
                    "-o", str(out), "--svg-dir", str(charts))
    assert result.exit_code == 0, result.stderr
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in charts.iterdir()) == ["app.svg", "feng.svg"]
    assert "<polyline" in (charts / "feng.svg").read_text(encoding="utf-8")


def test_cli_trust_record(tmp_path):
    bad = "tests/bad/sitting_banker_contradicts.yaml"
    line = error_line(invoke("sitting", bad))
    assert "--trust-record" in line
    result = invoke("sitting", bad, "--trust-record", "-f", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["results"][0]["hands"][1]["banker"] == "west"
    assert report["stamp"]["trust_record"] is True


def test_cli_bad_sitting_writes_nothing(tmp_path):
    out = tmp_path / "out.html"
    out.write_text(KEEP, encoding="utf-8")
    error_line(invoke("sitting", "tests/bad/sitting_hand_seven_cards.yaml", "-f", "html", "-o", str(out)))
    assert out.read_text(encoding="utf-8") == KEEP


def test_cli_set_option_of_the_sitting_block():
    result = invoke("sitting", EXAMPLE, "--set", "feng.ling_nian_zhuang=seed", "-f", "json")
    assert result.exit_code == 0, result.stderr
    hand5 = json.loads(result.stdout)["results"][0]["hands"][4]
    assert "from the seed" in hand5["how"]


# --------------------------------------------------------------------------- simulate --sitting


def sim(*args: str) -> dict:
    result = invoke("simulate", "--sitting", "4", "-n", "12", "--seed", "t", "-f", "json", *args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_simulate_sittings_report_tenure_pool_and_players_with_intervals():
    report = sim("-r", "feng", "-r", "app")
    assert report["kind"] == "simulate-sitting" and report["n"] == 12
    feng, app = report["rulesets"]
    for r in (feng, app):
        assert r["hands"] == 48
        t = r["tenure"]
        assert 1 <= t["spells"]["mean"] <= 4 and t["spells"]["ci95"] is not None
        assert t["changes"]["mean"] == pytest.approx(t["spells"]["mean"] - 1, abs=1e-3)
        assert sum(p["banker_hands"]["mean"] for p in r["players"]) == pytest.approx(4)
        # players and the 官堆 share every 注 of every sitting
        total = sum(p["mean"] for p in r["players"]) + r["guan_dui"]["end"]["mean"]
        assert total == pytest.approx(0, abs=1e-3)
        assert all(v >= 0 for v, _ in r["guan_dui"]["values"])
    assert app["guan_dui"]["end"]["mean"] == 0  # the app has no 官堆
    assert report["pairs"][0]["a"] == "feng" and report["pairs"][0]["spells"]["ci95"]


def test_simulate_sittings_do_not_depend_on_jobs():
    def unstamped(report: dict) -> dict:  # the stamp's command line names the -j
        return {k: v for k, v in report.items() if k != "stamp"}
    assert unstamped(sim("-r", "feng", "-j", "2")) == unstamped(sim("-r", "feng", "-j", "1"))


@pytest.mark.parametrize("fmt", ["text", "md", "html", "latex", "csv"])
def test_simulate_sittings_formats(fmt):
    result = invoke("simulate", "--sitting", "3", "-n", "5", "-r", "feng", "-r", "app", "-f", fmt)
    assert result.exit_code == 0, result.stderr
    assert "spells" in result.stdout
    assert "官堆" in result.stdout or "guan_dui_end" in result.stdout


def test_simulate_sitting_and_same_play_refused():
    line = error_line(invoke("simulate", "--sitting", "3", "--same-play", "feng"))
    assert "--sitting and --same-play" in line
