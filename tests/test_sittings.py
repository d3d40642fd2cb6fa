"""Sittings: hands in order, the 椿, the 官堆 and the stakes carried from hand to hand.

Hand-worked sittings per ruleset (``tests/data/sitting_*_worked.yaml``: nets, the 椿
sequence and the 官堆 worked out by hand in the comments below), the bundled example's
effects, the between-hand rules of the rulesets one by one, and properties: every hand and
the whole sitting balance with the 官堆 as an account (in 注 and in money), the 官堆 is
never negative, a sitting of one hand is today's single-hand replay, rotating the players
rotates the results.
"""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mahdiao_rules.deal import SEATS, Deal, Event, RecordedTrick
from mahdiao_rules.errors import InputError
from mahdiao_rules.io.dealfile import random_deals
from mahdiao_rules.io.sittingfile import Sitting, load_sitting, parse_sitting
from mahdiao_rules.io.yamlsafe import load_text
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.play.policies import auto_play, make_policy
from mahdiao_rules.ruleset import find_ruleset
from mahdiao_rules.sitting import play_sitting, spells, tenure
from mahdiao_rules.sitting.engine import draw_cards
from mahdiao_rules.units import TICKS_PER_ZHU

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
EXAMPLE = ROOT / "examples" / "sitting.yaml"
E, S, W, N = SEATS
Z = TICKS_PER_ZHU


def zhu(values) -> list[float]:
    return [v / Z for v in values]


# --------------------------------------------------------------------------- hand-worked


def test_feng_worked_sitting():
    """Three hands under feng, worked by hand.

    a (椿 東, first 椿 as recorded): 吊 only — 東 3 tricks (+1 吊), 南 and 西 2 (0), 北 1 (−1).
       東 = 3·1 − (0 + 0 − 1) = 4, 南 = 0 − 1 = −1, 西 = −1, 北 = −1 − 1 = −2; nobody 大活,
       so each adds a 子: 3, −2, −2, −3, 官堆 0 → 4.  Next 椿: 輪椿 → 南.
    b (椿 南): 南 holds five 十 — 十門滿五張, 免斗; each adds a 子: −1 each, 官堆 4 → 8.
       Next 椿: 另拈椿; the record says 北 drew it.
    c (椿 北): 北 wins 百老 and 七索 (正本): 大活百, each 散 pays 3 (−3 each, 北 +9); the 吊:
       東 3 tricks +1, 南 2 0, 西 1 −1, 北 2 0 → 北 = 0 − (1 + 0 − 1) = 0, 東 +1, 西 −1;
       北 takes the 官堆 (8).  東 −2, 南 −3, 西 −4, 北 +17, 官堆 8 → 0.  Next: 留椿 (北).
    Totals: 東 3 − 1 − 2 = 0, 南 −2 − 1 − 3 = −6, 西 −2 − 1 − 4 = −7, 北 −3 − 1 + 17 = 13, 官堆 0.
    """
    res = play_sitting(find_ruleset("feng"), load_sitting(DATA / "sitting_feng_worked.yaml"))
    assert [h.banker for h in res.hands] == [E, S, N]
    assert [zhu(h.nets) for h in res.hands] == [
        [3, -2, -2, -3, 4], [-1, -1, -1, -1, 4], [-2, -3, -4, 17, -8]]
    assert [(h.pool_before / Z, h.pool_after / Z) for h in res.hands] == [(0, 4), (4, 8), (8, 0)]
    assert [h.settlement.status for h in res.hands] == ["played", "mian_dou", "played"]
    assert res.hands[2].how.startswith("十門滿五張: 另拈椿")
    assert res.hands[2].settlement.next_banker == N  # 大活留椿
    assert zhu(res.totals()) == [0, -6, -7, 13, 0]
    assert res.player_at == {E: "甲", S: "乙", W: "丙", N: "丁"}


def test_app_worked_sitting():
    """Two hands under app, worked by hand (only the 吊 is paid; 1 吊 = 2 注).

    p (莊 西, the recorded first 莊 丙): 東 3 tricks +1 吊 = +2 注, 南 and 西 0, 北 1 −2 注.
       西 = 3·0 − (2 + 0 − 2) = 0; 東 +2, 南 0, 北 −2.  Top earner 東 → 莊.
    q (莊 東, the same tricks): 東 = 3·2 − (0 + 0 − 2) = 8, 南 −2, 西 −2, 北 −4.
       東 is the top earner again: 連莊.
    """
    res = play_sitting(find_ruleset("app"), load_sitting(DATA / "sitting_app_worked.yaml"))
    assert [h.banker for h in res.hands] == [W, E]
    assert [zhu(h.nets) for h in res.hands] == [[2, 0, 0, -2, 0], [8, -2, -2, -4, 0]]
    assert res.hands[-1].settlement.next_banker == E
    assert zhu(res.totals()) == [10, -2, -2, -6, 0]


