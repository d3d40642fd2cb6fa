"""The generated settlement engine (ruleset/codegen.py, ruleset/emit.py) and the fast play.

* a hypothesis property: any bundled ruleset (or the language fixture), any option values,
  any deals — every path of the tool equals the reference interpreter (engine_check);
* the language fixture tests/data/engine_kinds.yaml, which uses the kinds and corners the
  bundled rulesets leave out;
* every kind still works without its emitter (the compiled closure is called instead);
* the generated source is made of the generator's own names and integers only, is cached
  per ruleset hash and options, and can be dumped for reading;
* the random play: drawn orders, the bit-level trick engine and the full one agree.
"""

from __future__ import annotations

import dataclasses
import io
import keyword
import random
import tokenize

import pytest
from cli_helpers import error_line, invoke
from engine_check import compare
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from mahdiao_rules.deal import Seat
from mahdiao_rules.errors import InputError
from mahdiao_rules.io.dealfile import deal_id, deal_seed, dealt, random_deal, random_deals
from mahdiao_rules.io.resources import data_dir
from mahdiao_rules.play.tricks import (
    N_ORDERS,
    bits_in_order,
    draw_orders,
    in_order,
    play_in_order,
    play_random,
    quick_of,
    quick_play,
)
from mahdiao_rules.ruleset import bundled_ids, codegen, emit, find_ruleset
from mahdiao_rules.ruleset.compiler import load_ruleset
from mahdiao_rules.ruleset.model import Ruleset

FIXTURE = "tests/data/engine_kinds.yaml"
SPECS = (*bundled_ids(), FIXTURE)


def _deals(seeds: list[int], pools: list[int]) -> list:
    return [dataclasses.replace(random_deal(random.Random(s), f"p{s}"), guan_dui=g)
            for s, g in zip(seeds, pools, strict=True)]


@settings(max_examples=15, deadline=None)
@given(spec=st.sampled_from(SPECS), data=st.data())
def test_every_path_equals_the_reference_for_any_options_and_deals(spec, data):
    base = find_ruleset(spec)
    options = {name: data.draw(st.sampled_from(sorted(opt.choices)), label=name)
               for name, opt in base.options.items()}
    try:
        find_ruleset(spec, options)
    except InputError:  # readings that do not go together (the compiler says why)
        reject()
    seeds = data.draw(st.lists(st.integers(0, 2**32 - 1), min_size=8, max_size=8), label="deals")
    pools = data.draw(st.lists(st.integers(0, 4), min_size=8, max_size=8), label="pools")
    problems = compare(spec, _deals(seeds, pools), options)
    assert not problems, "\n".join(problems[:5])


def test_the_language_fixture_equals_the_reference():
    deals = [dataclasses.replace(d, guan_dui=i % 3) for i, d in enumerate(random_deals("kinds", 400))]
    problems = compare(FIXTURE, deals)
    assert not problems, "\n".join(problems[:5])
    fired = {f for d in deals[:200] for f in _fired(find_ruleset(FIXTURE), d)}
    assert {"t_negative_value", "t_split", "t_group_a", "t_pool", "t_top", "t_bottom",
            "t_trick_has", "t_others", "t_nobody"} <= fired  # the corners are reached


def _fired(rs: Ruleset, deal) -> set[str]:
    from mahdiao_rules.pipeline import settle_deal

    return {f.item.id for f in settle_deal(rs, deal).firings}


def _fresh(spec: str) -> Ruleset:
    path = spec if spec.endswith(".yaml") else str(data_dir("rulesets") / f"{spec}.yaml")
    return load_ruleset(path)


