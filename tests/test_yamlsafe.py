"""Tests for mahdiao_rules.io.yamlsafe (safe YAML/JSON reading) and mahdiao_rules.io.schemacheck."""

from __future__ import annotations

import json
import math
import os
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from mahdiao_rules.errors import InputError
from mahdiao_rules.io import schemacheck, yamlsafe
from mahdiao_rules.io.textcheck import UNSAFE
from mahdiao_rules.io.yamlsafe import DEFAULT_LIMITS, Document, Limits, format_path, load_file, load_text

DATA = Path(__file__).parent / "data"


def load(text: str | bytes, file: str = "t.yaml", **kwargs: Any) -> Any:
    return load_text(text, file, **kwargs).data


def error_of(text: str | bytes, file: str = "t.yaml", **kwargs: Any) -> InputError:
    with pytest.raises(InputError) as info:
        load_text(text, file, **kwargs)
    return info.value


# --------------------------------------------------------------------------- format_path


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (("deals", 0, "hands", "east", 3), "deals[0].hands.east[3]"),
        ((), "(top level)"),
        ((0,), "[0]"),
        ((2, "lead"), "[2].lead"),
        (("hands", "東"), "hands.東"),
        (("odd key", "a.b"), "['odd key']['a.b']"),
    ],
)
def test_format_path(path: tuple[str | int, ...], shown: str) -> None:
    assert format_path(path) == shown


# --------------------------------------------------------------------------- scalars


def test_yaml11_traps_stay_text() -> None:
    data = load(
        "a: yes\nb: no\nc: on\nd: off\ne: y\nf: 010\ng: 2001-12-14\nh: 1_000\ni: 0b101\n"
        "j: 12:30\nk: =\nl: 00\nm: -01\nn: 010.5\n"
    )
    assert data == {
        "a": "yes", "b": "no", "c": "on", "d": "off", "e": "y", "f": "010", "g": "2001-12-14",
        "h": "1_000", "i": "0b101", "j": "12:30", "k": "=", "l": "00", "m": "-01", "n": "010.5",
    }


def test_booleans_any_case() -> None:
    assert load("[true, false, True, FALSE, tRuE]") == [True, False, True, False, True]


def test_integers() -> None:
    data = load("[0, 7, -3, +4, 0x1F, 0o17, -0]")
    assert data == [0, 7, -3, 4, 31, 15, 0]
    assert all(type(x) is int for x in data)


def test_floats_are_read_exactly() -> None:
    data = load("[1.5, .5, -.5, 1e3, 2.5E-1, 1., .inf, -.Inf, +.INF, .nan, 0.25, -0.0]")
    assert data[:6] == [1.5, 0.5, -0.5, 1000, 0.25, 1]
    assert [type(x) for x in data[:6]] == [Decimal, Decimal, Decimal, int, Decimal, int]
    assert data[6:9] == [math.inf, -math.inf, math.inf]
    assert math.isnan(data[9])
    assert data[10] == Decimal("0.25") and data[11] == 0 and type(data[11]) is int


@pytest.mark.parametrize(("text", "value"), [
    ("2.0000000000000001", Fraction(20000000000000001, 10**16)),
    ("0.50000000000000001", Fraction(50000000000000001, 10**17)),
    ("0.1", Fraction(1, 10)),
    ("1e-30", Fraction(1, 10**30)),
    ("123456789012345678901234567890.5", Fraction(246913578024691357802469135781, 2)),
    ("4.0", 4), ("1e3", 1000), ("-2.50e1", -25),
])
def test_a_number_is_the_exact_rational_its_text_states(text, value) -> None:
    for doc in (f"a: {text}\n", f'{{"a": {text}}}'):
        got = load_text(doc, "t.json" if doc.startswith("{") else "t.yaml").data["a"]
        assert Fraction(got) == value
        assert isinstance(got, int) == (Fraction(value).denominator == 1)


