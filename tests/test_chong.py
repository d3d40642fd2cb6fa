"""開沖 (digest §3.9, §6.1): the procedure, each link rule, each point row, the 沖成 items."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers import E, N, S, W, card, zhu

from mahdiao_rules.cards import Card, mask_of
from mahdiao_rules.deal import SEATS, Deal, Seat
from mahdiao_rules.errors import InputError
from mahdiao_rules.history.construct import construct_deal
from mahdiao_rules.io.resources import data_dir
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.play.tricks import play_random
from mahdiao_rules.ruleset import find_ruleset, load_ruleset
from mahdiao_rules.ruleset.dsl import HandState
from mahdiao_rules.ruleset.kai_chong import KaiChong
from mahdiao_rules.settle.hand import PLAYED
from mahdiao_rules.settle.kai_chong import ChongTake
from mahdiao_rules.settle.kai_chong import run as run_kai_chong
from mahdiao_rules.units import TICKS_PER_ZHU

UNUSED_FACES = ("五索", "四索", "六索", "四萬", "五文", "六萬")


WEB = {"chong_points": "app_w", "chong_link": "xiang_lian"}
"""The web version's reading, which most row tests below were written for (the default is the
shipped app's, app_u + tong_men: see the KanChong tests at the end)."""


def kai_chong(**options: str) -> KaiChong:
    return find_ruleset("app", {**WEB, **options}).procedure.kai_chong


def hand(won: dict[Seat, list[str]], stock: list[str], *, last: Seat | None = None,
         trick_has: dict[str, list[str]] | None = None, after: dict[str, list[str]] | None = None,
         banker: Seat = N) -> HandState:
    """A hand after play: each seat's 上桌 cards in winning order; *last* won trick 8.

    ``stock`` lists the cards turned in 開沖 (the face card is added in front); a
    ``trick_has`` entry puts other cards into the trick that card won (for 多胞胎), played
    before it; an ``after`` entry puts cards into it that were played after the winning card.
    """
    used = {card(c) for cards in won.values() for c in cards} | {card(c) for c in stock}
    face = next(c for c in UNUSED_FACES if card(c) not in used)
    st = HandState(int(banker), [0, 0, 0, 0], tuple(card(c) for c in [face, *stock]))
    extra = {card(k): mask_of(card(c) for c in v) for k, v in (trick_has or {}).items()}
    late = {card(k): mask_of(card(c) for c in v) for k, v in (after or {}).items()}
    winners = []
    for seat, cards in won.items():
        ids = [card(c) for c in cards]
        st.won[seat] = mask_of(ids)
        st.tricks[seat] = len(ids)
        st.won_order[seat] = tuple(ids)
        st.won_tricks[seat] = tuple((1 << c) | extra.get(c, 0) | late.get(c, 0) for c in ids)
        st.won_upto[seat] = tuple((1 << c) | extra.get(c, 0) for c in ids)
        winners += [int(seat)] * len(ids)
    if last is not None:
        winners.remove(int(last))
        winners.append(int(last))
    st.trick_winners = tuple(winners)
    return st


def takes(won: dict[Seat, list[str]], stock: list[str], *, last: Seat | None = None,
          trick_has: dict[str, list[str]] | None = None, after: dict[str, list[str]] | None = None,
          **options: str) -> tuple[list[ChongTake], HandState]:
    st = hand(won, stock, last=last, trick_has=trick_has, after=after)
    return run_kai_chong(kai_chong(**options), st), st


def one(won: list[str], c: str, *, trick_has: dict[str, list[str]] | None = None,
        after: dict[str, list[str]] | None = None, **options: str) -> ChongTake | None:
    """East, with *won* 上桌, turns the single stock card *c*."""
    out, _ = takes({E: won}, [c], trick_has=trick_has, after=after, **options)
    assert len(out) <= 1
    return out[0] if out else None


def pts(t: ChongTake | None) -> float:
    return 0 if t is None else t.points / TICKS_PER_ZHU


def kinds(t: ChongTake) -> dict[str, float]:
    """Each scoring 上桌 card → its row kind and points, as 'card:kind' → 注."""
    return {f"{p.source.hanzi}:{p.kind}": p.points / TICKS_PER_ZHU for p in t.parts}


# ---------------------------------------------------------------- the 紅樓夢 deal (§6.1)

JUNZHU = E  # 郡主 sits east; 玉釧 (夾家 ≈ 莊) north
HLM_WON = ["空文", "二文", "九十", "八十", "枝花", "千萬", "二十", "百萬"]
HLM_STOCK = ["五索", "萬萬", "七十", "三十", "一文", "九文", "八文", "七文"]


