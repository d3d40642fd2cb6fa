"""feng's contested readings: for every switch a deal where the readings pay differently.

Each test's docstring works the figures by hand.  Conventions: seats E, S, W, N; K = a seat's
開注 total; the 椿 gets 3·K_椿 − ΣK_散, a 散 K_散 − K_椿; nets are listed E, S, W, N, 官堆.
"""

from __future__ import annotations

import dataclasses

import pytest
from helpers import E, N, S, W, build, card, feng, kai_zhu_total, zhu
from test_feng_golden import ex1

from mahdiao_rules.cards import Card
from mahdiao_rules.deal import Deal, Event, RecordedTrick
from mahdiao_rules.errors import InputError
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.ruleset import find_ruleset
from mahdiao_rules.settle.hand import MIAN_DOU, PLAYED


def hands(east: str, south: str, west: str, north: str, stock: str, banker=N) -> Deal:
    def cards(names: str) -> tuple[Card, ...]:
        return tuple(Card(card(n)) for n in names.split())
    return Deal(id="reading", banker=banker,
                hands=(cards(east), cards(south), cards(west), cards(north)), stock=cards(stock))


def items_of(s, seat):
    return {f.item.id: f.amount / 24 for f in s.firings if f.seat == seat}


# ---------------------------------------------------------------- 1. tu_additivity

def da_huo_tu_deal():
    wins = [(E, "百老"), (E, "五萬"), (S, "七索"), (S, "六索"), (W, "七文"), (W, "六文"),
            (N, "七萬"), (N, "四萬")]
    return build(wins, banker=N, stock=["五文", "四文"])


def test_tu_additivity():
    """2-2-2-2: every 吊 is 0.  E (散) won 百老 and the 雌突 五萬: K_E = 大活百 3 + 大活百突 6 = 9
    (add) or 大活百突 6 alone (replace); K_N = 0.  敲門: E collects 1 from S and W.
    add: E 9 + 2 = 11, S −1, W −1, N −9.  replace: E 6 + 2 = 8, S −1, W −1, N −6."""
    add = feng(da_huo_tu_deal())
    assert zhu(add) == [11, -1, -1, -9, 0]
    replace = feng(da_huo_tu_deal(), tu_additivity="replace")
    assert items_of(replace, E)["da_huo_bai"] == 0          # still 大活百 for 敲門 and 官堆
    assert zhu(replace) == [8, -1, -1, -6, 0]
    assert replace.next_banker == N.after(1)                  # E is a 散: the bank rotates


# ---------------------------------------------------------------- 2. tu_shang_zhuo

def held_ci_tu_deal():
    wins = [(E, "百老"), (E, "三萬"), (S, "七索"), (S, "六索"), (W, "七文"), (W, "六文"),
            (N, "七萬"), (N, "四萬")]
    return build(wins, banker=N, stock=["五文", "四文"], held={E: ["六萬"]},
                 avoid_held={E: ["五萬", "八萬", "九十"]})


def test_tu_shang_zhuo():
    """E won 百老 and 三萬 and only held the 雌突 六萬.  won (default): 大活百 3, no 突:
    E 3 + 敲門 2 = 5, S −1, W −1, N −3.  held: + 大活百突 6 for the held 六萬: K_E = 9,
    E 11, S −1, W −1, N −9."""
    assert zhu(feng(held_ci_tu_deal())) == [5, -1, -1, -3, 0]
    assert zhu(feng(held_ci_tu_deal(), tu_shang_zhuo="held")) == [11, -1, -1, -9, 0]


# ---------------------------------------------------------------- 3. ba_zhuo_diao

def all_eight_deal():
    plain = ["七索", "六索", "五索", "四索", "七萬", "四萬", "三萬", "三索"]
    return build([(E, c) for c in plain], banker=N, stock=["五文", "四文", "百老"])


