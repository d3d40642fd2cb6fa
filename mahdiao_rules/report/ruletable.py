"""Rule tables for articles: one ruleset's items, and several rulesets compared by concept.

Both models are plain data for the templates ``rules-table.*.j2`` and
``rules-diff.*.j2``.  Conditions and amounts are generated from each item's
YAML by describe.py, so a table can never disagree with what the engine pays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..ruleset.describe import Describer
from ..ruleset.model import CHANNEL_HANZI, Ruleset
from .replay import ruleset_info, source_list, stamp_info


def _options(rs: Ruleset) -> list[dict[str, Any]]:
    return [
        {
            "ruleset": rs.id,
            "name": o.name,
            "title": o.title,
            "description": o.description,
            "default": o.default,
            "current": rs.option_values.get(o.name, o.default),
            "choices": [{"value": k, "description": v} for k, v in o.choices.items()],
            "source": o.source.short,
        }
        for o in rs.options.values()
    ]


def rules_table(rs: Ruleset, *, command: str = "") -> dict[str, Any]:
    """Every item of *rs*: names, generated condition and amount, channel, footnoted source."""
    d = Describer(rs)
    notes: dict[tuple[str, str], int] = {}  # (ref, quote) → footnote number
    items = []
    for item in rs.items.values():
        text = d.item(item)
        key = (item.source.ref, item.source.quote)
        number = notes.setdefault(key, len(notes) + 1)
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
            "footnote": number,
        })
    footnotes = [{"n": n, "ref": ref, "quote": quote,
                  "title": rs.sources.get(ref, {}).get("title", ""),
                  "where": rs.sources.get(ref, {}).get("where", "")}
                 for (ref, quote), n in notes.items()]
    fines = [{"id": f.id, "name": f.name, "zhu_text": f.zhu_text, "to": f.to,
              "ends_hand": f.ends_hand, "source": f.source.short} for f in rs.fines.values()]
    return {
        "kind": "rules-table",
        "ruleset": {**ruleset_info(rs), "description": rs.description},
        "items": items,
        "footnotes": footnotes,
        "options": _options(rs),
        "fines": fines,
        "source_list": source_list([rs]),
        "stamp": stamp_info([rs], [], command),
    }


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
                          "source": item.source.short})
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
            "values": [r["values"] for r in rows if any(v is not None for v in r["values"])],
            "unit": "注",
        },
        "source_list": source_list(rulesets),
        "stamp": stamp_info(rulesets, [], command),
    }
