"""The 40 馬吊 cards as small ints, card sets as 40-bit masks.

A card is an int 0–39 (:class:`Card` names them).  Cards are numbered suit by
suit, strongest first inside each suit, so "a beats b" is simply "same suit and
a < b" — including the reversed 文 suit, whose strongest card is 空文.  A set
of cards is an int with bit ``1 << card`` set; :class:`CardSet` wraps such a
mask with ``set`` behaviour for readable code, while hot paths use bare ints.

Names are read in traditional and simplified Chinese with every alias in the
rules digest (§1.2, §7.1) and as ASCII ids; see :func:`parse_card`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from enum import IntEnum

from .errors import InputError


class Suit(IntEnum):
    """The four suits (門) in cross-suit rank order 十 > 萬 > 索 > 文."""

    SHI = 0
    WAN = 1
    SUO = 2
    WEN = 3

    @property
    def hanzi(self) -> str:
        return SUIT_HANZI[self]

    @property
    def pinyin(self) -> str:
        return self.name.lower()


SUIT_HANZI = ("十", "萬", "索", "文")

_NUMERALS = "一二三四五六七八九"


class Card(IntEnum):
    """The 40 cards, strongest first within each suit (digest §1.2)."""

    SHI_WANWAN = 0
    SHI_QIAN = 1
    SHI_BAI = 2
    SHI_90 = 3
    SHI_80 = 4
    SHI_70 = 5
    SHI_60 = 6
    SHI_50 = 7
    SHI_40 = 8
    SHI_30 = 9
    SHI_20 = 10
    WAN_9 = 11
    WAN_8 = 12
    WAN_7 = 13
    WAN_6 = 14
    WAN_5 = 15
    WAN_4 = 16
    WAN_3 = 17
    WAN_2 = 18
    WAN_1 = 19
    SUO_9 = 20
    SUO_8 = 21
    SUO_7 = 22
    SUO_6 = 23
    SUO_5 = 24
    SUO_4 = 25
    SUO_3 = 26
    SUO_2 = 27
    SUO_1 = 28
    WEN_KONG = 29
    WEN_BAN = 30
    WEN_1 = 31
    WEN_2 = 32
    WEN_3 = 33
    WEN_4 = 34
    WEN_5 = 35
    WEN_6 = 36
    WEN_7 = 37
    WEN_8 = 38
    WEN_9 = 39

    @property
    def id(self) -> str:
        """ASCII id such as ``shi_bai`` or ``wen_kong``."""
        return self.name.lower()

    @property
    def hanzi(self) -> str:
        """Canonical (traditional) name such as 百萬 or 空文."""
        return CARD_HANZI[self]

    @property
    def suit(self) -> Suit:
        return Suit(CARD_SUIT[self])

    @property
    def num(self) -> int:
        """Number used for seat/lead counts (空百千萬俱作一數; 半文 = 1 by default)."""
        return CARD_NUM[self]

    def __str__(self) -> str:
        return CARD_HANZI[self]


N_CARDS = 40
CARDS: tuple[Card, ...] = tuple(Card(c) for c in range(N_CARDS))
"""The Card of each number (faster than calling ``Card(c)`` in a loop)."""
ALL_CARDS_MASK = (1 << N_CARDS) - 1

# Suit boundaries: cards [start, end) of each suit.
SUIT_RANGES = ((0, 11), (11, 20), (20, 29), (29, 40))
CARD_SUIT: tuple[int, ...] = tuple(s for s, (a, b) in enumerate(SUIT_RANGES) for _ in range(a, b))
SUIT_MASKS: tuple[int, ...] = tuple(((1 << b) - 1) ^ ((1 << a) - 1) for a, b in SUIT_RANGES)


def _canonical_names() -> tuple[str, ...]:
    shi = ["萬萬", "千萬", "百萬"] + [_NUMERALS[n - 1] + "十" for n in range(9, 1, -1)]
    wan = [_NUMERALS[n - 1] + "萬" for n in range(9, 0, -1)]
    suo = [_NUMERALS[n - 1] + "索" for n in range(9, 0, -1)]
    wen = ["空文", "半文"] + [_NUMERALS[n - 1] + "文" for n in range(1, 10)]
    return tuple(shi + wan + suo + wen)


CARD_HANZI: tuple[str, ...] = _canonical_names()


def _nums() -> tuple[int, ...]:
    shi = [1, 1, 1] + list(range(9, 1, -1))
    wan = list(range(9, 0, -1))
    suo = list(range(9, 0, -1))
    wen = [1, 1] + list(range(1, 10))
    return tuple(shi + wan + suo + wen)


CARD_NUM: tuple[int, ...] = _nums()


def card_name(card: int) -> str:
    """The canonical hanzi name of a card (inverse of :func:`parse_card`)."""
    return CARD_HANZI[card]


def beats(a: int, b: int) -> bool:
    """True when card *a* captures card *b*: same suit and stronger."""
    return CARD_SUIT[a] == CARD_SUIT[b] and a < b


def below(card: int) -> int | None:
    """The next weaker card of the same suit, or None for the weakest."""
    nxt = card + 1
    if nxt < N_CARDS and CARD_SUIT[nxt] == CARD_SUIT[card]:
        return nxt
    return None


# --------------------------------------------------------------------------- names

# Traditional → simplified characters that occur in card and category names.
_SIMPLIFY = str.maketrans({
    "萬": "万", "貫": "贯", "錢": "钱", "銅": "铜", "餅": "饼", "紅": "红", "沒": "没",
    "湯": "汤", "勝": "胜", "極": "极", "賞": "赏", "門": "门", "張": "张", "錦": "锦",
    "趣": "趣", "雙": "双", "樁": "桩", "莊": "庄", "閒": "闲", "鬥": "斗", "卓": "卓",
    "尊": "尊", "突": "突", "覺": "觉",
})


def simplified(text: str) -> str:
    """Simplified-character spelling of a traditional card or category name."""
    return text.translate(_SIMPLIFY)


def _aliases() -> dict[str, int]:
    table: dict[int, list[str]] = {c: [CARD_HANZI[c], Card(c).id] for c in range(N_CARDS)}
    table[Card.SHI_WANWAN] += ["紅萬", "尊萬萬貫", "萬勝", "萬萬貫"]
    table[Card.SHI_QIAN] += ["千僧", "紅千", "千萬貫"]
    table[Card.SHI_BAI] += ["百老", "百子", "百", "大公突", "百萬貫"]
    table[Card.SHI_90] += ["九十萬", "小公突"]
    for n in range(2, 10):
        table[Card.SHI_20 - (n - 2)] += [_NUMERALS[n - 1] + "十萬", f"{n}十"]
    for n in range(1, 10):
        wan = Card.WAN_1 - (n - 1)
        suo = Card.SUO_1 - (n - 1)
        wen = Card.WEN_1 + (n - 1)
        numeral = _NUMERALS[n - 1]
        table[wan] += [numeral + "貫", f"{n}萬", f"{n}貫"]
        table[suo] += [numeral + "索子", f"{n}索"]
        table[wen] += [numeral + "錢", numeral + "銅", numeral + "餅", f"{n}文", f"{n}錢", f"{n}銅"]
    table[Card.WAN_9] += ["尊九萬貫", "尊九萬"]
    table[Card.SUO_9] += ["尊九索"]
    table[Card.WEN_KONG] += ["空沒文", "尊空沒文", "空湯", "空堂", "空文錢"]
    table[Card.WEN_BAN] += ["枝花", "半文錢"]
    out: dict[str, int] = {}
    for card, names in table.items():
        for name in names:
            for spelling in (name, simplified(name)):
                if spelling in out and out[spelling] != card:
                    raise AssertionError(f"alias {spelling!r} is ambiguous")
                out[spelling] = card
    return out


CARD_ALIASES: dict[str, int] = _aliases()


def closest_names(text: str, names: Iterable[str], n: int = 3) -> list[str]:
    """Up to *n* names close to *text*, best first (for "did you mean")."""
    text = str(text)
    pool = [str(name) for name in names]
    found = difflib.get_close_matches(text, pool, n=n, cutoff=0.6 if text.isascii() else 0.4)
    if not found and not text.isascii():
        # Short hanzi names share few characters; fall back to a common hanzi.
        hanzi = {ch for ch in text if not ch.isascii()}
        found = [name for name in pool if hanzi & set(name)][:n]
    return found


def parse_card(text: str) -> Card:
    """Read one card name in any accepted spelling.

    >>> parse_card("百老"), parse_card("枝花"), parse_card("九贯"), parse_card("wen_kong")
    (<Card.SHI_BAI: 2>, <Card.WEN_BAN: 30>, <Card.WAN_9: 11>, <Card.WEN_KONG: 29>)
    """
    if not isinstance(text, str):
        raise InputError(f"a card name must be text, not {text!r}")
    key = text.strip()
    card = CARD_ALIASES.get(key)
    if card is None:
        card = CARD_ALIASES.get(key.lower())
    if card is None:
        # Suggest distinct cards under their canonical names, not one card's many spellings.
        hints = list(dict.fromkeys(CARD_HANZI[CARD_ALIASES[h]]
                                   for h in closest_names(key, CARD_ALIASES, n=8)))[:3]
        hint = f" (did you mean {' or '.join(hints)}?)" if hints else ""
        raise InputError(f"unknown card {text!r}{hint}")
    return Card(card)


# --------------------------------------------------------------------------- sets


def mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def bits_of(mask: int) -> list[int]:
    """The card numbers of a mask, lowest (strongest) first, as plain ints (hot paths)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def cards_of(mask: int) -> Iterator[Card]:
    """The cards of a mask, strongest suit and card first."""
    while mask:
        low = mask & -mask
        yield Card(low.bit_length() - 1)
        mask ^= low


