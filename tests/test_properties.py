"""Property tests: every ledger balances, seat rotation rotates the nets, replay is deterministic."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import random
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from cli_helpers import invoke
from hypothesis import given, settings
from hypothesis import strategies as st

from mahdiao_rules.cards import Card
from mahdiao_rules.deal import SEATS, Deal, Event, RecordedTrick, Seat
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.play.tricks import play_random
from mahdiao_rules.report.views import zhu_text
from mahdiao_rules.ruleset import find_ruleset
from mahdiao_rules.settle.ledger import GUAN_DUI, nets

OPTION_SETS = [
    {},
    {"diao_settlement": "winner_only"},
    {"ba_hong_set": "hong_zhang", "he_exemption": "none", "qi_zhuo": "any_seven"},
    {"dai_pei_amount": "capped", "dai_pei_beneficiaries": "banker_and_san"},
    {"dai_pei_amount": "gross", "dai_pei_beneficiaries": "banker_and_san"},
]


def shuffled_deal(seed: int, banker: int, guan_dui: int = 0) -> Deal:
    """A random deal with a random recorded play (any card is legal in Madiao)."""
    rng = random.Random(seed)
    cards = [Card(c) for c in range(40)]
    rng.shuffle(cards)
    hands = tuple(tuple(cards[8 * i: 8 * i + 8]) for i in range(4))
    deal = Deal(id=f"p{seed}", banker=Seat(banker), hands=hands, stock=tuple(cards[32:]),  # type: ignore[arg-type]
                guan_dui=guan_dui)
    events: tuple[Event, ...] = ()
    if rng.random() < 0.5:
        # 代賠 events that are consistent with any record: 斗法低矢 needs no trick, a 顯滅 that
        # affected others is due for the winner of its trick.
        events = (Event("weak_play", Seat((banker + 1 + rng.randrange(3)) % 4)),
                  Event("xian_mie", Seat(rng.randrange(4)), trick=1, affected=rng.random() < 0.5))
    if rng.random() < 0.2:  # 多張: the seat may not capture from a trick on (the play follows it)
        events += (Event("duo_zhang", Seat(rng.randrange(4)), trick=rng.randrange(1, 9)),)
    deal = dataclasses.replace(deal, events=events)
    played = play_random(deal, Seat(rng.randrange(4)), rng)
    record = tuple(RecordedTrick(t.lead, t.cards) for t in played.tricks)
    return dataclasses.replace(deal, play=record)


def rotate(deal: Deal, k: int) -> Deal:
    hands = [None] * 4
    for s in SEATS:
        hands[(s + k) % 4] = deal.hands[s]
    return dataclasses.replace(
        deal,
        banker=deal.banker.after(k),
        hands=tuple(hands),  # type: ignore[arg-type]
        play=tuple(RecordedTrick(t.lead.after(k), t.cards) for t in deal.play or ()),
        events=tuple(dataclasses.replace(e, seat=e.seat.after(k)) for e in deal.events),
    )


deals = st.builds(shuffled_deal, st.integers(0, 10**9), st.integers(0, 3), st.integers(0, 5))


@settings(max_examples=300, deadline=None)
@given(deal=deals, options=st.sampled_from(OPTION_SETS))
def test_every_ledger_balances_to_zero(deal, options):
    s = settle_deal(find_ruleset("feng", options), deal)
    n = nets(s.ledger)
    assert sum(n) == 0
    assert all(t.amount > 0 and t.payer != t.payee for t in s.ledger)
    assert s.pool_end == s.pool_start + n[GUAN_DUI] >= 0


@settings(max_examples=200, deadline=None)
@given(deal=deals, k=st.integers(1, 3), options=st.sampled_from(OPTION_SETS))
def test_rotating_all_seats_rotates_the_nets(deal, k, options):
    rs = find_ruleset("feng", options)
    base = settle_deal(rs, deal).nets
    turned = settle_deal(rs, rotate(deal, k)).nets
    for s in SEATS:
        assert turned[(s + k) % 4] == base[s]
    assert turned[GUAN_DUI] == base[GUAN_DUI]


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**9), banker=st.integers(0, 3))
def test_replay_is_deterministic(seed, banker):
    rs = find_ruleset("feng")
    deal = shuffled_deal(seed, banker)
    unplayed = dataclasses.replace(deal, play=None, events=())
    for d in (deal, unplayed):
        a, b = settle_deal(rs, d), settle_deal(rs, d)
        assert a.ledger == b.ledger
        assert a.play == b.play


@settings(max_examples=200, deadline=None)
@given(deal=deals)
def test_pool_is_taken_only_by_da_huo_bai(deal):
    s = settle_deal(find_ruleset("feng"), deal)
    takers = {t.payee for t in s.ledger if t.payer == GUAN_DUI}
    da_huo = {f.seat for f in s.firings if f.item.id == "da_huo_bai"}
    assert takers <= da_huo


# --------------------------------------------------------------------------- exact numbers (issue 14 §3)


def _decimal_texts(value: Fraction) -> st.SearchStrategy[str]:
    """The ways a YAML or JSON file may write the finite decimal *value*: plain, with trailing
    zeros, with an exponent (``15e-1``, ``1.5E+0``), with a plus sign."""
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    plain = format(exact, "f")
    point = "" if "." in plain else "."
    places = len(plain.partition(".")[2])
    forms = [plain, f"{plain}{point}0", f"{plain}{point}00",
             f"{int(value * 10 ** places)}e-{places}", format(exact, "E")]
    if value > 0:
        forms.append(f"+{plain}")
    assert all(Fraction(Decimal(f)) == value for f in forms), forms
    return st.sampled_from(forms)


@st.composite
def amounts(draw: st.DrawFn, step: int) -> tuple[str, Fraction]:
    """A non-zero amount in 注, a multiple of 1/*step*, and one of its decimal spellings."""
    value = Fraction(draw(st.integers(-400, 400).filter(bool)), step)
    return draw(_decimal_texts(value)), value


_BASE = (Path(__file__).resolve().parent / "bad" / "base_ruleset.yaml").read_text(encoding="utf-8")
_DEAL = Path(__file__).resolve().parent / "bad" / "good" / "canonical.yaml"


def _ruleset_text(stated: list[tuple[str, str, Fraction]], syntax: str) -> str:
    """base_ruleset plus one always-firing item per stated amount, each number written with
    its own text (the JSON form is the YAML one dumped, the number texts put back in)."""
    import yaml

    data = yaml.safe_load(_BASE)
    for i, (kind, _text, _) in enumerate(stated):
        slot = f"@{i}@"
        data["items"].append({"id": f"x{i}", "name": f"例{i}", "phase": "play", "channel": "kai_zhu",
                              "zhu": slot if kind == "plain" else {"sum": [slot]},
                              "source": {"ref": "S", "quote": "大活開門"}})
    if syntax == "json":
        out = json.dumps(data, ensure_ascii=False, indent=1)
    else:
        out = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    for i, (_, text, _) in enumerate(stated):
        text = text.removeprefix("+") if syntax == "json" else text  # JSON writes no plus sign
        out = out.replace(f'"@{i}@"', text).replace(f"'@{i}@'", text).replace(f"@{i}@", text)
    return out


_GLYPHS = {"½": Fraction(1, 2), "⅓": Fraction(1, 3), "⅔": Fraction(2, 3), "¼": Fraction(1, 4),
           "¾": Fraction(3, 4)}


def zhu_of_text(text: str) -> Fraction | None:
    """An amount as the reports write it (``-1½``, ``3/8``, ``2 注``) as a rational, else None."""
    found = re.fullmatch(r"([+-]?)(\d*)(½|⅓|⅔|¼|¾|\d+/\d+)?(?: 注)?", text.strip())
    if not found or not (found.group(2) or found.group(3)):
        return None
    sign, whole, part = found.groups()
    value = Fraction(int(whole or 0)) + (_GLYPHS.get(part) or Fraction(part) if part else 0)
    return -value if sign == "-" else value


def exact_of(value: object) -> Fraction:
    """A JSON number (read with exact decimals) or ``"p/q"`` text, as an exact rational."""
    return Fraction(value)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(stated=st.lists(st.one_of(amounts(2).map(lambda a: ("plain", *a)),
                                 amounts(8).map(lambda a: ("sum", *a))), min_size=1, max_size=4),
       syntax=st.sampled_from(["yaml", "json"]))
def test_every_number_of_every_output_is_the_exact_rational_the_input_states(
        stated: list[tuple[str, str, Fraction]], syntax: str,
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Items that always fire, their amounts written in every decimal spelling (halves as plain
    amounts, eighths through an expression), in YAML and in JSON: the JSON report (fired items,
    ledger lines, nets), the text report and the rule table give exactly the rational each
    text states."""
    path = tmp_path_factory.mktemp("exact") / f"rules.{syntax}"
    path.write_text(_ruleset_text(stated, syntax), encoding="utf-8")
    want = {f"x{i}": value for i, (_, _, value) in enumerate(stated)}

    result = invoke("replay", str(_DEAL), "-r", str(path), "-f", "json")
    assert result.exit_code == 0, result.stderr
    res = json.loads(result.stdout, parse_float=Decimal)["deals"][0]["results"][0]
    fired = [f for f in res["fired"] if f["id"] in want]
    assert {f["id"] for f in fired} == set(want)
    for f in fired:
        assert exact_of(f["zhu"]) == want[f["id"]] * f["count"], f
        assert zhu_of_text(zhu_text(f["zhu"])) == exact_of(f["zhu"]), f  # as the views show it
    paid = {s: Fraction(0) for s in ("east", "south", "west", "north")}
    for line in res["ledger"]:
        if line["item"] in want:
            assert exact_of(line["amount"]) == abs(want[line["item"]]), line
        assert zhu_of_text(zhu_text(line["amount"])) == exact_of(line["amount"]), line
        paid[line["payer"]] = paid.get(line["payer"], Fraction(0)) - exact_of(line["amount"])
        paid[line["payee"]] = paid.get(line["payee"], Fraction(0)) + exact_of(line["amount"])
    for seat in ("east", "south", "west", "north"):
        assert exact_of(res["seats"][seat]["net"]) == paid[seat]
        assert zhu_of_text(zhu_text(res["seats"][seat]["net"])) == paid[seat]

    table = invoke("rules", "table", str(path), "-f", "csv")
    assert table.exit_code == 0, table.stderr
    rows = list(csv.DictReader(io.StringIO(table.stdout.lstrip("\ufeff"))))
    for (kind, _, value), row in zip(stated, [r for r in rows if r["id"] in want], strict=True):
        if kind == "plain":
            # A number stays a number in CSV (no formula guard): the JSON spelling, exact.
            assert Fraction(row["zhu"]) == value, row["zhu"]


@settings(max_examples=30, deadline=None)
@given(half=st.integers(-40, 40).filter(bool), places=st.integers(18, 40), sign=st.sampled_from([1, -1]),
       syntax=st.sampled_from(["yaml", "json"]))
def test_a_number_a_binary_float_would_round_is_refused_not_rounded(
        half: int, places: int, sign: int, syntax: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """``k/2 ± 10^-places`` reads as k/2 through a float; read exactly it is no multiple of ½,
    so the ruleset is refused — and the message shows the number as written."""
    value = Fraction(half, 2) + sign * Fraction(1, 10 ** places)
    scaled = abs(value) * 10 ** places  # a whole number: the decimal digits, exactly
    digits = str(scaled.numerator).rjust(places + 1, "0")
    text = ("-" if value < 0 else "") + digits[:-places] + "." + digits[-places:]
    assert float(text) == half / 2 and Fraction(Decimal(text)) == value
    path = tmp_path_factory.mktemp("round") / f"rules.{syntax}"
    path.write_text(_ruleset_text([("plain", text, value)], syntax), encoding="utf-8")
    result = invoke("validate", str(path))
    assert result.exit_code == 2
    assert f"must be a multiple of 0.5, got {text}" in result.stderr