@pytest.mark.parametrize("text", ["1e5000", "1e-5000", "0." + "1" * 4400])
def test_a_number_beyond_4300_digits_is_refused_not_computed(text) -> None:
    for doc, name in ((f"a: {text}\n", "t.yaml"), (f'{{\n"a": {text}}}', "t.json")):
        err = error_of(doc, file=name)
        assert err.message == "this number has too many digits"
        assert err.line == (1 if name == "t.yaml" else 2)


def test_nulls() -> None:
    assert load("a: null\nb: ~\nc:\nd: Null\ne: NULL\n") == dict.fromkeys("abcde")


def test_quoted_scalars_are_text() -> None:
    assert load("""['true', "12", '010', "null", '', "1.5", '~']""") == [
        "true", "12", "010", "null", "", "1.5", "~"]


def test_explicit_standard_tags() -> None:
    assert load('[!!str 12, !!int "12", !!float 3, !!bool "true", !!null "", !!str yes]') == [
        "12", 12, 3.0, True, None, "yes"]
    assert load("!!map {a: !!seq [1]}") == {"a": [1]}


@pytest.mark.parametrize("src", ["x: !!int abc\n", "x: !!bool yes\n", "x: !!float abc\n", "x: !!null 0\n"])
def test_explicit_tag_with_bad_value(src: str) -> None:
    err = error_of(src)
    assert err.line == 1
    assert err.place == "x"
    assert "is not a valid" in err.message


def test_explicit_tag_on_wrong_kind() -> None:
    err = error_of("a: 1\nx: !!map [1]\n")
    assert (err.line, err.place) == (2, "x")
    assert "!!map" in err.message and "list" in err.message


def test_surrogate_escapes() -> None:
    assert load('"\\ud83d\\ude00"') == "😀"
    assert "surrogate" in error_of('"\\ud800"').message


def test_huge_integer_is_an_input_error() -> None:
    err = error_of("n: " + "1" * 5000 + "\n")
    assert "too many digits" in err.message


# --------------------------------------------------------------------------- tags


@pytest.mark.parametrize(
    ("src", "shown"),
    [
        ("x: !!python/object/apply:os.system ['echo hi']\n", "!!python/object/apply:os.system"),
        ("x: !!python/name:os.system\n", "!!python/name:os.system"),
        ("x: !!binary aGVsbG8=\n", "!!binary"),
        ("x: !!set {a: null}\n", "!!set"),
        ("x: !!timestamp 2001-12-14\n", "!!timestamp"),
        ("x: !!omap [a: 1]\n", "!!omap"),
        ("x: !local 1\n", "!local"),
    ],
)
def test_unsupported_tags(src: str, shown: str) -> None:
    err = error_of(src)
    assert err.message == f"unsupported YAML tag {shown}"
    assert (err.line, err.place) == (1, "x")


def test_python_tag_never_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    src = f"a: 1\nb:\n  c: !!python/object/apply:os.system ['touch {marker}']\n"
    err = error_of(src, file="evil.yaml")
    assert not marker.exists()
    assert str(err) == "evil.yaml:3: b.c: unsupported YAML tag !!python/object/apply:os.system"


# --------------------------------------------------------------------------- keys


def test_duplicate_key_names_both_lines() -> None:
    src = "id: x\nhands:\n  south: [a]\n  east: [b]\n  west: [c]\n  east: [d]\n"
    err = error_of(src, file="deal.yaml")
    assert err.message == "duplicate key 'east' (first at line 4)"
    assert (err.file, err.line, err.place) == ("deal.yaml", 6, "hands")
    assert str(err) == "deal.yaml:6: hands: duplicate key 'east' (first at line 4)"


def test_duplicate_key_at_top_level_and_int_text_clash() -> None:
    err = error_of("a: 1\nb: 2\na: 3\n")
    assert (err.line, err.place) == (3, "(top level)")
    err = error_of("1: a\n'1': b\n")
    assert err.message == "duplicate key '1' (first at line 1)"


