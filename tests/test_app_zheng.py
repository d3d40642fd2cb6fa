"""The app's 斗上正色樣 (rulesets/app/zheng_se_yang.yaml; digest §3.8 B, §6.2).

Four 上桌 cards, one from each suit; +1/+2/+3/+4 for each further 上桌 賞/肩/極/百老
(APP-U GameEngine.CheckSeyang4); below 8 上桌 only the best pattern is paid.  Values are
per payer (公賀: each of the other three pays the holder).
"""

from __future__ import annotations

import pytest
from helpers import E, N, S, W, zhu

from mahdiao_rules.cards import (
    CARD_HANZI,
    CI_SHANG,
    FU_JI,
    HONG_ZHANG,
    JI,
    JIN_ZHANG,
    SUIT_MASKS,
    ZHENG_SHANG,
    beats,
    cards_of,
    parse_card,
)
from mahdiao_rules.deal import SEATS, Deal
from mahdiao_rules.history.construct import construct_deal
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.ruleset import find_ruleset
from mahdiao_rules.settle.hand import PLAYED, Settlement

GROUP = frozenset(i.id for i in find_ruleset("app").items.values() if i.group == "zheng_se_yang")
BAI_LAO = 1 << int(parse_card("百老"))


def app(deal: Deal, **options: str) -> Settlement:
    return settle_deal(find_ruleset("app", options or None), deal)


def fired(s: Settlement, seat=E) -> set[str]:
    return {f.item.id for f in s.firings if f.seat == seat}


def patterns(s: Settlement, seat=E) -> set[str]:
    return fired(s, seat) & GROUP


def paid(value: float, seat=E) -> list[float]:
    """公賀 nets when *seat* is paid *value* by each of the other three."""
    return [3 * value if p == seat else -value for p in SEATS]


def app_playable(deal: Deal) -> bool:
    """No hand holds an app 免斗色樣 (digest §3.8 A), so every test deal is played."""
    masks = [deal.hand_mask(p) for p in SEATS]
    for p, m in enumerate(masks):
        others = [q for i, q in enumerate(masks) if i != p]
        if (m & HONG_ZHANG).bit_count() > 5:                      # 六紅 … 八紅, 順風旗, 拗鴛鴦
            return False
        if max((m & suit).bit_count() for suit in SUIT_MASKS) > 6:  # 七同, 八同, 七連/八連
            return False
        four = [m & s == s for s in (ZHENG_SHANG, CI_SHANG, JI, FU_JI)]
        if four[2] and (four[0] or four[1] or four[3]):           # 天地交泰, 人傑地靈, 雞犬升天
            return False
        if m & BAI_LAO and (four[0] or four[1] or (four[2] and not m & ZHENG_SHANG)):
            return False                                          # 麒麟種, 鳳凰雛, 雪中炭
        if m & ~JIN_ZHANG == 0:                                   # 片片錦, 錦鴛鴦
            return False
        cards = list(cards_of(m))
        if all(not any(beats(o, c) for q in others for o in cards_of(q)) for c in cards):
            return False                                          # 八大
        if all(not any(beats(c, o) for q in others for o in cards_of(q)) for c in cards):
            return False                                          # 八小
    return True


# Tricks the other seats win with plain (青) cards, after E's.
FILLERS = [(S, "七索"), (W, "七文"), (N, "七萬"), (S, "六索"), (W, "六文"), (N, "四萬"),
           (S, "五索"), (W, "五文")]


def e_deal(cards: list[str], *, held: list[str] = (), seed: int = 0) -> Deal:
    """E wins the first tricks with *cards* (in that order); the others win the rest."""
    wins = [(E, c) for c in cards] + FILLERS[: 8 - len(cards)]
    return construct_deal(wins, banker=N, stock=["三文"], held={E: list(held)} if held else None,
                          seed=seed, accept=app_playable)


# ---------------------------------------------------------------- every pattern fires

