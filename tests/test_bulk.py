"""Bulk files: JSON Lines deals, big YAML and JSON deal files read deal by deal, limits per deal,
replay written deal by deal, memory flat in the number of deals.

``MAHDIAO_BULK_DEALS`` sets the size of the round trip (2,000 by default; the issue's 50,000
takes a minute or two on one core: ``MAHDIAO_BULK_DEALS=50000 python -m pytest tests/test_bulk.py``).
Speed is measured by ``benchmarks/bulk.py``, never here.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import KEEP, error_line, invoke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from mahdiao_rules.deal import RecordedTrick
from mahdiao_rules.errors import InputError
from mahdiao_rules.io.dealfile import (
    SMALL_FILE,
    DealWriter,
    dump_deals,
    iter_deals,
    iter_random_deals,
    random_deals,
)
from mahdiao_rules.io.fastcheck import deal_ok
from mahdiao_rules.io.schemacheck import load_schema
from mahdiao_rules.io.yamlsafe import Limits
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.play.policies import auto_play, make_policy
from mahdiao_rules.report.contract import stamp
from mahdiao_rules.report.render import replay_report
from mahdiao_rules.ruleset import find_ruleset

BULK = int(os.environ.get("MAHDIAO_BULK_DEALS", "2000"))


def write(path: Path, deals: Any, fmt: str | None = None, **kw: Any) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = DealWriter(fh, fmt or path.suffix.lstrip(".").replace("yml", "yaml"), **kw)
        writer.write(deals)
        writer.close()
    return path


def recorded(deals: Any) -> Any:
    """The deals with their tricks played at random under feng and recorded."""
    rs = find_ruleset("feng")
    policy = make_policy("random", rs)
    for deal in deals:
        play = auto_play(rs, deal, policy)
        tricks = tuple(RecordedTrick(t.lead, tuple(t.cards)) for t in play.tricks)
        yield dataclasses.replace(deal, play=tricks)


# ---------------------------------------------------------------------- round trips


def test_deal_jsonl_round_trip_through_validate_and_replay(tmp_path):
    deals = tmp_path / "x.jsonl"
    result = invoke("deal", "-n", str(BULK), "--seed", "bulk", "-o", str(deals))
    assert result.exit_code == 0
    assert invoke("validate", str(deals)).stdout.startswith(f"{deals}: ok ({BULK} deals)\n")
    out = tmp_path / "r.jsonl"
    result = invoke("replay", str(deals), "-f", "jsonl", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    with open(out, encoding="utf-8") as fh:
        header = json.loads(fh.readline())
        ids = [json.loads(line)["id"] for line in fh]
    assert header["kind"] == "replay-header" and len(ids) == BULK
    assert ids[:2] == ["bulk-1", "bulk-2"] and ids[-1] == f"bulk-{BULK}"


def test_a_replayed_deal_takes_under_5_kb_per_ruleset_unless_full_sources_are_asked(tmp_path):
    """Sources by key (one table in the header): recorded deals under the three rulesets."""
    deals = write(tmp_path / "rec.jsonl", recorded(iter_random_deals("size", 40)))
    sizes = {}
    for extra in ((), ("--full-sources",)):
        out = tmp_path / f"r{len(extra)}.jsonl"
        assert invoke("replay", str(deals), "-r", "all", "-f", "jsonl", "-o", str(out), *extra).exit_code == 0
        lines = out.read_bytes().splitlines()[1:]
        assert len(lines) == 40
        sizes[bool(extra)] = sum(map(len, lines)) / (40 * 3)
    assert sizes[False] <= 5000 and sizes[True] > 1.3 * sizes[False], sizes


@pytest.mark.parametrize("fmt", ["yaml", "json", "jsonl"])
def test_every_deal_file_the_tool_writes_it_reads_back(tmp_path, fmt):
    """Big enough to be read deal by deal (more than 64 KiB), and equal to what was written."""
    n = 400
    path = write(tmp_path / f"d.{fmt}", iter_random_deals("rt", n), title="t", stamp={"seed": "rt"})
    assert path.stat().st_size > SMALL_FILE
    assert list(iter_deals(path)) == random_deals("rt", n)
    assert path.read_text(encoding="utf-8") == dump_deals(random_deals("rt", n), fmt=fmt, title="t",
                                                          stamp={"seed": "rt"})


@pytest.mark.parametrize("fmt", ["yaml", "json", "jsonl"])
def test_limits_apply_to_each_deal_not_to_the_file(tmp_path, fmt):
    path = write(tmp_path / f"d.{fmt}", recorded(iter_random_deals("lim", 300)))
    size = path.stat().st_size
    limits = Limits(max_bytes=size // 50, max_nodes=200, max_depth=8)  # a deal: ~90 values, ~1.5 kB
    assert len(list(iter_deals(path, limits=limits))) == 300
    tight = Limits(max_bytes=size, max_nodes=40, max_depth=8)
    with pytest.raises(InputError) as info:
        list(iter_deals(path, limits=tight))
    message = str(info.value)
    assert "MAHDIAO_MAX_NODES" in message and "alias" not in message
    assert message.startswith(f"{path}:")


def test_the_issue_example_deal_5000_then_validate_in_a_real_process(tmp_path):
    from test_limits import run_module

    big = tmp_path / "big.yaml"
    done = run_module("deal", "-n", "5000", "-o", str(big))
    assert done.returncode == 0, done.stderr
    done = run_module("validate", str(big))
    assert done.returncode == 0 and done.stdout.startswith(f"{big}: ok (5000 deals)"), done.stderr


# ---------------------------------------------------------------------- bad lines


GOOD = json.dumps({"id": "g", "banker": "east", "hands": {
    "east": ["萬萬", "六十", "八萬", "六萬", "九索", "五索", "四文", "五文"],
    "south": ["九萬", "三萬", "八索", "三索", "枝花", "二文", "六文", "七文"],
    "west": ["千萬", "七十", "五十", "三十", "七索", "四索", "八文", "九文"],
    "north": ["八十", "四十", "七萬", "四萬", "二萬", "六索", "二索", "一索"]},
    "stock": ["五萬", "百老", "三文", "一萬", "空文", "九十", "一文", "二十"]}, ensure_ascii=False)

BAD_LINES = {
    "malformed": ('{"id": "b", "banker": "east"', "JSON syntax error"),
    "unknown key": (GOOD.replace('"banker"', '"bnker"').replace('"g"', '"b"'), "unknown key 'bnker'"),
    "missing key": (GOOD.replace('"stock"', '"stok"').replace('"g"', '"b"'), "unknown key 'stok'"),
    "wrong type": (GOOD.replace('"banker": "east"', '"banker": 3').replace('"g"', '"b"'), "banker"),
    "bad card": (GOOD.replace("萬萬", "萬萬萬").replace('"g"', '"b"'), "unknown card"),
    "not an object": ("[1, 2, 3]", "each line holds one deal"),
    "duplicate id": (GOOD, "duplicate deal id 'g' (first at line 1)"),
    "NaN": (GOOD.replace('"g"', '"b"').replace("}", ', "guan_dui": NaN}', 1), "NaN"),
    "bad header": ('{"kind": "deal"}', "kind"),
}


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_a_bad_line_is_one_error_naming_file_and_line(tmp_path, case):
    text, fragment = BAD_LINES[case]
    path = tmp_path / "bad.jsonl"
    path.write_text(GOOD + "\n\n" + text + "\n" + GOOD.replace('"g"', '"h"') + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    out.write_text(KEEP, encoding="utf-8")
    for args in (["validate", str(path)], ["replay", str(path), "-f", "jsonl", "-o", str(out)]):
        result = invoke(*args)
        if args[0] == "validate":
            assert result.exit_code == 2
            lines = result.stderr.splitlines()
            assert len(lines) == 1
            line = lines[0]
        else:
            line = error_line(result)
        assert line.startswith(f"mahdiao: error: {path}:3: "), line
        assert fragment in line, line
    assert out.read_text(encoding="utf-8") == KEEP  # nothing written


def test_an_error_in_a_big_json_file_names_its_line(tmp_path):
    path = write(tmp_path / "d.json", iter_random_deals("j", 300))
    lines = path.read_text(encoding="utf-8").splitlines()
    n = next(i for i, line in enumerate(lines) if '"j-150"' in line)
    assert lines[n + 3].lstrip().startswith('"east"')
    lines[n + 3] = lines[n + 3].replace('"east"', '"est"', 1)  # deal j-150's hands.east
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        list(iter_deals(path))
    assert info.value.line == n + 4 and "deals[149].hands" in str(info.value), str(info.value)
    lines[n + 3] = lines[n + 3].replace('"est"', '"east"', 1)
    lines[n + 4] = lines[n + 4] + ","  # a doubled comma: JSON refuses it
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        list(iter_deals(path))
    assert "JSON syntax error" in str(info.value) and info.value.line is not None


# ---------------------------------------------------------------------- streaming by construction


def test_jsonl_deals_are_read_lazily(tmp_path):
    """The reader is a generator: the deals before a broken line come out before its error."""
    path = tmp_path / "d.jsonl"
    write(path, iter_random_deals("lazy", 5))
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("{broken\n")
    deals = iter_deals(path)
    assert [next(deals).id for _ in range(5)] == [f"lazy-{i}" for i in range(1, 6)]
    with pytest.raises(InputError):
        next(deals)


def _peak(fn: Any) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("fmt", ["jsonl", "yaml", "json"])
def test_reading_deals_takes_the_same_memory_for_any_number(tmp_path, fmt):
    small = write(tmp_path / f"s.{fmt}", iter_random_deals("m", 300))
    large = write(tmp_path / f"l.{fmt}", iter_random_deals("m", 1200))

    def count(path: Path) -> Any:
        return lambda: sum(1 for _ in iter_deals(path))
    a, b = _peak(count(small)), _peak(count(large))
    # Only the ids seen grow with the number of deals (to refuse a repeated one): ~100 bytes each.
    assert b < a + 900 * 300, (a, b)


class Spy(io.StringIO):
    """An output stream that records how many deals had been built at each write."""

    def __init__(self, built: list[int]) -> None:
        super().__init__()
        self.built = built
        self.seen: list[tuple[int, int]] = []

    def write(self, text: str) -> int:
        self.seen.append((self.built[0], len(self.getvalue())))
        return super().write(text)


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv", "ledger", "text", "html"])
def test_replay_is_written_deal_by_deal(fmt):
    """Deal k is settled only after deal k-1 was written: nothing holds all the deals' results."""
    from mahdiao_rules.report.render import render_report

    deals = random_deals("stream", 6)
    rs = find_ruleset("feng")
    built = [0]

    def settle_row(deal: Any) -> list[Any]:
        built[0] += 1
        return [settle_deal(rs, deal)]

    report = replay_report(deals, [rs], stamp=stamp(""), settle_row=settle_row)
    out = Spy(built)
    render_report(report, fmt, out)
    written_before = {}
    for n, size in out.seen:
        written_before.setdefault(n, size)
    # When deal k (k ≥ 2) was settled, the output of deal k-1 was already written.
    sizes = [written_before[k] for k in sorted(written_before) if k >= 1]
    assert len(sizes) == 6 and sizes == sorted(sizes) and len(set(sizes)) == 6, out.seen[:20]
    text = out.getvalue()
    for deal in deals:
        assert deal.id in text


