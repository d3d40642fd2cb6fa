"""The ``mahdiao`` command line: the happy paths, and every bad input as one clear line and exit 2.

The bad inputs live in ``tests/bad/``: each ``NAME`` (a file, or a folder of files) has a
sibling ``NAME.expect`` (plain text) whose lines are

1. the command that reads it: ``replay`` (``mahdiao replay NAME -o out.txt``),
   ``sitting`` (``mahdiao sitting NAME -o out.txt``: errors only a ruleset's procedure
   finds, such as a recorded 椿 it contradicts), ``validate`` (``mahdiao validate NAME``),
   or ``run ARGS…`` — any command, split like a shell line, with ``{}`` standing for NAME
   and ``{out}`` for an output file that must not come into being;
2. a fragment the error message must contain;
3. the line the message must name, or ``-``; or ``PATH:LINE`` / ``PATH:-`` when the
   message names another file than NAME (a template inside a folder case, a base the
   ruleset extends), PATH relative to ``tests/bad/``;
4. optionally ``xfail: REASON`` — a known weak message; the case is a strict xfail,
   so it starts failing (XPASS) once the message is fixed and the line can go.

``base_deal.yaml``, ``base_ruleset.yaml`` and ``base_sitting.yaml`` are the valid files
the bad ones change in one place; ``ruleset_*`` files are rulesets, ``sitting_*`` files
sittings, the others deal files.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_helpers import KEEP, error_line, invoke
from click.testing import Result

from mahdiao_rules.io.dealfile import load_deals
from mahdiao_rules.ruleset import bundled_ids, find_ruleset

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
BAD = TESTS / "bad"
EXAMPLES = ROOT / "examples" / "examples.yaml"
FENG = ROOT / "rulesets" / "feng.yaml"
SEATS = ("east", "south", "west", "north")
LEDGER_KEYS = {"payer", "payee", "amount", "item", "name", "source"}


def ok(*args: str) -> Result:
    result = invoke(*args)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    return result


def replay_json(*args: str) -> dict:
    return json.loads(ok("replay", "--format", "json", *args).stdout)


def example_ids() -> list[str]:
    return [d.id for d in load_deals(EXAMPLES)]


def nets(result: dict) -> dict[str, float]:
    return {seat: result["seats"][seat]["net"] for seat in SEATS}


@pytest.fixture(scope="module")
def feng_report() -> dict:
    return replay_json()


# --------------------------------------------------------------------------- replay


def test_replay_without_file_reports_every_bundled_deal():
    out = ok("replay").stdout
    assert out.startswith("馬吊 replay")
    for deal_id in example_ids():
        assert deal_id in out


def test_json_report_has_every_deal_result_seat_and_ledger_line(feng_report):
    assert [d["id"] for d in feng_report["deals"]] == example_ids()
    for deal in feng_report["deals"]:
        assert len(deal["results"]) == 1
        for result in deal["results"]:
            assert result["ruleset"] == "feng"
            assert result["status"] in {"played", "mian_dou"}
            for seat in SEATS:
                assert isinstance(result["seats"][seat]["tricks"], int)
                assert isinstance(result["seats"][seat]["net"], int | float)
            if result["status"] == "played":
                assert sum(result["seats"][s]["tricks"] for s in SEATS) == 8
            assert result["ledger"], deal["id"]
            for line in result["ledger"]:
                assert LEDGER_KEYS <= line.keys(), line
                assert line["amount"] > 0


def test_json_report_is_zero_sum_and_nets_follow_the_ledger(feng_report):
    for deal in feng_report["deals"]:
        for result in deal["results"]:
            accounts = {**nets(result), "guan_dui": result["guan_dui"]["net"]}
            assert sum(accounts.values()) == pytest.approx(0), deal["id"]
            from_ledger = dict.fromkeys(accounts, 0.0)
            for line in result["ledger"]:
                from_ledger[line["payer"]] -= line["amount"]
                from_ledger[line["payee"]] += line["amount"]
            assert from_ledger == pytest.approx(accounts), deal["id"]


def test_output_file_gets_the_report_and_stdout_stays_empty(tmp_path):
    out = tmp_path / "report.txt"
    result = ok("replay", "-o", str(out))
    assert result.stdout == ""
    def unstamped(text):  # the stamp's command line differs by the -o
        return [line for line in text.splitlines() if not line.startswith("  command: ")]
    assert unstamped(out.read_text(encoding="utf-8")) == unstamped(ok("replay").stdout)
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]  # no temp file left behind


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_output_file_has_the_usual_mode_not_a_private_temp_file_mode(tmp_path):
    umask = os.umask(0o022)
    try:
        ok("replay", "--deal", "s3-example-1", "-o", str(tmp_path / "r.json"), "-f", "json")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o644


def test_output_file_replaces_an_earlier_one(tmp_path):
    out = tmp_path / "report.json"
    out.write_text(KEEP, encoding="utf-8")
    ok("replay", "-f", "json", "-o", str(out))
    assert json.loads(out.read_text(encoding="utf-8"))["deals"]


def stamped(report):
    """The rulesets of a report's stamp by id."""
    return {r["id"]: r for r in report["stamp"]["rulesets"]}