@pytest.mark.parametrize("spec", ["app", FIXTURE])
def test_a_kind_without_an_emitter_falls_back_to_its_closure(spec, monkeypatch):
    for table in ("SET_EMITTERS", "COND_EMITTERS", "NUM_EMITTERS"):
        monkeypatch.setattr(emit, table, {})
    rs = _fresh(spec)
    rs.engine = codegen._build(rs)  # not the cached engine: this one calls closures only
    assert rs.engine.fallbacks > 0 and rs.engine.reads_order
    monkeypatch.setattr("engine_check.find_ruleset", lambda *_a, **_k: rs)
    deals = [dataclasses.replace(d, guan_dui=i % 2) for i, d in enumerate(random_deals("fallback", 150))]
    problems = compare(spec, deals)
    assert not problems, "\n".join(problems[:5])


ALLOWED_NAMES = {
    # the generated functions, their arguments and locals
    "sets", "st", "N", "E", "S", "K", "FD", "G", "L", "a", "n", "k", "b", "x_", "i_", "p_", "a_", "n_",
    "ST", "TW", "WA", "HA", "TS", "FW", "FR", "EXT",
    # helpers of codegen._HELPERS and the builtins the code uses
    *codegen._HELPERS, "bool", "int", "max", "min", "tuple", "sorted", "reverse",
    # HandState attributes
    "banker", "held", "won", "tricks", "chong_masks", "chong_points", "won_order", "won_tricks",
    "trick_winners", "stock", "fired", "pool", "append", "bit_count",
}


def _allowed(name: str) -> bool:
    if name in ALLOWED_NAMES or keyword.iskeyword(name):
        return True
    if name in {f"{v}_{p}" for v in ("fast", "fire") for p in codegen.PHASES}:
        return True
    head = name.rstrip("0123456789")
    return head != name and head in {"h", "w", "t", "c", "cp", "O", "K", "fb", "lb", "ds", "x", "EX"}


@pytest.mark.parametrize("spec", SPECS)
def test_generated_source_is_made_of_the_generators_names_and_integers(spec):
    rs = find_ruleset(spec)
    source = codegen.engine(rs).source
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME:
            assert _allowed(tok.string), f"unexpected name {tok.string!r} in the generated code"
        assert tok.type != tokenize.STRING, f"a string in the generated code: {tok.string}"
        if tok.type == tokenize.NUMBER:
            int(tok.string, 0)  # integers only
        if tok.type == tokenize.COMMENT:  # nothing of the YAML, not even in a comment
            assert tok.string == "# Generated by mahdiao_rules.ruleset.codegen: do not edit."
    assert source.isascii()  # no name or quote of the YAML (they are hanzi) either


def test_engines_are_cached_per_hash_and_options_and_can_be_dumped(tmp_path, monkeypatch):
    a, b = find_ruleset("feng"), _fresh("feng")
    assert a is not b and codegen.engine(a) is codegen.engine(b)
    other = find_ruleset("feng", {"qi_zhuo": "any_seven"})
    assert codegen.engine(other) is not codegen.engine(a)
    monkeypatch.setenv("MAHDIAO_ENGINE_DUMP", str(tmp_path))
    eng = codegen._build(_fresh("feng"))
    text = (tmp_path / f"engine-{a.content_hash}.py").read_text(encoding="utf-8")
    assert text.endswith(eng.source) and "'diao'" in text  # the legend names the items by index
    assert codegen.engine_source(a).endswith(codegen.engine(a).source)


def test_the_hidden_command_prints_the_source(tmp_path):
    out = invoke("rules", "engine", "app", "--set", "app.zheng_se_yang_jia=table")
    assert out.exit_code == 0
    assert out.stdout.startswith("# items by index:") and "def fast_play(st, N):" in out.stdout
    changed = codegen.engine(find_ruleset("app", {"zheng_se_yang_jia": "table"})).source
    assert out.stdout.endswith(changed) and changed != codegen.engine(find_ruleset("app")).source
    assert "engine" not in invoke("rules", "--help").stdout.split("Commands:")[-1]  # hidden
    assert "nosuch" in error_line(invoke("rules", "engine", "app", "--set", "app.nosuch=x"))


