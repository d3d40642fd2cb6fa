"""Policies: determinism, legality, the trick engine's classification, and each duty of the
heuristic on a constructed position (one test per duty, citing the docstring's source)."""

from __future__ import annotations

import dataclasses
import random
import statistics

import pytest

from mahdiao_rules.cards import CARD_HANZI, parse_card
from mahdiao_rules.deal import SEATS, Seat
from mahdiao_rules.io.dealfile import random_deals
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.play.policies import (
    APP,
    FENG,
    Duties,
    HeuristicPolicy,
    RandomPolicy,
    Table,
    auto_play,
    duties_of,
    make_policy,
)
from mahdiao_rules.play.procedure import cross_map, first_leader, sheng_dai, translate_play
from mahdiao_rules.play.tricks import play_random, play_trick, result_of
from mahdiao_rules.ruleset import bundled_ids, find_ruleset
from mahdiao_rules.settle.hand import MIAN_DOU

E, S, W, N = Seat.EAST, Seat.SOUTH, Seat.WEST, Seat.NORTH
FENG_DUTIES = Duties(school=FENG)
APP_DUTIES = Duties(school=APP, se_yang=True, bai_lao_penalty=True)


def name(card: int) -> str:
    """The card's name, 百老 for 百萬 (as the duties call it)."""
    return "百老" if card == parse_card("百老") else CARD_HANZI[card]


def lead(duties: Duties, hands: dict[Seat, str], *, banker: Seat = N, face: str = "三文",
         seat: Seat = E, **kw) -> str:
    t = Table.setup(hands, banker=banker, face=face, **kw)
    policy = HeuristicPolicy(duties)
    policy.observe(t)
    return name(policy.choose(t, int(seat)))


def follow(duties: Duties, hands: dict[Seat, str], trick: list[tuple[Seat, str]], seat: Seat, *,
           banker: Seat, face: str = "三文", **kw) -> str:
    t = Table.setup(hands, banker=banker, face=face, trick=trick, **kw)
    policy = HeuristicPolicy(duties)
    return name(policy.choose(t, int(seat)))


# ====================================================================== interface


@pytest.mark.parametrize("rs_id", bundled_ids())
@pytest.mark.parametrize("policy_name", ["random", "heuristic"])
def test_same_seed_same_play(rs_id, policy_name):
    rs = find_ruleset(rs_id)
    for deal in random_deals("det", 30):
        a = auto_play(rs, deal, make_policy(policy_name, rs), random.Random(f"{deal.id}/x"))
        b = auto_play(rs, deal, make_policy(policy_name, rs), random.Random(f"{deal.id}/x"))
        assert a == b


def test_random_policy_is_the_engines_random_play():
    rs = find_ruleset("feng")
    for deal in random_deals("same", 20):
        leader = first_leader(rs, deal)
        assert RandomPolicy().play(deal, leader, random.Random(7)) == \
            play_random(deal, leader, random.Random(7))
        # and auto_play seeds it as `mahdiao replay` does (which plays no 免斗 hand)
        replayed = settle_deal(rs, deal)
        if replayed.status != MIAN_DOU:
            assert auto_play(rs, deal, RandomPolicy()) == replayed.play


@pytest.mark.parametrize("rs_id", bundled_ids())
@pytest.mark.parametrize("policy_name", ["random", "heuristic"])
def test_plays_are_legal_and_classified_by_the_trick_engine(rs_id, policy_name):
    rs = find_ruleset(rs_id)
    policy = make_policy(policy_name, rs)
    for deal in random_deals(f"legal-{rs_id}", 60):
        view = sheng_dai(rs, deal, [])
        result = auto_play(rs, deal, policy)
        hands = [set(h) for h in view.hands]
        lead = first_leader(rs, view)
        for number, trick in enumerate(result.tricks, start=1):
            assert trick.number == number and trick.lead == lead
            for pos, card in enumerate(trick.cards):
                seat = lead.after(pos)
                assert card in hands[seat], f"{seat.id} does not hold {name(card)}"
                hands[seat].remove(card)
            assert trick == play_trick(number, lead, trick.cards)
            lead = trick.winner
        assert all(not h for h in hands)
        assert result == result_of(list(result.tricks), recorded=False)


def test_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="unknown policy"):
        make_policy("clever")