def test_deal_option_keeps_only_the_named_deals_in_file_order():
    report = replay_json("--deal", "s3-example-1", "--deal", "bai-lao-lives")
    assert [d["id"] for d in report["deals"]] == ["bai-lao-lives", "s3-example-1"]


def test_deal_file_argument(feng_report):
    assert replay_json(str(EXAMPLES))["deals"] == feng_report["deals"]


def test_ruleset_path_works_like_its_id(feng_report):
    report = replay_json("-r", str(FENG))
    assert report["deals"] == feng_report["deals"]
    assert [{k: r[k] for k in ("id", "hash", "options")} for r in report["stamp"]["rulesets"]] == [
        {k: r[k] for k in ("id", "hash", "options")} for r in feng_report["stamp"]["rulesets"]]


def test_ruleset_all_runs_every_bundled_ruleset():
    report = replay_json("-r", "all", "--deal", "s3-example-1")
    assert [r["ruleset"] for r in report["deals"][0]["results"]] == bundled_ids()
    assert [r["id"] for r in report["stamp"]["rulesets"]] == bundled_ids() == ["feng", "qing", "app"]


def test_set_changes_the_stamp_and_the_nets(feng_report):
    report = replay_json("--set", "feng.diao_settlement=winner_only")
    assert stamped(feng_report)["feng"]["options"]["diao_settlement"] == "differential"
    options = stamped(report)["feng"]["options"]
    assert options["diao_settlement"] == "winner_only"
    before = [nets(d["results"][0]) for d in feng_report["deals"]]
    after = [nets(d["results"][0]) for d in report["deals"]]
    assert before != after
    assert "diao_settlement=winner_only" in ok("replay", "--set", "feng.diao_settlement=winner_only").stdout


@pytest.mark.parametrize("spec", [str(FENG), "all"])
def test_set_reaches_a_ruleset_given_by_path_or_all(spec):
    # --set names the ruleset by id; it used to be dropped silently for `-r PATH`.
    plain = replay_json("-r", "feng", "--set", "feng.diao_settlement=winner_only")
    report = replay_json("-r", spec, "--set", "feng.diao_settlement=winner_only")
    assert stamped(report)["feng"]["options"]["diao_settlement"] == "winner_only"

    def feng_results(r):
        return [[res for res in d["results"] if res["ruleset"] == "feng"] for d in r["deals"]]
    assert feng_results(report) == feng_results(plain)


# --------------------------------------------------------------------------- rulesets, validate, deal


def test_rulesets_lists_feng_with_its_item_count():
    lines = ok("rulesets").stdout.splitlines()
    feng = [line for line in lines if line.split()[0] == "feng"]
    assert len(feng) == 1
    assert f"{find_ruleset('feng').item_count} items" in feng[0]
    # One line per ruleset, then the reproducibility stamp as a comment.
    assert len(lines) == len(bundled_ids()) + 1 and lines[-1].startswith("# mahdiao-rules ")