def test_the_worked_feng_sitting_under_app_follows_another_bank():
    """The same cards, another procedure: the app's 莊 after hand a is its top earner."""
    record = load_sitting(DATA / "sitting_feng_worked.yaml")
    feng = play_sitting(find_ruleset("feng"), record)
    app = play_sitting(find_ruleset("app"), record, trust_record=True)
    assert app.hands[0].banker == feng.hands[0].banker == E
    assert app.hands[1].banker != feng.hands[1].banker


# --------------------------------------------------------------------------- the bundled example


@pytest.fixture(scope="module")
def example():
    record = load_sitting(EXAMPLE, display_name="examples/sitting.yaml")
    return record, {rid: play_sitting(find_ruleset(rid), record) for rid in ("feng", "app")}


def _fired(h, item_id, seat=None):
    return any(f.item.id == item_id and (seat is None or f.seat == seat) for f in h.settlement.firings)


def test_example_feng_effects(example):
    _, res = example
    feng = res["feng"].hands
    assert [h.banker for h in feng] == [W, N, N, E, S, W]
    # h1: a fine (顯滅) reaches the 官堆, and nobody 大活 adds a 子 each.
    fine = [t for t in feng[0].settlement.ledger if t.channel == "fa_li"]
    assert [(t.payer, t.payee, t.amount / Z) for t in fine] == [(N, 4, 2)]
    assert (feng[0].pool_before, feng[0].pool_after) == (0, 6 * Z)
    # h2: the 椿 makes 大活百, takes the 官堆 (the fine with it) and keeps the bank (大活留椿).
    assert _fired(feng[1], "da_huo_bai", N) and _fired(feng[1], "guan_dui_de", N)
    assert feng[1].pool_after == 0 and feng[1].settlement.next_banker == N
    assert feng[2].how.startswith("大活百: 留椿")
    # h4: 免斗 (十門滿五張) → 另拈椿; the new 椿 is the record's (drawn at the table).
    assert feng[3].settlement.status == "mian_dou" and feng[3].settlement.next_banker is None
    assert "另拈椿" in feng[4].how and feng[4].banker == S
    # h5: a 散's 大活百 takes the 官堆 and knocks (敲門); h6: 異賞 四尊 seizes the bank.
    assert _fired(feng[4], "da_huo_bai", W) and _fired(feng[4], "qiao_men", W)
    assert feng[4].pool_before == 8 * Z and feng[4].pool_after == 0
    assert _fired(feng[5], "si_zun", E) and feng[5].settlement.next_banker == E


def test_example_two_bank_sequences(example):
    record, res = example
    feng = [h.banker for h in res["feng"].hands]
    app = [h.banker for h in res["app"].hands]
    assert feng != app
    assert app[0] == feng[0] == W  # both draw the first 椿 from the same recorded draw
    # app does not follow the feng record: it says so, and nothing is an error.
    assert any("follow feng" in n for n in res["app"].notes)
    assert len(record.hands) == 6


def test_example_money_balances(example):
    _, res = example
    for r in res.values():
        assert sum(r.money()) == 0
        assert r.money()[4] >= 0


# --------------------------------------------------------------------------- between-hand rules


def _sitting(text: str) -> Sitting:
    return parse_sitting(load_text(text, "t.yaml"))


HAND = """  - id: a
    hands:
      east:  [萬萬, 千萬, 八萬, 七萬, 八索, 七索, 半文, 一文]
      south: [九十, 八十, 七十, 六十, 五十, 三萬, 二索, 三文]
      west:  [百萬, 四十, 九萬, 六萬, 九索, 六索, 二文, 四文]
      north: [三十, 二十, 五萬, 四萬, 五索, 四索, 五文, 六文]
    stock: [空文, 二萬, 一萬, 三索, 一索, 七文, 八文, 九文]
"""
HANDS = "hands:\n" + HAND


def _hand(hand_id: str, extra: str = "") -> str:
    """HAND with another id and extra keys (``banker: north``)."""
    return HAND.replace("id: a", f"id: {hand_id}" + (f"\n    {extra}" if extra else ""))


