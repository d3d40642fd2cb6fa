"""Sitting reports: golden files per format (the bundled sitting under feng and app), what
each format must show, escaping of what a sitting file may hold, the CLI, and
``simulate --sitting``.

Golden files: ``python -m pytest tests/test_sitting_reports.py --update-golden``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cli_helpers import KEEP, error_line, invoke

from mahdiao_rules.io.sittingfile import load_sitting
from mahdiao_rules.report.contract import input_info, stamp
from mahdiao_rules.report.render import LANGS, Report, formats_for, render_report, render_text, sitting_report
from mahdiao_rules.ruleset import find_ruleset
from mahdiao_rules.sitting import SittingPlay

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
EXAMPLE = "examples/sitting.yaml"
COMMAND = f"mahdiao sitting {EXAMPLE} -r feng -r app"
EXT = {"text": "txt", "md": "md", "html": "html", "latex": "tex", "csv": "csv", "json": "json",
       "ledger": "ledger.csv"}
SEATS = ("east", "south", "west", "north")


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def report(path: str = EXAMPLE, ids: tuple[str, ...] = ("feng", "app"), **kw) -> Report:
    """The sitting of *path* under *ids*, ready to render in any format."""
    record = load_sitting(path)
    chosen = [find_ruleset(r) for r in ids]
    run = stamp(COMMAND, chosen, [input_info(path, path)], seed=record.seed)
    return sitting_report(record, chosen, stamp=run, play=lambda rs: SittingPlay(rs, record, **kw),
                          input_name=path)


def render(fmt: str, path: str = EXAMPLE, **kw) -> str:
    return render_text(report(path, **kw), fmt)


def model(path: str = EXAMPLE, **kw) -> dict:
    """The sitting as JSON data (the model)."""
    return json.loads(render("json", path, **kw))


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


@pytest.mark.parametrize("fmt", formats_for("sitting"))
def test_sitting_golden(fmt, update_golden):
    check_golden(f"sitting.{EXT[fmt]}", render(fmt), update_golden)


# --------------------------------------------------------------------------- contents


def test_json_has_both_bank_sequences_and_every_ledger():
    report = model()
    assert report["kind"] == "sitting"
    feng, app = report["results"]
    assert feng["bank_sequence"] == ["丙", "丁", "丁", "甲", "乙", "丙"]
    assert app["bank_sequence"] != feng["bank_sequence"]
    assert report["bank_differs"] == [n for n, (a, b) in enumerate(
        zip(feng["bank_sequence"], app["bank_sequence"], strict=True), start=1) if a != b]
    for j, r in enumerate((feng, app)):
        running = dict.fromkeys(report["players"], 0)
        pool = report["guan_dui_start"]
        for hand in report["hands"]:
            h = hand["results"][j]
            assert h["ruleset"] == r["ruleset"]
            assert h["banker_player"] == r["bank_sequence"][hand["number"] - 1]
            s = h["settlement"]
            # every transfer is in the hand's ledger: the nets are its sums
            by_account = dict.fromkeys([*SEATS, "guan_dui"], 0)
            for line in s["ledger"]:
                assert line["item"] and line["source"]
                by_account[line["payer"]] -= line["amount"]
                by_account[line["payee"]] += line["amount"]
            assert sum(by_account.values()) == 0
            for player, seat in r["players"].items():
                assert h["nets"][player] == by_account[seat] == s["seats"][seat]["net"]
                running[player] += h["nets"][player]
                assert h["running"][player] == running[player]
            # the 官堆 carries over from hand to hand
            assert s["guan_dui"]["start"] == pool and s["guan_dui"]["end"] - pool == by_account["guan_dui"]
            pool = s["guan_dui"]["end"]
        assert {p: t["net"] for p, t in r["totals"].items()} == running
        assert r["guan_dui"]["end"] == pool and r["balance"] == 0


def test_html_shows_two_bank_sequences_charts_and_ledgers():
    html = render("html")
    assert html.count('<svg class="chart"') == 2 and html.count("<polyline") == 8
    assert "Every ruleset plays the same deals" in html
    assert re.search(r'<tr class="differs"><td class="num">2</td>', html)
    assert html.count('<table class="ledger">') == 12  # a 免斗 hand pays its 子 too
    assert "大活百得官堆" in html and "顯滅" in html
    assert "<script" not in html


def test_labels_in_every_language():
    for lang in LANGS:
        text = render_text(report(), "text", lang=lang)
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
    html = render("html", hostile)
    assert "<script>" not in html and "<b>乙</b>" not in html and "&lt;b&gt;乙" in html
    HTMLParser().feed(html)
    tex = render("latex", hostile)
    assert "\\textbf{丁}" not in tex and "\\textbackslash{}textbf\\{丁\\}" in tex
    md = render("md", hostile)
    assert "丙\\|丙" in md
    rows = list(csv.reader(io.StringIO(render("csv", hostile).lstrip("\ufeff"))))
    assert all(not cell.startswith("=") for row in rows for cell in row)
    assert any(cell == "'=1+1" for row in rows for cell in row)


def test_csv_columns_are_fixed():
    rows = list(csv.DictReader(io.StringIO(render("csv").lstrip("\ufeff"))))
    assert len(rows) == 2 * 6 * 4
    assert list(rows[0])[:6] == ["hand", "hand_id", "ruleset", "code", "banker_seat", "banker_player"]
    feng = [r for r in rows if r["ruleset"] == "feng" and r["hand"] == "6"]
    totals = model()["results"][0]["totals"]
    assert {r["player"]: float(r["running"]) for r in feng} == {p: t["net"] for p, t in totals.items()}


def test_ledger_csv_sums_to_the_nets():
    nets: dict[tuple[str, str, str], float] = {}
    for row in csv.DictReader(io.StringIO(render("ledger").lstrip("\ufeff"))):
        for who, sign in ((row["payer_player"], -1), (row["payee_player"], 1)):
            if who:
                key = (row["hand"], row["ruleset"], who)
                nets[key] = nets.get(key, 0) + sign * float(row["amount"])
    for hand in model()["hands"]:
        for r in hand["results"]:
            for player, net in r["nets"].items():
                assert nets.get((str(hand["number"]), r["ruleset"], player), 0) == net


# --------------------------------------------------------------------------- hand by hand


def long_sitting(n: int):
    from mahdiao_rules.io.dealfile import random_deals
    from mahdiao_rules.io.sittingfile import Sitting

    return Sitting.of_deals(random_deals("long", n), seed="long")


@pytest.mark.parametrize("fmt", ["json", "csv", "ledger"])
def test_a_sitting_is_written_hand_by_hand(fmt):
    """Hand k is played only after hand k-1 was written: nothing holds every hand's ledger."""
    record, chosen = long_sitting(6), [find_ruleset("feng"), find_ruleset("app")]
    played, sizes = [0], []

    class Counted(SittingPlay):
        def __iter__(self):
            for h in super().__iter__():
                if self.ruleset.id == "feng":
                    played[0] += 1
                yield h

    class Spy(io.StringIO):
        def write(self, text: str) -> int:
            sizes.append((played[0], len(self.getvalue())))
            return super().write(text)

    out = Spy()
    report = sitting_report(record, chosen, stamp=stamp("", chosen), play=lambda rs: Counted(rs, record))
    render_report(report, fmt, out)
    first = {}
    for n, size in sizes:
        first.setdefault(n, size)
    # when hand k (k ≥ 2) was played, the output of hand k-1 was already written
    written = [first[k] for k in range(2, 7)]
    assert written == sorted(written) and len(set(written)) == 5 and written[0] > first[1], sizes[:12]


