"""Automatic play: policies that choose each card, behind one small interface.

A policy turns a deal (as the ruleset plays it, after any 升代) and the first
leader into a :class:`~mahdiao_rules.play.tricks.PlayResult`, exactly as
:func:`mahdiao_rules.play.tricks.play_random` does; every trick is classified by
:func:`mahdiao_rules.play.tricks.play_trick`, so a policy can never disagree with the
trick engine about 捉, 滅 or the winner.  A policy is deterministic: the same
deal, leader and ``rng`` state always give the same play.

* ``random`` — a uniformly random card from the hand for every play (any card is
  legal in Madiao).  It *is* :func:`~mahdiao_rules.play.tricks.play_random`, so with the
  same ``rng`` it gives the same play as ``mahdiao replay`` of an unrecorded deal.
* ``heuristic`` — plays by the table duties of the sources (see
  :class:`HeuristicPolicy`; each duty cites its source).  It sees only what the
  player at that seat sees: his own hand and discards, the face card, and the
  cards played face up (leads and captures).  It uses no randomness.

:func:`auto_play` applies a ruleset's own procedure first (升代 and the first
leader, :mod:`mahdiao_rules.play.procedure`).  Nothing here settles:
:func:`mahdiao_rules.pipeline.settle_deal` plays a hand by a policy only when its
deal phase did not end it (免斗).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from ..cards import (
    BAI_LAO,
    CARD_SUIT,
    CARDS,
    CI_SHANG,
    JI,
    N_CARDS,
    SAN_HUA,
    SUIT_MASKS,
    ZHENG_SHANG,
    Card,
    Suit,
    parse_card,
)
from ..deal import SEATS, Deal, Seat
from ..ruleset.dsl import HandState, never_holds
from ..ruleset.model import Ruleset
from .procedure import by_policy, prepare
from .tricks import PlayedTrick, PlayResult, play_random, play_trick, result_of

ALL = (1 << N_CARDS) - 1
BIT = tuple(1 << c for c in range(N_CARDS))
SUIT_START = tuple(next(i for i in range(N_CARDS) if CARD_SUIT[i] == s) for s in range(4))
RANK = tuple(c - SUIT_START[CARD_SUIT[c]] for c in range(N_CARDS))
"""0 for the strongest card of its suit (賞), 1 for the next (肩) …"""
STRONGER = tuple(SUIT_MASKS[CARD_SUIT[c]] & (BIT[c] - 1) for c in range(N_CARDS))
"""The cards of c's suit that capture c."""
SHI, WAN, SUO, WEN = (SUIT_MASKS[s] for s in Suit)
QIAN = BIT[Card.SHI_QIAN]
WANWAN = BIT[Card.SHI_WANWAN]
OTHER_SUITS = WAN | SUO | WEN
JIN = ZHENG_SHANG | CI_SHANG | BAI_LAO | JI
"""錦張 plus 百老: the cards 色樣 are made of (S0 §四.3 "賞、肩、百、趣上桌形成特定的稀有組合")."""

FENG, APP = "feng", "app"


class Policy(Protocol):
    """What every policy offers: a name and a deterministic way to play a hand."""

    name: str
    needs_rng: bool
    """False when the policy never draws from ``rng`` (then callers need not make one)."""

    def play(self, deal: Deal, leader: Seat, rng: random.Random | None) -> PlayResult:
        """Play all eight tricks of *deal* (hands as the ruleset plays them) from *leader*."""
        ...


# ====================================================================== shared helpers


def _weakest(mask: int) -> int:
    """The weakest card of *mask* (highest rank inside its suit; on a tie the later suit)."""
    best, best_rank = -1, -1
    for s in (3, 2, 1, 0):
        m = mask & SUIT_MASKS[s]
        if m:
            c = m.bit_length() - 1
            r = RANK[c]
            if r > best_rank:
                best, best_rank = c, r
    return best


# ====================================================================== random


class RandomPolicy:
    """A uniformly random card from the hand for every play (every card is legal).

    This is :func:`mahdiao_rules.play.tricks.play_random` itself: the same ``rng`` state gives
    the same play, so a simulated deal replays identically with ``mahdiao replay``
    (which seeds its random play with ``f"{deal.id}/play"``).
    """

    name = "random"
    needs_rng = True

    def play(self, deal: Deal, leader: Seat, rng: random.Random | None) -> PlayResult:
        if rng is None:
            rng = random.Random(f"{deal.id}/play")
        return play_random(deal, leader, rng)