def test_mian_dou_redraws_from_the_seed_and_every_ruleset_draws_the_same_cards():
    record = _sitting("seed: s\n" + HANDS + _hand("b"))
    res = play_sitting(find_ruleset("feng"), record)
    assert res.hands[0].settlement.status == "mian_dou"
    cards = draw_cards("s", "redraw/1")
    best = min(range(4), key=lambda k: find_ruleset("feng").sitting.seat_draw.rank[cards[k]])
    assert res.hands[1].banker == SEATS[best]
    assert "drawn afresh from the seed" in res.hands[1].how


def test_redraw_record_ignored_under_the_seed_reading():
    text = "first_banker: {seat: east}\n" + HANDS + _hand("b", "banker: north")
    record = _sitting(text)
    used = play_sitting(find_ruleset("feng"), record)
    assert used.hands[1].banker == N and "as recorded" in used.hands[1].how
    seeded = play_sitting(find_ruleset("feng", {"ling_nian_zhuang": "seed"}), record)
    assert "from the seed" in seeded.hands[1].how


def test_a_fine_that_says_redraw():
    deal = random_deals("fine", 1)[0]
    ev = Event("xi_bi_jian_bai_lao", E)
    s = settle_deal(find_ruleset("feng"), dataclasses.replace(deal, events=(ev,)))
    assert s.next_banker is None and "洗畢見百老" in s.next_banker_reason


@pytest.mark.parametrize(("card", "redraw"), [("百萬", True), ("九萬", False)])
def test_fan_pai_redraws_only_for_bai_lao(card, redraw):
    """分牌失手翻轉 pays the card's holder; 惟翻百老者另拈椿."""
    from helpers import playable

    from mahdiao_rules.cards import parse_card

    c = parse_card(card)
    deal = next(d for d in random_deals("fan", 200) if playable(d) and d.holder(c) not in (None, E))
    s = settle_deal(find_ruleset("feng"), dataclasses.replace(deal, events=(Event("fan_pai", E, card=c),)))
    assert any(t.item == "fan_pai" and t.payee == deal.holder(c) for t in s.ledger)
    assert (s.next_banker is None) == redraw
    assert ("分牌失手翻轉: 另拈椿" in s.next_banker_reason) == redraw


def test_recorded_banker_contradicting_the_procedure_is_an_error():
    text = ("first_banker: {seat: east}\nhands:\n" + _hand("a", "banker: east")
            + _hand("b", "banker: west").replace("[九十, 八十, 七十, 六十, 五十, 三萬, 二索, 三文]",
                     "[九十, 八十, 七十, 六十, 三十, 三萬, 二索, 三文]")
            .replace("[三十, 二十, 五萬, 四萬, 五索, 四索, 五文, 六文]",
                     "[五十, 二十, 五萬, 四萬, 五索, 四索, 五文, 六文]"))
    record = _sitting(text)
    # hand a is 免斗 (five 十): the next 椿 is drawn — any recorded seat is a draw's outcome.
    res = play_sitting(find_ruleset("feng"), record)
    assert res.hands[1].banker == W
    # Under app the same record contradicts its procedure (the top earner): an error …
    with pytest.raises(InputError) as err:
        play_sitting(find_ruleset("app"), record)
    assert err.value.line == record.line_of(("hands", 1, "banker"))
    assert "hand 2 (b)" in str(err.value) and "--trust-record" in str(err.value)
    # … unless the record is trusted (then a note), or the sitting says it followed feng.
    trusted = play_sitting(find_ruleset("app"), record, trust_record=True)
    assert trusted.hands[1].banker == W and any("--trust-record" in n for n in trusted.hands[1].notes)
    under = play_sitting(find_ruleset("app"), _sitting("played_under: feng\n" + text))
    assert any("under feng" in n for n in under.hands[1].notes)
    assert under.hands[1].banker == under.hands[0].settlement.next_banker


def test_first_banker_by_the_face_card_under_app():
    record = _sitting(HANDS.replace("[空文, 二萬", "[七索, 二萬").replace(
        "八索, 七索, 半文", "八索, 空文, 半文"))
    app = play_sitting(find_ruleset("app", {"first_banker": "face"}), record)
    assert app.hands[0].banker == W  # 七索: 7 → 三七家 = 西
    assert "面張 七索" in app.hands[0].how


def test_stake_above_the_cap_is_refused_when_the_cap_bounds_stakes():
    record = _sitting("stakes: {floor: 1, cap: 4}\n" + HANDS.replace("id: a", "id: a\n    stake: 6"))
    with pytest.raises(InputError) as err:
        play_sitting(find_ruleset("feng"), record)
    assert "above the agreed cap 4" in str(err.value)
    assert err.value.line == record.line_of(("hands", 0, "stake"))
    play_sitting(find_ruleset("app"), record)  # the app's cap limits nothing