@pytest.fixture(scope="module")
def hlm() -> Deal:
    rs = find_ruleset("app")
    return construct_deal([(JUNZHU, c) for c in HLM_WON], banker=N, first_leader=JUNZHU,
                          stock=HLM_STOCK, deal_id="hlm",
                          accept=lambda d: settle_deal(rs, d).status == PLAYED)


def test_hlm_face_card_is_not_promoted(hlm):
    rs = find_ruleset("app")
    assert card("五索") not in rs.procedure.sheng_dai
    assert not any("升代" in n for n in settle_deal(rs, hlm).notes)


@pytest.mark.parametrize("scheme", ["app_w", "app_u"])
def test_hlm_junzhu_takes_all_seven_in_the_narrated_order(hlm, scheme):
    s = settle_deal(find_ruleset("app", {"chong_points": scheme, "chong_link": "xiang_lian"}), hlm)
    assert s.play.trick_counts[JUNZHU] == 8
    got = [(t.card.hanzi, t.seat, t.anchor.hanzi, t.duo) for t in s.chong]
    # 百子→紅萬 (十 錦張 mutual), 八十→七十, 二十→三十, 枝花/二文→一文, 空文→九文 (賞–極),
    # 九文→八文→七文 (taken cards anchor further takes)
    assert got == [("萬萬", E, "百萬", False), ("七十", E, "八十", False),
                   ("三十", E, "二十", False), ("一文", E, "半文", False),
                   ("九文", E, "空文", False), ("八文", E, "九文", False),
                   ("七文", E, "八文", False)]
    st = next(f.state for f in s.firings if f.item.id == "kai_chong")
    assert st.chong[JUNZHU] == tuple(card(c) for c in HLM_STOCK[1:])
    assert st.chong_masks == [mask_of(card(c) for c in HLM_STOCK[1:]), 0, 0, 0]
    assert st.chong_points[JUNZHU] == sum(t.points for t in s.chong)


@pytest.mark.parametrize(("options", "total"), [
    ({"chong_points": "app_w", "chong_link": "xiang_lian"}, 61),   # the web version
    ({}, 60),                   # the shipped app (app_u + tong_men): every take a run take
])
def test_hlm_chong_total_and_settlement(hlm, options, total):
    s = settle_deal(find_ruleset("app", options or None), hlm)
    assert sum(t.points for t in s.chong) == total * TICKS_PER_ZHU
    # 開沖 is settled 莊↔閒 only: the 莊 (north) pays 郡主 her points
    assert zhu(s, item="kai_chong") == [total, 0, 0, -total, 0]
    # 沖成奇色: 十 5 won + 3 taken, 文 3 won + 4 taken → 鴛鴦七同; 百萬 and 二十 上桌 with
    # eight 十 → 連環七同; each of the other three pays (公賀)
    assert zhu(s, item="yuan_yang_qi_tong") == [90, -30, -30, -30, 0]
    assert zhu(s, item="lian_huan_qi_tong") == [60, -20, -20, -20, 0]
    assert sum(s.nets) == 0


def test_hlm_points_per_take_app_u(hlm):
    """The shipped app: every take is a run take (KanChong's 連續牌組開冲).  萬萬: run 二十 … 九十
    百萬 through the won cards, 4 of them won below it, + 十 錦 bonus 2 × nSpade 3 = 18; 七十 and
    三十 8 each; 一文, 九文 7 (2 × 3 + the 極 below a run from the 賞 value); 八文, 七文 6."""
    s = settle_deal(find_ruleset("app"), hlm)
    assert [(t.card.hanzi, t.kind, pts(t)) for t in s.chong] == [
        ("萬萬", "連沖", 18), ("七十", "連沖", 8), ("三十", "連沖", 8), ("一文", "連沖", 7),
        ("九文", "連沖", 7), ("八文", "連沖", 6), ("七文", "連沖", 6)]


def test_hlm_points_per_take_app_w(hlm):
    s = settle_deal(find_ruleset("app", WEB), hlm)
    assert [(t.kind, pts(t)) for t in s.chong] == [
        ("十字互沖", 18), ("順領沖", 10), ("趣沖青", 10), ("肩沖青", 6), ("賞沖趣", 5),
        ("賞沖青", 6), ("賞沖青", 6)]
    assert kinds(s.chong[0]) == {"千萬:十字互沖": 5, "百萬:十字互沖": 5, "九十:九十沖百": 3,
                                 "二十:十字互沖": 5}


# ---------------------------------------------------------------- link rules

def test_adjacent_in_rank_links():
    t = one(["空文", "三索"], "半文")
    assert (t.anchor, t.kind, pts(t)) == (Card.WEN_KONG, "賞沖肩", 2)


