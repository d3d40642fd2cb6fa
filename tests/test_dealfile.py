"""Deal files: round trips, random deals, and every semantic check with its place and line."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from mahdiao_rules.cards import Card, card_name, parse_card
from mahdiao_rules.deal import SEAT_ALIASES, Deal, Event, RecordedTrick, Seat
from mahdiao_rules.errors import InputError
from mahdiao_rules.io.dealfile import (
    deal_to_data,
    dump_deals,
    load_deals,
    parse_deals,
    random_deal,
    random_deals,
    trick_winner,
)
from mahdiao_rules.io.resources import schema_path
from mahdiao_rules.io.textcheck import UNSAFE
from mahdiao_rules.io.yamlsafe import load_text

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "examples.yaml"

# Two valid deals, one per line where it matters, so each error has an obvious line.
BASE = """\
deals:
- id: demo
  title: test deal
  banker: east
  hands:
    east: [五十, 四十, 九萬, 七萬, 九索, 七索, 空文, 三文]
    south: [百萬, 九十, 三十, 四萬, 八索, 二索, 半文, 五文]
    west: [八十, 七十, 三萬, 六索, 五索, 一文, 六文, 七文]
    north: [六十, 二萬, 四索, 三索, 一索, 二文, 八文, 九文]
  stock: [四文, 八萬, 萬萬, 六萬, 千萬, 五萬, 一萬, 二十]
  guan_dui: 3
  play:
  - {lead: east, cards: [九萬, 四萬, 三萬, 二萬]}
  - {lead: east, cards: [九索, 二索, 五索, 三索]}
  - {lead: east, cards: [七索, 八索, 六索, 四索]}
  - {lead: south, cards: [百萬, 八十, 六十, 四十]}
  - {lead: south, cards: [五文, 一文, 八文, 三文]}
  - {lead: west, cards: [六文, 二文, 空文, 半文]}
  - {lead: east, cards: [七萬, 九十, 七十, 一索]}
  - {lead: east, cards: [五十, 三十, 七文, 九文]}
  events:
  - {type: release_bai_lao, seat: west, trick: 4, card: 八十, victim: south, note: test}
- id: second
  banker: n
  hands:
    east: [萬萬, 千萬, 百萬, 九十, 八十, 七十, 六十, 五十]
    south: [四十, 三十, 二十, 九萬, 八萬, 七萬, 六萬, 五萬]
    west: [四萬, 三萬, 二萬, 一萬, 九索, 八索, 七索, 六索]
    north: [五索, 四索, 三索, 二索, 一索, 空文, 半文, 一文]
  stock: [二文, 三文, 四文, 五文, 六文, 七文, 八文, 九文]
