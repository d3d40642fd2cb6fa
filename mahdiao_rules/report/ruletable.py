"""Rule tables for articles: one ruleset's items, and several rulesets compared by concept.

:func:`rules_table` and :func:`rules_diff` are the models (plain data: ``rules-table`` and
``rules-diff`` in docs/output-formats.md); :func:`rules_table_view` and :func:`rules_diff_view`
what the templates show (footnote numbers, shown texts, the chart, the glossary).

Both models are plain data for the templates ``rules-table.*.j2`` and ``rules-diff.*.j2``.
Conditions and amounts are generated from each item's YAML by describe.py, so a table can
never disagree with what the engine pays; names carry pinyin and English (terms.py), glosses
and readings their Chinese text for ``--lang zh-*`` (rulesets/i18n/), every row its status and
source (bibliography.py, cite.py).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from ..ruleset import colour_of
from ..ruleset.bibliography import STATUSES
from ..ruleset.correspondences import Same, row_key
from ..ruleset.describe import Describer
from ..ruleset.model import Citation, ItemDef, OptionDef, Ruleset
from ..ruleset.terms import english, glossary_for, pinyin, translated
from ..units import json_number, ticks
from .cite import bibliography, citation_text, cite_parts, short_reference, used_sources
from .contract import citation_data, cite_info, envelope, sources_table
from .contract import stamp as run_stamp
from .replay import ruleset_info


def prose_lang(lang: str) -> str:
    """The describe.py language of a report language (zh-Hant and zh-Hans share ``zh``)."""
    return "zh" if lang.startswith("zh") else "en"


class Footnotes:
    """Numbered citations of one table: the same citation gets the same number."""

    def __init__(self, sources: dict[str, dict[str, Any]], lang: str = "en") -> None:
        self.sources = sources
        self.lang = lang
        self.numbers: dict[str, int] = {}
        self.notes: list[dict[str, Any]] = []

    def __call__(self, citation: Citation) -> int:
        key = citation.short
        if key not in self.numbers:
            self.numbers[key] = len(self.notes) + 1
            self.notes.append({"n": self.numbers[key], "parts": cite_parts(citation, self.sources, self.lang),
                               "text": citation_text(citation, self.sources),
                               # kept for templates that print the first part's key and words
                               "ref": citation.ref, "quote": citation.quote})
        return self.numbers[key]


class Texts:
    """A ruleset's glosses, descriptions and notes in the report's language (English as
    written in the YAML, Chinese from the translations, falling back to the English)."""

    def __init__(self, rs: Ruleset, lang: str) -> None:
        self.chain = (rs.id, *reversed(rs.extends))
        self.zh = prose_lang(lang) == "zh"

    def __call__(self, kind: str, ident: str, field: str, english_text: str) -> str:
        if not self.zh or not english_text:
            return english_text
        return translated(self.chain, kind, ident, field, english_text)


def names(name: str) -> dict[str, str]:
    """A Chinese name with its pinyin and English name (a joined name "渾成／八同" part by part)."""
    parts = [p for p in re.split(r"[／・]", name) if p]
    if pinyin(name) or len(parts) == 1:
        return {"name": name, "pinyin": pinyin(name), "en": english(name)}
    return {"name": name, "pinyin": " / ".join(pinyin(p) for p in parts),
            "en": " / ".join(english(p) for p in parts)}


def reading_names(option: OptionDef, value: str) -> dict[str, str]:
    """A reading's Chinese name, pinyin and English name ("" where the ruleset names none)."""
    name = option.reading_name(value)
    return {"name": name, "pinyin": pinyin(name) if name else "", "en": english(name) if name else ""}


