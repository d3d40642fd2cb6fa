"""`mahdiao simulate` / `ablate` / `bench`: determinism for any --jobs, common random numbers,
the statistics against a hand computation, the deals file round trip, streaming memory."""

from __future__ import annotations

import json
import math
import statistics
import textwrap
import tracemalloc
from collections import Counter
from fractions import Fraction

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mahdiao_rules.cli.sim import ablate, bench, bench_table, render, simulate
from mahdiao_rules.io.dealfile import dump_deals, load_deals, random_deals
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.play.policies import auto_play, make_policy
from mahdiao_rules.report.render import Report, render_text
from mahdiao_rules.ruleset import bundled_ids, find_ruleset
from mahdiao_rules.settle.hand import MIAN_DOU
from mahdiao_rules.settle.ledger import nets
from mahdiao_rules.simulate import (
    BenchRow,
    Plan,
    Slot,
    benchmark,
    build_model,
    describe,
    histogram,
    proportion,
    run,
)
from mahdiao_rules.units import TICKS_PER_ZHU

ALL = tuple(bundled_ids())


def invoke(cmd, args, ok=True):
    result = CliRunner().invoke(cmd, args, catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output + result.stderr
    return result


def model_of(*args: str) -> dict:
    return json.loads(invoke(simulate, [*args, "--format", "json"]).stdout)


# ====================================================================== determinism


def test_jobs_do_not_change_the_result_byte_for_byte():
    args = ["-n", "150", "--seed", "jobs", "-r", "all"]
    one = invoke(simulate, [*args, "--jobs", "1", "--format", "json"]).stdout
    two = invoke(simulate, [*args, "--jobs", "2", "--format", "json"]).stdout
    again = invoke(simulate, [*args, "--jobs", "2", "--format", "json"]).stdout
    assert one == two == again
    assert json.loads(one)["n"] == 150


def test_chunking_does_not_change_the_result():
    plan = Plan(n=90, seed="chunks", slots=(Slot("feng"), Slot("app")), policy="random")
    a = build_model(plan, run(plan, chunk=7))
    b = build_model(plan, run(plan, chunk=90))
    assert a == b


# ====================================================================== common random numbers


def per_deal(rs_id: str, policy: str, deals, **options):
    rs = find_ruleset(rs_id, options or None)
    pol = make_policy(policy, rs)
    return [settle_deal(rs, d, play=auto_play(rs, d, pol), ledger=False) for d in deals]


def test_statistics_match_a_hand_computation():
    """Seven deals, computed by hand from per-deal settlements (floats, statistics module)."""
    n = 7
    m = model_of("-n", str(n), "--seed", "hand", "-r", "feng", "-r", "app", "--policy", "random")
    deals = random_deals("hand", n)
    got = {r["label"]: r for r in m["rulesets"]}
    rel = {}
    for rs_id in ("feng", "app"):
        rows = per_deal(rs_id, "random", deals)
        rel[rs_id] = [[s.nets[(d.banker + k) % 4] / TICKS_PER_ZHU for k in range(4)] + [s.nets[4] / 24]
                      for d, s in zip(deals, rows, strict=True)]
        for k, pos in enumerate(got[rs_id]["positions"]):
            xs = [row[k] for row in rel[rs_id]]
            mean, sd = statistics.fmean(xs), statistics.stdev(xs)
            assert pos["mean"] == pytest.approx(mean, abs=1e-4)
            assert pos["sd"] == pytest.approx(sd, abs=1e-4)
            half = 1.959963984540054 * sd / math.sqrt(n)
            assert pos["ci95"] == pytest.approx([mean - half, mean + half], abs=2e-4)
        md = sum(s.status == MIAN_DOU for s in rows)
        assert got[rs_id]["mian_dou"]["count"] == md
        fired = Counter(i for s in rows for i in {f.item.id for f in s.firings})
        assert {it["id"]: it["count"] for it in got[rs_id]["items"] if it["count"]} == dict(fired)
        assert sum(got[rs_id]["histogram"]) == n
        assert sum(p["sum"] for p in got[rs_id]["positions"]) == 0  # every ledger balances
    # pairwise: the same deals (common random numbers), paired differences
    pair = m["pairs"][0]
    assert (pair["a"], pair["b"]) == ("feng", "app")
    for k, pos in enumerate(pair["positions"]):
        ds = [a[k] - b[k] for a, b in zip(rel["feng"], rel["app"], strict=True)]
        assert pos["mean"] == pytest.approx(statistics.fmean(ds), abs=1e-4)
        assert pos["sd"] == pytest.approx(statistics.stdev(ds), abs=1e-4)
    best = [max(range(4), key=lambda s, r=r: r[s]) for r in rel["feng"]]
    assert 0 <= pair["best_seat_changed"]["count"] <= n and best


def test_every_ruleset_gets_the_same_deals():
    """A ruleset's figures do not depend on which other rulesets share the run."""
    alone = model_of("-n", "40", "--seed", "crn", "-r", "feng")
    shared = model_of("-n", "40", "--seed", "crn", "-r", "feng", "-r", "qing")
    same = lambda r: {k: v for k, v in r.items() if k != "histogram"}  # noqa: E731 (bins are shared)
    assert same(alone["rulesets"][0]) == same(shared["rulesets"][0])
    # …and the pair's differences are those of the same deals
    pair = shared["pairs"][0]
    diff = Fraction(str(alone["rulesets"][0]["positions"][0]["sum"])) - \
        Fraction(str(shared["rulesets"][1]["positions"][0]["sum"]))
    assert Fraction(str(pair["positions"][0]["sum"])) == diff


def test_same_play_settles_one_play_under_every_ruleset():
    m = model_of("-n", "30", "--seed", "sp", "-r", "feng", "-r", "app", "--same-play", "app")
    assert m["settings"]["same_play"] == "app"
    own = model_of("-n", "30", "--seed", "sp", "-r", "app")
    assert m["rulesets"][1]["positions"] == own["rulesets"][0]["positions"]
    bad = invoke(simulate, ["-n", "5", "-r", "feng", "--same-play", "app"], ok=False)
    assert bad.exit_code == 2 and "--same-play" in bad.stderr


def test_deals_out_round_trip_replays_to_the_same_nets(tmp_path):
    out = tmp_path / "deals.yaml"
    m = model_of("-n", "25", "--seed", "rt", "-r", "feng", "-r", "app", "--policy", "random",
                 "--deals-out", str(out))
    deals = load_deals(str(out))
    assert deals == random_deals("rt", 25)
    assert out.read_text(encoding="utf-8") == dump_deals(deals, title="random deals, seed 'rt'",
                                                         stamp=m["stamp"])
    for r in m["rulesets"]:
        rs = find_ruleset(r["id"])
        # `mahdiao replay` plays an unrecorded deal at random with the same seed
        total = sum(settle_deal(rs, d).nets[d.banker] for d in deals)
        assert Fraction(str(r["positions"][0]["sum"])) * TICKS_PER_ZHU == total
    # the heuristic is reproduced from the file too
    out2 = tmp_path / "deals.json"
    m2 = model_of("-n", "25", "--seed", "rt", "-r", "app", "--deals-out", str(out2), "--jobs", "2")
    deals2 = load_deals(str(out2))
    assert deals2 == deals
    rs = find_ruleset("app")
    pol = make_policy("heuristic", rs)
    total = sum(settle_deal(rs, d, policy=pol).nets[d.banker] for d in deals2)
    assert Fraction(str(m2["rulesets"][0]["positions"][0]["sum"])) * TICKS_PER_ZHU == total


def test_streaming_memory_does_not_grow_with_n():
    """tracemalloc peak of a run with 4× the deals stays within a small margin (chunks of 50)."""
    plan = lambda n: Plan(n=n, seed="mem", slots=(Slot("feng"),), policy="random")  # noqa: E731
    run(plan(60), chunk=50)  # warm the caches (compiled rulesets, templates)
    peaks = []
    for n in (200, 800):
        tracemalloc.start()
        stats = run(plan(n), chunk=50)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert stats.n == n
    assert peaks[1] < peaks[0] * 1.25 + 200_000, peaks


# ====================================================================== statistics units


def test_describe_is_exact_from_integer_sums():
    xs = [24, -36, 0, 12, 60]  # ticks
    d = describe(len(xs), sum(xs), sum(x * x for x in xs))
    zs = [x / 24 for x in xs]
    assert d["mean"] == pytest.approx(statistics.fmean(zs), abs=1e-4)  # reports keep 4 decimals
    assert d["sd"] == pytest.approx(statistics.stdev(zs), abs=1e-4)
    assert d["sum"] == 2.5
    assert describe(1, 24, 576)["sd"] is None
    assert describe(0, 0, 0)["mean"] is None


def test_proportion_has_a_wilson_interval():
    p = proportion(10, 100)
    assert p["share"] == 0.1
    assert p["ci95"][0] == pytest.approx(0.0552, abs=1e-3)
    assert p["ci95"][1] == pytest.approx(0.1744, abs=1e-3)
    assert proportion(0, 20)["ci95"][0] == 0.0


def test_histogram_bins_share_a_common_range():
    h = histogram([Counter({-24: 2, 48: 1}), Counter({120: 4})])
    assert sum(sum(b["counts"]) for b in h["bins"]) == 7
    assert h["bins"][0]["lo"] <= -1 and h["bins"][-1]["hi"] > 5


@settings(max_examples=40, deadline=None)
@given(seed=st.text(min_size=1, max_size=8), policy=st.sampled_from(["random", "heuristic"]),
       rs_id=st.sampled_from(ALL))
def test_every_simulated_ledger_balances(seed, policy, rs_id):
    rs = find_ruleset(rs_id)
    pol = make_policy(policy, rs)
    for deal in random_deals(seed, 3):
        full = settle_deal(rs, deal, policy=pol)
        fast = settle_deal(rs, deal, policy=pol, ledger=False)
        assert sum(nets(full.ledger)) == 0
        assert fast.nets == full.nets


# ====================================================================== reports and errors


@pytest.mark.parametrize("fmt", ["text", "md", "html"])
def test_report_formats(fmt, tmp_path):
    out = tmp_path / f"r.{fmt}"
    invoke(simulate, ["-n", "20", "--seed", "f", "-r", "feng", "-r", "app", "-f", fmt, "-o", str(out)])
    text = out.read_text(encoding="utf-8")
    assert "椿家" in text and "免斗" in text and "大活百" in text
    if fmt == "html":
        assert text.startswith("<!DOCTYPE html>") and "<svg" in text and "http" not in text


def test_only_the_report_goes_to_stdout(monkeypatch):
    from mahdiao_rules.cli import common

    monkeypatch.setattr(common, "stderr_is_terminal", lambda: True)  # progress is for terminals only
    r = invoke(simulate, ["-n", "30", "--seed", "p", "-r", "feng", "--progress", "-f", "json"])
    json.loads(r.stdout)
    assert "simulating" in r.stderr


@pytest.mark.parametrize("args, message", [
    (["-r", "nosuch"], "unknown ruleset"),
    (["-r", "feng", "--set", "app.face_num=code_value"], "not in this run"),
    (["-r", "feng", "--set", "feng.qi_zhuo=never"], "qi_zhuo"),
    (["-r", "feng", "--deals-out", "/no/such/dir/d.yaml"], "folder does not exist"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    r = invoke(simulate, ["-n", "3", *args], ok=False)
    assert r.exit_code == 2
    assert message in r.stderr and r.stderr.count("\n") == 1


# ====================================================================== ablate


CRAFTED = """\
id: crafted
name: 試驗規則
extends: feng
options:
  big:
    name: 大
    description: the banker collects ten 注 from each 散 in every played hand
    default: pay
    choices:
      pay: {description: paid, source: {inference: test}}
      skip: {description: not paid, source: {inference: test}}
    source: {inference: test}
  small:
    name: 小
    description: one 注 for six tricks or more
    default: pay
    choices:
      pay: {description: paid, source: {inference: test}}
      skip: {description: not paid, source: {inference: test}}
    source: {inference: test}
items:
  - id: big_bonus
    name: 大獎
    phase: play
    channel: kai_zhu
    zhu: {option: big, cases: {pay: 10, skip: 0}}
    when: {banker: true}
    source: {inference: test}
  - id: small_bonus
    name: 小獎
    phase: play
    channel: kai_zhu
    zhu: {option: small, cases: {pay: 1, skip: 0}}
    when: {tricks: {min: 6}}
    source: {inference: test}
"""


def test_ablate_ranks_the_option_with_the_known_impact_first(tmp_path):
    path = tmp_path / "crafted.yaml"
    path.write_text(CRAFTED, encoding="utf-8")
    r = invoke(ablate, ["-r", str(path), "--options", "small,big,qi_zhuo", "-n", "60", "--seed", "ab",
                        "-f", "json"])
    ranking = json.loads(r.stdout)["ablation"]["ranking"]
    assert ranking[0]["option"] == "big"
    big = ranking[0]["alternatives"][0]
    assert big["value"] == "skip" and big["banker_diff"]["mean"] < -20
    assert big["banker_diff"]["ci95"][1] < 0
    text = invoke(ablate, ["-r", str(path), "--options", "big", "-n", "10"]).stdout
    assert "big" in text and "skip" in text


def test_ablate_lists_every_feng_reading():
    r = invoke(ablate, ["-r", "feng", "-n", "2", "-f", "json"])
    ranked = {row["option"] for row in json.loads(r.stdout)["ablation"]["ranking"]}
    assert ranked == set(find_ruleset("feng").options)
    assert {"tu_additivity", "tu_shang_zhuo", "ba_zhuo_diao", "yi_shang_multi", "ban_wen_num",
            "shang_cards", "quan_tu", "yi_shang_quan_diao", "dai_pei_amount"} <= ranked


def test_ablate_rejects_an_unknown_option():
    r = invoke(ablate, ["-r", "feng", "--options", "qi_zuo", "-n", "3"], ok=False)
    assert r.exit_code == 2 and "did you mean qi_zhuo" in r.stderr


def test_render_of_ablation_in_every_format():
    r = invoke(ablate, ["-r", "feng", "--options", "qi_zhuo", "-n", "8", "-f", "json"])
    model = json.loads(r.stdout)
    for fmt in ("text", "md", "html"):
        assert "qi_zhuo" in render(model, fmt)


@pytest.mark.parametrize("args", [["simulate", "-r", "feng"], ["simulate", "-r", "feng", "--sitting", "2"],
                                  ["ablate", "-r", "feng", "--options", "first_lead"]])
def test_simulation_reports_carry_the_shared_stamp_and_page(args):
    """The stamp of every other report (c.stamp_text, h.stamp, the LaTeX macro) with its
    labels in the report language, and the HTML page every report extends."""
    command = simulate if args[0] == "simulate" else ablate
    model = json.loads(invoke(command, [*args[1:], "-n", "3", "--seed", "s-1", "-f", "json"]).stdout)
    kind = "simulate-sitting" if "--sitting" in args else "simulate"
    digest = find_ruleset("feng").content_hash
    labels = {"en": ("reproduce", "seed of the draws", "command"),
              "zh-Hant": ("重現所需", "拈牌種子", "指令")}
    for lang, words in labels.items():
        for fmt in ("text", "md", "html", "latex"):
            text = render_text(Report(kind, model), fmt, lang=lang)
            for needle in (*words, digest, "s-1"):
                assert needle in text, (fmt, lang, needle)
    page = render(model, "html")
    assert '<meta name="generator"' in page and '<dl class="stamp">' in page
    assert "Reproduce" not in page and "<dt>seed</dt>" not in page  # the old hand-written stamp


# ====================================================================== bench


def test_bench_runs_every_case_without_timing_assertions():
    rows = benchmark(["feng"], n=12, repeat=1)
    assert {r.what for r in rows} == {"settle", "random", "heuristic"}
    assert all(r.per_second > 0 for r in rows)
    table = bench_table([*rows, BenchRow("feng", "reference", 1.0, [1.0])])
    assert "feng" in table and "×" in table
    assert invoke(bench, ["-r", "feng", "-n", "10", "--repeat", "1", "--no-reference"]).stdout


def test_crafted_file_is_a_valid_ruleset(tmp_path):
    path = tmp_path / "crafted.yaml"
    path.write_text(textwrap.dedent(CRAFTED), encoding="utf-8")
    assert find_ruleset(str(path)).options["big"].default == "pay"
