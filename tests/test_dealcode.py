"""Deal codes: a bijection between deals and 20-character checked codes (18-character version-1 codes
still read), by exact multinomial ranking."""

from __future__ import annotations

import dataclasses
import random
from math import factorial
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mahdiao_rules.cards import Card
from mahdiao_rules.cli.history import code as code_command
from mahdiao_rules.deal import Deal, Seat
from mahdiao_rules.errors import InputError
from mahdiao_rules.io import dealcode
from mahdiao_rules.io.dealcode import (
    ALPHABET,
    CODE_LENGTH,
    N_DEALS,
    N_RANKS,
    check_digit,
    decode,
    encode,
    rank,
    unrank,
)
from mahdiao_rules.io.dealfile import load_deals, parse_deals, random_deals
from mahdiao_rules.io.yamlsafe import load_text

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "examples.yaml"


def runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]  # click 8.1
    except TypeError:
        return CliRunner()  # click >= 8.2 keeps stdout and stderr apart


def deal_of(order: list[int], banker: int) -> Deal:
    """Cards in *order*: 8 per hand in seat order (any order inside a hand), then the stock in order."""
    hands = tuple(tuple(Card(c) for c in order[8 * s: 8 * s + 8]) for s in range(4))
    return Deal(id="x", banker=Seat(banker), hands=hands, stock=tuple(Card(c) for c in order[32:]))  # type: ignore[arg-type]


def same_deal(a: Deal, b: Deal) -> bool:
    return (a.banker == b.banker and [set(h) for h in a.hands] == [set(h) for h in b.hands]
            and a.stock == b.stock)


deals = st.builds(deal_of, st.permutations(list(range(40))), st.integers(0, 3))


def test_the_number_of_deals_is_four_times_forty_factorial_over_eight_factorial_to_the_fourth():
    assert N_RANKS == factorial(40) // factorial(8) ** 4
    # = the multinomial of five groups of 8 (hands and stock as sets) times the 8! stock orders
    assert N_RANKS == factorial(40) // factorial(8) ** 5 * factorial(8)
    assert N_DEALS == 4 * N_RANKS
    assert 64 ** 16 < N_RANKS <= 64 ** 17


@settings(max_examples=300, deadline=None)
@given(deals)
def test_round_trip_deal_code_deal(deal):
    text = encode(deal)
    assert len(text) == CODE_LENGTH == 20
    assert text[0] == "2" and text[1] in "ESWN" and all(ch in ALPHABET for ch in text[2:])
    back = decode(text)
    assert same_deal(back, deal)
    assert back.play is None
    assert encode(back) == text


@settings(max_examples=200, deadline=None)
@given(st.integers(0, N_RANKS - 1), st.integers(0, 3))
def test_round_trip_code_deal_code(number, banker):
    deal = unrank(banker, number)
    assert rank(deal) == (banker, number)
    assert decode(encode(deal)) == dataclasses.replace(deal, id=encode(deal))


@settings(max_examples=100, deadline=None)
@given(deals, st.randoms(use_true_random=False))
def test_the_code_ignores_the_order_inside_hands_and_the_play(deal, rnd):
    shuffled = tuple(tuple(rnd.sample(list(h), 8)) for h in deal.hands)
    assert encode(dataclasses.replace(deal, hands=shuffled, id="other")) == encode(deal)


def test_different_deals_have_different_codes():
    base = random_deals("codes", 1)[0]
    codes = {encode(base)}
    # Swap one card between two hands; reorder the stock; change the banker.
    h = [list(x) for x in base.hands]
    h[0][0], h[1][0] = h[1][0], h[0][0]
    codes.add(encode(dataclasses.replace(base, hands=tuple(tuple(x) for x in h))))
    codes.add(encode(dataclasses.replace(base, stock=base.stock[1:] + base.stock[:1])))
    codes.add(encode(dataclasses.replace(base, banker=base.banker.after(1))))
    assert len(codes) == 4


def test_first_and_last_deals():
    first, last = unrank(0, 0), unrank(3, N_RANKS - 1)
    assert encode(first)[:-1] == "2E" + "A" * 17
    # The first deal gives east the 8 strongest cards; the last puts them in the stock.
    assert first.hands[0] == tuple(Card(c) for c in range(8))
    assert set(last.stock) == {Card(c) for c in range(8)}
    assert decode(encode(last)).stock == last.stock