def _options(rs: Ruleset, fn: Footnotes, tx: Texts) -> list[dict[str, Any]]:
    return [
        {
            "ruleset": rs.id,
            "name": o.name,
            "title": o.title,
            "pinyin": pinyin(o.title),
            "en": english(o.title),
            "description": tx("options", o.name, "description", o.description),
            "default": o.default,
            "current": rs.option_values.get(o.name, o.default),
            "choices": [{"value": k, **reading_names(o, k),
                         "description": tx("readings", f"{o.name}.{k}", "gloss", v),
                         "footnote": fn(o.choice_sources[k]) if k in o.choice_sources else None}
                        for k, v in o.choices.items()],
            "current_name": o.reading_name(rs.option_values.get(o.name, o.default)),
            "default_name": o.reading_name(o.default),
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
                        "parts": cite_parts(value, fn.sources, fn.lang), "footnote": fn(value)})
        else:
            out.append({"tag": tag, "text": str(value), "parts": [], "footnote": None})
    return out


def _decisions(rs: Ruleset, fn: Footnotes, tx: Texts) -> list[dict[str, Any]]:
    """The open questions the ruleset answers with one reading (``decisions:``)."""
    return [{"id": d.id, **names(d.name),
             "reading": tx("decisions", d.id, "reading", d.reading),
             "alternatives": tx("decisions", d.id, "alternatives", d.alternatives),
             "reason": tx("decisions", d.id, "reason", d.reason),
             "source": d.source.short, "footnote": fn(d.source)}
            for d in rs.decisions]


LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def shared_formulas(d: Describer, items: Iterable[ItemDef], *, min_items: int = 3,
                    min_length: int = 40) -> dict[str, str]:
    """Sub-expressions of amounts that many items share, each given a label ("[A]") so that a
    table states the formula once instead of in every row."""
    counts = Counter(part for it in items for part in set(d.sum_parts(it.raw)))
    common = [t for t, n in counts.most_common() if n >= min_items and len(t) >= min_length]
    return {text: f"[{LABELS[i]}]" for i, text in enumerate(common[:len(LABELS)])}


def _describers(rs: Ruleset, lang: str) -> tuple[Describer, list[dict[str, str]]]:
    probe = Describer(rs, prose_lang(lang))
    shared = shared_formulas(probe, rs.items.values())
    formulas = [{"label": label, "text": text} for text, label in shared.items()]
    return Describer(rs, prose_lang(lang), shared=shared), formulas


def rules_table_view(rs: Ruleset, *, stamp: dict[str, Any] | None = None, lang: str = "en") -> dict[str, Any]:
    """Every item of *rs*: names (hanzi, pinyin, English), generated condition and amount,
    channel, status, footnoted source; the options, fines, formulas and glossary — as the
    templates show them (the model, for JSON and CSV, is :func:`rules_table`)."""
    d, formulas = _describers(rs, lang)
    tx = Texts(rs, lang)
    sources = used_sources([rs])
    fn = Footnotes(sources, lang)
    items = []
    for item in rs.items.values():
        text = d.item(item)
        items.append({
            "id": item.id,
            **names(item.name),
            "gloss": tx("items", item.id, "gloss", item.gloss),
            "concept": item.concept or item.id,
            "phase": item.phase,
            "condition": text["condition"],
            "amount": text["amount"],
            "short_amount": d.short_amount(item.raw),
            "channel": text["channel"],
            "channel_hanzi": text["channel_hanzi"],
            "channel_pinyin": pinyin(text["channel_hanzi"]),
            "group": item.group,
            "group_name": str(rs.groups.get(item.group, {}).get("name", item.group or "")),
            "ends_hand": item.ends_hand,
            "split": item.split,
            "bank": item.bank,
            "note": tx("items", item.id, "note", item.note or ""),
            "source": item.source.short,
            "footnote": fn(item.source),
            "tags": _tags(item, fn),
            **item_status(item, sources),
        })
    fines = [{"id": f.id, **names(f.name), "gloss": tx("fines", f.id, "gloss", f.gloss),
              "zhu_text": f.zhu_text, "to": f.to, "ends_hand": f.ends_hand, "source": f.source.short,
              "footnote": fn(f.source)} for f in rs.fines.values()]
    options = _options(rs, fn, tx)
    sets = {k: {**v, "gloss": tx("sets", k, "gloss", v.get("gloss", ""))} for k, v in rs.set_info.items()}
    texts = [t for it in items for t in (it["condition"], it["amount"], it["gloss"])]
    texts += [f["text"] for f in formulas] + [s["gloss"] for s in sets.values()]
    bib = bibliography(sources, [rs], lang)
    return {
        "kind": "rules-table",
        "lang": lang,
        "ruleset": {**ruleset_info(rs), "description": tx("ruleset", "description", "description",
                                                           rs.description)},
        "items": items,
        "formulas": formulas,
        "footnotes": fn.notes,
        "options": options,
        "decisions": _decisions(rs, fn, tx),
        "fines": fines,
        "statuses": _status_counts(items),
        "glossary": glossary_for(texts, sets),
        "bibliography": bib,
        "source_list": bib,
        "stamp": stamp if stamp is not None else run_stamp(""),
    }


