"""CLI conventions (issue 12 §3): rules show, reading order and colours, curated first run."""

from __future__ import annotations

import re
from pathlib import Path

from cli_helpers import error_line, invoke

from mahdiao_rules.io.dealfile import load_deals
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.play.procedure import prepare
from mahdiao_rules.report.contract import stamp
from mahdiao_rules.report.replay import result_info
from mahdiao_rules.report.ruletable import rules_diff_view
from mahdiao_rules.report.views import net_chart
from mahdiao_rules.ruleset import bundled_ids, colour_of, find_ruleset, load_ruleset, resolve_rulesets

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "examples.yaml"
VARIANT = ROOT / "tests" / "data" / "feng_variant.yaml"


# ---------------------------------------------------------------------- rules show


def test_rules_show_prints_the_bundled_yaml_with_a_header():
    out = invoke("rules", "show", "feng").stdout
    body = (ROOT / "rulesets" / "feng.yaml").read_text(encoding="utf-8")
    header, _, rest = out.partition("#\n")
    assert rest == body
    assert "extends: feng" in header and "mahdiao rules show feng > my.yaml" in header


def test_rules_show_names_the_fragments_and_copies_them_so_includes_resolve(tmp_path):
    out = invoke("rules", "show", "app").stdout
    for name in ("app/kai_zhu.yaml", "app/zheng_se_yang.yaml"):
        assert f"mahdiao rules show {name}" in out
    assert invoke("rules", "show", "app/kai_zhu.yaml").stdout.endswith(
        (ROOT / "rulesets" / "app" / "kai_zhu.yaml").read_text(encoding="utf-8"))
    assert "It extends app" in invoke("rules", "show", "qing").stdout
    result = invoke("rules", "show", "app", "--copy-to", str(tmp_path / "mine"))
    assert result.exit_code == 0
    copy = tmp_path / "mine" / "app.yaml"
    text = copy.read_text(encoding="utf-8").replace("id: app\n", "id: mine\n", 1)
    copy.write_text(text, encoding="utf-8")
    assert load_ruleset(str(copy)).item_count == find_ruleset("app").item_count
    again = invoke("rules", "show", "app", "--copy-to", str(tmp_path / "mine"))
    assert "will not overwrite" in error_line(again)


def test_rules_show_refuses_what_is_not_bundled():
    line = error_line(invoke("rules", "show", "../pyproject.toml"))
    assert "no bundled ruleset or fragment" in line and "feng, qing, app" in line
    assert "no bundled ruleset" in error_line(invoke("rules", "show", "fung"))


# ---------------------------------------------------------------------- order and colours


def test_rulesets_come_in_reading_order_whatever_the_order_given():
    assert bundled_ids() == ["feng", "qing", "app"]
    ids = [rs.id for rs in resolve_rulesets([str(VARIANT), "app", "feng"])]
    assert ids == ["feng", "app", "feng_variant"]
    assert [rs.id for rs in resolve_rulesets(["all"])] == ["feng", "qing", "app"]
    listing = [line for line in invoke("rulesets").stdout.splitlines() if not line.startswith("#")]
    assert [line.split()[0] for line in listing] == ["feng", "qing", "app"]


def test_each_ruleset_keeps_its_colour_in_every_chart():
    deal = load_deals(str(EXAMPLES))[0]
    colours = {}
    for ids in (["feng", "app"], ["app", "qing", "feng"], ["qing", str(VARIANT)]):
        rulesets = resolve_rulesets(ids)
        results = [result_info(settle_deal(rs, deal)) for rs in rulesets]
        for chart in (net_chart(results, rulesets),
                      rules_diff_view(rulesets, stamp=stamp(""))["chart"]) if len(rulesets) > 1 else ():
            for series, colour in zip(chart["series"], chart["colours"], strict=True):
                assert colours.setdefault(series, colour) == colour, series
    assert len(set(colours.values())) == len(colours) == 4
    assert colour_of(find_ruleset("feng")) == "#0072B2"


def test_html_charts_draw_each_ruleset_in_its_colour():
    out = invoke("replay", "-r", "app", "-r", "feng", "-f", "html", "--deal", "cross-ruleset").stdout
    feng, app = colour_of(find_ruleset("feng")), colour_of(find_ruleset("app"))
    assert re.search(rf'fill="{feng}"><title>[^<]*feng:', out)
    assert re.search(rf'fill="{app}"><title>[^<]*app:', out)


# ---------------------------------------------------------------------- the first run


def test_every_bundled_record_agrees_with_feng_and_qing():
    for deal in load_deals(str(EXAMPLES)):
        if deal.play is None:
            continue
        for rs_id in ("feng", "qing"):
            assert prepare(find_ruleset(rs_id), deal).leader == deal.play[0].lead, (deal.id, rs_id)