def test_deal_phase_endings_are_the_hand_ending_items():
    rs = find_ruleset("feng")
    eng = codegen.engine(rs)
    ends = {i.id for i in rs.items.values() if i.phase == "deal" and i.ends_hand}
    assert eng.ends == sum(rs.fired_bits[i] for i in ends)


# ====================================================================== the random play


def test_drawn_orders_are_randrange_of_eight_factorial():
    for seed in range(200):
        a, b = random.Random(seed), random.Random(seed)
        assert draw_orders(a) == tuple(b.randrange(N_ORDERS) for _ in range(4))


def test_play_orders_are_the_permutations_in_lexicographic_order():
    from itertools import permutations

    hand = tuple(range(3, 11))
    perms = list(permutations(hand))
    for number in (0, 1, 5039, 20000, N_ORDERS - 1):
        assert tuple(in_order(hand, number)) == perms[number]
        assert bits_in_order(hand, number) == [1 << c for c in perms[number]]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), leader=st.sampled_from(list(Seat)))
def test_the_bit_trick_engine_plays_as_the_full_one(seed, leader):
    deal = random_deal(random.Random(seed), "t")
    numbers = draw_orders(random.Random(seed + 1))
    full = play_in_order([in_order(deal.hands[s], numbers[s]) for s in range(4)], leader)
    won, tricks, winners, order, masks, upto = quick_play(
        *[bits_in_order(deal.hands[s], numbers[s]) for s in range(4)], int(leader), True)

    def by_winner(per_trick: list[int]) -> list[list[int]]:
        return [[x for t, x in zip(full.tricks, per_trick, strict=True) if t.winner == s] for s in range(4)]

    assert won == list(full.won_masks) and tricks == list(full.trick_counts)
    assert winners == [int(t.winner) for t in full.tricks]
    assert order == by_winner([t.winning_card for t in full.tricks])
    assert masks == by_winner([sum(1 << c for c in t.cards) for t in full.tricks])
    assert upto == by_winner([sum(1 << c for c in t.cards[:t.cards.index(t.winning_card) + 1])
                              for t in full.tricks])
    assert quick_of(full, True) == (won, tricks, winners, order, masks, upto)
    assert quick_of(full) == (won, tricks, winners, order, masks, None)
    assert full == play_random(deal, leader, random.Random(seed + 1))


def test_random_play_is_uniform_per_position():
    """Each seat's first card is each of its eight cards about equally often."""
    deal = random_deal(random.Random(1), "u")
    counts = [0] * 8
    rng = random.Random(2)
    for _ in range(8000):
        first = play_random(deal, Seat.EAST, rng).tricks[0].cards[0]
        counts[deal.hands[0].index(first)] += 1
    assert all(850 < c < 1150 for c in counts), counts


def test_dealt_values_are_the_random_deal():
    for i in range(50):
        hands, stock, banker = dealt(random.Random(deal_seed("s", i)))
        deal = random_deals("s", 1, start=i)[0]
        assert hands == deal.hands and stock == deal.stock and banker == deal.banker
        assert deal.id == deal_id("s", i) == f"s-{i + 1}" and deal_seed("s", i) == f"s/{i}"


@pytest.mark.parametrize("options", [{}, {"first_banker": "face"}])
def test_simulate_fast_chunk_equals_the_deal_by_deal_path(options):
    """The default simulation (deals as masks, orders drawn once) against Quick.deal on Deals."""
    from mahdiao_rules.simulate import Plan, Runner, Slot, Tally

    plan = Plan(n=300, seed="paths", policy="random",
                slots=(Slot("feng"), Slot("app", tuple(options.items())), Slot("qing")))
    runner = Runner(plan)
    fast = runner.chunk(0, 300)
    tally = Tally(runner)
    for deal in random_deals("paths", 300):
        tally.add(runner.results(deal))
    slow = tally.stats()
    assert fast == slow and fast.n == 300
    assert runner.chunk(0, 300, random_deals("paths", 300)) == fast  # deals made already (--deals-out)
