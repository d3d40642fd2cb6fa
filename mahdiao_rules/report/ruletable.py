"""Rule tables for articles: one ruleset's items, and several rulesets compared by concept.

Both models are plain data for the templates ``rules-table.*.j2`` and
``rules-diff.*.j2``.  Conditions and amounts are generated from each item's
YAML by describe.py, so a table can never disagree with what the engine pays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..ruleset import colour_of
from ..ruleset.bibliography import STATUSES
from ..ruleset.describe import Describer
from ..ruleset.model import CHANNEL_HANZI, Citation, ItemDef, Ruleset
from .cite import bibliography, citation_text, cite_parts, short_reference, used_sources
from .replay import ruleset_info, stamp_info


class Footnotes:
    """Numbered citations of one table: the same citation gets the same number."""

    def __init__(self, sources: dict[str, dict[str, Any]]) -> None:
        self.sources = sources
        self.numbers: dict[str, int] = {}
        self.notes: list[dict[str, Any]] = []

    def __call__(self, citation: Citation) -> int:
        key = citation.short
        if key not in self.numbers:
            self.numbers[key] = len(self.notes) + 1
            self.notes.append({"n": self.numbers[key], "parts": cite_parts(citation, self.sources),
                               "text": citation_text(citation, self.sources),
                               # kept for templates that print the first part's key and words
                               "ref": citation.ref, "quote": citation.quote})
        return self.numbers[key]


def _options(rs: Ruleset, fn: Footnotes | None = None) -> list[dict[str, Any]]:
    fn = fn or Footnotes(rs.sources)
    return [
        {
            "ruleset": rs.id,
            "name": o.name,
            "title": o.title,
            "description": o.description,
            "default": o.default,
            "current": rs.option_values.get(o.name, o.default),
            "choices": [{"value": k, "description": v,
                         "footnote": fn(o.choice_sources[k]) if k in o.choice_sources else None}
                        for k, v in o.choices.items()],
            "source": o.source.short,
            "footnote": fn(o.source),
        }
        for o in rs.options.values()
    ]


def item_status(item: ItemDef, sources: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What an item rests on: its status, the text (or code, or reasoning) named, and for an
    inherited item the ruleset it comes from."""
    basis = item.status_basis
    text = basis if item.status == "inferred" else short_reference(basis, sources.get(basis, {}))
    return {"status": "inherited" if item.inherited_from else item.status,
            "base_status": item.status, "inherited_from": item.inherited_from,
            "status_basis": basis, "status_text": text}


def _tags(item: ItemDef, fn: Footnotes) -> list[dict[str, Any]]:
    out = []
    for tag, value in item.tags.items():
        if isinstance(value, Citation):
            out.append({"tag": tag, "text": citation_text(value, fn.sources),
                        "parts": cite_parts(value, fn.sources), "footnote": fn(value)})
        else:
            out.append({"tag": tag, "text": str(value), "parts": [], "footnote": None})
    return out


def _decisions(rs: Ruleset, fn: Footnotes) -> list[dict[str, Any]]:
    """The open questions the ruleset answers with one reading (``decisions:``)."""
    return [{"id": d.id, "name": d.name, "reading": d.reading, "alternatives": d.alternatives,
             "reason": d.reason, "source": d.source.short, "footnote": fn(d.source)}
            for d in rs.decisions]


def rules_table(rs: Ruleset, *, command: str = "") -> dict[str, Any]:
    """Every item of *rs*: names, generated condition and amount, channel, status, footnoted source."""
    d = Describer(rs)
    sources = used_sources([rs])
    fn = Footnotes(sources)
    items = []
    for item in rs.items.values():
        text = d.item(item)
        items.append({
            "id": item.id,
            "name": item.name,
            "gloss": item.gloss,
            "concept": item.concept or item.id,
            "phase": item.phase,
            "condition": text["condition"],
            "amount": text["amount"],
            "short_amount": d.short_amount(item.raw),
            "channel": text["channel"],
            "channel_hanzi": text["channel_hanzi"],
            "group": item.group,
            "ends_hand": item.ends_hand,
            "split": item.split,
            "bank": item.bank,
            "note": item.note or "",
            "source": item.source.short,
            "footnote": fn(item.source),
            "tags": _tags(item, fn),
            **item_status(item, sources),
        })
    fines = [{"id": f.id, "name": f.name, "gloss": f.gloss, "zhu_text": f.zhu_text, "to": f.to,
              "ends_hand": f.ends_hand, "source": f.source.short, "footnote": fn(f.source)}
             for f in rs.fines.values()]
    options = _options(rs, fn)
    bib = bibliography(sources, [rs])
    return {
        "kind": "rules-table",
        "ruleset": {**ruleset_info(rs), "description": rs.description},
        "items": items,
        "footnotes": fn.notes,
        "options": options,
        "decisions": _decisions(rs, fn),
        "fines": fines,
        "statuses": _status_counts(items),
        "bibliography": bib,
        "source_list": bib,
        "stamp": stamp_info([rs], [], command),
    }


