"""Unit tests for each feng rule item (digest §3.3–§3.12, §4.6), one firing and one near miss."""

from __future__ import annotations

import dataclasses

import pytest
from helpers import E, N, S, W, build, card, feng, kai_zhu_total, zhu

from mahdiao_rules.cards import Card
from mahdiao_rules.deal import Deal, Event
from mahdiao_rules.settle.hand import MIAN_DOU, PLAYED


def fired(s, seat=None):
    return {f.item.id for f in s.firings if seat is None or f.seat == seat}


# ---------------------------------------------------------------- 看賞 and 假逵 (§3.3, §4.6)

def shang_deal(face="空文", second="五文", q_card="半文"):
    wins = [(E, q_card), (E, "七索"), (S, "六索"), (S, "五索"), (W, "七萬"), (W, "四萬"),
            (N, "三萬"), (N, "四索")]
    return build(wins, banker=N, stock=[face, second])


def test_face_zheng_shang_promotes_its_ci_shang():
    s = feng(shang_deal())
    assert ("shang", 1) in {(f.item.id, f.count) for f in s.firings if f.seat == E}


def test_unpromoted_ci_shang_is_no_shang():
    s = feng(shang_deal(face="五文", second="四文"))
    assert "shang" not in fired(s, E)


def test_shang_needs_zheng_ben():
    wins = [(E, "九索"), (S, "七索"), (S, "六索"), (W, "五索"), (W, "七萬"),
            (N, "四萬"), (N, "三萬"), (S, "四索")]
    s = feng(build(wins, banker=N, stock=["五文"]))
    assert s.play.trick_counts[E] == 1
    assert "shang" not in fired(s, E)                     # 死賞: 上卓 but not 正本


def test_jia_kui_pays_each_other_player():
    s = feng(shang_deal(face="五文", second="空文"))     # 2nd stock card is 半文's 正賞
    assert zhu(s, item="jia_kui") == [-3, 1, 1, 1, 0]


def test_jia_kui_not_when_ci_shang_was_discarded():
    wins = [(E, "七索"), (E, "六索"), (S, "五索"), (S, "四索"), (W, "七萬"), (W, "四萬"),
            (N, "三萬"), (N, "三索")]
    deal = build(wins, banker=N, stock=["五文", "空文"], held={E: ["半文"]})
    s = feng(deal)
    assert "jia_kui" not in fired(s)                     # 若預先滅死不論


def test_jia_kui_option_exempts_a_non_zheng_ben_holder():
    wins = [(E, "半文"), (S, "七索"), (S, "六索"), (W, "五索"), (W, "七萬"),
            (N, "四萬"), (N, "三萬"), (S, "四索")]
    deal = build(wins, banker=N, stock=["五文", "空文"])
    assert zhu(feng(deal), item="jia_kui")[E] == -3
    assert zhu(feng(deal, jia_kui_zheng_ben="exempt"), item="jia_kui")[E] == 0


# ---------------------------------------------------------------- 百老 items (§3.4)

def bai_deal(e_wins, *, held=None, stock=("五文",)):
    rest = [(S, "七索"), (S, "六索"), (W, "七文"), (W, "六文"), (N, "七萬"), (N, "四萬"),
            (S, "五索"), (W, "五文")]
    wins = [(E, c) for c in e_wins] + rest[: 8 - len(e_wins)]
    return build(wins, banker=N, stock=list(stock), held=held)


def test_da_huo_bai_and_qiao_men():
    s = feng(bai_deal(["百老", "三萬"]))
    assert {"da_huo_bai", "qiao_men", "guan_dui_de"} <= fired(s, E)
    assert zhu(s, item="qiao_men") == [2, -1, -1, 0, 0]


def test_banker_da_huo_bai_does_not_knock():
    s = feng(dataclasses.replace(bai_deal(["百老", "三萬"]), banker=E))
    assert "da_huo_bai" in fired(s, E)
    assert zhu(s, item="qiao_men") == [0, 0, 0, 0, 0]
    assert s.next_banker == E and "留椿" in s.next_banker_reason