def test_other_suit_or_gap_does_not_link():
    assert one(["空文", "三索"], "五萬") is None
    assert one(["空文", "三索"], "一文") is None      # 半文 is missing between them


def test_zheng_shang_and_ji_of_a_suit_are_neighbours():
    t = one(["空文", "三索"], "九文")
    assert (t.anchor, t.kind, pts(t)) == (Card.WEN_KONG, "賞沖趣", 3)
    t = one(["一索", "三萬"], "九索")
    assert (t.anchor, t.kind, pts(t)) == (Card.SUO_1, "趣沖賞", 3)


def test_shi_jin_zhang_link_to_each_other():
    t = one(["百萬", "三索"], "二十")
    assert (t.anchor, t.kind, pts(t)) == (Card.SHI_BAI, "十字互沖", 5)
    assert one(["百萬", "三索"], "萬萬").anchor == Card.SHI_BAI


def test_link_runs_through_the_players_own_cards():
    t = one(["百萬", "九十", "八十"], "七十")
    assert t.anchor == Card.SHI_80
    assert one(["九十", "八十", "三索"], "七十") is None   # no 賞/肩/百/趣 at the root


def test_qing_cards_alone_do_not_anchor():
    assert one(["二文", "三文"], "四文") is None


def test_taken_cards_anchor_further_takes():
    out, st = takes({E: ["空文", "三索"]}, ["九文", "八文", "七文"])
    assert [(t.card, t.anchor) for t in out] == [(Card.WEN_9, Card.WEN_KONG),
                                                 (Card.WEN_8, Card.WEN_9),
                                                 (Card.WEN_7, Card.WEN_8)]
    assert st.chong[E] == (Card.WEN_9, Card.WEN_8, Card.WEN_7)


def test_tong_men_reading_links_any_card_of_the_suit():
    # a 極 and the 肩 of its suit are not in sequence without the 賞 …
    assert one(["九文", "三索"], "半文") is None
    # … but "同門" links them, and APP-W scores 趣沖肩 without a sequence test
    t = one(["九文", "三索"], "半文", chong_link="tong_men")
    assert (t.kind, pts(t)) == ("趣沖肩", 2)
    # an unconnected 青: APP-W gives it nothing, APP-U 1
    assert one(["空文", "三索"], "五文", chong_link="tong_men") is None
    t = one(["空文", "三索"], "五文", chong_link="tong_men", chong_points="app_u")
    assert (t.kind, pts(t)) == ("賞沖青", 1)


# ---------------------------------------------------------------- the procedure

def test_card_nobody_can_take_is_skipped():
    out, st = takes({E: ["空文", "三索"], S: ["四萬", "五萬"]}, ["七萬", "九文"], last=E)
    assert [(t.card, t.seat) for t in out] == [(Card.WEN_9, E)]
    assert st.chong == [(Card.WEN_9,), (), (), ()]


def test_fewer_than_two_won_cards_cannot_take():
    out, _ = takes({E: ["空文"], S: ["三索", "四索", "五索"]}, ["半文"], last=S)
    assert out == []
    t = one(["空文", "三索"], "半文")
    assert t is not None


def test_trick_8_winner_tries_first():
    won = {E: ["九文", "三索"], W: ["半文", "四索"]}
    out, _ = takes(won, ["空文"], last=E)
    assert (out[0].seat, out[0].duo) == (E, False)
    out, _ = takes(won, ["空文"], last=W)
    assert (out[0].seat, out[0].duo) == (W, False)


def test_duo_chong_passes_to_the_next_seat_who_then_keeps_the_turn():
    won = {E: ["三索", "四索"], S: ["四萬", "五萬"], W: ["空文", "二文"]}
    out, st = takes(won, ["半文", "一文"], last=E)
    assert [(t.card, t.seat, t.duo) for t in out] == [(Card.WEN_BAN, W, True),
                                                      (Card.WEN_1, W, False)]
    assert st.chong_points[W] == sum(t.points for t in out)


def test_deterministic():
    won = {E: ["空文", "二文", "九十"], S: ["百萬", "三索"], W: ["九萬", "八萬"]}
    stock = ["半文", "一文", "萬萬", "七萬", "八十", "九文", "七文"]
    a, _ = takes(won, stock, last=S)
    b, _ = takes(won, stock, last=S)
    assert a == b and a


# ---------------------------------------------------------------- APP-W point rows

