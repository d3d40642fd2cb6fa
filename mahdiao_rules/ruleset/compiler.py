"""Read a ruleset YAML file, check it, and compile it into a :class:`Ruleset`.

Checking happens in two passes: the JSON Schema (shape, types, unknown keys),
then the semantic pass done while compiling (unknown cards, options, sets,
forward references).  Both report ``file:line: key.path: problem``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..cards import CARD_NUM, closest_names
from ..deal import SEAT_ALIASES
from ..errors import InputError
from ..io.yamlsafe import Document, load_file
from .bibliography import attestation, bundled_sources
from .bounds import check_bounds
from .dsl import Compiler, HandState, SetExpr, _combine
from .kai_chong import compile_kai_chong
from .layers import KeyPath, Merged, merge, remove_ids
from .model import (
    CHANNELS,
    PHASES,
    Citation,
    DaiPeiDef,
    DecisionDef,
    FineDef,
    ItemDef,
    OffenceDef,
    OptionDef,
    Procedure,
    Ruleset,
    Step,
)
from .sitting import compile_sitting


def load_ruleset(path: str, *, overrides: Mapping[str, str] | None = None,
                 display_name: str | None = None) -> Ruleset:
    """Load, validate and compile the ruleset file at *path* (with its bases and fragments)."""
    doc = load_file(path, display_name=display_name)
    return compile_merged(merge(doc, real_path=str(path)), overrides=overrides)


def compile_document(doc: Document, *, overrides: Mapping[str, str] | None = None) -> Ruleset:
    """Compile a ruleset document; ``extends``/``include`` resolve relative to ``doc.file``."""
    return compile_merged(merge(doc), overrides=overrides)


def compile_merged(m: Merged, *, overrides: Mapping[str, str] | None = None) -> Ruleset:
    top = m.top
    for key in ("units", "items"):
        present = {"units": m.info.get("units"), "items": m.items}[key]
        if not present:
            raise InputError(f"ruleset {m.info['id'].node!r} has no {key} (and no base that "
                             "gives them)", file=top.file, line=top.line_of(()))
    rs_id = m.info["id"].node
    options = _options(m)
    values = {name: opt.default for name, opt in options.items()}
    for name, value in (overrides or {}).items():
        if name not in options:
            hint = closest_names(name, options)
            extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
            raise InputError(f"ruleset {rs_id!r} has no option {name!r}{extra}; "
                             f"options: {', '.join(options) or 'none'}", file=top.file)
        if value not in options[name].choices:
            raise InputError(f"option {rs_id}.{name} takes one of "
                             f"{', '.join(options[name].choices)}, not {value!r}", file=top.file)
        values[name] = value

    units = m.info["units"]
    c = Compiler(doc=units.doc, options=values, zhu_per_diao=units.node["zhu_per_diao"])
    ids_before = {e.node["id"] for e in m.items}
    for e in m.option_removes:  # a remove: switch (the schema checked its shape)
        c.doc = e.doc
        node, path = c.resolve(e.node, e.path)
        remove_ids(m, e.doc, path, node)
    dropped = ids_before - {e.node["id"] for e in m.items}
    known = {**bundled_sources(), **{k: e.node for k, e in m.sources.items()}}
    cited: dict[str, None] = {}
    for doc in m.docs:
        _check_citations(doc, doc.data, known, cited)
    sources = {k: known[k] for k in cited}

    for name, e in m.sets.items():
        c.doc = e.doc
        c.define_set(name, e.node["cards"], (*e.path, "cards"))

    he_exempt = he_exempt_node = None
    gong_he = m.channels.get("gong_he")
    if gong_he is not None:
        c.doc = gong_he.doc
        node, path = c.resolve(gong_he.node.get("exempt"), (*gong_he.path, "exempt"))
        if node is not None:
            he_exempt, he_exempt_node = c.condition(node, path), node

    groups = {k: e.node for k, e in m.groups.items()}
    items, phases = _items(c, m, groups, known)
    _item_tags(m, items, dropped)
    fines, dai_pei = _events(c, m)
    procedure = _procedure(c, m)
    hand_cost = check_bounds(c, m, procedure.kai_chong)
    sitting = compile_sitting(c, {k: (e.node, e.path, e.doc) for k, e in m.sitting.items()},
                              _citation)

    name_en, description, base_name = _own_names(m)
    return Ruleset(
        id=rs_id,
        name=m.info["name"].node,
        name_en=name_en,
        description=description,
        file=top.file,
        content_hash=m.content_hash(),
        sources=sources,
        options=options,
        option_values=values,
        zhu_per_diao=units.node["zhu_per_diao"],
        procedure=procedure,
        dynamic_set_nodes=tuple(c.dynamic_set_nodes),
        named_sets=c.named_sets,
        phases=phases,
        items=items,
        groups=groups,
        he_exempt=he_exempt,
        he_exempt_node=he_exempt_node,
        fines=fines,
        fired_bits=dict(c.known_fired),
        needs_trick_masks=c.uses_trick_masks or procedure.kai_chong is not None,
        set_info={k: {"name": e.node["name"], "gloss": e.node.get("gloss", "")}
                  for k, e in m.sets.items()},
        dai_pei=dai_pei,
        decisions=tuple(_decision(e.node) for e in m.decisions),
        extends=tuple(m.extends),
        input_files=tuple(m.paths),
        hand_cost=hand_cost,
        order=top.data.get("order"),
        colour=top.data.get("colour"),
        base_name=base_name,
        sitting=sitting,
    )


def _decision(node: dict[str, Any]) -> DecisionDef:
    return DecisionDef(id=node["id"], name=node["name"], reading=node["reading"],
                       reason=node["reason"], source=_citation(node["source"]),
                       alternatives=node.get("alternatives", ""))


def _own_names(m: Merged) -> tuple[str, str, str]:
    """(name_en, description, base name): a derived ruleset never passes for its base.

    ``name`` is required in every file; ``name_en`` and ``description`` are taken
    only from the ruleset's own file — without them a derived ruleset is shown as
    "variant of <base>", never under its parent's English name.
    """
    def own(key: str) -> str:
        e = m.info.get(key)
        return e.node if e is not None and e.doc is m.top else ""

    if not m.extends:
        return own("name_en"), own("description"), ""
    base = m.base_names
    name_en = own("name_en") or f"variant of {base[1] or base[0]} ({m.extends[-1]})"
    return name_en, own("description"), base[0]


def _item_tags(m: Merged, items: dict[str, ItemDef], dropped: set[str]) -> None:
    """``item_tags: {tag: {item_id: value}}`` attaches scholarly tags to items by id.

    Tags of items an option removed for this run (*dropped*) are simply not used.
    """
    for e in m.item_tags:
        for tag, by_item in e.node.items():
            for item_id, value in by_item.items():
                if item_id in dropped:
                    continue
                if item_id not in items:
                    path = (*e.path, tag, item_id)
                    hint = closest_names(item_id, items)
                    extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
                    raise InputError(f"item_tags: no item {item_id!r}{extra}", file=e.doc.file,
                                     line=e.doc.line_of(path), place=_fmt(path))
                items[item_id].tags[tag] = (Citation.of(value) if isinstance(value, dict | list)
                                            else value)


def _citation(node: Any) -> Citation:
    return Citation.of(node)


def _check_citations(doc: Document, node: Any, sources: dict[str, Any], cited: dict[str, None],
                     path: tuple[str | int, ...] = ()) -> None:
    """Every citation's keys (``ref``, ``via``, ``basis``) must be in the bibliography or
    the ruleset's own ``sources:``; a ``section`` must be one the source lists, a code
    ``locator`` one of its files.  *cited* collects the keys, in order of first use."""
    if isinstance(node, dict):
        if ("ref" in node and ("quote" in node or "paraphrase" in node)) or "inference" in node:
            _check_cite(doc, node, sources, cited, path)
            return
        for key, value in node.items():
            _check_citations(doc, value, sources, cited, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _check_citations(doc, value, sources, cited, path + (i,))


def _check_cite(doc: Document, node: dict[str, Any], sources: dict[str, Any], cited: dict[str, None],
                path: tuple[str | int, ...]) -> None:
    def fail(key: tuple[str | int, ...], message: str) -> InputError:
        return InputError(message, file=doc.file, line=doc.line_of(path + key), place=_fmt(path + key))

    keys = [(("ref",), node.get("ref")), (("via",), node.get("via"))]
    keys += [(("basis", i), k) for i, k in enumerate(node.get("basis", []))]
    for where, key in keys:
        if key is None:
            continue
        if key not in sources:
            hint = closest_names(key, sources)
            extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
            raise fail(where, f"source {key!r} is not in sources: (the ruleset's own, or the "
                              f"bibliography rulesets/sources.yaml){extra}")
        cited.setdefault(key)
    entry = sources.get(node.get("ref", ""), {})
    work = sources.get(node["via"], {}) if "via" in node and "sections" not in entry else entry
    if "section" in node and work.get("sections"):
        for part in node["section"].split(" + "):
            if part not in work["sections"]:
                raise fail(("section",), f"{part!r} is not a section of {node['ref']} "
                                         f"({', '.join(work['sections'])})")
    if "locator" in node:
        file = node["locator"].split("#")[0]
        paths = entry.get("paths", [])
        if not any(p == file or p.endswith("/" + file) for p in paths):
            raise fail(("locator",), f"{file!r} is not one of the paths of {node['ref']}"
                                     + (f" ({', '.join(paths)})" if paths else " (it lists none)"))


def _fmt(path: tuple[str | int, ...]) -> str:
    from ..io.yamlsafe import format_path

    return format_path(path)


def _options(m: Merged) -> dict[str, OptionDef]:
    out = {}
    for name, e in m.options.items():
        o = e.node
        for key in ("default", "source"):
            if key not in o:
                raise InputError(f"option {name!r} needs {key}:", file=e.doc.file,
                                 line=e.doc.line_of(e.path), place=_fmt(e.path))
        default, where = o["default"], e
        if name in m.option_defaults:
            where = m.option_defaults[name]
            default = where.node.get("default", default)
        if default not in o["choices"]:
            path = (*where.path, "default")
            raise InputError(f"default {default!r} is not one of the choices "
                             f"({', '.join(map(str, o['choices']))})", file=where.doc.file,
                             line=where.doc.line_of(path), place=_fmt(path))
        out[name] = OptionDef(
            name=name,
            title=o.get("name", name),
            description=o.get("description", ""),
            default=default,
            choices={k: v.get("description", "") for k, v in o["choices"].items()},
            source=_citation(o["source"]),
            choice_sources={k: _citation(v["source"]) for k, v in o["choices"].items() if "source" in v},
            choice_names={k: v["name"] for k, v in o["choices"].items() if v.get("name")},
        )
    return out


def _zhu_text(node: Any) -> str:
    if isinstance(node, dict):
        if "option" in node:
            return "/".join(_zhu_text(v) for v in node["cases"].values())
        if "diao" in node:
            return "±吊"
        if "pool" in node:
            return "官堆"
        if "by_card" in node or "by_victim" in node:
            rows = node.get("by_card") or node.get("by_victim")
            return "/".join(str(r["zhu"]) for r in rows)
        if "chong_points" in node:
            return "沖"
        return "±"  # a computed amount (sum, count, …): rule tables describe it in full
    return str(node)


def _items(c: Compiler, m: Merged, groups: dict[str, Any], sources: dict[str, Any]
           ) -> tuple[dict[str, ItemDef], dict[str, tuple[Step, ...]]]:
    items: dict[str, ItemDef] = {}
    steps: dict[str, list[Step]] = {phase: [] for phase in PHASES}
    group_members: dict[str, list[ItemDef]] = {}
    group_phase: dict[str, str] = {}

    for entry in m.items:
        c.doc = entry.doc
        spec = entry.node
        path = entry.path
        iid = spec["id"]
        if iid in items:
            raise c.error(path + ("id",), f"duplicate item id {iid!r}")
        gid = spec.get("group")
        if gid is not None and gid not in groups:
            hint = closest_names(gid, groups)
            extra = f" (did you mean {' or '.join(hint)}?)" if hint else ""
            raise c.error(path + ("group",), f"group {gid!r} is not declared in groups:{extra}")
        phase = spec["phase"]
        if gid is not None and group_phase.setdefault(gid, phase) != phase:
            raise c.error(path + ("phase",), f"all members of group {gid!r} must share one phase")
        channel, channel_path = c.resolve(spec["channel"], path + ("channel",))
        if channel not in CHANNELS:
            raise c.error(channel_path, f"unknown channel {channel!r} "
                                        f"(channels: {', '.join(CHANNELS)})")
        won_refs: list[SetExpr] = []
        held_refs: list[SetExpr] = []
        with _Tracker(c, won_refs, held_refs):
            condition = c.condition(spec.get("when", True), path + ("when",))
            per = c.counter(spec["per"], path + ("per",)) if "per" in spec else None
        amount = c.amount(spec["zhu"], path + ("zhu",))
        source = _citation(spec["source"])
        status, basis = attestation(source, sources)
        owner = m.owner(entry.doc)
        item = ItemDef(
            id=iid,
            name=spec["name"],
            gloss=spec.get("gloss", ""),
            phase=phase,
            channel=channel,
            condition=condition,
            amount=amount,
            per=per,
            source=source,
            status=status,
            status_basis=basis,
            inherited_from=owner if owner and owner != m.info["id"].node else "",
            group=gid,
            ends_hand=spec.get("ends_hand", False),
            split=spec.get("split") == "holders",
            bank=spec.get("bank"),
            concept=spec.get("concept", iid),
            note=spec.get("note"),
            zhu_text=_zhu_text(spec["zhu"]),
            raw=spec,
            evidence_won=_combine(won_refs, "|") if won_refs else None,
            evidence_held=_combine(held_refs, "|") if held_refs else None,
        )
        items[iid] = item = dataclasses.replace(
            item, **_prefilter(c, spec.get("when", True), (*path, "when")))
        if gid is None:
            steps[phase].append(Step(items=(item,)))
            c.declare_fired(iid)
        else:
            # A group is one step, at the place of its first member: all members are
            # judged together and only the best one counts for a seat.
            members = group_members.setdefault(gid, [])
            if not members:
                steps[phase].append(Step(items=(), group=gid))  # filled in below
            members.append(item)
            c.declare_fired(iid)
            c.declare_fired(gid)

    all_when = {}
    for gid, e in m.groups.items():
        if "all_when" in e.node:
            c.doc = e.doc
            all_when[gid] = c.condition(e.node["all_when"], (*e.path, "all_when"))
    phases = {}
    for phase, seq in steps.items():
        phases[phase] = tuple(
            Step(items=tuple(group_members[s.group]), group=s.group, all_when=all_when.get(s.group))
            if s.group else s for s in seq
        )
    return items, phases


def _prefilter(c: Compiler, node: Any, path: KeyPath) -> dict[str, Any]:
    """What an item plainly needs, read off the top-level conjuncts of ``when:``.

    The cards the seat must have won and the most tricks it may take: necessary conditions,
    which the heuristic policy reads to know what an item pays for.
    """
    out: dict[str, Any] = {"need_won": 0, "max_tricks": 8}

    def visit(node: Any, path: KeyPath) -> None:
        node, path = c.resolve(node, path)
        if isinstance(node, list):
            for i, n in enumerate(node):
                visit(n, (*path, i))
            return
        if not isinstance(node, dict):
            return
        for kind, arg in node.items():
            if kind == "all":
                visit(arg, (*path, kind))
            elif kind == "won":
                expr = c.card_set(arg, (*path, kind))
                if expr.constant:
                    out["need_won"] |= expr.mask
            elif kind == "zheng_ben" and arg is False:
                out["max_tricks"] = 1

    visit(node, path)
    return out


class _Tracker:
    """Collects the card sets an item's condition looks at, to show the evidence later."""

    def __init__(self, c: Compiler, won: list[SetExpr], held: list[SetExpr]) -> None:
        self.c, self.won, self.held = c, won, held

    def __enter__(self) -> None:
        self.c.evidence = (self.won, self.held)  # type: ignore[attr-defined]

    def __exit__(self, *exc: object) -> None:
        self.c.evidence = None  # type: ignore[attr-defined]