def _status_counts(items: list[dict[str, Any]]) -> dict[str, int]:
    return {s: sum(1 for it in items if it["status"] == s) for s in STATUSES}


# ====================================================================== rules diff


def _cell(rs: Ruleset, d: Describer, members: list[ItemDef], plain: Describer) -> dict[str, Any]:
    """One ruleset's items of a row: amount (short, or "ƒ" for an expression), conditions,
    status; several members (八全 and 七桌吊) are listed by name."""
    if not members:
        return {"present": False, "text": "—", "shown": "—", "formula": False, "amount": "",
                "condition": "", "items": [], "name": "", "item": "", "channel": "",
                "channel_hanzi": "", "status": "", "inherited_from": "", "value": None, "compared": ("", "")}
    parts, conditions, amounts, compared = [], [], [], []
    for it in members:
        unnamed = plain.item(it)  # readings unnamed: a ruleset that names none compares alike
        compared.append((unnamed["condition"], unnamed["amount"]))
        text = d.item(it)
        short = d.short_amount(it.raw)
        parts.append({"name": it.name, "id": it.id, "short": short, "amount": text["amount"],
                      "condition": text["condition"], "channel": text["channel"],
                      "channel_hanzi": text["channel_hanzi"]})
        conditions.append(text["condition"])
        amounts.append(text["amount"])
    first = members[0]
    status = item_status(first, rs.sources)
    formula = any(p["short"] is None for p in parts)
    return {"present": True, "formula": formula, "items": parts, "name": first.name, "item": first.id,
            "text": " / ".join(p["short"] or "ƒ" for p in parts),
            "amount": "; ".join(amounts), "condition": "; ".join(conditions),
            "channel": parts[0]["channel"], "channel_hanzi": parts[0]["channel_hanzi"],
            "value": d.zhu_value(first.raw) if len(members) == 1 else None,
            "compared": ("; ".join(c for c, _ in compared), "; ".join(a for _, a in compared)),
            **status}