FIRING = [
    ("huang_hui_tu", ["萬萬", "九萬", "九索", "空文"], 8),
    ("qian_jun_zhu", ["千萬", "八萬", "八索", "半文"], 16),
    ("hua_du_dou", ["百老", "九萬", "九索", "空文"], 12),
    ("hua_bi_jian", ["百老", "八萬", "八索", "半文"], 20),
    ("qiao_si_shang", ["萬萬", "九索", "空文", "一萬"], 12),
    ("qiao_si_shang_mei", ["二十", "九萬", "九索", "空文"], 17),
    ("qiao_si_jian", ["千萬", "八萬", "半文", "一索"], 20),
    ("qiao_si_jian_mei", ["二十", "八萬", "八索", "半文"], 25),
    ("tian_di_fen", ["一萬", "一索", "萬萬", "空文"], 24),
    ("tian_di_fen_mei", ["二十", "一萬", "九索", "空文"], 29),
    ("jian_tian_di_fen", ["一萬", "九文", "千萬", "八索"], 32),
    ("jian_tian_di_fen_mei", ["二十", "一索", "八萬", "半文"], 37),
    ("xiao_tian_di_fen", ["一萬", "一索", "萬萬", "半文"], 28),
    ("xiao_tian_di_fen_mei", ["二十", "九文", "八萬", "九索"], 33),
    ("bai_duan_jian", ["百老", "八萬", "九索", "空文"], 14),
    ("bai_chang_jian", ["百老", "八萬", "八索", "空文"], 16),
    ("ji_chang_jian", ["一萬", "千萬", "八索", "空文"], 16),
    ("ji_chang_jian_mei", ["二十", "八萬", "八索", "空文"], 21),
    ("ji_duan_jian", ["一索", "千萬", "九萬", "空文"], 14),
    ("ji_duan_jian_mei", ["二十", "八萬", "九索", "空文"], 19),
    ("duan_jian", ["千萬", "九萬", "九索", "空文"], 10),
    ("chang_jian", ["萬萬", "八萬", "八索", "半文"], 12),
    ("dui_jian", ["萬萬", "九萬", "八索", "半文"], 10),
    ("bai_ji_si_jian", ["百老", "一萬", "八索", "半文"], 24),
    ("bai_ji_si_shang", ["百老", "九文", "九萬", "九索"], 16),
    ("bai_jian_si_ji", ["百老", "一萬", "一索", "半文"], 48),
    ("bai_shang_bai_ji", ["百老", "一萬", "一索", "空文"], 32),
    ("jie_jie_gao", ["百老", "一萬", "八索", "空文"], 16),
    ("bai_ji_yu_bei", ["百老", "一萬", "一索", "九文"], 100),
    ("jian_ji_yu_bei", ["千萬", "一萬", "一索", "九文"], 80),
    ("jian_ji_yu_bei_mei", ["二十", "一萬", "一索", "半文"], 85),
    ("shang_ji_yu_bei", ["萬萬", "一萬", "一索", "九文"], 60),
    ("shang_ji_yu_bei_mei", ["二十", "一萬", "一索", "空文"], 65),
]


@pytest.mark.parametrize(("item", "cards", "value"), FIRING, ids=[r[0] for r in FIRING])
def test_pattern_fires_with_its_value(item, cards, value):
    s = app(e_deal(cards))
    assert s.status == PLAYED and s.play.trick_counts[E] == 4
    assert patterns(s) == {item}
    assert zhu(s, item=item)[:4] == paid(value)


# ---------------------------------------------------------------- near misses

