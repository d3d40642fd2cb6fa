"""Settlement ledgers: every payment is a line naming payer, payee, rule and source.

Amounts are exact: an int number of *ticks*, ``TICKS_PER_ZHU`` to the 注.  12
ticks per 注 keep halves (分贏一吊) and splits among up to four holders exact
without floats.  Totals are always derived from the lines, and a ledger
balances to zero with the 官堆 pool as an explicit account.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..cards import CARD_HANZI

TICKS_PER_ZHU = 24
GUAN_DUI = 4
"""Account number of the 官堆 (public pool); seats are 0–3."""
ACCOUNT_IDS = ("east", "south", "west", "north", "guan_dui")
ACCOUNT_HANZI = ("東", "南", "西", "北", "官堆")


def zhu(ticks: int) -> Fraction:
    """Ticks as an exact number of 注."""
    return Fraction(ticks, TICKS_PER_ZHU)


def ticks(amount: Fraction | int | float | str) -> int:
    """An exact 注 amount as ticks; raises ValueError when it is not a whole tick."""
    value = Fraction(amount) * TICKS_PER_ZHU if not isinstance(amount, float) else \
        Fraction(str(amount)) * TICKS_PER_ZHU
    if value.denominator != 1:
        raise ValueError(f"{amount} 注 is not a multiple of 1/{TICKS_PER_ZHU}")
    return int(value)


def format_zhu(t: int, *, signed: bool = False) -> str:
    """Human form of a tick amount: ``3``, ``-1½``, ``+⅓``."""
    value = zhu(t)
    sign = "-" if value < 0 else ("+" if signed and value > 0 else "")
    value = abs(value)
    whole, frac = divmod(value.numerator, value.denominator)
    frac_text = ""
    if frac:
        frac_text = {Fraction(1, 2): "½", Fraction(1, 3): "⅓", Fraction(2, 3): "⅔",
                     Fraction(1, 4): "¼", Fraction(3, 4): "¾"}.get(
            Fraction(frac, value.denominator), f"{frac}/{value.denominator}")
    text = (str(whole) if whole or not frac_text else "") + frac_text
    return sign + (text or "0")


def json_number(t: int) -> int | float | str:
    """A JSON-friendly exact number: int, a binary-exact float, or "p/q" text."""
    value = zhu(t)
    if value.denominator == 1:
        return value.numerator
    if value.denominator in (2, 4):
        return float(value)
    return f"{value.numerator}/{value.denominator}"


def account_id(account: int) -> str:
    return ACCOUNT_IDS[account]


@dataclass(frozen=True, slots=True)
class Transfer:
    """One ledger line: *payer* pays *payee* ``amount`` ticks because of rule *item*."""

    payer: int
    payee: int
    amount: int
    item: str
    name: str
    source: str
    channel: str
    holder: int
    """The account whose rule item this line pays (the item's holder, or the offender)."""
    detail: str = ""
    firing: Any = field(default=None, repr=False, compare=False)
    """The rule firing this line pays for (settle.Firing), when it comes from an item."""

    @property
    def note(self) -> str:
        """What to show beside the line: the cards that made the item fire, or the detail."""
        if self.detail:
            return self.detail
        if self.firing is not None:
            return " ".join(CARD_HANZI[c] for c in self.firing.cards)
        return ""

    def __repr__(self) -> str:
        return (f"Transfer({account_id(self.payer)}→{account_id(self.payee)} "
                f"{format_zhu(self.amount)} {self.item} {self.name})")


def nets(lines: list[Transfer] | tuple[Transfer, ...]) -> list[int]:
    """Net ticks per account (four seats, then the 官堆) derived from the lines."""
    out = [0, 0, 0, 0, 0]
    for t in lines:
        out[t.payer] -= t.amount
        out[t.payee] += t.amount
    return out


def matrix(lines: list[Transfer] | tuple[Transfer, ...]) -> list[list[int]]:
    """matrix[a][b] = ticks account *a* paid account *b* in total (gross)."""
    m = [[0] * 5 for _ in range(5)]
    for t in lines:
        m[t.payer][t.payee] += t.amount
    return m
