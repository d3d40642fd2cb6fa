"""The app's 免斗色樣 (rulesets/app/mian_dou_se_yang.yaml; digest §3.7, §3.8 A, §5.2).

Deal-phase 色樣 are checked on hand-made deals: east holds the pattern, the other 32 cards
are shuffled (fixed seed) until no other seat holds a 免斗色樣.  Play-phase items use
``construct_deal`` with a recorded play.  Amounts are 注 per payer (all 公賀).
"""

from __future__ import annotations

import hashlib
import random
from functools import cache

import pytest
from helpers import E, N, S, W, zhu

from mahdiao_rules.cards import Card, parse_card
from mahdiao_rules.deal import Deal
from mahdiao_rules.history.construct import construct_deal
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.ruleset import find_ruleset
from mahdiao_rules.settle.hand import MIAN_DOU, PLAYED, Settlement

MIAN_DOU_IDS = [
    "tian_di_jiao_tai", "tian_ren_he_yi", "ji_quan_sheng_tian", "ren_jie_di_ling",
    "qi_hong_zui_yang_fei", "ao_yuan_yang", "ba_lian_tong_hua_shun", "qi_lian_tong_hua_shun",
    "ba_da", "ba_xiao", "ba_yao", "jin_yuan_yang", "pian_pian_jin", "qi_lin_zhong",
    "feng_huang_chu", "xue_zhong_tan", "ba_hong_shun_feng_qi", "qi_hong_shun_feng_qi",
    "liu_hong_shun_feng_qi", "ba_hong", "qi_hong", "liu_hong", "ba_tong", "qi_tong",
]
TABLE_IDS = [i + "_shang_zhuo" for i in MIAN_DOU_IDS if i not in ("ba_da", "ba_xiao")]
FACE = "四十"          # a face card that causes no 升代


def app(**options: str):
    return find_ruleset("app", options or None)


def cards(names: str) -> list[Card]:
    return [Card(int(parse_card(n))) for n in names.split()]


def paid(amount: float) -> list[float]:
    """The nets of a 公賀 of *amount* to east from each other player."""
    return [3 * amount, -amount, -amount, -amount, 0]


def deal_fired(s: Settlement, seat=E) -> set[str]:
    """The 免斗色樣 paid to *seat*."""
    return {f.item.id for f in s.firings if f.seat == seat and f.item.group == "mian_dou_se_yang"}


@cache
def mian_dou_deal(east: str, stock: str = FACE, dealt: str = "") -> Deal:
    """East holds *east*, the stock starts with *stock*, the cards *dealt* are in other hands;
    the rest is dealt so that no other seat has a 免斗色樣."""
    hand, fixed, elsewhere = cards(east), cards(stock), cards(dealt)
    rest = [Card(c) for c in range(40) if Card(c) not in hand + fixed]
    rng = random.Random(0)
    rs = app()
    for _ in range(500):
        rng.shuffle(rest)
        deal = Deal(id="t", banker=N,
                    hands=(tuple(hand), tuple(rest[0:8]), tuple(rest[8:16]), tuple(rest[16:24])),
                    stock=tuple(fixed + rest[24:32 - len(fixed)]))
        if set(elsewhere) & set(deal.stock):
            continue
        if not any(deal_fired(settle_deal(rs, deal), seat) for seat in (S, W, N)):
            return deal
    raise AssertionError("no clean deal")


def without(tmp_path, removed: list[str], **options: str):
    """The app ruleset with some items removed (to see what the best one hides)."""
    text = f"id: app_without\nname: 試\nextends: app\nremove: [{', '.join(removed)}]\n"
    path = tmp_path / f"app_without_{hashlib.sha1(text.encode()).hexdigest()[:12]}.yaml"
    path.write_text(text, encoding="utf-8")
    return find_ruleset(str(path), options or None)


# ---------------------------------------------------------------- 免斗色樣 on the dealt hand