# ====================================================================== the table


class Table:
    """What has happened so far in one hand, as plain masks (one mutable table per play).

    ``up`` is every card seen face up by all: the face card (面張), every lead (發) and
    every capture (捉).  Discards (滅) are face down: only the discarder knows them, and
    he knows them because they were in his ``initial`` hand.
    """

    __slots__ = ("banker", "best", "best_seat", "cards", "hands", "initial", "keep", "lead",
                 "number", "pair_bits", "pair_masks", "pairs", "seats", "threat", "trend", "tricks",
                 "up", "won")

    def __init__(self, hands: list[int], banker: int, absent: int) -> None:
        self.hands = list(hands)
        self.initial = list(hands)
        self.banker = banker
        self.up = absent
        """Seen by all; starts with the card everyone knows is out of play (see :func:`absent_card`)."""
        pairs = []
        keep = ZHENG_SHANG | CI_SHANG | SAN_HUA
        for s in range(4):
            m = SUIT_MASKS[s] & ~absent
            shang = (m & -m).bit_length() - 1
            m &= ~BIT[shang]
            jian = (m & -m).bit_length() - 1
            pairs.append((shang, jian))
            keep |= BIT[shang] | BIT[jian]
        self.pairs = tuple(pairs)
        """Per suit (賞, 肩): its two strongest cards in play — when the face card is out of
        play the card below it moves up (Feng's 扶正, S2 "正賞在面，次賞代之"; the app's 升代)."""
        self.pair_bits = tuple((BIT[a], BIT[b]) for a, b in pairs)
        self.pair_masks = tuple(BIT[a] | BIT[b] for a, b in pairs)
        self.keep = keep
        """賞, 肩 and 三花: thrown last."""
        self.won = [0, 0, 0, 0]
        self.tricks = [0, 0, 0, 0]
        self.number = 0
        self.lead = 0
        self.cards: list[int] = []
        self.seats: list[int] = []
        self.best = -1
        self.best_seat = -1
        self.threat = [0, 0, 0, 0]
        """Per seat: the one card whose winning completes a combo (a packed word, see
        :func:`_threat_fn`)."""
        self.trend = [0, 0, 0, 0]
        """Per seat forming a 色樣: the live 錦張/百老 he must not win (capture only)."""

    @classmethod
    def setup(cls, hands: dict[Seat, str], *, banker: Seat, face: str, number: int = 1,
              up: str = "", won: dict[Seat, str] | None = None,
              tricks: dict[Seat, int] | None = None,
              trick: list[tuple[Seat, str]] | None = None,
              played: dict[Seat, str] | None = None) -> Table:
        """A position for tests and examples, by card names.

        *hands* are the cards still held; *played* (per seat) the cards a seat already
        played, which count in its initial hand; *up* extra cards seen face up;
        *trick* the plays of the current trick so far, from the leader.
        """
        def mask(text: str) -> int:
            m = 0
            for name in text.split():
                m |= BIT[parse_card(name)]
            return m

        held = [mask(hands.get(s, "")) for s in SEATS]
        f = BIT[parse_card(face)]
        t = cls(held, int(banker), 0 if any(h & f for h in held) else f)
        for s, text in (played or {}).items():
            t.initial[s] |= mask(text)
            t.up |= mask(text)
        t.up |= mask(up)
        for s, text in (won or {}).items():
            t.won[s] = mask(text)
            t.up |= t.won[s]
        for s, n in (tricks or {}).items():
            t.tricks[s] = n
        for s in SEATS:
            if won and s in won and not (tricks and s in tricks):
                t.tricks[s] = t.won[s].bit_count()
        t.number = number
        plays = trick or []
        t.lead = int(plays[0][0]) if plays else 0
        for seat, name in plays:
            c = parse_card(name)
            t.initial[seat] |= BIT[c]
            t.place(int(seat), c)
        return t

    def begin(self, number: int, lead: int, threat_of: Callable[[Table], None] | None) -> None:
        self.number = number
        self.lead = lead
        self.cards = []
        self.seats = []
        self.best = -1
        self.best_seat = -1
        if threat_of is not None:
            threat_of(self)

    def place(self, seat: int, card: int) -> None:
        """*seat* plays *card* into the current trick."""
        self.hands[seat] &= ~BIT[card]
        best = self.best
        if best < 0:
            self.lead = seat
            self.best, self.best_seat = card, seat
            self.up |= BIT[card]
        elif CARD_SUIT[card] == CARD_SUIT[best] and card < best:
            self.best, self.best_seat = card, seat
            self.up |= BIT[card]
        self.cards.append(card)
        self.seats.append(seat)

    def finish(self) -> int:
        """Close the trick: the best card goes 上卓 for its owner, who leads next."""
        w = self.best_seat
        self.won[w] |= BIT[self.best]
        self.tricks[w] += 1
        return w

    def unknown(self, seat: int) -> int:
        """Cards *seat* cannot place: not seen face up and never in his own hand."""
        return ALL & ~(self.up | self.initial[seat])


