"""Citations for readers: full references, short forms, footnote parts, BibTeX and CSL-JSON.

The bibliography is data (``rulesets/sources.yaml``, :mod:`..ruleset.bibliography`); this
module only words it.  A quotation is marked as one (``kind: quote``, printed in 「」); a
paraphrase (a summary's wording among them) and an inference never are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..messages import CarriedText
from ..ruleset.bibliography import bundled_sources
from ..ruleset.model import Citation, Cite, Ruleset
from ..ruleset.terms import citation_text_zh, source_note_zh

# ---------------------------------------------------------------------- references


def _author_short(entry: dict[str, Any]) -> str:
    author = entry.get("author", "")
    if not author or author.startswith("anonymous"):
        return ""
    return re.split(r"\s*[(（,]", author)[0]


def _year(entry: dict[str, Any]) -> str:
    date = str(entry.get("date", ""))
    m = re.match(r"\d{4}", date)
    return m.group() if m else "n.d." if date == "n.d." else ""


def short_reference(key: str, entry: dict[str, Any]) -> str:
    """Author (or title) and year: 「馮夢龍, 馬弔腳例, n.d.」, "Lo 2000", "wingdna, Madiao-Game"."""
    author = _author_short(entry)
    title = entry.get("title", key)
    if entry.get("role") == "code":
        return f"{author}, {title} @ {entry.get('commit', '')[:7]}" if author else title
    return ", ".join(x for x in (author, title, _year(entry)) if x)


_REFERENCE_WORDS = {
    "en": {"ed": "ed. {x}", "pages": "pp. {x}", "repository": "repository {repo}, commit {commit}",
           "accessed": " Accessed {x}."},
    "zh": {"ed": "{x} 編", "pages": "頁 {x}", "repository": "程式庫 {repo}，提交 {commit}",
           "accessed": " {x} 讀取。"},
}
"""The words a reference adds to the source's own fields, per report language."""


class ReferenceText(CarriedText):
    """A full reference in English (what JSON carries) that keeps its source, so that a
    report in another language words it again (render.localise_notes)."""

    key: str
    entry: dict[str, Any]


class LocalisedText(CarriedText):
    """An English text (what JSON carries) with its Chinese beside it, for a report in
    Chinese (render.localise_notes)."""

    zh: str


def source_note(key: str, entry: dict[str, Any], lang: str = "en") -> str:
    """A source's note (what the bibliography says about it) in *lang*: the Chinese of a
    bundled source's note, else the note as written."""
    note = entry.get("note", "")
    zh = source_note_zh(key) if note else ""
    if lang.startswith("zh"):
        return zh or note
    return LocalisedText(note, zh=zh) if zh else note


def full_reference(key: str, entry: dict[str, Any], lang: str = "en") -> str:
    """The whole reference as one plain-text sentence, without its URL (templates link it);
    the source's fields as they are, the reference's own words in *lang*."""
    words = _REFERENCE_WORDS["zh" if lang.startswith("zh") else "en"]
    parts = []
    if entry.get("author"):
        parts.append(entry["author"])
    title = entry.get("title", key)
    if entry.get("title_en"):
        title += f" ({entry['title_en']})"
    parts.append(title)
    if entry.get("editor"):
        parts.append(words["ed"].format(x=entry["editor"]))
    journal = entry.get("journal")
    if journal:
        vol = entry.get("volume", "")
        if entry.get("number"):
            vol += f"({entry['number']})"
        parts.append(" ".join(x for x in (journal, vol) if x))
    for k in ("edition", "publisher"):
        if entry.get(k):
            parts.append(entry[k])
    if entry.get("date"):
        parts.append(entry["date"])
    if entry.get("pages"):
        parts.append(words["pages"].format(x=entry["pages"]))
    if entry.get("repository"):
        parts.append(words["repository"].format(repo=entry["repository"], commit=entry.get("commit", "")))
    if entry.get("doi"):
        parts.append(f"doi:{entry['doi']}")
    text = ". ".join(p.rstrip(".") for p in parts) + "."
    if entry.get("accessed") and entry.get("url"):
        text += words["accessed"].format(x=entry["accessed"])
    return ReferenceText(text, key=key, entry=entry) if lang == "en" else text


def code_url(entry: dict[str, Any], locator: str) -> str:
    """The address of a file of a code source at its commit (``FILE#SYMBOL`` → blob URL)."""
    file = locator.split("#")[0]
    path = next((p for p in entry.get("paths", []) if p == file or p.endswith("/" + file)), file)
    repo, commit = entry.get("repository", ""), entry.get("commit", "")
    return f"{repo}/blob/{commit}/{path}" if repo and commit else entry.get("url", "")


