"""Completions of partial deals: exact counts against brute force, uniform draws (chi-square),
the bundled fixtures under feng, and the ``reconstruct`` command."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import random
import textwrap
from collections import Counter
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from mahdiao_rules.cards import CARD_HANZI, CARD_SUIT
from mahdiao_rules.cli.history import reconstruct as reconstruct_command
from mahdiao_rules.errors import InputError
from mahdiao_rules.history.partial import FactConflict, load_partials, parse_partials, stock_slot, trick_slot
from mahdiao_rules.history.reconstruct import (
    Completion,
    ExactCounter,
    RelaxedCounter,
    SkeletonCounter,
    check,
    reconstruct,
)
from mahdiao_rules.io.dealfile import load_deals, random_deal
from mahdiao_rules.io.yamlsafe import load_text
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.play.tricks import play_random
from mahdiao_rules.ruleset import find_ruleset
from mahdiao_rules.settle.hand import MIAN_DOU
from mahdiao_rules.units import TICKS_PER_ZHU

ROOT = Path(__file__).resolve().parent.parent
HISTORICAL = ROOT / "examples" / "historical.yaml"
SEAT_IDS = ("east", "south", "west", "north")


def runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]  # click 8.1
    except TypeError:
        return CliRunner()


def partial_of(data: dict | str):
    text = data if isinstance(data, str) else yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    (deal,) = parse_partials(load_text(textwrap.dedent(text), "frag.yaml"))
    return deal


def historical(deal_id: str):
    return next(d for d in load_partials(HISTORICAL) if d.id == deal_id)


def tiny(seed: int, hide: int = 5, flags: bool = True, **extra) -> tuple[dict, list[int]]:
    """A random played deal written as a partial deal with *hide* slots unknown (their cards unlisted)."""
    rng = random.Random(seed)
    deal = random_deal(rng, "t")
    result = play_random(deal, deal.banker, rng)
    slots: dict[int, tuple[int, int, str]] = {}
    for k, t in enumerate(result.tricks):
        for p, card in enumerate(t.cards):
            slots[trick_slot(k, (t.lead + p) % 4)] = (int(card), p, t.actions[p])
    for i, card in enumerate(deal.stock):
        slots[stock_slot(i)] = (int(card), -1, "")
    hidden_slots = sorted(rng.sample(sorted(slots), hide))
    hidden = {slots[s][0] for s in hidden_slots}
    play = []
    for k, t in enumerate(result.tricks):
        cards = []
        for p, card in enumerate(t.cards):
            if trick_slot(k, (t.lead + p) % 4) in hidden_slots:
                entry: dict = {"card": "?"}
                if flags and p > 0:
                    entry[t.actions[p]] = True
                cards.append(entry)
            else:
                cards.append(CARD_HANZI[card])
        play.append({"lead": SEAT_IDS[t.lead], "cards": cards})
    play[-1]["winner"] = SEAT_IDS[result.tricks[-1].winner]
    data = {
        "id": f"tiny-{seed}", "banker": "east",
        "hands": {SEAT_IDS[s]: [CARD_HANZI[x] for x in deal.hands[s] if x not in hidden] for s in range(4)},
        "stock": ["?" if stock_slot(i) in hidden_slots else CARD_HANZI[x] for i, x in enumerate(deal.stock)],
        "play": play, **extra,
    }
    return data, hidden_slots


def brute_force(cons, hidden_slots: list[int]) -> set[tuple[tuple[int, ...], int]]:
    """Every completion, by trying every placement of the free cards in the hidden slots."""
    base = [-1] * 40
    for slot, card in cons.placed.items():
        base[slot] = card
    out = set()
    for perm in itertools.permutations(sorted(cons.compat)):
        slots = list(base)
        for slot, card in zip(hidden_slots, perm, strict=True):
            slots[slot] = card
        for lead in cons.first_leads:
            if check(cons, slots, lead):
                out.add((tuple(slots), lead))
    return out


def chi_square_ok(counts: Counter, cells: int, n: int) -> tuple[float, float]:
    """The chi-square statistic against the uniform law, and its 0.1% critical value (Wilson–Hilferty)."""
    expected = n / cells
    stat = sum((counts.get(i, 0) - expected) ** 2 / expected for i in range(cells))
    k = cells - 1
    z = 3.090  # upper 0.1% point of the standard normal
    critical = k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3
    return stat, critical


# ---------------------------------------------------------------- counting


@pytest.mark.parametrize("seed", range(8))
def test_the_exact_count_and_listing_equal_brute_force(seed):
    data, hidden = tiny(seed)
    cons = partial_of(data).constraints()
    truth = brute_force(cons, hidden)
    exact = ExactCounter(cons)
    assert exact.count() == len(truth)
    listed = [c.key for c in exact.enumerate()]
    assert len(listed) == len(set(listed)) and set(listed) == truth
    relaxed = RelaxedCounter(cons)
    assert relaxed.count() == math.factorial(len(hidden))
    assert {c.key for c in relaxed.enumerate() if check(cons, c.slots, c.first_lead)} == truth


@pytest.mark.parametrize("seed", range(6))
def test_hand_facts_are_counted_exactly(seed):
    data, hidden = tiny(seed, hide=6, flags=False)
    original = tiny_original(seed, hidden)
    played = [(slot, card) for slot, card in original.items() if slot < 32]
    (slot_a, card_a), (_slot_b, card_b) = played[0], played[-1]
    holder = slot_a % 4
    # Facts true of the original deal: its holder holds one of two free cards; a suit count.
    data["hands"][SEAT_IDS[holder]] = {"cards": data["hands"][SEAT_IDS[holder]],
                                       "holds_one_of": [CARD_HANZI[card_a], CARD_HANZI[card_b]]}
    other = (holder + 1) % 4
    other_cards = [tiny_slots(seed)[trick_slot(k, other)] for k in range(8)]
    suit = CARD_SUIT[card_b]
    n = sum(1 for x in other_cards if CARD_SUIT[x] == suit)
    data["hands"][SEAT_IDS[other]] = {"cards": data["hands"][SEAT_IDS[other]],
                                      "count_by_suit": {"十萬索文"[suit]: {"min": max(0, n - 1), "max": n}}}
    if card_a not in other_cards:
        data["hands"][SEAT_IDS[other]]["lacks"] = [CARD_HANZI[card_a]]
    cons = partial_of(data).constraints()
    truth = brute_force(cons, hidden)
    assert truth  # the original deal is one
    assert ExactCounter(cons).count() == len(truth)
    assert {c.key for c in RelaxedCounter(cons).enumerate() if check(cons, c.slots, c.first_lead)} == truth


def tiny_slots(seed: int) -> list[int]:
    """The card in every slot of the deal behind :func:`tiny` (same seed)."""
    rng = random.Random(seed)
    deal = random_deal(rng, "t")
    result = play_random(deal, deal.banker, rng)
    slots = [-1] * 40
    for k, t in enumerate(result.tricks):
        for p, card in enumerate(t.cards):
            slots[trick_slot(k, (t.lead + p) % 4)] = int(card)
    for i, card in enumerate(deal.stock):
        slots[stock_slot(i)] = int(card)
    return slots


def tiny_original(seed: int, hidden: list[int]) -> dict[int, int]:
    slots = tiny_slots(seed)
    return {slot: slots[slot] for slot in hidden}


@pytest.mark.parametrize("seed", range(4))
def test_an_open_first_leader_is_part_of_the_completion(seed):
    data, hidden = tiny(seed)
    first = data["play"][0]
    lead = SEAT_IDS.index(first["lead"])
    # Trick 1 written by seat, without its leader: who led it is left to the completions.
    data["play"][0] = {"plays": {SEAT_IDS[(lead + p) % 4]: card for p, card in enumerate(first["cards"])}}
    for entry in data["play"][0]["plays"].values():
        if isinstance(entry, dict):
            entry.pop("mie", None)
            entry.pop("zhuo", None)
    cons = partial_of(data).constraints()
    assert cons.first_leads == (0, 1, 2, 3)
    truth = brute_force(cons, hidden)
    assert ExactCounter(cons).count() == len(truth)
    assert {lead for _slots, lead in truth} >= {SEAT_IDS.index(first["lead"])}


def test_the_skeleton_count_agrees_with_the_general_programme():
    deal = partial_of("""
        id: sk
        banker: east
        hands:
          east: {won: [一文, 九萬, 八萬], won_exactly: true}
          south: {won: [百老, 九十], won_exactly: true}
          west: {won: [九索], won_exactly: true}
          north: {won: [萬萬, 七萬], won_exactly: true}
        stock: [空文, 半文, 千萬, 八十, 七十, 六十, 五十, 四十]
        play: [{lead: east}, {lead: south}, {lead: south}, {lead: north}, {lead: east}, {lead: west}]
        """)
    cons = deal.constraints()
    assert SkeletonCounter.applies(cons)
    expected = 1114525214693130240000
    assert SkeletonCounter(cons).count() == ExactCounter(cons, budget=100_000).count() == expected


# ---------------------------------------------------------------- uniform draws


def test_exact_draws_are_uniform_chi_square():
    data, _hidden = tiny(4)
    cons = partial_of(data).constraints()
    exact = ExactCounter(cons)
    index = {c.key: i for i, c in enumerate(exact.enumerate())}
    cells = len(index)
    assert cells > 50
    rng = random.Random(2024)
    n = 40 * cells
    counts = Counter(index[exact.sample(rng).key] for _ in range(n))
    stat, critical = chi_square_ok(counts, cells, n)
    assert stat < critical, (stat, critical)
    assert len(counts) == cells


def test_rejection_draws_are_uniform_chi_square():
    data, _hidden = tiny(1)
    cons = partial_of(data).constraints()
    index = {c.key: i for i, c in enumerate(ExactCounter(cons).enumerate())}
    cells = len(index)
    relaxed = RelaxedCounter(cons)
    rng = random.Random(7)
    counts: Counter = Counter()
    n = 0
    while n < 120 * cells:
        c = relaxed.sample(rng)
        if check(cons, c.slots, c.first_lead):
            counts[index[c.key]] += 1
            n += 1
    stat, critical = chi_square_ok(counts, cells, n)
    assert stat < critical, (stat, critical)


@pytest.mark.parametrize("method", ["auto", "rejection"])
def test_draws_over_overlapping_readings_are_uniform_over_the_union(method):
    data, _hidden = tiny(4)
    base = partial_of(data)
    cons = base.constraints()
    completions = list(ExactCounter(cons).enumerate())
    # Reading b: the first free card is where the first completion has it (a hand or the stock).
    first = sorted(cons.compat)[0]
    where = completions[0].slots.index(first)
    if where >= 32:
        narrower = {"stock_includes": [CARD_HANZI[first]]}
        in_b = [c for c in completions if first in c.slots[32:]]
    else:
        narrower = {"hands": {SEAT_IDS[where % 4]: [CARD_HANZI[first]]}}
        in_b = [c for c in completions if c.slots.index(first) % 4 == where % 4 and c.slots.index(first) < 32]
    data["readings"] = [{"id": "a", "label": "anything"}, {"id": "b", "label": "narrower", **narrower}]
    deal = partial_of(data)
    assert 0 < len(in_b) < len(completions)  # the readings overlap: b ⊂ a
    index = {c.key: i for i, c in enumerate(completions)}
    n = 30 * len(completions)
    r = reconstruct(deal, [], samples=n, seed="union", keep_deals=True, method=method, enumerate_up_to=0)
    counts = Counter()
    for d in r.completions:
        slots = [-1] * 40
        lead = d.play[0].lead
        for k, t in enumerate(d.play):
            for p, card in enumerate(t.cards):
                slots[trick_slot(k, (t.lead + p) % 4)] = int(card)
        for i, card in enumerate(d.stock):
            slots[stock_slot(i)] = int(card)
        counts[index[(tuple(slots), int(lead))]] += 1
    stat, critical = chi_square_ok(counts, len(completions), n)
    assert stat < critical, (stat, critical)


def test_skeleton_draws_match_exact_conditional_probabilities():
    """Who wins trick 7, over draws, against exact counts of the completions with each winner."""
    deal = historical("s3-dai-pei-partial")
    cons = deal.constraints()
    sk = SkeletonCounter(cons)
    total = sk.count()
    expected = {}
    for seat in range(4):
        sub = dataclasses.replace(cons, winners={**cons.winners, 6: seat})
        expected[seat] = SkeletonCounter(sub).count()
    assert sum(expected.values()) == total
    rng = random.Random(11)
    n = 1500
    seen = Counter(sk.sample(rng).tricks()[6][2] for _ in range(n))
    mean = {s: n * expected[s] / total for s in expected if expected[s]}
    stat = sum((seen[s] - m) ** 2 / m for s, m in mean.items())
    assert stat < 16.27, (stat, seen, expected)  # chi-square, 3 degrees of freedom, 0.1%


def test_every_draw_satisfies_the_facts():
    for deal in load_partials(HISTORICAL):
        for reading in deal.readings or [None]:
            cons = deal.constraints(reading)
            rng = random.Random(deal.id)
            if SkeletonCounter.applies(cons):
                draws = [SkeletonCounter(cons).sample(rng) for _ in range(20)]
            else:
                relaxed = RelaxedCounter(cons)
                draws = [relaxed.sample(rng) for _ in range(20)]
                assert all(check(cons, c.slots, c.first_lead, relaxed=True) for c in draws)
                continue
            for c in draws:
                assert sorted(c.slots) == list(range(40))
                assert check(cons, c.slots, c.first_lead)


# ---------------------------------------------------------------- the fixtures under feng


def test_hongloumeng_count_is_six_times_22_factorial_and_feng_never_plays_it():
    deal = historical("hongloumeng-continuation")
    feng = find_ruleset("feng")
    r = reconstruct(deal, [feng], samples=200, seed=1)
    assert r.count == 6 * math.factorial(22)
    assert r.considered == 200 and not r.exhaustive
    (summary,) = r.summaries
    assert summary.status == Counter({MIAN_DOU: 200})
    assert summary.note and "never played" in summary.note
    for seat in summary.seats:
        assert seat.nets == Counter({-TICKS_PER_ZHU: 200})  # each puts 1 注 in the 官堆
    east_items = {name for _i, name in summary.seats[0].items}
    assert "十門滿五張" in east_items
    # Ruleset-independent: she wins all eight tricks; the face card is one of 22.
    assert r.tricks[0] == Counter({8: 200})
    assert len(r.face) <= 22 and all(CARD_SUIT[card] != 0 for card in r.face)


def test_the_banker_choice_of_a_fixture():
    deal = historical("hongloumeng-continuation")
    r = reconstruct(deal, [], samples=5, banker=0)
    assert r.bankers == (0,)
    with pytest.raises(InputError, match="not one of its choices"):
        reconstruct(deal, [], samples=5, banker=1)


def test_s3_dai_pei_under_feng_matches_the_digest():
    deal = historical("s3-dai-pei-partial")
    r = reconstruct(deal, [find_ruleset("feng")], samples=80, seed=3)
    assert r.count == 14811445395372509207252340572160000
    (summary,) = r.summaries
    nets = [{n // TICKS_PER_ZHU for n in seat.nets} for seat in summary.seats]
    # 代賠 2 from 我 (north) to the 椿, except in completions where 我 held nothing but 十 at
    # the trick 百老 won: 「三路既竭，十亦竟出，縱活百老亦不代賠」, the nets without 代賠.
    assert nets[1:3] == [{6}, {3}]
    assert nets[0] <= {-8, -10} and nets[3] <= {-1, 1} and -8 in nets[0]


def test_s3_example_1_gives_east_the_written_rule_kai_zhu():
    deal = historical("s3-example-1-partial")
    r = reconstruct(deal, [find_ruleset("feng")], samples=40, seed=4)
    assert r.count is None and r.estimate and r.accepted == 40
    (summary,) = r.summaries
    east = summary.seats[0]
    kai_zhu = {"diao": 1, "shang": 3, "da_huo_bai": 3, "san_kai": 3, "si_hong": 4}
    for item_id, amount in kai_zhu.items():
        (key,) = [k for k in east.items if k[0] == item_id]
        assert east.items[key] == summary.basis
        assert east.item_amounts[key] == Counter({amount * TICKS_PER_ZHU: summary.basis})


def test_no_completion_names_a_minimal_set_of_facts():
    deal = partial_of("""
        id: x
        hands:
          east: {won: [一萬], won_exactly: true}
          north: {cards: [二萬, 三萬, 四萬, 五萬, 六萬, 七萬, 八萬, 九萬]}
        play:
          - {lead: east, winner: east}
        """)
    with pytest.raises(FactConflict) as info:
        reconstruct(deal, [], samples=5)
    assert str(info.value).endswith(
        "no complete deal satisfies these facts together: east won tricks with 一萬 and no others "
        "(hands.east.won, line 4); north holds 二萬 三萬 四萬 五萬 六萬 七萬 八萬 九萬 "
        "(hands.north.cards, line 5); trick 1 is won by east (play[0].winner, line 7)")


def test_small_sets_are_listed_in_full():
    data, hidden = tiny(2)
    deal = partial_of(data)
    r = reconstruct(deal, [find_ruleset("feng")], samples=1000)
    truth = brute_force(deal.constraints(), hidden)
    assert r.exhaustive and r.count == r.considered == len(truth)


# ---------------------------------------------------------------- the command


def test_reconstruct_command_on_the_hongloumeng_fixture():
    """Done when: per ruleset, the certain and uncertain parts of each seat's result and the count."""
    result = runner().invoke(reconstruct_command, ["--deal", "hongloumeng-continuation", "-r", "feng",
                                                   "--samples", "100", "--seed", "7"])
    assert result.exit_code == 0, result.output + result.stderr
    out = result.output
    assert "completions: 6,744,004,366,665,646,080,000 (≈ 6.74e+21), exact" in out
    assert "considered: 100 — 100 completions drawn uniformly at random by exact sequential sampling" in out
    assert "feng — 馮夢龍《馬弔腳例》" in out
    assert "status: 免斗 (not played) all" in out
    for who in ("east 郡主（黛玉）", "south 紫鵑", "west 玉釧", "north 柳婉"):
        assert f"  {who}: net -1 注 — same in all 100" in out
    assert "banker (椿): west 玉釧" in out and "--banker east" in out