@pytest.mark.parametrize(("won", "stock", "total", "parts"), [
    # 間領沖: 百萬 and 八十 上桌, the stock gives 九十 — 5 for the take, nothing else
    (["百萬", "八十"], "九十", 5, {"百萬:間領沖": 5}),
    # 十字互沖 from 萬萬/百萬/二十
    (["二十", "三索"], "百萬", 5, {"二十:十字互沖": 5}),
    # 十字互沖 from 千萬 (the 萬萬 is the stock card)
    (["千萬", "三索"], "萬萬", 5, {"千萬:十字互沖": 5}),
    # 賞沖肩
    (["九萬", "三索"], "八萬", 2, {"九萬:賞沖肩": 2}),
    # 趣沖肩 (with the 賞 that links them)
    (["一萬", "九萬"], "八萬", 4, {"一萬:趣沖肩": 2, "九萬:賞沖肩": 2}),
    # 肩沖賞
    (["八萬", "三索"], "九萬", 3, {"八萬:肩沖賞": 3}),
    # 肩沖趣 (needs the 賞)
    (["八萬", "九萬"], "一萬", 5, {"八萬:肩沖趣": 2, "九萬:賞沖趣": 3}),
    # 賞沖趣 / 趣沖賞
    (["九索", "三萬"], "一索", 3, {"九索:賞沖趣": 3}),
    (["一索", "三萬"], "九索", 3, {"一索:趣沖賞": 3}),
    # 九十沖百 (needs 百老)
    (["九十", "百萬"], "萬萬", 8, {"九十:九十沖百": 3, "百萬:十字互沖": 5}),
    # 順領沖 from 九十 (needs 百老), 百沖青
    (["九十", "百萬"], "八十", 4, {"九十:順領沖": 2, "百萬:百沖青": 2}),
    # 賞沖青, 肩沖青
    (["空文", "半文"], "一文", 4, {"空文:賞沖青": 2, "半文:肩沖青": 2}),
    # 趣沖青 (a 極 may take alone)
    (["九文", "三索"], "八文", 2, {"九文:趣沖青": 2}),
    # 順領沖 青→青 beside another source
    (["九文", "八文"], "七文", 4, {"九文:趣沖青": 2, "八文:順領沖": 2}),
])
def test_app_w_rows(won, stock, total, parts):
    t = one(won, stock)
    assert (pts(t), kinds(t)) == (total, parts)


def test_app_w_qing_to_jiushi_row():
    # 八十 上桌, 百萬 taken first: 八十 scores 九十 only because 百老 is now in the set
    out, _ = takes({E: ["萬萬", "八十"]}, ["百萬", "九十"])
    assert [t.card for t in out] == [Card.SHI_BAI, Card.SHI_90]
    assert kinds(out[1]) == {"萬萬:賞沖青": 2, "八十:順領沖": 2}


def test_app_w_near_misses():
    assert one(["千萬", "三索"], "百萬") is None          # 肩 without its 賞 scores nothing
    assert one(["半文", "三索"], "一文") is None
    assert kinds(one(["九十", "二十"], "萬萬")) == {"二十:十字互沖": 5}   # 九十沖百 needs 百老
    assert one(["半文", "一文"], "二文") is None          # a single 青 cannot 開沖 alone


def test_app_w_capture_multiplier():
    t = one(["萬萬", "三索"], "二十", trick_has={"萬萬": ["千萬"]})
    assert kinds(t) == {"萬萬:十字互沖": 10}            # 萬捉千 ×2
    t = one(["萬萬", "三索"], "二十", trick_has={"萬萬": ["千萬", "百萬"]})
    assert kinds(t) == {"萬萬:十字互沖": 15}            # 萬王之王 ×3
    t = one(["千萬", "萬萬"], "二十", trick_has={"千萬": ["百萬"]})
    assert kinds(t) == {"千萬:十字互沖": 10, "萬萬:十字互沖": 5}


# ---------------------------------------------------------------- APP-U (the default)

APP_U = {"chong_points": "app_u", "chong_link": "tong_men"}
"""The shipped app's reading, the default: KanChong's prechecks and run branch, then its rows.
Every figure below equals a re-reading of the code (CardChong.KanChong) for the same cards."""