def test_int_keys_stay_ints() -> None:
    assert load("1: a\n2: b\nx: c\n") == {1: "a", 2: "b", "x": "c"}


@pytest.mark.parametrize("src", ["? [a, b]\n: 1\n", "? {a: 1}\n: 1\n", "{[a]: 1}"])
def test_collection_keys_rejected(src: str) -> None:
    err = error_of(src)
    assert "a key must be a single value" in err.message


@pytest.mark.parametrize("src", ["true: 1\n", "~: 1\n", "1.5: x\n"])
def test_keys_that_are_not_text_or_int_rejected(src: str) -> None:
    assert "put it in quotes" in error_of(src).message


def test_quoted_odd_keys_are_fine() -> None:
    assert load("'true': 1\n'~': 2\n'1.5': 3\n'<<': 4\n") == {"true": 1, "~": 2, "1.5": 3, "<<": 4}


def test_merge_key_rejected() -> None:
    err = error_of("base: &b {a: 1}\nother:\n  <<: *b\n")
    assert "merge keys" in err.message
    assert (err.line, err.place) == (3, "other")


# --------------------------------------------------------------------------- aliases and limits


def test_aliases_are_expanded_into_independent_copies() -> None:
    doc = load_text("a: &h [x, y]\nb: *h\n", "t.yaml")
    assert doc.data == {"a": ["x", "y"], "b": ["x", "y"]}
    assert doc.data["a"] is not doc.data["b"]
    # Lines inside an alias use point at the anchored definition.
    assert doc.line_of(("b",)) == 2
    assert doc.line_of(("b", 1)) == 1


def billion_laughs(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels + 1):
        refs = ",".join([f"*a{i - 1}"] * 10)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


def test_billion_laughs_refused_fast() -> None:
    start = time.perf_counter()
    err = error_of(billion_laughs())
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0
    assert err.message.startswith("too many nodes (alias expansion?)")
    assert err.line is not None


def test_aliases_counted_at_every_use() -> None:
    src = "a: &a [1, 2, 3, 4]\nb: [*a, *a, *a, *a]\n"
    assert load(src)["b"][3] == [1, 2, 3, 4]
    # 1 top + 2 keys + (5) + (1 + 4 * 5) = 29 nodes once the aliases are expanded.
    assert load(src, limits=Limits(max_nodes=29))["a"] == [1, 2, 3, 4]
    err = error_of(src, limits=Limits(max_nodes=28))
    assert "too many nodes" in err.message


def test_node_limit_without_aliases() -> None:
    err = error_of("[" + ", ".join(["1"] * 50) + "]", limits=Limits(max_nodes=20))
    assert "too many nodes" in err.message


@pytest.mark.parametrize("src", ["a: &a [1, *a]\n", "a: &a\n  b: *a\n"])
def test_recursive_alias_refused(src: str) -> None:
    err = error_of(src)
    assert "recursive alias" in err.message
    assert err.line == 1


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_depth_limit() -> None:
    assert load(nested(DEFAULT_LIMITS.max_depth)) is not None
    err = error_of(nested(DEFAULT_LIMITS.max_depth + 1))
    assert "nested too deeply" in err.message
    assert load(nested(5), limits=Limits(max_depth=5)) is not None
    assert "nested too deeply" in error_of(nested(6), limits=Limits(max_depth=5)).message


def test_block_depth_limit_has_line() -> None:
    src = "".join("  " * i + f"k{i}:\n" for i in range(10)) + "  " * 10 + "x: 1\n"
    assert load(src, limits=Limits(max_depth=11)) is not None
    err = error_of(src, limits=Limits(max_depth=10))
    assert err.line == 11


def test_very_deep_nesting_is_an_input_error_not_recursion_error() -> None:
    assert "nested too deeply" in error_of(nested(100_000)).message
    assert "nested too deeply" in error_of(nested(100_000), file="t.json").message