FIRING = [
    ("tian_di_jiao_tai", "萬萬 九萬 九索 空文 二十 一萬 一索 九文", FACE, 60),
    ("tian_ren_he_yi", "萬萬 九萬 九索 空文 千萬 八萬 八索 半文", FACE, 60),
    ("ji_quan_sheng_tian", "二十 一萬 一索 九文 三十 二萬 二索 八文", FACE, 60),
    ("ren_jie_di_ling", "千萬 八萬 八索 半文 二十 一萬 一索 九文", FACE, 50),
    ("qi_hong_zui_yang_fei", "萬萬 千萬 百老 九萬 八萬 九索 空文 二十", FACE, 50),
    ("ao_yuan_yang", "萬萬 百老 九萬 八萬 九索 八索 空文 半文", FACE, 40),
    ("ao_yuan_yang", "千萬 百老 九萬 八萬 九索 八索 空文 半文", FACE, 40),
    ("ba_lian_tong_hua_shun", "九索 八索 七索 六索 五索 四索 三索 二索", FACE, 20),
    ("qi_lian_tong_hua_shun", "九索 八索 七索 六索 五索 四索 三索 一索", FACE, 10),
    ("ba_da", "萬萬 千萬 九十 八萬 七萬 八索 七索 半文", f"{FACE} 九萬 九索 空文 百老", 8),
    ("ba_xiao", "三十 一萬 二萬 三萬 一索 九文 八文 七文", f"{FACE} 二十", 8),
    ("ba_yao", "萬萬 千萬 百老 一萬 一索 空文 半文 一文", FACE, 20),
    ("jin_yuan_yang", "萬萬 二十 九萬 一萬 九索 八索 空文 九文", FACE, 40),
    ("pian_pian_jin", "萬萬 千萬 百老 二十 九萬 一萬 九索 空文", FACE, 30),
    ("qi_lin_zhong", "萬萬 九萬 九索 空文 百老 五萬 五索 五文", FACE, 16),
    ("feng_huang_chu", "千萬 八萬 八索 半文 百老 五萬 五索 五文", FACE, 12),
    ("xue_zhong_tan", "百老 二十 一萬 一索 九文 五萬 五索 五文", FACE, 8),
    ("qi_hong_shun_feng_qi", "萬萬 千萬 百老 九萬 八萬 九索 八索 五文", FACE, 7),
    ("liu_hong_shun_feng_qi", "萬萬 千萬 百老 九萬 八萬 九索 五文 四文", FACE, 6),
    ("qi_hong", "萬萬 千萬 九萬 八萬 九索 八索 空文 五文", FACE, 7),
    ("liu_hong", "萬萬 千萬 九萬 八萬 九索 空文 五文 四文", FACE, 6),
    ("liu_hong", "萬萬 千萬 九萬 八萬 九索 八索 五文 四文", FACE, 6),   # 紅 in three suits
    ("ba_tong", "九索 八索 七索 六索 四索 三索 二索 一索", FACE, 8),
    ("qi_tong", "九索 八索 七索 六索 四索 三索 二索 五萬", FACE, 7),
]


@pytest.mark.parametrize(("item", "hand", "stock", "value"), FIRING)
def test_mian_dou_fires_and_ends_the_hand(item, hand, stock, value):
    s = settle_deal(app(), mian_dou_deal(hand, stock))
    assert s.status == MIAN_DOU and s.play is None
    assert zhu(s, item=item) == paid(value)
    assert deal_fired(s) == {item}                    # one 免斗色樣 per hand
    assert zhu(s, items=MIAN_DOU_IDS) == paid(value)


NEAR_MISS = [
    # (item that must not fire, hand, stock, the 免斗色樣 paid instead or None = played)
    ("tian_di_jiao_tai", "千萬 九萬 九索 空文 二十 一萬 一索 九文", FACE, "jin_yuan_yang"),
    ("tian_ren_he_yi", "萬萬 千萬 百老 九萬 八萬 九索 八索 空文", FACE, "pian_pian_jin"),
    ("ji_quan_sheng_tian", "二十 一萬 一索 九文 三十 二萬 二索 七文", FACE, None),
    ("ren_jie_di_ling", "萬萬 八萬 八索 半文 二十 一萬 一索 九文", FACE, "jin_yuan_yang"),
    ("qi_hong_zui_yang_fei", "萬萬 千萬 百老 九萬 八萬 九索 空文 三十", FACE, "qi_hong_shun_feng_qi"),
    ("ao_yuan_yang", "萬萬 千萬 九萬 八萬 九索 八索 空文 百老", FACE, "pian_pian_jin"),
    ("ba_lian_tong_hua_shun", "九索 八索 七索 六索 五索 四索 三索 一索", FACE, "qi_lian_tong_hua_shun"),
    ("qi_lian_tong_hua_shun", "九索 八索 七索 六索 五索 四索 二索 一索", FACE, "ba_tong"),
    ("ba_da", "萬萬 千萬 九十 八萬 七萬 八索 六索 半文", f"{FACE} 九萬 九索 空文 百老 | 七索", None),
    ("ba_xiao", "三十 一萬 二萬 三萬 一索 九文 八文 六文", f"{FACE} 二十 | 七文", None),
    ("ba_yao", "萬萬 千萬 百老 一萬 一索 空文 半文 二文", FACE, None),
    ("jin_yuan_yang", "萬萬 千萬 二十 九萬 一萬 九索 空文 九文", FACE, "pian_pian_jin"),
    ("pian_pian_jin", "萬萬 千萬 百老 二十 九萬 二萬 九索 空文", FACE, "liu_hong_shun_feng_qi"),
    ("qi_lin_zhong", "萬萬 九萬 九索 空文 百老 八萬 五索 五文", FACE, "liu_hong"),
    ("feng_huang_chu", "千萬 八萬 八索 半文 百老 空文 五索 五文", FACE, "liu_hong"),
    ("xue_zhong_tan", "百老 二十 一萬 一索 九文 九萬 五索 五文", FACE, None),
    ("ba_hong_shun_feng_qi", "萬萬 千萬 百老 九萬 八萬 九索 八索 空文", FACE, "pian_pian_jin"),
    ("qi_hong_shun_feng_qi", "萬萬 千萬 九十 九萬 八萬 九索 八索 空文", FACE, "qi_hong"),
    ("liu_hong_shun_feng_qi", "萬萬 千萬 九十 九萬 八萬 九索 空文 四文", FACE, "liu_hong"),
    ("ba_hong", "千萬 百老 九萬 八萬 九索 八索 空文 半文", FACE, "ao_yuan_yang"),
    ("qi_hong", "萬萬 千萬 九萬 八萬 九索 空文 五文 四文", FACE, "liu_hong"),
    ("liu_hong", "萬萬 千萬 九萬 八萬 九索 五文 四文 三文", FACE, None),
    ("ba_tong", "九索 八索 七索 六索 四索 三索 二索 五萬", FACE, "qi_tong"),
    ("qi_tong", "九索 八索 七索 六索 四索 三索 五萬 五文", FACE, None),
]