@pytest.mark.parametrize(("won", "stock", "total", "parts"), [
    # 十字互沖 is exclusive: 九十's 肩沖賞 does not add
    (["百萬", "九十"], "萬萬", 5, {"百萬:十字互沖": 5}),
    # 賞沖肩 (the 十 suit's 肩 is 九十)
    (["九索", "三萬"], "八索", 2, {"九索:賞沖肩": 2}),
    (["百萬", "三索"], "九十", 2, {"百萬:賞沖肩": 2}),
    # 賞沖趣
    (["空文", "三索"], "九文", 3, {"空文:賞沖趣": 3}),
    # 賞沖副肩 / 賞沖副趣 without a run: 1
    (["九萬", "三索"], "七萬", 1, {"九萬:賞沖副肩": 1}),
    (["九萬", "三索"], "二萬", 1, {"九萬:賞沖副趣": 1}),
    # 賞沖青 / 肩沖青 unconnected, 1 each
    (["九萬", "八萬"], "五萬", 2, {"九萬:賞沖青": 1, "八萬:肩沖青": 1}),
    (["八萬", "九萬"], "二萬", 2, {"九萬:賞沖副趣": 1, "八萬:肩沖副趣": 1}),
    # 肩沖賞, 趣沖副趣, 趣沖副肩, 趣沖賞, 趣沖青
    (["八索", "三萬"], "九索", 3, {"八索:肩沖賞": 3}),
    (["一索", "三萬"], "二索", 2, {"一索:趣沖副趣": 2}),
    (["一索", "三萬"], "七索", 1, {"一索:趣沖副肩": 1}),
    (["一索", "三萬"], "九索", 3, {"一索:趣沖賞": 3}),
    (["一索", "三萬"], "五索", 1, {"一索:趣沖青": 1}),
    # The run branch (連續牌組開冲): three values or more in a row through the seat's cards.
    # Below all the seat's won cards of the run: 2 each; above them all: 3 each.
    (["九萬", "八萬"], "七萬", 4, {"八萬:連沖": 4}),         # run 9-8-7, two won above
    (["九萬", "八萬", "七萬"], "六萬", 6, {"七萬:連沖": 6}),  # 2 × 3 (the rows gave 4)
    (["九萬", "一萬"], "二萬", 4, {"一萬:連沖": 4}),         # run 1-2 … 9: 1 and 9 won
    (["八萬", "九萬"], "一萬", 5, {"九萬:連沖": 5}),         # 2 × 2 + 1 (極 below the 賞 run)
    (["八萬", "九萬", "一萬"], "二萬", 6, {"一萬:連沖": 6}),
    (["一索", "九索"], "八索", 4, {"九索:連沖": 4}),
    (["一索", "九索", "八索"], "七索", 6, {"八索:連沖": 6}),
    (["一索", "二索"], "三索", 6, {"二索:連沖": 6}),         # 3 × 2 (the rows gave 2)
])
def test_app_u_takes(won, stock, total, parts):
    t = one(won, stock, **APP_U)
    assert (pts(t), kinds(t)) == (total, parts)


def test_app_u_twins_bonus_per_take():
    t = one(["萬萬", "三索"], "百萬", trick_has={"萬萬": ["千萬"]}, **APP_U)
    assert pts(t) == 5 + 5                                  # 十 錦張: +5 × 1


def test_app_u_jiu_shi_is_the_shi_suit_jian():
    """Fault 1: the code's 十-suit 肩 is 九十 (賞 value 百萬).  E won 九十 and 九萬; the stock
    turns 百萬 then 千萬.  九十 anchors: 肩沖賞 百萬 3, then (百萬 now taken) 千萬 3: 6 — the
    engine used to take nothing (九十 was no anchor)."""
    out, _ = takes({E: ["九十", "九萬"]}, ["百萬", "千萬"], **APP_U)
    assert [(t.card, t.kind, pts(t)) for t in out] == [(Card.SHI_BAI, "肩沖賞", 3),
                                                       (Card.SHI_QIAN, "肩沖賞", 3)]


def test_app_u_yin_hua_through_jiu_shi():
    """印花 (九十 上桌 takes 百老, a 錦張 上桌 in each other suit) is reachable from 九十 alone:
    E won 九十, 九萬, 九索 and 空文; the stock turns 百萬: 3 for the take + 印花 30 (公賀)."""
    rs = find_ruleset("app")
    st = hand({E: ["九十", "九萬", "九索", "空文"]}, ["百萬"])
    out = run_kai_chong(rs.procedure.kai_chong, st)
    assert [(t.card, pts(t)) for t in out] == [(Card.SHI_BAI, 3)]
    assert rs.items["yin_hua"].condition(st, int(E))