# ====================================================================== heuristic


@dataclass(frozen=True)
class Duties:
    """What the heuristic reads off a ruleset (see :meth:`HeuristicPolicy.for_ruleset`)."""

    school: str = APP
    """``feng`` — 馮夢龍's 斗百老法 (十 only with 百老, 千萬 kept until 百老 is out), whose
    breach the ruleset prices as 代賠; ``app`` — the app's 禁門 (十 barred until the 三花
    are out, 千僧 kept to the last trick) and its 滅 order."""
    sheng_dai: dict[int, int] = field(default_factory=dict)
    """The ruleset's 升代 map (face card → the card that becomes it)."""
    combos: tuple[tuple[int, int], ...] = ()
    """(cards that must all be won, kind) of the payment items worth breaking: kind 0 is
    paid by every other seat (公賀/三家), 1 by the other camp (開注), 2 by the other 散 (敲門)."""
    se_yang: bool = False
    """The ruleset pays 色樣 on won cards (play-phase 公賀 items): break a forming one."""
    bai_lao_penalty: bool = False
    """Winning 百老 without 正本 costs the winner (the app's 佛赤腳)."""
    shi_shu_men: str = "san_hua"
    """When 十 stops being a 禁門 (app school): ``san_hua`` once the 三花 are out (鏡花緣
    「三花落盡，十字變為熟門」), ``bai_zi`` also as soon as 百老 has won a trick (「百子上桌，十子
    就算熟門」, a practice 鏡花緣 says is not in the book): the ruleset's option shi_shu_men."""