def test_codes_of_random_deals_are_stable_across_runs():
    # The rank is pure integer arithmetic: the same deal always has the same code.
    deal = random_deals("stable", 1)[0]
    order = [card for hand in deal.hands for card in hand] + list(deal.stock)
    assert encode(deal) == encode(deal_of(order, deal.banker))


@pytest.mark.parametrize(("text", "message"), [
    ("E" + "A" * 16, "has 17 characters"),
    ("2E" + "A" * 16, "has 18 characters"),
    ("3E" + "A" * 18, "has version 3"),
    ("2X" + "A" * 17 + check_digit("2X" + "A" * 17), "must start with the banker's letter"),
    ("2E" + "A" * 16 + "*A", "character 19"),
    ("X" + "A" * 17, "must start with the banker's letter"),
    ("e" + "A" * 17, "must start with the banker's letter"),
    ("E" + "A" * 16 + "*", "character 18"),
    ("N" + "_" * 17, "not the code of any deal"),
])
def test_bad_codes_are_refused_with_a_reason(text, message):
    with pytest.raises(InputError, match=message):
        decode(text)


def test_an_incomplete_deal_has_no_code():
    deal = random_deals("x", 1)[0]
    broken = dataclasses.replace(deal, stock=deal.stock[:7])
    with pytest.raises(InputError, match="not a complete deal"):
        encode(broken)


def test_decoded_deals_are_valid_deal_files():
    rng = random.Random(5)
    codes = [encode(unrank(rng.randrange(4), rng.randrange(N_RANKS))) for _ in range(5)]
    result = runner().invoke(code_command, [f"--decode={c}" for c in codes])
    assert result.exit_code == 0, result.output
    back = parse_deals(load_text(result.output, "decoded.yaml"))
    assert [d.id for d in back] == codes
    assert [encode(d) for d in back] == codes


def test_code_command_prints_one_code_per_deal():
    result = runner().invoke(code_command, [str(EXAMPLES)])
    assert result.exit_code == 0, result.output
    *lines, stamp = result.output.splitlines()
    deals = load_deals(str(EXAMPLES))
    assert len(lines) == len(deals) and stamp.startswith("# mahdiao-rules ")
    for line, deal in zip(lines, deals, strict=True):
        name, text = line.split()
        assert name == deal.id and text == encode(deal)


def test_code_command_reports_a_bad_code_in_one_line():
    result = runner().invoke(code_command, ["--decode", "hello"])
    assert result.exit_code == 2
    assert result.stderr.strip() == ("mahdiao: error: deal code 'hello' has 5 characters; a deal code has 20 "
                                     "(2, the banker letter E, S, W or N, 17 digits and a check digit) — or "
                                     "18 in the older form without the check")


SAMPLE_CODES = [*(encode(d) for d in random_deals("check", 6)), encode(unrank(0, 0)),
                encode(unrank(3, N_RANKS - 1))]


@pytest.mark.parametrize("code", SAMPLE_CODES)
def test_every_single_character_change_of_a_code_is_detected(code):
    # Every position (version, banker, each digit, the check) and every other character a
    # hand could type there: not one of them decodes.
    typed = ALPHABET + "*. "
    for i, ch in enumerate(code):
        for other in typed:
            if other == ch:
                continue
            mistyped = code[:i] + other + code[i + 1:]
            with pytest.raises(InputError):
                decode(mistyped)


@pytest.mark.parametrize("code", SAMPLE_CODES[:3])
def test_a_dropped_or_doubled_character_is_detected_too(code):
    for i in range(len(code)):
        for mistyped in (code[:i] + code[i + 1:], code[:i] + code[i] + code[i:]):
            with pytest.raises(InputError):
                decode(mistyped)


def test_old_codes_still_decode_to_the_same_deal():
    for deal in random_deals("old", 20):
        v2 = encode(deal)
        v1 = v2[1:-1]  # what mahdiao-rules wrote before codes had a version and a check
        assert len(v1) == 18 and v1[0] in "ESWN"
        assert decode(v1).hands == decode(v2).hands and decode(v1).stock == deal.stock
        assert decode(v1).id == v1 and encode(decode(v1)) == v2


def test_module_doctest_example():
    d = random_deals("doc", 1)[0]
    assert dealcode.decode(dealcode.encode(d)).stock == d.stock
