"""Compiled ruleset values: what the compiler produces and the settlement engine runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..messages import CarriedText
from .dsl import Amount, Condition, HandState, SetExpr

PHASES = ("deal", "play", "end")
"""deal: judged on the dealt hands (免斗, 異賞); play: after the eight tricks; end: every hand."""

CHANNELS = {
    "kai_zhu": "開注: 椿 collects from / pays each 散; a 散 collects from / pays the 椿",
    "kai_zhu_winner_only": "開注, but only a positive amount is collected (winner-collects reading)",
    "qiao_men": "敲門: a 散 collects from each other 散; nothing for the 椿",
    "gong_he": "公賀: each other player pays the holder (exempt players excepted)",
    "san_jia": "三家各開: each other player pays (or, negative, is paid by) the holder",
    "guan_dui": "官堆: the holder takes from (positive) or pays into (negative) the pool",
    "none": "no payment; the item only ends the hand or explains it",
}
CHANNEL_HANZI = {
    "kai_zhu": "開注", "kai_zhu_winner_only": "開注", "qiao_men": "敲門", "gong_he": "公賀",
    "san_jia": "三家", "guan_dui": "官堆", "none": "—",
}


@dataclass(frozen=True, slots=True)
class Cite:
    """One part of a citation: a source's exact words (``quote``), its content in other words
    (``paraphrase``), or the project's own reasoning (``inference``, with its ``basis``).

    ``via`` names the work through which ``ref`` is read (a transcription or a summary);
    ``section`` is the part of ``ref`` (a chapter, a heading), ``locator`` a file and symbol
    in a code repository.
    """

    ref: str = ""
    quote: str = ""
    paraphrase: str = ""
    inference: str = ""
    section: str = ""
    locator: str = ""
    via: str = ""
    note: str = ""
    basis: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        return "quote" if self.quote else "paraphrase" if self.paraphrase else "inference"

    @property
    def text(self) -> str:
        return self.quote or self.paraphrase or self.inference

    @property
    def keys(self) -> tuple[str, ...]:
        """Every bibliography key this part names."""
        return tuple(k for k in (self.ref, self.via, *self.basis) if k)

    @property
    def short(self) -> str:
        """Key, place and words in one line; only a quote is printed in 「」."""
        if self.kind == "inference":
            return f"inference: {self.inference}"
        where = self.ref + (f" via {self.via}" if self.via else "")
        place = self.section or self.locator
        if place:
            where += f", {place}"
        if self.quote:
            return f"{where}「{self.quote}」"
        return f"{where}: {self.paraphrase} (paraphrase)"


class SourceText(CarriedText):
    """A citation in one line (:attr:`Citation.short`: what ledger lines and JSON carry, in
    English, stable) that keeps its citation, so that a report words it in its language."""

    citation: Citation


@dataclass(frozen=True, slots=True)
class Citation:
    """Where a rule comes from: one or more parts (see :class:`Cite`).

    ``ref`` is the first source key (or ``""`` for a pure inference), ``quote`` the first
    part's words; ``short`` is what ledger lines carry.
    """

    parts: tuple[Cite, ...]

    @property
    def ref(self) -> str:
        return next((p.ref for p in self.parts if p.ref), "")

    @property
    def quote(self) -> str:
        return self.parts[0].text if self.parts else ""

    @property
    def short(self) -> SourceText:
        return SourceText("; ".join(p.short for p in self.parts), citation=self)

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(k for p in self.parts for k in p.keys))

    def text(self, sources: dict[str, dict[str, Any]]) -> str:
        title = sources.get(self.ref, {}).get("title", "")
        return self.short + (f" — {title}" if title else "")

    @staticmethod
    def of(node: Any) -> Citation:
        """A citation from its YAML form (one mapping or a list of them), already schema-checked."""
        nodes = node if isinstance(node, list) else [node]
        return Citation(tuple(
            Cite(ref=n.get("ref", ""), quote=n.get("quote", ""), paraphrase=n.get("paraphrase", ""),
                 inference=n.get("inference", ""), section=n.get("section", ""),
                 locator=n.get("locator", ""), via=n.get("via", ""), note=n.get("note", ""),
                 basis=tuple(n.get("basis", ())))
            for n in nodes))


@dataclass(frozen=True, slots=True)
class OptionDef:
    name: str
    title: str
    description: str
    default: str
    choices: dict[str, str]
    source: Citation
    choice_sources: dict[str, Citation] = field(default_factory=dict)
    """The citation of each reading, by value."""
    choice_names: dict[str, str] = field(default_factory=dict)
    """The short Chinese name of each reading, by value (pinyin and English in terms.yaml)."""

    def reading_name(self, value: str) -> str:
        """The Chinese name of reading *value*, or "" when the ruleset gives none."""
        return self.choice_names.get(value, "")


@dataclass(frozen=True, slots=True)
class ItemDef:
    """One rule item: metadata plus its compiled condition and amount."""

    id: str
    name: str
    gloss: str
    phase: str
    channel: str
    condition: Condition
    amount: Amount
    per: Callable[[HandState, int], int] | None
    source: Citation
    status: str = "attested"
    """attested | code | inferred (bibliography.attestation); see also inherited_from."""
    status_basis: str = ""
    """The bibliography key of the text or code the item rests on, or the inference."""
    inherited_from: str = ""
    """The id of the ruleset this item is taken from unchanged (``extends:``), or ""."""
    group: str | None = None
    ends_hand: bool = False
    split: bool = False
    bank: str | None = None
    concept: str | None = None
    note: str | None = None
    zhu_text: str = ""
    raw: dict[str, Any] = field(default_factory=dict, compare=False)
    evidence_won: SetExpr | None = None
    evidence_held: SetExpr | None = None
    need_won: int = 0
    """Cards the seat must all have won for the condition to hold (read by the heuristic policy)."""
    max_tricks: int = 8
    """At most this many tricks for the condition to hold (8: no bound; 1: not 正本)."""
    tags: dict[str, Any] = field(default_factory=dict, compare=False)
    """Scholarly tags from ``item_tags:`` (e.g. attested_qing), shown in rule tables."""


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a phase: a single item, or a group whose best member counts."""

    items: tuple[ItemDef, ...]
    group: str | None = None
    all_when: Condition | None = None
    """For a seat where this holds, every member of the group counts (not only the best)."""