def test_sitting_loss_cap_ends_the_sitting():
    deals = random_deals("loss", 8)
    record = dataclasses.replace(Sitting.of_deals(deals, seed="x"),
                                 stakes=load_sitting(EXAMPLE).stakes)
    feng = find_ruleset("feng", {"mai_zhu": "sitting_loss"})
    res = play_sitting(feng, record)
    worst = [min(sum(h.money[k] for h in res.hands[:i + 1]) for k in range(4))
             for i in range(len(res.hands))]
    if res.stopped:
        assert worst[-1] <= -4 and all(w > -4 for w in worst[:-1])
        assert len(res.hands) < 8
    else:
        assert all(w > -4 for w in worst[:-1])


# --------------------------------------------------------------------------- tenure


def test_spells_and_tenure():
    assert [(s.seat, s.start, s.length) for s in spells([0, 0, 1, 3, 3, 3, 0])] == [
        (0, 1, 2), (1, 3, 1), (3, 4, 3), (0, 7, 1)]
    t = tenure([0, 0, 1, 3, 3, 3, 0])
    assert [(x.hands, x.spells, x.longest) for x in t] == [(3, 2, 2), (1, 1, 1), (0, 0, 0), (3, 1, 3)]


# --------------------------------------------------------------------------- properties

RULESETS = ("feng", "app", "qing")


def _random_sitting(seed: int, n: int) -> Sitting:
    return Sitting.of_deals(random_deals(f"p{seed}", n), seed=f"s{seed}")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 6), rid=st.sampled_from(RULESETS))
def test_every_hand_and_the_sitting_balance_and_the_pool_is_never_negative(seed, n, rid):
    res = play_sitting(find_ruleset(rid), _random_sitting(seed, n))
    pool = 0
    for h in res.hands:
        assert sum(h.nets) == 0 and sum(h.money) == 0
        assert h.pool_before == pool and h.pool_after == pool + h.nets[4] >= 0
        pool = h.pool_after
    totals = res.totals()
    assert sum(totals) == 0 and totals[4] == pool
    assert sum(res.money()) == 0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), rid=st.sampled_from(RULESETS), banker=st.sampled_from(SEATS),
       pool=st.integers(0, 12))
def test_a_sitting_of_one_hand_is_the_single_hand_replay(seed, rid, banker, pool):
    deal = dataclasses.replace(random_deals(f"one{seed}", 1)[0], banker=banker)
    record = dataclasses.replace(Sitting.of_deals([deal], seed="x"), first_banker_seat=banker,
                                 guan_dui=pool)
    rs = find_ruleset(rid)
    res = play_sitting(rs, record, policy=make_policy("heuristic", rs))
    alone = settle_deal(rs, dataclasses.replace(deal, guan_dui=pool), policy=make_policy("heuristic", rs))
    assert res.hands[0].nets == alone.nets
    assert res.hands[0].pool_after == alone.pool_end


def _rotate_deal(deal: Deal, k: int) -> Deal:
    hands = tuple(deal.hands[(s - k) % 4] for s in range(4))
    play = tuple(RecordedTrick(t.lead.after(k), t.cards) for t in deal.play) if deal.play else None
    return dataclasses.replace(deal, hands=hands, play=play, banker=deal.banker.after(k))


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(1, 3), rid=st.sampled_from(RULESETS))
def test_rotating_the_players_rotates_the_results(seed, k, rid):
    """Players keep their seats for a sitting and draw for the 椿 as players: turn the table
    (every player, his cards, the first 椿 and the recorded tricks one seat on) and each
    player's results are the same, seat for seat one place on."""
    rs = find_ruleset(rid)
    policy = make_policy("random", rs)
    deals = []
    for i, d in enumerate(random_deals(f"rot{seed}", 4)):
        play = auto_play(rs, d, policy, random.Random(f"{seed}/{i}"))
        deals.append(dataclasses.replace(d, play=tuple(RecordedTrick(t.lead, t.cards) for t in play.tricks)))
    record = dataclasses.replace(Sitting.of_deals(deals, seed="r"), first_banker_seat=S)
    turned = dataclasses.replace(
        Sitting.of_deals([_rotate_deal(d, k) for d in deals], seed="r"),
        first_banker_seat=S.after(k),
        seats={name: seat.after(k) for name, seat in record.seats.items()})
    a, b = play_sitting(rs, record), play_sitting(rs, turned)
    assert [h.banker.after(k) for h in a.hands] == [h.banker for h in b.hands]
    for seat in record.seats.values():
        assert [h.nets[seat] for h in a.hands] == [h.nets[seat.after(k)] for h in b.hands]
    assert a.totals()[4] == b.totals()[4]