def test_app_u_twins_count_only_up_to_the_winning_card():
    """Fault 2: E led 萬萬 and won; S's 千萬 and W's 百萬 came after it (both 滅).  The code
    counts the 三花 played up to the winning card: one, so no twins, and 二十 taken by 十字互沖
    is 5 — the engine used to count the whole trick (萬王之王, twins 2: 5 + 5 × 2 = 15).  With
    千萬 and 百萬 played before 萬萬 it is 15."""
    late = one(["萬萬", "三索"], "二十", after={"萬萬": ["千萬", "百萬"]}, **APP_U)
    assert pts(late) == 5
    early = one(["萬萬", "三索"], "二十", trick_has={"萬萬": ["千萬", "百萬"]}, **APP_U)
    assert pts(early) == 5 + 5 * 2
    web = one(["萬萬", "三索"], "二十", after={"萬萬": ["千萬", "百萬"]})
    assert kinds(web) == {"萬萬:十字互沖": 15}    # the web version counts the whole trick


def test_app_u_first_qualifying_trick_gives_the_twins():
    """The code keeps a seat's first twin trick, not its best.  Two twin tricks need four 三花
    cards, so this is a constructed state, not a play: E's first trick is 千捉百 (1), a later
    one 萬王之王 (2).  二十 by 十字互沖 from 千萬 and 萬萬: 5 × 2 + 5 × 1 (first) = 15, not
    5 × 2 + 5 × 2 (best) = 20 — what the web version's "best" reading would give."""
    st = hand({E: ["千萬", "萬萬", "三索"]}, ["二十"],
              trick_has={"千萬": ["百萬"], "萬萬": ["千萬", "百萬"]})
    out = run_kai_chong(kai_chong(**APP_U), st)
    assert pts(out[0]) == 15


def test_app_u_shi_qing_twins_bonus_is_x_times_twins():
    """Fault 3: on a 十 青 card the code adds the 賞 part's factor x times twins (x·twins), not
    2·twins.  S won 萬萬 over 千萬 over 百萬 (百萬 led; 萬王之王, twins 2) and 三索; the stock
    turns 八十: 賞沖副肩 without 九十 in the pile, x = 1: 1 + 1 × 2 = 3 (it used to be 1 + 2 × 2)."""
    t = one(["萬萬", "三索"], "八十", trick_has={"萬萬": ["百萬", "千萬"]}, **APP_U)
    assert (pts(t), kinds(t)) == (3, {"萬萬:賞沖副肩": 1})


def test_app_u_precheck_jian_without_shang():
    """「肩上桌不遇賞」: a seat whose 肩 is 上桌 without a 賞 or 極 beside it takes nothing below
    the 賞 — not even by a run.  E won 八萬 and 七萬, the stock turns 六萬: nothing."""
    assert one(["八萬", "七萬"], "六萬", **APP_U) is None
    assert pts(one(["八萬", "七萬"], "九萬", **APP_U)) > 0     # the 賞 itself it may take


# ---------------------------------------------------------------- settlement

def random_deal(i: int) -> Deal:
    rng = random.Random(i)
    cards = list(range(40))
    rng.shuffle(cards)
    hands = tuple(tuple(Card(c) for c in sorted(cards[k * 8:(k + 1) * 8])) for k in range(4))
    return Deal(id=f"r{i}", banker=SEATS[i % 4], hands=hands,  # type: ignore[arg-type]
                stock=tuple(Card(c) for c in cards[32:]))


@pytest.mark.parametrize("scheme", ["app_w", "app_u"])
def test_ledgers_balance_and_chong_is_banker_to_player(scheme):
    rs = find_ruleset("app", {"chong_points": scheme})
    seen = 0
    for i in range(60):
        deal = random_deal(i)
        s = settle_deal(rs, deal, play=play_random(deal, E, random.Random(i)))
        assert sum(s.nets) == 0
        for line in s.ledger:
            if line.item == "kai_chong":
                assert deal.banker in (line.payer, line.payee)
        seen += bool(s.chong)
        taken = [t.card for t in s.chong]
        assert len(taken) == len(set(taken)) and set(taken) <= set(deal.stock[1:])
    assert seen > 10


def test_chong_cheng_items_are_gong_he():
    rs = find_ruleset("app")
    for iid in ("man_tang_hong", "jiu_tong", "yi_chong_qi", "jin_jue_cang", "yin_hua"):
        assert rs.items[iid].channel == "gong_he"
    assert rs.items["kai_chong"].channel == "kai_zhu"


# ---------------------------------------------------------------- spec errors

def bad_ruleset(tmp_path: Path, kai_chong_yaml: str) -> Path:
    app = data_dir("rulesets") / "app.yaml"
    path = tmp_path / "bad.yaml"
    path.write_text(f"id: bad\nname: bad\nextends: {app}\nprocedure:\n  kai_chong:\n"
                    + kai_chong_yaml, encoding="utf-8")
    return path


