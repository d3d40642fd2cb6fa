"""Fuzzing the readers: mutated deal and ruleset files give an InputError or a valid result, never a crash.

Valid deal and ruleset files are mutated — byte flips, line deletions, duplications and
swaps, key renames, value swaps, random YAML structures put in place of a value, and the
same operations on the parsed data — and fed to :func:`dealfile.parse_deals` /
:func:`ruleset.compile_document`.  The only exception allowed out is
:class:`~mahdiao_rules.errors.InputError`, and it must name the file and fit on one line.
A mutant that is still valid is settled (deals under feng, rulesets on a few deals) and its
ledger must balance.

CI runs a small, derandomised budget (1 150 inputs; the whole file in about 15 s on two
cores).  A longer, randomised run for local use (failures are kept in ``.hypothesis/`` and
replayed first)::

    MAHDIAO_FUZZ_EXAMPLES=20000 python -m pytest tests/test_fuzz.py --hypothesis-show-statistics

Every crash found this way is fixed and its input kept as a file in ``tests/bad/``; a crash
whose fix belongs to a file outside issue 7 is kept in ``tests/bad/pending/`` and listed in
KNOWN_CRASHES, so that the fuzzers look past it.
"""

from __future__ import annotations

import copy
import json
import os
import re
import traceback
from collections.abc import Callable, Iterator
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mahdiao_rules.cards import CARD_ALIASES, CATEGORY_ALIASES
from mahdiao_rules.deal import SEAT_ALIASES, Deal
from mahdiao_rules.errors import InputError
from mahdiao_rules.io import yamlsafe
from mahdiao_rules.io.dealfile import load_deals, parse_deals
from mahdiao_rules.io.resources import schema_path
from mahdiao_rules.io.yamlsafe import Document, load_text
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.ruleset import codegen, compile_document, find_ruleset
from mahdiao_rules.ruleset.dsl import CONDITION_KINDS, NUMERIC_KINDS, SET_KINDS
from mahdiao_rules.ruleset.model import Ruleset
from mahdiao_rules.settle.ledger import nets

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

# --------------------------------------------------------------------------- budget

_LONG = int(os.environ.get("MAHDIAO_FUZZ_EXAMPLES", "0") or 0)


def budget(ci_examples: int) -> settings:
    """*ci_examples* in CI (derandomised, so CI is reproducible); MAHDIAO_FUZZ_EXAMPLES when set."""
    return settings(
        max_examples=_LONG or ci_examples,
        # One example costs a few ms (up to ~0.2 s when feng is compiled and settled); two
        # seconds is far beyond any sane input and still tolerant of a slow CI machine.
        deadline=timedelta(seconds=2),
        derandomize=not _LONG,
        database=settings.default.database if _LONG else None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                               HealthCheck.filter_too_much],
    )


# --------------------------------------------------------------------------- seeds


DEAL_SEEDS = [TESTS / "bad" / "base_deal.yaml", ROOT / "examples" / "examples.yaml"]
RULESET_SEEDS = [TESTS / "bad" / "base_ruleset.yaml", ROOT / "rulesets" / "feng.yaml"]

# Small files are mutated most often: they are cheap, and most of a mutation's effect is local.
DEAL_WEIGHTS = [5, 1]
RULESET_WEIGHTS = [4, 1]


@cache
def seed_text(path: Path) -> bytes:
    return path.read_bytes()


@cache
def seed_data(path: Path) -> Any:
    return load_text(seed_text(path), str(path)).data


def weighted(paths: list[Path], weights: list[int]) -> st.SearchStrategy[Path]:
    return st.sampled_from([p for p, w in zip(paths, weights, strict=True) for _ in range(w)])