def test_replay_memory_is_flat_in_the_number_of_deals(tmp_path):
    small = write(tmp_path / "s.jsonl", recorded(iter_random_deals("f", 150)))
    large = write(tmp_path / "l.jsonl", recorded(iter_random_deals("f", 600)))

    def replay(path: Path) -> Any:
        def go() -> None:
            result = invoke("replay", str(path), "-r", "all", "-f", "json", "-o", str(tmp_path / "o.json"))
            assert result.exit_code == 0, result.stderr
        return go
    replay(small)()  # warm caches (compiled rulesets, templates)
    a, b = _peak(replay(small)), _peak(replay(large))
    assert b < a * 1.3 + 2_000_000, (a, b)


# ---------------------------------------------------------------------- the fast check = the schema


SCHEMA = load_schema("deal")
DEAL_VALIDATOR = Draft202012Validator({"$defs": SCHEMA["$defs"], "$ref": "#/$defs/deal"})
BASE = json.loads(GOOD)

TEXTS = ["", "east", "e", "東", "x", "release_bai_lao", "Bad_Type", "九萬", "a\n"]
INNER_KEYS = ["lead", "cards", "type", "seat", "trick", "card", "victim", "note", "east", "x"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 10), st.sampled_from([0.0, 3.0, 2.5]),
                    st.sampled_from(TEXTS))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=9), st.dictionaries(st.sampled_from(INNER_KEYS), inner, max_size=4)),
    max_leaves=12)
