"""Output contracts: every JSON output of every command validates against its shipped schema,
carries the envelope and the stamp, holds data and no view; CSV tables have fixed columns,
numbers as numbers, true/false and empty cells; every format of every command is stamped.

The schemas are ``mahdiao_rules/io/schemas/output/<kind>.schema.json`` (docs/output-formats.md).
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke
from jsonschema import Draft202012Validator

from mahdiao_rules import __version__
from mahdiao_rules.io.resources import SCHEMA_DIR
from mahdiao_rules.io.schemacheck import load_schema
from mahdiao_rules.io.stamp import SCHEMA_VERSION
from mahdiao_rules.report.contract import KINDS, output_errors
from mahdiao_rules.report.tables import TABLES
from mahdiao_rules.ruleset import find_ruleset

ROOT = Path(__file__).resolve().parent.parent
DEALS = "tests/data/report_deals.yaml"
VARIANT = "tests/data/feng_variant.yaml"
PARTIAL = "s3-example-1-partial"
SITTING = "tests/bad/base_sitting.yaml"


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def run(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.stdout + result.stderr
    return result.stdout


# Every command that writes JSON, and the kind of its document.
JSON_COMMANDS = [
    ("replay", ["replay", "-f", "json"]),
    ("replay", ["replay", "-r", "all", "-f", "json", "--deal", "cross-ruleset", "--deal", "bai-lao-lives"]),
    ("replay", ["replay", DEALS, "-r", "feng", "-r", VARIANT, "-f", "json", "--full-sources"]),
    ("replay", ["replay", "--code", "EC25nrB_yjm7BiDyEA", "-r", "all", "-f", "json",
                "--policy", "heuristic"]),
    ("explain", ["explain", DEALS, "--deal", "cross-ruleset", "--seat", "east", "-f", "json"]),
    ("explain", ["explain", "--deal", "cross-ruleset", "--seat", "north", "-r", "app", "-f", "json"]),
    ("rules-table", ["rules", "table", "feng", "-f", "json"]),
    ("rules-table", ["rules", "table", "qing", "-f", "json"]),
    ("rules-diff", ["rules", "diff", "feng", "app", "qing", "-f", "json"]),
    ("rulesets", ["rulesets", "-f", "json"]),
    ("validate", ["validate", "examples/examples.yaml", "rulesets/feng.yaml", "-f", "json"]),
    ("codes", ["code", DEALS, "-f", "json"]),
    ("simulate", ["simulate", "-n", "40", "-r", "all", "-f", "json", "--policy", "random"]),
    ("ablate", ["ablate", "-r", "feng", "-n", "30", "--options", "qi_zhuo,first_lead", "-f", "json"]),
    ("reconstruct", ["reconstruct", "--deal", PARTIAL, "--samples", "20", "-r", "all", "-f", "json"]),
    ("sitting", ["sitting", "-f", "json"]),
    ("sitting", ["sitting", "examples/sitting.yaml", "-r", "all", "-f", "json", "--full-sources"]),
    ("sitting", ["sitting", SITTING, "-r", "feng", "-r", "app", "-f", "json", "--policy", "heuristic"]),
    ("simulate-sitting", ["simulate", "--sitting", "3", "-n", "6", "-r", "all", "-f", "json"]),
]


def _id(case: tuple[str, list[str]]) -> str:
    return " ".join(case[1][:3])


@pytest.fixture(scope="module")
def outputs() -> dict[int, Any]:
    return {}


@pytest.mark.parametrize("case", JSON_COMMANDS, ids=_id)
def test_every_json_output_validates_against_its_schema(case):
    kind, args = case
    doc = json.loads(run(*args))
    assert output_errors(kind, doc) == []
    assert doc["schema_version"] == SCHEMA_VERSION and doc["kind"] == kind
    assert doc["stamp"]["tool"] == {"name": "mahdiao-rules", "version": __version__}
    assert doc["stamp"]["command"].startswith("mahdiao ")
    assert_no_view_data(doc)


def test_a_failed_validate_is_json_too():
    result = invoke("validate", "examples/examples.yaml", "tests/bad/seat_no.yaml", "-f", "json")
    assert result.exit_code == 2
    doc = json.loads(result.stdout)
    assert output_errors("validate", doc) == []
    assert [f["ok"] for f in doc["files"]] == [True, False] and doc["ok"] is False
    assert doc["files"][1]["line"] == 3 and "tests/bad/seat_no.yaml:3" in doc["files"][1]["error"]
    assert [i["path"] for i in doc["stamp"]["inputs"]] == ["examples/examples.yaml", "tests/bad/seat_no.yaml"]


def test_json_lines_replay_validates_line_by_line():
    lines = run("replay", DEALS, "-r", "feng", "-r", VARIANT, "-f", "jsonl").splitlines()
    header = json.loads(lines[0])
    assert header["kind"] == "replay-header" and output_errors("replay-header", header) == []
    deals = [json.loads(line) for line in lines[1:]]
    assert [d["id"] for d in deals] == ["cross-ruleset", "si-ji-mian-dou", "er-shi-won"]
    for deal in deals:
        assert output_errors("replay-deal", deal) == []
        assert_no_view_data(deal)
    # The same deals as the JSON document, in the same shape.
    whole = json.loads(run("replay", DEALS, "-r", "feng", "-r", VARIANT, "-f", "json"))
    assert whole["deals"] == deals
    assert {k: v for k, v in whole.items() if k not in ("deals", "kind", "stamp")} == {
        k: v for k, v in header.items() if k not in ("kind", "stamp")}


def test_deal_files_carry_the_stamp_and_follow_the_deal_schemas(tmp_path):
    from mahdiao_rules.io.schemacheck import _validator

    for fmt in ("yaml", "json"):
        out = tmp_path / f"d.{fmt}"
        run("deal", "--seed", "c", "-n", "3", "-o", str(out))
        text = out.read_text(encoding="utf-8")
        assert "stamp" in text and "mahdiao deal --seed c -n 3" in text
    doc = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    assert list(_validator("deal").iter_errors(doc)) == []
    assert doc["stamp"]["seed"] == "c"
    out = tmp_path / "d.jsonl"
    run("deal", "--seed", "c", "-n", "3", "-o", str(out))
    header, *deals = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert header["kind"] == "deals" and header["schema_version"] == SCHEMA_VERSION
    assert list(_validator("deals-header").iter_errors(header)) == []
    assert [d["id"] for d in deals] == ["c-1", "c-2", "c-3"]


def assert_no_view_data(value: Any, path: str = "") -> None:
    """Views (grid, chart, texts such as "+1½") never reach JSON: renderers derive them."""
    if isinstance(value, dict):
        for k, v in value.items():
            assert k not in ("grid", "chart", "source_list", "matrix_text"), f"{path}.{k}"
            assert not str(k).endswith("_text"), f"{path}.{k}"
            assert_no_view_data(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            assert_no_view_data(v, f"{path}[{i}]")


# ---------------------------------------------------------------------- the schemas themselves


def test_every_kind_has_a_valid_schema_in_the_package_and_in_the_docs():
    files = {p.name.removesuffix(".schema.json") for p in (SCHEMA_DIR / "output").glob("*.schema.json")}
    assert files == {*KINDS, "common"}
    docs = (ROOT / "docs" / "output-formats.md").read_text(encoding="utf-8")
    for name in files:
        schema = load_schema(f"output/{name}")
        Draft202012Validator.check_schema(schema)
        assert schema["$id"] == f"urn:mahdiao-rules:schema:output:{name}"
        assert f"`{name}`" in docs, name
    assert f'"schema_version": "{SCHEMA_VERSION}"' in docs


def test_the_schemas_refuse_what_is_not_the_contract():
    doc = json.loads(run("replay", "-f", "json", "--deal", "cross-ruleset"))
    result = doc["deals"][0]["results"][0]
    bad = [
        ("grid", lambda d: d["deals"][0].update(grid={})),
        ("net_text", lambda d: d["deals"][0]["results"][0]["seats"]["east"].update(net_text="+1")),
        ("1½", lambda d: d["deals"][0]["results"][0]["fired"][0].update(zhu="1½")),
        ("status", lambda d: d["deals"][0]["results"][0].update(status="won")),
        ("schema_version", lambda d: d.update(schema_version="2.0")),
    ]
    assert result["fired"]
    for what, change in bad:
        broken = json.loads(json.dumps(doc))
        change(broken)
        assert output_errors("replay", broken), what


# ---------------------------------------------------------------------- CSV


def table(text: str) -> list[dict[str, str]]:
    assert text.startswith("\ufeff")
    return list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))


def header(text: str) -> list[str]:
    return next(csv.reader(io.StringIO(text.removeprefix("\ufeff"))))


CSV_PAIRS = [
    ("replay", ["replay", "-f", "csv"], ["replay", DEALS, "-r", "all", "-r", VARIANT, "-f", "csv"]),
    ("replay-ledger", ["replay", "-f", "ledger"],
     ["replay", DEALS, "-r", "app", "-r", "qing", "-f", "ledger"]),
    ("explain", ["explain", DEALS, "--deal", "cross-ruleset", "--seat", "east", "-f", "csv"],
     ["explain", "--deal", "s3-dai-pei", "--seat", "south", "-r", "app", "-f", "csv"]),
    ("rules-table", ["rules", "table", "feng", "-f", "csv"], ["rules", "table", "app", "-f", "csv"]),
    ("rules-diff", ["rules", "diff", "feng", "app", "-f", "csv"], ["rules", "diff", "qing", "feng", VARIANT,
                                                                   "-f", "csv"]),
    ("sitting", ["sitting", "-f", "csv"], ["sitting", SITTING, "-r", "all", "-r", VARIANT, "-f", "csv"]),
    ("sitting-ledger", ["sitting", "-r", "app", "-f", "ledger"],
     ["sitting", SITTING, "-r", "feng", "-f", "ledger"]),
    ("simulate-sitting", ["simulate", "--sitting", "2", "-n", "4", "-r", "feng", "-f", "csv"],
     ["simulate", "--sitting", "5", "-n", "3", "-r", "all", "--seed", "x", "-f", "csv"]),
]


@pytest.mark.parametrize("case", CSV_PAIRS, ids=[c[0] for c in CSV_PAIRS])
def test_csv_columns_are_the_same_for_any_input(case):
    _name, a, b = case
    first, second = run(*a), run(*b)
    assert header(first) == header(second)
    assert table(first) and table(second)
    # Stacked, the two runs are one table.
    assert len({len(row) for row in table(first) + table(second)}) == 1


def test_every_csv_kind_is_in_the_tables_and_the_docs():
    docs = (ROOT / "docs" / "output-formats.md").read_text(encoding="utf-8")
    for (kind, fmt), (columns, _rows) in TABLES.items():
        assert f"`{kind}` ({fmt})" in docs or f"`{kind}`" in docs
        for column in columns:
            assert f"`{column}`" in docs, (kind, column)


NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?(e-?[0-9]+)?\Z")


def test_csv_numbers_are_numbers_and_booleans_are_true_false():
    rows = table(run("replay", DEALS, "-r", "feng", "-r", VARIANT, "-f", "csv"))
    numeric = ["tricks", "kai_zhu", "qiao_men", "gong_he", "san_jia", "guan_dui", "fa_li", "dai_pei", "net"]
    for row in rows:
        for column in numeric:
            assert row[column] == "" or NUMBER.match(row[column]), (column, row[column])
    assert any(row["net"].startswith("-") for row in rows)  # a negative number is not formula-guarded
    for row in table(run("replay", DEALS, "-r", "feng", "-f", "ledger")):
        assert NUMBER.match(row["amount"]) and float(row["amount"]) > 0
    north = run("explain", DEALS, "--deal", "cross-ruleset", "--seat", "north", "-f", "csv")
    signed = [row["signed"] for row in table(north)]
    assert signed and all(NUMBER.match(s) for s in signed) and "-1" in signed
    items = table(run("rules", "table", "feng", "-f", "csv"))
    assert all(row["zhu"] == "" or NUMBER.match(row["zhu"]) for row in items)
    assert any(row["zhu"] == "8" for row in items) and not any("注" in row["zhu"] for row in items)
    assert {row["ends_hand"] for row in items} == {"true", "false"}
    rows = table(run("sitting", "-r", "feng", "-r", "app", "-f", "csv"))
    numeric = ["hand", "stake", "guan_dui_before", "guan_dui_after", "tricks", "kai_zhu", "qiao_men",
               "gong_he", "san_jia", "guan_dui", "fa_li", "dai_pei", "net", "running", "money"]
    for row in rows:
        for column in numeric:
            assert row[column] == "" or NUMBER.match(row[column]), (column, row[column])
    assert any(row["tricks"] == "" for row in rows)  # a 免斗 hand was not played: empty, not 0
    assert any(row["net"].startswith("-") for row in rows)
    for row in table(run("sitting", "-f", "ledger")):
        assert NUMBER.match(row["amount"]) and float(row["amount"]) > 0
    for row in table(run("simulate", "--sitting", "3", "-n", "4", "-r", "feng", "-f", "csv")):
        assert all(NUMBER.match(row[c]) for c in ("n", "mean", "hands_per_sitting")), row
    cells = table(run("rules", "diff", "feng", "app", "-f", "csv"))
    assert not any(v == "—" for row in cells for v in row.values())  # absent is empty, not —
    assert {row["present"] for row in cells} == {"true", "false"}
    assert all(row["zhu"] == "" for row in cells if row["present"] == "false")


# ---------------------------------------------------------------------- a stamp in every format


def stamped(text: str, *needles: str) -> None:
    assert __version__ in text
    for needle in needles:
        assert needle in text, needle


@pytest.mark.parametrize("fmt", ["text", "md", "html", "latex", "csv", "ledger", "json", "jsonl"])
def test_every_replay_format_is_stamped(fmt):
    text = run("replay", DEALS, "-r", "feng", "-r", VARIANT, "-f", fmt)
    digest = __import__("hashlib").sha256((ROOT / DEALS).read_bytes()).hexdigest()
    stamped(text, find_ruleset(VARIANT).content_hash, digest)


@pytest.mark.parametrize("fmt", ["text", "md", "html", "latex", "csv", "ledger", "json"])
def test_every_sitting_format_is_stamped(fmt):
    text = run("sitting", SITTING, "-r", "feng", "-r", VARIANT, "-f", fmt)
    digest = __import__("hashlib").sha256((ROOT / SITTING).read_bytes()).hexdigest()
    stamped(text, find_ruleset(VARIANT).content_hash, digest, "mahdiao sitting")


@pytest.mark.parametrize("fmt", ["text", "md", "html", "latex", "csv", "json"])
def test_every_simulate_sitting_format_is_stamped(fmt):
    text = run("simulate", "--sitting", "2", "-n", "3", "-r", VARIANT, "--seed", "stamp-me", "-f", fmt)
    stamped(text, find_ruleset(VARIANT).content_hash, "stamp-me", "mahdiao simulate --sitting")


@pytest.mark.parametrize("args", [
    ["explain", DEALS, "--deal", "cross-ruleset", "--seat", "east", "-f", "md"],
    ["explain", DEALS, "--deal", "cross-ruleset", "--seat", "east", "-f", "html"],
    ["rules", "table", "feng", "-f", "csv"],
    ["rules", "diff", "feng", "app", "-f", "text"],
    ["simulate", "-n", "10", "-r", "feng", "-f", "text"],
    ["simulate", "-n", "10", "-r", "feng", "-f", "md"],
    ["simulate", "-n", "10", "-r", "feng", "-f", "html"],
    ["simulate", "-n", "10", "-r", "feng", "-f", "latex"],
    ["ablate", "-r", "feng", "--options", "first_lead", "-n", "5", "-f", "latex"],
    ["reconstruct", "--deal", PARTIAL, "--samples", "5"],
    ["rulesets"],
    ["validate", "examples/examples.yaml"],
    ["code", DEALS],
    ["code", "--decode", "EC25nrB_yjm7BiDyEA"],
    ["deal", "-n", "2", "-f", "jsonl"],
], ids=lambda a: " ".join(a[:3]))
def test_every_command_stamps_every_format(args):
    stamped(run(*args), "mahdiao " + args[0])
