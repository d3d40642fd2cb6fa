"""Canonical, citable deal codes: a bijective ranking of every deal, in a URL-safe alphabet.

A deal is the banker, the four hands *as sets* (seat order east, south, west, north)
and the stock *in order* (the face card 面張 first).  There are

    4 × 40! / (8!)⁴  =  4 × C(40; 8,8,8,8,8) × 8!  ≈ 1.24 × 10³⁰

of them: the multinomial counts the ways to split the 40 cards into the four hands and
the stock as sets, 8! orders the stock, 4 chooses the banker.  The code is

    <banker letter E|S|W|N> + 17 base64url digits of  rank = multiset_rank × 8! + stock_rank

* ``multiset_rank`` is the lexicographic rank of the word "where does card 0, 1, …, 39
  go" (letters 0–3 for the hands, 4 for the stock) among all words with eight of each
  letter, computed with exact integer multinomial coefficients (no enumeration);
* ``stock_rank`` is the Lehmer-code rank of the stock order among the 8! orders of its
  cards (cards compared by their number, strongest first within 十 萬 索 文).

17 digits of 64 hold 40!/(8!)⁴ ≈ 3.1 × 10²⁹ < 64¹⁷, so every deal has exactly one number of
17 digits, and :func:`decode` refuses a number out of range: the map is a bijection between
deals and valid codes.  The recorded play and the events are not part of a deal code (a
replay of a code plays the hand by the ruleset).

Versions.  A code is copied by hand into papers and notes, so the current one (version 2)
carries a check character and says its version::

    "2" + <banker letter> + 17 digits + <check digit>      (20 characters)

The check digit is Luhn mod 64 over the 19 characters before it (base64url values): it
changes with every single-character substitution anywhere in the code — the version, the
banker, a digit or the check itself — so a mistyped code is refused, never decoded to another
deal.  A dropped or added character changes the length, and a version-2 code can never be
read as a version-1 one (those start with the banker letter).  Version 1 — the banker letter
and the 17 digits, 18 characters, no check — is still decoded, and :func:`encode` writes
version 2.

>>> from mahdiao_rules.io.dealfile import random_deals
>>> d = random_deals("doc", 1)[0]
>>> code = encode(d)
>>> len(code), code[0], decode(code).stock == d.stock
(20, '2', True)
>>> decode(code[1:-1]).stock == d.stock        # the version-1 form of the same deal
True
"""

from __future__ import annotations

from math import factorial

from ..cards import Card
from ..deal import SEATS, Deal, Seat
from ..errors import InputError

__all__ = ["ALPHABET", "CODE_LENGTH", "N_DEALS", "V1_LENGTH", "check_digit", "decode", "encode", "rank",
           "unrank"]

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
"""RFC 4648 base64url digits, in their standard order (A = 0 … _ = 63)."""
_DIGIT = {ch: i for i, ch in enumerate(ALPHABET)}
BANKER_LETTERS = "ESWN"
N_GROUPS = 5  # four hands and the stock
GROUP_SIZE = 8
N_CARDS = 40
STOCK_ORDERS = factorial(8)
N_SPLITS = factorial(N_CARDS) // factorial(GROUP_SIZE) ** N_GROUPS
N_RANKS = N_SPLITS * STOCK_ORDERS
"""Deals for one banker: 40! / (8!)⁴."""
N_DEALS = 4 * N_RANKS
DIGITS = 17
V1_LENGTH = 1 + DIGITS
"""Version 1: the banker letter and 17 digits, no check (still decoded)."""
VERSION = "2"
CODE_LENGTH = 1 + V1_LENGTH + 1
"""Version 2 (what :func:`encode` writes): version, banker, 17 digits, check digit."""
assert 64 ** (DIGITS - 1) < N_RANKS <= 64 ** DIGITS


def _multinomial(counts: list[int]) -> int:
    """Number of words with counts[i] letters i: (Σ counts)! / Π counts[i]!."""
    out = factorial(sum(counts))
    for n in counts:
        out //= factorial(n)
    return out


def _split_rank(groups: list[int]) -> int:
    """Lexicographic rank of the word groups[0..39] among words with 8 of each letter 0–4."""
    left = [GROUP_SIZE] * N_GROUPS
    rank = 0
    for letter in groups:
        total = _multinomial(left)
        remaining = sum(left)
        for smaller in range(letter):
            if left[smaller]:
                # Words that put a smaller letter here: total × left[smaller] / remaining.
                rank += total * left[smaller] // remaining
        left[letter] -= 1
    return rank


def _split_unrank(rank: int) -> list[int]:
    left = [GROUP_SIZE] * N_GROUPS
    out = []
    for _ in range(N_CARDS):
        total = _multinomial(left)
        remaining = sum(left)
        for letter in range(N_GROUPS):
            if not left[letter]:
                continue
            block = total * left[letter] // remaining
            if rank < block:
                out.append(letter)
                left[letter] -= 1
                break
            rank -= block
        else:  # pragma: no cover - rank < N_SPLITS always finds a letter
            raise AssertionError("rank out of range")
    return out


def _perm_rank(order: list[int]) -> int:
    """Lehmer-code rank of *order* among the permutations of its (distinct) items."""
    items = sorted(order)
    rank = 0
    for i, x in enumerate(order):
        j = items.index(x)
        rank += j * factorial(len(order) - 1 - i)
        items.pop(j)
    return rank


