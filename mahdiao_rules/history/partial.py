"""Partial deals: what a source states about a hand, as facts with a place in the file.

A *partial deal* (``io/schemas/partial-deal.schema.json``, [docs/history.md]) says what a
novel, a rulebook or a blog records about one hand and leaves the rest unknown: a hand
listed in part, with constraints (``holds_one_of``, ``count_by_suit``, ``lacks``); the
cards a seat won (上卓); an unknown face card; stock cards known by position or only
known to lie in the stock; tricks in which only some cards are known (``?``, optionally
``mie``/``zhuo``, ``one_of``, ``not_higher_than``, ``suit``).  It is a format of its own so
that the complete-deal loader (:mod:`mahdiao_rules.io.dealfile`) stays strict.

Every statement becomes a :class:`Fact` that remembers its key path and line.
:meth:`PartialDeal.constraints` compiles the facts of one reading into
:class:`Constraints` — the slot model used by :mod:`mahdiao_rules.history.reconstruct` — and
reports a contradiction by naming the facts involved, for example ::

    百萬 is in south's hand (hands.south.cards[2], line 9) and is played by west in
    trick 3 (play[2].cards[1], line 21)

The slot model: a completion puts each of the 40 cards in one of 40 *slots* — slot
``4*k + seat`` is the card *seat* plays in trick *k* (0-based), slot ``32 + i`` is
``stock[i]`` — and picks the leader of trick 1.  A seat's hand is what it plays, so a
completed hand and a completed record are one and the same object.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cards import (
    CARD_HANZI,
    CARD_SUIT,
    CATEGORIES,
    CATEGORY_ALIASES,
    SUIT_HANZI,
    SUIT_MASKS,
    cards_of,
    parse_card,
)
from ..deal import SEAT_ALIASES, SEATS, Seat
from ..errors import InputError
from ..io.schemacheck import check
from ..io.yamlsafe import Document, format_path, load_file

__all__ = [
    "ALL_SLOTS",
    "STOCK_SLOTS",
    "Constraints",
    "Fact",
    "PartialDeal",
    "Reading",
    "load_partials",
    "parse_partials",
    "seat_slots",
    "slot_name",
    "stock_slot",
    "trick_slot",
]

KeyPath = tuple[str | int, ...]
N_TRICKS = 8
UNKNOWN = "?"


def trick_slot(trick: int, seat: int) -> int:
    """The slot of the card *seat* plays in trick *trick* (0-based)."""
    return 4 * trick + seat


def stock_slot(index: int) -> int:
    return 32 + index


def seat_slots(seat: int) -> int:
    """Mask of the eight trick slots of *seat*."""
    mask = 0
    for k in range(N_TRICKS):
        mask |= 1 << trick_slot(k, seat)
    return mask


SEAT_SLOTS = tuple(seat_slots(s) for s in range(4))
STOCK_SLOTS = ((1 << 8) - 1) << 32
ALL_SLOTS = (1 << 40) - 1
ALL_CARDS = (1 << 40) - 1


def slot_name(slot: int) -> str:
    if slot >= 32:
        return f"stock[{slot - 32}]"
    k, s = divmod(slot, 4)
    return f"{Seat(s).id}'s card in trick {k + 1}"


def _names(mask: int) -> str:
    return " ".join(CARD_HANZI[c] for c in cards_of(mask))


# --------------------------------------------------------------------------- facts


@dataclass(frozen=True)
class Fact:
    """One statement of a partial deal, with where it was written.

    *kind* is one of ``in_hand`` (card, seat), ``in_stock`` (card), ``place`` (card,
    slot), ``won`` (card, seat), ``won_exactly`` (seat), ``tricks`` (seat, n), ``lacks``
    (seat, mask), ``holds_one_of`` (seat, mask), ``count_by_suit`` (seat, suit, lo, hi),
    ``slot_allowed`` (slot, mask), ``flag`` (slot, "mie" | "zhuo"), ``lead`` (trick,
    seat) and ``winner`` (trick, seat).
    """

    kind: str
    path: KeyPath
    line: int | None
    text: str
    card: int | None = None
    seat: int | None = None
    slot: int | None = None
    trick: int | None = None
    mask: int = 0
    lo: int = 0
    hi: int = 0
    value: str = ""
    reading: str | None = None

    @property
    def where(self) -> str:
        place = format_path(self.path)
        line = f", line {self.line}" if self.line is not None else ""
        reading = f", reading {self.reading!r}" if self.reading else ""
        return f"{place}{line}{reading}"

    def cite(self) -> str:
        return f"{self.text} ({self.where})"


def _card_phrase(fact: Fact) -> str:
    """What *fact* says about its card, as a verb phrase ("is in south's hand")."""
    k = fact.kind
    if k == "in_hand":
        return f"is in {Seat(fact.seat).id}'s hand"
    if k == "won":
        return f"was won (上卓) by {Seat(fact.seat).id}"
    if k == "in_stock":
        return "lies in the stock"
    if k == "place":
        slot = fact.slot
        assert slot is not None
        if slot >= 32:
            return f"is stock[{slot - 32}]"
        t, s = divmod(slot, 4)
        return f"is played by {Seat(s).id} in trick {t + 1}"
    if k == "lacks":
        return f"is excluded from {Seat(fact.seat).id}'s hand ({fact.text})"
    if k == "slot_allowed":
        assert fact.slot is not None
        return f"cannot be {slot_name(fact.slot)} ({fact.text})"
    return fact.text


# --------------------------------------------------------------------------- the compiled model


@dataclass
class Constraints:
    """The facts of one reading as a slot model (see the module docstring).

    ``placed`` maps a slot to the card known to be there; every other card is *free*
    and may go to the slots in ``compat[card]`` (a 40-bit slot mask).  Trick facts
    that depend on several cards at once (who wins, 捉/滅, which cards a seat won) are
    kept as they are and checked while counting (:mod:`mahdiao_rules.history.reconstruct`).
    """

    placed: dict[int, int]
    compat: dict[int, int]
    first_leads: tuple[int, ...]
    winners: dict[int, int]
    """trick (0-based) → the seat that won it (stated, or implied by the next lead)."""
    flags: dict[int, str]
    """trick slot → ``mie`` or ``zhuo`` (the card is a discard / a capture)."""
    won_by: dict[int, int]
    """card → seat: the card won a trick for that seat (it must win whenever played)."""
    exact_seats: frozenset[int]
    """Seats that won tricks with no cards but their listed ones."""
    tricks: dict[int, int]
    """seat → number of tricks it won."""
    suit_counts: dict[tuple[int, int], tuple[int, int]]
    """(seat, suit) → (min, max) cards of that suit in the hand."""
    holds: tuple[tuple[int, int], ...]
    """(seat, card mask): the seat holds at least one of these cards."""
    facts: tuple[Fact, ...] = ()

    @property
    def free_cards(self) -> list[int]:
        return sorted(self.compat)

    def won_mask(self, seat: int) -> int:
        mask = 0
        for c, s in self.won_by.items():
            if s == seat:
                mask |= 1 << c
        return mask


class FactConflict(InputError):
    """Facts of a partial deal that cannot all hold; ``facts`` are the ones involved."""

    def __init__(self, message: str, facts: Sequence[Fact], *, file: str | None = None) -> None:
        last = facts[-1] if facts else None
        super().__init__(message, file=file, line=last.line if last else None,
                         place=format_path(last.path) if last else None)
        self.facts = tuple(facts)


# --------------------------------------------------------------------------- readings and deals


@dataclass(frozen=True)
class Reading:
    """One side of an either/or in the source: extra facts that hold only under it."""

    id: str
    label: str
    note: str | None
    facts: tuple[Fact, ...]


@dataclass(frozen=True)
class PartialDeal:
    """A hand as a source records it: facts, plus either/or readings and the banker choice."""

    id: str
    facts: tuple[Fact, ...]
    bankers: tuple[int, ...]
    """The seats that may be 椿: one seat, or several when the source leaves it open."""
    banker_choices: Mapping[str, str] = field(default_factory=dict)
    """Documented alternatives (seat id → why), chosen with ``--banker``."""
    readings: tuple[Reading, ...] = ()
    events: tuple[Mapping[str, Any], ...] = ()
    guan_dui: int = 0
    title: str | None = None
    source: str | None = None
    notes: str | None = None
    players: Mapping[str, str] = field(default_factory=dict)
    inferences: tuple[Mapping[str, str], ...] = ()
    played: bool = False
    """The source says the hand was played: completions a ruleset would not play are reported apart."""
    origin: str | None = None

    def reading_ids(self) -> list[str]:
        return [r.id for r in self.readings]

    def reading(self, reading_id: str) -> Reading:
        for r in self.readings:
            if r.id == reading_id:
                return r
        raise InputError(f"partial deal {self.id!r} has no reading {reading_id!r} "
                         f"(readings: {', '.join(self.reading_ids()) or 'none'})", file=self.origin)

    def facts_for(self, reading: Reading | None) -> tuple[Fact, ...]:
        return self.facts + (reading.facts if reading is not None else ())

    def constraints(self, reading: Reading | None = None) -> Constraints:
        """Compile the facts (of one reading) into the slot model, naming any contradiction."""
        return compile_facts(self.facts_for(reading), file=self.origin, deal_id=self.id)

    def player(self, seat: int) -> str:
        return self.players.get(Seat(seat).id, "")


# --------------------------------------------------------------------------- compiling


def compile_facts(facts: Sequence[Fact], *, file: str | None = None, deal_id: str = "") -> Constraints:
    """The slot model of *facts*; raises :class:`FactConflict` naming the facts that clash."""
    return _Compiler(facts, file, deal_id).run()


class _Compiler:
    def __init__(self, facts: Sequence[Fact], file: str | None, deal_id: str) -> None:
        self.facts = list(facts)
        self.file = file
        self.prefix = f"partial deal {deal_id!r}: " if deal_id else ""

    def fail(self, message: str, *facts: Fact) -> None:
        raise FactConflict(self.prefix + message, facts, file=self.file)

    def run(self) -> Constraints:
        placed: dict[int, int] = {}
        placed_by: dict[int, Fact] = {}
        card_at: dict[int, Fact] = {}
        # Restrictions on each card: (fact, allowed slot mask).
        restrict: dict[int, list[tuple[Fact, int]]] = {c: [] for c in range(40)}
        winners: dict[int, int] = {}
        winner_fact: dict[int, Fact] = {}
        first_leads = set(range(4))
        first_lead_fact: Fact | None = None
        flags: dict[int, str] = {}
        flag_fact: dict[int, Fact] = {}
        won_by: dict[int, int] = {}
        won_fact: dict[int, Fact] = {}
        exact: dict[int, Fact] = {}
        tricks: dict[int, int] = {}
        tricks_fact: dict[int, Fact] = {}
        suit_counts: dict[tuple[int, int], tuple[int, int]] = {}
        suit_fact: dict[tuple[int, int], list[Fact]] = {}
        holds: list[tuple[int, int, Fact]] = []
        slot_allowed: dict[int, list[tuple[Fact, int]]] = {}

        for f in self.facts:
            k = f.kind
            if k == "place":
                assert f.card is not None and f.slot is not None
                if f.slot in placed and placed[f.slot] != f.card:
                    other = placed_by[f.slot]
                    self.fail(f"{slot_name(f.slot)} is recorded as both {CARD_HANZI[other.card]} "  # type: ignore[index]
                              f"({other.where}) and {CARD_HANZI[f.card]} ({f.where})", other, f)
                if f.card in card_at and card_at[f.card].slot != f.slot:
                    other = card_at[f.card]
                    self.fail(f"{CARD_HANZI[f.card]} {_card_phrase(other)} ({other.where}) and "
                              f"{_card_phrase(f)} ({f.where})", other, f)
                placed[f.slot] = f.card
                placed_by[f.slot] = f
                card_at[f.card] = f
                restrict[f.card].append((f, 1 << f.slot))
            elif k == "in_hand":
                restrict[f.card].append((f, SEAT_SLOTS[f.seat]))  # type: ignore[index]
            elif k == "in_stock":
                restrict[f.card].append((f, STOCK_SLOTS))  # type: ignore[index]
            elif k == "won":
                assert f.card is not None and f.seat is not None
                if f.card in won_by and won_by[f.card] != f.seat:
                    other = won_fact[f.card]
                    self.fail(f"{CARD_HANZI[f.card]} {_card_phrase(other)} ({other.where}) and "
                              f"{_card_phrase(f)} ({f.where})", other, f)
                won_by[f.card] = f.seat
                won_fact[f.card] = f
                restrict[f.card].append((f, SEAT_SLOTS[f.seat]))
            elif k == "lacks":
                for c in cards_of(f.mask):
                    restrict[c].append((f, ALL_SLOTS & ~SEAT_SLOTS[f.seat]))  # type: ignore[index]
            elif k == "slot_allowed":
                assert f.slot is not None
                slot_allowed.setdefault(f.slot, []).append((f, f.mask))
                for c in range(40):
                    if not f.mask >> c & 1:
                        restrict[c].append((f, ALL_SLOTS & ~(1 << f.slot)))
            elif k == "holds_one_of":
                holds.append((f.seat, f.mask, f))  # type: ignore[arg-type]
            elif k == "count_by_suit":
                key = (f.seat, int(f.value))
                lo, hi = suit_counts.get(key, (0, 11))
                lo, hi = max(lo, f.lo), min(hi, f.hi)
                suit_fact.setdefault(key, []).append(f)
                if lo > hi:
                    self.fail(f"{Seat(f.seat).id} cannot hold between {lo} and {hi} "  # type: ignore[arg-type]
                              f"{SUIT_HANZI[int(f.value)]} cards: "
                              + " and ".join(x.cite() for x in suit_fact[key]), *suit_fact[key])
                suit_counts[key] = (lo, hi)  # type: ignore[index]
            elif k == "won_exactly":
                exact[f.seat] = f  # type: ignore[index]
            elif k == "tricks":
                if f.seat in tricks and tricks[f.seat] != f.lo:  # type: ignore[index]
                    other = tricks_fact[f.seat]  # type: ignore[index]
                    self.fail(f"{other.cite()} and {f.cite()}", other, f)
                tricks[f.seat] = f.lo  # type: ignore[index]
                tricks_fact[f.seat] = f  # type: ignore[index]
            elif k in ("lead", "winner"):
                assert f.trick is not None and f.seat is not None
                # A lead of trick k+1 is the winner of trick k.
                if k == "lead" and f.trick == 0:
                    if first_lead_fact is not None and first_leads != {f.seat}:
                        self.fail(f"trick 1 is led by {Seat(next(iter(first_leads))).id} "
                                  f"({first_lead_fact.where}) and by {Seat(f.seat).id} ({f.where})",
                                  first_lead_fact, f)
                    first_leads = {f.seat}
                    first_lead_fact = f
                    continue
                t = f.trick - 1 if k == "lead" else f.trick
                if t in winners and winners[t] != f.seat:
                    other = winner_fact[t]
                    self.fail(f"{other.cite()} but {f.cite()}", other, f)
                winners[t] = f.seat
                winner_fact[t] = f
            elif k == "flag":
                assert f.slot is not None
                if f.slot in flags and flags[f.slot] != f.value:
                    other = flag_fact[f.slot]
                    self.fail(f"{other.cite()} but {f.cite()}", other, f)
                flags[f.slot] = f.value
                flag_fact[f.slot] = f
            else:  # pragma: no cover - the loader makes only the kinds above
                raise AssertionError(k)

        # Each card: the intersection of what is said about it must leave a slot.
        occupied = 0
        for slot in placed:
            occupied |= 1 << slot
        compat: dict[int, int] = {}
        for c in range(40):
            allowed = ALL_SLOTS
            for _f, m in restrict[c]:
                allowed &= m
            if not allowed:
                self._explain_empty(c, restrict[c])
            if c in card_at:
                continue
            free = allowed & ~occupied
            if not free:
                blockers = [placed_by[s] for s in sorted(placed) if allowed >> s & 1][:8]
                said = " and ".join(f"{_card_phrase(f)} ({f.where})" for f, _m in restrict[c])
                self.fail(f"{CARD_HANZI[c]} {said}, but every such place already holds another card: "
                          + "; ".join(b.cite() for b in blockers), *(f for f, _m in restrict[c]), *blockers)
            compat[c] = free

        # Slots restricted to cards that are all elsewhere.
        for slot, rules in slot_allowed.items():
            if slot in placed:
                continue
            if not any(compat.get(c, 0) >> slot & 1 for c in range(40)):
                f = rules[-1][0]
                self.fail(f"no card can be {slot_name(slot)}: {f.cite()}, and each of "
                          f"{_names(_mask_and(rules))} is placed elsewhere", *(r[0] for r in rules))

        self._capacity(placed, placed_by, compat, restrict)
        self._suits(placed, compat, suit_counts, suit_fact)
        for seat, mask, f in holds:
            ok = any(placed.get(s) in set(cards_of(mask)) for s in range(40) if SEAT_SLOTS[seat] >> s & 1)
            ok = ok or any(compat.get(c, 0) & SEAT_SLOTS[seat] for c in cards_of(mask))
            if not ok:
                self.fail(f"{f.cite()}, but each of {_names(mask)} is placed elsewhere", f)
        self._wins(won_by, won_fact, exact, tricks, tricks_fact, winners, winner_fact, placed,
                   placed_by, flags, flag_fact, first_leads)

        return Constraints(
            placed=placed, compat=compat, first_leads=tuple(sorted(first_leads)), winners=winners,
            flags=flags, won_by=won_by, exact_seats=frozenset(exact), tricks=tricks,
            suit_counts=suit_counts, holds=tuple((s, m) for s, m, _f in holds), facts=tuple(self.facts),
        )

    def _explain_empty(self, card: int, rules: list[tuple[Fact, int]]) -> None:
        """Name the fewest facts about *card* whose places do not overlap."""
        for i in range(len(rules)):
            for j in range(i):
                if not rules[i][1] & rules[j][1]:
                    a, b = rules[j][0], rules[i][0]
                    self.fail(f"{CARD_HANZI[card]} {_card_phrase(a)} ({a.where}) and "
                              f"{_card_phrase(b)} ({b.where})", a, b)
        said = "; ".join(f"{_card_phrase(f)} ({f.where})" for f, _m in rules)
        self.fail(f"{CARD_HANZI[card]} cannot be anywhere: it {said}", *(f for f, _m in rules))

    def _capacity(self, placed: dict[int, int], placed_by: dict[int, Fact], compat: dict[int, int],
                  restrict: dict[int, list[tuple[Fact, int]]]) -> None:
        """A seat plays 8 cards and the stock holds 8: more forced cards is a contradiction."""
        for name, region in [*((Seat(s).id, SEAT_SLOTS[s]) for s in SEATS), ("the stock", STOCK_SLOTS)]:
            forced: list[tuple[int, list[Fact]]] = []
            for slot, card in sorted(placed.items()):
                if region >> slot & 1:
                    forced.append((card, [placed_by[slot]]))
            for card, allowed in compat.items():
                if allowed and not allowed & ~region:
                    why = [f for f, m in restrict[card] if not m & ~region] or [f for f, _m in restrict[card]]
                    forced.append((card, why[:1]))
            if len(forced) > 8:
                listed = ", ".join(f"{CARD_HANZI[c]} ({fs[0].where})" if fs else CARD_HANZI[c]
                                   for c, fs in forced)
                holder = f"{name} must hold" if name != "the stock" else "the stock holds"
                self.fail(f"{holder} 8 cards but {len(forced)} are forced: {listed}",
                          *(f for _c, fs in forced for f in fs))

    def _suits(self, placed: dict[int, int], compat: dict[int, int],
               suit_counts: dict[tuple[int, int], tuple[int, int]],
               suit_fact: dict[tuple[int, int], list[Fact]]) -> None:
        for (seat, suit), (lo, hi) in suit_counts.items():
            region = SEAT_SLOTS[seat]
            forced = [c for s, c in placed.items() if region >> s & 1 and CARD_SUIT[c] == suit]
            forced += [c for c, m in compat.items() if CARD_SUIT[c] == suit and m and not m & ~region]
            possible = forced + [c for c, m in compat.items()
                                 if CARD_SUIT[c] == suit and m & region and m & ~region]
            fs = suit_fact[(seat, suit)]
            if len(forced) > hi:
                self.fail(f"{fs[-1].cite()}, but {len(forced)} are forced: "
                          + " ".join(CARD_HANZI[c] for c in sorted(forced)), *fs)
            if len(possible) < lo:
                self.fail(f"{fs[-1].cite()}, but only {len(possible)} can be: "
                          + (" ".join(CARD_HANZI[c] for c in sorted(possible)) or "none"), *fs)

    def _wins(self, won_by: dict[int, int], won_fact: dict[int, Fact], exact: dict[int, Fact],
              tricks: dict[int, int], tricks_fact: dict[int, Fact], winners: dict[int, int],
              winner_fact: dict[int, Fact], placed: dict[int, int], placed_by: dict[int, Fact],
              flags: dict[int, str], flag_fact: dict[int, Fact], first_leads: set[int]) -> None:
        total = 0
        for seat in SEATS:
            listed = [c for c, s in won_by.items() if s == seat]
            n = tricks.get(seat)
            if n is not None:
                total += n
                if len(listed) > n:
                    self.fail(f"{tricks_fact[seat].cite()}, but it won tricks with {len(listed)} cards: "
                              + ", ".join(won_fact[c].cite() for c in listed),
                              tricks_fact[seat], *(won_fact[c] for c in listed))
                if seat in exact and len(listed) != n:
                    self.fail(f"{exact[seat].cite()} lists {len(listed)} cards but "
                              f"{tricks_fact[seat].cite()}", exact[seat], tricks_fact[seat])
            stated = [t for t, w in winners.items() if w == seat]
            bound = n if n is not None else (len(listed) if seat in exact else None)
            if bound is not None and len(stated) > bound:
                why = tricks_fact.get(seat) or exact[seat]
                self.fail(f"{why.cite()}, but {len(stated)} tricks are recorded as won by {seat.id}: "
                          + ", ".join(winner_fact[t].cite() for t in sorted(stated)),
                          why, *(winner_fact[t] for t in sorted(stated)))
        if total > N_TRICKS:
            fs = list(tricks_fact.values())
            self.fail("the stated trick counts add up to more than 8: "
                      + ", ".join(f.cite() for f in fs), *fs)
        # Tricks whose cards are known in part: 捉/滅 and the winner where they are decided.
        leader: int | None = next(iter(first_leads)) if len(first_leads) == 1 else None
        for t in range(N_TRICKS):
            lead = leader
            if lead is None:
                leader = winners.get(t)
                continue
            best: int | None = None
            best_pos = 0
            known = True
            for p in range(4):
                seat = (lead + p) % 4
                slot = trick_slot(t, seat)
                card = placed.get(slot)
                if card is None:
                    known = False
                    continue
                if not known:
                    continue  # an earlier card is unknown: 捉/滅 of this one is not decided
                captures = p > 0 and best is not None and CARD_SUIT[card] == CARD_SUIT[best] and card < best
                flag = flags.get(slot)
                if flag is not None and p > 0 and (flag == "zhuo") != captures:
                    what = "captures (捉)" if captures else "does not capture (滅)"
                    self.fail(f"{flag_fact[slot].cite()}, but {CARD_HANZI[card]} {what} after "
                              f"{CARD_HANZI[best]} ({placed_by[slot].where})",  # type: ignore[index]
                              flag_fact[slot], placed_by[slot])
                if p == 0 and flag is not None:
                    self.fail(f"{flag_fact[slot].cite()}, but that card leads the trick "
                              "(a lead is 發, neither 捉 nor 滅)", flag_fact[slot])
                if p == 0 or captures:
                    best, best_pos = card, p
            # A won card placed in this trick must win it: a stated other winner, a stronger card of
            # its suit in the trick, or a lead of another suit refutes that.
            for p in range(4):
                slot = trick_slot(t, (lead + p) % 4)
                card = placed.get(slot)
                if card is None or won_by.get(card) != (lead + p) % 4:
                    continue
                w = winners.get(t)
                if w is not None and w != (lead + p) % 4:
                    self.fail(f"{won_fact[card].cite()}, but {placed_by[slot].cite()} and "
                              f"{winner_fact[t].cite()}", won_fact[card], placed_by[slot], winner_fact[t])
                for q in range(4):
                    other_slot = trick_slot(t, (lead + q) % 4)
                    other = placed.get(other_slot)
                    if other is None or q == p:
                        continue
                    stronger = CARD_SUIT[other] == CARD_SUIT[card] and other < card
                    off_suit_lead = q == 0 and CARD_SUIT[other] != CARD_SUIT[card]
                    if stronger or off_suit_lead:
                        why = "which beats it" if stronger else "a lead of another suit, so it cannot win"
                        self.fail(f"{won_fact[card].cite()}, but in trick {t + 1} "
                                  f"{placed_by[other_slot].cite()}, {why}",
                                  won_fact[card], placed_by[other_slot])
            if known and best is not None:
                w = (lead + best_pos) % 4
                if t in winners and winners[t] != w:
                    self.fail(f"{winner_fact[t].cite()}, but the recorded cards make "
                              f"{Seat(w).id} the winner with {CARD_HANZI[best]}", winner_fact[t])
                leader = winners.get(t, w)
            else:
                leader = winners.get(t)


def _mask_and(rules: Iterable[tuple[Fact, int]]) -> int:
    mask = ALL_CARDS
    for _f, m in rules:
        mask &= m
    return mask


# --------------------------------------------------------------------------- loading


def load_partials(path: str | os.PathLike[str], *, display_name: str | None = None) -> list[PartialDeal]:
    """Read and check every partial deal of a YAML or JSON file."""
    return parse_partials(load_file(path, display_name=display_name))


def parse_partials(doc: Document) -> list[PartialDeal]:
    """Schema-check a loaded partial-deal file, then read each partial deal into facts.

    Each deal's facts are compiled once per reading here, so a contradiction in the
    file is reported when it is read, with the facts that clash.
    """
    if doc.data is None:
        raise InputError("the file is empty; a partial-deal file holds one partial deal or a "
                         "partial_deals: list", file=doc.file)
    check(doc, "partial-deal")
    data = doc.data
    items: list[tuple[KeyPath, Mapping[str, Any]]]
    if "partial_deals" in data:
        items = [(("partial_deals", i), d) for i, d in enumerate(data["partial_deals"])]
    else:
        items = [((), data)]
    out: list[PartialDeal] = []
    seen: dict[str, KeyPath] = {}
    for base, item in items:
        if item["id"] in seen:
            path = (*base, "id")
            first = seen[item["id"]]
            raise InputError(f"duplicate partial deal id {item['id']!r} (first at line "
                             f"{doc.line_of((*first, 'id'))})", file=doc.file, line=doc.line_of(path),
                             place=format_path(path))
        seen[item["id"]] = base
        deal = _Reader(doc, base, item).read()
        deal.constraints()
        for r in deal.readings:
            deal.constraints(r)
        out.append(deal)
    return out


def parse_cardset(items: str | Sequence[str], fail: Any) -> int:
    """Card names and category names (十, 賞, 極 …) → a card mask; *fail(message, index)* on error."""
    names = [items] if isinstance(items, str) else list(items)
    mask = 0
    for i, name in enumerate(names):
        key = name.strip() if isinstance(name, str) else name
        cid = CATEGORY_ALIASES.get(key) if isinstance(key, str) else None
        if cid is not None and key not in ("百",):
            mask |= CATEGORIES[cid][0]
            continue
        try:
            mask |= 1 << parse_card(name)
        except InputError as err:
            fail(err.message + " — or a category such as 十, 萬門, 索, 文, 賞, 肩, 極", i)
    return mask


_SUIT_KEYS = {"十": 0, "十門": 0, "十字": 0, "shi": 0,
              "萬": 1, "万": 1, "萬門": 1, "貫": 1, "贯": 1, "wan": 1,
              "索": 2, "索門": 2, "索门": 2, "suo": 2, "文": 3, "文門": 3, "文门": 3, "wen": 3, "餅": 3}


class _Reader:
    """Reads one partial deal into facts; every bad value is reported with its line."""

    def __init__(self, doc: Document, base: KeyPath, data: Mapping[str, Any]) -> None:
        self.doc = doc
        self.base = base
        self.data = data
        self.id = data["id"]
        self.reading: str | None = None

    # ---- helpers
    def fail(self, message: str, *rel: str | int) -> Any:
        path = self.base + rel
        raise InputError(f"partial deal {self.id!r}: {message}", file=self.doc.file,
                         line=self.doc.line_of(path), place=format_path(path))

    def fact(self, kind: str, text: str, *rel: str | int, **kw: Any) -> Fact:
        path = self.base + rel
        return Fact(kind=kind, path=path, line=self.doc.line_of(path), text=text,
                    reading=self.reading, **kw)

    def seat(self, text: Any, *rel: str | int) -> int:
        seat = SEAT_ALIASES.get(text) if isinstance(text, str) else None
        if seat is None:
            self.fail(f"unknown seat {text!r} (use east, south, west, north or 東 南 西 北)", *rel)
        return int(seat)  # type: ignore[arg-type]

    def card(self, text: Any, *rel: str | int) -> int:
        try:
            return int(parse_card(text))
        except InputError as err:
            message = err.message
        return self.fail(message, *rel)

    def cardset(self, items: Any, *rel: str | int) -> int:
        index = [] if isinstance(items, str) else None
        return parse_cardset(items, lambda m, i: self.fail(m, *rel, *(index if index is not None else [i])))

    def suit(self, text: Any, *rel: str | int) -> int:
        suit = _SUIT_KEYS.get(text) if isinstance(text, str) else None
        if suit is None:
            self.fail(f"unknown suit {text!r} (use 十, 萬, 索 or 文)", *rel)
        return suit  # type: ignore[return-value]

    # ---- the deal
    def read(self) -> PartialDeal:
        d = self.data
        facts = self.hand_facts(d.get("hands", {}), ("hands",))
        facts += self.stock_facts(d, ())
        facts += self.play_facts(d)
        bankers = self.bankers(d)
        choices = dict(d.get("banker_choices", {}))
        for key in choices:
            self.seat(key, "banker_choices", key)
        readings = tuple(self.read_reading(i, r) for i, r in enumerate(d.get("readings", ())))
        ids = [r.id for r in readings]
        if len(set(ids)) != len(ids):
            self.fail("reading ids must be different", "readings")
        events = tuple(self.event(i, e) for i, e in enumerate(d.get("events", ())))
        return PartialDeal(
            id=self.id, facts=tuple(facts), bankers=bankers, banker_choices=choices, readings=readings,
            events=events, guan_dui=int(d.get("guan_dui", 0)), title=d.get("title"), source=d.get("source"),
            notes=d.get("notes"), players={Seat(self.seat(k, "players", k)).id: v
                                           for k, v in d.get("players", {}).items()},
            inferences=tuple(d.get("inferences", ())), played=bool(d.get("played", False)),
            origin=self.doc.file,
        )

    def bankers(self, d: Mapping[str, Any]) -> tuple[int, ...]:
        value = d.get("banker", UNKNOWN)
        if value == UNKNOWN:
            return (0, 1, 2, 3)
        if isinstance(value, list):
            seats = tuple(sorted({self.seat(v, "banker", i) for i, v in enumerate(value)}))
            return seats
        return (self.seat(value, "banker"),)

    def read_reading(self, i: int, data: Mapping[str, Any]) -> Reading:
        self.reading = data["id"]
        try:
            facts = self.hand_facts(data.get("hands", {}), ("readings", i, "hands"))
            facts += self.stock_facts(data, ("readings", i))
        finally:
            self.reading = None
        return Reading(id=data["id"], label=data.get("label", data["id"]), note=data.get("note"),
                       facts=tuple(facts))

    def event(self, i: int, data: Mapping[str, Any]) -> Mapping[str, Any]:
        out = dict(data)
        out["seat"] = self.seat(data["seat"], "events", i, "seat")
        if "victim" in data:
            out["victim"] = self.seat(data["victim"], "events", i, "victim")
        if "card" in data:
            out["card"] = self.card(data["card"], "events", i, "card")
        if "trick_won_with" in data:
            out["trick_won_with"] = self.card(data["trick_won_with"], "events", i, "trick_won_with")
        return out

    def hand_facts(self, hands: Mapping[str, Any], rel: KeyPath) -> list[Fact]:
        facts: list[Fact] = []
        for key, spec in hands.items():
            seat = self.seat(key, *rel, key)
            sid = Seat(seat).id
            if isinstance(spec, list):
                spec = {"cards": spec}
                card_rel: KeyPath = (*rel, key)
            else:
                card_rel = (*rel, key, "cards")
            for j, name in enumerate(spec.get("cards", ())):
                c = self.card(name, *card_rel, j)
                facts.append(self.fact("in_hand", f"{sid} holds {CARD_HANZI[c]}", *card_rel, j,
                                       card=c, seat=seat))
            for j, name in enumerate(spec.get("won", ())):
                c = self.card(name, *rel, key, "won", j)
                facts.append(self.fact("won", f"{sid} won a trick with {CARD_HANZI[c]}", *rel, key, "won", j,
                                       card=c, seat=seat))
            if spec.get("won_exactly"):
                facts.append(self.fact("won_exactly", f"{sid} won tricks only with its listed won cards",
                                       *rel, key, "won_exactly", seat=seat))
            if "tricks" in spec:
                n = spec["tricks"]
                facts.append(self.fact("tricks", f"{sid} won {n} trick{'s' if n != 1 else ''}",
                                       *rel, key, "tricks", seat=seat, lo=n, hi=n))
            if "lacks" in spec:
                mask = self.cardset(spec["lacks"], *rel, key, "lacks")
                shown = spec["lacks"] if isinstance(spec["lacks"], str) else " ".join(spec["lacks"])
                facts.append(self.fact("lacks", f"{sid} lacks {shown}", *rel, key, "lacks",
                                       seat=seat, mask=mask))
            holds = spec.get("holds_one_of", ())
            if holds and all(isinstance(h, str) for h in holds):
                holds = [holds]
                nested = False
            else:
                nested = True
            for j, group in enumerate(holds):
                where = (*rel, key, "holds_one_of", *([j] if nested else []))
                mask = self.cardset(group, *where)
                facts.append(self.fact("holds_one_of", f"{sid} holds one of {_names(mask)}", *where,
                                       seat=seat, mask=mask))
            for suit_key, value in spec.get("count_by_suit", {}).items():
                where = (*rel, key, "count_by_suit", suit_key)
                suit = self.suit(suit_key, *where)
                if isinstance(value, int):
                    lo = hi = value
                else:
                    lo, hi = value.get("min", 0), value.get("max", 11)
                size = (SUIT_MASKS[suit]).bit_count()
                if lo > min(hi, 8, size):
                    self.fail(f"at least {lo} {SUIT_HANZI[suit]} cards cannot fit in a hand", *where)
                name = SUIT_HANZI[suit]
                text = (f"{sid} holds exactly {lo} {name} card{'s' if lo != 1 else ''}" if lo == hi
                        else f"{sid} holds {lo}–{hi} {name} cards")
                facts.append(self.fact("count_by_suit", text, *where, seat=seat, lo=lo, hi=hi,
                                       value=str(suit)))
        return facts

    def stock_facts(self, d: Mapping[str, Any], rel: KeyPath) -> list[Fact]:
        facts: list[Fact] = []
        for i, entry in enumerate(d.get("stock", ())):
            facts += self.entry_facts(entry, stock_slot(i), f"stock[{i}]", (*rel, "stock", i), lead_pos=False)
        for j, name in enumerate(d.get("stock_includes", ())):
            c = self.card(name, *rel, "stock_includes", j)
            facts.append(self.fact("in_stock", f"{CARD_HANZI[c]} lies in the stock",
                                   *rel, "stock_includes", j, card=c))
        return facts

    def entry_facts(self, entry: Any, slot: int, what: str, rel: KeyPath, *, lead_pos: bool) -> list[Fact]:
        """One card position: a card, ``?``, or ``{card, mie, zhuo, one_of, not_higher_than, suit}``."""
        facts: list[Fact] = []
        spec = entry if isinstance(entry, dict) else {"card": entry}
        card_rel = (*rel, "card") if isinstance(entry, dict) else rel
        name = spec["card"]
        if name != UNKNOWN:
            c = self.card(name, *card_rel)
            facts.append(self.fact("place", f"{what} is {CARD_HANZI[c]}", *card_rel, card=c, slot=slot))
        if "one_of" in spec:
            mask = self.cardset(spec["one_of"], *rel, "one_of")
            facts.append(self.fact("slot_allowed", f"{what} is one of {_names(mask)}", *rel, "one_of",
                                   slot=slot, mask=mask))
        if "suit" in spec:
            suit = self.suit(spec["suit"], *rel, "suit")
            facts.append(self.fact("slot_allowed", f"{what} is a {SUIT_HANZI[suit]} card", *rel, "suit",
                                   slot=slot, mask=SUIT_MASKS[suit]))
        if "not_higher_than" in spec:
            top = self.card(spec["not_higher_than"], *rel, "not_higher_than")
            above = SUIT_MASKS[CARD_SUIT[top]] & ((1 << top) - 1)
            facts.append(self.fact("slot_allowed", f"{what} is not higher than {CARD_HANZI[top]}",
                                   *rel, "not_higher_than", slot=slot, mask=ALL_CARDS & ~above))
        for flag, word in (("mie", "滅 (a discard)"), ("zhuo", "捉 (a capture)")):
            if spec.get(flag):
                if slot >= 32:
                    self.fail(f"{flag} is about a card played in a trick, not a stock card", *rel, flag)
                if lead_pos:
                    self.fail(f"the lead is 發, neither 捉 nor 滅; {flag} cannot apply to it", *rel, flag)
                facts.append(self.fact("flag", f"{what} is {word}", *rel, flag, slot=slot, value=flag))
        if spec.get("mie") and spec.get("zhuo"):
            self.fail("a card cannot be both 捉 and 滅", *rel)
        return facts

    def play_facts(self, d: Mapping[str, Any]) -> list[Fact]:
        facts: list[Fact] = []
        play = d.get("play", ())
        if "first_lead" in d:
            s = self.seat(d["first_lead"], "first_lead")
            facts.append(self.fact("lead", f"trick 1 is led by {Seat(s).id}", "first_lead", trick=0, seat=s))
        prev_winner: int | None = None
        for t, trick in enumerate(play):
            rel: KeyPath = ("play", t)
            lead: int | None = None
            if "lead" in trick and trick["lead"] != UNKNOWN:
                lead = self.seat(trick["lead"], *rel, "lead")
                facts.append(self.fact("lead", f"trick {t + 1} is led by {Seat(lead).id}", *rel, "lead",
                                       trick=t, seat=lead))
            elif prev_winner is not None:
                lead = prev_winner
            winner: int | None = None
            if "winner" in trick and trick["winner"] != UNKNOWN:
                winner = self.seat(trick["winner"], *rel, "winner")
                facts.append(self.fact("winner", f"trick {t + 1} is won by {Seat(winner).id}", *rel, "winner",
                                       trick=t, seat=winner))
            if "cards" in trick:
                if lead is None:
                    self.fail(f"trick {t + 1} lists cards in play order but its leader is not known; "
                              "give lead: (or plays: {seat: card})", *rel, "cards")
                for p, entry in enumerate(trick["cards"]):
                    seat = (lead + p) % 4
                    what = f"{Seat(seat).id}'s card in trick {t + 1}"
                    facts += self.entry_facts(entry, trick_slot(t, seat), what, (*rel, "cards", p),
                                              lead_pos=p == 0)
            for key, entry in trick.get("plays", {}).items():
                seat = self.seat(key, *rel, "plays", key)
                what = f"{Seat(seat).id}'s card in trick {t + 1}"
                facts += self.entry_facts(entry, trick_slot(t, seat), what, (*rel, "plays", key),
                                          lead_pos=lead == seat)
            prev_winner = winner
        return facts