def _procedure(c: Compiler, m: Merged) -> Procedure:
    def entry(key: str) -> tuple[dict[str, Any], KeyPath]:
        e = m.procedure.get(key)
        if e is None:
            return {}, ("procedure", key)
        c.doc = e.doc
        node, path = c.resolve(e.node, e.path)
        if node is not None and not isinstance(node, dict):
            raise c.error(path, f"procedure.{key} must be a mapping, got {node!r}")
        return node or {}, path

    fl, fl_path = entry("first_lead")
    count_from = fl.get("count_from", "banker")
    if count_from != "banker" and count_from not in SEAT_ALIASES:
        raise c.error((*fl_path, "count_from"), f"count_from is 'banker' or a seat, not {count_from!r}")
    offsets = {int(k): int(v) for k, v in fl.get("offsets", {}).items()}
    nums_spec, nums_path = entry("num")
    nums = {}
    for name, num in nums_spec.items():
        for card in _cards_of(c.card_set(name, (*nums_path, name)).mask):
            nums[card] = num
    sd_spec, sd_path = entry("sheng_dai")
    sheng_dai: dict[int, int] = {}
    for face, replaced in sd_spec.get("map", {}).items():
        f = c.card_set(face, (*sd_path, "map", face)).mask
        r = c.card_set(replaced, (*sd_path, "map", face)).mask
        if f.bit_count() != 1 or r.bit_count() != 1:
            raise c.error((*sd_path, "map", face), "sheng_dai maps one face card to one card")
        sheng_dai[f.bit_length() - 1] = r.bit_length() - 1
    kc_spec, kc_path = entry("kai_chong")
    kai_chong = None
    if kc_spec:
        kai_chong = compile_kai_chong(c, kc_spec, kc_path)  # 開沖 has a module of its own
    fb, fb_path = entry("first_banker")
    if fb.get("rule") == "face" and count_from == "banker":
        raise c.error((*fb_path, "rule"), "rule: face picks the 莊 by the 面張 count, but "
                                          "first_lead counts from the banker (give count_from a seat)")
    nb, nb_path = entry("next_banker")
    mian_dou, md_path = c.resolve(nb.get("mian_dou", "rule"), (*nb_path, "mian_dou"))
    if mian_dou not in ("rule", "redraw"):
        raise c.error(md_path, f"mian_dou is rule or redraw, not {mian_dou!r}")
    src = fl.get("source") or nb.get("source") or {"inference": "The ruleset states no procedure; "
                                                                 "the default one applies."}
    return Procedure(
        first_lead_from=count_from,
        first_lead_offsets=offsets,
        first_lead_rule=c.options.get("first_lead", "tou_jia"),
        num_overrides=nums,
        next_banker_rotate=nb.get("rotate", 1),
        next_banker_rule=nb.get("rule", "rotate"),
        first_banker_rule=fb.get("rule", "draw"),
        first_banker_source=_citation(fb["source"]) if "source" in fb else None,
        sheng_dai=sheng_dai,
        source=_citation(src),
        kai_chong=kai_chong,
        next_banker_mian_dou=mian_dou,
        next_banker_source=_citation(nb["source"]) if "source" in nb else None,
    )


