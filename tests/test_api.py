"""The Python API (``import mahdiao_rules as md``): docs/api.md runs as a doctest, and the
API agrees with the command line it wraps.

pandas is an optional extra (``mahdiao-rules[pandas]``): the examples that need it are
marked ``<!-- doctest: requires pandas -->`` in docs/api.md and skipped, with the reason,
where pandas is not installed; ``.ci/run`` installs the extra once and runs this file
again, so CI checks them.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import json
import pkgutil
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import mahdiao_rules as md
from mahdiao_rules import api

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "api.md"
HAS_PANDAS = importlib.util.find_spec("pandas") is not None
BLOCK = re.compile(r"(?P<mark><!-- doctest: requires pandas -->\n)?```python\n(?P<code>.*?)```", re.S)
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def doc_blocks() -> list[tuple[int, bool, str]]:
    text = DOC.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start("code")) + 1, bool(m.group("mark")), m.group("code"))
            for m in BLOCK.finditer(text)]


def test_the_api_page_runs_as_written() -> None:
    blocks = doc_blocks()
    assert len(blocks) >= 7 and any(needs for _line, needs, _code in blocks)
    globs: dict[str, object] = {}
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    parser = doctest.DocTestParser()
    skipped = 0
    for line, needs_pandas, code in blocks:
        if needs_pandas and not HAS_PANDAS:
            skipped += 1
            continue
        test = parser.get_doctest(code, globs, f"docs/api.md:{line}", str(DOC), line - 1)
        test.globs = globs  # one namespace for the page, as a reader runs it top to bottom
        runner.run(test, clear_globs=False)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} example(s) of docs/api.md failed (output above)"
    assert result.attempted >= 25
    if skipped:
        pytest.skip(f"{skipped} example(s) of docs/api.md need pandas (pip install "
                    "'mahdiao-rules[pandas]'); the others ran")


def test_the_api_module_docstrings_run() -> None:
    result = doctest.testmod(api, optionflags=FLAGS)
    assert result.failed == 0 and result.attempted >= 1


def test_every_export_is_documented_and_none_is_hidden_by_a_subpackage() -> None:
    # The import system sets a submodule on its package: an export named like one
    # (settle, simulate, ruleset) would be shadowed as soon as the submodule loads.
    for info in pkgutil.walk_packages(md.__path__, "mahdiao_rules."):
        if not info.name.startswith(("mahdiao_rules.cli", "mahdiao_rules.__main__")):
            importlib.import_module(info.name)
    doc = DOC.read_text(encoding="utf-8")
    for name in md.__all__:
        value = getattr(md, name)
        assert not isinstance(value, type(md)), f"md.{name} is a module, not the API's {name}"
        if name != "__version__":
            assert value is getattr(api, name)
            assert name in doc or name in {"Deal", "Seat", "Payment"}, f"docs/api.md never shows {name}"
    assert set(md.__all__) - {"__version__"} == set(api.__all__)
    assert "replay" in dir(md)


def test_importing_the_package_loads_no_stage() -> None:
    code = "import sys, mahdiao_rules; print(sorted(m for m in sys.modules if m.startswith('mahdiao_rules')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.replace("'", '"')) == ["mahdiao_rules"]


def test_the_package_is_typed() -> None:
    assert (Path(md.__file__).parent / "py.typed").is_file()


def test_replay_agrees_with_the_command_line_json() -> None:
    from click.testing import CliRunner

    from mahdiao_rules.cli import main

    out = CliRunner().invoke(main, ["replay", "-r", "all", "-f", "json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    replay = md.replay(rulesets="all")
    for deal in report["deals"]:
        for res in deal["results"]:
            mine = replay.result(deal["id"], res["ruleset"])
            for seat, data in res["seats"].items():
                assert mine.nets[seat] == Fraction(str(data["net"])), (deal["id"], res["ruleset"], seat)


def test_amounts_are_exact_fractions_and_balance() -> None:
    third = md.load_ruleset("feng")
    for r in md.replay(md.random_deals("api", 20), [third, "app"]):
        assert all(isinstance(v, Fraction) for v in r.nets.values())
        assert sum(r.nets.values()) + r.guan_dui == 0
        assert sum(p.amount for p in r.ledger if p.payee == "east") - \
            sum(p.amount for p in r.ledger if p.payer == "east") == r.nets["east"]


def test_options_reach_the_settlement_and_bad_input_is_an_input_error(tmp_path) -> None:
    deal = md.examples(ids=["s3-dai-pei"])
    a = md.replay(deal, "feng").result().nets
    b = md.replay(deal, "feng", options={"feng": {"diao_settlement": "winner_only"}}).result().nets
    assert a != b
    with pytest.raises(md.InputError, match="no option"):
        md.load_ruleset("feng", no_such_option="x")
    with pytest.raises(md.InputError, match="not among the rulesets"):
        md.replay(deal, "feng", options={"app": {"face_num": "code_value"}})
    bad = tmp_path / "bad.yaml"
    bad.write_text("banker: east\n", encoding="utf-8")
    with pytest.raises(md.InputError, match=r"bad\.yaml"):
        md.load_deals(bad)
    with pytest.raises(ValueError, match="policy"):
        md.settle_hand(deal[0], "feng", policy="clever")  # type: ignore[arg-type]


def test_simulation_means_are_exact_and_match_the_report() -> None:
    sim = md.simulate_deals("feng", n=30, seed="api")
    mean = sim.mean("feng")
    assert isinstance(mean, Fraction)
    rec = next(r for r in sim.to_records() if r["position"] == "banker")
    assert rec["mean"] == mean and abs(float(mean) - sim.model["rulesets"][0]["positions"][0]["mean"]) < 1e-4


@pytest.mark.skipif(not HAS_PANDAS,
                    reason="pandas is an optional extra (pip install 'mahdiao-rules[pandas]')")
def test_dataframes_have_numeric_nets_or_exact_ones() -> None:
    replay = md.replay(md.examples(), "feng")
    frame = replay.to_dataframe()
    assert list(frame.columns) == ["deal", "ruleset", "seat", "role", "tricks", "status", "net"]
    assert frame["net"].dtype.kind == "f" and len(frame) == 4 * len(md.examples())
    assert isinstance(replay.to_dataframe(exact=True)["net"].iloc[0], Fraction)


def test_the_table_shown_on_the_api_page_is_todays():
    # The printed pandas table is shown as text (pandas is optional): check it without pandas.
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"```text\nruleset +(.+?)\nseat\n(.*?)```", text, re.S)
    assert block, "docs/api.md lost its table"
    rulesets = block.group(1).split()
    replay = md.replay(md.examples(ids=["cross-ruleset"]), rulesets=rulesets)
    for line in block.group(2).strip().splitlines():
        seat, *values = line.split()
        assert [float(v) for v in values] == [float(replay.result(0, rs).nets[seat]) for rs in rulesets], line


def test_a_sitting_agrees_with_the_command_line_json(tmp_path) -> None:
    from click.testing import CliRunner

    from mahdiao_rules.cli import main

    out = CliRunner().invoke(main, ["sitting", "-r", "feng", "-r", "app", "-f", "json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    sit = md.replay_sitting(md.load_sitting(), ["app", "feng"])  # reading order, whatever the order given
    assert [r.ruleset.id for r in sit] == ["feng", "app"]
    for j, summary in enumerate(report["results"]):
        run = sit[summary["ruleset"]]
        assert run.bank_sequence == summary["bank_sequence"]
        assert run.totals == {p: Fraction(str(t["net"])) for p, t in summary["totals"].items()}
        assert run.money == {p: Fraction(str(t["money"])) for p, t in summary["totals"].items()}
        for i, hand in enumerate(report["hands"]):
            r = hand["results"][j]
            assert run.nets[i] == {p: Fraction(str(v)) for p, v in r["nets"].items()}
            assert run.running[i] == {p: Fraction(str(v)) for p, v in r["running"].items()}
    # every ledger line is a payment between players (or the 官堆) that sums to the nets
    feng = sit["feng"]
    for i, row in enumerate(feng.nets):
        lines = [x for x in feng.ledger_records() if x["hand"] == i + 1]
        for player, net in row.items():
            assert sum(x["amount"] for x in lines if x["payee_player"] == player) - \
                sum(x["amount"] for x in lines if x["payer_player"] == player) == net
    assert json.loads(sit.report("json"))["results"][0]["bank_sequence"] == feng.bank_sequence
    with pytest.raises(ValueError, match="unknown format"):
        sit.report("jsonl")
    bad = tmp_path / "s.yaml"
    bad.write_text("hands: []\n", encoding="utf-8")
    with pytest.raises(md.InputError, match=r"s\.yaml"):
        md.replay_sitting(bad)