@pytest.mark.parametrize(("item", "hand", "stock", "instead"), NEAR_MISS)
def test_mian_dou_near_miss(item, hand, stock, instead):
    stock, _, dealt = stock.partition(" | ")                # dealt: cards another seat holds
    s = settle_deal(app(), mian_dou_deal(hand, stock, dealt))
    assert zhu(s, item=item) == [0, 0, 0, 0, 0]
    if instead is None:
        assert s.status == PLAYED and not deal_fired(s)
    else:
        assert s.status == MIAN_DOU and deal_fired(s) == {instead}


def test_every_mian_dou_item_is_tested():
    declared = {i.id for i in app().items.values() if i.group == "mian_dou_se_yang"}
    assert declared == set(MIAN_DOU_IDS)
    fired = {row[0] for row in FIRING} | {"ba_hong", "ba_hong_shun_feng_qi"}   # see below
    assert fired == set(MIAN_DOU_IDS)
    assert {row[0] for row in NEAR_MISS} == set(MIAN_DOU_IDS)


def test_only_the_best_mian_dou_is_paid(tmp_path):
    # 天人合一 is also 錦鴛鴦, 片片錦, 八紅, 七紅 and 六紅: only the 60 is paid (SeYangNoPlay
    # is one if … else if … chain).  Removing the best in turn shows the next one.
    hand = mian_dou_deal("萬萬 九萬 九索 空文 千萬 八萬 八索 半文")
    assert deal_fired(settle_deal(app(), hand)) == {"tian_ren_he_yi"}
    removed: list[str] = []
    for best, value in [("tian_ren_he_yi", 60), ("jin_yuan_yang", 40), ("pian_pian_jin", 30),
                        ("ba_da", 8), ("ba_hong", 8)]:      # a tie goes to the first listed
        s = settle_deal(without(tmp_path, removed), hand)
        assert deal_fired(s) == {best} and zhu(s, items=MIAN_DOU_IDS) == paid(value)
        removed.append(best)


@pytest.mark.parametrize(("hand", "item"), [
    ("萬萬 千萬 百老 八萬 九索 八索 空文 半文", "ba_hong_shun_feng_qi"),   # tie 8 = 八紅: 順風旗
    ("千萬 百老 九萬 八萬 九索 八索 空文 半文", "ba_hong"),
])
def test_eight_hong_is_always_outranked_but_fires_alone(tmp_path, hand, item):
    # Eight 紅 are eight 錦張 (片片錦 30), and two per suit (錦鴛鴦 40) unless 紅萬, 千僧
    # and 百老 are all there: the app never pays 八紅 or 八紅順風旗.
    deal = mian_dou_deal(hand)
    assert zhu(settle_deal(app(), deal), item=item) == [0, 0, 0, 0, 0]
    removed = ["tian_ren_he_yi", "ao_yuan_yang", "jin_yuan_yang", "pian_pian_jin"]
    s = settle_deal(without(tmp_path, removed), deal)
    assert s.status == MIAN_DOU
    assert deal_fired(s) == {item} and zhu(s, item=item) == paid(8)