def listing(stdout):
    """The lines of a plain listing (validate, rulesets, code) without its closing stamp line."""
    lines = stdout.splitlines()
    assert lines[-1].startswith("# mahdiao-rules "), lines[-1]
    return lines[:-1]


def test_validate_says_ok_for_each_file(monkeypatch):
    monkeypatch.chdir(ROOT)
    n_deals = len(example_ids())
    items = find_ruleset("feng").item_count
    assert listing(ok("validate", "examples/examples.yaml", "rulesets/feng.yaml").stdout) == [
        f"examples/examples.yaml: ok ({n_deals} deals)",
        f"rulesets/feng.yaml: ok (ruleset feng, {items} items)",
    ]


def test_bad_files_change_valid_bases(monkeypatch):
    monkeypatch.chdir(BAD)
    assert listing(ok("validate", "base_deal.yaml", "base_ruleset.yaml", "base_sitting.yaml").stdout) == [
        "base_deal.yaml: ok (1 deal)",
        "base_ruleset.yaml: ok (ruleset mini, 3 items)",
        "base_sitting.yaml: ok (sitting of 2 hands)",
    ]
    assert ok("sitting", "base_sitting.yaml", "-r", "all").stdout


def test_validate_reports_each_bad_file_and_still_checks_the_rest(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = invoke("validate", "examples/examples.yaml", "tests/bad/seat_no.yaml", "rulesets/feng.yaml")
    assert result.exit_code == 2
    assert [line.split(":")[0] for line in listing(result.stdout)] == [
        "examples/examples.yaml", "rulesets/feng.yaml"]
    assert result.stderr.startswith("mahdiao: error: tests/bad/seat_no.yaml:3: ")
    assert len(result.stderr.splitlines()) == 1


def test_deal_output_loads_back_and_is_the_same_every_run(tmp_path):
    text = ok("deal", "--seed", "s", "-n", "3").stdout
    assert ok("deal", "--seed", "s", "-n", "3").stdout == text
    assert ok("deal", "--seed", "t", "-n", "3").stdout != text
    path = tmp_path / "deals.yaml"
    path.write_text(text, encoding="utf-8")
    deals = load_deals(path)
    assert [d.id for d in deals] == ["s-1", "s-2", "s-3"]
    assert all(d.play is None for d in deals)


def test_deal_json_matches_deal_yaml(tmp_path):
    yaml_path, json_path = tmp_path / "d.yaml", tmp_path / "d.json"
    ok("deal", "--seed", "s", "-n", "3", "-o", str(yaml_path))
    text = ok("deal", "--seed", "s", "-n", "3", "--format", "json").stdout
    assert len(json.loads(text)["deals"]) == 3
    json_path.write_text(text, encoding="utf-8")
    assert load_deals(json_path) == load_deals(yaml_path)


def test_deal_output_replays(tmp_path):
    path = tmp_path / "deals.yaml"
    ok("deal", "--seed", "s", "-n", "3", "-o", str(path))
    report = replay_json(str(path))
    assert [d["id"] for d in report["deals"]] == ["s-1", "s-2", "s-3"]


@pytest.mark.parametrize("command", [[], ["replay"], ["rulesets"], ["validate"], ["deal"]],
                         ids=["main", "replay", "rulesets", "validate", "deal"])
def test_help(command):
    result = ok(*command, "--help")
    assert result.stdout.startswith("Usage: ")


# --------------------------------------------------------------------------- bad files


@dataclass(frozen=True)
class Expect:
    kind: str
    fragment: str
    line: int | None
    xfail: str | None
    args: tuple[str, ...] = ()
    """For ``run`` cases: the command line, with ``{}`` and ``{out}`` still in it."""
    file: str | None = None
    """The file the message names, when it is not the case itself."""


def read_expect(path: Path) -> Expect:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) in (3, 4), f"{path.name}: want 3 or 4 lines"
    command, fragment, line = lines[:3]
    kind, _, rest = command.partition(" ")
    assert kind in ("replay", "sitting", "validate", "run"), f"{path.name}: unknown command {kind!r}"
    assert (kind == "run") == bool(rest), f"{path.name}: only run takes arguments"
    assert fragment, f"{path.name}: empty fragment"
    file = None
    if ":" in line:
        file, _, line = line.rpartition(":")
    xfail = None
    if len(lines) == 4:
        assert lines[3].startswith("xfail: "), f"{path.name}: line 4 must be 'xfail: REASON'"
        xfail = lines[3].removeprefix("xfail: ")
    return Expect(kind, fragment, None if line == "-" else int(line), xfail,
                  tuple(shlex.split(rest)), file)


