"""Hostile input (issue 7): limits, unsafe tags, encodings, parser agreement, and exact numbers.

The bad-input corpus itself is run by ``test_cli.py`` (every ``tests/bad/*.expect``); this
file adds what a corpus file cannot hold (a 50 MB file, time and memory bounds, environment
variables, a cycle of two files), the valid inputs of ``tests/bad/good/``, the known
problems outside issue 7's files in ``tests/bad/pending/`` (strict xfail), and the exact
arithmetic of 注 (``docs/limits.md``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
import tracemalloc
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import KEEP, error_line, invoke
from helpers import E, N, S, W, build
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mahdiao_rules.deal import SEATS, Seat
from mahdiao_rules.errors import InputError
from mahdiao_rules.io import yamlsafe
from mahdiao_rules.io.dealfile import dump_deals, load_deals, parse_deals, random_deal
from mahdiao_rules.io.yamlsafe import (
    BUILTIN_LIMITS,
    DEFAULT_LIMITS,
    ENV_VARS,
    LIMIT_RANGES,
    Limits,
    limits_from_env,
    load_file,
    load_text,
)
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.ruleset import bundled_ids, compile_document, find_ruleset
from mahdiao_rules.settle.hand import PLAYED
from mahdiao_rules.units import TICKS_PER_ZHU

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
BAD = TESTS / "bad"


def run_module(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m mahdiao_rules ARGS`` in a fresh process (environment variables are read at import)."""
    full = {k: v for k, v in os.environ.items() if k not in ENV_VARS.values()}
    full.update({"PYTHONIOENCODING": "utf-8", **env})
    return subprocess.run([sys.executable, "-m", "mahdiao_rules", *args], cwd=cwd, env=full,
                          capture_output=True, text=True, encoding="utf-8", timeout=120, check=False)


def one_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mahdiao: error: "), proc.stderr
    return lines[0]


# --------------------------------------------------------------------------- the corpus