def _schema_keys(node: Any, out: set[str]) -> set[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                out.update(value)
            _schema_keys(value, out)
    elif isinstance(node, list):
        for value in node:
            _schema_keys(value, out)
    return out


def _scalars(node: Any, out: set[Any]) -> set[Any]:
    if isinstance(node, dict):
        for key, value in node.items():
            out.add(key)
            _scalars(value, out)
    elif isinstance(node, list):
        for value in node:
            _scalars(value, out)
    elif not (isinstance(node, float) and node != node):
        out.add(node)
    return out


@cache
def known_keys() -> list[str]:
    keys: set[str] = set()
    for name in ("deal", "ruleset", "ruleset-fragment"):
        _schema_keys(json.loads(schema_path(name).read_text(encoding="utf-8")), keys)
    keys.update(CONDITION_KINDS, NUMERIC_KINDS, SET_KINDS,
                ("option", "cases", "in", "of", "min", "max", "eq", "card", "trick_has", "then", "else"))
    return sorted(keys)


@cache
def seed_values() -> list[Any]:
    values: set[Any] = set()
    for path in DEAL_SEEDS + RULESET_SEEDS:
        _scalars(seed_data(path), values)
    return sorted(values, key=repr)


# Scalars that have bitten YAML users, and values at the edges of every range.
TRAPS: list[Any] = [
    "no", "yes", "on", "off", "010", "0x1F", "1_000", "2026-01-01", "12:30", "~", "", " ", "null",
    0, -1, 1, 2, 7, 8, 9, 40, 41, -0.5, 0.5, 0.25, 1.5, 1e300, -1e300, 10**30, -(10**30),
    1.0, 3.0, 4.0, 8.0, -2.0, 1e6, 1e23, "4.0", "1e3", ".5", "0o17", "0x10", "+1", "-0",
    float("inf"), float("-inf"), True, False, None, [], {}, [[]], {"": None},
    "百佬", "九万", "九萬", "万万", "萬萬", "shi_bai", "SHI_BAI", "東", "东", "e", "north", "banker",
    "feng", "app", "../feng.yaml", "app/kai_zhu.yaml", "nope.yaml",
    "\x85", "\u2028", "\ufeff", "a\nb", "'", '"', "\\", "*", "&", "!!python/object:os.system",
]

_chars = st.characters(exclude_categories=("Cs",))
plain_scalars = (st.none() | st.booleans() | st.integers(-(10**20), 10**20)
                 | st.floats(allow_nan=False) | st.text(_chars, max_size=12))
plain_data = st.recursive(
    plain_scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(_chars, max_size=8), inner,
                                                                 max_size=5),
    max_leaves=20,
)


def values() -> st.SearchStrategy[Any]:
    """A replacement value: one from the seed files, a trap, a card or seat name, or random data."""
    return st.one_of(
        st.sampled_from(seed_values()),
        # A copy: a mutation may later add to this [] or {}, which must not change TRAPS.
        st.sampled_from(TRAPS).map(copy.deepcopy),
        st.sampled_from(sorted(CARD_ALIASES) + sorted(CATEGORY_ALIASES) + sorted(SEAT_ALIASES)),
        plain_data,
    )


def keys() -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(known_keys()), st.text(_chars, min_size=1, max_size=8),
                     st.integers(-3, 100))


# --------------------------------------------------------------------------- text mutations

_KEY_RE = re.compile(r"(?m)(?<![\w\u4e00-\u9fff])([A-Za-z_\u4e00-\u9fff][\w\u4e00-\u9fff]*)\s*:")
_VALUE_RE = re.compile(r"(?<=[\s,\[{:])([^\s,\[\]{}:#'\"][^,\[\]{}\n#]*?)(?=\s*[,\]}\n])")


