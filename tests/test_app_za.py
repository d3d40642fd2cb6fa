"""The app's 斗上雜色樣 and table-count 色樣 (rulesets/app/za_se_yang.yaml; digest §3.8 C, §4.1).

Each 色樣 has a firing deal and a near miss.  Deals are built from who won each trick with
which card; the pattern 色樣 look only at the order of one player's 上桌 cards, so most cases
let 東 win its cards in tricks 1…n (it leads them all, as a 極 can only win when led) and
give the other tricks to 南, 西 and 北, at most two each.  Values are 注 per payer: 東
collects 3·v and each other player pays v (公賀).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
import yaml
from helpers import E, N, S, W, card, zhu

from mahdiao_rules.deal import Deal, Seat
from mahdiao_rules.history.construct import construct_deal
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.ruleset import find_ruleset
from mahdiao_rules.settle.hand import PLAYED, Settlement

FRAGMENT = Path(__file__).resolve().parent.parent / "rulesets" / "app" / "za_se_yang.yaml"
ZA_IDS = [item["id"] for item in yaml.safe_load(FRAGMENT.read_text(encoding="utf-8"))["items"]]

# Face cards that the app does not replace (升代) and that no case below needs elsewhere.
FACES = ("三文", "四文", "三萬", "四萬", "三索", "四索", "四十", "五十")
# Tricks for the other seats, taken in this order, skipping cards 東 wins, at most two a seat.
OTHERS: tuple[tuple[Seat, str], ...] = (
    (S, "七索"), (W, "七萬"), (N, "五文"), (S, "八十"), (W, "六萬"), (N, "四文"),
    (S, "六索"), (W, "五萬"), (N, "三文"), (S, "七十"),
)


def app(deal: Deal, **options: str) -> Settlement:
    return settle_deal(find_ruleset("app", options or None), deal)


def played(deal: Deal) -> bool:
    """The hand is played under the app (no 免斗 hand among the random fillers)."""
    return app(deal).status == PLAYED


def make(wins: Sequence[tuple[Seat, str]], *, banker: Seat = N, stock: Sequence[str] = (),
         held: dict[Seat, list[str]] | None = None) -> Deal:
    used = {c for _, c in wins} | set(stock) | {c for v in (held or {}).values() for c in v}
    face = next(f for f in FACES if f not in used)
    return construct_deal(wins, banker=banker, stock=[face, *stock], held=held, accept=played)


def east(cards: Sequence[str], **kw) -> Deal:
    """東 wins *cards* in tricks 1…n; the others win the rest from OTHERS."""
    rest: list[tuple[Seat, str]] = []
    per_seat = {S: 0, W: 0, N: 0}
    for seat, c in OTHERS:
        if len(cards) + len(rest) == 8:
            break
        if c not in cards and per_seat[seat] < 2:
            rest.append((seat, c))
            per_seat[seat] += 1
    return make([(E, c) for c in cards] + rest, **kw)


def he(value: float) -> list[float]:
    return [3 * value, -value, -value, -value]


def fired(s: Settlement, seat: Seat = E) -> set[str]:
    return {f.item.id for f in s.firings if f.seat == seat}


# (item, 東's 上桌 cards in winning order, 賀 per payer)
CASES = [
    # 首張 and 尾張
    ("nei_sheng_wai_wang", "一萬 七十 九文", 160),
    ("nei_sheng_wai_wang", "一萬 九文 七十", 0),            # last card not a 極
    ("nei_sheng_wai_wang", "一萬 七萬 一索", 0),            # no 文 or 十 card
    ("tian_ran_qu", "一萬 七十", 15),
    ("tian_ran_qu", "九文 七十", 15),
    ("tian_ran_qu", "七十 一萬", 0),                        # 極 not first
    ("tian_ran_qu", "二十 七十", 0),                        # 女帝登基 instead
    ("nv_di_deng_ji", "二十 七十", 30),
    ("nv_di_deng_ji", "一萬 七十", 0),
    # 極 and 百老 in a row
    ("san_die_qu", "一萬 一索 七十 九文", 30),
    ("san_die_qu", "一萬 一索 九文 二十", 30),              # once, also for four
    ("san_die_qu", "一萬 一索 七十", 0),
    ("long_men_yue", "百老 二十 七萬", 60),
    ("long_men_yue", "百老 七萬 二十", 0),
    ("long_men_yue", "七萬 百老 二十", 0),
    ("fo_ding_zhu", "百老 一萬 七十", 20),
    ("fo_ding_zhu", "百老 二十 七十", 0),                   # 龍門躍 instead
    ("fo_ding_zhu", "百老 七十 一萬", 0),
    ("san_hua_tian_nv", "七十 百老 二十", 5),
    ("san_hua_tian_nv", "百老 二十", 5),                    # at the start too (with 龍門躍)
    ("san_hua_tian_nv", "百老 七十 二十", 0),
    ("san_hua_tian_nv", "二十 百老 七十", 0),
    ("tian_nv_san_hua", "七十 二十 百老", 10),
    ("tian_nv_san_hua", "二十 百老 七十", 0),               # the first two
    ("tian_nv_san_hua", "二十 七十 百老", 0),
    ("shuang_fei_qu", "一萬 一索", 4),
    ("shuang_fei_qu", "一萬 九萬 一索", 4),                 # 錦張 between
    ("shuang_fei_qu", "一萬 一索 九文", 12),                # three pairs
    ("shuang_fei_qu", "一萬 一索 九文 二十", 24),           # six pairs
    ("shuang_fei_qu", "一萬 一索 七十 九文", 4),            # 青張 cuts the chain
    ("shuang_fei_qu", "一萬 七十 一索", 0),
    ("guo_qiao_long", "一萬 百老 一索", 20),
    ("guo_qiao_long", "一萬 九萬 百老 一索", 20),
    ("guo_qiao_long", "一萬 七十 百老 一索", 0),
    ("guo_qiao_long", "一萬 一索 百老", 0),
    ("qu_hou_bai", "一萬 百老", 5),
    ("qu_hou_bai", "一萬 萬萬 百老", 5),
    ("qu_hou_bai", "一萬 七十 百老", 0),
    ("qu_hou_bai", "百老 一萬", 0),
    ("bai_hou_qu", "百老 一萬", 3),
    ("bai_hou_qu", "百老 九萬 一萬", 3),
    ("bai_hou_qu", "百老 七萬 一萬", 0),
    ("shuang_qu_hou", "一萬 一索 百老", 20),
    ("shuang_qu_hou", "一萬 九萬 一索 千萬 百老", 20),
    ("shuang_qu_hou", "一萬 一索 七十 百老", 0),
    ("shuang_qu_hou", "一萬 百老 一索", 0),
    ("shuang_bai_hou", "百老 一萬 一索", 12),
    ("shuang_bai_hou", "百老 九萬 一萬 一索", 12),
    ("shuang_bai_hou", "百老 一萬 七十 一索", 0),
    ("shuang_bai_hou", "百老 七萬 一萬 一索", 0),
    # 對座 family
    ("san_dai_rong_feng", "萬萬 千萬 二十 九萬 八萬 一萬", 32),
    ("san_dai_rong_feng", "萬萬 千萬 二十 九萬 八萬 七萬", 0),
    ("fu_zi_tong_deng", "千萬 二十 八萬 一萬", 24),
    ("fu_zi_tong_deng", "千萬 二十 八萬 二萬", 0),
    ("gong_sun_dui_zuo", "萬萬 二十 九萬 一萬", 20),
    ("gong_sun_dui_zuo", "萬萬 二十 九萬 一萬 七十", 20),
    ("gong_sun_dui_zuo", "萬萬 二十 九萬 二萬", 0),
    ("shang_jian_dui_zuo", "萬萬 二十 八萬 一萬", 12),
    ("shang_jian_dui_zuo", "萬萬 二十 八索 一萬", 0),       # the 肩 lacks its own 極
    ("shang_jian_dui_zuo", "萬萬 千萬 二十 七萬", 0),       # one suit only
    ("shang_bai_dui_zuo", "百老 二十 九萬 一萬", 12),
    ("shang_bai_dui_zuo", "百老 二十 九萬 一索", 0),
    ("jian_bai_dui_zuo", "百老 二十 八萬 一萬", 12),
    ("jian_bai_dui_zuo", "百老 七十 八萬 一萬", 0),
    ("xiong_di_qi_xin", "萬萬 千萬 九萬 八萬", 2),
    ("xiong_di_qi_xin", "萬萬 千萬 九萬 七萬", 0),
    ("xiong_di_qi_xin", "萬萬 千萬 二十 九萬 八萬 一萬", 0),  # 三代榮封 takes its place
    # 捲簾 and 公領孫
    ("mei_ren_juan_lian", "二十 萬萬", 10),
    ("mei_ren_juan_lian", "二十 九萬 萬萬", 10),            # 紅 between
    ("mei_ren_juan_lian", "二十 七萬 萬萬", 0),
    ("dao_juan_lian", "一萬 九萬", 5),
    ("dao_juan_lian", "一萬 九萬 一索 九索", 10),           # per suit
    ("dao_juan_lian", "七十 一萬 九萬", 5),                 # another suit before is fine
    ("dao_juan_lian", "七萬 一萬 九萬", 0),                 # a 萬 card won before
    ("dao_juan_lian", "一萬 七十 九萬", 0),
    ("dao_juan_lian", "二十 萬萬 一萬 九萬", 0),            # 美人捲簾 replaces it
    ("gong_ling_sun", "萬萬 二十", 3),
    ("gong_ling_sun", "萬萬 二十 九萬 一萬", 6),
    ("gong_ling_sun", "千萬 萬萬 二十", 0),
    ("gong_ling_sun", "萬萬 七萬 二十", 0),
    ("juan_lian_fei", "一萬 九索 一索", 10),
    ("juan_lian_fei", "一萬 七十 九索 七萬 一索", 10),
    ("juan_lian_fei", "一萬 一索 九索", 0),
    # adjacent pairs of named cards
    ("jing_zhong_ren", "一文 二十", 8),
    ("jing_zhong_ren", "二十 一文", 8),
    ("jing_zhong_ren", "一文 七十 二十", 0),
    ("jie_hua_xian_fo", "枝花 五十", 4),
    ("jie_hua_xian_fo", "枝花 七萬 五十", 0),
    ("fu_qi_tuan_yuan", "空文 二十", 6),
    ("fu_qi_tuan_yuan", "空文 七萬 二十", 0),
    ("ren_mian_tao_hua", "枝花 二十", 7),
    ("ren_mian_tao_hua", "枝花 千萬 二十", 0),
    ("mei_nv_can_chan", "千萬 二十", 10),
    ("mei_nv_can_chan", "二十 千萬", 10),
    ("mei_nv_can_chan", "千萬 七萬 二十", 0),
    ("xiao_can_chan", "五十 二十", 10),
    ("xiao_can_chan", "五十 七萬 二十", 0),
    ("er_fo_tan_jing", "五十 千萬", 6),
    ("er_fo_tan_jing", "五十 七萬 千萬", 0),
    ("tian_xian_song_zi", "九十 二十", 20),
    ("tian_xian_song_zi", "九十 七萬 二十", 0),
    # 青張 patterns
    ("lian_huan_suo", "三索 四索 五索", 4),
    ("lian_huan_suo", "一索 二索 三索 四索 五索", 12),
    ("lian_huan_suo", "三索 四索 七十 五索 六索", 8),      # the run is in the cards, not the order
    ("lian_huan_suo", "三索 四索 六索", 0),
    ("lian_huan_suo", "三索 四索 五索 九萬", 0),            # a 紅 上桌
    ("wu_xian_lian_huan_suo", "一索 二索 三索 四索 五索", 10),
    ("wu_xian_lian_huan_suo", "二索 三索 四索 五索 六索", 10),
    ("wu_xian_lian_huan_suo", "一索 二索 三索 四索", 0),
    ("tong_qi_lian_zhi", "三十 二萬 二索 八文", 24),        # the four 副極
    ("tong_qi_lian_zhi", "八十 七萬 七索 三文", 24),
    ("tong_qi_lian_zhi", "三十 三萬 三索 三文", 0),         # same face number is not 同值
    ("tong_qi_lian_zhi", "三十 二萬 二索 八文 九萬", 0),    # a 紅 上桌
    ("qing_bai_ren_jia", "七十 七萬 六索", 1),
    ("qing_bai_ren_jia", "七十 六十 七萬 六萬 六索", 3),
    ("qing_bai_ren_jia", "七十 七萬 九萬", 0),
    ("qing_bai_ren_jia", "七十 七萬", 0),
    # table counts
    ("ba_quan", "七十 六十 七萬 六萬 七索 六索 五文 四文", 4),
    ("ba_quan", "七十 六十 七萬 六萬 七索 六索 五文", 0),
    ("qi_zhuo_diao", "七十 六十 七萬 六萬 七索 六索 五文", 2),
    ("qi_zhuo_diao", "七十 六十 七萬 六萬 七索 六索 五文 四文", 0),
    ("liu_zhuo_diao", "七十 六十 七萬 六萬 七索 六索", 3),
    ("liu_zhuo_diao", "七十 六十 七萬 六萬 七索", 0),
]


@pytest.mark.parametrize(("item", "cards", "value"), CASES,
                         ids=[f"{i}-{c.replace(' ', '')}" for i, c, _ in CASES])
def test_east_won_cards(item, cards, value):
    s = app(east(cards.split()))
    assert [int(c) for c in s.play.won[E]] == [card(c) for c in cards.split()]
    assert zhu(s, item=item)[:4] == he(value)


def test_only_one_of_tian_ran_qu_and_nv_di_deng_ji():
    s = app(east("二十 七十".split()))
    assert {"nv_di_deng_ji", "tian_ran_qu"} & fired(s) == {"nv_di_deng_ji"}


def test_long_men_yue_with_its_companions():
    # Region comment "68賀(60+散花天女*5+百後趣*3)": the companions are paid on their own.
    s = app(east("百老 二十 七萬".split()))
    assert zhu(s, items=["long_men_yue", "san_hua_tian_nv", "bai_hou_qu"])[:4] == he(68)


def test_dui_zuo_pays_only_the_best():
    s = app(east("萬萬 千萬 二十 九萬 八萬 一萬".split()))
    assert fired(s) & {"san_dai_rong_feng", "fu_zi_tong_deng", "gong_sun_dui_zuo",
                       "xiong_di_qi_xin", "shang_jian_dui_zuo"} == {"san_dai_rong_feng"}


@pytest.mark.parametrize(("cards", "contains", "exact"), [
    ("萬萬 二十 九萬 一萬", 20, 20),
    ("萬萬 二十 九萬 一萬 七十", 20, 0),                    # the code wants exactly these cards
])
def test_dui_zuo_match_option(cards, contains, exact):
    deal = east(cards.split())
    assert zhu(app(deal), item="gong_sun_dui_zuo")[:4] == he(contains)
    assert zhu(app(deal, dui_zuo_match="exact"), item="gong_sun_dui_zuo")[:4] == he(exact)


def test_dao_juan_lian_gives_way_to_mei_ren_juan_lian():
    s = app(east("二十 萬萬 一萬 九萬".split()))
    assert "mei_ren_juan_lian" in fired(s) and "dao_juan_lian" not in fired(s)


# ---------------------------------------------------------------- 捉極 (trick contents)

REST = [(W, "七萬"), (N, "五文"), (S, "六索"), (W, "六萬"), (N, "四文")]


@pytest.mark.parametrize(("item", "after", "value"), [
    ("zhuo_ji_xian_ji", "一萬", 3),
    ("zhuo_ji_xian_ji", "百老", 0),
    ("zhuo_ji_xian_ji", "五萬", 0),
    ("zhuo_ji_xian_bai", "百老", 5),
    ("zhuo_ji_xian_bai", "一萬", 0),
])
def test_zhuo_ji(item, after, value):
    # 南 leads 二十 (the only 十 card below 三十) and 東 takes it with 三十.
    deal = make([(S, "七索"), (E, "三十"), (E, after), *REST])
    assert card("二十") in deal.play[1].cards
    assert zhu(app(deal), item=item)[:4] == he(value)


@pytest.mark.parametrize("item", ["zhuo_ji_xian_ji", "zhuo_ji_xian_bai"])
@pytest.mark.parametrize("after", ["一萬", "百老"])
def test_zhuo_ji_needs_a_capture(item, after):
    # 東 leads 三十 itself and 二十 is in the stock: no 極 is captured.
    deal = make([(E, "三十"), (E, after), (S, "七索"), *REST], stock=["二十"])
    assert zhu(app(deal), item=item)[:4] == he(0)


# ---------------------------------------------------------------- 香爐腳 and its 鼎 (5-1-1-1)

PLAIN5 = "七十 六十 七萬 六萬 七索"
RED5 = "萬萬 千萬 百老 九萬 九索"
DING = ["xiang_lu_jiao", "yuan_yang_ding", "yu_wang_ding", "wen_wang_ding",
        "wu_su_diao_san_hong", "zhu_sha_ding", "tie_xiang_lu"]


def xiang_lu(five: str, singles: str) -> Deal:
    s1, s2, s3 = singles.split()
    return make([(E, c) for c in five.split()] + [(S, s1), (W, s2), (N, s3)])


@pytest.mark.parametrize(("five", "singles", "item", "value"), [
    ("萬萬 七十 七萬 六萬 六十", "七索 五萬 五文", "xiang_lu_jiao", 5),
    (RED5, "七索 五萬 五文", "yuan_yang_ding", 10),
    (RED5, "八索 五萬 五文", "xiang_lu_jiao", 5),           # one single is 紅: no 鴛鴦鼎
    (PLAIN5, "八萬 八索 半文", "yu_wang_ding", 24),
    (PLAIN5, "九萬 九索 空文", "wen_wang_ding", 22),
    (PLAIN5, "九萬 八索 空文", "wu_su_diao_san_hong", 20),
    (PLAIN5, "九萬 八索 五文", "xiang_lu_jiao", 5),         # two 紅 singles only
    (RED5, "八索 八萬 空文", "zhu_sha_ding", 8),
    (RED5, "八索 八萬 五文", "xiang_lu_jiao", 5),
    (PLAIN5, "六索 五萬 五文", "tie_xiang_lu", 18),
    (PLAIN5, "六索 五萬 空文", "xiang_lu_jiao", 5),
])
def test_xiang_lu_jiao_and_ding(five, singles, item, value):
    s = app(xiang_lu(five, singles))
    assert sorted(s.play.trick_counts, reverse=True) == [5, 1, 1, 1]
    assert zhu(s, item=item)[:4] == he(value)
    # a 鼎 replaces 香爐腳: exactly one member of the family is paid
    assert zhu(s, items=DING)[:4] == he(value)


def test_xiang_lu_jiao_needs_five_one_one_one():
    deal = make([(E, c) for c in PLAIN5.split()] + [(S, "六索"), (S, "五索"), (W, "五萬")])
    s = app(deal)
    assert zhu(s, items=DING)[:4] == he(0)


# ---------------------------------------------------------------- the 紅樓夢 deal (digest §6.1)

HONG_LOU = ["空文", "二文", "九十", "八十", "枝花", "千萬", "二十", "百萬"]


def hong_lou_deal() -> Deal:
    """The 紅樓夢-continuation deal of S0, completed where the text is silent.

    郡主 (東) leads and wins all eight tricks in the narrated order.  Completion (not in
    the text): 郡主 sits 東 and the 面張 is 五索 (one of the 22 unknown 萬/索/三–六文 cards;
    五 sends the first lead to 東, so the record agrees with the app's procedure); the other
    seven stock cards are the ones 郡主 later takes in 開沖, in the narrated order (紅萬, 七十,
    三十, 一文, 九文, 八文, 七文); 南, 西 and 北 hold 六十, 五十 and 四十 (one each) and throw
    them on trick 1 ("三家把六、五、四，三張十子滅了"); the rest of their hands and their discards
    are the other 21 cards, placed by the seeded search (a hand that would not be played under
    the app is refused); 玉釧 (北) is the 椿 (INFERENCE: 夾家).  Whatever 開沖 adds is left to
    the 開沖 items: this test looks only at the 斗上 色樣 of za_se_yang.yaml.
    """
    def accept(deal: Deal) -> bool:
        first = set(deal.play[0].cards)
        return {card("六十"), card("五十"), card("四十")} <= first and played(deal)

    return construct_deal([(E, c) for c in HONG_LOU], banker=N,
                          stock=["五索", "萬萬", "七十", "三十", "一文", "九文", "八文", "七文"],
                          held={S: ["六十"], W: ["五十"], N: ["四十"]}, accept=accept)


def test_hong_lou_meng_deal():
    s = app(hong_lou_deal())
    assert s.play.trick_counts[E] == 8
    za = set(ZA_IDS)
    assert fired(s) & za == {"ba_quan", "tian_nv_san_hua", "qu_hou_bai", "mei_nv_can_chan"}
    for seat in (S, W, N):
        assert not fired(s, seat) & za
    assert not {"san_hua_tian_nv", "tian_ran_qu", "fu_qi_tuan_yuan", "ren_mian_tao_hua",
                "tian_xian_song_zi", "xiong_di_qi_xin"} & fired(s)
    assert zhu(s, item="ba_quan")[:4] == he(4)
    assert zhu(s, item="tian_nv_san_hua")[:4] == he(10)
    assert zhu(s, item="qu_hou_bai")[:4] == he(5)
    assert zhu(s, item="mei_nv_can_chan")[:4] == he(10)
    assert zhu(s, items=ZA_IDS)[:4] == he(29)                 # 29 from each of the other three
