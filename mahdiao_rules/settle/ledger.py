"""Settlement ledgers: every payment is a line naming payer, payee, rule and source.

Amounts are exact ticks (:mod:`mahdiao_rules.units`).  Totals are always derived
from the lines, and a ledger balances to zero with the 官堆 pool as an explicit
account.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..cards import CARD_HANZI
from ..units import format_zhu

GUAN_DUI = 4
"""Account number of the 官堆 (public pool); seats are 0–3."""
ACCOUNT_IDS = ("east", "south", "west", "north", "guan_dui")
ACCOUNT_HANZI = ("東", "南", "西", "北", "官堆")


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