def _perm_unrank(rank: int, items: list[int]) -> list[int]:
    items = sorted(items)
    out = []
    for i in range(len(items) - 1, -1, -1):
        j, rank = divmod(rank, factorial(i))
        out.append(items.pop(j))
    return out


def rank(deal: Deal) -> tuple[int, int]:
    """(banker, rank in 0 … 40!/(8!)⁴ − 1) of a deal; its play and events are ignored."""
    groups = [-1] * N_CARDS
    for seat in SEATS:
        for c in deal.hands[seat]:
            groups[c] = int(seat)
    for c in deal.stock:
        groups[c] = 4
    if -1 in groups or sorted(len(h) for h in deal.hands) != [8, 8, 8, 8] or len(deal.stock) != 8:
        raise InputError(f"deal {deal.id!r} is not a complete deal of 4 × 8 cards and an 8-card stock")
    return int(deal.banker), _split_rank(groups) * STOCK_ORDERS + _perm_rank([int(c) for c in deal.stock])


def unrank(banker: int, number: int, *, deal_id: str | None = None) -> Deal:
    """The deal of banker *banker* and rank *number* (inverse of :func:`rank`); hands sorted."""
    if not 0 <= number < N_RANKS:
        raise InputError(f"deal number {number} is out of range (0 … {N_RANKS - 1})")
    split, stock_rank = divmod(number, STOCK_ORDERS)
    groups = _split_unrank(split)
    hands = tuple(tuple(Card(c) for c in range(N_CARDS) if groups[c] == s) for s in SEATS)
    stock_cards = [c for c in range(N_CARDS) if groups[c] == 4]
    stock = tuple(Card(c) for c in _perm_unrank(stock_rank, stock_cards))
    seat = Seat(banker)
    return Deal(id=deal_id or "", banker=seat, hands=hands, stock=stock)  # type: ignore[arg-type]


def check_digit(text: str) -> str:
    """The Luhn mod 64 check character of *text* (base64url characters).

    Luhn mod N detects every single-character substitution for any N: a changed character
    changes its own term, doubled or not, and the doubling map is a permutation mod N.
    """
    total, double = 0, True
    for ch in reversed(text):
        v = _DIGIT[ch]
        if double:
            v *= 2
            v = v // 64 + v % 64
        total += v
        double = not double
    return ALPHABET[-total % 64]


def encode(deal: Deal) -> str:
    """The canonical code of a deal, version 2: ``2``, banker letter, 17 base64url digits
    and a check digit (20 characters)."""
    banker, number = rank(deal)
    digits = []
    for _ in range(DIGITS):
        number, d = divmod(number, 64)
        digits.append(ALPHABET[d])
    body = VERSION + BANKER_LETTERS[banker] + "".join(reversed(digits))
    return body + check_digit(body)


def decode(code: str) -> Deal:
    """The deal of a code, version 2 (checked) or 1 (no recorded play); its id is the code
    as given.  A bad code raises InputError saying why."""
    if not isinstance(code, str):
        raise InputError(f"a deal code must be text, not {code!r}")
    text = code.strip()
    if text[:1] == VERSION:
        if len(text) != CODE_LENGTH:
            raise InputError(f"deal code {code!r} has {len(text)} characters; a deal code has {CODE_LENGTH} "
                             "(2, the banker letter E, S, W or N, 17 digits and a check digit)")
        # Every character must be a digit before the check means anything; the digits of the
        # banker and the number (all but the check digit) are kept for below.
        digits = _digits(code, text[1:])[:-1]
        if check_digit(text[:-1]) != text[-1]:
            raise InputError(f"deal code {code!r} fails its check digit: a character is mistyped "
                             "(copy the code again from its source)")
        body = text[1:-1]
    elif len(text) == V1_LENGTH and not text[:1].isdigit():
        body = text  # version 1: no version, no check
        digits = None
    elif text[:1].isdigit():
        raise InputError(f"deal code {code!r} has version {text[0]}, which this mahdiao-rules cannot "
                         f"read (it reads version {VERSION} and the older 18-character codes)")
    else:
        raise InputError(f"deal code {code!r} has {len(text)} characters; a deal code has {CODE_LENGTH} "
                         "(2, the banker letter E, S, W or N, 17 digits and a check digit) — or 18 in "
                         "the older form without the check")
    banker = BANKER_LETTERS.find(body[0])
    if banker < 0:
        raise InputError(f"deal code {code!r} must start with the banker's letter E, S, W or N "
                         f"(after the version {VERSION} in a 20-character code), not {body[0]!r}")
    number = 0
    for d in (digits if digits is not None else _digits(code, body))[1:]:
        number = number * 64 + d
    if number >= N_RANKS:
        raise InputError(f"deal code {code!r} is not the code of any deal (its number is past the last deal)")
    return unrank(banker, number, deal_id=text)


def _digits(code: str, body: str) -> list[int]:
    out = []
    start = len(code.strip()) - len(body) + 1
    for i, ch in enumerate(body, start=start):
        d = _DIGIT.get(ch)
        if d is None:
            raise InputError(f"deal code {code!r}: character {i} ({ch!r}) is not one of A–Z a–z 0–9 - _")
        out.append(d)
    return out