def test_depth_through_aliases() -> None:
    # Each line is shallow, but the expanded structure is 8 levels deep.
    src = "a: &a [[x]]\nb: &b [[*a]]\nc: &c [[*b]]\nd: [[*c]]\n"
    assert load(src, limits=Limits(max_depth=9))["d"] == [[[[[[[["x"]]]]]]]]
    assert "nested too deeply" in error_of(src, limits=Limits(max_depth=8)).message


# --------------------------------------------------------------------------- size and bytes


def test_text_size_limit() -> None:
    err = error_of("a: 1\n" * 10, limits=Limits(max_bytes=20))
    assert "too large" in err.message and "50 bytes" in err.message


def test_file_size_checked_before_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.yaml"
    with open(big, "wb") as fh:
        fh.truncate(DEFAULT_LIMITS.max_bytes + 1)  # sparse: cheap to make

    def no_open(*args: object, **kwargs: object) -> None:
        raise AssertionError("the file was opened")

    monkeypatch.setattr(yamlsafe, "open", no_open, raising=False)
    with pytest.raises(InputError) as info:
        load_file(big)
    assert "too large" in info.value.message
    assert info.value.file == str(big)


def test_utf8_bom_stripped() -> None:
    doc = load_text(b"\xef\xbb\xbfa: 1\nb: 2\n", "t.yaml")
    assert doc.data == {"a": 1, "b": 2}
    assert doc.line_of(("b",)) == 2
    assert load("\ufeffa: 1\n") == {"a": 1}


def test_non_utf8_reports_line_of_bad_byte() -> None:
    err = error_of(b"a: 1\nb: 2\nc: caf\xe9\n", file="bad.yaml")
    assert err.message == "the file is not UTF-8 text (byte 0xe9 here); save it as UTF-8"
    assert (err.file, err.line) == ("bad.yaml", 3)
    assert error_of(b"\xff").line == 1


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_refused(encoding: str) -> None:
    raw = "a: 1\n".encode(encoding)
    if encoding != "utf-16":
        raw = "\ufeff".encode(encoding) + raw
    err = error_of(raw)
    assert "UTF-16" in err.message and "UTF-8" in err.message


def test_control_character_refused_with_line() -> None:
    err = error_of("a: 1\nb: x\x00y\n")
    assert err.line == 2
    assert "#x0000" in err.message


# --------------------------------------------------------------------------- syntax errors


def test_tabs_for_indentation() -> None:
    err = error_of("hands:\n\teast: [a]\n", file="deal.yaml")
    assert err.line == 2
    assert "tabs" in err.message
    assert "Traceback" not in str(err) and "<unicode string>" not in str(err)


def test_syntax_error_has_line_and_short_message() -> None:
    err = error_of("a: 1\nb: [1, 2\nc: 3\n")
    assert err.line == 3
    assert err.message.startswith("YAML syntax error: ")
    assert "\n" not in err.message


def test_undefined_alias() -> None:
    err = error_of("a: 1\nb: *nope\n")
    assert err.line == 2 and "nope" in err.message


def test_several_documents_refused() -> None:
    err = error_of("a: 1\n---\nb: 2\n")
    assert err.line == 2 and "single document" in err.message


# --------------------------------------------------------------------------- empty documents


@pytest.mark.parametrize("src", ["", "# nothing here\n", "---\n", "\ufeff", b""])
def test_empty_document_is_none(src: str | bytes) -> None:
    doc = load_text(src, "t.yaml")
    assert doc.data is None
    if src != "---\n":  # an explicit empty document still has a (null) node with a line
        assert doc.line_of(()) is None


# --------------------------------------------------------------------------- line_of


DEAL = """\
# a deal
id: demo
banker: east
hands:
  east:
    - 1萬
    - 2萬
    - 3萬
    - 4萬
  south: [a, b,
          c, d]
stock:
  - x
tricks:
  -
    lead: east
"""