def test_reconstruct_command_json():
    args = ["--deal", "s3-example-3-partial", "--samples", "30", "-f", "json"]
    result = runner().invoke(reconstruct_command, args)
    assert result.exit_code == 0, result.output + result.stderr
    data = json.loads(result.output)
    (d,) = data["partial_deals"]
    assert d["id"] == "s3-example-3-partial" and d["considered"] == 30
    assert d["completions"]["exact"] is False and d["completions"]["estimate"] > 0
    assert d["method"].startswith("rejection sampling")
    (res,) = d["results"]
    east = res["seats"]["east"]
    assert {i["item"] for i in east["items"] if i["in_all"]} >= {"diao", "si_bai", "si_bai_tu"}
    assert sum(x["count"] for x in east["distribution"]) == res["basis"]


def test_reconstruct_command_writes_completions_that_replay(tmp_path):
    out = tmp_path / "completions.yaml"
    result = runner().invoke(reconstruct_command, ["--deal", "s3-dai-pei-partial", "--samples", "5",
                                                   "--completions", str(out)])
    assert result.exit_code == 0, result.output + result.stderr
    deals = load_deals(str(out))
    assert len(deals) == 5 and all(d.play and len(d.play) == 8 for d in deals)
    feng = find_ruleset("feng")
    for d in deals:
        st = settle_deal(feng, d)
        assert st.status == MIAN_DOU or st.nets[:4] == [-8 * TICKS_PER_ZHU, 6 * TICKS_PER_ZHU,
                                                       3 * TICKS_PER_ZHU, -1 * TICKS_PER_ZHU]


def test_reconstruct_command_reading_and_errors(tmp_path):
    r = runner().invoke(reconstruct_command, ["--deal", "jinghuayuan-73", "--reading", "nope"])
    assert r.exit_code == 2 and "has no reading 'nope'" in r.stderr
    r = runner().invoke(reconstruct_command, ["--deal", "missing"])
    assert r.exit_code == 2 and "no partial deal with id 'missing'" in r.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: x\nhands:\n  east: {cards: [九十], lacks: [十]}\n", encoding="utf-8")
    r = runner().invoke(reconstruct_command, [str(bad)])
    assert r.exit_code == 2
    assert r.stderr.startswith("mahdiao: error: ") and "bad.yaml:3" in r.stderr and "\n" == r.stderr[-1]
    assert r.stderr.count("\n") == 1


def test_completion_to_deal_resolves_an_event_trick():
    deal = historical("s3-dai-pei-partial")
    cons = deal.constraints()
    c = SkeletonCounter(cons).sample(random.Random(0))
    full = Completion(c.slots, c.first_lead, 0).to_deal(deal, "x")
    (event,) = full.events
    winning = [t for t in c.tricks() if t[3] == 2]  # 百萬 is card 2
    assert event.trick == c.tricks().index(winning[0]) + 1
