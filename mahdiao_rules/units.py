"""Amounts in 注, exact: an int number of *ticks*, ``TICKS_PER_ZHU`` to the 注.

24 ticks per 注 keep halves (分贏一吊), thirds and splits among up to four holders exact
without floats.  Every stage counts in ticks — a ruleset's amounts, the ledger, the
statistics of a simulation — and shows them with :func:`format_zhu` or
:func:`json_number`.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

TICKS_PER_ZHU = 24


def is_number(value: Any) -> bool:
    """A number as the input reader gives it: an int, or a Decimal (true/false are not numbers)."""
    return isinstance(value, int | Decimal | float) and not isinstance(value, bool)


def exact(value: int | Decimal | float | Fraction) -> Fraction:
    """The exact rational *value* states.  The reader gives ints and Decimals, read exactly
    from the text; a float (data built in Python) is taken as the decimal it prints as."""
    if isinstance(value, float):
        return Fraction(repr(value))
    return Fraction(value)


def zhu(ticks: int) -> Fraction:
    """Ticks as an exact number of 注."""
    return Fraction(ticks, TICKS_PER_ZHU)


def ticks(amount: Fraction | int | Decimal | float | str) -> int:
    """An exact 注 amount as ticks; raises ValueError when it is not a whole tick."""
    value = (Fraction(amount) if isinstance(amount, str) else exact(amount)) * TICKS_PER_ZHU
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
    """A JSON-friendly exact number: int, a binary-exact float, or "p/q" text.

    A half or quarter is a float only while its numerator fits a float's 53 bits, so the
    float is the exact value (rulesets cannot come near: docs/limits.md)."""
    if t % TICKS_PER_ZHU == 0:  # the usual case, without building a Fraction
        return t // TICKS_PER_ZHU
    return fraction_number(zhu(t))


def fraction_number(value: Fraction) -> int | float | str:
    """An exact number as JSON writes amounts (:func:`json_number`'s rule, for any fraction,
    e.g. money in a stake unit): int, a half or quarter as a float, else "p/q" text."""
    if value.denominator == 1:
        return value.numerator
    if value.denominator in (2, 4) and abs(value.numerator) < 2 ** 53:
        return float(value)
    return f"{value.numerator}/{value.denominator}"
