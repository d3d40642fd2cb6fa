"""The procedure of one hand under a ruleset: 升代, the first leader, where the tricks come from.

A ruleset's ``procedure:`` says how a dealt hand is set up for play — which card
stands for the face card (升代) and who leads trick 1 — and this module applies it
(:func:`prepare`).  :func:`play_hand` then gives the eight tricks: the recorded ones
when the deal has them, else a play given by the caller, a policy's, or a uniformly
random play seeded by the deal id; each comes with the note the reports print.

Which hands are not played at all is decided by the deal phase of settlement (a
免斗 item or a fine that ends the hand, whose amounts may read the 官堆 as paid so
far): :func:`mahdiao_rules.pipeline.settle_deal` asks settlement first and plays only a
hand that goes on.  Nothing here settles.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..cards import CARD_HANZI, CARDS, Card
from ..deal import SEATS, Deal, Seat
from ..messages import note as make_note
from ..ruleset.compiler import card_num
from ..ruleset.model import Ruleset
from .tricks import PlayResult, play_random, play_trick, replay_recorded, result_of

if TYPE_CHECKING:
    from .policies import Policy

@dataclass(frozen=True, slots=True)
class Hand:
    """A deal as a ruleset's procedure sets it up, before any trick."""

    deal: Deal
    """The hands as the ruleset plays them (after its 升代); same id, banker and stock."""
    leader: Seat
    """Who leads trick 1 by the ruleset's own procedure."""
    notes: tuple[str, ...]
    """What the procedure did that a report should say (升代)."""


def prepare(ruleset: Ruleset, deal: Deal) -> Hand:
    """*deal* set up by *ruleset*'s procedure: 升代 first, then the first leader."""
    notes: list[str] = []
    view = sheng_dai(ruleset, deal, notes)
    return Hand(view, first_leader(ruleset, view), tuple(notes))


def first_leader(ruleset: Ruleset, deal: Deal) -> Seat:
    """Who leads trick 1 by the ruleset's own procedure (the 面張 count)."""
    return leader_of(ruleset, deal.face, deal.banker)


def leader_of(ruleset: Ruleset, face: int, banker: Seat) -> Seat:
    """Who leads trick 1 when *face* is the face card and *banker* the 椿."""
    if ruleset.procedure.first_lead_rule == "zhuang":
        return banker
    return _face_seat(ruleset, face, banker)


def _face_seat(ruleset: Ruleset, face: int, banker: Seat) -> Seat:
    proc = ruleset.procedure
    n = card_num(ruleset, face)
    offset = proc.first_lead_offsets.get(n, 0)
    origin = banker if proc.first_lead_from == "banker" else Seat[proc.first_lead_from.upper()]
    return origin.after(offset)


def first_banker(ruleset: Ruleset, deal: Deal) -> Seat | None:
    """The 莊 of a sitting's first hand by *ruleset*'s procedure, or None when it is drawn.

    ``face`` (the app's S0 and its code): the seat the 面張 number gives, counted as for the
    first lead — so in that hand the 莊 also leads.  ``draw`` (S1's Ming method, Feng's
    再拈): every seat alike — the banker a dealing program drew stands.  A deal on record
    keeps its banker; this applies when the tool deals (``mahdiao deal -r``, simulations).
    """
    if ruleset.procedure.first_banker_rule != "face":
        return None
    return _face_seat(ruleset, deal.face, deal.banker)  # the compiler checked: a fixed seat counts


def as_first_hand(ruleset: Ruleset, deal: Deal) -> Deal:
    """*deal* with its banker chosen by *ruleset*'s first-banker procedure (unchanged for a draw)."""
    seat = first_banker(ruleset, deal)
    return deal if seat is None or seat == deal.banker else dataclasses.replace(deal, banker=seat)


def leader_table(ruleset: Ruleset) -> tuple[tuple[int, ...], ...]:
    """``table[face][banker]``: the first leader for every face card and banker."""
    return tuple(tuple(int(leader_of(ruleset, face, seat)) for seat in SEATS) for face in range(len(CARDS)))


def banker_table(ruleset: Ruleset) -> tuple[int | None, ...]:
    """``table[face]``: the first hand's 莊 by :func:`first_banker` (None: the drawn one stands)."""
    if ruleset.procedure.first_banker_rule != "face":
        return (None,) * len(CARDS)
    return tuple(int(_face_seat(ruleset, face, SEATS[0])) for face in range(len(CARDS)))


