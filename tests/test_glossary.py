"""The glossary in docs/glossary.md lists every card, category and rule id with its hanzi."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mahdiao_rules.cards import CATEGORIES, Card
from mahdiao_rules.report import glossary
from mahdiao_rules.ruleset import bundled_ids, find_ruleset

GLOSSARY = Path(__file__).resolve().parent.parent / "docs" / "glossary.md"


def rows() -> dict[str, str]:
    """id → hanzi column of every table row that starts with a code id."""
    out = {}
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `([a-z0-9_]+)`[^|]*\| ([^|]+) \|", line)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


@pytest.mark.parametrize("card", list(Card), ids=lambda c: c.id)
def test_every_card_is_in_the_glossary_with_its_hanzi(card):
    assert rows()[card.id] == card.hanzi


@pytest.mark.parametrize("cid", list(CATEGORIES))
def test_every_category_is_in_the_glossary(cid):
    assert rows()[cid].split(" / ")[0] == CATEGORIES[cid][1][0]


def test_rule_item_section_is_up_to_date():
    text = GLOSSARY.read_text(encoding="utf-8")
    section = text[text.index(glossary.BEGIN): text.index(glossary.END) + len(glossary.END)]
    assert section == glossary.render_section(), "run: python -m mahdiao_rules.report.glossary"
    terms = text[text.index(glossary.TERMS_BEGIN): text.index(glossary.TERMS_END) + len(glossary.TERMS_END)]
    assert terms == glossary.render_terms(), "run: python -m mahdiao_rules.report.glossary"


@pytest.mark.parametrize("rs_id", bundled_ids())
def test_every_rule_item_is_in_the_glossary(rs_id):
    rs = find_ruleset(rs_id)
    pairs = {(m.group(1), m.group(2).strip()) for m in re.finditer(
        r"\| `([a-z0-9_]+)` \| ([^|]+) \|", GLOSSARY.read_text(encoding="utf-8"))}
    for item in rs.items.values():
        assert (item.id, item.name) in pairs, item.id