NEAR = [
    # (item, cards won by E, cards E holds but does not win with)
    ("huang_hui_tu", ["萬萬", "九萬", "九索"], ["空文"]),
    ("qian_jun_zhu", ["千萬", "八萬", "八索"], ["半文"]),
    ("hua_du_dou", ["百老", "萬萬", "九萬", "九索"], []),          # 百老 and 萬萬 both 十
    ("hua_bi_jian", ["百老", "千萬", "八萬", "八索"], []),
    ("qiao_si_shang", ["一萬", "九萬", "九索", "空文"], []),        # two 萬
    ("qiao_si_shang_mei", ["二十", "萬萬", "九索", "空文"], []),    # two 十
    ("qiao_si_jian", ["一索", "八索", "八萬", "半文"], []),
    ("qiao_si_jian_mei", ["二十", "千萬", "八索", "半文"], []),
    ("tian_di_fen", ["一萬", "一索", "九萬", "九索"], []),
    ("tian_di_fen_mei", ["二十", "一萬", "萬萬", "九索"], []),
    ("jian_tian_di_fen", ["一萬", "一索", "八萬", "八索"], []),
    ("jian_tian_di_fen_mei", ["二十", "一萬", "千萬", "八索"], []),
    ("xiao_tian_di_fen", ["一萬", "一索", "八萬", "九索"], []),
    ("xiao_tian_di_fen_mei", ["二十", "一萬", "千萬", "九索"], []),
    ("bai_duan_jian", ["百老", "八萬", "九索", "萬萬"], []),
    ("bai_chang_jian", ["百老", "千萬", "八索", "空文"], []),
    ("ji_chang_jian", ["一萬", "八萬", "八索", "空文"], []),
    ("ji_chang_jian_mei", ["二十", "千萬", "八索", "空文"], []),
    ("ji_duan_jian", ["一萬", "九萬", "八索", "空文"], []),
    ("ji_duan_jian_mei", ["二十", "萬萬", "八索", "空文"], []),
    ("duan_jian", ["八萬", "九萬", "九索", "空文"], []),
    ("chang_jian", ["八萬", "九萬", "八索", "半文"], []),
    ("dui_jian", ["八萬", "九萬", "八索", "九索"], []),
    ("bai_ji_si_jian", ["百老", "一萬", "八萬", "八索"], []),
    ("bai_ji_si_shang", ["百老", "一萬", "九萬", "九索"], []),
    ("bai_jian_si_ji", ["百老", "一萬", "八萬", "一索"], []),
    ("bai_shang_bai_ji", ["百老", "一萬", "九萬", "一索"], []),
    ("jie_jie_gao", ["百老", "一萬", "九萬", "八索"], []),
    ("bai_ji_yu_bei", ["百老", "一萬", "一索", "二十"], []),
    ("jian_ji_yu_bei", ["一萬", "一索", "九文", "八萬"], []),
    ("jian_ji_yu_bei_mei", ["二十", "一萬", "一索", "千萬"], []),
    ("shang_ji_yu_bei", ["一萬", "一索", "九文", "九萬"], []),
    ("shang_ji_yu_bei_mei", ["二十", "一萬", "一索", "萬萬"], []),
]


@pytest.mark.parametrize(("item", "cards", "held"), NEAR, ids=[r[0] for r in NEAR])
def test_near_miss_fires_no_pattern(item, cards, held):
    s = app(e_deal(cards, held=held))
    assert s.status == PLAYED
    assert not patterns(s)
    assert zhu(s, item=item)[:4] == [0, 0, 0, 0]


def test_every_pattern_has_a_firing_deal_and_a_near_miss():
    assert {r[0] for r in FIRING} == GROUP == {r[0] for r in NEAR}
    assert len(GROUP) == 33                     # 24 patterns + 9 二十 (+5) twins


# ---------------------------------------------------------------- +1/+2/+3/+4 per further card

BONUS = [
    # (cards won by E, cards held not won, pattern kept, value: table value + bonus)
    (["千萬", "八萬", "八索", "半文", "萬萬"], [], "qian_jun_zhu", 16 + 1),      # further 賞
    (["一萬", "萬萬", "九索", "空文", "八萬"], [], "qiao_si_shang", 12 + 2),     # further 肩
    (["萬萬", "一萬", "一索", "九文", "二十"], [], "shang_ji_yu_bei", 60 + 3),   # further 極
    (["二十", "一萬", "九索", "空文", "百老"], [], "tian_di_fen_mei", 29 + 4),   # further 百老
    # (九萬 in hand: 百老 with the four 極 and no 賞 would be the 免斗 雪中炭)
    (["百老", "一萬", "一索", "九文", "二十", "千萬"], ["九萬"], "bai_ji_yu_bei", 100 + 3 + 2),
]