def sheng_dai(ruleset: Ruleset, deal: Deal, notes: list[str]) -> Deal:
    """升代: when the face card is in the ruleset's map, the mapped card becomes it.

    The card takes the face card's place in its holder's hand for play, 色樣 and
    開注, and a recorded play of it is read as the face card.
    """
    replaced = ruleset.procedure.sheng_dai.get(deal.face)
    if replaced is None:
        return deal
    holder = deal.holder(replaced)
    if holder is None:
        notes.append(make_note("sheng_dai_in_stock", card=CARD_HANZI[replaced], face=CARD_HANZI[deal.face]))
        return deal
    face = deal.face

    def swap(cards: tuple[Card, ...]) -> tuple[Card, ...]:
        return tuple(face if c == replaced else c for c in cards)

    hands = tuple(swap(h) if s == holder else h for s, h in zip(SEATS, deal.hands, strict=True))
    play = None if deal.play is None else tuple(
        dataclasses.replace(t, cards=swap(t.cards)) for t in deal.play)
    notes.append(make_note("sheng_dai", seat=holder.id, card=CARD_HANZI[replaced], face=CARD_HANZI[face]))
    return dataclasses.replace(deal, hands=hands, play=play)  # type: ignore[arg-type]


# ====================================================================== the tricks


def play_seed(deal_id: str) -> str:
    """The seed of a deal's own random play (``mahdiao replay``, simulation): ``f"{deal.id}/play"``."""
    return f"{deal_id}/play"


def by_policy(hand: Hand, policy: Policy, rng: random.Random | None = None) -> PlayResult:
    """*policy*'s play of *hand* from its first leader.

    ``rng`` defaults to the seed ``mahdiao replay`` uses for an unrecorded deal
    (``f"{deal.id}/play"``), made only when the policy draws from it.
    """
    if rng is None and policy.needs_rng:
        rng = random.Random(play_seed(hand.deal.id))
    return policy.play(hand.deal, hand.leader, rng)


def play_hand(ruleset: Ruleset, hand: Hand, *, play: PlayResult | None = None,
              policy: Policy | None = None, rng: random.Random | None = None
              ) -> tuple[PlayResult, str | None]:
    """The eight tricks of *hand* and the note that says where they come from.

    The deal's recorded tricks when it has them (noted when the ruleset's first leader
    differs from the record's); else *play* when given, else *policy*'s play; else a
    uniformly random play from the first leader, drawn from *rng* (default: seeded by
    ``f"{deal.id}/play"``).
    """
    deal, leader = hand.deal, hand.leader
    if deal.play is not None:
        note = None
        if deal.play[0].lead != leader:
            note = make_note("first_lead_differs", ruleset=ruleset.id, seat=leader.id,
                              seat_hanzi=leader.hanzi, record=deal.play[0].lead.id)
        return replay_recorded(deal), note
    if play is None and policy is not None:
        play = by_policy(hand, policy, rng)
    if play is not None:
        return play, make_note("played_by_policy", seat=leader.id)
    result = play_random(deal, leader, rng or random.Random(play_seed(deal.id)))
    return result, make_note("played_at_random", seat=leader.id, seed=deal.id)


# ====================================================================== one play, several rulesets


def translate_play(play: PlayResult, card_map: dict[int, int]) -> PlayResult:
    """The same physical plays read through another ruleset's 升代 (*card_map*: card → card).

    Leads stay as played; each trick is classified again, so a card that is stronger
    under one ruleset's 升代 may win under it and lose under another.
    """
    if not card_map:
        return play
    tricks = [play_trick(t.number, t.lead, tuple(CARDS[card_map.get(c, c)] for c in t.cards),
                         t.barred) for t in play.tricks]
    return result_of(tricks)


def sheng_dai_map(ruleset: Ruleset, deal: Deal) -> dict[int, int]:
    """Original card → the card it plays as under *ruleset* (empty when no 升代 applies)."""
    replaced = ruleset.procedure.sheng_dai.get(deal.face)
    if replaced is None or deal.holder(replaced) is None:
        return {}
    return {replaced: int(deal.face)}


def cross_map(src: Ruleset, dst: Ruleset, deal: Deal) -> dict[int, int]:
    """Card map taking a play under *src*'s 升代 to the same physical play under *dst*'s."""
    back = {v: k for k, v in sheng_dai_map(src, deal).items()}
    fwd = sheng_dai_map(dst, deal)
    out = {}
    for c in set(back) | set(fwd) | set(back.values()):
        orig = back.get(c, c)
        out[c] = fwd.get(orig, orig)
    return {k: v for k, v in out.items() if k != v}