def test_line_of_nested_paths() -> None:
    doc = load_text(DEAL, "deal.yaml")
    assert doc.line_of(("id",)) == 2
    assert doc.line_of(("hands",)) == 4  # the key's line, though the value starts below
    assert doc.line_of(("hands", "east")) == 5
    assert doc.line_of(("hands", "east", 0)) == 6
    assert doc.line_of(("hands", "east", 3)) == 9
    assert doc.line_of(("hands", "south", 3)) == 11
    assert doc.line_of(("tricks", 0, "lead")) == 16
    assert doc.line_of(()) == 2  # the top-level mapping starts at its first key


def test_line_of_missing_path_gives_deepest_ancestor() -> None:
    doc = load_text(DEAL, "deal.yaml")
    assert doc.line_of(("hands", "east", 99)) == 5
    assert doc.line_of(("hands", "north", 0)) == 4
    assert doc.line_of(("hands", "east", "x")) == 5
    assert doc.line_of(("id", 0)) == 2
    assert doc.line_of(("nope",)) == 2


def test_line_of_int_keys_accepts_text_form() -> None:
    doc = load_text("tricks:\n  1: a\n  2: b\n", "t.yaml")
    assert doc.line_of(("tricks", 2)) == 3
    assert doc.line_of(("tricks", "2")) == 3  # how a JSON Schema validator names it


def test_line_of_without_lines() -> None:
    assert Document("x.yaml", {"a": 1}).line_of(("a",)) is None


# --------------------------------------------------------------------------- JSON


def test_json_through_yaml_keeps_lines() -> None:
    doc = load_text('{\n  "a": 1,\n  "b": [true, null, 1.5, "x"]\n}\n', "d.json")
    assert doc.data == {"a": 1, "b": [True, None, 1.5, "x"]}
    assert doc.line_of(("b",)) == 3


def test_json_with_tabs_keeps_lines() -> None:
    doc = load_text('{\n\t"a": 1,\n\t"b": [1,\n\t 2]\n}\n', "d.json")
    assert doc.data == {"a": 1, "b": [1, 2]}
    assert doc.line_of(("b",)) == 3
    assert doc.line_of(("b", 1)) == 4


@pytest.mark.parametrize("text", [
    '{"a": "x\\ty"}', '{"a": "\\/"}', '{"a": "x\U0001F600y"}', '{"' + "k" * 2000 + '": 1}',
    '{"a":\t1}', '{"a": "\\u00e9"}',
])
def test_json_that_yaml_reads_differently_is_read_as_json(text) -> None:
    doc = load_text(text, "d.json")
    assert doc.data == json.loads(text)
    assert doc.line_of((next(iter(doc.data)),)) == 1


def test_json_duplicate_keys() -> None:
    err = error_of('{\n  "a": 1,\n  "a": 2\n}\n', file="d.json")
    assert (err.message, err.line) == ("duplicate key 'a' (first at line 2)", 3)
    err = error_of('{\n\t"a": 1,\n\t"a": 2\n}\n', file="d.json")
    assert (err.message, err.line, err.file) == ("duplicate key 'a' (first at line 2)", 3, "d.json")


def test_json_syntax_error_line() -> None:
    err = error_of('{\n\t"a": 1,\n\t"b": [1, 2\n}\n', file="d.json")
    assert err.line == 4
    assert err.message.startswith("JSON syntax error: ")


def test_json_fallback_applies_limits() -> None:
    src = '{\n\t"a": ' + "[" * 70 + "]" * 70 + "}"
    assert "nested too deeply" in error_of(src, file="d.json").message
    src = '{\n\t"a": [' + ", ".join(["1"] * 50) + "]}"
    assert "too many nodes" in error_of(src, file="d.json", limits=Limits(max_nodes=20)).message


def test_yaml_file_with_tabs_does_not_fall_back() -> None:
    assert "tabs" in error_of('{\n\t"a": 1\n}\n', file="d.yaml").message