@pytest.mark.parametrize(("cards", "held", "item", "value"), BONUS, ids=[r[2] for r in BONUS])
def test_further_cards_add_to_the_pattern(cards, held, item, value):
    s = app(e_deal(cards, held=held))
    assert item in patterns(s)
    assert zhu(s, item=item)[:4] == paid(value)


@pytest.mark.parametrize(("cards", "held", "item", "value"), BONUS, ids=[r[2] for r in BONUS])
def test_table_option_drops_the_bonus(cards, held, item, value):
    s = app(e_deal(cards, held=held), zheng_se_yang_jia="table")
    table = next(v for i, _, v in FIRING if i == item)
    assert zhu(s, item=item)[:4] == paid(table)


def test_non_honour_cards_add_nothing():
    s = app(e_deal(["萬萬", "九萬", "九索", "空文", "九十", "二索"]))   # 九十, a 副極: no bonus
    assert zhu(s, item="huang_hui_tu")[:4] == paid(8)


# ---------------------------------------------------------------- the group: best below 8 上桌

ZHU_AND_CHANG = ["千萬", "八萬", "八索", "半文", "萬萬"]   # 千鈞柱 and 長肩 (萬萬 八萬 八索 半文)
E_EXTRA = ["七萬", "六索", "五文"]


@pytest.mark.parametrize("tricks", [5, 7])
def test_below_eight_only_the_best_pattern_is_paid(tricks):
    s = app(e_deal((ZHU_AND_CHANG + E_EXTRA)[:tricks]))
    assert s.play.trick_counts[E] == tricks
    assert patterns(s) == {"qian_jun_zhu"}                 # 17 beats 長肩 12 + 千萬 2 = 14
    assert zhu(s, item="qian_jun_zhu")[:4] == paid(17)
    assert zhu(s, item="chang_jian")[:4] == [0, 0, 0, 0]


def test_eight_tricks_pay_every_pattern():
    s = app(e_deal(ZHU_AND_CHANG + E_EXTRA))
    assert s.play.trick_counts[E] == 8
    assert patterns(s) == {"qian_jun_zhu", "chang_jian"}
    assert zhu(s, item="qian_jun_zhu")[:4] == paid(16 + 1)
    # 長肩's bonus counts 千萬 (+2).  APP-U's CheckSeyang4 would pay it 12: its won list is
    # shared across patterns, so 千鈞柱's cards are already gone (see the group's note).
    assert zhu(s, item="chang_jian")[:4] == paid(12 + 2)


def test_er_shi_twin_counts_instead_of_the_plain_pattern():
    # 天地分 twice over: 一萬 一索 萬萬 空文 (24) and 二十 一萬 九索 空文 (29); at 8 上桌 both
    # readings would be kept, but a pattern counts once — as its +5 twin.
    s = app(e_deal(["二十", "一萬", "一索", "萬萬", "九索", "空文", "七萬", "六索"]))
    assert s.play.trick_counts[E] == 8
    assert "tian_di_fen_mei" in patterns(s) and "tian_di_fen" not in patterns(s)
    assert zhu(s, item="tian_di_fen_mei")[:4] == paid(29 - 8 + 12)   # further: 一索 萬萬


def test_only_the_holder_of_the_pattern_is_paid():
    s = app(e_deal(["萬萬", "九萬", "九索", "空文"]))
    assert all(not patterns(s, seat) for seat in (S, W, N))
    assert sum(zhu(s, items=sorted(GROUP))) == 0


# ---------------------------------------------------------------- 趣 and the 正色樣 (kai_zhu.yaml)

def test_qu_not_paid_with_a_zheng_se_yang():
    s = app(e_deal(["萬萬", "一萬", "一索", "九文", "二十"]))          # 賞鯽魚背 + 二十
    assert "shang_ji_yu_bei" in patterns(s)
    assert zhu(s, item="qu") == [0, 0, 0, 0, 0]