# Every case issue 7 lists, with the corpus files that cover it.
ISSUE_CASES: dict[str, list[str]] = {
    "malformed YAML": [
        "yaml_unclosed_bracket.yaml", "yaml_unclosed_quote.yaml", "yaml_bad_indentation.yaml",
        "two_documents.yaml", "undefined_alias.yaml", "key_is_list.yaml",
    ],
    "malformed JSON": [
        "json_syntax.json", "json_trailing_comma.json", "json_comment.json", "json_single_quotes.json",
        "json_nan.json", "json_unclosed_string.json", "json_tabs_missing_comma.json",
        "json_top_level_list.json",
    ],
    "tabs": [
        "yaml_tab_indent.yaml", "yaml_tab_before_key.yaml", "json_tabs_missing_comma.json",
    ],
    "BOMs": [
        "bom_unknown_card.yaml", "bom_in_the_middle.yaml", "utf16.yaml", "utf32.yaml",
    ],
    "duplicate keys": [
        "duplicate_key.yaml", "duplicate_key_hands.yaml", "json_duplicate_key.json",
    ],
    "YAML 1.1 traps": [
        "seat_no.yaml", "yaml11_octal_guan_dui.yaml", "yaml11_off_seat.yaml", "ruleset_yes_boolean.yaml",
        "merge_key.yaml",
    ],
    "wrong types": [
        "hand_is_string.yaml", "stock_is_mapping.yaml", "stock_is_text.yaml", "banker_is_number.yaml",
        "guan_dui_fraction.yaml", "trick_cards_text.yaml", "event_trick_text.yaml", "deals_not_list.yaml",
        "card_is_number.yaml", "top_level_list.yaml", "top_level_text.yaml", "null_key.yaml",
        "ruleset_condition_is_number.yaml",
    ],
    "unknown keys": [
        "unknown_key_stok.yaml", "unknown_key_in_trick.yaml", "unknown_key_in_event.yaml",
        "unknown_key_in_hands.yaml", "unknown_key_collection.yaml", "ruleset_items_misspelt.yaml",
        "ruleset_units_misspelt.yaml",
    ],
    "unknown cards": [
        "unknown_card.yaml", "unknown_card_in_stock.yaml", "unknown_card_in_play.yaml",
        "unknown_card_in_event.yaml", "ruleset_unknown_card.yaml",
    ],
    "simplified/traditional mixes": [
        "simplified_duplicate.yaml", "alias_duplicate.yaml",
    ],
    "39 or 41 cards": [
        "hand_seven_cards.yaml", "stock_seven_cards.yaml", "stock_nine_cards.yaml", "hand_nine_cards.yaml",
    ],
    "duplicated cards": [
        "duplicate_in_one_hand.yaml", "card_in_hand_and_stock.yaml", "yaml_alias_hand.yaml",
    ],
    "a card in two hands": [
        "card_in_two_hands.yaml",
    ],
    "9-card hands": [
        "hand_nine_cards.yaml",
    ],
    "plays out of turn": [
        "wrong_leader.yaml", "play_out_of_turn.yaml", "play_wrong_order.yaml", "card_not_held.yaml",
        "stock_card_played.yaml",
    ],
    "a card played twice": [
        "card_played_twice.yaml", "card_twice_in_one_trick.yaml",
    ],
    "a trick of 3 cards": [
        "trick_three_cards.yaml", "trick_five_cards.yaml", "play_nine_tricks.yaml", "play_empty.yaml",
    ],
    "a cycle in extends": [
        "ruleset_extends_self.yaml",
    ],  # and pairs/: test_extends_cycle_of_two_files
    "an item referring to an unknown option": [
        "ruleset_unknown_option.yaml", "ruleset_unknown_option_in_when.yaml",
        "ruleset_option_default_not_a_choice.yaml",
    ],
    "a condition of unknown kind": [
        "ruleset_unknown_condition.yaml", "ruleset_unknown_set_kind.yaml",
    ],
    "values of the wrong sign": [
        "guan_dui_negative.yaml", "event_trick_zero.yaml", "event_trick_negative.yaml",
        "ruleset_zhu_per_diao_negative.yaml", "ruleset_zhu_per_diao_zero.yaml",
        "ruleset_diao_negative_bound.yaml",
    ],  # fines and 代賠: pending/
    "non-UTF-8 bytes": [
        "not_utf8.yaml", "big5.yaml", "gbk.yaml", "utf16_no_bom.yaml", "nul_byte.yaml",
        "control_character.yaml", "lone_surrogate.yaml",
    ],
    "a YAML alias bomb": [
        "alias_bomb.yaml", "alias_bomb_mappings.yaml", "recursive_alias.yaml", "deep_nesting.yaml",
    ],
    "Python tags": [
        "python_tag.yaml", "python_object_tag.yaml", "python_name_tag.yaml", "ruleset_python_tag.yaml",
    ],
    "non-finite and huge numbers": [
        "infinite_guan_dui.yaml", "ruleset_zhu_infinite.yaml", "ruleset_zhu_nan.yaml", "huge_integer.yaml",
        "guan_dui_huge.yaml",
    ],
}


def test_the_corpus_covers_every_case_of_the_issue():
    cases = sorted(p.name.removesuffix(".expect") for p in BAD.glob("*.expect"))
    assert len(cases) >= 60
    for category, names in ISSUE_CASES.items():
        for name in names:
            assert name in cases, f"{category}: {name} has no .expect"


def read_expect(path: Path) -> tuple[str, str, int | None, str | None]:
    lines = path.read_text(encoding="utf-8").splitlines()
    kind, fragment, line = lines[:3]
    xfail = lines[3].removeprefix("xfail: ") if len(lines) > 3 else None
    return kind, fragment, None if line == "-" else int(line), xfail