def test_money_values_a_pool_take_at_what_was_paid_in():
    """Chips paid into the 官堆 at a stake of 2 are paid out at 2, whatever the taker's stake."""
    feng = play_sitting(find_ruleset("feng"), load_sitting(EXAMPLE))
    h3, h4, h5 = feng.hands[2], feng.hands[3], feng.hands[4]
    assert (h3.hand.stake, h4.hand.stake, h5.hand.stake) == (2, 2, 3)
    take = next(t for t in h5.settlement.ledger if t.item == "guan_dui_de")
    paid_in = Fraction(h3.nets[4] + h4.nets[4], Z) * 2
    assert take.amount == 8 * Z and h5.money[4] == -paid_in


def test_json_lines_sitting_is_the_same_sitting(tmp_path):
    """A .jsonl sitting: the sitting on line 1, one hand a line; the same sitting as the YAML."""
    import json

    from mahdiao_rules.io.yamlsafe import load_file

    data = load_file(EXAMPLE).data
    path = tmp_path / "s.jsonl"
    lines = [json.dumps({k: v for k, v in data.items() if k != "hands"}, ensure_ascii=False)]
    lines += ["", *(json.dumps(h, ensure_ascii=False) for h in data["hands"])]  # a blank line too
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    a, b = load_sitting(EXAMPLE), load_sitting(path)
    assert [h.deal for h in a.hands] == [dataclasses.replace(h.deal, origin=a.file) for h in b.hands]
    assert b.line_of(("hands", 2, "hands", "east")) == 5
    assert b.line_of(("players",)) == 1
    feng = find_ruleset("feng")
    assert [h.nets for h in play_sitting(feng, a).hands] == [h.nets for h in play_sitting(feng, b).hands]


def _jsonl_error(tmp_path, raw: bytes) -> str:
    path = tmp_path / "e.jsonl"
    path.write_bytes(raw)
    with pytest.raises(InputError) as err:
        load_sitting(path, display_name="e.jsonl")
    return str(err.value)


def test_json_lines_sitting_errors_name_the_line_and_the_hand(tmp_path):
    """The JSON Lines reader of deal files reads sittings too: each message names the file's
    own line (blank lines counted) and, inside a hand, the hand."""
    import json

    from mahdiao_rules.io.yamlsafe import load_file

    data = load_file(EXAMPLE).data
    head = json.dumps({k: v for k, v in data.items() if k != "hands"}, ensure_ascii=False)
    hands = [json.dumps(h, ensure_ascii=False) for h in data["hands"]]

    def lines(*rows: str) -> bytes:
        return ("\n".join(rows) + "\n").encode("utf-8")

    assert _jsonl_error(tmp_path, lines(head, "", hands[0], hands[1][:-1])) == \
        "e.jsonl:4: hands[1]: JSON syntax error: Expecting ',' delimiter"
    bad_stake = hands[1].replace('"id": "h2"', '"id": "h2", "stake": "x"')
    assert _jsonl_error(tmp_path, lines(head, hands[0], "", bad_stake)) == \
        "e.jsonl:4: hands[1].stake: expected a number, got text 'x'"
    assert _jsonl_error(tmp_path, lines(head, hands[0], hands[0])).startswith(
        "e.jsonl:3: hands[1].id: hand 2 (h1): duplicate hand id 'h1'")
    assert _jsonl_error(tmp_path, lines(head, hands[0]) + b'{"id": "\xff"}\n') == \
        "e.jsonl:3: the file is not UTF-8 text (byte 0xff here); save it as UTF-8"
    assert _jsonl_error(tmp_path, lines(head, hands[0]).decode().encode("utf-16")).startswith(
        "e.jsonl:1: the file is saved as UTF-16")
    assert _jsonl_error(tmp_path, lines("[1]", hands[0])).startswith(
        "e.jsonl:1: the first line of a JSON Lines sitting is the sitting itself")
    assert _jsonl_error(tmp_path, b"\n \n").startswith("e.jsonl: the file is empty")
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + lines(head, "", *hands[:2]))
    record = load_sitting(path)
    assert len(record.hands) == 2 and record.line_of(("hands", 1, "stock")) == 4