def locator_text(entry: dict[str, Any], locator: str) -> str:
    """``CardSeyang.cs#BaTong`` → ``Assets/Scripts/Model/CardSeyang.cs, BaTong``."""
    file, _, symbol = locator.partition("#")
    path = next((p for p in entry.get("paths", []) if p == file or p.endswith("/" + file)), file)
    return f"{path}, {symbol}" if symbol else path


# ---------------------------------------------------------------------- citations in tables


def cite_parts(citation: Citation, sources: dict[str, dict[str, Any]], lang: str = "en"
               ) -> list[dict[str, Any]]:
    """A citation as the parts a footnote prints, each self-describing.  In Chinese (*lang*
    zh-*) the project's own words — inferences, paraphrases, notes — are given in Chinese
    (rulesets/i18n/citations.zh-Hant.yaml); a quotation is always the source's words."""
    zh = lang.startswith("zh")
    return [_part(p, sources, zh) for p in citation.parts]


def _part(p: Cite, sources: dict[str, dict[str, Any]], zh: bool = False) -> dict[str, Any]:
    note = citation_text_zh(p.note) if zh and p.note else p.note
    if p.kind == "inference":
        text = citation_text_zh(p.inference) if zh else p.inference
        return {"kind": "inference", "text": text, "key": "", "short": "", "place": "",
                "url": "", "via": "", "via_short": "", "summary": False, "note": note,
                "basis": [{"key": k, "short": short_reference(k, sources.get(k, {}))} for k in p.basis]}
    entry = sources.get(p.ref, {})
    place = p.section
    url = entry.get("url", "")
    if p.locator:
        place = locator_text(entry, p.locator)
        url = code_url(entry, p.locator)
    via = sources.get(p.via, {}) if p.via else {}
    if p.via and not url:
        url = via.get("url", "")
    text = citation_text_zh(p.text) if zh and p.kind != "quote" else p.text
    return {"kind": p.kind, "text": text, "key": p.ref, "short": short_reference(p.ref, entry),
            "place": place, "url": url, "via": p.via,
            "via_short": short_reference(p.via, via) if p.via else "",
            "summary": entry.get("role") == "summary", "note": note, "basis": []}


def part_text(part: dict[str, Any]) -> str:
    """One part in a line of plain text (ledger lines, CSV, JSON)."""
    if part["kind"] == "inference":
        basis = "; ".join(b["short"] for b in part["basis"])
        return f"Inference: {part['text']}" + (f" (from {basis})" if basis else "")
    where = part["short"] + (f", {part['place']}" if part["place"] else "")
    if part["via"]:
        where += f", as given in {part['via_short']}"
    if part["kind"] == "quote":
        return f"{where}: 「{part['text']}」"
    what = "summary" if part["summary"] else "paraphrase"
    return f"{where} ({what}): {part['text']}"


def citation_text(citation: Citation, sources: dict[str, dict[str, Any]]) -> str:
    return "; ".join(part_text(p) for p in cite_parts(citation, sources))


# ---------------------------------------------------------------------- the bibliography


def used_sources(rulesets: Sequence[Ruleset]) -> dict[str, dict[str, Any]]:
    """Every source the rulesets cite, with what a bibliography needs (in first-use order)."""
    out: dict[str, dict[str, Any]] = {}
    for rs in rulesets:
        for key, entry in rs.sources.items():
            out.setdefault(key, entry)
    for key in list(out):  # a summary or transcription brings the work it renders
        for k in (out[key].get("summarises"), out[key].get("transcribes")):
            if k and k not in out and k in bundled_sources():
                out[k] = bundled_sources()[k]
    return out


def bibliography(sources: dict[str, dict[str, Any]], rulesets: Iterable[Ruleset] = (),
                 lang: str = "en") -> list[dict[str, Any]]:
    """The entries as report rows: key, short and full reference, URL, which rulesets cite it."""
    by = {}
    for rs in rulesets:
        for k in rs.sources:
            by.setdefault(k, []).append(rs.id)
    return [{"ref": k, "key": k, "short": short_reference(k, e), "text": full_reference(k, e, lang),
             "title": e.get("title", k), "url": e.get("url", ""), "role": e.get("role", "secondary"),
             "note": source_note(k, e, lang), "rulesets": by.get(k, []), "entry": e}
            for k, e in sorted(sources.items())]


# ---------------------------------------------------------------------- exports

_BIBTEX_TYPE = {"book": "book", "article": "article", "webpage": "online", "software": "software",
                "summary": "misc"}
_BIBTEX_ESCAPE = str.maketrans({"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                                "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                                "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"})