# --------------------------------------------------------------------------- files


def test_load_file(tmp_path: Path) -> None:
    path = tmp_path / "deal.yaml"
    path.write_text(DEAL, encoding="utf-8")
    doc = load_file(path)
    assert doc.file == str(path)
    assert doc.data["hands"]["east"][3] == "4萬"
    assert load_file(str(path), display_name="examples/deal.yaml").file == "examples/deal.yaml"


def test_load_file_json_by_suffix(tmp_path: Path) -> None:
    path = tmp_path / "deal.JSON"
    path.write_text('{\n\t"a": 1\n}\n', encoding="utf-8")
    assert load_file(path).data == {"a": 1}


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("a: 1\na: 2\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_file(path, display_name="bad.yaml")
    assert str(info.value) == "bad.yaml:2: (top level): duplicate key 'a' (first at line 1)"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_file(tmp_path / "nope.yaml", display_name="nope.yaml")
    assert info.value.message.startswith("cannot read file: ")
    assert info.value.file == "nope.yaml"


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_file(tmp_path)
    assert info.value.message == "cannot read file: it is a directory"


def test_permission_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secret.yaml"
    path.write_text("a: 1\n", encoding="utf-8")

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    # Patched rather than chmod-ed so that the test also holds when run as root.
    monkeypatch.setattr(yamlsafe, "open", denied, raising=False)
    with pytest.raises(InputError) as info:
        load_file(path)
    assert info.value.message == "cannot read file: permission denied"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_special_file_is_read_with_a_bound(tmp_path: Path) -> None:
    # /dev/zero-like sources report size 0; reading stops one byte past the limit.
    with pytest.raises(InputError) as info:
        load_file("/dev/zero", limits=Limits(max_bytes=1000))
    assert "too large" in info.value.message


# --------------------------------------------------------------------------- properties


class _Dumper(yaml.SafeDumper):
    """SafeDumper that also quotes text our YAML 1.2 reader would take for a number or boolean.

    Plain ``yaml.safe_dump`` follows YAML 1.1 and writes ``1e3``, ``0o17`` and
    ``tRuE`` unquoted, which this reader (rightly) reads as a float, an int and
    a boolean.
    """

    yaml_implicit_resolvers: dict[Any, Any] = {  # noqa: RUF012
        key: list(value) for key, value in yaml.SafeDumper.yaml_implicit_resolvers.items()
    }


for _first, _resolvers in yamlsafe._Loader.yaml_implicit_resolvers.items():
    for _tag, _regexp in _resolvers:
        _Dumper.add_implicit_resolver(_tag, _regexp, [_first] if _first is not None else None)

# PyYAML's emitter mangles the Unicode line breaks NEL, LS and PS inside scalars (a dumper bug,
# not a reader one), and control characters are refused in any text (docs/limits.md), so the
# texts leave them out.
_chars = st.characters(exclude_categories=("Cs",)).filter(lambda ch: not UNSAFE.match(ch))
plain_scalars = (st.none() | st.booleans() | st.integers(-(10**30), 10**30)
                 | st.text(_chars, max_size=20))
plain_data = st.recursive(
    plain_scalars,
    lambda inner: (st.lists(inner, max_size=5)
                   | st.dictionaries(st.text(_chars, max_size=10), inner, max_size=5)),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(plain_data, st.sampled_from(["block", "flow"]))
def test_round_trip_through_safe_dump(data: Any, style: str) -> None:
    text = yaml.dump(data, Dumper=_Dumper, allow_unicode=True, default_flow_style=style == "flow")
    assert load_text(text, "t.yaml").data == data


@settings(max_examples=200, deadline=None)
@given(plain_data)
def test_round_trip_through_json(data: Any) -> None:
    assert load_text(json.dumps(data, indent=2), "t.json").data == data
    assert load_text(json.dumps(data, indent="\t"), "t.json").data == data


_yamlish = st.lists(
    st.sampled_from(["a", ":", " ", "\n", "\t", "-", "[", "]", "{", "}", ",", "&x", "*x", "!!", "'", '"',
                     "#", "1", "010", "yes", "?", "|", ">", "---", "%YAML 1.1\n", "\\u", "\xff", "\x00"]),
    max_size=40,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(
    st.binary(max_size=200) | _yamlish.map(lambda s: s.encode("utf-8")),
    st.sampled_from(["t.yaml", "t.json"]),
)
def test_random_input_only_raises_input_error(raw: bytes, name: str) -> None:
    try:
        doc = load_text(raw, name)
    except InputError as err:
        assert err.file == name
        assert err.message
    else:
        assert isinstance(doc, Document)


# --------------------------------------------------------------------------- schemacheck


@pytest.fixture
def mini(monkeypatch: pytest.MonkeyPatch) -> str:
    """Point schemacheck at tests/data/<name>.schema.json and reset its caches."""
    monkeypatch.setattr(schemacheck, "schema_path", lambda name: DATA / f"{name}.schema.json")
    schemacheck.load_schema.cache_clear()
    schemacheck._validator.cache_clear()
    yield "mini"
    schemacheck.load_schema.cache_clear()
    schemacheck._validator.cache_clear()


GOOD = """\
id: demo
banker: east
hands:
  east: [a, b, c, d, e, f, g, h]
stock: [x]
"""


def schema_error(src: str, mini: str) -> InputError:
    with pytest.raises(InputError) as info:
        schemacheck.check(load_text(src, "deal.yaml"), mini)
    return info.value


def test_schema_ok(mini: str) -> None:
    schemacheck.check(load_text(GOOD, "deal.yaml"), mini)
    assert schemacheck.load_schema(mini)["type"] == "object"
    assert schemacheck.load_schema(mini) is schemacheck.load_schema(mini)


def test_schema_unknown_key_points_at_the_key(mini: str) -> None:
    err = schema_error(GOOD + "hands2: 1\n", mini)
    assert err.message == "unknown key 'hands2' (allowed: id, banker, open, guan_dui, hands, stock)"
    assert (err.file, err.line, err.place) == ("deal.yaml", 6, "(top level)")
    err = schema_error(GOOD.replace("  east:", "  eats: [a]\n  east:"), mini)
    assert err.message.startswith("unknown key 'eats' (allowed: east, south, west, north)")
    assert (err.line, err.place) == (4, "hands")


def test_schema_missing_key(mini: str) -> None:
    err = schema_error("id: demo\nbanker: east\n", mini)
    assert err.message == "missing key 'hands'"
    assert err.place == "(top level)"


def test_schema_type(mini: str) -> None:
    err = schema_error(GOOD.replace("stock: [x]", "stock: x"), mini)
    assert err.message == "expected a list, got text 'x'"
    assert (err.line, err.place) == (5, "stock")
    err = schema_error(GOOD + "open: yes\n", mini)
    assert err.message == "expected true/false, got text 'yes' (write true or false)"
    err = schema_error(GOOD + "guan_dui: 1.5\n", mini)
    assert err.message == "expected a whole number, got number 1.5"


def test_schema_enum(mini: str) -> None:
    err = schema_error(GOOD.replace("banker: east", "banker: nrth"), mini)
    assert err.message == "'nrth' is not one of east, south, west, north"
    assert (err.line, err.place) == (2, "banker")


def test_schema_item_counts(mini: str) -> None:
    err = schema_error(GOOD.replace("[a, b, c, d, e, f, g, h]", "[a, b, c, d, e, f, g]"), mini)
    assert err.message == "expected 8 items, got 7"
    assert (err.line, err.place) == (4, "hands.east")
    err = schema_error(GOOD.replace("stock: [x]", "stock: []"), mini)
    assert err.message == "expected at least 1 item, got 0"


def test_schema_nested_item_line(mini: str) -> None:
    src = GOOD.replace("  east: [a, b, c, d, e, f, g, h]",
                       "  east:\n" + "".join(f"    - c{i}\n" for i in range(7)) + "    - 8\n")
    err = schema_error(src, mini)
    assert err.message == "expected text, got whole number 8"
    assert (err.line, err.place) == (12, "hands.east[7]")


def test_schema_counts_other_problems(mini: str) -> None:
    err = schema_error("banker: nrth\nextra: 1\nstock: x\n", mini)
    assert err.message.endswith(" more problems)")


def test_schema_other_keyword_message(mini: str) -> None:
    err = schema_error(GOOD + "guan_dui: -1\n", mini)
    assert err.message == "must be at least 0, got -1"


def test_schema_internal_check_with_inline_schema() -> None:
    validator = schemacheck._make_validator(
        {"type": "object", "properties": {"1": {"type": "string"}}, "patternProperties": {"^x": {}},
         "additionalProperties": False})
    doc = load_text("1: 5\nxa: 1\n", "t.yaml")
    with pytest.raises(InputError) as info:
        schemacheck._check(doc, validator)
    # The integer key 1 is validated as JSON's "1" and its line is still found.
    assert info.value.message.startswith("expected text, got whole number 5")
    assert info.value.line == 1
    schemacheck._check(load_text("1: a\nxa: 1\nxb: 2\n", "t.yaml"), validator)
    doc = load_text("1: a\nxa: 1\nb: 2\n", "t.yaml")
    with pytest.raises(InputError) as info:
        schemacheck._check(doc, validator)
    assert info.value.message == "unknown key 'b' (allowed: 1)"
    assert info.value.line == 3


def test_schema_property_counts() -> None:
    validator = schemacheck._make_validator({"type": "object", "minProperties": 3})
    with pytest.raises(InputError) as info:
        schemacheck._check(load_text("a: 1\nb: 2\n", "t.yaml"), validator)
    assert info.value.message == "expected at least 3 keys, got 2"


def test_schema_long_messages_trimmed() -> None:
    validator = schemacheck._make_validator({"not": {"type": "array"}})
    with pytest.raises(InputError) as info:
        schemacheck._check(Document("x.yaml", ["y" * 500]), validator)
    assert len(info.value.message) <= 200


@pytest.mark.parametrize(("head", "says"), [
    ("\ufeffid: x\n".encode("utf-16"), "the file is saved as UTF-16; save it as UTF-8 instead"),
    ("id: x\n".encode("utf-32"), "the file is saved as UTF-32; save it as UTF-8 instead"),
    ("id: x\n".encode("utf-16-le"), "the file looks like UTF-16 or UTF-32 text (it has NUL bytes); "
                                    "save it as UTF-8 instead"),
    (b"id: x\nname: caf\xe9\n", "the file is not UTF-8 text (byte 0xe9 here); save it as UTF-8"),
])
def test_every_reader_words_an_encoding_alike(head: bytes, says: str) -> None:
    """The whole-file reader, the streamed YAML reader and the JSON Lines and JSON readers
    share one encoding check and one message for a byte that is not UTF-8."""
    import io

    from mahdiao_rules.io.jsonstream import collection_items, jsonl_items

    def error(read: Any) -> str:
        with pytest.raises(InputError) as info:
            read()
        return info.value.message

    line = 2 if head.startswith(b"id: x\nname") else 1
    with pytest.raises(InputError) as info:
        load_text(head, "f.yaml")
    assert (info.value.message, info.value.line) == (says, line)
    assert error(lambda: list(yamlsafe.stream_mapping(io.BytesIO(head), "f.yaml", list_key="deals"))) == says
    assert error(lambda: list(jsonl_items(io.BytesIO(head), "f.jsonl", DEFAULT_LIMITS))) == says
    assert error(lambda: list(collection_items(io.BytesIO(head), "f.json", "deals", DEFAULT_LIMITS))) == says