def test_qu_code_reading_withholds_it_only_for_exactly_four_cards():
    five = app(e_deal(["萬萬", "一萬", "一索", "九文", "二十"]), qu_zheng_se_yang="exact")
    assert zhu(five, item="qu")[:4] == [3, 0, 0, -3]                   # N, the 莊, pays E
    four = app(e_deal(["萬萬", "一萬", "一索", "九文"]), qu_zheng_se_yang="exact")
    assert zhu(four, item="qu") == [0, 0, 0, 0, 0]
    # The lookup ignores suits: 二十 萬萬 一萬 九萬 is no 正色樣 (two 十, two 萬) yet
    # matches a 天地分 key, so the code withholds 趣 too.
    odd = e_deal(["二十", "萬萬", "一萬", "九萬"])
    assert not patterns(app(odd))
    assert zhu(app(odd), item="qu")[:4] == [1, 0, 0, -1]
    assert zhu(app(odd, qu_zheng_se_yang="exact"), item="qu") == [0, 0, 0, 0, 0]


def test_qu_still_paid_without_a_pattern():
    s = app(e_deal(["一萬", "一索", "三萬", "三索"]))
    assert not patterns(s)
    assert zhu(s, item="qu")[:4] == [2, 0, 0, -2]


# ---------------------------------------------------------------- 鏡花緣 ch. 73 (digest §6.2)

def jing_hua_yuan_deal() -> Deal:
    """The 鯽魚背 deal of 鏡花緣 ch. 73 on the app's fixed seats.

    四八家 = N, 樁家 (三七家) = W, 么五九家 = E, 二六家 = S.  The text gives the 樁 三萬,
    which it also gives to 四八家 (digest §6.2 CONFLICT): the 樁 has 二萬 here.  The
    trick order is not narrated; this one (seed 10) follows the text where it speaks:
    二六家 leads a 十 keeping 空文 back ("關賞斗十"), the 樁 keeps 紅萬 and plays 九十 ("樁家
    立紅，九十加捉"), 四八家 takes the trick with 百子 ("以百子打樁"), then leads 九餅, 一萬,
    一索, and later 三萬 ("或發三萬").
    """
    wins = [(N, "百子"), (N, "九餅"), (N, "一萬"), (N, "一索"),
            (E, "九萬"), (E, "九索"), (W, "紅萬"), (S, "空堂")]
    held = {N: ["三萬", "三索", "七萬", "七索"], W: ["九十", "二萬", "六索"], E: ["五萬", "五索"]}
    stock = ["二索", "千萬", "八萬", "八索", "半文", "四萬", "六萬", "四索"]   # 二索當面、四肩在底
    # The rest are 一文…八文 and 八十…二十: 樁 "餘皆…餅子" gets four 文, 么五九家 "餘皆十字"
    # four 十, and 二六家 "四張餅子、三張十字" the other seven.
    wen = ["一文", "二文", "三文", "四文", "五文", "六文", "七文", "八文"]
    shi = ["八十", "七十", "六十", "五十", "四十", "三十", "二十"]
    return construct_deal(wins, banker=W, first_leader=S, stock=stock, held=held,
                          avoid_held={E: wen, W: shi}, seed=10, deal_id="jing_hua_yuan_73")


def test_jing_hua_yuan_ji_yu_bei_is_bai_ji_yu_bei():
    deal = jing_hua_yuan_deal()
    first = deal.play[0]
    assert first.lead == S and [CARD_HANZI[c] for c in first.cards[1:3]] == ["九十", "百萬"]
    assert deal.play[4].cards[0] == parse_card("三萬")
    s = app(deal)
    assert s.status == PLAYED and s.play.trick_counts == (2, 1, 1, 4)
    assert patterns(s, N) == {"bai_ji_yu_bei"}
    assert zhu(s, item="bai_ji_yu_bei")[:4] == [-100, -100, -100, 300]
    assert zhu(s, item="qu") == [0, 0, 0, 0, 0]            # no 趣 with a 正色樣