def test_sitting_memory_is_flat_in_the_number_of_hands():
    import tracemalloc

    rs = find_ruleset("feng")

    def peak(n: int) -> int:
        record = long_sitting(n)  # the record itself is read whole (about 2 kB a hand)
        tracemalloc.start()
        try:
            report = sitting_report(record, [rs], stamp=stamp("", [rs]),
                                    play=lambda r: SittingPlay(r, record))
            with open(os.devnull, "w", encoding="utf-8") as out:
                render_report(report, "json", out)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    a, b = peak(40), peak(200)
    # a few bytes a hand (the bank sequence; the rest is garbage the collector has not reached
    # yet), where a hand's model and ledger take about 20 kB
    assert b < a + 160 * 2000, (a, b)


# --------------------------------------------------------------------------- the command


def test_cli_default_is_the_bundled_sitting():
    result = invoke("sitting")
    assert result.exit_code == 0, result.stderr
    assert "六局" in result.stdout and "feng" in result.stdout


def _piped(args: list[str], text: str):
    from click.testing import CliRunner

    from mahdiao_rules.cli import main
    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        runner = CliRunner()
    return runner.invoke(main, args, input=text, catch_exceptions=False)


def test_a_sitting_in_json_lines_reads_from_standard_input():
    from mahdiao_rules.io.yamlsafe import load_file

    data = load_file(ROOT / EXAMPLE).data
    lines = [json.dumps({k: v for k, v in data.items() if k != "hands"}, ensure_ascii=False)]
    lines += [json.dumps(h, ensure_ascii=False) for h in data["hands"]]
    text = "\n".join(lines) + "\n"
    piped = _piped(["sitting", "-", "-r", "feng", "-r", "app", "-f", "json"], text)
    assert piped.exit_code == 0, piped.stderr
    direct = json.loads(invoke("sitting", EXAMPLE, "-r", "feng", "-r", "app", "-f", "json").stdout)
    mine = json.loads(piped.stdout)
    assert mine["input"] == "<stdin>" and mine["stamp"]["inputs"] == [{"path": "<stdin>", "sha256": None}]
    assert (mine["hands"], mine["results"]) == (direct["hands"], direct["results"])
    assert "<stdin>: ok (sitting of 6 hands)" in _piped(["validate", "-"], text).stdout
    # an error names standard input and the line of the hand
    broken = text.replace('"id": "h3"', '"id": "h3", "colour": "red"')
    assert error_line(_piped(["sitting", "-"], broken)).startswith("mahdiao: error: <stdin>:4: hands[2]")


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
    assert report["hands"][1]["results"][0]["banker"] == "west"
    assert report["trust_record"] is True