def _cards_of(mask: int) -> list[int]:
    return [i for i in range(40) if mask >> i & 1]


def card_num(ruleset: Ruleset, card: int) -> int:
    return ruleset.procedure.num_overrides.get(card, CARD_NUM[card])


def _events(c: Compiler, m: Merged) -> tuple[dict[str, FineDef], DaiPeiDef | None]:
    fines: dict[str, FineDef] = {}
    for e in m.fines:
        c.doc, f, path = e.doc, e.node, e.path
        fines[f["id"]] = FineDef(
            id=f["id"], name=f["name"], amount=_fine_amount(c, f["zhu"], (*path, "zhu")),
            to=f["to"], ends_hand=f.get("ends_hand", False), source=_citation(f["source"]),
            note=f.get("note"), zhu_text=_zhu_text(f["zhu"]), gloss=f.get("gloss", ""),
            bank=f.get("bank"),
            bank_card=(c.card_set(f["bank_card"], (*path, "bank_card")) if "bank_card" in f
                       else None),
        )
    if m.dai_pei is None:
        return fines, None
    c.doc, dp, base = m.dai_pei.doc, m.dai_pei.node, m.dai_pei.path
    offences = {}
    for i, o in enumerate(dp["offences"]):
        path = (*base, "offences", i)
        req = o.get("requires", {})
        # An event type may be both a fine and a 代賠 offence only when the offence asks for
        # events recorded as affecting others (罰例 誤出 …: fined always, 代賠 when 四野如有關係).
        if o["id"] in offences or (o["id"] in fines and not req.get("affected")):
            raise c.error((*path, "id"), f"duplicate event id {o['id']!r}")
        card = (c.card_set(req["trick_won_with"], (*path, "requires", "trick_won_with"))
                if "trick_won_with" in req else None)
        offences[o["id"]] = OffenceDef(
            id=o["id"], name=o["name"], gloss=o.get("gloss", ""), activated=o["activated"],
            requires_card=card, requires_banker=req.get("winner_is_banker", False),
            source=_citation(o["source"]), requires_affected=bool(req.get("affected")),
            exempt_only_left=(c.card_set(o["exempt"]["only_left"], (*path, "exempt", "only_left"))
                              if "only_left" in o.get("exempt", {}) else None),
            exempt_at_play_of=(c.card_set(o["exempt"]["at_play_of"], (*path, "exempt", "at_play_of"))
                               if "at_play_of" in o.get("exempt", {}) else None),
        )
    amounts = {}
    for key in ("zheng_ben", "not_zheng_ben"):
        amounts[key] = c.number(dp["amount"][key], (*base, "amount", key))
        if amounts[key] < 0:
            raise c.error((*base, "amount", key), f"must be at least 0, got {dp['amount'][key]}")
    dai_pei = DaiPeiDef(
        zheng_ben=amounts["zheng_ben"],
        not_zheng_ben=amounts["not_zheng_ben"],
        source=_citation(dp["source"]),
        offences=offences,
    )
    return fines, dai_pei