def test_ba_zhuo_diao():
    """E (散) wins all eight tricks with plain cards; the others are −1 吊 each (K = −1).
    add: K_E = 吊 1 + 八卓全收 8 = 9: E 9 + 1 = 10, S 0, W 0, N −3 − (9 − 2) = −10.
    total: K_E = 1 + 7 = 8: E 9, S 0, W 0, N −9.  Nobody has 大活百: each pays 1 to the 官堆."""
    assert zhu(feng(all_eight_deal())) == [9, -1, -1, -11, 4]
    assert zhu(feng(all_eight_deal(), ba_zhuo_diao="total")) == [8, -1, -1, -10, 4]


# ---------------------------------------------------------------- 4. yi_shang_multi

SI_ZUN_AND_BAI = hands("萬萬 九萬 九索 空文 百萬 七十 六萬 五索",
                       "千萬 九十 八萬 七萬 八索 七索 半文 三文",
                       "八十 六十 五十 五萬 四萬 六索 四索 一文",
                       "四十 三十 三萬 二萬 三索 二索 二文 四文",
                       "二十 一萬 一索 九文 五文 六文 七文 八文")


def test_yi_shang_multi():
    """E holds the four 正賞 and 百老: 四尊 (4) and 四尊有百老 (5); nobody else holds 百老, so
    everybody pays.  highest: 5 + 全吊 1 = 6 from each: E +18.  sum: 4 + 5 + 1 = 10: E +30.
    Both 免斗; each then pays 1 to the 官堆 (nobody made 大活百)."""
    highest = feng(SI_ZUN_AND_BAI)
    assert highest.status == MIAN_DOU
    assert zhu(highest) == [17, -7, -7, -7, 4]
    total = feng(SI_ZUN_AND_BAI, yi_shang_multi="sum")
    assert {"si_zun", "si_zun_you_bai"} <= set(items_of(total, E))
    assert zhu(total) == [29, -11, -11, -11, 4]


# ---------------------------------------------------------------- 5. ban_wen_num

# Face card 半文; E holds the top cards of 十 and 萬, S those of 索 and 文 (半文 is the face
# card), so whoever of them leads wins every trick, whatever the others play.
BAN_WEN_FACE = hands("萬萬 千萬 百萬 九十 九萬 八萬 七萬 六萬",
                     "九索 八索 七索 六索 空文 一文 二文 三文",
                     "八十 七十 六十 五十 五萬 四萬 五索 四索",
                     "四十 三十 二十 三萬 二萬 一萬 三索 二索",
                     "半文 四文 五文 六文 七文 八文 九文 一索")


def test_ban_wen_num():
    """椿 N.  one: 半文 counts 1 (一五九過身) → the seat opposite the 椿, S, is dealt first and
    leads; half: ½ reaches no seat → the dealer E (N's 下首) leads.
    S leads (one): S wins all 8: K_S = 吊 1 + 賞 九索, 空文 2 + 八卓全收 8 = 11; E holds 百老
    with no trick: 死百 1 + 吊 −1 = 0; K_W = K_N = −1.  S 12, E 1, W 0, N −3 − 10 = −13, and
    each pays 1 to the 官堆: [0, 11, −1, −14, 4].
    E leads (half): K_E = 吊 1 + 賞 萬萬, 九萬 2 + 大活百 3 + 大活百突 (八萬, 六萬) 12 +
    小突 2 + 三開 3 + 八卓全收 8 = 31; E 32 + 敲門 2 = 34, S −1, W −1, N −3 − 29 = −32."""
    one = feng(BAN_WEN_FACE)
    assert one.first_leader == S and one.play.trick_counts == (0, 8, 0, 0)
    assert zhu(one) == [0, 11, -1, -14, 4]
    half = feng(BAN_WEN_FACE, ban_wen_num="half")
    assert half.first_leader == E and half.play.trick_counts == (8, 0, 0, 0)
    assert kai_zhu_total(half, E) == 31
    assert zhu(half) == [34, -1, -1, -32, 0]