class HeuristicPolicy:
    """Play by the duties of the sources; each rule below cites where it comes from.

    Leading (發) — the allowed cards, each duty dropped only when it would leave nothing:

    1. S0 §三.4(1) "在別家有可能形成色樣的情況下，避免發牌導致色樣得逞": do not lead a
       card that another seat's missing combo card could capture.
    2. 千萬 is kept back — Feng [S2 斗百老法] "千萬為留守，非百老已出不可斗" (until 百老 has
       shown); the app [S0 §三.4(5), digest §2.3] "無百老之家，千僧任何時候不能發出；如果同時
       有千僧、紅萬雙持，應該先提一張紅萬上桌" (千僧 only on the last tricks: trick 7 when 紅萬
       has shown and one other card is left).
    3. 十 — Feng [S2] "十門為虛位，非百老在手不可斗" (only with 百老 in hand; free once the
       other three suits are gone, "若三路既竭，十亦竟出"; 千萬 once 百老 is out, by rule 2;
       萬萬 when 千萬 is also held, "holding both 千萬 and 萬萬 you may play 萬 以圖尊" [digest
       §2.3]); the app [S0 §三.4(4), digest
       §2.3] "在其他門有牌可發時，非百老之家通常不應發十子", 十 is a 禁門 before the 三花 are
       out, "without 賞 or 百老 do not lead 十".
    4. S0 §三.4(2) "如手上有賞，在同門肩張現身之前不能發": keep a 賞 until the 肩 of its
       suit has shown (face up, or in one's own hand).  When the face card is out of play
       the card below it moves up (Feng's 扶正, the app's 升代): a promoted 次賞 is the 賞.

    Then: a card no unseen card can capture (真, "無制曰真" [S2]) if there is one, else the
    weakest card of the longest suit.

    Following — S0 §三.4 §5 (捉牌), seat by seat relative to the banker:

    * the banker's card is best: a 散 captures with his cheapest winning card ("B、C、D
      都有義務打斷…如B捉斷A發牌，C、D之一就有義務再捉斷B的牌");
    * another 散's card is best and the banker has played: do not capture ("如B已捉過，C、D
      不能再捉"; "如B滅牌，C、D也應該隨即滅牌");
    * another 散's card is best, the banker plays next and could capture it: the seat just
      before the banker 頂大張 — his cheapest 真 winning card, else his strongest
      ("C為莊家，A發牌，B有義務頂大張令莊家C無法加捉"; "D為莊：…C有義務頂大張");
    * the banker captures when he can: his cheapest 真 winning card if players follow,
      else his strongest (the banker plays to 得桌, S0 §三.4(1) read from his side);
    * a seat about to complete a combo with the best card is captured when one can (S0:
      "其余三家都有義務通過發牌、頂牌、捉牌打斷其色樣"), whoever he is — "when cheap": with
      the cheapest card that captures.  Under a ruleset that pays 色樣 on won cards, a seat
      that has already won two 錦張/百老 is "forming" one and his 錦張/百老 is captured.

    Discarding (滅), when not capturing, by the school's order:

    * Feng / S0 §三.4 §7 "滅牌優先次序：百老——十子——三門——趣張。(如果百老在手有害無利時，
      應先滅掉)": 百老 first only when it is harmful (it would cost its winner, and 正本 is out
      of reach), then 十子, the other three suits, 趣;
    * the app [digest §2.3, APP-U ViewConst.cs] "滅 order 十子 → 生門 → 趣張 → 熟門" (a 熟門
      is a suit of 萬, 索 or 文 whose 賞 and 肩 have shown; its cards can still win);

    and, an INFERENCE, a 賞, 肩, 三花 or (harmless) 百老 last of all; inside a class the
    weakest card first.

    Not encoded: 正門 (S0 §三.4(3), lead only two suits), the 青張 clause of §三.4(2),
    treating the 百老 holder like the banker (nobody knows him until 百老 shows).
    """

    name = "heuristic"

    def __init__(self, duties: Duties | None = None, *, roles: tuple[str, ...] = ("banker", "san")
                 ) -> None:
        self.duties = duties or Duties()
        self.roles = roles
        """Who plays by the duties: ``banker`` and/or ``san``; the others play a uniformly
        random card (drawn from ``rng``) — to measure what the duties are worth."""
        self.needs_rng = roles != ("banker", "san")
        d = self.duties
        self._feng = d.school == FENG
        self._penalty = d.bai_lao_penalty
        self._threat_of = _threat_fn(d.combos, d.se_yang) if (d.combos or d.se_yang) else None

    @classmethod
    def for_ruleset(cls, ruleset: Ruleset | None) -> HeuristicPolicy:
        return cls(duties_of(ruleset))

    # ------------------------------------------------------------------ play

    def play(self, deal: Deal, leader: Seat, rng: random.Random | None = None) -> PlayResult:
        t = Table([deal.hand_mask(s) for s in SEATS], int(deal.banker),
                  absent_card(deal, self.duties.sheng_dai))
        choose = self.choose
        threat_of = self._threat_of
        lead = int(leader)
        tricks: list[PlayedTrick] = []
        place = t.place
        if self.needs_rng:
            rng = rng or random.Random(f"{deal.id}/play")
            choose = self._mixed(rng, int(deal.banker))
        hands = t.hands
        for number in range(1, 9):
            t.begin(number, lead, threat_of if 1 < number < 8 else None)
            cards, seats = t.cards, t.seats
            place(lead, choose(t, lead))
            for pos in (1, 2, 3):  # Table.place, inline
                seat = (lead + pos) % 4
                card = choose(t, seat)
                hands[seat] &= ~BIT[card]
                best = t.best
                if CARD_SUIT[card] == CARD_SUIT[best] and card < best:
                    t.best, t.best_seat = card, seat
                    t.up |= BIT[card]
                cards.append(card)
                seats.append(seat)
            trick = play_trick(number, SEATS[lead], (CARDS[cards[0]], CARDS[cards[1]],
                                                     CARDS[cards[2]], CARDS[cards[3]]),
                               deal.barred(number))
            if trick.barred:  # 多張/少張: the seat's card did not capture after all
                t.best, t.best_seat = trick.winning_card, int(trick.winner)
            tricks.append(trick)
            lead = t.finish()
        return result_of(tricks)

    def observe(self, t: Table) -> None:
        """Read the table at the start of a trick: which combos and 色樣 are forming."""
        if self._threat_of is not None:
            self._threat_of(t)
        else:
            t.threat, t.trend = [0, 0, 0, 0], [0, 0, 0, 0]

    def _mixed(self, rng: random.Random, banker: int) -> Callable[[Table, int], int]:
        dutiful = [("banker" if p == banker else "san") in self.roles for p in range(4)]

        def choose(t: Table, p: int) -> int:
            if dutiful[p]:
                return self.choose(t, p)
            hand = t.hands[p]
            cards = [c for c in range(N_CARDS) if hand >> c & 1]
            return cards[rng.randrange(len(cards))]
        return choose

    def choose(self, t: Table, p: int) -> int:
        """The card seat *p* plays now."""
        hand = t.hands[p]
        if not hand & (hand - 1):
            return hand.bit_length() - 1
        if t.best < 0:
            return self.lead(t, p, hand)
        return self.follow(t, p, hand)

    # ------------------------------------------------------------------ leading

    def lead_filters(self, t: Table, p: int, hand: int) -> list[tuple[str, int]]:
        """(duty, cards of *hand* it forbids to lead), in order of importance.

        :meth:`lead` applies them in this order and drops a duty that would leave no card.
        """
        up = t.up
        shown = up | t.initial[p]
        out: list[tuple[str, int]] = []
        # 1. do not feed a forming combo (S0 §三.4(1)).
        threat = 0
        for q in range(4):
            if q != p and t.threat[q]:
                threat |= _threat_mask(t.threat[q], p, q, t.banker)
        threat &= ALL & ~shown
        if threat:
            bad = 0
            m = hand
            while m:
                low = m & -m
                if STRONGER[low.bit_length() - 1] & threat:
                    bad |= low
                m ^= low
            if bad:
                out.append(("se_yang", bad))
        # 2. 千萬 kept back (Feng: until 百老 has shown; the app: to the last tricks).
        if hand & QIAN:
            if self._feng:
                if not up & BAI_LAO:
                    out.append(("qian_wan", QIAN))
            elif not (t.number == 7 and up & WANWAN and hand.bit_count() == 2):
                out.append(("qian_wan", QIAN))
        # 3. 十 only with 百老 (Feng) / 禁門 before the 三花 are out, unless 賞 or 百老 (app).
        if hand & SHI:
            if self._feng:
                if not hand & BAI_LAO:
                    bad = SHI & hand
                    if up & BAI_LAO:
                        bad &= ~QIAN  # 千萬 is free once 百老 is out (rule 2)
                    if hand & QIAN:
                        bad &= ~WANWAN  # "以圖尊": with 千萬 in hand, 萬萬 may go first
                    if bad:
                        out.append(("shi", bad))
            elif (shown & SAN_HUA != SAN_HUA and not hand & (BAI_LAO | WANWAN)
                  and not (self.duties.shi_shu_men == "bai_zi"
                           and (t.won[0] | t.won[1] | t.won[2] | t.won[3]) & BAI_LAO)):
                out.append(("shi", SHI & hand))
        # 4. a 賞 waits until its 肩 has shown.
        bad = 0
        for shang, jian in t.pair_bits:
            if hand & shang and not shown & jian:
                bad |= shang
        if bad:
            out.append(("shang", bad))
        return out

    def lead(self, t: Table, p: int, hand: int) -> int:
        allowed = hand
        for _duty, bad in self.lead_filters(t, p, hand):
            rest = allowed & ~bad
            if rest:
                allowed = rest
        unknown = ALL & ~(t.up | t.initial[p])
        # A 真 card — nothing unseen captures it — wins the trick for the leader.
        m = allowed
        while m:
            low = m & -m
            if not STRONGER[low.bit_length() - 1] & unknown:
                return low.bit_length() - 1
            m ^= low
        # Else the weakest card of the longest suit.
        best = allowed & SHI
        n = best.bit_count()
        for suit in (WAN, SUO, WEN):
            m = allowed & suit
            k = m.bit_count()
            if k > n:
                best, n = m, k
        return best.bit_length() - 1

    # ------------------------------------------------------------------ following

    def _threat_against(self, t: Table, p: int, q: int) -> int:
        """Cards whose winning by *q* completes a combo that *p* pays for."""
        word = t.threat[q]
        return _threat_mask(word, p, q, t.banker) if word else 0

    def follow(self, t: Table, p: int, hand: int) -> int:
        b, bs = t.best, t.best_seat
        beat = hand & STRONGER[b]
        if beat:
            # Break a forming combo or 色樣, whoever holds it — cheaply (S0 §三.4 §5).
            if (t.threat[bs] and BIT[b] & self._threat_against(t, p, bs)) or BIT[b] & t.trend[bs]:
                return beat.bit_length() - 1
            banker = t.banker
            if p == banker:
                if len(t.cards) == 3:
                    return beat.bit_length() - 1
                return _cheapest_true(beat, ALL & ~(t.up | t.initial[p]))
            if bs == banker:
                return beat.bit_length() - 1  # capture the banker, cheaply
            # A fellow 散's card is best: only the seat just before a banker still to
            # play tops it (頂大張), and only when the banker could capture it.
            if (p + 1) % 4 == banker and banker not in t.seats:
                unknown = ALL & ~(t.up | t.initial[p])
                if STRONGER[b] & unknown:
                    return _cheapest_true(beat, unknown)
            rest = hand & ~beat
            return self.discard(t, p, rest) if rest else beat.bit_length() - 1
        return self.discard(t, p, hand)

    # ------------------------------------------------------------------ discarding

    def discard(self, t: Table, p: int, cands: int) -> int:
        """The card of *cands* to throw (滅), by the school's order (class docstring)."""
        keep = t.keep
        if cands & BAI_LAO and self._penalty and t.tricks[p] + 8 - t.number < 2:
            return Card.SHI_BAI  # 百老在手有害無利: 正本 is out of reach and winning it costs
        m = cands & SHI & ~keep & ~JI & ~BAI_LAO  # 十子
        if m:
            return m.bit_length() - 1
        others = cands & OTHER_SUITS & ~keep & ~JI
        if self._feng:
            if others:  # 三門
                return _weakest(others)
            m = cands & JI & ~keep  # 趣張
            if m:
                return _weakest(m)
        else:
            if others:
                shown = t.up | t.initial[p]
                sheng = 0
                for s in (1, 2, 3):
                    pair = t.pair_masks[s]
                    if shown & pair != pair:
                        sheng |= SUIT_MASKS[s]
                if others & sheng:  # 生門
                    return _weakest(others & sheng)
            m = cands & JI & ~keep  # 趣張
            if m:
                return _weakest(m)
            if others:  # 熟門
                return _weakest(others)
        rest = cands & ~BAI_LAO
        return _weakest(rest) if rest else Card.SHI_BAI  # 賞, 肩, 三花 — and 百老 last of all