def _fine_amount(c: Compiler, node: Any, path: tuple[str | int, ...]) -> Any:
    """A fine's amount: a number, or the first matching row of by_card / by_victim.

    The returned callable takes ``(state, event)``.
    """
    node, path = c.resolve(node, path)
    if isinstance(node, dict) and ("by_card" in node or "by_victim" in node):
        kind = "by_card" if "by_card" in node else "by_victim"
        rows = []
        for i, row in enumerate(node[kind]):
            rpath = path + (kind, i)
            t = c.number(row["zhu"], rpath + ("zhu",))
            if t < 0:
                raise c.error(rpath + ("zhu",), f"must be at least 0, got {row['zhu']}")
            if kind == "by_card":
                test = c.card_set(row["in"], rpath + ("in",)) if "in" in row else None
            else:
                test = c.card_set(row["held_any"], rpath + ("held_any",)) if "held_any" in row else None
            rows.append((test, t))

        def by_row(st: HandState, event: Any) -> int:
            if kind == "by_card":
                if event.card is None:
                    raise InputError(f"event {event.type!r} needs card: (the card concerned)")
                probe = 1 << event.card
            else:
                if event.victim is None:
                    raise InputError(f"event {event.type!r} needs victim: (the seat concerned)")
                probe = st.held[event.victim]
            for test, t in rows:
                if test is None or probe & test.value(st):
                    return t
            return 0
        return by_row
    t = c.number(node, path)
    if t < 0:
        raise c.error(path, f"a fine is paid by the offender: it must be at least 0, got {node}")
    return lambda st, event: t
