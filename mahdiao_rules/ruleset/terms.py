"""Names and terms (``rulesets/terms.yaml``): pinyin with tone marks, an English name, and for
each term of the game a one-line definition in English and Chinese.

Keyed by the Chinese name as the rulesets write it.  Rule tables print every item, option and
set with its pinyin and English name, and end with a glossary of the terms and named card sets
their conditions use (:func:`glossary_for`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from ..io.resources import data_dir
from ..io.schemacheck import check
from ..io.yamlsafe import load_file

TERMS_FILE = "terms.yaml"
"""The terms file's name in ``rulesets/``; not a ruleset (registry.py skips it)."""


@functools.cache
def _load() -> dict[str, dict[str, dict[str, str]]]:
    doc = load_file(data_dir("rulesets") / TERMS_FILE, display_name=f"rulesets/{TERMS_FILE}")
    check(doc, "terms")
    return {k: dict(v or {}) for k, v in doc.data.items()}


def all_terms() -> dict[str, dict[str, str]]:
    """Every entry (glossary terms, cards, names) by Chinese name."""
    data = _load()
    return {**data.get("names", {}), **data.get("cards", {}), **data.get("terms", {})}


def glossary_terms() -> dict[str, dict[str, str]]:
    """The terms with a definition, in the file's order."""
    return dict(_load().get("terms", {}))


def cards() -> dict[str, dict[str, str]]:
    return dict(_load().get("cards", {}))


def lookup(name: str) -> dict[str, str]:
    """``{pinyin, en}`` (and ``gloss``/``gloss_zh`` for a term) of a name, or ``{}``."""
    return all_terms().get(name, {})


def pinyin(name: str) -> str:
    return lookup(name).get("pinyin", "")


def english(name: str) -> str:
    return lookup(name).get("en", "")


def used_in(texts: Iterable[str], names: Iterable[str]) -> list[str]:
    """Of *names*, those that occur in any of *texts*, longest first so that 次賞 is not also
    counted as 賞 where only 次賞 occurs."""
    blob = "\n".join(texts)
    found = []
    for name in sorted(set(names), key=len, reverse=True):
        if name in blob:
            found.append(name)
            blob = blob.replace(name, "\0")
    return found


def glossary_for(texts: Iterable[str], sets: dict[str, dict[str, Any]] | None = None
                 ) -> list[dict[str, str]]:
    """The glossary of *texts*: each term and named card set they use, with pinyin, English
    name and definition; then each card they name.  In the terms file's order."""
    texts = list(texts)
    terms = glossary_terms()
    set_names = {v["name"]: v for v in (sets or {}).values() if v.get("name")}
    used = set(used_in(texts, [*terms, *set_names, *cards()]))
    out = []
    for name, t in terms.items():
        if name in used:
            out.append({"name": name, "kind": "term", **t})
    for name, s in set_names.items():
        if name in used and name not in terms:
            t = lookup(name)
            out.append({"name": name, "kind": "set", "pinyin": t.get("pinyin", ""), "en": t.get("en", ""),
                        "gloss": s.get("gloss", ""), "gloss_zh": s.get("gloss_zh", "")})
    for name, t in cards().items():
        if name in used:
            out.append({"name": name, "kind": "card", **t, "gloss": "", "gloss_zh": ""})
    return out


# ---------------------------------------------------------------------- translations

TRANSLATIONS = "i18n/zh-Hant.yaml"
"""Chinese (traditional) texts of the bundled rulesets' glosses, option descriptions, readings
and notes, by ruleset id, kind and id; zh-Hans is converted from it."""


def _i18n_file(name: str, schema: str) -> Any:
    """A file of rulesets/i18n/ checked against *schema*, or None where it is missing."""
    path = data_dir("rulesets") / name
    if not path.is_file():
        return None
    doc = load_file(path, display_name=f"rulesets/{name}")
    check(doc, schema)
    return doc.data


@functools.cache
def _translations() -> dict[str, Any]:
    return _i18n_file(TRANSLATIONS, "translations") or {}


def translated(chain: Iterable[str], kind: str, ident: str, field: str, default: str) -> str:
    """The Chinese text of *field* (gloss, note, description, or a reading's value) of the
    *kind* (items, options, readings, sets, fines, offences, groups) *ident*, looked up in
    each ruleset of *chain* in turn (the ruleset, then the ones it extends); *default* (the
    English) when no translation exists — a user's ruleset has none."""
    data = _translations()
    for rid in chain:
        entry = data.get(rid, {}).get(kind, {}).get(ident)
        if isinstance(entry, str) and field != "note":
            return entry  # the one text of an item, fine, set, reading or option
        if isinstance(entry, dict) and field in entry:
            return str(entry[field])
    return default


CITATION_TEXTS = "i18n/citations.zh-Hant.yaml"
"""Chinese of the English texts in citations (inferences, paraphrases, notes), keyed by the
English: a citation has no id."""


@functools.cache
def _citation_catalogue() -> dict[str, Any]:
    return _i18n_file(CITATION_TEXTS, "citation-texts") or {}


@functools.cache
def citation_texts() -> dict[str, str]:
    return {e["en"]: e["zh"] for e in _citation_catalogue().get("texts", [])}


def source_note_zh(key: str) -> str:
    """The Chinese of a bundled source's note ("" for none, or a source a user adds)."""
    return str(_citation_catalogue().get("sources", {}).get(key, ""))


def citation_text_zh(english_text: str) -> str:
    """The Chinese of a citation's inference, paraphrase or note; the text as written when
    there is none (Chinese already, or a user's own ruleset)."""
    return citation_texts().get(english_text, english_text)