def test_mian_dou_is_gong_he_and_follows_he_exemption():
    # 公賀: each other player pays, the 百老 holder (south) too unless he_exemption says not.
    hands = ["萬萬 九萬 九索 空文 二十 一萬 一索 九文", "百萬 九十 八十 七萬 六萬 七索 六索 一文",
             "千萬 七十 六十 五萬 四萬 五索 四索 二文", "五十 四十 三萬 二萬 三索 二索 三文 四文"]
    deal = Deal(id="t", banker=N, hands=tuple(tuple(cards(h)) for h in hands),
                stock=tuple(cards("三十 八萬 八索 半文 五文 六文 七文 八文")))
    s = settle_deal(app(), deal)
    assert s.status == MIAN_DOU and not any(deal_fired(s, seat) for seat in (S, W, N))
    assert zhu(s, item="tian_di_jiao_tai") == [180, -60, -60, -60, 0]
    s = settle_deal(app(he_exemption="bai_lao"), deal)
    assert zhu(s, item="tian_di_jiao_tai") == [120, 0, -60, -60, 0]


# ---------------------------------------------------------------- option mian_dou_detection

@pytest.mark.parametrize(("hand", "stock", "catalogue", "code"), [
    ("萬萬 千萬 九萬 八萬 九索 八索 空文 五文", FACE, ("qi_hong", 7), ("liu_hong", 6)),
    ("萬萬 千萬 百老 九萬 八萬 九索 八索 五文", FACE, ("qi_hong_shun_feng_qi", 7), None),  # no 文 紅
    ("萬萬 千萬 九萬 八萬 九索 八索 五文 四文", FACE, ("liu_hong", 6), None),
    ("萬萬 九萬 九索 空文 百老 八萬 五索 五文", FACE, ("liu_hong", 6), None),   # 麒麟種 branch
    ("萬萬 二十 九萬 一萬 九索 八索 空文 九文", FACE, ("jin_yuan_yang", 40), ("pian_pian_jin", 30)),
    ("九索 八索 七索 六索 五索 四索 三索 二索", FACE, ("ba_lian_tong_hua_shun", 20), ("ba_tong", 8)),
    # The code's 七同/八同 keys write A/Q/K for the values 1, 10, 11; the hand has digits.
    ("九索 八索 七索 六索 五索 四索 三索 一索", FACE, ("qi_lian_tong_hua_shun", 10), ("qi_tong", 7)),
    ("九萬 八萬 七萬 六萬 五萬 四萬 三萬 一萬", FACE, ("qi_lian_tong_hua_shun", 10), ("qi_tong", 7)),
    ("九文 八文 七文 六文 五文 四文 三文 五萬", FACE, ("qi_lian_tong_hua_shun", 10), None),
    ("萬萬 千萬 百老 一萬 一索 空文 半文 一文", FACE, ("ba_yao", 20), None),
    ("萬萬 百老 九萬 八萬 九索 八索 空文 半文", FACE, ("ao_yuan_yang", 40), ("pian_pian_jin", 30)),
    ("萬萬 千萬 百老 九萬 八萬 九索 空文 二十", FACE, ("qi_hong_zui_yang_fei", 50), ("pian_pian_jin", 30)),
    ("萬萬 千萬 九十 八萬 七萬 八索 七索 半文", f"{FACE} 九萬 九索 空文 百老", ("ba_da", 8), None),
    ("三十 一萬 二萬 三萬 一索 九文 八文 七文", f"{FACE} 二十", ("ba_xiao", 8), None),
    ("萬萬 九萬 九索 空文 二十 一萬 一索 九文", FACE, ("tian_di_jiao_tai", 60), ("tian_di_jiao_tai", 60)),
])
def test_mian_dou_detection_option(hand, stock, catalogue, code):
    deal = mian_dou_deal(hand, stock)
    s = settle_deal(app(), deal)
    assert deal_fired(s) == {catalogue[0]} and zhu(s, items=MIAN_DOU_IDS) == paid(catalogue[1])
    s = settle_deal(app(mian_dou_detection="code"), deal)
    if code is None:
        assert s.status == PLAYED and not deal_fired(s)
    else:
        assert s.status == MIAN_DOU
        assert deal_fired(s) == {code[0]} and zhu(s, items=MIAN_DOU_IDS) == paid(code[1])


# ---------------------------------------------------------------- 免斗色樣 formed on the table

def table(wins, *, held=None, ruleset=None, avoid_held=None):
    """A deal east plays out as *wins* says, accepted only if nobody's hand is 免斗."""
    rs = ruleset or app()
    return construct_deal(wins, banker=N, stock=[FACE], held=held, avoid_held=avoid_held,
                          accept=lambda d: settle_deal(rs, d).status == PLAYED)