def test_a_mian_dou_hand_is_not_played():
    rs = find_ruleset("feng")
    deal = next(d for d in random_deals("md", 400) if settle_deal(rs, d).status == MIAN_DOU)
    s = settle_deal(rs, deal, policy=make_policy("heuristic", rs))
    assert s.status == MIAN_DOU and s.play is None


def test_duties_are_read_from_the_ruleset():
    feng, app = duties_of(find_ruleset("feng")), duties_of(find_ruleset("app"))
    assert feng.school == FENG and app.school == APP  # Feng prices its duties as 代賠
    assert not feng.se_yang and app.se_yang           # the app pays 色樣 on won cards
    assert app.bai_lao_penalty and not feng.bai_lao_penalty  # 佛赤腳
    san_kai = sum(1 << parse_card(c) for c in ("百老", "千萬", "萬萬"))
    assert (san_kai, 1) in feng.combos                # 三開, paid 椿↔散


def test_same_play_maps_through_sheng_dai():
    app, feng = find_ruleset("app"), find_ruleset("feng")
    deal = next(d for d in random_deals("sd", 400)
                if d.face in app.procedure.sheng_dai
                and d.holder(app.procedure.sheng_dai[d.face]) is not None)
    replaced = app.procedure.sheng_dai[deal.face]
    assert cross_map(feng, app, deal) == {replaced: deal.face}
    assert cross_map(app, feng, deal) == {deal.face: replaced}
    play = auto_play(feng, deal, make_policy("random", feng))
    there = translate_play(play, cross_map(feng, app, deal))
    back = translate_play(there, cross_map(app, feng, deal))
    assert back == play
    assert any(deal.face in t.cards for t in there.tricks)


# ====================================================================== leading duties


def test_lead_does_not_feed_a_forming_combo():
    """S0 §三.4(1): the banker has won 百老 千萬 萬萬 (三開) and needs 空文 for 四紅."""
    hands = {E: "半文 三文 四萬 五索", N: "空文 二萬 二索 四文"}
    won = {N: "百老 千萬 萬萬"}
    assert lead(FENG_DUTIES, hands, won=won, number=4) == "三文"  # no duty: longest suit
    feng = duties_of(find_ruleset("feng"))
    assert lead(feng, hands, won=won, number=4) not in ("半文", "三文")


def test_qian_wan_is_kept_until_bai_lao_has_shown_feng():
    """Feng 斗百老法: "千萬為留守，非百老已出不可斗"."""
    hands = {E: "千萬 百老 八索 三文"}
    assert lead(FENG_DUTIES, hands, up="萬萬") == "百老"
    assert lead(FENG_DUTIES, {E: "千萬 八索 三文"}, up="萬萬 百老") == "千萬"


def test_qian_seng_is_kept_to_the_last_tricks_app():
    """S0 §三.4(5) "千僧任何時候不能發出" — the app: trick 7 once 紅萬 has shown."""
    assert lead(APP_DUTIES, {E: "千萬 百老 八索"}, up="萬萬", number=3) != "千萬"
    assert lead(APP_DUTIES, {E: "千萬 八索"}, up="萬萬 百老", number=7) == "千萬"


def test_no_shi_lead_without_bai_lao_feng():
    """Feng: "十門為虛位，非百老在手不可斗"; with 百老 in hand 十 may be led."""
    up = "萬萬 千萬 百老"
    assert lead(FENG_DUTIES, {E: "九十 八十 三文"}, up=up) == "三文"
    assert lead(FENG_DUTIES, {E: "百老 八十 三文"}, up="萬萬 千萬") == "百老"
    assert lead(FENG_DUTIES, {E: "九十 八十"}, up=up) == "九十"  # 三路既竭


def test_shi_is_barred_until_the_san_hua_are_out_app():
    """S0 §三.4(4) / digest §2.3: 十 is a 禁門 before 三花 have appeared, without 賞 or 百老."""
    assert lead(APP_DUTIES, {E: "九十 八十 七十 三文"}) == "三文"
    assert lead(APP_DUTIES, {E: "九十 八十 七十 三文"}, up="萬萬 千萬 百老") == "九十"