@dataclass(frozen=True, slots=True)
class FineDef:
    id: str
    name: str
    amount: Callable[[HandState, Any], int]
    to: str
    ends_hand: bool
    source: Citation
    note: str | None = None
    zhu_text: str = ""
    gloss: str = ""
    bank: str | None = None
    """``redraw``: the next 椿 is drawn afresh (另拈椿) after this fine."""
    bank_card: SetExpr | None = None
    """When set, ``bank`` applies only when the event's card is in it (翻百老)."""


@dataclass(frozen=True, slots=True)
class OffenceDef:
    id: str
    name: str
    gloss: str
    activated: str
    requires_card: SetExpr | None
    requires_banker: bool
    source: Citation
    requires_affected: bool = False
    """Only events recorded with ``affected: true`` (the fault changed another's result)."""
    exempt_only_left: SetExpr | None = None
    """No 代賠 when all the offender still held when he made the fault was in this set."""
    exempt_at_play_of: SetExpr | None = None
    """The fault is his last play of one of these cards up to the event's trick."""


@dataclass(frozen=True, slots=True)
class DaiPeiDef:
    zheng_ben: int
    not_zheng_ben: int
    source: Citation
    offences: dict[str, OffenceDef]


@dataclass(frozen=True, slots=True)
class DecisionDef:
    """A question the sources leave open that the ruleset answers one way, and why."""

    id: str
    name: str
    reading: str
    reason: str
    source: Citation
    alternatives: str = ""