def corpus_case(directory: Path, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The checks of test_cli.test_bad_file but the message's wording, for a file in a subfolder.

    Returns the message; the fragment and line of the .expect are checked once the file
    moves up to tests/bad/ (they are what the fix is expected to say).
    """
    monkeypatch.chdir(directory)
    kind = read_expect(directory / f"{name}.expect")[0]
    if kind == "validate":
        message = error_line(invoke("validate", name))
    else:
        out = tmp_path / "out.txt"
        out.write_text(KEEP, encoding="utf-8")
        message = error_line(invoke("replay", name, "-o", str(out)))
        assert out.read_text(encoding="utf-8") == KEEP
    assert message.startswith(f"mahdiao: error: {name}:"), message
    return message


@pytest.mark.parametrize("name", sorted(p.name for p in (BAD / "valid_rulesets").glob("*.yaml")))
def test_valid_ruleset_found_by_fuzzing_settles(name: str, tmp_path: Path) -> None:
    """Valid rulesets that once crashed the settlement (found by test_fuzz.py) now replay."""
    out = tmp_path / "out.json"
    result = invoke("replay", str(BAD / "good" / "canonical.yaml"), "-r",
                    str(BAD / "valid_rulesets" / name), "-f", "json", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["deals"]


def test_extends_cycle_of_two_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """a extends b extends a: the error is at the extends: line that closes the cycle, naming both files."""
    monkeypatch.chdir(BAD / "pairs")
    for first, second in (("ruleset_cycle_a.yaml", "ruleset_cycle_b.yaml"),
                          ("ruleset_cycle_b.yaml", "ruleset_cycle_a.yaml")):
        cycle = f"extends makes a cycle: {first} → {second} → {first}"
        message = error_line(invoke("validate", first))
        assert message == f"mahdiao: error: {second}:4: extends: {cycle}"
        out = tmp_path / "out.txt"
        assert error_line(invoke("replay", "-r", first, "-o", str(out))) == message
        assert not out.exists()


# --------------------------------------------------------------------------- valid inputs


GOOD = sorted(p.name for p in (BAD / "good").glob("*.yaml"))


@pytest.mark.parametrize("name", GOOD)
def test_good_file_validates_and_replays(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BAD / "good")
    result = invoke("validate", name)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == f"{name}: ok (1 deal)"
    out = tmp_path / "out.json"
    result = invoke("replay", name, "-f", "json", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["deals"][0]["results"][0]["status"] == PLAYED


def test_simplified_traditional_and_alias_spellings_read_as_one_deal() -> None:
    mixed = load_deals(BAD / "good" / "mixed_spellings.yaml")
    canonical = load_deals(BAD / "good" / "canonical.yaml")
    assert mixed == canonical


def test_whole_number_floats_are_whole_numbers() -> None:
    canonical = load_deals(BAD / "good" / "canonical.yaml")[0]
    trick = load_deals(BAD / "good" / "event_trick_float.yaml")[0]
    assert trick == canonical
    assert type(trick.events[0].trick) is int
    pool = load_deals(BAD / "good" / "guan_dui_float.yaml")[0]
    assert pool == dataclasses.replace(canonical, guan_dui=3) and type(pool.guan_dui) is int
    feng = find_ruleset("feng")
    assert settle_deal(feng, trick).ledger == settle_deal(feng, canonical).ledger


# --------------------------------------------------------------------------- limits: environment


def test_builtin_limits_are_the_documented_ones() -> None:
    assert BUILTIN_LIMITS == Limits(max_bytes=5_000_000, max_nodes=200_000, max_depth=64)
    assert ENV_VARS == {"max_bytes": "MAHDIAO_MAX_BYTES", "max_nodes": "MAHDIAO_MAX_NODES",
                        "max_depth": "MAHDIAO_MAX_DEPTH"}
    docs = (ROOT / "docs" / "limits.md").read_text(encoding="utf-8")
    for name, var in ENV_VARS.items():
        high = LIMIT_RANGES[name][1]
        assert f"`{var}`" in docs
        assert f"{getattr(BUILTIN_LIMITS, name):_}".replace("_", " ") in docs, name
        assert f"{high:_}".replace("_", " ") in docs, name


def test_limits_from_env() -> None:
    assert limits_from_env({}) == BUILTIN_LIMITS
    assert limits_from_env({"MAHDIAO_MAX_BYTES": "", "MAHDIAO_MAX_DEPTH": "  "}) == BUILTIN_LIMITS
    assert limits_from_env({"MAHDIAO_MAX_BYTES": "50_000_000", "MAHDIAO_MAX_NODES": " 10 ",
                            "MAHDIAO_MAX_DEPTH": "200", "OTHER": "x"}) == Limits(50_000_000, 200, 10)


@pytest.mark.parametrize(("var", "value"), [
    ("MAHDIAO_MAX_BYTES", "5MB"), ("MAHDIAO_MAX_BYTES", "0"), ("MAHDIAO_MAX_BYTES", "-1"),
    ("MAHDIAO_MAX_BYTES", "1e6"), ("MAHDIAO_MAX_BYTES", str((1 << 30) + 1)), ("MAHDIAO_MAX_NODES", "lots"),
    ("MAHDIAO_MAX_NODES", "10_000_001"), ("MAHDIAO_MAX_DEPTH", "201"), ("MAHDIAO_MAX_DEPTH", "6.4"),
    ("MAHDIAO_MAX_DEPTH", "_1"), ("MAHDIAO_MAX_DEPTH", "٣"),
])
def test_bad_limit_values_are_refused_by_name(var: str, value: str) -> None:
    with pytest.raises(InputError) as info:
        limits_from_env({var: value})
    expected = f"environment variable {var}={value!r}: expected a whole number from "
    assert info.value.message.startswith(expected)


def test_limits_are_read_once_at_import(monkeypatch: pytest.MonkeyPatch) -> None:
    before = yamlsafe.DEFAULT_LIMITS
    monkeypatch.setenv("MAHDIAO_MAX_BYTES", "10")
    monkeypatch.setenv("MAHDIAO_MAX_DEPTH", "nonsense")
    assert load_text("[" + "1, " * 100 + "1]", "t.yaml").data[100] == 1  # 300 bytes: the 10 is not seen
    assert yamlsafe.DEFAULT_LIMITS is before


def test_environment_limits_apply_in_a_fresh_process(tmp_path: Path) -> None:
    # validate also settles the deal (under base_ruleset, which reads the bibliography): the
    # deal is padded to be the biggest file read, so the limit at its size admits them all.
    deal, rules = tmp_path / "deal.yaml", "tests/bad/base_ruleset.yaml"
    deal.write_text("#" * 60_000 + "\n" + (BAD / "base_deal.yaml").read_text(encoding="utf-8"),
                    encoding="utf-8")
    size = deal.stat().st_size
    assert "ok (1 deal)" in run_module("validate", str(deal), "-r", rules,
                                       MAHDIAO_MAX_BYTES=str(size)).stdout
    line = one_error(run_module("validate", str(deal), "-r", rules, MAHDIAO_MAX_BYTES=str(size - 1)))
    assert line == (f"mahdiao: error: {deal}: file is too large ({size} bytes; the limit is {size - 1}, "
                    "which MAHDIAO_MAX_BYTES raises)")
    assert "more than 50 values" in one_error(run_module("validate", str(deal), MAHDIAO_MAX_NODES="50"))
    assert "nested too deeply (more than 2 levels)" in one_error(run_module("validate", str(deal),
                                                                            MAHDIAO_MAX_DEPTH="2"))


def test_a_bad_environment_value_is_one_clear_line(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    deal = "tests/bad/base_deal.yaml"
    line = one_error(run_module("replay", deal, "-o", str(out), MAHDIAO_MAX_DEPTH="deep"))
    assert line == (f"mahdiao: error: {deal}: environment variable MAHDIAO_MAX_DEPTH='deep': "
                    "expected a whole number from 1 to 200 (default 64)")
    assert not out.exists()


# --------------------------------------------------------------------------- limits: size, bombs, depth


@pytest.fixture(scope="module")
def fifty_mb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 50 MB deal file: a valid deal followed by 50 MB of comment lines (made here, never committed)."""
    path = tmp_path_factory.mktemp("big") / "big.yaml"
    line = b"# " + b"x" * 97 + b"\n"
    with open(path, "wb") as fh:
        fh.write((BAD / "base_deal.yaml").read_bytes())
        chunk = line * 10_000
        for _ in range(50):
            fh.write(chunk)
    assert path.stat().st_size > 50_000_000
    return path


def test_fifty_mb_file_is_refused_before_it_is_read(fifty_mb: Path) -> None:
    tracemalloc.start()
    try:
        start = time.perf_counter()
        with pytest.raises(InputError) as info:
            load_file(fifty_mb, display_name="big.yaml")
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    size = fifty_mb.stat().st_size
    assert str(info.value) == (f"big.yaml: file is too large ({size} bytes; the limit is 5000000, "
                               "which MAHDIAO_MAX_BYTES raises)")
    assert elapsed < 0.5
    assert peak < 1_000_000  # nothing of the file was read


def test_fifty_mb_file_through_the_cli(fifty_mb: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    line = error_line(invoke("replay", str(fifty_mb), "-o", str(out)))
    assert line.startswith(f"mahdiao: error: {fifty_mb}: file is too large (")
    assert not out.exists()
    out.write_text(KEEP, encoding="utf-8")
    assert error_line(invoke("replay", str(fifty_mb), "-o", str(out))) == line
    assert out.read_text(encoding="utf-8") == KEEP
    assert "file is too large" in error_line(invoke("validate", str(fifty_mb)))
    assert "file is too large" in error_line(invoke("replay", "-r", str(fifty_mb)))


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_endless_stream_is_read_only_up_to_the_limit() -> None:
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as info:
            load_file("/dev/zero")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "too large" in info.value.message
    assert peak < 2.5 * DEFAULT_LIMITS.max_bytes


def billion_laughs(levels: int, width: int = 10, mapping: bool = False) -> str:
    keys = "abcdefghijklmnopqrstuvwxyz"[:width]
    if mapping:
        lines = ["l0: &l0 {" + ", ".join(f"{k}: lol" for k in keys) + "}"]
        lines += [f"l{i}: &l{i} {{" + ", ".join(f"{k}: *l{i - 1}" for k in keys) + "}"
                  for i in range(1, levels)]
    else:
        lines = ["l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
        lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("levels", "width", "mapping"), [(9, 10, False), (9, 10, True), (30, 10, False),
                                                          (4, 26, True), (60, 2, False)])
def test_alias_bomb_is_refused_within_a_second_and_a_few_mb(levels: int, width: int, mapping: bool) -> None:
    text = billion_laughs(levels, width, mapping)
    tracemalloc.start()
    try:
        start = time.perf_counter()
        with pytest.raises(InputError) as info:
            parse_deals(load_text(text, "bomb.yaml"))
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.message.startswith("too many nodes (alias expansion?)") or "nested too deeply" in str(
        info.value)
    assert elapsed < 1.0
    assert peak < 3_000_000


def test_alias_bomb_through_the_cli_in_a_real_process(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(billion_laughs(12), encoding="utf-8")
    start = time.perf_counter()
    line = one_error(run_module("validate", str(bomb)))
    assert time.perf_counter() - start < 30  # mostly the interpreter's start-up
    assert "too many nodes (alias expansion?)" in line


DEPTH_CAP = LIMIT_RANGES["max_depth"][1]


def depth_of(data: Any) -> int:
    if isinstance(data, dict):
        return 1 + max(map(depth_of, data.values()), default=0)
    if isinstance(data, list):
        return 1 + max(map(depth_of, data), default=0)
    return 0


def nested_ruleset(kind: str, depth: int) -> Any:
    """The base ruleset with one item's condition or amount nested to a document depth of *depth*."""
    data = load_file(BAD / "base_ruleset.yaml").data
    item = data["items"][1]
    item["when"], item["zhu"] = {"banker": False}, 3
    while depth_of(data) < depth:
        if kind == "not":
            item["when"] = {"not": item["when"]}
        elif kind == "all":
            item["when"] = [item["when"]]
        elif kind == "sum":
            item["zhu"] = {"sum": [item["zhu"]]}
        elif kind == "below":
            won = item["when"].get("won", "百老")
            item["when"] = {"won": {"below": won}}
    return data


@pytest.mark.parametrize("kind", ["not", "all", "sum", "below"])
def test_documents_at_the_depth_cap_are_read_and_compiled_without_recursion_errors(
        kind: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """At MAHDIAO_MAX_DEPTH's ceiling every stage stays within Python's recursion limit."""
    monkeypatch.setattr(yamlsafe, "DEFAULT_LIMITS", Limits(max_depth=DEPTH_CAP))
    data = nested_ruleset(kind, DEPTH_CAP)
    assert depth_of(data) in (DEPTH_CAP, DEPTH_CAP + 1)
    if depth_of(data) > DEPTH_CAP:  # "sum" grows two levels at a time
        data = nested_ruleset(kind, DEPTH_CAP - 1)
    deal = load_deals(BAD / "good" / "canonical.yaml")[0]
    for suffix, text in ((".json", json.dumps(data, ensure_ascii=False)),
                         (".yaml", json.dumps(data, ensure_ascii=False, indent=1))):
        path = tmp_path / f"deep{suffix}"
        path.write_text(text, encoding="utf-8")
        rs = compile_document(load_file(path))
        settle_deal(rs, deal)
        result = invoke("validate", str(path))
        assert result.exit_code == 0, result.stderr
    too_deep = "[" * (DEPTH_CAP + 1) + "]" * (DEPTH_CAP + 1)
    with pytest.raises(InputError, match="nested too deeply"):
        load_text(too_deep, "t.yaml")
    with pytest.raises(InputError, match="nested too deeply"):
        load_text(too_deep, "t.json")


def test_deep_deal_file_at_the_cap_through_the_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(yamlsafe, "DEFAULT_LIMITS", Limits(max_depth=DEPTH_CAP))
    deep = tmp_path / "deep.yaml"
    base = (BAD / "base_deal.yaml").read_text(encoding="utf-8")
    inner = "[" * (DEPTH_CAP - 1) + "]" * (DEPTH_CAP - 1)
    deep.write_text(base + f"notes: {inner}\n", encoding="utf-8")
    assert "notes: expected text, got a list" in error_line(invoke("validate", str(deep)))
    deep.write_text(base + f"notes: [{inner}]\n", encoding="utf-8")
    assert "nested too deeply (more than 200 levels)" in error_line(invoke("validate", str(deep)))


# --------------------------------------------------------------------------- Python tags never run


EVIL_TAGS = [
    "!!python/object/apply:os.system [{cmd}]",
    "!!python/object/new:os.system [{cmd}]",
    "!!python/object/apply:subprocess.call [[sh, -c, {cmd}]]",
    "!!python/object/apply:builtins.exec [\"open('{canary}', 'w').close()\"]",
    "!!python/object:builtins.object {{}}",
    "!!python/name:os.system",
    "!!python/module:os",
]


@pytest.mark.parametrize("tag", EVIL_TAGS)
@pytest.mark.parametrize("place", ["deal", "ruleset"])
def test_python_tags_are_errors_and_never_run(tag: str, place: str, tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    value = tag.format(cmd=f"'touch {canary}'", canary=canary)
    if place == "deal":
        text = (BAD / "base_deal.yaml").read_text(encoding="utf-8") + f"notes: {value}\n"
        args = ["replay", str(tmp_path / "evil.yaml"), "-o", str(tmp_path / "out.txt")]
    else:
        text = (BAD / "base_ruleset.yaml").read_text(encoding="utf-8") + f"description: {value}\n"
        args = ["replay", "-r", str(tmp_path / "evil.yaml"), "-o", str(tmp_path / "out.txt")]
    (tmp_path / "evil.yaml").write_text(text, encoding="utf-8")
    line = error_line(invoke(*args))
    assert "unsupported YAML tag !!python/" in line
    assert error_line(invoke("validate", str(tmp_path / "evil.yaml"))) == line
    assert not canary.exists()
    assert not (tmp_path / "out.txt").exists()


def test_python_tag_in_a_real_process_never_runs(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    evil = tmp_path / "evil.yaml"
    evil.write_text(f"id: !!python/object/apply:os.system ['touch {canary}']\n", encoding="utf-8")
    line = one_error(run_module("validate", str(evil)))
    assert "unsupported YAML tag !!python/object/apply:os.system" in line
    assert not canary.exists()


# --------------------------------------------------------------------------- both YAML parsers agree


def corpus_texts() -> list[tuple[str, str]]:
    out = []
    for path in sorted(BAD.rglob("*")):
        if path.suffix in (".yaml", ".json") and path.stat().st_size < 200_000:
            try:
                out.append((path.name, path.read_bytes().decode("utf-8")))
            except UnicodeDecodeError:
                continue
    for path in [ROOT / "examples" / "examples.yaml", *sorted((ROOT / "rulesets").rglob("*.yaml"))]:
        out.append((path.name, path.read_text(encoding="utf-8")))
    return out


def read_both(text: str, name: str, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What load_text makes of *text* with libyaml's events and with PyYAML's own parser."""
    results = []
    for fast in (yamlsafe._FastLoader, None):
        with monkeypatch.context() as m:
            m.setattr(yamlsafe, "_FastLoader", fast)
            try:
                doc = load_text(text, name)
                # (An empty document's null has no meaningful line: it is "the file is empty".)
                lines = [doc.line_of(p) for p in _paths(doc.data)] if doc.data is not None else []
                results.append(("ok", doc.data, lines))
            except InputError as err:
                results.append(("error", str(err)))
    return results


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(data, dict):
        for k, v in data.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _paths(v, (*prefix, i))
    return out


@pytest.mark.skipif(yamlsafe._FastLoader is None, reason="PyYAML without libyaml")
def test_libyaml_and_pyyaml_read_every_corpus_file_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = corpus_texts()
    assert len(texts) > 100
    for name, text in texts:
        fast, pure = read_both(text, name, monkeypatch)
        assert fast == pure, name


_yamlish = st.lists(st.sampled_from(
    ["a", "b", ":", ": ", " ", "  ", "\n", "- ", "[", "]", "{", "}", ", ", "&x ", "*x", "!!str ", "'", '"',
     "#", "1", "010", "yes", "? ", "|\n", ">\n", "---\n", "...\n", "百老", "\\u", "~", "null", ".inf",
     "<<: "]),
    max_size=30).map("".join)


@pytest.mark.skipif(yamlsafe._FastLoader is None, reason="PyYAML without libyaml")
@pytest.mark.parametrize("text", ["{a? }", "[a?b]", "{a: b?}", "[1, a?]\n", "x: [a ?b]\n", "[? a]",
                                  "x: a?\n"])
def test_a_question_mark_in_a_flow_collection_reads_alike(text: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # libyaml takes `a?` for a scalar where PyYAML's parser sees a key indicator (found by
    # the random test below): one verdict whichever parser the install has.
    fast, pure = read_both(text, "t.yaml", monkeypatch)
    assert fast == pure


@pytest.mark.skipif(yamlsafe._FastLoader is None, reason="PyYAML without libyaml")
@settings(max_examples=300, deadline=None)
@given(_yamlish)
def test_libyaml_and_pyyaml_agree_on_random_yaml(text: str) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, pure = read_both(text, "t.yaml", monkeypatch)
    # Small texts that libyaml refuses are re-read by PyYAML's parser, so even the messages agree.
    assert fast == pure, text


@pytest.mark.skipif(yamlsafe._FastLoader is None, reason="PyYAML without libyaml")
def test_big_files_are_read_fast() -> None:
    """Near the size limit: about 0.2 s with libyaml (about 20 s with PyYAML's own parser)."""
    body = "notes: |\n" + "  x\n" * 1_200_000
    text = (BAD / "base_deal.yaml").read_text(encoding="utf-8") + body
    assert len(text.encode()) < DEFAULT_LIMITS.max_bytes
    start = time.perf_counter()
    assert len(load_text(text, "big.yaml").data["notes"]) == 2_400_000
    assert time.perf_counter() - start < 5
    broken = text + "oops: [\n"
    start = time.perf_counter()
    with pytest.raises(InputError) as info:
        load_text(broken, "big.yaml")
    assert time.perf_counter() - start < 5
    assert info.value.line == text.count("\n") + 2
    assert info.value.message.startswith("YAML syntax error: ")


def test_big_file_with_tabs_gets_the_tab_hint_from_libyaml_too() -> None:
    text = "a: [" + "x, " * 30_000 + "]\n\tb: 1\n"
    with pytest.raises(InputError) as info:
        load_text(text, "t.yaml")
    assert info.value.line == 2
    assert "use spaces, not tabs" in info.value.message


# --------------------------------------------------------------------------- numbers you can trust


def report_json(deal_path: Path, *args: str) -> Any:
    """``mahdiao replay FILE --format json``, every JSON number read as an exact Decimal."""
    result = invoke("replay", str(deal_path), "-f", "json", *args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout, parse_float=Decimal)


def three_three_two_zero(order: tuple[Seat, ...], banker: Seat, seed: int) -> Any:
    """A feng deal whose tricks split 3-3-2-0: order[0] and order[1] take 3, order[2] takes 2."""
    plain = ["七索", "六索", "五索", "四索", "七萬", "四萬", "三萬", "三索"]
    winners = [order[0]] * 3 + [order[1]] * 3 + [order[2]] * 2
    return build(list(zip(winners, plain, strict=True)), banker=banker, seed=seed)


@settings(max_examples=40, deadline=None)
@given(order=st.permutations([E, S, W, N]), banker=st.sampled_from(SEATS), seed=st.integers(0, 10_000))
def test_halves_of_zhu_stay_exact_in_the_ledger_and_in_json(order: list[Seat], banker: Seat, seed: int,
                                                            tmp_path_factory: pytest.TempPathFactory) -> None:
    """3-3-2-0 under feng: 兩人三卓一人無牌則分贏一吊 — each winner gets exactly ½ 吊 = ½ 注."""
    deal = three_three_two_zero(tuple(order), banker, seed)
    s = settle_deal(find_ruleset("feng"), deal)
    assume(s.status == PLAYED)  # the random rest of the deal may make a hand 免斗 (not played)
    assert sorted(s.play.trick_counts) == [0, 2, 3, 3]
    diao = {f.seat: f.amount for f in s.firings if f.item.id == "diao"}
    assert diao[order[0]] == diao[order[1]] == TICKS_PER_ZHU // 2
    assert diao[order[3]] == -TICKS_PER_ZHU

    path = tmp_path_factory.mktemp("half") / "deal.yaml"
    path.write_text(dump_deals([deal]), encoding="utf-8")
    result = report_json(path)["deals"][0]["results"][0]
    fired = {(f["id"], f["seat"]): f["zhu"] for f in result["fired"]}
    for seat in order[:2]:
        assert fired[("diao", seat.id)] == Decimal("0.5")  # not 0.49999…
    assert fired[("diao", order[3].id)] == -1
    check_exact(result, s)


def check_exact(result: dict[str, Any], s: Any) -> None:
    """Every amount in the JSON equals the ledger's exact value (ticks / 24), and the books balance."""
    assert len(result["ledger"]) == len(s.ledger)
    for line, t in zip(result["ledger"], s.ledger, strict=True):
        assert exact(line["amount"]) == Fraction(t.amount, TICKS_PER_ZHU)
    nets = {seat: exact(result["seats"][seat]["net"]) for seat in ("east", "south", "west", "north")}
    for seat in SEATS:
        assert nets[seat.id] == Fraction(s.nets[seat], TICKS_PER_ZHU)
    assert sum(nets.values()) + exact(result["guan_dui"]["net"]) == 0


def exact(value: Any) -> Fraction:
    """A JSON number (int or Decimal) or "p/q" text as an exact fraction."""
    assert not isinstance(value, float), value
    return Fraction(value)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**9), ruleset=st.sampled_from(bundled_ids()))
def test_json_numbers_are_exact_for_random_deals(seed: int, ruleset: str,
                                                 tmp_path_factory: pytest.TempPathFactory) -> None:
    import random

    deal = random_deal(random.Random(seed), f"r{seed}", banker=Seat(seed % 4))
    deal = dataclasses.replace(deal, guan_dui=seed % 3)
    path = tmp_path_factory.mktemp("exact") / "deal.yaml"
    path.write_text(dump_deals([deal]), encoding="utf-8")
    result = report_json(path, "-r", ruleset)["deals"][0]["results"][0]
    reread = parse_deals(load_text(dump_deals([deal]), "d.yaml"))[0]
    check_exact(result, settle_deal(find_ruleset(ruleset), reread))