def test_shi_shu_men_bai_zi_frees_shi_once_bai_lao_has_won():
    """qing option shi_shu_men: 「三花落盡，十字變為熟門」 (san_hua) or 「百子上桌，十子就算熟門」
    (bai_zi).  S has won a trick with 百老; 萬萬 and 千萬 are still out.  With 九十 八十 七十
    三文, E leads 三文 under san_hua (十 still a 禁門) but a 十 card under bai_zi (the weakest
    of his longest suit, 七十)."""
    won = {"won": {S: "百老"}}
    assert lead(APP_DUTIES, {E: "九十 八十 七十 三文"}, **won) == "三文"
    bai_zi = dataclasses.replace(APP_DUTIES, shi_shu_men="bai_zi")
    assert lead(bai_zi, {E: "九十 八十 七十 三文"}, **won) == "七十"
    assert lead(bai_zi, {E: "九十 八十 七十 三文"}) == "三文"    # 百老 not yet 上桌
    assert duties_of(find_ruleset("qing", {"shi_shu_men": "bai_zi"})).shi_shu_men == "bai_zi"
    assert duties_of(find_ruleset("qing")).shi_shu_men == "san_hua"


def test_shang_waits_for_its_jian():
    """S0 §三.4(2) "如手上有賞，在同門肩張現身之前不能發"."""
    for duties in (FENG_DUTIES, APP_DUTIES):
        assert lead(duties, {E: "九萬 四萬 三索"}) == "四萬"
        assert lead(duties, {E: "九萬 四萬 三索"}, up="八萬") == "九萬"
        assert lead(duties, {E: "九萬 八萬 三索"}) == "九萬"  # the 肩 is in his own hand


def test_shang_promoted_by_fu_zheng_waits_for_the_card_below():
    """With 九萬 face up (Feng 扶正 "正賞在面，次賞代之") 八萬 is the 賞 and 七萬 its 肩."""
    assert lead(FENG_DUTIES, {E: "八萬 四萬 三索"}, face="九萬") == "四萬"
    assert lead(FENG_DUTIES, {E: "八萬 四萬 三索"}, face="九萬", up="七萬") == "八萬"


def test_a_true_card_is_led():
    """"無制曰真": a card nothing unseen can capture wins the trick."""
    assert lead(FENG_DUTIES, {E: "七索 四萬 三文"}, up="九索 八索") == "七索"


# ====================================================================== following duties


def test_san_captures_the_banker_cheaply():
    """S0 §5 "A為莊家：A家發牌，B、C、D都有義務打斷"."""
    hands = {S: "八索 七索 三文"}
    assert follow(FENG_DUTIES, hands, [(E, "五索")], S, banker=E) == "七索"


def test_san_does_not_capture_a_fellow_san():
    """S0 §5 "如B已捉過，C、D不能再捉" / "如B滅牌，C、D也應該隨即滅牌"."""
    hands = {N: "七索 四萬 三文"}
    trick = [(S, "五索"), (W, "二文")]  # the banker (west) discarded
    assert follow(FENG_DUTIES, hands, trick, N, banker=W) != "七索"


def test_san_recaptures_after_the_banker():
    """S0 §5 "如B捉斷A發牌，C、D之一就有義務再捉斷B的牌"."""
    trick = [(E, "四索"), (S, "六索")]  # south is the banker and captured
    assert follow(FENG_DUTIES, {W: "八索 七索 三文"}, trick, W, banker=S) == "七索"


def test_the_seat_before_the_banker_tops_with_a_true_card():
    """S0 §5 "D為莊：A發牌，C有義務頂大張令莊家D無法加捉"; B has no such duty."""
    hands = {S: "八索 三文", W: "九索 六索 三萬"}
    trick = [(E, "五索")]
    assert follow(FENG_DUTIES, hands, trick, S, banker=N) == "三文"
    assert follow(FENG_DUTIES, hands, trick + [(S, "三文")], W, banker=N) == "九索"


def test_the_banker_captures_to_win():
    """The banker plays to 得桌: his cheapest winning card no unseen card can capture."""
    hands = {S: "九索 七索 三文"}
    assert follow(FENG_DUTIES, hands, [(E, "五索")], S, banker=S) == "九索"
    assert follow(FENG_DUTIES, {N: "九索 七索 三文"}, [(E, "五索"), (S, "二文"), (W, "四文")], N,
                  banker=N) == "七索"  # last to play: the cheapest capture is enough