def rules_diff_view(rulesets: Sequence[Ruleset], *, stamp: dict[str, Any] | None = None,
                    lang: str = "en") -> dict[str, Any]:
    """One row per concept, one column per ruleset, as the templates show it (the model, for
    JSON and CSV, is :func:`rules_diff`).

    Rows are aligned by concept and by the declared correspondences (correspondences.py).
    Each row is *same* (every ruleset has it and pays it alike), *differs* (amount, channel or
    condition differ among the rulesets that have it) or *partial* (some have no such item);
    a cell whose item is inherited unchanged from the ruleset it extends is marked as such.
    Expressions ("ƒ") are spelt out in the details, with a reference in the cell.
    """
    describers = [Describer(rs, prose_lang(lang)) for rs in rulesets]
    plain = [Describer(rs, prose_lang(lang), named_readings=False) for rs in rulesets]
    order: dict[str, dict[str, Any]] = {}
    members: dict[tuple[str, int], list[ItemDef]] = {}
    for j, rs in enumerate(rulesets):
        for item in rs.items.values():
            key, decl = row_key(rs, item.concept or item.id)
            row = order.setdefault(key, {"name": decl.name if isinstance(decl, Same) else item.name,
                                         "decl": decl})
            if row["decl"] is None and decl is not None:
                row["decl"] = decl
            members.setdefault((key, j), []).append(item)
    sources = used_sources(rulesets)
    fn = Footnotes(sources, lang)
    rows, details = [], 0
    for key, info in order.items():
        cells = [_cell(rs, d, members.get((key, j), []), p)
                 for j, (rs, d, p) in enumerate(zip(rulesets, describers, plain, strict=True))]
        present = [c for c in cells if c["present"]]
        channels_differ = len({c["channel_hanzi"] for c in present}) > 1
        amounts_differ = len({c["compared"][1] for c in present}) > 1
        conditions_differ = len({c["compared"][0] for c in present}) > 1
        for c in cells:
            del c["compared"]  # only for comparing: not part of the report
        differs = channels_differ or amounts_differ or conditions_differ
        state = "differs" if differs else "partial" if len(present) < len(cells) else "same"
        for c in cells:
            shown = c["text"]
            if c["present"] and channels_differ:
                shown += f" ({c['channel_hanzi']})"
            if c["present"] and (len(c["items"]) > 1 or c["name"] != info["name"]):
                # 天地交泰 60 / （上桌） 120: a member named after the first shows its difference only
                base = c["items"][0]["name"]
                shown = " / ".join(
                    f"{p['name'] if i == 0 or not p['name'].startswith(base) else p['name'][len(base):]}"
                    f" {p['short'] or 'ƒ'}" for i, p in enumerate(c["items"]))
            c["shown"] = shown
        formula = any(c["formula"] for c in present)
        detail = None
        if formula or conditions_differ:
            details += 1
            detail = details
        for c in cells:
            c["detail"] = detail
        decl = info["decl"]
        rows.append({
            "concept": key,
            **names(info["name"]),
            "cells": cells,
            "values": [c["value"] for c in cells],
            "conditions": [c["condition"] for c in cells],
            "state": state,
            "differs": differs,
            "channels_differ": channels_differ,
            "condition_differs": conditions_differ,
            "formula": formula,
            "detail": detail,
            "correspondence": ("same" if isinstance(decl, Same) else "distinct") if decl else "",
            "footnote": fn(decl.source) if decl else None,
        })
    chart_rows = [r for r in rows if r["differs"] and sum(v is not None for v in r["values"]) >= 2]
    bib = bibliography(sources, rulesets, lang)  # the bibliography and the sources list are one
    return {
        "kind": "rules-diff",
        "lang": lang,
        "rulesets": [{**ruleset_info(rs), "extends": list(rs.extends)} for rs in rulesets],
        "units": [rs.zhu_per_diao for rs in rulesets],
        "rows": rows,
        "counts": dict(Counter(r["state"] for r in rows)),
        "footnotes": fn.notes,
        "options": [o for rs in rulesets for o in _options(rs, fn, Texts(rs, lang))],
        "chart": {
            "categories": [r["name"] for r in chart_rows],
            "series": [rs.id for rs in rulesets],
            "colours": [colour_of(rs) for rs in rulesets],
            "values": [r["values"] for r in chart_rows],
            "unit": "注",
        },
        "glossary": glossary_for([c["condition"] for r in rows for c in r["cells"]]
                                 + [r["name"] for r in rows],
                                 {k: {**v, "gloss": Texts(rs, lang)("sets", k, "gloss", v.get("gloss", ""))}
                                  for rs in rulesets for k, v in rs.set_info.items()}),
        "bibliography": bib,
        "source_list": bib,
        "stamp": stamp if stamp is not None else run_stamp(""),
    }


# ====================================================================== the models (JSON, CSV)

_ITEM_FIELDS = ("id", "name", "pinyin", "en", "gloss", "concept", "phase", "condition", "amount",
                "short_amount", "channel", "group", "ends_hand", "split", "bank", "note", "status",
                "base_status", "inherited_from", "status_basis")


def _number(value: Any) -> int | float | str | None:
    """An amount from the YAML (注; a number, or a fine's text such as ``"2"``) as the JSON writes
    amounts, exactly; None when it is not one number or not a whole number of ticks."""
    if value is None:
        return None
    try:
        return json_number(ticks(str(value)))
    except (ValueError, ZeroDivisionError):
        return None


def _tag_data(value: Any) -> Any:
    return citation_data(value) if isinstance(value, Citation) else str(value)