@dataclass(frozen=True, slots=True)
class Procedure:
    first_lead_from: str  # "banker" or a fixed seat id
    first_lead_offsets: dict[int, int]
    first_lead_rule: str  # option value: tou_jia (count) or zhuang
    num_overrides: dict[int, int]
    next_banker_rotate: int
    next_banker_rule: str  # rotate | top_earner
    sheng_dai: dict[int, int]  # 升代: face card → the card that becomes it
    source: Citation
    first_banker_rule: str = "draw"
    """draw (every seat alike) | face (the seat the 面張 count gives): a sitting's first 莊."""
    first_banker_source: Citation | None = None
    kai_chong: Any = None
    """Compiled 開沖 (ruleset.kai_chong.KaiChong), or None when the ruleset has no 開沖."""
    next_banker_source: Citation | None = None
    """The source of ``next_banker`` (``source`` is the first lead's when both have one)."""
    next_banker_mian_dou: str = "rule"
    """``redraw``: a hand not played (免斗) draws the 椿 afresh unless an item seized it;
    ``rule``: such a hand passes the bank like any other."""


@dataclass
class Ruleset:
    """A parsed, checked and compiled ruleset."""

    id: str
    name: str
    name_en: str
    description: str
    file: str
    content_hash: str
    sources: dict[str, dict[str, Any]]
    options: dict[str, OptionDef]
    option_values: dict[str, str]
    zhu_per_diao: int
    procedure: Procedure
    named_sets: dict[str, SetExpr]
    phases: dict[str, tuple[Step, ...]]
    items: dict[str, ItemDef]
    groups: dict[str, dict[str, Any]]
    he_exempt: Condition | None
    fines: dict[str, FineDef]
    dai_pei: DaiPeiDef | None
    decisions: tuple[DecisionDef, ...] = ()
    """Open questions the ruleset answers one way (``decisions:``), for rule tables."""
    extends: tuple[str, ...] = ()
    dynamic_set_nodes: tuple[Any, ...] = ()
    """The definitions of the stock-dependent named sets: node i fills ``HandState.sets[i]``."""
    he_exempt_node: Any = None
    """The condition he_exempt was compiled from (the generated engine emits it)."""
    engine: Any = field(default=None, repr=False, compare=False)
    """The generated engine (ruleset.codegen.engine), made when first needed."""
    set_info: dict[str, dict[str, str]] = field(default_factory=dict)
    """Named set → its Chinese name and gloss, for generated condition text."""
    fired_bits: dict[str, int] = field(default_factory=dict)
    """Item and group id → its bit in HandState.fired."""
    needs_trick_masks: bool = False
    """Whether settlement must record each won trick's cards (HandState.won_tricks)."""
    input_files: tuple[str, ...] = ()
    """The real path of every file it was built from (itself, its bases, its fragments)."""
    hand_cost: int = 0
    """What judging one hand may cost at most, in steps (ruleset/bounds.py: at most
    bounds.cost_limit(), checked when the ruleset compiled)."""
    order: int | None = None
    """Place in the reading order (``order:`` of the file itself; None: after the others)."""
    colour: str | None = None
    """The chart colour the file itself names (``colour:``), or None (chosen from the id)."""
    base_name: str = ""
    """For a ruleset that extends another: the base's name, shown as "variant of …"."""
    sitting: Any = None
    """The procedure between hands (ruleset.sitting.SittingProcedure)."""

    @property
    def item_count(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:  # short: the generated one prints every compiled closure
        changed = [f"{k}={v}" for k, v in self.option_values.items() if v != self.options[k].default]
        extra = f"; options {', '.join(changed)}" if changed else ""
        return f"<Ruleset {self.id} {self.name}: {self.item_count} items{extra}>"

    def cite(self, citation: Citation) -> str:
        return citation.text(self.sources)