class CardSet:
    """An immutable set of cards backed by a 40-bit mask.

    >>> CardSet.parse("百老 千萬") | CardSet.parse("萬萬")
    CardSet.parse('萬萬 千萬 百萬')
    """

    __slots__ = ("mask",)

    def __init__(self, cards: Iterable[int] | int = 0) -> None:
        self.mask = cards if isinstance(cards, int) else mask_of(cards)

    @classmethod
    def parse(cls, text: str | Iterable[str]) -> CardSet:
        names = text.split() if isinstance(text, str) else text
        return cls(mask_of(parse_card(n) for n in names))

    def __iter__(self) -> Iterator[Card]:
        return cards_of(self.mask)

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __contains__(self, card: object) -> bool:
        return isinstance(card, int) and 0 <= card < N_CARDS and bool(self.mask >> card & 1)

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __bool__(self) -> bool:
        return bool(self.mask)

    def issubset(self, other: CardSet) -> bool:
        return self.mask & ~other.mask == 0

    def names(self) -> list[str]:
        return [CARD_HANZI[c] for c in self]

    def __repr__(self) -> str:
        return f"CardSet.parse({' '.join(self.names())!r})"


# --------------------------------------------------------------------------- categories

C = Card
ZHENG_SHANG = mask_of([C.SHI_WANWAN, C.WAN_9, C.SUO_9, C.WEN_KONG])
CI_SHANG = mask_of([C.SHI_QIAN, C.WAN_8, C.SUO_8, C.WEN_BAN])
BAI_LAO = mask_of([C.SHI_BAI])
JI = mask_of([C.SHI_20, C.WAN_1, C.SUO_1, C.WEN_9])
FU_JI = mask_of([C.SHI_30, C.WAN_2, C.SUO_2, C.WEN_8])
HONG_ZHANG = ZHENG_SHANG | CI_SHANG | BAI_LAO
HONG_YIN = ZHENG_SHANG | JI | mask_of([C.SHI_QIAN, C.SHI_BAI])
JIN_ZHANG = HONG_ZHANG | JI
QING_ZHANG = ALL_CARDS_MASK & ~JIN_ZHANG
CI_TU = mask_of([C.WAN_5, C.WAN_6, C.WAN_8])
GONG_TU = mask_of([C.SHI_BAI, C.SHI_90])
SAN_HUA = mask_of([C.SHI_WANWAN, C.SHI_QIAN, C.SHI_BAI])