GOOD = """\
    min_tricks: 2
    anchors: [正賞, 肩, 百老, 極]
    links:
      - {adjacent: [十, 萬門, 索, 文]}
    first: trick_8_winner
    points:
      rows:
        - {kind: 賞沖肩, from: 正賞, to: 肩, points: 2}
    source: {ref: wingdna_nd_madiaorules, quote: "開沖"}
"""


def test_a_spec_of_ones_own_compiles(tmp_path):
    rs = load_ruleset(str(bad_ruleset(tmp_path, GOOD)))
    out = run_kai_chong(rs.procedure.kai_chong, hand({E: ["空文", "三索"]}, ["半文", "九文"]))
    assert [t.card for t in out] == [Card.WEN_BAN]


@pytest.mark.parametrize(("old", "new", "line", "message"), [
    ("{adjacent: [十, 萬門, 索, 文]}", "{nextto: [十]}", 9, "unknown link kind 'nextto'"),
    ("to: 肩,", "to: 肩膀,", 13, "unknown card, category or set '肩膀'"),
    ("first: trick_8_winner", "first: dealer", 10, "first: is one of trick_8_winner, banker"),
    ("points: 2}", "points: 0}", 13, "points: must be positive"),
    ("min_tricks: 2", "min_tricks: two", 6, "min_tricks: is a whole number"),
])
def test_spec_errors_name_file_and_line(tmp_path, old, new, line, message):
    path = bad_ruleset(tmp_path, GOOD.replace(old, new))
    with pytest.raises(InputError) as err:
        load_ruleset(str(path))
    text = str(err.value)
    assert f"bad.yaml:{line}" in text and message in text


# ---------------------------------------------------------------- 沖成奇色 (§3.8 D)

RED9 = ["萬萬", "千萬", "百萬", "九萬", "八萬", "九索", "八索", "空文", "半文"]
WEN = ["空文", "半文", "一文", "二文", "三文", "四文", "五文", "六文", "七文", "八文", "九文"]
WAN = ["九萬", "八萬", "七萬", "六萬", "五萬", "四萬", "三萬", "二萬", "一萬"]
SUO = ["九索", "八索", "七索", "六索", "五索", "四索", "三索", "二索", "一索"]
SHI = ["萬萬", "千萬", "百萬", "九十", "八十", "七十", "六十", "五十", "四十", "三十", "二十"]


def chong_cheng(won: list[str], chong: list[str]) -> set[str]:
    """The 沖成 items whose condition holds for east (before a group keeps its best)."""
    rs = find_ruleset("app")
    st = hand({E: won}, [])
    st.chong[E] = tuple(card(c) for c in chong)
    st.chong_masks[E] = mask_of(st.chong[E])
    ids = ("quan_hong_zui_yang_fei", "shi_hong_ju_hui", "jiu_hong_zui_yang_fei", "man_tang_hong",
           "ba_hong_zui_yang_fei", "qian_shi_quan_men", "shi_lian_huan", "shi_tong",
           "jiu_lian_huan", "jiu_tong", "tai_ji_tu", "yuan_yang_qi_tong", "lian_huan_qi_tong",
           "yi_chong_qi", "yi_chong_liu", "shuang_jue_cang", "jin_jue_cang", "yin_jue_cang",
           "yin_hua")
    return {i for i in ids if rs.items[i].condition(st, int(E))}