def _yaml_value(value: Any) -> str:
    """*value* in flow YAML (JSON is flow YAML, except for infinities)."""
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    if isinstance(value, list):
        return "[" + ", ".join(map(_yaml_value, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_yaml_value(k)}: {_yaml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False)


@st.composite
def text_mutation(draw: st.DrawFn, text: str) -> str:
    """One text-level change to *text* (kept as str; bytes are carried as surrogate escapes)."""
    lines = text.split("\n")
    op = draw(st.sampled_from(["flip", "insert_bytes", "delete_line", "duplicate_line", "swap_lines",
                               "indent", "rename_key", "swap_values", "replace_value",
                               "insert_structure", "truncate", "tabify"]))
    if op == "flip":
        raw = bytearray(text.encode("utf-8", "surrogateescape"))
        if raw:
            i = draw(st.integers(0, len(raw) - 1))
            raw[i] ^= 1 << draw(st.integers(0, 7))
        return raw.decode("utf-8", "surrogateescape")
    if op == "insert_bytes":
        raw = text.encode("utf-8", "surrogateescape")
        i = draw(st.integers(0, len(raw)))
        extra = draw(st.binary(min_size=1, max_size=4) | st.sampled_from(
            [b"\t", b"\xef\xbb\xbf", b"\x00", b"&a ", b"*a", b" !!python/object:os.system ", b"\r", b"<<: "]))
        return (raw[:i] + extra + raw[i:]).decode("utf-8", "surrogateescape")
    if op == "truncate":
        return text[:draw(st.integers(0, len(text)))]
    i = draw(st.integers(0, len(lines) - 1))
    j = draw(st.integers(0, len(lines) - 1))
    if op == "delete_line":
        del lines[i]
    elif op == "duplicate_line":
        lines.insert(i, lines[i])
    elif op == "swap_lines":
        lines[i], lines[j] = lines[j], lines[i]
    elif op == "indent":
        lines[i] = ("  " + lines[i]) if draw(st.booleans()) else lines[i].removeprefix("  ")
    elif op == "tabify":
        lines[i] = lines[i].replace("  ", "\t", 1)
    elif op == "rename_key":
        found = list(_KEY_RE.finditer(text))
        if found:
            m = draw(st.sampled_from(found))
            new = str(draw(keys())).replace("\n", " ")
            return text[:m.start(1)] + new + text[m.end(1):]
    else:
        found = list(_VALUE_RE.finditer(text))
        if not found:
            return text
        m = draw(st.sampled_from(found))
        if op == "swap_values":
            other = draw(st.sampled_from(found))
            a, b = sorted([m, other], key=lambda x: x.start())
            if a.end() > b.start():
                return text
            return text[:a.start()] + b.group(1) + text[a.end():b.start()] + a.group(1) + text[b.end():]
        new_value = draw(values() if op == "replace_value" else plain_data)
        return text[:m.start(1)] + _yaml_value(new_value) + text[m.end(1):]
    return "\n".join(lines)


@st.composite
def mutated_text(draw: st.DrawFn, paths: list[Path], weights: list[int]) -> tuple[Path, bytes]:
    path = draw(weighted(paths, weights))
    text = seed_text(path).decode("utf-8")
    for _ in range(draw(st.integers(1, 3))):
        text = draw(text_mutation(text))
    return path, text.encode("utf-8", "surrogateescape")


# --------------------------------------------------------------------------- data mutations


def node_paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from node_paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from node_paths(value, (*prefix, i))


@st.composite
def data_mutation(draw: st.DrawFn, data: Any) -> Any:
    """One change at a random node of the parsed tree *data* (changed in place; returns the root)."""
    path = draw(st.sampled_from(list(node_paths(data))))
    if not path:
        return draw(values())
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    op = draw(st.sampled_from(["replace", "replace", "delete", "duplicate", "rename", "add_key", "wrap"]))
    if op == "replace":
        parent[last] = draw(values())
    elif op == "delete":
        del parent[last]
    elif op == "duplicate":
        value = copy.deepcopy(parent[last])
        if isinstance(parent, list):
            parent.insert(last, value)
        else:
            parent[draw(keys())] = value
    elif op == "rename" and isinstance(parent, dict):
        parent[draw(keys())] = parent.pop(last)
    elif op == "add_key" and isinstance(parent[last], dict):
        parent[last][draw(keys())] = draw(values())
    elif op == "wrap":
        parent[last] = draw(st.sampled_from([[parent[last]], {draw(keys()): parent[last]}]))
    return data


@st.composite
def mutated_data(draw: st.DrawFn, paths: list[Path], weights: list[int]) -> tuple[Path, Any]:
    path = draw(weighted(paths, weights))
    data = copy.deepcopy(seed_data(path))
    for _ in range(draw(st.integers(1, 3))):
        data = draw(data_mutation(data))
    return path, data


def as_yaml(data: Any, style: str) -> str:
    """*data* as YAML text in flow (JSON) or block style; None when the dumper cannot write it."""
    if style == "json":
        return json.dumps(data, ensure_ascii=False, indent=1)
    return yaml.dump(data, Dumper=_DUMPER, allow_unicode=True, sort_keys=False)


_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


# --------------------------------------------------------------------------- the checks


# Crashes already found, whose fix belongs to files outside issue 7 (ruleset/, settle.py,
# cards.py): each has an input in tests/bad/pending/ (a strict xfail in test_limits.py).  An
# exception of that type with that (file, function) anywhere in its mahdiao_rules frames is let
# through, so that a long run finds new problems rather than these again.  Remove an entry
# when its fix lands.
KNOWN_CRASHES: set[tuple[str, str, str]] = set()  # every crash found so far is fixed


def crash_sites(exc: BaseException) -> set[tuple[str, str, str]]:
    """(exception type, file, function) for each mahdiao_rules frame of *exc*'s traceback."""
    return {(type(exc).__name__, Path(f.filename).name, f.name)
            for f in traceback.extract_tb(exc.__traceback__) if "mahdiao_rules" in f.filename}


def known_crash(exc: Exception) -> bool:
    return not isinstance(exc, AssertionError) and bool(crash_sites(exc) & KNOWN_CRASHES)


def expect_input_error(fn: Callable[[], Any], name: str | None) -> Any:
    """Run *fn*; an InputError must name a file (*name* when given) and be one line.

    Anything else fails the test, unless it is one of KNOWN_CRASHES.  A ruleset's error may
    name its base or a fragment, so rulesets pass None.
    """
    try:
        return fn()
    except InputError as err:
        text = str(err)
        assert err.message, text
        assert err.file == name if name is not None else err.file, text
        assert "\n" not in text and "\r" not in text, text
        return None
    except Exception as exc:
        if not known_crash(exc):
            raise
        return None


def read(raw: bytes | str, name: str) -> tuple[Any, ...]:
    try:
        doc = load_text(raw, name)
    except InputError as err:
        return ("error", str(err))
    return ("ok", doc.data, [doc.line_of(p) for p in node_paths(doc.data)] if doc.data is not None else [])


def same_with_both_parsers(raw: bytes | str, name: str) -> None:
    """libyaml's events (when PyYAML has them) and PyYAML's own parser read *raw* alike.

    Only for the small seeds: PyYAML's parser is slow, and size does not make new differences.
    """
    if yamlsafe._FastLoader is None or len(raw) > 2000:
        return
    fast = read(raw, name)
    saved = yamlsafe._FastLoader
    yamlsafe._FastLoader = None
    try:
        pure = read(raw, name)
    finally:
        yamlsafe._FastLoader = saved
    assert fast == pure


@cache
def feng() -> Ruleset:
    return find_ruleset("feng")


@cache
def probe_deals() -> list[Deal]:
    """Deals that exercise the events and the 官堆: every bundled example."""
    return parse_deals(load_text(seed_text(ROOT / "examples" / "examples.yaml"), "examples.yaml"))


def balanced(rs: Ruleset, deal: Deal) -> None:
    try:
        s = settle_deal(rs, deal)
    except InputError:  # e.g. an event the ruleset prices needs a card the deal does not give
        return
    except Exception as exc:
        if not known_crash(exc):
            raise
        return
    assert sum(nets(s.ledger)) == 0
    assert all(t.amount > 0 for t in s.ledger)


def check_deals(raw: bytes | str, name: str) -> None:
    deals = expect_input_error(lambda: parse_deals(load_text(raw, name)), name)
    if deals:
        assert all(isinstance(d, Deal) for d in deals)
        balanced(feng(), deals[0])


def check_deal_file(raw: bytes, path: Path, name: str) -> None:
    """The same through the file reader (size check, decoding), as ``mahdiao replay`` reads it."""
    path.write_bytes(raw)
    deals = expect_input_error(lambda: load_deals(path, display_name=name), name)
    if deals:
        balanced(feng(), deals[0])


def check_ruleset_doc(doc: Document) -> None:
    rs = expect_input_error(lambda: compile_document(doc), None)
    if rs is not None:
        for deal in probe_deals()[:3]:
            balanced(rs, deal)


def check_ruleset(raw: bytes | str, name: str) -> None:
    doc = expect_input_error(lambda: load_text(raw, name), name)
    if doc is not None:
        check_ruleset_doc(doc)


# --------------------------------------------------------------------------- the fuzzers


@budget(200)
@given(case=mutated_text(DEAL_SEEDS, DEAL_WEIGHTS), suffix=st.sampled_from([".yaml", ".json"]))
def test_mutated_deal_text(case: tuple[Path, bytes], suffix: str,
                           tmp_path_factory: pytest.TempPathFactory) -> None:
    path, raw = case
    check_deal_file(raw, tmp_path_factory.getbasetemp() / f"fuzz{suffix}", path.name + suffix)
    same_with_both_parsers(raw, path.name + suffix)


@budget(150)
@given(mutated_data(DEAL_SEEDS, DEAL_WEIGHTS), st.sampled_from(["yaml", "json"]))
def test_mutated_deal_data(case: tuple[Path, Any], style: str) -> None:
    path, data = case
    check_deals(as_yaml(data, style), str(path))
    # The same tree without line information, as a caller building a Document by hand has it.
    doc = Document(str(path), data)
    expect_input_error(lambda: parse_deals(doc), str(path))


@budget(150)
@given(mutated_text(RULESET_SEEDS, RULESET_WEIGHTS))
def test_mutated_ruleset_text(case: tuple[Path, bytes]) -> None:
    path, raw = case
    check_ruleset(raw, str(path))
    same_with_both_parsers(raw, path.name)


@budget(150)
@given(mutated_data(RULESET_SEEDS, RULESET_WEIGHTS))
def test_mutated_ruleset_data(case: tuple[Path, Any]) -> None:
    path, data = case
    check_ruleset_doc(Document(str(path), data))


# Random structures shaped like the two formats: the right keys with values of any kind.
DEAL_KEYS = ["id", "banker", "hands", "stock", "play", "events", "guan_dui", "title", "deals"]
RULESET_KEYS = ["id", "name", "sources", "units", "options", "procedure", "sets", "channels", "groups",
                "items", "events", "extends", "include", "remove", "item_tags"]


def shaped(top_keys: list[str]) -> st.SearchStrategy[Any]:
    inner = st.deferred(lambda: st.one_of(
        values(),
        st.lists(inner, max_size=4),
        st.dictionaries(keys(), inner, max_size=4),
    ))
    return st.one_of(
        st.dictionaries(st.sampled_from(top_keys), inner, max_size=len(top_keys)),
        plain_data,
    )


@budget(150)
@given(shaped(DEAL_KEYS), st.sampled_from(["yaml", "json"]))
def test_random_deal_structures(data: Any, style: str) -> None:
    check_deals(as_yaml(data, style), "random.yaml")


@budget(150)
@given(shaped(RULESET_KEYS))
def test_random_ruleset_structures(data: Any) -> None:
    base = copy.deepcopy(seed_data(RULESET_SEEDS[0]))
    if isinstance(data, dict):
        base.update(data)  # keep enough of a valid ruleset to reach the compiler
    check_ruleset_doc(Document(str(RULESET_SEEDS[0]), base))


# A condition, amount or card set built from the DSL's own kinds with arguments of any shape.
def dsl_nodes() -> st.SearchStrategy[Any]:
    kinds = sorted(CONDITION_KINDS) + sorted(NUMERIC_KINDS) + sorted(SET_KINDS)
    return st.recursive(
        values(),
        lambda inner: st.one_of(
            st.dictionaries(st.sampled_from(kinds), inner, min_size=1, max_size=2),
            st.lists(inner, max_size=3),
            st.fixed_dictionaries({"in": inner}, optional={"of": st.sampled_from(
                ["held", "won", "chong", "won_chong", "others_won", "nope"]), "min": inner,
                "max": inner, "eq": inner}),
        ),
        max_leaves=8,
    )


@budget(200)
@given(st.sampled_from(["when", "zhu", "per"]), dsl_nodes())
def test_random_dsl_nodes(slot: str, node: Any) -> None:
    data = copy.deepcopy(seed_data(RULESET_SEEDS[0]))
    data["items"][1][slot] = node
    check_ruleset_doc(Document(str(RULESET_SEEDS[0]), data))


@pytest.mark.parametrize("path", DEAL_SEEDS + RULESET_SEEDS, ids=lambda p: p.name)
def test_seeds_are_valid(path: Path) -> None:
    """The fuzzers start from valid files (else they would only test one error)."""
    if path in DEAL_SEEDS:
        assert parse_deals(load_text(seed_text(path), str(path)))
    else:
        assert compile_document(load_text(seed_text(path), str(path))).items


@pytest.mark.parametrize("path", sorted((TESTS / "bad" / "pending").glob("*.yaml")), ids=lambda p: p.name)
def test_known_crashes_are_the_pending_files(path: Path) -> None:
    """Each crash a pending file still causes is one of KNOWN_CRASHES (and nothing else crashes)."""
    try:
        rs = compile_document(load_text(path.read_bytes(), str(path)))
        for deal in probe_deals():
            settle_deal(rs, deal)
    except InputError:
        pass
    except Exception as exc:
        assert known_crash(exc), crash_sites(exc)


# --------------------------------------------------------------------------- sittings

SITTING_SEEDS = [TESTS / "bad" / "base_sitting.yaml", ROOT / "examples" / "sitting.yaml"]
SITTING_WEIGHTS = [3, 1]


@cache
def app() -> Ruleset:
    return find_ruleset("app")


def check_sitting(raw: bytes | str, name: str) -> None:
    """A mutated sitting reads as an InputError or a sitting; a sitting plays (or names its
    problem) under feng and app, and every hand balances with the 官堆 as an account."""
    from mahdiao_rules.io.sittingfile import parse_sitting
    from mahdiao_rules.sitting import play_sitting

    record = expect_input_error(lambda: parse_sitting(load_text(raw, name)), name)
    if record is None:
        return
    for rs in (feng(), app()):
        res = expect_input_error(lambda rs=rs: play_sitting(rs, record), name)
        if res is not None:
            assert all(sum(h.nets) == 0 and h.pool_after >= 0 for h in res.hands)


@budget(80)
@given(mutated_text(SITTING_SEEDS, SITTING_WEIGHTS), st.sampled_from([".yaml", ".json"]))
def test_mutated_sitting_text(case: tuple[Path, bytes], suffix: str) -> None:
    path, raw = case
    check_sitting(raw, path.name + suffix)


@budget(80)
@given(mutated_data(SITTING_SEEDS, SITTING_WEIGHTS), st.sampled_from(["yaml", "json"]))
def test_mutated_sitting_data(case: tuple[Path, Any], style: str) -> None:
    path, data = case
    check_sitting(as_yaml(data, style), str(path))


@pytest.mark.parametrize("path", SITTING_SEEDS, ids=lambda p: p.name)
def test_sitting_seeds_are_valid(path: Path) -> None:
    from mahdiao_rules.io.sittingfile import parse_sitting

    assert parse_sitting(load_text(seed_text(path), str(path))).hands


# --------------------------------------------------------------------------- nested conditions: bounded cost

# Well-formed conditions nested with every combinator: the cost of a hand must stay within
# what the ruleset's compile-time bound (Ruleset.hand_cost, ruleset/bounds.py) promises, or
# the ruleset must be refused when it compiles.  The bound is checked by counting the Python
# calls that generating the code and settling make (a deterministic measure of work), and
# each example must finish within 30 s — profiled, the largest ruleset the bound admits
# takes a few seconds, while 4^12 evaluations would take hours: exponential work cannot
# hide in either.
_LEAVES = [True, False, {"won": "百老"}, {"held_any": ["千萬", "萬萬"]}, {"banker": True},
           {"count": {"in": "十", "of": "won", "min": 3}}, {"tricks": {"min": 2}},
           {"zheng_ben": False}, {"won_first": 1}, {"count": {"in": "百老", "of": "won", "min": 2}}]


def _wrap(chain: list[tuple[str, Any]], inner: Any) -> Any:
    for kind, other in chain:
        inner = {kind: inner} if kind in ("any_seat", "no_seat", "not") else {kind: [inner, other]}
    return inner


def nested_conditions() -> st.SearchStrategy[Any]:
    """A random condition tree, wrapped in a chain of up to 14 combinators (seat loops among
    them), so that deep nestings of any_seat/no_seat come up often."""
    tree = st.recursive(
        st.sampled_from(_LEAVES),
        lambda inner: st.one_of(
            st.builds(lambda c: {"any_seat": c}, inner),
            st.builds(lambda c: {"no_seat": c}, inner),
            st.builds(lambda c: {"not": c}, inner),
            st.builds(lambda a, b: {"all": [a, b]}, inner, inner),
            st.builds(lambda a, b: {"any": [a, b]}, inner, inner),
        ),
        max_leaves=12,
    )
    link = st.tuples(st.sampled_from(["any_seat", "no_seat", "not", "all", "any"]),
                     st.sampled_from(_LEAVES))
    return st.builds(_wrap, st.lists(link, max_size=14), tree)


def _calls_while(fn: Callable[[], Any]) -> int:
    import sys

    calls = 0

    def count(_frame: Any, event: str, _arg: Any) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(count)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return calls


@pytest.fixture(scope="module")
def feng_calls() -> int:
    """The calls feng makes on the probe deals (its code generated beforehand, so the
    deadline of each example measures the example)."""
    deals = probe_deals()[:3]
    for deal in deals:
        settle_deal(feng(), deal)
    return _calls_while(lambda: [settle_deal(feng(), d) for d in deals])


@settings(budget(40), deadline=timedelta(seconds=30))
@given(when=nested_conditions(), amount_when=nested_conditions(), in_amount=st.booleans())
def test_nested_conditions_cost_what_the_compile_time_bound_says(when: Any, amount_when: Any,
                                                                 in_amount: bool, feng_calls: int) -> None:
    from mahdiao_rules.ruleset.bounds import cost_limit

    data = copy.deepcopy(seed_data(RULESET_SEEDS[0]))
    data["items"][1]["when"] = when
    if in_amount:
        data["items"][1]["zhu"] = {"if": {"when": amount_when, "then": 3, "else": 2}}
    try:
        rs = compile_document(Document(str(RULESET_SEEDS[0]), data))
    except InputError as err:
        assert "steps per hand" in err.message, err.message  # refused for its cost, and only so
        return
    assert rs.hand_cost <= cost_limit()
    codegen._CACHE.clear()  # every run of an example generates its code: the same work each time
    deals = probe_deals()[:3]
    baseline = feng_calls
    calls = _calls_while(lambda: [settle_deal(rs, d) for d in deals])
    # The first settlement generates the ruleset's code (about a dozen calls per step of the
    # bound: the generated code unrolls seat loops, so its size follows the same bound) and
    # runs it; an interpreting engine would spend a few calls per step and deal instead.  The
    # rest is the engine's own work, which does not depend on the conditions (the feng
    # baseline is a generous measure of it).
    assert calls <= 30 * rs.hand_cost + 2 * baseline + 10_000, (calls, rs.hand_cost)