# id → (mask, hanzi names, English gloss).  The first hanzi name is canonical.
CATEGORIES: dict[str, tuple[int, tuple[str, ...], str]] = {
    "zheng_shang": (ZHENG_SHANG, ("正賞", "尊", "四尊"), "the four top cards (honours)"),
    "ci_shang": (CI_SHANG, ("次賞", "肩", "副尊"), "the four second cards (shoulders)"),
    "bai_lao": (BAI_LAO, ("百老",), "the 百萬 bonus card"),
    "ji": (JI, ("極", "趣", "四小"), "the four lowest cards"),
    "fu_ji": (FU_JI, ("副極", "副趣"), "the four second-lowest cards"),
    "hong_zhang": (HONG_ZHANG, ("紅張", "九紅"), "app red cards: 4 正賞 + 4 肩 + 百老"),
    "hong_yin": (HONG_YIN, ("紅印",), "red-seal cards (Wikipedia): 4 尊 + 4 極 + 千萬 + 百萬"),
    "jin_zhang": (JIN_ZHANG, ("錦張",), "app 紅張 + 極"),
    "qing_zhang": (QING_ZHANG, ("青張",), "ordinary cards: neither 紅張 nor 極"),
    "ci_tu": (CI_TU, ("雌突",), "五萬, 六萬, 八萬 (twin-figure cards)"),
    "gong_tu": (GONG_TU, ("公突",), "百萬 (大公突) and 九十 (小公突)"),
    "san_hua": (SAN_HUA, ("三花",), "萬萬, 千萬, 百萬"),
    "shi": (SUIT_MASKS[Suit.SHI], ("十", "十門", "十字", "十子"), "the 十 suit"),
    "wan": (SUIT_MASKS[Suit.WAN], ("萬門", "萬字", "貫"), "the 萬 suit"),
    "suo": (SUIT_MASKS[Suit.SUO], ("索", "索門", "索子"), "the 索 suit"),
    "wen": (SUIT_MASKS[Suit.WEN], ("文", "文門", "文錢"), "the 文 suit"),
}
del C


def _category_aliases() -> dict[str, str]:
    out: dict[str, str] = {}
    for cid, (_mask, names, _gloss) in CATEGORIES.items():
        for name in (cid, *names):
            for spelling in (name, simplified(name)):
                out[spelling] = cid
    return out


CATEGORY_ALIASES: dict[str, str] = _category_aliases()