# ---------------------------------------------------------------- 6. shang_cards

def test_shang_cards():
    """S3's example 1 (E won 百老, 千萬, 萬萬, 空文, 八索; face 九索 promotes 八索).  strict:
    賞 萬萬, 空文, 八索 = 3, K_E = 1 + 3 + 大活百 3 + 三開 3 + 四紅 4 = 14.  s3_examples (the
    十 suit's 賞 is 九十): 賞 空文, 八索 = 2, K_E = 13 — S3's printed figure."""
    assert kai_zhu_total(feng(ex1()), E) == 14
    assert kai_zhu_total(feng(ex1(), shang_cards="s3_examples"), E) == 13


# ---------------------------------------------------------------- 7. quan_tu

def quan_tu_won_deal():
    wins = [(E, "百老"), (E, "九十"), (E, "五萬"), (E, "六萬"), (E, "八萬"), (S, "七索"),
            (S, "六索"), (W, "七文")]
    return build(wins, banker=N, stock=["五文", "四文"])


def test_quan_tu():
    """E holds and wins 百老, 九十, 五萬, 六萬, 八萬 (tricks 5-2-1-0, 椿 N).
    held: a 異賞 before play, 賀 5 + 全吊 1 from each: E +18, the others −6; not played, so
    nobody makes 大活百 and each pays 1 to the 官堆: [17, −7, −7, −7, 4].
    won: played.  K_E = 吊 1 + 大活百 3 + 大活百突 3 × 6 + 小突 3 × 1 = 25; K_S = 0,
    K_W = K_N = −1.  E 26 + 敲門 2 + 全突 賀 15 = 43; S 1 − 1 − 5 = −5; W 0 − 1 − 5 = −6;
    N −3 − 24 − 5 = −32.  The 異賞 still seizes the bank."""
    held = feng(quan_tu_won_deal())
    assert held.status == MIAN_DOU
    assert zhu(held) == [17, -7, -7, -7, 4]
    won = feng(quan_tu_won_deal(), quan_tu="won")
    assert won.status == PLAYED
    assert kai_zhu_total(won, E) == 25
    assert zhu(won) == [43, -5, -6, -32, 0]
    assert won.next_banker == E


# ---------------------------------------------------------------- 8. dai_pei_amount

def zong_shang_deal():
    """The 椿 N won 九萬 (a 賞) in trick 1 because S let it through; 百老 lies in the stock."""
    wins = [(N, "九萬"), (N, "三萬"), (E, "七索"), (E, "六索"), (E, "五索"), (S, "四索"),
            (S, "七文"), (W, "四萬")]
    deal = build(wins, banker=N, stock=["五文", "四文", "百老"])
    return dataclasses.replace(deal, events=(Event("release_zhuang_shang", S, trick=1),))


def test_dai_pei_amount_three_readings():
    """故縱椿牌活賞: the 椿 is activated, so the offender S pays the other 散, E and W.
    K_N = 賞 1 (吊 0); K_E = 1, K_W = −1.  E is 正本, W is not.
    fixed: E 1, W 2.  gross: what each paid the 椿's own items — 1 each for the 賞 — capped
    at 1 / 2: E 1, W 1.  capped (net): E's net before 代賠 is 1 − 1 = 0, no loss: E 0;
    W's is −1 − 1 = −2: W 2."""
    def dai_pei(amount):
        s = feng(zong_shang_deal(), dai_pei_amount=amount)
        return zhu(s, item="release_zhuang_shang")
    assert dai_pei("fixed") == [1, -3, 2, 0, 0]
    assert dai_pei("gross") == [1, -2, 1, 0, 0]
    assert dai_pei("capped") == [0, -2, 2, 0, 0]


