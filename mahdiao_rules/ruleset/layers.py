"""Resolve ``extends:`` and ``include:`` into one merged ruleset, keeping every node's origin.

A ruleset may extend another (by bundled id or by path) and override, add or
remove items and option defaults; it may also include fragment files (long
catalogues such as the app's 色樣).  Merging happens on the parsed data, but
each entry remembers its file and key path, so a compile error in a base or a
fragment still points at the right ``file:line``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cards import closest_names
from ..errors import InputError
from ..io.resources import data_dir
from ..io.schemacheck import check, load_schema
from ..io.yamlsafe import DEFAULT_LIMITS, Document, format_path, load_file

KeyPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Entry:
    """One node of the merged ruleset and where it was written."""

    doc: Document
    path: KeyPath
    node: Any

    def where(self) -> str:
        line = self.doc.line_of(self.path)
        return f"{self.doc.file}:{line}" if line else self.doc.file


@dataclass
class Merged:
    top: Document
    docs: list[Document] = field(default_factory=list)
    info: dict[str, Entry] = field(default_factory=dict)
    sources: dict[str, Entry] = field(default_factory=dict)
    options: dict[str, Entry] = field(default_factory=dict)
    option_defaults: dict[str, Entry] = field(default_factory=dict)
    procedure: dict[str, Entry] = field(default_factory=dict)
    sitting: dict[str, Entry] = field(default_factory=dict)
    """``sitting:`` (the procedure between hands), key by key like ``procedure:``."""
    sets: dict[str, Entry] = field(default_factory=dict)
    channels: dict[str, Entry] = field(default_factory=dict)
    groups: dict[str, Entry] = field(default_factory=dict)
    items: list[Entry] = field(default_factory=list)
    fines: list[Entry] = field(default_factory=list)
    dai_pei: Entry | None = None
    extends: list[str] = field(default_factory=list)
    option_removes: list[Entry] = field(default_factory=list)
    """``remove:`` written as an option switch: applied once option values are known."""
    item_tags: list[Entry] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    """The real path of every file read: the ruleset, its bases and its fragments."""
    owners: dict[int, str] = field(default_factory=dict)
    """id(document) → the id of the ruleset it belongs to (its own file or an included fragment)."""

    def owner(self, doc: Document) -> str:
        """The ruleset a node was written in: the top one's id, or a base's for inherited nodes."""
        return self.owners.get(id(doc), "")
    decisions: list[Entry] = field(default_factory=list)
    base_names: tuple[str, str] = ("", "")
    """(name, name_en) of the ruleset this one extends, as that base file gives them."""

    def content_hash(self) -> str:
        # File order is stable, so no key sorting (keys may mix text and numbers).
        text = json.dumps([d.data for d in self.docs], ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:12]


def _err(doc: Document, path: KeyPath, message: str) -> InputError:
    return InputError(message, file=doc.file, line=doc.line_of(path), place=format_path(path))


RULESET_PATH_VAR = "MAHDIAO_RULESET_PATH"
"""Folders (separated like PATH) whose files any ruleset may extend or include, besides its
own folder tree and the bundled rulesets."""

_SUFFIXES = (".yaml", ".yml", ".json")


class Reach:
    """The folders a ruleset's ``extends:`` and ``include:`` may read from: the top-level
    ruleset's own folder and everything below it, the bundled rulesets, and the folders of
    ``MAHDIAO_RULESET_PATH``.  Paths are compared after following links, so neither
    ``../`` nor a link can climb out."""

    def __init__(self, top: Path) -> None:
        roots = [top.resolve().parent, data_dir("rulesets").resolve()]
        extra = os.environ.get(RULESET_PATH_VAR, "")
        roots += [Path(p).resolve() for p in extra.split(os.pathsep) if p.strip()]
        self.roots = roots

    def check(self, doc: Document, path: KeyPath, target: Path, spec: str, what: str) -> None:
        if not target.name.endswith(_SUFFIXES):
            raise _err(doc, path, f"{what} {spec!r}: a ruleset file ends in .yaml, .yml or .json")
        real = target.resolve()
        if not any(real.is_relative_to(root) for root in self.roots):
            raise _err(doc, path, f"{what} {spec!r} is outside the ruleset's folder; a ruleset may "
                                  "read only files in its own folder tree and the bundled rulesets "
                                  f"(or in a folder listed in {RULESET_PATH_VAR})")


def resolve_extends(spec: str, doc: Document, base_dir: Path | None = None) -> tuple[Path, str]:
    """A base ruleset named by bundled id or by a path relative to the extending file."""
    if spec.endswith(_SUFFIXES) or "/" in spec:
        shown = Path(doc.file).parent / spec
        return (base_dir or Path(doc.file).parent) / spec, str(shown)
    bundled = data_dir("rulesets") / f"{spec}.yaml"
    if not bundled.is_file():
        ids = sorted(p.stem for p in data_dir("rulesets").glob("*.yaml"))
        hint = closest_names(spec, ids)
        extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
        raise _err(doc, ("extends",), f"extends unknown ruleset {spec!r}{extra}")
    return bundled, f"rulesets/{spec}.yaml"


class _Budget:
    """The values of a ruleset with its bases and fragments, each counted as often as it is
    read (an ``include:`` of one fragment ten times counts it ten times): bounded like one file."""

    def __init__(self) -> None:
        self.limits = DEFAULT_LIMITS
        self.total = 0

    def add(self, doc: Document, at: Document | None, path: KeyPath) -> None:
        self.total += doc.nodes
        if self.total > self.limits.max_nodes:
            message = (f"the ruleset with its bases and fragments would have more than "
                       f"{self.limits.max_nodes:,} values (each extends: and include: counted as "
                       f"often as it is read; MAHDIAO_MAX_NODES sets the limit)")
            if at is None:
                raise InputError(message, file=doc.file)
            raise _err(at, path, message)


_NAMING_KEYS = frozenset({"description", "id", "name", "name_en", "colour", "order", "units"})
"""Keys that name or present a file but hold no rules: no sign that a file is a ruleset."""


@functools.cache
def _content_keys(what: str) -> frozenset[str]:
    """The keys that hold rules in a fragment or a base ruleset, read from its schema so the
    two cannot drift apart."""
    schema = load_schema("ruleset-fragment" if what == "fragment" else "ruleset")
    return frozenset(schema["properties"]) - _NAMING_KEYS
_DEAL_KEYS = frozenset({"hands", "deals", "stock", "banker"})


def _load_part(doc: Document, path: KeyPath, target: Path, shown: str, what: str) -> Document:
    """Read a base or fragment.  A file that is not one is named at the extends:/include:
    that reads it, and nothing of its content is quoted: it may be any file the user can read."""
    part = load_file(target, display_name=shown)
    if part.data is None:
        raise InputError(f"the {what} file is empty", file=shown)
    data = part.data
    looks_right = isinstance(data, dict) and not _DEAL_KEYS & data.keys() and (
        bool(_content_keys(what) & data.keys()))
    if not looks_right:
        raise _err(doc, path, f"{shown} is not a ruleset {what if what == 'fragment' else ''}"
                              .rstrip() + " (it has none of a ruleset's keys)")
    return part


def merge(doc: Document, *, real_path: str | None = None) -> Merged:
    """Merge *doc* over its bases (``extends:``, followed to the end of the chain) and the
    fragments each one includes.  The chain is walked in a loop, not by recursion, so its
    length is bounded only by the number of values."""
    if doc.data is None:
        raise InputError("the file is empty; a ruleset needs at least id and name", file=doc.file)
    check(doc, "ruleset")
    top_path = Path(real_path or doc.file)
    reach = Reach(top_path)
    budget = _Budget()
    budget.add(doc, None, ())
    # The chain, top first: (document, its real path).
    chain: list[tuple[Document, Path]] = [(doc, top_path.resolve())]
    while "extends" in chain[-1][0].data:
        current, here = chain[-1]
        spec = current.data["extends"]
        base_path, shown = resolve_extends(spec, current, here.parent)
        reach.check(current, ("extends",), base_path, spec, "extends")
        resolved = base_path.resolve()
        if any(resolved == p for _, p in chain):
            cycle = " → ".join(p.name for p in (*(p for _, p in chain), resolved))
            raise _err(current, ("extends",), f"extends makes a cycle: {cycle}")
        if not base_path.is_file():
            raise _err(current, ("extends",), f"extends {spec!r}: no such file {shown}")
        base = _load_part(current, ("extends",), base_path, shown, "base ruleset")
        budget.add(base, current, ("extends",))
        check(base, "ruleset")
        chain.append((base, resolved))
    merged: Merged | None = None
    base_doc: Document | None = None
    for part, here in reversed(chain):
        if merged is None:
            merged = Merged(top=part)
        else:
            merged.extends.append(merged.info["id"].node)
            en = merged.info.get("name_en")
            merged.base_names = (merged.info["name"].node,
                                 en.node if en is not None and en.doc is base_doc else "")
            merged.top = part
        merged.paths.append(str(here))
        _apply(merged, part)
        for i, name in enumerate(part.data.get("include", [])):
            frag_path = here.parent / name
            shown = str(Path(part.file).parent / name)
            reach.check(part, ("include", i), frag_path, name, "include")
            if not frag_path.is_file():
                raise _err(part, ("include", i), f"include {name!r}: no such file {shown}")
            frag = _load_part(part, ("include", i), frag_path, shown, "fragment")
            budget.add(frag, part, ("include", i))
            merged.paths.append(str(frag_path.resolve()))
            check(frag, "ruleset-fragment")
            _apply(merged, frag)
            merged.owners[id(frag)] = part.data.get("id", "")
        merged.owners[id(part)] = part.data.get("id", "")
        _remove(merged, part)
        base_doc = part
    assert merged is not None
    return merged


def _apply(m: Merged, doc: Document) -> None:
    m.docs.append(doc)
    data = doc.data
    for key in ("id", "name", "name_en", "description", "units"):
        if key in data:
            m.info[key] = Entry(doc, (key,), data[key])
    for key, node in data.get("sources", {}).items():
        m.sources[key] = Entry(doc, ("sources", key), node)
    for name, node in data.get("options", {}).items():
        path = ("options", name)
        full = "choices" in node
        if name in m.options and full and not node.get("override"):
            raise _err(doc, path, f"option {name!r} is already defined at "
                                  f"{m.options[name].where()}; write override: true to replace it, "
                                  "or give only default: to change its default")
        if full:
            m.options[name] = Entry(doc, path, node)
            m.option_defaults.pop(name, None)
        elif name not in m.options:
            raise _err(doc, path, f"option {name!r} is not defined by the base ruleset; a new "
                                  "option needs default, choices and source")
        else:
            m.option_defaults[name] = Entry(doc, path, node)
    for key, node in data.get("procedure", {}).items():
        m.procedure[key] = Entry(doc, ("procedure", key), node)
    for key, node in data.get("sitting", {}).items():
        m.sitting[key] = Entry(doc, ("sitting", key), node)
    for name, node in data.get("sets", {}).items():
        m.sets[name] = Entry(doc, ("sets", name), node)
    for name, node in data.get("channels", {}).items():
        m.channels[name] = Entry(doc, ("channels", name), node)
    for name, node in data.get("groups", {}).items():
        m.groups[name] = Entry(doc, ("groups", name), node)
    _apply_list(m.items, doc, ("items",), data.get("items", []), "item")
    _apply_list(m.decisions, doc, ("decisions",), data.get("decisions", []), "decision")
    if "item_tags" in data:
        m.item_tags.append(Entry(doc, ("item_tags",), data["item_tags"]))
    events = data.get("events", {})
    _apply_list(m.fines, doc, ("events", "fines"), events.get("fines", []), "fine")
    if "dai_pei" in events:
        m.dai_pei = Entry(doc, ("events", "dai_pei"), events["dai_pei"])


def _apply_list(entries: list[Entry], doc: Document, base: KeyPath, nodes: list[Any],
                what: str) -> None:
    index = {e.node["id"]: i for i, e in enumerate(entries)}
    for i, node in enumerate(nodes):
        path = (*base, i)
        if node["id"] in index:
            old = entries[index[node["id"]]]
            if not node.get("override"):
                raise _err(doc, (*path, "id"), f"{what} {node['id']!r} is already defined at "
                                               f"{old.where()}; write override: true to replace it, "
                                               "or override: partial to change only the keys given")
            if node["override"] == "partial":
                # Only the keys written here change (each replaced whole); the rest is inherited.
                node = {**old.node, **{k: v for k, v in node.items() if k != "override"}}
            entries[index[node["id"]]] = Entry(doc, path, node)  # keeps the base's place
        else:
            if node.get("override"):
                raise _err(doc, (*path, "override"), f"{what} {node['id']!r} overrides nothing: "
                                                     "no earlier definition")
            index[node["id"]] = len(entries)
            entries.append(Entry(doc, path, node))


def _remove(m: Merged, doc: Document) -> None:
    spec = doc.data.get("remove", [])
    if isinstance(spec, dict):  # an option switch: decided at compile time
        m.option_removes.append(Entry(doc, ("remove",), spec))
        return
    for i, entry in enumerate(spec):
        if isinstance(entry, dict):
            m.option_removes.append(Entry(doc, ("remove", i), entry))
        else:
            remove_ids(m, doc, ("remove", i), [entry], single=True)


def remove_ids(m: Merged, doc: Document, base: KeyPath, names: list[str], *,
               single: bool = False) -> None:
    """Drop inherited items, fines or 代賠 offences by id; an unknown id is an error."""
    for i, name in enumerate(names):
        where = base if single else (*base, i)
        for entries in (m.items, m.fines):
            hit = [k for k, e in enumerate(entries) if e.node["id"] == name]
            if hit:
                del entries[hit[0]]
                break
        else:
            if m.dai_pei is not None and any(o["id"] == name for o in m.dai_pei.node["offences"]):
                node = dict(m.dai_pei.node)
                node["offences"] = [o for o in node["offences"] if o["id"] != name]
                m.dai_pei = Entry(m.dai_pei.doc, m.dai_pei.path, node)
                continue
            known = [e.node["id"] for e in m.items + m.fines]
            hint = closest_names(name, known)
            extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
            raise _err(doc, where, f"remove: there is no item {name!r} to remove{extra}")