def fill(east_wins: list[str]) -> list:
    """East wins the first tricks with *east_wins*; south, west, north win the rest."""
    rest = ["七萬", "七索", "七十", "六萬", "六索", "六十", "五文", "五萬"]
    return [(E, c) for c in east_wins] + [
        ((S, W, N)[i % 3], rest[i]) for i in range(8 - len(east_wins))]


XUE = ["百老", "二十", "一萬", "一索", "九文"]


@pytest.mark.parametrize(("option", "value"), [(None, 16), ("double", 16), ("single", 8)])
def test_xue_zhong_tan_on_the_table(option, value):
    # East holds 九萬 (a 賞), so his hand is no 雪中炭 at the deal; he wins 百老 and the four
    # 極 but not the 賞: five 上桌 cards make 雪中炭, paid double (GetSeyang).
    deal = table(fill(XUE), held={E: ["九萬"]})
    s = settle_deal(app(**({"mian_dou_after_play": option} if option else {})), deal)
    assert s.status == PLAYED
    assert zhu(s, item="xue_zhong_tan_shang_zhuo") == paid(value)
    assert "xue_zhong_tan" not in deal_fired(s)


def test_xue_zhong_tan_not_with_the_shang_won():
    deal = table(fill([*XUE, "九萬"]))
    s = settle_deal(app(), deal)
    assert s.status == PLAYED
    assert zhu(s, item="xue_zhong_tan_shang_zhuo") == [0, 0, 0, 0, 0]


def test_qi_lin_zhong_on_the_table_only_under_the_code_reading():
    # East holds 八萬 beside 百老 and the four 賞.  Catalogue: six 紅, 六紅 at the deal.  Code:
    # the chain enters the 麒麟種 branch, finds a 肩 and pays nothing, so the hand is played;
    # on the table the five cards without the 肩 are 麒麟種, paid double.
    code = app(mian_dou_detection="code")
    deal = table(fill(["萬萬", "九萬", "九索", "空文", "百老"]), held={E: ["八萬"]}, ruleset=code)
    s = settle_deal(code, deal)
    assert s.status == PLAYED
    assert zhu(s, item="qi_lin_zhong_shang_zhuo") == paid(32)
    s = settle_deal(app(), deal)
    assert s.status == MIAN_DOU and deal_fired(s) == {"liu_hong"}


@pytest.fixture(scope="module")
def table_only(tmp_path_factory):
    """The app without the deal-time check, so that any pattern can reach the table."""
    return without(tmp_path_factory.mktemp("rs"), MIAN_DOU_IDS)


TABLE_FIRING = [
    # (item, east's 上桌 cards in order, value ×2)
    ("tian_di_jiao_tai_shang_zhuo", "萬萬 九萬 九索 空文 二十 一萬 一索 九文", 120),
    ("tian_ren_he_yi_shang_zhuo", "萬萬 九萬 九索 空文 千萬 八萬 八索 半文", 120),
    ("ji_quan_sheng_tian_shang_zhuo", "二十 一萬 一索 九文 三十 二萬 二索 八文", 120),
    ("ren_jie_di_ling_shang_zhuo", "千萬 八萬 八索 半文 二十 一萬 一索 九文", 100),
    ("qi_hong_zui_yang_fei_shang_zhuo", "萬萬 千萬 百老 九萬 八萬 九索 空文 二十", 100),
    ("ao_yuan_yang_shang_zhuo", "萬萬 百老 九萬 八萬 九索 八索 空文 半文", 80),
    ("ba_lian_tong_hua_shun_shang_zhuo", "九索 八索 七索 六索 五索 四索 三索 二索", 40),
    ("qi_lian_tong_hua_shun_shang_zhuo", "九索 八索 七索 六索 五索 四索 三索", 20),
    ("ba_yao_shang_zhuo", "萬萬 千萬 百老 一萬 一索 空文 半文 一文", 40),
    ("jin_yuan_yang_shang_zhuo", "萬萬 二十 九萬 一萬 九索 八索 空文 九文", 80),
    ("pian_pian_jin_shang_zhuo", "萬萬 千萬 百老 二十 九萬 一萬 九索 空文", 60),
    ("qi_lin_zhong_shang_zhuo", "萬萬 九萬 九索 空文 百老", 32),
    ("feng_huang_chu_shang_zhuo", "千萬 八萬 八索 半文 百老", 24),
    ("xue_zhong_tan_shang_zhuo", "百老 二十 一萬 一索 九文", 16),
    ("qi_hong_shun_feng_qi_shang_zhuo", "萬萬 千萬 百老 九萬 八萬 九索 八索", 14),
    ("liu_hong_shun_feng_qi_shang_zhuo", "萬萬 千萬 百老 九萬 八萬 九索", 12),
    ("qi_hong_shang_zhuo", "萬萬 千萬 九萬 八萬 九索 八索 空文", 14),
    ("liu_hong_shang_zhuo", "萬萬 千萬 九萬 八萬 九索 空文", 12),
    ("ba_tong_shang_zhuo", "九索 八索 七索 六索 四索 三索 二索 一索", 16),
    ("qi_tong_shang_zhuo", "九索 八索 七索 六索 四索 三索 二索", 14),
]