def test_cli_bad_sitting_writes_nothing(tmp_path):
    out = tmp_path / "out.html"
    out.write_text(KEEP, encoding="utf-8")
    error_line(invoke("sitting", "tests/bad/sitting_hand_seven_cards.yaml", "-f", "html", "-o", str(out)))
    assert out.read_text(encoding="utf-8") == KEEP


def test_cli_set_option_of_the_sitting_block():
    result = invoke("sitting", EXAMPLE, "--set", "feng.ling_nian_zhuang=seed", "-f", "json")
    assert result.exit_code == 0, result.stderr
    hand5 = json.loads(result.stdout)["hands"][4]["results"][0]
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


@pytest.mark.parametrize("fmt", ["text", "md", "html", "latex"])
def test_sitting_deal_code_label_follows_lang(fmt):
    """A hand's code is labelled as the replay labels it (L.deal_code), in the chosen language."""
    text = render_text(report(), fmt, lang="zh-Hant")
    assert "牌局代碼" in text
    assert "deal code" not in text


def test_money_follows_the_json_amount_rule():
    """Money in the stake unit is written by the rule of every JSON amount (units.json_number):
    whole numbers, halves and quarters as numbers, anything finer as exact "p/q" text."""
    from fractions import Fraction

    from mahdiao_rules.units import fraction_number, json_number

    assert [fraction_number(Fraction(n, d)) for n, d in ((6, 3), (-3, 2), (1, 4), (1, 8), (1, 3))] == \
        [2, -1.5, 0.25, "1/8", "1/3"]
    assert fraction_number(Fraction(2 ** 60 + 1, 2)) == f"{2 ** 60 + 1}/2"  # a float would round it
    assert all(fraction_number(Fraction(t, 24)) == json_number(t) for t in range(-50, 50))