def test_dai_pei_gross_in_s3_scenario():
    """S3's own scenario (椿 E; A = S released by 我 = N; B = W), both beneficiaries: the 椿 paid
    A's 大活百 3 → capped at 2 (not 正本); B paid A's 敲門 1 → 1.  The net reading pays B
    nothing (B won 2 net), the gross reading 1 — what S3 says the rule means."""
    from test_feng_golden import dai_pei_deal
    deal = dataclasses.replace(dai_pei_deal(), events=(Event("release_bai_lao", N, trick=1),))
    gross = feng(deal, dai_pei_amount="gross", dai_pei_beneficiaries="banker_and_san")
    assert zhu(gross, item="release_bai_lao") == [2, 0, 1, -3, 0]
    net = feng(deal, dai_pei_amount="capped", dai_pei_beneficiaries="banker_and_san")
    assert zhu(net, item="release_bai_lao") == [2, 0, 0, -2, 0]


# ---------------------------------------------------------------- 代賠 for 誤出 … 顯滅, and its exemption

def test_xian_mie_that_affected_others_carries_dai_pei():
    """顯滅 in trick 1, won by the 椿 N: the 2 注 fine always; with affected: true also 代賠 for
    the activated 椿 — the offender S pays the other 散 E (正本) 1 and W (not 正本) 2."""
    base = dataclasses.replace(zong_shang_deal(), events=(Event("xian_mie", S, trick=1),))
    plain = feng(base)
    assert zhu(plain, item="xian_mie") == [0, -2, 0, 0, 2]                 # the fine only
    hit = feng(dataclasses.replace(base, events=(Event("xian_mie", S, trick=1, affected=True),)))
    lines = [t for t in hit.ledger if t.item == "xian_mie"]
    assert sorted((t.payee, t.amount / 24) for t in lines) == [(E, 1), (W, 2), (4, 2)]


RELEASE_HANDS = ("百老 七萬 四萬 三萬 七索 六索 七文 六文",
                 "五索 四索 三索 二索 五文 四文 三文 二文",
                 "千萬 八十 九索 八索 一索 八文 九文 一文",
                 "九十 六十 五十 四十 九萬 八萬 五萬 二萬",
                 "半文 七十 三十 二十 萬萬 六萬 一萬 空文")
FIRST_FOUR = [(N, "九萬 三萬 二文 一索"), (N, "八萬 四萬 三文 一文"), (N, "五萬 七萬 四文 八文"),
              (E, "六索 五索 八索 二萬")]


def release_deal(rest):
    """W plays out 千萬 and E's 百老 wins trick 8 (tricks N 2, E 3, W 3, S 0; 椿 N)."""
    play = tuple(RecordedTrick(lead, tuple(Card(card(c)) for c in cards.split()))
                 for lead, cards in FIRST_FOUR + rest)
    return dataclasses.replace(hands(*RELEASE_HANDS), play=play,
                               events=(Event("release_bai_lao", W, trick=8),))


def test_no_dai_pei_when_only_shi_was_left():
    """斗百老法 「若三路既竭，十亦竟出，縱活百老亦不代賠」.  W led 千萬 at trick 7 holding only 千萬
    and 八十 (his other suits spent): no 代賠.  Led at trick 5, with 九索 and 九文 still in
    hand, it is paid: E (a 散) was activated, so W pays the 椿 N, who is 正本: 1 注."""
    late = release_deal([(W, "九文 六十 七文 二索"), (E, "七索 四索 九索 四十"),
                         (W, "千萬 五十 六文 三索"), (W, "八十 九十 百老 五文")])
    s = feng(late)
    assert s.play.trick_counts == (3, 0, 3, 2)
    assert zhu(s, item="release_bai_lao") == [0, 0, 0, 0, 0]
    assert any("三路既竭" in n for n in s.notes)
    early = release_deal([(W, "千萬 五十 六文 三索"), (W, "九文 六十 七文 二索"),
                          (E, "七索 四索 九索 四十"), (W, "八十 九十 百老 五文")])
    assert zhu(feng(early), item="release_bai_lao") == [0, 0, -1, 1, 0]