@pytest.mark.parametrize(("item", "wins", "value"), TABLE_FIRING)
def test_mian_dou_on_the_table_is_paid_double(table_only, item, wins, value):
    deal = table(fill(wins.split()), ruleset=table_only)
    s = settle_deal(table_only, deal)
    got = {f.item.id for f in s.firings if f.item.group == "mian_dou_shang_zhuo"}
    assert got == {item}                             # one per player, the best
    assert zhu(s, item=item) == paid(value)


@pytest.mark.parametrize(("wins", "catalogue", "code"), [
    # 上桌 forms under the code reading: the same chain, the same letter keys and orders.
    ("萬萬 千萬 百老 九萬 八萬 九索 空文 二十", "qi_hong_zui_yang_fei_shang_zhuo",
     "pian_pian_jin_shang_zhuo"),
    ("萬萬 百老 九萬 八萬 九索 八索 空文 半文", "ao_yuan_yang_shang_zhuo", "pian_pian_jin_shang_zhuo"),
    ("萬萬 千萬 百老 一萬 一索 空文 半文 一文", "ba_yao_shang_zhuo", None),
    ("九萬 八萬 七萬 六萬 五萬 四萬 三萬 一萬", "qi_lian_tong_hua_shun_shang_zhuo", "qi_tong_shang_zhuo"),
])
def test_table_forms_under_the_code_reading(tmp_path, wins, catalogue, code):
    rs = {m: without(tmp_path, MIAN_DOU_IDS, **({} if m == "catalogue" else {"mian_dou_detection": m}))
          for m in ("catalogue", "code")}
    deal = table(fill(wins.split()), ruleset=rs["catalogue"])
    for mode, want in (("catalogue", catalogue), ("code", code)):
        got = {f.item.id for f in settle_deal(rs[mode], deal).firings
               if f.item.group == "mian_dou_shang_zhuo"}
        assert got == ({want} if want else set()), mode


def test_table_forms_of_ba_hong_fire_alone(table_only, tmp_path):
    # As at the deal, eight 紅 on the table are 片片錦 (or 錦鴛鴦) first.
    deal = table(fill("萬萬 千萬 百老 九萬 八萬 九索 八索 空文".split()), ruleset=table_only)
    assert zhu(settle_deal(table_only, deal), item="pian_pian_jin_shang_zhuo") == paid(60)
    rs = without(tmp_path, [*MIAN_DOU_IDS, "pian_pian_jin_shang_zhuo", "tian_ren_he_yi_shang_zhuo",
                            "ao_yuan_yang_shang_zhuo", "jin_yuan_yang_shang_zhuo"])
    s = settle_deal(rs, table(fill("萬萬 千萬 百老 九萬 八萬 九索 八索 空文".split()), ruleset=rs))
    assert zhu(s, item="ba_hong_shun_feng_qi_shang_zhuo") == paid(16)
    s = settle_deal(rs, table(fill("千萬 百老 九萬 八萬 九索 八索 空文 半文".split()), ruleset=rs))
    assert zhu(s, item="ba_hong_shang_zhuo") == paid(16)


def tricks(spec: str) -> list:
    """Winners of the 8 tricks: a card alone is east's, ``S:七十`` is south's, and so on."""
    seats = {"S": S, "W": W, "N": N}
    out = []
    for token in spec.split():
        seat, _, name = token.rpartition(":")
        out.append((seats[seat] if seat else E, name))
    return out