def test_a_forming_se_yang_is_broken_when_cheap():
    """S0 "如果場上某玩家有形成色樣的趨勢，其余三家都有義務…打斷其色樣": a fellow 散 who has
    won two 錦張 leads a 肩; the others capture it, although he is no banker."""
    hands = {W: "九萬 四索 三文"}
    trick = [(N, "五萬"), (E, "二文"), (S, "八萬")]  # east is the banker and has played
    won = {S: "九索 八索"}
    t = Table.setup(hands, banker=E, face="三文", won=won, number=3)
    policy = HeuristicPolicy(APP_DUTIES)
    policy.observe(t)
    for seat, card in trick:
        t.initial[seat] |= 1 << parse_card(card)
        t.place(int(seat), parse_card(card))
    assert name(policy.choose(t, int(W))) == "九萬"
    no_se_yang = HeuristicPolicy(Duties(school=APP))  # a ruleset without 色樣
    no_se_yang.observe(t)
    assert name(no_se_yang.choose(t, int(W))) != "九萬"


# ====================================================================== discarding


def discards(duties: Duties, hand: str, **kw) -> list[str]:
    """The order in which a seat that cannot capture throws its cards."""
    t = Table.setup({E: hand}, banker=N, face="三文", **kw)
    policy = HeuristicPolicy(duties)
    out = []
    cands = t.hands[E]
    while cands:
        c = policy.discard(t, int(E), cands)
        out.append(name(c))
        cands &= ~(1 << c)
    return out


def test_discard_order_feng():
    """S0 §7 "滅牌優先次序：百老——十子——三門——趣張" (百老 only when harmful; 賞 last)."""
    assert discards(FENG_DUTIES, "九萬 一索 三萬 五十 百老", number=7) == \
        ["五十", "三萬", "一索", "九萬", "百老"]
    assert lead(FENG_DUTIES, {E: "萬萬 千萬 八索"}) == "萬萬"  # "以圖尊", keeping 千 "以制百"


def test_discard_order_app():
    """Digest §2.3 (APP-U): "滅 order 十子 → 生門 → 趣張 → 熟門"."""
    got = discards(APP_DUTIES, "四索 一索 三萬 五十", up="九索 八索", number=3)
    assert got == ["五十", "三萬", "一索", "四索"]


def test_bai_lao_is_thrown_first_when_harmful():
    """S0 §7 "如果百老在手有害無利時，應先滅掉": under the app, 百老 won without 正本 is
    佛赤腳 (−5); with no trick by trick 7, 正本 is out of reach."""
    assert discards(APP_DUTIES, "百老 三索", number=7)[0] == "百老"
    assert discards(APP_DUTIES, "百老 三索", number=7, tricks={E: 1})[0] == "三索"
    assert discards(FENG_DUTIES, "百老 三索", number=7)[0] == "三索"


# ====================================================================== worth


@pytest.mark.parametrize("rs_id", ["feng", "app"])
def test_the_duties_win_for_the_banker(rs_id):
    """A banker who plays by the duties does better than one who plays at random (the
    散 play at random in both runs) on the same deals."""
    rs = find_ruleset(rs_id)
    dutiful = HeuristicPolicy(duties_of(rs), roles=("banker",))
    rand = RandomPolicy()
    diffs = []
    for deal in random_deals("worth", 400):
        a = settle_deal(rs, deal, play=auto_play(rs, deal, dutiful), ledger=False).nets[deal.banker]
        b = settle_deal(rs, deal, play=auto_play(rs, deal, rand), ledger=False).nets[deal.banker]
        diffs.append(a - b)
    mean = statistics.fmean(diffs)
    se = statistics.stdev(diffs) / len(diffs) ** 0.5
    assert mean - 3 * se > 0


def test_every_seat_plays_eight_cards_in_a_mixed_play():
    rs = find_ruleset("feng")
    policy = HeuristicPolicy(duties_of(rs), roles=("san",))
    for deal in random_deals("mixed", 10):
        result = auto_play(rs, deal, policy)
        assert sum(result.trick_counts) == 8
        assert sorted(c for t in result.tricks for c in t.cards) == \
            sorted(c for h in deal.hands for c in h)
    assert SEATS  # keep the import honest
