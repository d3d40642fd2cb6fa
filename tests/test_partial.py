"""Partial deals: the format, the facts it yields, and messages that name the facts in conflict."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mahdiao_rules.cards import CARD_SUIT, SUIT_MASKS, Suit, parse_card
from mahdiao_rules.errors import InputError
from mahdiao_rules.history.partial import (
    SEAT_SLOTS,
    STOCK_SLOTS,
    FactConflict,
    load_partials,
    parse_partials,
    stock_slot,
    trick_slot,
)
from mahdiao_rules.io.yamlsafe import load_text

ROOT = Path(__file__).resolve().parent.parent
HISTORICAL = ROOT / "examples" / "historical.yaml"
E, S, W, N = 0, 1, 2, 3


def read(text: str):
    return parse_partials(load_text(textwrap.dedent(text), "frag.yaml"))


def one(text: str):
    (deal,) = read(text)
    return deal


def c(name: str) -> int:
    return int(parse_card(name))


def conflict(text: str) -> str:
    with pytest.raises(InputError) as info:
        read(text)
    return str(info.value)


# ---------------------------------------------------------------- the bundled fixtures


def test_the_bundled_historical_fixtures_load():
    deals = load_partials(HISTORICAL)
    assert [d.id for d in deals] == [
        "hongloumeng-continuation", "jinghuayuan-73", "s3-example-1-partial", "s3-example-2-partial",
        "s3-example-3-partial", "s3-dai-pei-partial"]
    for d in deals:
        assert d.source and d.inferences, d.id
        assert all(i["note"] for i in d.inferences)
        assert d.played


def test_the_hongloumeng_fixture_fixes_her_hand_and_leaves_the_face_card_open():
    deal = load_partials(HISTORICAL)[0]
    cons = deal.constraints()
    east_cards = {cons.placed[trick_slot(k, E)] for k in range(8)}
    assert east_cards == {c(x) for x in "空文 半文 二文 千萬 百萬 九十 八十 二十".split()}
    assert [cons.placed.get(stock_slot(i)) for i in range(8)] == [
        None, *(c(x) for x in "萬萬 七十 三十 一文 九文 八文 七文".split())]
    assert deal.bankers == (W,) and set(deal.banker_choices) == {"west", "east"}
    assert cons.first_leads == (E,) and all(cons.winners[k] == E for k in range(8))
    # Trick 1's three discards are 六十, 五十, 四十 in some order.
    allowed = {c("六十"), c("五十"), c("四十")}
    for seat in (S, W, N):
        assert {x for x, m in cons.compat.items() if m >> trick_slot(0, seat) & 1} == allowed


def test_the_jinghuayuan_fixture_has_the_sanwan_conflict_as_two_readings():
    deal = load_partials(HISTORICAL)[1]
    assert deal.reading_ids() == ["bankers-wan", "sibas-wan"]
    a, b = (deal.constraints(r) for r in deal.readings)
    sanwan = c("三萬")
    assert a.compat[sanwan] == SEAT_SLOTS[S] & a.compat[sanwan]
    assert not a.compat[sanwan] & SEAT_SLOTS[E]
    assert not b.compat[sanwan] & ~SEAT_SLOTS[E]
    # Without a reading the base facts leave 三萬 to either of them.
    base = deal.constraints()
    assert base.compat[sanwan] & SEAT_SLOTS[E] and base.compat[sanwan] & SEAT_SLOTS[S]


# ---------------------------------------------------------------- reading facts


def test_a_short_hand_list_and_categories():
    deal = one("""
        id: x
        hands:
          east: [百老, 九十]
          south: {lacks: [十, 空文], holds_one_of: [九萬, 八萬], count_by_suit: {索: {min: 2, max: 3}, 文: 1}}
        """)
    cons = deal.constraints()
    assert cons.compat[c("百萬")] == SEAT_SLOTS[E] and cons.compat[c("九十")] == SEAT_SLOTS[E]
    for card in range(40):
        if CARD_SUIT[card] == Suit.SHI or card == c("空文"):
            assert not cons.compat[card] & SEAT_SLOTS[S]
    assert cons.holds == ((S, (1 << c("九萬")) | (1 << c("八萬"))),)
    assert cons.suit_counts == {(S, Suit.SUO): (2, 3), (S, Suit.WEN): (1, 1)}


def test_unknown_cards_in_tricks_with_mie_not_higher_than_one_of_and_suit():
    cons = one("""
        id: x
        play:
          - lead: south
            cards: [九萬, {card: "?", mie: true}, {card: "?", not_higher_than: 八萬}, {card: "?", suit: 索}]
          - {lead: south, plays: {west: {card: "?", one_of: [一文, 二文]}}}
        """).constraints()
    assert cons.placed[trick_slot(0, S)] == c("九萬")
    assert cons.flags == {trick_slot(0, W): "mie"}
    slot = trick_slot(0, N)  # not higher than 八萬: no 九萬 (placed anyway) and every other card
    assert not any(m >> slot & 1 for x, m in cons.compat.items() if x == c("九萬"))
    assert all(cons.compat[x] >> slot & 1 for x in (c("八萬"), c("七萬"), c("九索")))
    slot = trick_slot(0, E)
    assert {x for x, m in cons.compat.items() if m >> slot & 1} == {
        x for x in cons.compat if SUIT_MASKS[Suit.SUO] >> x & 1}
    slot = trick_slot(1, W)
    assert {x for x, m in cons.compat.items() if m >> slot & 1} == {c("一文"), c("二文")}
    assert cons.winners == {0: S}  # trick 2 is led by south, so south won trick 1


def test_stock_positions_and_stock_includes():
    cons = one("""
        id: x
        stock: ["?", 九萬]
        stock_includes: [千萬, 半文]
        """).constraints()
    assert cons.placed == {stock_slot(1): c("九萬")}
    assert cons.compat[c("千萬")] == STOCK_SLOTS & ~(1 << stock_slot(1))


def test_won_cards_and_trick_counts():
    cons = one("""
        id: x
        hands:
          east: {won: [百老, 萬萬], won_exactly: true, tricks: 2}
          south: {tricks: 3}
        """).constraints()
    assert cons.won_by == {c("百萬"): E, c("萬萬"): E}
    assert cons.exact_seats == {E} and cons.tricks == {E: 2, S: 3}
    assert cons.compat[c("百萬")] == SEAT_SLOTS[E]


def test_a_reading_adds_its_facts_and_is_named_in_its_conflicts():
    deal = one("""
        id: x
        hands:
          east: [九萬]
        readings:
          - {id: a, label: one way, hands: {south: [八萬]}}
          - {id: b, label: other way, hands: {south: [七萬]}}
        """)
    assert deal.constraints(deal.reading("a")).compat[c("八萬")] == SEAT_SLOTS[S]
    assert c("八萬") in deal.constraints(deal.reading("b")).compat
    assert deal.constraints(deal.reading("b")).compat[c("八萬")] != SEAT_SLOTS[S]
    text = conflict("""
        id: x
        hands:
          east: [九萬]
        readings:
          - {id: a, hands: {south: [九萬]}}
        """)
    assert "reading 'a'" in text and "九萬 is in east's hand" in text


def test_banker_unknown_or_a_list():
    assert one("id: x\nbanker: '?'\n").bankers == (0, 1, 2, 3)
    assert one("id: x\nbanker: [north, east]\n").bankers == (E, N)
    assert one("id: x\nbanker: 西\n").bankers == (W,)


# ---------------------------------------------------------------- conflicts, named


def test_a_card_in_one_hand_and_played_by_another_seat():
    text = conflict("""
        id: x
        hands:
          south: [萬萬, 千萬, 百萬]
        play:
          - {lead: east, cards: ["?", "?", "?", "?"]}
          - {lead: east, cards: ["?", "?", "?", "?"]}
          - {lead: east, cards: ["?", "?", 百老, "?"]}
        """)
    assert text == ("frag.yaml:8: play[2].cards[2]: partial deal 'x': 百萬 is in south's hand "
                    "(hands.south[2], line 4) and is played by west in trick 3 (play[2].cards[2], line 8)")


def test_more_cards_forced_into_a_hand_than_it_holds():
    text = conflict("""
        id: x
        hands:
          east: [萬萬, 千萬, 百萬, 九十, 八十, 七十, 六十, 五十]
        play:
          - {lead: east, cards: [九萬, "?", "?", "?"]}
        """)
    assert ("east must hold 8 cards but 9 are forced: 九萬 (play[0].cards[0], line 6), "
            "萬萬 (hands.east[0], line 4)") in text


def test_the_stock_overflowing():
    text = conflict("""
        id: x
        stock: [九萬, 八萬, 七萬, 六萬, 五萬, 四萬, 三萬]
        stock_includes: [一萬, 二萬]
        """)
    assert "the stock holds 8 cards but 9 are forced" in text


def test_a_known_card_against_lacks():
    text = conflict("""
        id: x
        hands:
          east: {cards: [九十], lacks: [十]}
        """)
    assert "九十 is in east's hand (hands.east.cards[0], line 4) and is excluded from east's hand " \
           "(east lacks 十) (hands.east.lacks, line 4)" in text


def test_a_winner_against_the_next_lead():
    text = conflict("""
        id: x
        play:
          - {lead: east, winner: south}
          - {lead: west}
        """)
    assert text.endswith("trick 1 is won by south (play[0].winner, line 4) but trick 2 is led by west "
                         "(play[1].lead, line 5)")


def test_count_by_suit_against_the_cards_played():
    text = conflict("""
        id: x
        hands:
          east: {count_by_suit: {十: {max: 1}}}
        play:
          - {lead: east, cards: [九十, "?", "?", "?"]}
          - {lead: east, cards: [八十, "?", "?", "?"]}
        """)
    assert ("east holds 0–1 十 cards (hands.east.count_by_suit.十, line 4), "
            "but 2 are forced: 九十 八十") in text


def test_a_capture_flag_that_the_cards_refute():
    text = conflict("""
        id: x
        play:
          - {lead: east, cards: [九萬, {card: 八萬, zhuo: true}, "?", "?"]}
        """)
    assert "south's card in trick 1 is 捉 (a capture)" in text
    assert "八萬 does not capture (滅) after 九萬" in text


def test_a_won_card_in_a_trick_someone_else_won():
    text = conflict("""
        id: x
        hands:
          south: {won: [百老]}
        play:
          - {lead: east, winner: east, cards: ["?", 百老, "?", "?"]}
        """)
    assert ("south won a trick with 百萬 (hands.south.won[0], line 4), "
            "but south's card in trick 1 is 百萬") in text


def test_a_card_won_by_two_seats():
    text = conflict("""
        id: x
        hands:
          south: {won: [百老]}
          north: {won: [百老]}
        """)
    assert "百萬 was won (上卓) by south (hands.south.won[0], line 4) and was won (上卓) by north" in text


def test_holds_one_of_when_every_option_is_elsewhere():
    text = conflict("""
        id: x
        hands:
          east: {holds_one_of: [九萬, 八萬]}
          south: [九萬, 八萬]
        """)
    assert "east holds one of 九萬 八萬" in text and "placed elsewhere" in text


def test_trick_counts_that_add_up_to_more_than_eight():
    text = conflict("""
        id: x
        hands:
          east: {tricks: 5}
          south: {tricks: 4}
        """)
    assert "the stated trick counts add up to more than 8" in text


def test_cards_listed_without_a_known_leader():
    text = conflict("""
        id: x
        play:
          - {cards: [九萬, "?", "?", "?"]}
        """)
    assert "trick 1 lists cards in play order but its leader is not known" in text


def test_a_flag_on_the_lead_is_refused():
    text = conflict("""
        id: x
        play:
          - {lead: east, cards: [{card: "?", mie: true}, "?", "?", "?"]}
        """)
    assert "the lead is 發, neither 捉 nor 滅" in text


def test_schema_errors_name_the_line():
    text = conflict("""
        id: x
        hands:
          east: {cards: [九萬], hold_one_of: [八萬]}
        """)
    assert text.startswith("frag.yaml:4: hands.east") and "hold_one_of" in text


def test_a_misspelt_card_suggests_names():
    text = conflict("""
        id: x
        hands:
          east: [百佬]
        """)
    assert "hands.east[0]" in text and "unknown card '百佬'" in text


def test_conflicts_are_fact_conflicts_with_the_facts_attached():
    with pytest.raises(FactConflict) as info:
        read("""
            id: x
            hands:
              east: {cards: [九十], lacks: [十]}
            """)
    assert [f.kind for f in info.value.facts] == ["in_hand", "lacks"]
