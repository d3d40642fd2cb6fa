"""CLI conventions (issue 12 §3): rules show, reading order and colours, curated first run."""

from __future__ import annotations

import re
from pathlib import Path

from cli_helpers import error_line, invoke

from mahdiao_rules.io.dealfile import load_deals
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.play.procedure import prepare
from mahdiao_rules.report.replay import net_chart
from mahdiao_rules.report.ruletable import rules_diff
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
    listing = invoke("rulesets").stdout.splitlines()
    assert [line.split()[0] for line in listing] == ["feng", "qing", "app"]


def test_each_ruleset_keeps_its_colour_in_every_chart():
    deal = load_deals(str(EXAMPLES))[0]
    colours = {}
    for ids in (["feng", "app"], ["app", "qing", "feng"], ["qing", str(VARIANT)]):
        rulesets = resolve_rulesets(ids)
        for chart in (net_chart([settle_deal(rs, deal) for rs in rulesets]),
                      rules_diff(rulesets)["chart"]) if len(rulesets) > 1 else ():
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