def test_the_default_replay_is_the_curated_set_and_contradicts_nothing():
    out = invoke("replay").stdout
    assert "procedure:" not in out and "Random deal" not in out
    ids = [d.id for d in load_deals(str(EXAMPLES))]
    assert ids == ["bai-lao-lives", "s3-dai-pei", "s3-example-1", "s3-example-3", "cross-ruleset",
                   "si-ji-mian-dou", "yi-shang-si-zun-you-bai"]


EXPECTED_FENG_NETS = {  # what each deal's notes (and the sources) say feng pays: E, S, W, N
    "s3-dai-pei": [-8, 6, 3, -1],
    "s3-example-1": [17, 0, -1, -16],
    "cross-ruleset": [14, 0, 0, -14],
    "si-ji-mian-dou": [2, -2, -2, -2],
    "yi-shang-si-zun-you-bai": [17, -7, -7, -7],
}


def test_the_worked_examples_pay_what_their_notes_say():
    feng = find_ruleset("feng")
    deals = {d.id: d for d in load_deals(str(EXAMPLES))}
    for deal_id, nets in EXPECTED_FENG_NETS.items():
        got = [n / 24 for n in settle_deal(feng, deals[deal_id]).nets[:4]]
        assert got == nets, deal_id
    assert "+14, 0, 0, −14" in deals["cross-ruleset"].notes
    assert "east −8, south +6, west +3, north −1" in deals["s3-dai-pei"].notes


# ---------------------------------------------------------------------- - as FILE, -o and -f

import json  # noqa: E402

import pytest  # noqa: E402
from click.shell_completion import ShellComplete  # noqa: E402
from click.testing import CliRunner  # noqa: E402

from mahdiao_rules.cli import common, main  # noqa: E402


def run_with_input(args: list[str], text: str):
    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        runner = CliRunner()
    return runner.invoke(main, args, input=text, catch_exceptions=False)


def test_dash_reads_standard_input_for_every_command_that_reads_a_file():
    text = EXAMPLES.read_text(encoding="utf-8")
    piped = run_with_input(["replay", "-", "-f", "json"], text)
    assert piped.exit_code == 0, piped.stderr
    direct = invoke("replay", str(EXAMPLES), "-f", "json").stdout
    assert json.loads(piped.stdout)["deals"] == json.loads(direct)["deals"]
    assert run_with_input(["explain", "-", "--deal", "cross-ruleset", "--seat", "east"], text).exit_code == 0
    codes = run_with_input(["code", "-"], text)
    assert codes.exit_code == 0 and len(codes.stdout.splitlines()) == 7 + 1  # and the stamp line
    assert run_with_input(["validate", "-"], text).stdout.startswith("<stdin>: ok (7 deals)\n")
    deals_json = invoke("deal", "-n", "2", "-f", "json").stdout
    assert "<stdin>: ok (2 deals)" in run_with_input(["validate", "-"], deals_json).stdout
    history = (ROOT / "examples" / "historical.yaml").read_text(encoding="utf-8")
    first = re.search(r"(?m)^- id: (\S+)", history).group(1)
    done = run_with_input(["reconstruct", "-", "--deal", first, "--samples", "20", "-f", "json"], history)
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["input"] == "<stdin>"


def test_json_lines_deals_on_standard_input_read_alike_by_every_command():
    """validate - and explain - read JSON Lines deals as replay - does (they used to take
    them for one JSON document: "<stdin>:2: JSON syntax error: Extra data")."""
    jsonl = invoke("deal", "-n", "2", "-f", "jsonl").stdout
    assert len(jsonl.splitlines()) == 3  # the header, then a deal a line
    checked = run_with_input(["validate", "-"], jsonl)
    assert checked.exit_code == 0, checked.stderr
    assert checked.stdout.startswith("<stdin>: ok (2 deals)\n")
    as_json = json.loads(run_with_input(["validate", "-f", "json", "-"], jsonl).stdout)
    assert as_json["ok"] and as_json["files"][0]["deals"] == 2
    piped = run_with_input(["explain", "-", "--deal", "0-2", "--seat", "east", "-f", "json"], jsonl)
    assert piped.exit_code == 0, piped.stderr
    deals_yaml = invoke("deal", "-n", "2").stdout
    direct = run_with_input(["explain", "-", "--deal", "0-2", "--seat", "east", "-f", "json"], deals_yaml)
    mine, theirs = json.loads(piped.stdout), json.loads(direct.stdout)
    assert mine["deal"]["id"] == "0-2" and (mine["groups"], mine["net"]) == (theirs["groups"], theirs["net"])
    many = run_with_input(["explain", "-", "--seat", "east"], jsonl)
    assert "the file holds 2 deals; choose one with --deal (ids: 0-1, 0-2)" in error_line(many)
    unknown = run_with_input(["explain", "-", "--deal", "nope", "--seat", "east"], jsonl)
    assert error_line(unknown) == "mahdiao: error: <stdin>: no deal with id 'nope' (ids: 0-1, 0-2)"


