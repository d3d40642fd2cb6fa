"""Output contracts: the envelope of every JSON output, its stamp, the sources table, the schemas.

Every JSON document a command writes is an *envelope*::

    {"schema_version": "1.0", "kind": "replay", "stamp": {...}, ...the kind's own fields}

``kind`` names the schema it follows (``io/schemas/output/<kind>.schema.json``, shipped in
the package and described in docs/output-formats.md); ``stamp`` is what it takes to
reproduce it (tool and version, command line, rulesets with content hash and options,
inputs with their SHA-256, seed).  The same stamp ends every other format.  The model of a
report is plain data with numbers as numbers; what only a view needs (texts such as
``1½``, the side-by-side grid, charts) is derived by :mod:`.views` and never written to JSON.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

from ..io.schemacheck import load_schema
from ..io.stamp import SCHEMA_VERSION, input_info, make_stamp
from ..ruleset.model import Citation, Cite, Ruleset

__all__ = [
    "KINDS",
    "SCHEMA_VERSION",
    "citation_of",
    "envelope",
    "input_info",
    "output_errors",
    "output_schema",
    "ruleset_stamp",
    "sources_table",
    "stamp",
]

KINDS = ("replay", "replay-header", "replay-deal", "explain", "rules-table", "rules-diff", "rulesets",
         "validate", "simulate", "ablate", "reconstruct", "codes", "sitting", "simulate-sitting")
"""Every kind of JSON output; each has ``io/schemas/output/<kind>.schema.json``.  (Deal files,
which ``deal``, ``code --decode``, ``simulate --deals-out`` and ``reconstruct --completions``
write, follow the input schemas ``deal`` and ``deals-header``.)"""


def output_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of output *kind*, as shipped in the package."""
    if kind not in (*KINDS, "common"):
        raise ValueError(f"unknown output kind {kind!r}")
    return load_schema(f"output/{kind}")


@functools.cache
def output_validator(kind: str) -> Any:
    """A jsonschema validator for output *kind*, resolving the shared ``common`` definitions."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in (output_schema(k) for k in (*KINDS, "common")))
    return Draft202012Validator(output_schema(kind), registry=registry)


def output_errors(kind: str, document: Any) -> list[str]:
    """Every way *document* breaks the schema of output *kind* (empty when it conforms)."""
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top level)'}: {e.message}"
            for e in output_validator(kind).iter_errors(document)]


def ruleset_stamp(rs: Ruleset) -> dict[str, Any]:
    """A ruleset as the stamp names it: id, content hash, the options in force, its file."""
    return {"id": rs.id, "hash": rs.content_hash, "options": dict(rs.option_values), "file": rs.file}


def stamp(command: str, rulesets: Iterable[Ruleset] = (), inputs: Sequence[dict[str, Any]] = (),
          seed: str | None = None) -> dict[str, Any]:
    """The reproducibility stamp of a run (see :func:`mahdiao_rules.io.output.make_stamp`)."""
    return make_stamp(command, rulesets=[ruleset_stamp(rs) for rs in rulesets], inputs=inputs, seed=seed)


def envelope(kind: str, stamp: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A JSON output: version, kind and stamp first, then the kind's own fields."""
    return {"schema_version": SCHEMA_VERSION, "kind": kind, "stamp": stamp, **fields}


def citation_of(rs: Ruleset, rule_id: str, channel: str = "") -> Citation | None:
    """The citation of a rule item, fine or 代賠 offence of *rs* (None for anything else); a
    ledger line of channel ``dai_pei`` names an offence, which may share its id with a fine."""
    if channel == "dai_pei" and rs.dai_pei is not None and rule_id in rs.dai_pei.offences:
        return rs.dai_pei.offences[rule_id].source
    if rule_id in rs.items:
        return rs.items[rule_id].source
    if rule_id in rs.fines:
        return rs.fines[rule_id].source
    if rs.dai_pei is not None and rule_id in rs.dai_pei.offences:
        return rs.dai_pei.offences[rule_id].source
    return None


def sources_table(rulesets: Sequence[Ruleset]) -> dict[str, dict[str, Any]]:
    """The document's ``sources`` table — every source the rulesets cite, by its bibliography
    key, with the bibliography's fields and the rulesets that cite it.  A citation's ``ref``
    is such a key as it stands (rulesets cite the project bibliography's keys,
    rulesets/sources.yaml), so a document names a source by ``ref`` without a key map."""
    from .cite import used_sources

    table: dict[str, dict[str, Any]] = {}
    for key, entry in used_sources(rulesets).items():
        table[key] = {**{k: v for k, v in entry.items() if _plain(v)},
                      "rulesets": [rs.id for rs in rulesets if key in rs.sources]}
    return table


def _plain(value: Any) -> bool:
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return isinstance(value, (str, int, float, bool)) or value is None


def citation_data(c: Citation) -> list[dict[str, Any]]:
    """A citation as data: one entry per part — ``kind`` (quote, paraphrase, inference),
    ``text`` (the words), and where given ``ref`` (a key of the sources table), ``section``,
    ``locator``, ``via``, ``basis`` (keys an inference rests on), ``note``."""
    out = []
    for p in c.parts:
        part: dict[str, Any] = {"kind": p.kind, "text": p.text}
        for name in ("ref", "section", "locator", "via", "note"):
            if getattr(p, name):
                part[name] = getattr(p, name)
        if p.basis:
            part["basis"] = list(p.basis)
        out.append(part)
    return out


def citation_of_data(parts: list[dict[str, Any]]) -> Citation:
    """The inverse of :func:`citation_data` (for views of a document read back)."""
    cites = []
    for p in parts:
        words = {p["kind"]: p["text"]} if p["kind"] in ("quote", "paraphrase", "inference") else {}
        cites.append(Cite(ref=p.get("ref", ""), section=p.get("section", ""), locator=p.get("locator", ""),
                          via=p.get("via", ""), note=p.get("note", ""), basis=tuple(p.get("basis", ())),
                          **words))
    return Citation(tuple(cites))


def rules(rs: Ruleset) -> dict[str, dict[str, Any]]:
    """Every rule item and fine of *rs* by id, with what a fired item or ledger line refers to:
    its name, concept, channel, phase, whether it ends the hand, its first source key
    (``source``, "" for the project's own inference) and its whole ``citation``."""
    out: dict[str, dict[str, Any]] = {}
    for i in rs.items.values():
        out[i.id] = {"kind": "item", "name": i.name, "concept": i.concept or i.id, "channel": i.channel,
                     "phase": i.phase, "ends_hand": i.ends_hand, **cite_info(i.source)}
    for f in rs.fines.values():
        out[f.id] = {"kind": "fine", "name": f.name, "concept": f.id, "channel": "fa_li", "phase": "fine",
                     "ends_hand": f.ends_hand, **cite_info(f.source)}
    return out


def offences(rs: Ruleset) -> dict[str, dict[str, Any]]:
    """The 代賠 offences of *rs* by id (a ledger line of channel ``dai_pei`` refers to one; an
    offence may share its id with a fine, so they have a table of their own)."""
    if rs.dai_pei is None:
        return {}
    return {o.id: {"kind": "offence", "name": o.name, "concept": o.id, "channel": "dai_pei",
                   "phase": "dai_pei", "ends_hand": False, **cite_info(o.source)}
            for o in rs.dai_pei.offences.values()}


def cite_info(c: Citation) -> dict[str, Any]:
    """A rule's ``source`` (its first key, "" for the project's own inference) and whole ``citation``."""
    return {"source": c.ref, "citation": citation_data(c)}