def test_da_huo_bai_tu_per_ci_tu_on_top():
    s = feng(bai_deal(["百老", "八萬", "五萬"]))
    got = {f.item.id: (f.amount // 24, f.count) for f in s.firings if f.seat == E}
    assert got["da_huo_bai"] == (3, 1)
    assert got["da_huo_bai_tu"] == (12, 2)


def test_xiao_huo_bai_needs_zheng_ben_and_bai_not_won():
    s = feng(bai_deal(["三萬", "二萬"], held={E: ["百老"]}))
    assert "xiao_huo_bai" in fired(s, E) and "da_huo_bai" not in fired(s, E)


def test_si_bai_when_not_zheng_ben_won_or_not():
    won = feng(bai_deal(["百老"]))
    held = feng(bai_deal(["三萬"], held={E: ["百老"]}))
    assert "si_bai" in fired(won, E) and "da_huo_bai" not in fired(won, E)
    assert "si_bai" in fired(held, E)


def test_xiao_tu_needs_both_won():
    yes = feng(bai_deal(["九十", "六萬"]))
    no = feng(bai_deal(["九十", "三萬"], held={E: ["六萬"]}))
    assert "xiao_tu" in fired(yes, E)
    assert "xiao_tu" not in fired(no, E)


def test_gong_without_ci_is_no_tu():
    s = feng(bai_deal(["百老", "九十"]))
    assert not {"da_huo_bai_tu", "xiao_tu"} & fired(s, E)


def test_san_kai_and_si_hong():
    s = feng(bai_deal(["百老", "千萬", "萬萬", "空文"]))
    assert {"san_kai", "si_hong"} <= fired(s, E)
    near = feng(bai_deal(["百老", "千萬", "空文"]))
    assert not {"san_kai", "si_hong"} & fired(near, E)


# ---------------------------------------------------------------- 八卓全收 (§3.4, §5.1)

def test_ba_zhuo_quan_shou_eight_and_first_seven():
    eight = [(E, c) for c in ["七索", "六索", "五索", "四索", "七萬", "四萬", "三萬", "三索"]]
    s = feng(build(eight, banker=N))
    assert "ba_zhuo_quan_shou" in fired(s, E)
    first7 = eight[:7] + [(S, "二索")]
    assert "ba_zhuo_quan_shou" in fired(feng(build(first7, banker=N)), E)


def test_seven_tricks_not_first_seven():
    wins = [(S, "二索")] + [(E, c) for c in ["七索", "六索", "五索", "四索", "七萬", "四萬", "三萬"]]
    deal = build(wins, banker=N)
    assert "ba_zhuo_quan_shou" not in fired(feng(deal), E)
    assert "ba_zhuo_quan_shou" not in fired(feng(deal, qi_zhuo="any_seven"), E)  # needs trick 1
    wins2 = [(E, "七索"), (S, "二索")] + [(E, c) for c in ["六索", "五索", "四索", "七萬", "四萬", "三萬"]]
    deal2 = build(wins2, banker=N)
    assert "ba_zhuo_quan_shou" not in fired(feng(deal2), E)
    assert "ba_zhuo_quan_shou" in fired(feng(deal2, qi_zhuo="any_seven"), E)


# ---------------------------------------------------------------- 免斗 and 異賞 (§3.6, §3.7, §4.6)

def hand_deal(east, south, west, north, stock, banker=N) -> Deal:
    def cards(names):
        return tuple(Card(card(n)) for n in names.split())
    return Deal(id="t", banker=banker, hands=(cards(east), cards(south), cards(west), cards(north)),
                stock=cards(stock))


FOUR_JI = hand_deal("二十 一萬 一索 九文 七十 六萬 五索 三文",
                    "萬萬 千萬 百萬 九十 八萬 七萬 九索 八索",
                    "八十 六十 五十 五萬 四萬 七索 六索 空文",
                    "四十 三十 三萬 二萬 四索 三索 二索 半文",
                    "九萬 一文 二文 四文 五文 六文 七文 八文")


def test_si_ji_mian_dou():
    s = feng(FOUR_JI)
    assert s.status == MIAN_DOU and s.play is None
    assert zhu(s, item="si_ji") == [3, -1, -1, -1, 0]
    assert s.next_banker is None                       # 凡遇免斗俱另拈椿
    assert zhu(s, item="guan_dui_jia_zi") == [-1, -1, -1, -1, 4]   # 官堆 still settles


SI_ZUN_YOU_BAI = hand_deal("萬萬 九萬 九索 空文 百萬 七十 六萬 五索",
                           "千萬 九十 八萬 七萬 八索 七索 二十 三文",
                           "八十 六十 五十 五萬 四萬 六索 一萬 半文",
                           "四十 三十 三萬 二萬 四索 三索 二索 一索",
                           "九文 一文 二文 四文 五文 六文 七文 八文")


def test_yi_shang_si_zun_you_bai():
    s = feng(SI_ZUN_YOU_BAI)
    assert s.status == MIAN_DOU
    assert fired(s, E) >= {"si_zun_you_bai", "yi_shang_quan_diao"}
    assert "si_zun" not in fired(s, E)                    # only the highest 異賞 counts
    assert zhu(s, items=["si_zun_you_bai", "yi_shang_quan_diao"]) == [18, -6, -6, -6, 0]
    assert s.next_banker == E                              # 異賞奪椿


HUN_CHENG = hand_deal("九索 八索 七索 六索 五索 四索 三索 二索",
                      "萬萬 千萬 百萬 九十 八萬 七萬 一索 三文",
                      "八十 六十 五十 五萬 四萬 二十 一萬 半文",
                      "四十 三十 七十 三萬 二萬 六萬 九萬 空文",
                      "九文 一文 二文 四文 五文 六文 七文 八文")


def test_hun_cheng_with_bai_lao_holder_exempt():
    s = feng(HUN_CHENG)
    assert zhu(s, items=["hun_cheng", "yi_shang_quan_diao"]) == [10, 0, -5, -5, 0]
    everyone = feng(HUN_CHENG, he_exemption="none")
    assert zhu(everyone, items=["hun_cheng", "yi_shang_quan_diao"]) == [15, -5, -5, -5, 0]



def test_yi_shang_quan_diao_through_kai_zhu():
    """yi_shang_quan_diao=kai_zhu: the 全吊 is a 吊 won in 開注, so E (a 散) collects it from the
    椿 N only — 賀 4 from W and N (S holds 百老: exempt) + 全吊 1 from N: E 9, W −4, N −5;
    per_payer (default): the 全吊 also comes from W (S exempt): E 10, W −5, N −5."""
    s = feng(HUN_CHENG, yi_shang_quan_diao="kai_zhu")
    assert zhu(s, items=["hun_cheng", "yi_shang_quan_diao"]) == [9, 0, -4, -5, 0]
    assert zhu(s, item="yi_shang_quan_diao") == [1, 0, 0, -1, 0]


def test_two_yi_shang_holders_split_the_quan_diao():
    deal = hand_deal("九索 八索 七索 六索 五索 四索 三索 二索",
                     "九萬 八萬 七萬 六萬 五萬 四萬 三萬 二萬",
                     "萬萬 千萬 百萬 九十 一索 二十 一萬 半文",
                     "四十 三十 七十 八十 六十 五十 空文 一文",
                     "九文 二文 三文 四文 五文 六文 七文 八文")
    s = feng(deal)
    quan = {f.seat: f.amount for f in s.firings if f.item.id == "yi_shang_quan_diao"}
    assert quan == {E: 12, S: 12}                          # ½ 注 each from every payer
    # The bank goes to the first holder in play order from the 頭家 (face 九文: 一五九過身,
    # the seat opposite the 椿 N, is S): S, not E.
    assert s.first_leader == S and s.next_banker == S


@pytest.mark.parametrize(("suit_hand", "item"), [
    ("萬萬 千萬 百萬 九十 八十 七萬 五索 三文", "shi_men_man_wu"),
    ("九萬 八萬 七萬 六萬 五萬 四萬 五索 三文", "yu_san_men_man_liu"),
])
def test_suit_count_mian_dou_without_payment(suit_hand, item):
    others = {"shi_men_man_wu": ("七十 六十 五十 四十 三十 二十 六萬 五萬",), }
    del others
    rest = [c for c in ("萬萬 千萬 百萬 九十 八十 七十 六十 五十 四十 三十 二十 九萬 八萬 七萬 六萬 五萬 "
                        "四萬 三萬 二萬 一萬 九索 八索 七索 六索 五索 四索 三索 二索 一索 空文 半文 一文 "
                        "二文 三文 四文 五文 六文 七文 八文 九文").split() if c not in suit_hand.split()]
    # Deal the rest round-robin so no other hand reaches a 免斗 count.
    hands = [suit_hand, " ".join(rest[0:24:3]), " ".join(rest[1:24:3]), " ".join(rest[2:24:3])]
    deal = hand_deal(*hands, " ".join(rest[24:32]))
    s = feng(deal)
    assert s.status == MIAN_DOU
    assert item in fired(s, E)
    assert zhu(s, items=[item]) == [0, 0, 0, 0, 0]
    assert s.next_banker is None


# ---------------------------------------------------------------- 官堆 (§3.12)

def test_guan_dui_top_up_when_nobody_makes_da_huo_bai():
    s = feng(bai_deal(["三萬", "二萬"]))
    assert zhu(s, item="guan_dui_jia_zi") == [-1, -1, -1, -1, 4]


def test_da_huo_bai_takes_the_pool_and_fines():
    deal = dataclasses.replace(bai_deal(["百老", "三萬"]), guan_dui=5,
                               events=(Event("xian_mie", S, trick=2),))
    s = feng(deal)
    assert zhu(s, item="xian_mie") == [0, -2, 0, 0, 2]
    assert zhu(s, item="guan_dui_de") == [7, 0, 0, 0, -7]
    assert s.pool_end == 0


# ---------------------------------------------------------------- 罰例 (§3.11)

FINE_DEAL = hand_deal("百萬 九索 一萬 八萬 六萬 三文 五索 七十",
                      "萬萬 千萬 九十 七萬 八索 七索 二十 四文",
                      "八十 六十 五十 五萬 四萬 六索 空文 半文",
                      "四十 三十 三萬 二萬 四索 三索 二索 一索",
                      "九萬 九文 一文 二文 五文 六文 七文 八文")


@pytest.mark.parametrize(("name", "amount", "options"), [
    ("百老", 4, {}), ("九索", 3, {}), ("一萬", 2, {}), ("八萬", 1, {}),
    ("八萬", 2, {"ba_hong_set": "hong_zhang"}), ("六萬", 1, {}),
])
def test_fan_pai_fine_by_card_class(name, amount, options):
    # 白者一注、紅二注、賞三注、百老四注, paid to the player whose card was turned over.
    deal = dataclasses.replace(FINE_DEAL, events=(Event("fan_pai", S, card=parse(name)),))
    s = feng(deal, **options)
    assert zhu(s, item="fan_pai")[:4] == [amount, -amount, 0, 0]


def parse(name):
    return Card(card(name))


def test_wu_fen_kan_pai_ends_the_hand_and_pays_the_bai_lao_holder():
    base = bai_deal(["三萬", "二萬"])
    holder = base.holder(card("百老"))
    culprit = holder.after(2) if holder is not None else S
    s = feng(dataclasses.replace(base, events=(Event("wu_fen_kan_pai", culprit),)))
    assert s.status == MIAN_DOU
    if holder is not None:
        assert zhu(s, item="wu_fen_kan_pai")[holder] == 5


def test_unknown_event_is_noted_not_priced():
    s = feng(dataclasses.replace(bai_deal(["三萬", "二萬"]), events=(Event("kan_pai", S),)))
    assert any("not priced" in n for n in s.notes)
    assert s.status == PLAYED


def test_kai_zhu_total_helper_matches_ledger_for_a_san():
    s = feng(bai_deal(["百老", "三萬"]))
    k_e = kai_zhu_total(s, E)
    k_n = kai_zhu_total(s, N)
    kai = zhu(s, items=["diao", "shang", "da_huo_bai", "da_huo_bai_tu", "xiao_tu", "san_kai"])
    assert kai[E] == k_e - k_n