def _option_data(rs: Ruleset) -> list[dict[str, Any]]:
    return [{"ruleset": rs.id, "name": o.name, "title": o.title, "description": o.description,
             "default": o.default, "current": rs.option_values.get(o.name, o.default),
             "choices": [{"value": k, "description": v,
                          **(cite_info(o.choice_sources[k]) if k in o.choice_sources else {})}
                         for k, v in o.choices.items()],
             **cite_info(o.source)} for o in rs.options.values()]


def _ruleset_data(rs: Ruleset) -> dict[str, Any]:
    return {k: v for k, v in ruleset_info(rs).items() if k not in ("rules", "offences")}


def rules_table(rs: Ruleset, *, stamp: dict[str, Any], lang: str = "en",
                view: dict[str, Any] | None = None) -> dict[str, Any]:
    """The rule table of *rs* as data: every item with its generated condition and amount
    (``zhu``: the number of 注 when it is a number), status and citation; fines; options.
    *view* is :func:`rules_table_view` of the same arguments when the caller has it already."""
    if view is None:
        view = rules_table_view(rs, stamp=stamp, lang=lang)
    d = Describer(rs, prose_lang(lang))
    items = []
    for shown, item in zip(view["items"], rs.items.values(), strict=True):
        items.append({**{k: shown[k] for k in _ITEM_FIELDS}, "zhu": _number(d.zhu_value(item.raw)),
                      **cite_info(item.source), "tags": {t: _tag_data(v) for t, v in item.tags.items()}})
    fines = [{"id": f.id, "name": f.name, "gloss": f.gloss, "amount": f.zhu_text, "zhu": _number(f.zhu_text),
              "to": f.to, "ends_hand": f.ends_hand, **cite_info(f.source)} for f in rs.fines.values()]
    decisions = [{"id": d.id, "name": d.name, "reading": d.reading, "alternatives": d.alternatives,
                  "reason": d.reason, **cite_info(d.source)} for d in rs.decisions]
    return envelope("rules-table", stamp, lang=lang,
                    ruleset={**_ruleset_data(rs), "description": rs.description}, items=items,
                    options=_option_data(rs), decisions=decisions, fines=fines, statuses=view["statuses"],
                    sources=sources_table([rs]))


_CELL_FIELDS = ("item", "name", "amount", "condition", "channel", "status", "base_status", "inherited_from",
                "status_basis")


def rules_diff(rulesets: Sequence[Ruleset], *, stamp: dict[str, Any], lang: str = "en",
               view: dict[str, Any] | None = None) -> dict[str, Any]:
    """The rulesets compared by concept, as data: per row its state (same, differs, partial)
    and one cell per ruleset (its items, amount — ``zhu`` when a number —, condition, status and
    citation; ``present: false`` where the ruleset has no such item).  *view* is
    :func:`rules_diff_view` of the same arguments when the caller has it already."""
    if view is None:
        view = rules_diff_view(rulesets, stamp=stamp, lang=lang)
    rows = []
    for row in view["rows"]:
        cells = []
        for rs, cell in zip(rulesets, row["cells"], strict=True):
            if not cell["present"]:
                cells.append({"present": False})
                continue
            item = rs.items[cell["item"]]
            cells.append({"present": True, **{k: cell.get(k) for k in _CELL_FIELDS},
                          "zhu": _number(cell["value"]),
                          "items": [{"id": p["id"], "name": p["name"], "short_amount": p["short"],
                                     "amount": p["amount"], "condition": p["condition"],
                                     "channel": p["channel"]} for p in cell["items"]],
                          **cite_info(item.source)})
        rows.append({"concept": row["concept"], "name": row["name"], "pinyin": row["pinyin"], "en": row["en"],
                     "state": row["state"], "cells": cells, "differs": row["differs"],
                     "condition_differs": row["condition_differs"], "channels_differ": row["channels_differ"],
                     "correspondence": row["correspondence"]})
    return envelope("rules-diff", stamp, lang=lang, rulesets=[_ruleset_data(rs) for rs in rulesets],
                    units=[rs.zhu_per_diao for rs in rulesets], rows=rows,
                    options=[o for rs in rulesets for o in _option_data(rs)], sources=sources_table(rulesets))
