"""The app's procedure: the next 莊 on a tie, and the first 莊 (option first_banker)."""

from __future__ import annotations

import dataclasses

from cli_helpers import error_line, invoke
from helpers import E, N, S, W, zhu

from mahdiao_rules.cards import Card, parse_card
from mahdiao_rules.deal import Deal
from mahdiao_rules.history.construct import construct_deal
from mahdiao_rules.io.dealfile import parse_deals, random_deals
from mahdiao_rules.io.yamlsafe import load_text
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.play.procedure import as_first_hand, first_banker
from mahdiao_rules.ruleset import find_ruleset
from mahdiao_rules.settle.hand import PLAYED


def app(**options: str):
    return find_ruleset("app", options or None)


def test_a_tie_for_top_earner_keeps_the_previous_banker():
    """S0 「若有二家並列贏籌最多，則由上一局莊家連莊」 and the app's code (GameEngine.MaxValue returns
    −1 on a shared top; GameOverCommand then leaves the 莊).  莊 N; tricks E 3, S 3, W 2, N 0,
    every card won a 青 card (no 開沖), 百老 in the stock.  吊 (3-3-2-0): E, S +½ 吊 = 1 注,
    W 0, N −1 吊 = −2 注: E 1 + 2 = 3, S 3, W 2, N −8; 清白人家 (1, 公賀) for E and for S:
    +2 each, W and N −2.  E 5, S 5, W 0, N −10: E and S tie, N is not among them and stays 莊
    (the engine used to give the bank to E, the first in seat order)."""
    rs = app()
    wins = [(E, "七十"), (E, "七萬"), (E, "七索"), (S, "六十"), (S, "六萬"), (S, "六索"),
            (W, "五十"), (W, "五索")]
    deal = construct_deal(wins, banker=N, stock=["四十", "百老"],
                          accept=lambda d: settle_deal(rs, d).status == PLAYED)
    s = settle_deal(rs, deal)
    assert zhu(s) == [5, 5, 0, -10, 0]
    assert s.next_banker == N and "tie" in s.next_banker_reason
    # A single top earner takes the bank.
    wins[-1] = (E, "五索")
    one = construct_deal(wins, banker=N, stock=["四十", "百老"],
                         accept=lambda d: settle_deal(rs, d).status == PLAYED)
    assert settle_deal(rs, one).next_banker == E


def hands_with_face(face: str) -> Deal:
    (deal,) = random_deals("first-banker", 1)
    cards = [*deal.hands[0], *deal.hands[1], *deal.hands[2], *deal.hands[3], *deal.stock]
    f = Card(int(parse_card(face)))
    i = cards.index(f)
    cards[i], cards[32] = cards[32], cards[i]
    return dataclasses.replace(deal, banker=N, hands=tuple(tuple(cards[8 * s:8 * s + 8]) for s in range(4)),
                               stock=tuple(cards[32:]))


def test_first_banker_by_the_face_card():
    """first_banker=face (S0 「以牌面數值除以4的余數為莊家」 「如底牌面張為7索，則三七家為莊」; the
    code's BaseCardsCommand): face 七索 → 7 → 三七家 = 西, under either face_num.  Face 千萬:
    documented number 1 → 東; the code's internal value 10 mod 4 = 2 → 南.  draw (default): the
    banker a dealing program drew stands."""
    seven = hands_with_face("七索")
    assert first_banker(app(first_banker="face"), seven) == W
    assert first_banker(app(first_banker="face", face_num="code_value"), seven) == W
    qian = hands_with_face("千萬")
    assert first_banker(app(first_banker="face"), qian) == E
    assert first_banker(app(first_banker="face", face_num="code_value"), qian) == S
    assert first_banker(app(), qian) is None and as_first_hand(app(), qian) is qian
    first = as_first_hand(app(first_banker="face"), seven)
    assert first.banker == W and settle_deal(app(first_banker="face"), first).first_leader == W
    assert first_banker(find_ruleset("feng"), seven) is None       # Feng draws (再拈)


def test_deal_command_uses_the_first_banker_procedure():
    out = invoke("deal", "-n", "20", "--seed", "fb", "-r", "app", "--set",
                 "app.first_banker=face").stdout
    rs = app(first_banker="face")
    for d in parse_deals(load_text(out, "out.yaml")):
        assert d.banker == settle_deal(rs, d).first_leader         # the 莊 leads hand 1
    assert "needs -r" in error_line(invoke("deal", "--set", "app.first_banker=face"))