KEYS = ["id", "title", "source", "banker", "hands", "stock", "guan_dui", "play", "events", "notes", "extra"]


@st.composite
def near_deals(draw: Any) -> Any:
    deal = json.loads(json.dumps(BASE))
    deal["play"] = [{"lead": "east", "cards": ["萬萬", "九萬", "千萬", "八十"]}]
    deal["events"] = [{"type": "release_bai_lao", "seat": "north", "trick": 1}]
    for _ in range(draw(st.integers(0, 3))):
        key = draw(st.sampled_from(KEYS))
        action = draw(st.sampled_from(["drop", "set", "deep"]))
        if action == "drop":
            deal.pop(key, None)
        elif action == "set":
            deal[key] = draw(values)
        elif isinstance(deal.get(key), dict | list) and deal[key]:
            inner = deal[key]
            sub = draw(st.sampled_from(list(inner) if isinstance(inner, dict) else list(range(len(inner)))))
            if isinstance(inner[sub], dict) and inner[sub]:
                inner[sub][draw(st.sampled_from(list(inner[sub])))] = draw(values)
            else:
                inner[sub] = draw(values)
    return deal


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_float(v) for v in value)
    return False


@settings(max_examples=int(os.environ.get("MAHDIAO_FUZZ_EXAMPLES", "600")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(near_deals())
def test_the_fast_deal_check_agrees_with_the_schema(deal):
    valid = DEAL_VALIDATOR.is_valid(deal)
    fast = deal_ok(deal)
    assert not fast or valid  # never accepts what the schema refuses
    if not _has_float(deal) and not any(isinstance(v, str) and v.endswith("\n") for v in _strings(deal)):
        assert fast == valid  # and takes the short way for every ordinary deal


def _strings(value: Any) -> Any:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def test_the_fast_check_takes_every_deal_the_tool_writes():
    for deal in recorded(iter_random_deals("fast", 50)):
        data = json.loads(dump_deals([deal], fmt="jsonl"))
        assert deal_ok(data) and DEAL_VALIDATOR.is_valid(data)