def _bad_cases() -> list:
    cases = []
    for path in sorted(BAD.glob("*.expect")):
        name = path.name.removesuffix(".expect")
        expect = read_expect(path)
        assert (BAD / name).is_file() or (expect.kind == "run" and (BAD / name).is_dir()), \
            f"{path.name} has no {name}"
        marks = [pytest.mark.xfail(reason=expect.xfail, strict=True)] if expect.xfail else []
        cases.append(pytest.param(name, expect, id=name, marks=marks))
    return cases


BAD_CASES = _bad_cases()


def test_there_are_enough_bad_files():
    assert len(BAD_CASES) >= 20


def _other_command(name: str, out: Path) -> list[str]:
    """The other command that must give the same message for the bad file *name*."""
    if name.startswith("ruleset_"):
        return ["replay", "-r", name, "-o", str(out)]
    kind = read_expect(BAD / f"{name}.expect").kind
    if kind == "sitting":  # found by a ruleset's procedure: validate cannot see it
        return ["sitting", name, "-o", str(out.with_suffix(".json"))]
    if name.startswith("sitting_"):
        return ["sitting", name, "-o", str(out)]
    if kind == "replay":
        return ["validate", name]
    return ["replay", name, "-o", str(out)]


def check_error(line: str, name: str, expect: Expect) -> None:
    shown = expect.file or name
    where = f"mahdiao: error: {shown}:" + (f"{expect.line}:" if expect.line is not None else "")
    assert line.startswith(where), line
    assert expect.fragment in line


def _run_args(name: str, expect: Expect, out: Path) -> list[str]:
    return [a.replace("{out}", str(out)).replace("{}", name) for a in expect.args]


@pytest.mark.parametrize(("name", "expect"), BAD_CASES)
def test_bad_file(name, expect, tmp_path, monkeypatch):
    monkeypatch.chdir(BAD)
    if expect.kind == "validate":
        check_error(error_line(invoke("validate", name)), name, expect)
        return
    out = tmp_path / "out.txt"
    args = _run_args(name, expect, out) if expect.kind == "run" else [expect.kind, name, "-o", str(out)]
    check_error(error_line(invoke(*args)), name, expect)
    assert not out.exists()
    if expect.kind == "run" and "{out}" not in expect.args:
        return
    out.write_text(KEEP, encoding="utf-8")
    check_error(error_line(invoke(*args)), name, expect)
    assert out.read_text(encoding="utf-8") == KEEP
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


@pytest.mark.parametrize("name", [p.values[0] for p in BAD_CASES
                                  if p.values[1].kind != "run"])
def test_bad_file_same_message_from_the_other_command(name, tmp_path, monkeypatch):
    monkeypatch.chdir(BAD)
    first = error_line(invoke(read_expect(BAD / f"{name}.expect").kind, name))
    out = tmp_path / "out.txt"
    assert error_line(invoke(*_other_command(name, out))) == first
    assert not out.exists()


# --------------------------------------------------------------------------- bad options