"""


def parse(text: str, file: str = "deals.yaml") -> list[Deal]:
    return parse_deals(load_text(text, file))


def line_containing(text: str, fragment: str) -> int:
    """1-based line of the first line holding *fragment* (must be unique in the text)."""
    hits = [n for n, line in enumerate(text.splitlines(), 1) if fragment in line]
    assert len(hits) == 1, (fragment, hits)
    return hits[0]


def mutate(old: str, new: str, text: str = BASE) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def error_of(text: str, file: str = "deals.yaml") -> InputError:
    with pytest.raises(InputError) as info:
        parse(text, file)
    return info.value


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(name) for name in text.split())


def play_out(deal: Deal, n_tricks: int) -> tuple[RecordedTrick, ...]:
    """A legal record: every seat plays its last card; each winner leads the next trick."""
    hands = [list(h) for h in deal.hands]
    leader, tricks = deal.banker, []
    for _ in range(n_tricks):
        played = tuple(hands[leader.after(k)].pop() for k in range(4))
        tricks.append(RecordedTrick(leader, played))  # type: ignore[arg-type]
        leader = trick_winner(leader, played)
    return tuple(tricks)


# --------------------------------------------------------------------------- the valid base


def test_base_file_reads() -> None:
    demo, second = parse(BASE)
    assert demo.id == "demo" and demo.title == "test deal" and demo.banker is Seat.EAST
    assert demo.hands[Seat.SOUTH][0] is Card.SHI_BAI
    assert demo.face is Card.WEN_4 and demo.guan_dui == 3
    assert demo.play is not None and len(demo.play) == 8
    assert demo.play[3] == RecordedTrick(Seat.SOUTH, cards("百萬 八十 六十 四十"))  # type: ignore[arg-type]
    assert demo.events == (Event("release_bai_lao", Seat.WEST, 4, Card.SHI_80, Seat.SOUTH, "test"),)
    assert demo.origin == "deals.yaml"
    assert second.banker is Seat.NORTH and second.play is None and second.events == ()
    assert second.guan_dui == 0 and second.title is None


def test_winners_follow_the_led_suit() -> None:
    assert trick_winner(Seat.EAST, cards("九萬 四萬 三萬 二萬")) is Seat.EAST
    assert trick_winner(Seat.EAST, cards("七索 八索 六索 四索")) is Seat.SOUTH
    # 文 is reversed (空文 highest); another suit never wins, whatever its rank.
    assert trick_winner(Seat.WEST, cards("六文 二文 空文 半文")) is Seat.EAST
    assert trick_winner(Seat.NORTH, cards("九文 萬萬 九萬 九索")) is Seat.NORTH


# --------------------------------------------------------------------------- semantic errors


def test_unknown_card_is_placed_at_the_item_with_a_suggestion() -> None:
    text = mutate("七索, 空文", "七鎖, 空文")
    err = error_of(text)
    assert "deal 'demo'" in err.message and "unknown card '七鎖'" in err.message
    assert "did you mean" in err.message
    assert err.place == "deals[0].hands.east[5]"
    assert err.line == 6 == line_containing(text, "七鎖")
    assert err.file == "deals.yaml"


@pytest.mark.parametrize(("old", "new", "fragment", "place"), [
    ("七索, 空文, 三文]", "七索, 空文]", "hands.east has 7 cards; it needs 8", "deals[0].hands.east"),
    ("一萬, 二十]", "一萬, 二十, 三文]", "stock has 9 cards; it needs 8", "deals[0].stock"),
])
def test_hand_and_stock_sizes(old: str, new: str, fragment: str, place: str) -> None:
    text = mutate(old, new)
    err = error_of(text)
    assert fragment in err.message and "deal 'demo'" in err.message
    assert err.place == place
    assert err.line == line_containing(text, new)


def test_duplicate_card_names_both_places_and_the_missing_card() -> None:
    text = mutate("九索, 七索", "百萬, 七索")
    err = error_of(text)
    assert "百萬 appears twice: hands.east[4] and hands.south[0]" in err.message
    assert "cards missing: 九索" in err.message
    assert err.place == "deals[0].hands.south[0]"
    assert err.line == line_containing(text, "south: [百萬")


def test_duplicate_in_stock_written_with_an_alias() -> None:
    text = mutate("一萬, 二十]", "一萬, 百老]")
    err = error_of(text)
    assert "百萬 appears twice: hands.south[0] and stock[7] (cards missing: 二十)" in err.message
    assert err.place == "deals[0].stock[7]"
    assert err.line == line_containing(text, "stock: [四文")


def test_trick_needs_four_cards() -> None:
    text = mutate("[九萬, 四萬, 三萬, 二萬]", "[九萬, 四萬, 三萬]")
    err = error_of(text)
    assert "trick 1 has 3 cards; it needs 4" in err.message
    assert err.place == "deals[0].play[0].cards"
    assert err.line == line_containing(text, "[九萬, 四萬, 三萬]")


@pytest.mark.parametrize(("old", "new", "fragment", "place"), [
    ("[九萬, 四萬, 三萬, 二萬]", "[九萬, 三萬, 四萬, 二萬]",
     "trick 1: 三萬 was played by south but south does not hold it (west holds it)",
     "deals[0].play[0].cards[1]"),
    ("[九萬, 四萬, 三萬, 二萬]", "[九萬, 四萬, 八萬, 二萬]",
     "trick 1: 八萬 was played by west but west does not hold it (it lies in the stock)",
     "deals[0].play[0].cards[2]"),
    ("[七萬, 九十, 七十, 一索]", "[九萬, 九十, 七十, 一索]",
     "trick 7: 九萬 already played in trick 1", "deals[0].play[6].cards[0]"),
    ("{lead: east, cards: [九索", "{lead: south, cards: [九索",
     "trick 2 must be led by east, who won trick 1", "deals[0].play[1].lead"),
])
def test_recorded_play_is_checked(old: str, new: str, fragment: str, place: str) -> None:
    text = mutate(old, new)
    err = error_of(text)
    assert fragment in err.message and "deal 'demo'" in err.message
    assert err.place == place
    assert err.line == line_containing(text, new)


def test_event_trick_must_be_a_recorded_trick() -> None:
    # Keep only the first three tricks; the event still names trick 4.
    lines = BASE.splitlines(keepends=True)
    text = "".join(lines[:15] + lines[20:])
    err = error_of(text)
    assert ("event 1 (release_bai_lao): trick 4 is outside 1..3 (the recorded play has 3 tricks)"
            in err.message)
    assert err.place == "deals[0].events[0].trick"
    assert err.line == line_containing(text, "release_bai_lao")


def test_event_without_play_may_name_any_trick() -> None:
    text = BASE + "  events:\n  - {type: wu_chu, seat: 南, trick: 8}\n"
    assert parse(text)[1].events == (Event("wu_chu", Seat.SOUTH, 8),)


def test_event_card_must_parse() -> None:
    text = mutate("card: 八十", "card: 八拾")
    err = error_of(text)
    assert "unknown card '八拾'" in err.message
    assert err.place == "deals[0].events[0].card"
    assert err.line == line_containing(text, "八拾")


@pytest.mark.parametrize(("old", "new", "word"), [
    ("seat: west, trick: 4", "seat: westt, trick: 4", "westt"),
    ("note: test}", "notes: test}", "notes"),
    ("trick: 4,", "trick: 9,", "9"),
    ("type: release_bai_lao", "type: Release-Bai", "Release-Bai"),
    ("  guan_dui: 3", "  guan_dui: -1", "-1"),
    ("  guan_dui: 3", "  guan_tui: 3", "guan_tui"),
])
def test_schema_rejects_bad_event_and_deal_keys(old: str, new: str, word: str) -> None:
    text = mutate(old, new)
    err = error_of(text)
    assert word in str(err)
    assert err.file == "deals.yaml" and err.line is not None


def test_duplicate_deal_id() -> None:
    text = mutate("- id: second", "- id: demo")
    err = error_of(text)
    assert "duplicate deal id 'demo' (first at line 2)" in err.message
    assert err.place == "deals[1].id"
    assert err.line == line_containing(BASE, "- id: second")


# --------------------------------------------------------------------------- spellings and forms


def test_simplified_alias_and_ascii_names_and_seat_aliases() -> None:
    text = BASE.replace("萬", "万")  # every 萬 card in simplified characters
    for old, new in [
        ("south: [百万", "south: [百老"),
        ("空文, 三文", "wen_kong, 三文"),
        ("半文, 五文", "枝花, 五文"),
        ("九万, 四万, 三万, 二万", "九贯, 4萬, 三貫, 二万"),
        ("banker: east", "banker: 東"),
        ("{lead: south, cards: [百万", "{lead: s, cards: [百子"),
        ("seat: west", "seat: 西"),
        ("victim: south", "victim: 南"),
        ("{lead: east, cards: [七万", "{lead: 东, cards: [七万"),
    ]:
        text = mutate(old, new, text)
    assert parse(text) == parse(BASE)


def test_schema_seats_match_the_seat_aliases() -> None:
    schema = json.loads(schema_path("deal").read_text(encoding="utf-8"))
    assert set(schema["$defs"]["seat"]["enum"]) == set(SEAT_ALIASES)


def test_single_deal_file() -> None:
    deal = parse(BASE)[0]
    text = yaml.safe_dump(deal_to_data(deal), allow_unicode=True, sort_keys=False)
    assert parse(text, "one.yaml") == [deal]
    bad = text.replace("- 九萬\n", "- 九万万\n", 1)
    err = error_of(bad, "one.yaml")
    assert err.place == "hands.east[2]" and "unknown card '九万万'" in err.message
    assert err.line == line_containing(bad, "九万万")


def test_json_input_with_lines() -> None:
    deal = parse(BASE)[0]
    text = json.dumps(deal_to_data(deal), ensure_ascii=False, indent=2)
    assert parse(text, "one.json") == [deal]
    bad = text.replace('"九萬"', '"九万万"', 1)
    err = error_of(bad, "one.json")
    assert err.file == "one.json" and err.place == "hands.east[2]"
    assert err.line == line_containing(bad, "九万万")


def test_load_deals_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "deals.yaml"
    path.write_text(mutate("七索, 空文", "七鎖, 空文"), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_deals(str(path), display_name="shown.yaml")
    assert info.value.file == "shown.yaml" and info.value.line == 6
    path.write_text(BASE, encoding="utf-8")
    assert load_deals(str(path)) == parse(BASE)


# --------------------------------------------------------------------------- writing


def test_deal_to_data_uses_hanzi_and_seat_ids() -> None:
    data = deal_to_data(parse(BASE.replace("萬", "万").replace("banker: east", "banker: 東"))[0])
    assert data["banker"] == "east"
    assert data["hands"]["south"][0] == "百萬" and data["stock"][2] == "萬萬"
    assert data["play"][0] == {"lead": "east", "cards": ["九萬", "四萬", "三萬", "二萬"]}
    assert data["events"] == [{"type": "release_bai_lao", "seat": "west", "trick": 4, "card": "八十",
                               "victim": "south", "note": "test"}]
    assert list(deal_to_data(random_deals("x", 1)[0])) == ["id", "banker", "hands", "stock"]


def test_yaml_dump_keeps_card_lists_on_one_line() -> None:
    text = dump_deals(parse(BASE), title="Two deals")
    assert text.startswith("title: Two deals\ndeals:\n- id: demo\n")
    assert "    south: [百萬, 九十, 三十, 四萬, 八索, 二索, 半文, 五文]\n" in text
    assert "  - {lead: south, cards: [百萬, 八十, 六十, 四十]}\n" in text
    assert parse(text) == parse(BASE)


@pytest.mark.parametrize("fmt", ["yaml", "json"])
@pytest.mark.parametrize("text", ["0E0", ".5", "010", "yes", "No", "n", "null", "~", "", "true",
                                  "a: b", "- x", "#x", "'q'", '"q"', "x\ufeffy", "\ufffe", "1-1",
                                  "x\ty", "a\nb"])
def test_text_that_looks_like_something_else_round_trips(text: str, fmt: str) -> None:
    deal = replace(random_deals(text, 1)[0], title=text, source=text)
    assert parse(dump_deals([deal], fmt=fmt, title=text), f"deals.{fmt}") == [deal]


@pytest.mark.parametrize("fmt", ["yaml", "json"])
@pytest.mark.parametrize("text", ["x\x85y", "x\u2028y", "\x7f", "\x1b[31m", "\u202eabc", "\x00"])
def test_text_the_reader_refuses_is_not_written(text: str, fmt: str) -> None:
    deal = replace(random_deals("s", 1)[0], title=f"t{text}")
    with pytest.raises(InputError, match="control character") as info:
        dump_deals([deal], fmt=fmt)
    assert "deal 's-1': title" in str(info.value)


def test_dump_rejects_unknown_format() -> None:
    with pytest.raises(ValueError, match="unknown deal file format"):
        dump_deals([], fmt="toml")


# Control characters are refused in any text (docs/limits.md): not in the texts either.
_texts = st.text(st.characters(exclude_categories=("Cs",)).filter(lambda ch: not UNSAFE.match(ch)),
                 max_size=12)
_seeds = st.one_of(st.integers(), _texts)
_event_types = st.from_regex(r"[a-z][a-z0-9]{0,5}(_[a-z0-9]{1,5}){0,2}", fullmatch=True)


@st.composite
def recorded_deals(draw: st.DrawFn) -> Deal:
    deal = random_deals(draw(_seeds), 1, start=draw(st.integers(0, 10**6)))[0]
    n_tricks = draw(st.one_of(st.none(), st.integers(1, 8)))
    play = None if n_tricks is None else play_out(deal, n_tricks)
    events = draw(st.lists(st.builds(
        Event, type=_event_types, seat=st.sampled_from(Seat),
        trick=st.one_of(st.none(), st.integers(1, n_tricks or 8)),
        card=st.one_of(st.none(), st.sampled_from(Card)), victim=st.one_of(st.none(), st.sampled_from(Seat)),
        note=st.one_of(st.none(), _texts)), max_size=3))
    return Deal(id=deal.id, banker=deal.banker, hands=deal.hands, stock=deal.stock, play=play,
                events=tuple(events), title=draw(st.one_of(st.none(), _texts)),
                source=draw(st.one_of(st.none(), _texts)), guan_dui=draw(st.integers(0, 1000)))


@settings(max_examples=60, deadline=None)
@given(st.lists(recorded_deals(), min_size=1, max_size=3, unique_by=lambda d: d.id),
       st.sampled_from(["yaml", "json"]), st.one_of(st.none(), _texts))
def test_round_trip(deals: list[Deal], fmt: str, title: str | None) -> None:
    text = dump_deals(deals, fmt=fmt, title=title)
    assert parse(text, f"deals.{fmt}") == deals


# --------------------------------------------------------------------------- random deals


def test_random_deals_are_deterministic_and_independent_of_the_range() -> None:
    assert random_deals("abc", 5) == random_deals("abc", 5)
    assert random_deals("abc", 3, start=2) == random_deals("abc", 5)[2:]
    assert random_deals(7, 2) == random_deals("7", 2)
    assert random_deals("abc", 1) != random_deals("abd", 1)
    assert [d.id for d in random_deals("abc", 2, start=4)] == ["abc-5", "abc-6"]


def test_random_deals_are_pinned() -> None:
    # String seeding hashes with SHA-512: no dependence on PYTHONHASHSEED, so this never changes.
    deal = random_deals("examples", 1)[0]
    assert deal.banker is Seat.NORTH
    assert deal.hands[Seat.EAST] == cards("萬萬 六十 八萬 六萬 九索 五索 四文 五文")
    assert deal.stock == cards("五萬 百萬 三文 一萬 空文 九十 一文 二十")


@given(st.integers(), st.sampled_from([None, *Seat]))
def test_random_deal_is_a_full_deck(seed: int, banker: Seat | None) -> None:
    deal = random_deal(random.Random(seed), "r", banker)
    assert sorted(c for hand in (*deal.hands, deal.stock) for c in hand) == list(Card)
    assert all(len(h) == 8 for h in deal.hands) and len(deal.stock) == 8
    assert all(list(h) == sorted(h) for h in deal.hands)
    assert banker is None or deal.banker is banker


# --------------------------------------------------------------------------- bundled examples


def test_examples_file() -> None:
    deals = load_deals(str(EXAMPLES))
    assert len(deals) >= 5
    assert all(d.title for d in deals)
    # Every recorded play is complete; the 免斗 examples have no play at all.
    assert all(d.play is None or len(d.play) == 8 for d in deals)
    assert sum(d.play is not None for d in deals) >= 5
    random_ones = [d for d in deals if d.source == "generated: mahdiao deal --seed examples"]
    assert [d.title for d in random_ones] == [f"Random deal {i + 1}" for i in range(len(random_ones))]
    for d in random_ones:
        fresh = random_deals("examples", len(random_ones))[random_ones.index(d)]
        assert (d.id, d.banker, d.hands, d.stock) == (fresh.id, fresh.banker, fresh.hands, fresh.stock)


def test_example_with_a_living_bai_lao() -> None:
    deal = next(d for d in load_deals(str(EXAMPLES)) if d.id == "bai-lao-lives")
    owner = deal.holder(Card.SHI_BAI)
    assert owner is not None and owner != deal.banker
    assert deal.play is not None
    won = [t for t in deal.play if trick_winner(t.lead, t.cards) == owner]
    assert len(won) >= 2 and any(Card.SHI_BAI in t.cards for t in won)
    assert card_name(deal.face) == "三文" and deal.guan_dui == 3