def _status_counts(items: list[dict[str, Any]]) -> dict[str, int]:
    return {s: sum(1 for it in items if it["status"] == s) for s in STATUSES}


def rules_diff(rulesets: Sequence[Ruleset], *, command: str = "") -> dict[str, Any]:
    """One row per concept, one column per ruleset: the amount, or "—" where absent.

    An amount that is an expression shows as "ƒ" in the row; the row's ``formula``
    flag asks the template to spell it out with the conditions that differ.
    """
    describers = [Describer(rs) for rs in rulesets]
    concepts: dict[str, str] = {}
    for rs in rulesets:
        for item in rs.items.values():
            concepts.setdefault(item.concept or item.id, item.name)
    rows = []
    for concept, name in concepts.items():
        cells, values, conditions, channels = [], [], [], []
        for rs, d in zip(rulesets, describers, strict=True):
            item = next((i for i in rs.items.values() if (i.concept or i.id) == concept), None)
            if item is None:
                cells.append({"present": False, "text": "—", "formula": False, "amount": "",
                              "name": "", "item": "", "channel": "", "channel_hanzi": "",
                              "source": ""})
                values.append(None)
                conditions.append("")
                continue
            text = d.item(item)
            short = d.short_amount(item.raw)
            cells.append({"present": True, "text": short or "ƒ", "formula": short is None,
                          "amount": text["amount"], "name": item.name, "item": item.id,
                          "channel": text["channel"], "channel_hanzi": text["channel_hanzi"],
                          "source": item.source.short, **item_status(item, rs.sources)})
            values.append(d.zhu_value(item.raw))
            conditions.append(text["condition"])
            channels.append(text["channel"])
        present = [c for c in cells if c["present"]]
        channels_differ = len({CHANNEL_HANZI.get(c, c) for c in channels}) > 1
        for cell in cells:
            # What the table shows: the amount, its channel where the rulesets pay it differently,
            # and the ruleset's own name where it differs from the row's.
            shown = cell["text"]
            if cell["present"] and channels_differ:
                shown += f" ({cell['channel_hanzi']})"
            if cell["present"] and cell["name"] != name:
                shown = f"{cell['name']} {shown}"
            cell["shown"] = shown
        shown_conditions = [c for c in conditions if c]
        rows.append({
            "concept": concept,
            "name": name,
            "cells": cells,
            "values": values,
            "conditions": conditions,
            "channels_differ": channels_differ,
            "differs": len({c["text"] for c in cells}) > 1 or len(set(shown_conditions)) > 1
            or len(present) < len(cells),
            "condition_differs": len(set(shown_conditions)) > 1,
            "formula": any(c["formula"] for c in cells),
        })
    return {
        "kind": "rules-diff",
        "rulesets": [ruleset_info(rs) for rs in rulesets],
        "units": [rs.zhu_per_diao for rs in rulesets],
        "rows": rows,
        "options": [o for rs in rulesets for o in _options(rs)],
        "chart": {
            "categories": [r["name"] for r in rows if any(v is not None for v in r["values"])],
            "series": [rs.id for rs in rulesets],
            "colours": [colour_of(rs) for rs in rulesets],
            "values": [r["values"] for r in rows if any(v is not None for v in r["values"])],
            "unit": "注",
        },
        "bibliography": bibliography(used_sources(rulesets), rulesets),
        "source_list": bibliography(used_sources(rulesets), rulesets),
        "stamp": stamp_info(rulesets, [], command),
    }