def absent_card(deal: Deal, sheng_dai: dict[int, int]) -> int:
    """The card everyone knows is out of play: the face card, or — when 升代 put the face
    card into a hand — the card it replaced."""
    face = deal.stock[0]
    f = BIT[face]
    for h in deal.hands:
        if face in h:
            replaced = sheng_dai.get(face)
            return BIT[replaced] if replaced is not None else 0
    return f


def _cheapest_true(beat: int, unknown: int) -> int:
    """The weakest winning card that no unseen card captures, else the strongest one."""
    m = beat
    pick = -1
    while m:
        low = m & -m
        c = low.bit_length() - 1
        if not STRONGER[c] & unknown:
            pick = c  # keep going: later bits are weaker cards of the suit
        m ^= low
    return pick if pick >= 0 else (beat & -beat).bit_length() - 1


def _threat_mask(kinds: int, p: int, q: int, banker: int) -> int:
    """Unpack the threat word of seat *q* (three 40-bit masks) for payer *p*."""
    all_ = kinds & ALL
    camp = (kinds >> 40) & ALL
    san = (kinds >> 80) & ALL
    out = all_
    if (p == banker) != (q == banker):
        out |= camp
    elif p != banker and q != banker:
        out |= san
    return out


def _threat_fn(combos: tuple[tuple[int, int], ...], se_yang: bool) -> Callable[[Table], None]:
    """A function setting, at the start of a trick, each seat's threat word and 色樣 trend.

    The threat word packs three masks (kind 0, 1, 2 of :attr:`Duties.combos`, 40 bits
    apart): the one card a seat still needs to have won every card of a combo, when that
    card has not shown.  The trend (only when the ruleset pays 色樣 on won cards) is the
    live 錦張/百老 of a seat that has already won two of them.
    """
    union = 0
    for need, _kind in combos:
        union |= need

    def threat_of(t: Table) -> None:
        dead = t.up
        won = t.won
        threat = t.threat
        trend = t.trend
        for q in range(4):
            w = won[q]
            word = 0
            if w & union:
                for need, kind in combos:
                    if w & need:
                        miss = need & ~w
                        if miss and not miss & (miss - 1) and not miss & dead:
                            word |= miss << (40 * kind)
            threat[q] = word
            if se_yang:
                trend[q] = JIN & ~dead if (w & JIN).bit_count() >= 2 else 0
    return threat_of