# ---------------------------------------------------------------- 另拈椿 after three fines

def test_fines_that_redraw_the_bank():
    """洗畢見百老, 拍牌見百老 and a 百老 turned over while dealing (翻百老): 另拈椿 — the next 椿 is
    drawn afresh instead of rotating.  Another card turned over keeps the rotation."""
    base = da_huo_tu_deal()
    assert feng(base).next_banker == N.after(1)
    for ev in (Event("xi_bi_jian_bai_lao", S), Event("pai_pai_jian_bai_lao", W),
               Event("fan_pai", E, card=card("百老"))):
        s = feng(dataclasses.replace(base, events=(ev,)))
        assert s.next_banker is None and "另拈椿" in s.next_banker_reason, ev
    s = feng(dataclasses.replace(base, events=(Event("fan_pai", E, card=card("七文")),)))
    assert s.next_banker == N.after(1)


# ---------------------------------------------------------------- 多張 / 少張

DUO_ZHANG_FILE = """\
id: duo-zhang
banker: north
hands:
  east: [百老, 七萬, 四萬, 三萬, 七索, 六索, 七文, 六文]
  south: [五索, 四索, 三索, 二索, 五文, 四文, 三文, 二文]
  west: [千萬, 八十, 九索, 八索, 一索, 八文, 九文, 一文]
  north: [九十, 六十, 五十, 四十, 九萬, 八萬, 五萬, 二萬]
stock: [半文, 七十, 三十, 二十, 萬萬, 六萬, 一萬, 空文]
play:
- {lead: north, cards: [九萬, 三萬, 二文, 一索]}
- {lead: north, cards: [八萬, 四萬, 三文, 一文]}
- {lead: north, cards: [五萬, 七萬, 四文, 八文]}
- {lead: east, cards: [六索, 五索, 八索, 二萬]}
- {lead: east, cards: [七索, 四索, 九索, 四十]}
- {lead: east, cards: [七文, 二索, 九文, 六十]}
- {lead: east, cards: [六文, 三索, 千萬, 五十]}
- {lead: east, cards: [百老, 五文, 八十, 九十]}
events:
- {type: duo_zhang, seat: west, trick: 4}
"""


def test_duo_zhang_player_cannot_capture():
    """「多張者及少張者，俱不准捉…雖賞亦不論」: W is found 多張 at trick 4.  His 八索 and 九索 would
    capture E's 六索 and 七索 in tricks 4 and 5; under the rule they are 滅, so E wins both and
    leads on — the record follows that.  E wins 6 tricks, N 2 (with the 賞 九萬): K_E = 吊 1 +
    大活百 3 = 4, K_N = 賞 1, K_S = K_W = −1 吊.  E 4 − 1 + 敲門 2 = 5, S −1 − 1 − 1 = −3,
    W −3, N 3 − 2 = 1.
    The same record without the event is refused: W would have won trick 4 and led trick 5."""
    from mahdiao_rules.io.dealfile import parse_deals
    from mahdiao_rules.io.yamlsafe import load_text

    (deal,) = parse_deals(load_text(DUO_ZHANG_FILE, "duo.yaml"))
    s = feng(deal)
    assert s.play.trick_counts == (6, 0, 0, 2)
    assert [t.actions[2] for t in s.play.tricks[3:5]] == ["mie", "mie"]
    assert zhu(s) == [5, -3, -3, 1, 0]
    assert not any("not priced" in n for n in s.notes)
    no_event = DUO_ZHANG_FILE.split("events:")[0]
    with pytest.raises(InputError, match=r"duo.yaml:14: play\[4\]\.lead: .*trick 5 must be led by west"):
        parse_deals(load_text(no_event, "duo.yaml"))
    app = settle_deal(find_ruleset("app"), deal)
    assert app.play.trick_counts == (6, 0, 0, 2)         # the table followed the rule
    assert any("duo_zhang" in n and "not priced" in n for n in app.notes)