def test_what_the_first_line_says():
    from mahdiao_rules.io.jsonstream import jsonl_kind

    assert jsonl_kind(b'{"kind": "deals", "schema_version": "1.0"}\n') == "deals"
    assert jsonl_kind(b'\xef\xbb\xbf{"id": "d", "hands": {"east": []}}\n') == "deals"
    assert jsonl_kind(b'{"players": ["a", "b", "c", "d"], "seed": "s"}\n') == "sitting"
    assert jsonl_kind(b'{"deals": []}\n') is None  # a whole deal file on one line
    assert jsonl_kind(b'{"hands": [{"code": "x"}]}\n') is None  # a whole sitting on one line
    assert jsonl_kind(b'{\n') is None and jsonl_kind(b"deals:\n") is None
    assert jsonl_kind(b"[1, 2]\n") is None and jsonl_kind(b"\xff\xfe{\x00\n") is None


def test_bad_standard_input_is_one_line_naming_stdin():
    result = run_with_input(["replay", "-"], "deals: [\n")
    assert error_line(result).startswith("mahdiao: error: <stdin>:2: ")


@pytest.mark.parametrize(("ext", "start"), [
    ("html", "<!DOCTYPE html>"), ("md", "# "), ("json", "{"), ("csv", "\ufeffdeal,"),
    ("tex", "%"), ("txt", "馬吊 replay")])
def test_the_output_extension_names_the_format(tmp_path, ext, start):
    out = tmp_path / f"report.{ext}"
    assert invoke("replay", "--deal", "cross-ruleset", "-o", str(out)).exit_code == 0
    assert out.read_text(encoding="utf-8").startswith(start)


def test_a_format_that_contradicts_the_extension_is_an_error(tmp_path):
    line = error_line(invoke("replay", "-o", str(tmp_path / "x.html"), "-f", "csv"))
    assert "-f csv contradicts -o" in line and "html" in line
    assert not (tmp_path / "x.html").exists()
    assert invoke("replay", "-o", str(tmp_path / "x.html"), "-f", "html").exit_code == 0  # agreeing is fine
    assert invoke("replay", "-o", str(tmp_path / "notes.out")).exit_code == 0  # unknown: the default
    assert (tmp_path / "notes.out").read_text(encoding="utf-8").startswith("馬吊 replay")
    for args in (["deal", "-n", "1"], ["simulate", "-n", "20"], ["rules", "table", "feng"],
                 ["reconstruct", "--samples", "5", "--deal", "hongloumeng-continuation"]):
        assert invoke(*args, "-o", str(tmp_path / "y.json")).exit_code == 0, args
        json.loads((tmp_path / "y.json").read_text(encoding="utf-8"))
        assert "contradicts" in error_line(invoke(*args, "-o", str(tmp_path / "z.json"), "-f", "text"
                                                  if args[0] != "deal" else "yaml"))


def test_n_means_a_count_of_deals_everywhere():
    for command in ("deal", "simulate", "ablate", "bench"):
        params = {p.name: p for p in main.commands[command].params}
        assert any("-n" in getattr(p, "opts", []) and p.name in ("count", "n")
                   for p in params.values()), command
    recon = {o for p in main.commands["reconstruct"].params for o in getattr(p, "opts", [])}
    assert "--samples" in recon and "-n" not in recon


def test_rulesets_and_validate_speak_json(tmp_path):
    data = json.loads(invoke("rulesets", "-f", "json").stdout)
    assert [r["id"] for r in data["rulesets"]] == ["feng", "qing", "app"]
    assert all(r["colour"].startswith("#") and r["items"] > 0 for r in data["rulesets"])
    result = invoke("validate", str(EXAMPLES), "tests/bad/seat_no.yaml", "-f", "json")
    assert result.exit_code == 2
    files = json.loads(result.stdout)["files"]
    assert files[0] == {"file": str(EXAMPLES), "ok": True, "kind": "deals", "deals": 7}
    assert files[1]["ok"] is False and files[1]["line"] == 3 and "banker" in files[1]["error"]


# ---------------------------------------------------------------------- progress


def test_progress_only_on_a_terminal(monkeypatch):
    args = ["simulate", "-n", "1000", "-r", "feng", "--progress"]
    assert invoke(*args).stderr == ""  # stderr is not a terminal: nothing, even when asked
    monkeypatch.setattr(common, "stderr_is_terminal", lambda: True)
    assert "simulating" in invoke(*args).stderr
    assert invoke("simulate", "-n", "20", "-r", "feng").stderr == ""  # too short to need one
    assert "dealing" in invoke("deal", "-n", "2000").stderr
    assert "reconstructing" in invoke("reconstruct", "--samples", "5", "--deal",
                                      "hongloumeng-continuation").stderr