def duties_of(ruleset: Ruleset | None) -> Duties:
    """Read the duties that differ between rulesets off a compiled ruleset.

    * the school: Feng's 斗百老法 when the ruleset prices its breach (代賠 offences,
      digest §2.3 "Feng play duties (enforced by 代賠, §3.10)"), else the app's;
    * combos worth breaking: play-phase items that need two or more won cards and pay
      the holder (a positive amount);
    * 色樣 on won cards: play-phase 公賀 items;
    * whether winning 百老 without 正本 costs (an item needing 百老 won, not 正本, with a
      negative amount — the app's 佛赤腳);
    * its 升代 map, to know which card is out of play when the face card is in a hand.
    """
    if ruleset is None:
        return Duties()
    school = FENG if ruleset.dai_pei is not None and ruleset.dai_pei.offences else APP
    combos = []
    se_yang = False
    penalty = False
    probe = HandState(0, [0, 0, 0, 0], tuple(range(32, 40)))
    probe.sets = [0] * len(ruleset.dynamic_set_nodes)
    kind_of = {"gong_he": 0, "san_jia": 0, "kai_zhu": 1, "kai_zhu_winner_only": 1, "qiao_men": 2}
    for item in ruleset.items.values():
        if item.phase != "play" or item.channel not in kind_of or never_holds(item.condition):
            continue
        try:
            sign = item.amount(probe, 0)
        except Exception:  # an amount that needs a real hand: assume it pays the holder
            sign = 1
        if item.channel == "gong_he":
            se_yang = True
        if item.need_won & BAI_LAO and item.max_tricks <= 1 and sign < 0:
            penalty = True
        if item.need_won.bit_count() >= 2 and sign >= 0:
            combos.append((item.need_won, kind_of[item.channel]))
    return Duties(school=school, sheng_dai=dict(ruleset.procedure.sheng_dai),
                  combos=tuple(dict.fromkeys(combos)), se_yang=se_yang, bai_lao_penalty=penalty,
                  shi_shu_men=ruleset.option_values.get("shi_shu_men", "san_hua"))


# ====================================================================== registry

POLICIES: dict[str, Callable[[Ruleset | None], Policy]] = {
    "random": lambda ruleset: RandomPolicy(),
    "heuristic": HeuristicPolicy.for_ruleset,
}
"""Policy name → factory taking the ruleset the policy plays under (keys are the --policy choices)."""


def make_policy(name: str, ruleset: Ruleset | None = None) -> Policy:
    try:
        factory = POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r} (known: {', '.join(POLICIES)})") from None
    return factory(ruleset)


def auto_play(ruleset: Ruleset, deal: Deal, policy: Policy,
              rng: random.Random | None = None) -> PlayResult:
    """Play *deal* by *ruleset*'s own procedure: 升代 first, then its first leader leads.

    The result is a play of the hands as the ruleset sees them, which is what
    ``settle_deal(ruleset, deal, play=...)`` expects.  ``rng`` defaults to the seed
    ``mahdiao replay`` uses for an unrecorded deal (``f"{deal.id}/play"``).
    """
    return by_policy(prepare(ruleset, deal), policy, rng)