def _bib_value(text: str) -> str:
    return "{" + str(text).translate(_BIBTEX_ESCAPE) + "}"


def to_bibtex(sources: dict[str, dict[str, Any]]) -> str:
    """biblatex entries (``@online``, ``@software``…), one per key, fields braced and escaped."""
    out = []
    for key, e in sorted(sources.items()):
        fields: list[tuple[str, str]] = []
        author = e.get("author", "")
        if author and not author.startswith("anonymous"):
            # One author as a corporate name: braces keep biblatex from splitting "A (B)".
            fields.append(("author", "{{" + author.translate(_BIBTEX_ESCAPE) + "}}"))
        if e.get("editor"):
            fields.append(("editor", "{{" + e["editor"].translate(_BIBTEX_ESCAPE) + "}}"))
        fields.append(("title", _bib_value(e.get("title", key))))
        if e.get("title_en"):
            fields.append(("titleaddon", _bib_value(e["title_en"])))
        for src, dst in (("journal", "journaltitle"), ("volume", "volume"), ("number", "number"),
                         ("pages", "pages"), ("edition", "edition"), ("publisher", "publisher"),
                         ("doi", "doi"), ("url", "url")):
            if e.get(src):
                value = e[src].replace("–", "--") if src == "pages" else e[src]
                fields.append((dst, _bib_value(value) if src not in ("url", "doi") else "{" + value + "}"))
        date = str(e.get("date", ""))
        if re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", date):
            fields.append(("date", "{" + date + "}"))
        elif date:
            fields.append(("note", _bib_value(f"date: {date}")))
        if e.get("accessed") and e.get("url"):
            fields.append(("urldate", "{" + e["accessed"] + "}"))
        if e.get("commit"):
            fields.append(("version", "{" + e["commit"] + "}"))
        if e.get("repository") and not e.get("url"):
            fields.append(("url", "{" + e["repository"] + "}"))
        rendered = e.get("summarises") or e.get("transcribes")
        if rendered:
            what = "A summary" if e.get("summarises") else "A transcription"
            fields.append(("addendum", _bib_value(f"{what} of {rendered}")))
        if e.get("language"):
            fields.append(("langid", "{" + {"en": "english"}.get(e["language"], "chinese") + "}"))
        body = ",\n".join(f"  {k} = {v}" for k, v in fields)
        out.append(f"@{_BIBTEX_TYPE.get(e.get('type', 'webpage'), 'misc')}{{{key},\n{body}\n}}\n")
    return "\n".join(out)


_CSL_TYPE = {"book": "book", "article": "article-journal", "webpage": "webpage", "software": "software",
             "summary": "manuscript"}


def _csl_date(text: str) -> dict[str, Any] | None:
    m = re.fullmatch(r"(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?", str(text))
    if not m:
        return {"literal": str(text)} if text else None
    return {"date-parts": [[int(x) for x in m.groups() if x]]}


def to_csl_json(sources: dict[str, dict[str, Any]]) -> str:
    """CSL-JSON (the format of Zotero, pandoc and citeproc), one item per key."""
    items = []
    for key, e in sorted(sources.items()):
        item: dict[str, Any] = {"id": key, "type": _CSL_TYPE.get(e.get("type", "webpage"), "webpage"),
                                "title": e.get("title", key)}
        author = e.get("author", "")
        if author and not author.startswith("anonymous"):
            item["author"] = [{"literal": author}]
        if e.get("editor"):
            item["editor"] = [{"literal": e["editor"]}]
        for src, dst in (("journal", "container-title"), ("volume", "volume"), ("number", "issue"),
                         ("pages", "page"), ("edition", "edition"), ("publisher", "publisher"),
                         ("doi", "DOI"), ("url", "URL"), ("commit", "version"), ("note", "note"),
                         ("language", "language")):
            if e.get(src):
                item[dst] = e[src]
        if e.get("title_en"):
            item["title-short"] = e["title_en"]
        if not e.get("url") and e.get("repository"):
            item["URL"] = e["repository"]
        issued = _csl_date(e.get("date", ""))
        if issued:
            item["issued"] = issued
        if e.get("accessed"):
            item["accessed"] = _csl_date(e["accessed"])
        items.append(item)
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"


def to_markdown(sources: dict[str, dict[str, Any]]) -> str:
    lines = ["# Sources", ""]
    for row in bibliography(sources):
        link = f" <{row['url']}>" if row["url"] else ""
        lines.append(f"- **{row['key']}** — {row['text']}{link}")
        if row["note"]:
            lines.append(f"  {row['note']}")
    return "\n".join(lines) + "\n"