# ---------------------------------------------------------------------- ablate


def test_ablate_ranks_real_effects_first_and_marks_them():
    model = json.loads(invoke("ablate", "-r", "feng", "-n", "300", "-f", "json").stdout)
    ranking = model["ablation"]["ranking"]
    flags = [r["excludes_zero"] for r in ranking]
    assert flags == sorted(flags, reverse=True)  # every option with a real effect comes first
    for r in ranking:
        for a in r["alternatives"]:
            lo, hi = a["banker_diff"]["ci95"]
            assert a["excludes_zero"] == (lo > 0 or hi < 0)
    real = [r["effect"] for r in ranking if r["excludes_zero"]]
    assert real == sorted(real, reverse=True)
    assert "≠0" in invoke("ablate", "-r", "feng", "-n", "50", "--options", "first_lead").stdout


# ---------------------------------------------------------------------- completion


def complete(line: str) -> list[str]:
    args = line.split()
    incomplete = "" if line.endswith(" ") else args.pop()
    comp = ShellComplete(main, {}, "mahdiao", "_MAHDIAO_COMPLETE")
    return [c.value for c in comp.get_completions(args[1:], incomplete)]


def test_completion_offers_ruleset_ids_options_and_readings():
    assert complete("mahdiao replay -r ") == ["feng", "qing", "app", "all"]
    assert complete("mahdiao rules table q") == ["qing"]
    assert "feng.diao_settlement=" in complete("mahdiao replay --set feng.")
    assert complete("mahdiao simulate --set feng.diao_settlement=") == [
        "feng.diao_settlement=differential", "feng.diao_settlement=winner_only"]
    assert complete("mahdiao explain --seat s") == ["south"]
    assert complete("mahdiao replay --set nosuch.x") == []


def test_the_first_run_says_how_to_see_more(monkeypatch):
    assert invoke("replay").stderr == ""  # not on a terminal: the report only
    monkeypatch.setattr(common, "stderr_is_terminal", lambda: True)
    hint = invoke("replay").stderr
    assert "bundled worked examples" in hint and "mahdiao replay -r all" in hint
    assert invoke("replay", str(EXAMPLES)).stderr == ""  # only for the bundled examples


# ---------------------------------------------------------------------- the same formats everywhere

import shutil  # noqa: E402
import subprocess  # noqa: E402

REPORT_COMMANDS = {
    "replay": ["replay", "--deal", "cross-ruleset"],
    "explain": ["explain", "--deal", "cross-ruleset", "--seat", "east"],
    "rules table": ["rules", "table", "feng"],
    "rules diff": ["rules", "diff", "feng", "app"],
    "simulate": ["simulate", "-n", "20"],
    "ablate": ["ablate", "-r", "feng", "--options", "first_lead", "-n", "20"],
    "reconstruct": ["reconstruct", "--samples", "10", "--deal", "s3-example-3-partial"],
}


@pytest.mark.parametrize("name", list(REPORT_COMMANDS))
def test_every_report_command_offers_every_format(name, tmp_path):
    for ext in ("txt", "md", "html", "tex", "csv", "json"):
        out = tmp_path / f"r.{ext}"
        result = invoke(*REPORT_COMMANDS[name], "-o", str(out))
        assert result.exit_code == 0, (name, ext, result.stderr)
        text = out.read_text(encoding="utf-8")
        if ext == "json":
            json.loads(text)
        elif ext == "csv":
            assert text.startswith("\ufeff") and text.count("\n") >= 2
        elif ext == "html":
            assert text.startswith("<!DOCTYPE html>")
        elif ext == "tex":
            assert "\\begin{document}" in text and "\\end{document}" in text


@pytest.mark.skipif(shutil.which("xelatex") is None, reason="xelatex is not installed (Debian: texlive-xetex "
                    "texlive-lang-chinese); the LaTeX text is still checked above")
@pytest.mark.parametrize("name", ["explain", "simulate", "ablate", "reconstruct"])
def test_the_new_latex_reports_compile(name, tmp_path):
    invoke(*REPORT_COMMANDS[name], "-o", str(tmp_path / "t.tex"))
    done = subprocess.run(["xelatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:]


def test_a_bundled_example_is_named_as_in_a_checkout():
    from mahdiao_rules.io.resources import example

    for name in ("examples.yaml", "sitting.yaml", "historical.yaml"):
        path, shown = example(name)
        assert path.is_file() and shown == f"examples/{name}"
    assert invoke("validate", str(example("sitting.yaml")[0])).exit_code == 0
    assert "input: examples/sitting.yaml sha256:" in invoke("sitting").stdout