TABLE_NEAR = [
    # (item, the 8 tricks' winners, what east holds without winning with it)
    ("tian_di_jiao_tai_shang_zhuo", "S:七十 萬萬 九萬 九索 空文 二十 一萬 一索", ["九文"]),
    ("tian_ren_he_yi_shang_zhuo", "S:七十 萬萬 九萬 九索 空文 千萬 八萬 八索", ["半文"]),
    ("ji_quan_sheng_tian_shang_zhuo", "二十 一萬 一索 九文 三十 二萬 二索 S:五文", ["八文"]),
    ("ren_jie_di_ling_shang_zhuo", "S:七十 千萬 八萬 八索 半文 二十 一萬 一索", ["九文"]),
    ("qi_hong_zui_yang_fei_shang_zhuo", "S:七十 萬萬 千萬 百老 九萬 八萬 九索 空文", ["二十"]),
    ("ao_yuan_yang_shang_zhuo", "S:七十 萬萬 百老 九萬 八萬 九索 八索 空文", ["半文"]),
    ("ba_lian_tong_hua_shun_shang_zhuo", "S:七十 九索 八索 七索 六索 五索 四索 三索", ["二索"]),
    ("qi_lian_tong_hua_shun_shang_zhuo", "S:七十 W:六萬 九索 八索 七索 六索 五索 四索", ["三索"]),
    ("ba_yao_shang_zhuo", "S:七十 萬萬 千萬 百老 一萬 一索 空文 半文", ["一文"]),
    ("jin_yuan_yang_shang_zhuo", "S:七十 萬萬 二十 九萬 一萬 九索 八索 空文", ["九文"]),
    ("pian_pian_jin_shang_zhuo", "S:七十 萬萬 千萬 百老 二十 九萬 一萬 九索", ["空文"]),
    ("qi_lin_zhong_shang_zhuo", "萬萬 九萬 九索 空文 百老 八萬 S:七十 W:六萬", []),   # a 肩 won
    ("feng_huang_chu_shang_zhuo", "千萬 八萬 八索 半文 百老 九索 S:七十 W:六萬", []),  # a 賞 won
    ("xue_zhong_tan_shang_zhuo", "百老 二十 一萬 一索 S:七十 W:六萬 N:五文 S:六十", ["九文"]),
    ("ba_hong_shun_feng_qi_shang_zhuo", "S:七十 萬萬 千萬 百老 九萬 八萬 九索 八索", ["空文"]),
    ("qi_hong_shun_feng_qi_shang_zhuo", "萬萬 千萬 百老 九萬 八萬 九索 S:七十 W:六萬", ["八索"]),
    ("liu_hong_shun_feng_qi_shang_zhuo", "萬萬 千萬 九萬 八萬 九索 空文 S:七十 W:六萬", ["百老"]),
    ("ba_hong_shang_zhuo", "S:七十 萬萬 千萬 百老 九萬 八萬 九索 八索", ["空文"]),
    ("qi_hong_shang_zhuo", "萬萬 千萬 九萬 八萬 九索 空文 S:七十 W:六萬", ["八索"]),
    ("liu_hong_shang_zhuo", "萬萬 千萬 九萬 八萬 九索 S:七十 W:六萬 N:五文", ["空文"]),
    ("ba_tong_shang_zhuo", "S:七十 九索 八索 七索 六索 四索 三索 二索", ["一索"]),
    ("qi_tong_shang_zhuo", "九索 八索 七索 六索 四索 三索 S:七十 W:六萬", ["二索"]),
]


@pytest.mark.parametrize(("item", "spec", "held"), TABLE_NEAR)
def test_mian_dou_on_the_table_near_miss(table_only, item, spec, held):
    deal = table(tricks(spec), held={E: held} if held else None, ruleset=table_only)
    s = settle_deal(table_only, deal)
    assert zhu(s, item=item) == [0, 0, 0, 0, 0]


def test_every_table_item_is_tested():
    declared = {i.id for i in app().items.values() if i.group == "mian_dou_shang_zhuo"}
    assert declared == set(TABLE_IDS)
    alone = {"ba_hong_shang_zhuo", "ba_hong_shun_feng_qi_shang_zhuo"}   # see above
    assert {r[0] for r in TABLE_FIRING} | alone == set(TABLE_IDS)
    assert {r[0] for r in TABLE_NEAR} == set(TABLE_IDS)
    for item in TABLE_IDS:
        assert app().items[item].concept == item.removesuffix("_shang_zhuo")


def test_table_form_follows_the_detection_option(table_only, tmp_path_factory):
    # 六紅 on the table, its 紅 in three suits: paid under the catalogue, not by the code.
    deal = table(fill("萬萬 千萬 九萬 八萬 九索 八索".split()), ruleset=table_only)
    assert zhu(settle_deal(table_only, deal), item="liu_hong_shang_zhuo") == [36, -12, -12, -12, 0]
    code = without(tmp_path_factory.mktemp("rs"), MIAN_DOU_IDS, mian_dou_detection="code")
    assert zhu(settle_deal(code, deal), item="liu_hong_shang_zhuo") == [0, 0, 0, 0, 0]
    # 錦鴛鴦 on the table is not in the code's chain: 片片錦 instead.
    deal = table(fill("萬萬 二十 九萬 一萬 九索 八索 空文 九文".split()), ruleset=table_only)
    s = settle_deal(code, deal)
    assert zhu(s, item="pian_pian_jin_shang_zhuo") == paid(60)