@pytest.mark.parametrize(("won", "chong", "expected"), [
    # 紅: nine 紅張 ± 九十 / 二十
    (RED9[:8], [RED9[8], "九十", "二十"],
     {"quan_hong_zui_yang_fei", "shi_hong_ju_hui", "jiu_hong_zui_yang_fei", "man_tang_hong",
      "ba_hong_zui_yang_fei"}),
    (RED9[:8], [RED9[8], "九十"], {"shi_hong_ju_hui", "man_tang_hong"}),
    (RED9[:8], [RED9[8], "二十"], {"jiu_hong_zui_yang_fei", "man_tang_hong",
                                   "ba_hong_zui_yang_fei"}),
    (RED9[:8], [RED9[8]], {"man_tang_hong"}),
    (RED9[:8], ["二十"], {"ba_hong_zui_yang_fei"}),
    (RED9[:7] + ["三文"], ["二十"], set()),
    # 同 and 連環
    (SHI[:8], SHI[8:], {"qian_shi_quan_men", "shi_lian_huan", "shi_tong", "jiu_lian_huan",
                        "jiu_tong"}),
    (WEN[:8], WEN[8:10], {"shi_lian_huan", "shi_tong", "jiu_lian_huan", "jiu_tong"}),
    (WEN[:8], [WEN[8], WEN[10]], {"shi_tong", "jiu_lian_huan", "jiu_tong"}),   # 八文 missing
    (WEN[:7], [WEN[7], WEN[9]], {"jiu_tong"}),                                  # 七文 missing
    (WAN[:8], WAN[8:], {"jiu_lian_huan", "jiu_tong"}),
    # 七同: 太極圖 (八全, seven of one suit won, all seven taken), 鴛鴦七同
    (WAN[:7] + ["九索"], SUO[1:7] + ["三文"], {"tai_ji_tu", "yuan_yang_qi_tong", "yi_chong_liu"}),
    (WAN[:6] + ["九索", "八索"], SUO[2:7] + ["一萬"], {"yuan_yang_qi_tong"}),
    # 連環七同: 賞 and 極 上桌, seven of their suit after 開沖 (十's 賞 is 百萬 in CardChong)
    (["九索", "一索", "三萬"], SUO[1:6], {"lian_huan_qi_tong"}),
    (["百萬", "二十", "三萬"], ["萬萬", "千萬", "九十", "八十", "七十"], {"lian_huan_qi_tong"}),
    (["九索", "三萬"], SUO[1:7], {"yi_chong_liu"}),
    # 一冲七 / 一冲六
    (["九索", "八索"], SUO[2:9], {"yi_chong_qi", "jiu_lian_huan", "jiu_tong"}),
    # 掘藏: 三花 all taken, 九十 and/or 二十 上桌
    (["九十", "二十", "三萬"], ["萬萬", "千萬", "百萬"], {"shuang_jue_cang", "jin_jue_cang",
                                                       "yin_jue_cang"}),
    (["九十", "三萬"], ["萬萬", "千萬", "百萬"], {"jin_jue_cang"}),
    (["二十", "三萬"], ["萬萬", "千萬", "百萬"], {"yin_jue_cang"}),
    (["二十", "三萬"], ["萬萬", "百萬"], set()),
    # 印花: 九十 takes 百老, with a 錦張 上桌 in each other suit
    (["九十", "九萬", "一索", "半文"], ["百萬"], {"yin_hua"}),
    (["九十", "九萬", "一索", "三文"], ["百萬"], set()),
])
def test_chong_cheng_conditions(won, chong, expected):
    assert chong_cheng(won, chong) == expected


def test_app_u_qing_all_factor():
    """ChongQingAll for a 青 card: S won 九萬 七萬 六萬 五萬 四萬 二萬 (and 三索), the stock turns
    三萬.  No run (1 missing below, 8 above the run from 九萬); every value from 2 up to 三萬
    is present but not the 極, and none is missing from 三萬 up to 七萬: factor 0 — no take
    (the connected/unconnected rows used to give 賞沖青 1).  With 五萬 missing: factor 1."""
    assert one(["九萬", "七萬", "六萬", "五萬", "四萬", "二萬", "三索"], "三萬", **APP_U) is None
    t = one(["九萬", "七萬", "六萬", "四萬", "二萬", "三索"], "三萬", **APP_U)
    assert (pts(t), kinds(t)) == (1, {"九萬:賞沖青": 1})


@pytest.mark.parametrize("points", ["app_u", "app_w"])
@pytest.mark.parametrize("link", ["tong_men", "xiang_lian"])
def test_simulation_chong_memory_gives_the_takes_of_a_fresh_one(points, link):
    """QuickChong remembers what a take is worth from hand to hand (and starts afresh when
    its memory is full): over many random hands, a long memory, one that fills every few
    takes and none at all (a new QuickChong per hand) settle every hand alike."""
    from mahdiao_rules.io.dealfile import random_deals
    from mahdiao_rules.pipeline import Quick
    from mahdiao_rules.play.tricks import random_orders
    from mahdiao_rules.settle.kai_chong import QuickChong

    rs = find_ruleset("app", {"chong_points": points, "chong_link": link})
    long, tiny, fresh = Quick(rs), Quick(rs), Quick(rs)
    tiny.chong = QuickChong(rs.procedure.kai_chong, limit=3)
    took = 0
    for deal in random_deals(f"memo/{points}/{link}", 400):
        args = ([deal.hand_mask(s) for s in range(4)], deal.stock, int(deal.banker),
                random_orders(deal.hands, random.Random(f"{deal.id}/play")))
        fresh.forget()  # an empty memory: a new QuickChong for each hand
        want = fresh.random(*args)
        assert long.random(*args) == want == tiny.random(*args), deal.id
        took += any(want[0])
    assert took > 300  # hands that paid
    if rs.procedure.kai_chong.twin_effect == "multiply":  # worth depends on the seat's twins:
        assert long.chong.memo is None                   # nothing to remember
    else:
        assert long.chong.memo and len(tiny.chong.memo) <= 3