@pytest.mark.parametrize(("args", "fragment"), [
    (["replay", "nope.yaml"], "nope.yaml: cannot read file: no such file"),
    (["validate", "nope.yaml"], "nope.yaml: cannot read file: no such file"),
    (["replay", "tests"], "tests: cannot read file: it is a directory"),
    (["replay", "-r", "fengg"], "unknown ruleset 'fengg' (did you mean feng?)"),
    (["replay", "-r", "nope.yaml"], "nope.yaml: no such ruleset file"),
    (["replay", "--set", "feng.x"], "--set 'feng.x': write RULESET.OPTION=VALUE"),
    (["replay", "--set", "feng=x"], "--set 'feng=x': write RULESET.OPTION=VALUE"),
    (["replay", "--set", "feng.nope=1"], "ruleset 'feng' has no option 'nope'"),
    (["replay", "-r", "rulesets/feng.yaml", "--set", "feng.nope=1"], "ruleset 'feng' has no option 'nope'"),
    (["replay", "--set", "feng.diao_settlement=bogus"],
     "option feng.diao_settlement takes one of differential, winner_only, not 'bogus'"),
    (["replay", "--set", "app.x=y"], "--set names ruleset 'app', which is not in this run"),
    (["reconstruct", "--set", "app.x=y"], "--set names ruleset 'app', which is not in this run"),
    (["explain", "--seat", "east", "--deal", "cross-ruleset", "--set", "app.x=y"],
     "--set names ruleset 'app', which is not in this run"),
    (["sitting", "-r", "feng", "--set", "qing.x=y"], "--set names ruleset 'qing', which is not in this run"),
    (["replay", "-o", "no-such-folder/out.txt"],
     "no-such-folder/out.txt: cannot write: the folder does not exist"),
    (["replay", "-o", "tests"], "tests: cannot write: it is a folder"),
    (["deal", "-o", "tests/"], "tests/: cannot write: it is a folder"),
    (["replay", "--deal", "nope"], "no deal with id 'nope' (ids: "),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_bad_option(args, fragment, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert fragment in error_line(invoke(*args))
    assert not (ROOT / "no-such-folder").exists()


@pytest.mark.parametrize("command", [["replay"], ["explain", "--seat", "east", "--deal", "cross-ruleset"],
                                     ["sitting"], ["reconstruct"]], ids=lambda v: v[0])
def test_a_bad_output_fails_before_the_rulesets_are_read(command, monkeypatch):
    """-o is checked when the command starts (before ~0.65 s of compiling): with a bad ruleset
    as well, the output is what the one error line names."""
    monkeypatch.chdir(ROOT)
    line = error_line(invoke(*command, "-r", "nope.yaml", "-o", "no-such-folder/out.txt"))
    assert "no-such-folder/out.txt: cannot write: the folder does not exist" in line
    assert "cannot write" not in error_line(invoke(*command, "-r", "nope.yaml", "-o", "out.txt"))
    assert not (ROOT / "out.txt").exists()



# --------------------------------------------------------------------------- a real process


def run_module(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", **env}
    return subprocess.run([sys.executable, "-m", "mahdiao_rules", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=120, check=False)


@pytest.mark.parametrize("args", [
    ["replay", "tests/bad/python_tag.yaml"],
    ["replay", "tests/bad/not_utf8.yaml"],
    ["replay", "-r", "tests/bad/ruleset_unknown_condition.yaml"],
    ["replay", "--set", "feng.nope=1"],
    ["replay", "nope.yaml"],
], ids=["python-tag", "not-utf8", "ruleset", "set", "missing"])
def test_real_process_prints_one_line_and_no_traceback(args, tmp_path):
    out = tmp_path / "out.txt"
    proc = run_module(*args, "-o", str(out))
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith("mahdiao: error: ")
    assert not out.exists()


def test_real_process_happy_path_is_the_same_whatever_the_hash_seed():
    runs = [run_module("deal", "--seed", "s", "-n", "3", PYTHONHASHSEED=seed) for seed in ("1", "2")]
    for proc in runs:
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
    assert runs[0].stdout == runs[1].stdout
    proc = run_module("replay", "--deal", "s3-example-1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("馬吊 replay")