# ---------------------------------------------------------------- held at the deal, valued after play

SHUN = ["萬萬", "千萬", "百老"]


@pytest.mark.parametrize(("east_wins", "held", "engine", "seyang"), [
    ([], SHUN, 1, 1),
    (["萬萬", "百老"], ["千萬"], 3, 5),                         # 1 + 2 | 1 + 2·2
    (["萬萬", "千萬", "百老"], [], 4, 7),                       # 1 + 3 | 1 + 3 + 3
    (["萬萬", "千萬", "百老", "九十", "八十"], [], 6, 9),       # 1 + 3 + 2 | 1 + 3 + 5
])
def test_shun_feng_qi(east_wins, held, engine, seyang):
    deal = table(fill(east_wins), held={E: held} if held else None)
    s = settle_deal(app(), deal)
    assert s.status == PLAYED
    assert zhu(s, item="shun_feng_qi") == paid(engine)
    assert zhu(settle_deal(app(shun_feng_qi="engine"), deal), item="shun_feng_qi") == paid(engine)
    assert zhu(settle_deal(app(shun_feng_qi="seyang"), deal), item="shun_feng_qi") == paid(seyang)


def test_shun_feng_qi_needs_all_three_held():
    deal = table(fill(["萬萬", "百老"]), avoid_held={E: ["千萬"]})
    assert zhu(settle_deal(app(), deal), item="shun_feng_qi") == [0, 0, 0, 0, 0]


def test_fu_lu_shou_xi():
    deal = table(fill(["二十", "一索"]), held={E: ["一萬", "九文"]}, avoid_held={E: ["百老"]})
    s = settle_deal(app(), deal)
    assert s.status == PLAYED and s.play.trick_counts[E] == 2
    assert zhu(s, item="fu_lu_shou_xi") == paid(3)          # 1 + two 極 won


def test_fu_lu_shou_xi_needs_no_zheng_ben_and_four_ji():
    deal = table(fill(["二十"]), held={E: ["一萬", "一索", "九文"]}, avoid_held={E: ["百老"]})
    s = settle_deal(app(), deal)
    assert s.play.trick_counts[E] == 1
    assert zhu(s, item="fu_lu_shou_xi") == paid(2)
    near = table(fill(["二十", "一索"]), held={E: ["一萬"]}, avoid_held={E: ["九文"]})
    assert zhu(settle_deal(app(), near), item="fu_lu_shou_xi") == [0, 0, 0, 0, 0]


def test_si_jian_zai_shou():
    deal = table(fill(["八萬", "三索"]), held={E: ["千萬", "八索", "半文"]})
    s = settle_deal(app(), deal)
    assert s.status == PLAYED
    assert zhu(s, item="si_jian_zai_shou") == paid(2)       # 1 + one 肩 won
    near = table(fill(["八萬", "三索"]), held={E: ["千萬", "八索"]}, avoid_held={E: ["半文"]})
    assert zhu(settle_deal(app(), near), item="si_jian_zai_shou") == [0, 0, 0, 0, 0]


def test_si_jian_zai_shou_code_reading():
    """The code's 肩 test (value GetShangValve − 1) makes 九十 the 十 suit's 肩.  East holds
    九十 八萬 八索 半文 and wins 九十 and 八萬: code 1 + 2 = 3 from each other player (公賀:
    +9); rule (千萬 is the 肩) nothing.  Holding 千萬 八萬 八索 半文 and winning 千萬 and 八萬:
    rule 3, code nothing."""
    code = app(si_jian_zai_shou="code")
    deal = table(fill(["九十", "八萬"]), held={E: ["八索", "半文"]}, avoid_held={E: ["千萬"]})
    assert zhu(settle_deal(code, deal), item="si_jian_zai_shou") == paid(3)
    assert zhu(settle_deal(app(), deal), item="si_jian_zai_shou") == [0, 0, 0, 0, 0]
    rule_deal = table(fill(["千萬", "八萬"]), held={E: ["八索", "半文"]}, avoid_held={E: ["九十"]})
    assert zhu(settle_deal(app(), rule_deal), item="si_jian_zai_shou") == paid(3)
    assert zhu(settle_deal(code, rule_deal), item="si_jian_zai_shou") == [0, 0, 0, 0, 0]


def test_options_are_declared_with_digest_defaults():
    rs = app()
    assert rs.options["mian_dou_after_play"].default == "double"
    assert rs.options["shun_feng_qi"].default == "engine"
    assert rs.options["mian_dou_detection"].default == "catalogue"
