"""Hostile input, round two (issue 14): each class of failure, closed in kind.

The corpus cases live in ``tests/bad/`` and are run by ``test_cli.py``; :data:`CLASS_CASES`
maps each class of the issue to its cases (several per class, written from the class).
This file adds what a corpus file cannot hold: generated chains of files, links, limits
lowered for one test, environment variables, and the agreement of ``validate`` with
``replay`` over the whole corpus.  Output paths, charts and interrupts (§6–8) have files of
their own: ``test_output_paths.py``, ``test_interrupts.py``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from cli_helpers import error_line, invoke
from test_cli import BAD_CASES

from mahdiao_rules.errors import InputError
from mahdiao_rules.io.yamlsafe import Limits
from mahdiao_rules.ruleset import find_ruleset
from mahdiao_rules.ruleset import layers as ruleset_layers

TESTS = Path(__file__).resolve().parent
BAD = TESTS / "bad"
GOOD_DEAL = BAD / "good" / "canonical.yaml"
BASE_RULESET = BAD / "base_ruleset.yaml"

CLASS_CASES: dict[str, list[str]] = {
    "§1 unbounded cost from small inputs": [
        "ruleset_seat_loops_nested.yaml", "ruleset_seat_loops_mixed.yaml",
        "ruleset_seat_loops_in_amount.yaml", "ruleset_seat_loops_many_items.yaml",
        "partial_conflict_found_by_sampling.yaml", "partial_conflict_exact.yaml",
    ],  # and below: include counted as expanded, rejection sampling that runs out of draws;
    # test_fuzz.py: nested conditions cost what the compile-time bound says
    "§2 exit 70 where the input is at fault": [
        "tpl_syntax_error", "tpl_unclosed_block", "tpl_not_utf8", "tpl_macro_error", "tpl_include_missing",
        "labels_not_mapping", "labels_unbalanced_brace", "labels_lone_closing_brace",
        "labels_field_with_index", "labels_entry_not_mapping", "labels_unknown_language",
        "ruleset_option_name_list.yaml", "ruleset_option_cases_list.yaml", "ruleset_option_name_mapping.yaml",
        "ruleset_remove_switch_name_list.yaml", "ruleset_zhu_too_large.yaml",
        "ruleset_zhu_times_grows.yaml", "ruleset_zhu_per_diao_huge.yaml", "ruleset_fine_too_large.yaml",
    ],  # and below: a 400-file extends chain, zhu_per_diao 2.0 (valid_rulesets/); output
    # errors (a full device, a name too long) in test_output_paths.py
    "§3 numbers that are not what the file says": [
        "guan_dui_almost_two.yaml", "event_trick_almost_four.yaml", "ruleset_zhu_almost_half.yaml",
        "ruleset_zhu_tenth.yaml", "ruleset_diao_each_almost_half.yaml", "number_too_many_digits.yaml",
        "json_huge_number.json",
    ],  # and test_properties.py: every number of every output is the input's exact rational
    "§4 control characters": [
        "control_escape_in_id.yaml", "control_bidi_in_title.yaml", "control_c1_in_notes.yaml",
        "control_bell_in_key.yaml", "ruleset_control_in_item_name.yaml", "ruleset_control_in_quote.yaml",
        "json_control_in_title.json", "json_line_separator_in_title.json",
    ],
    "§5 files outside the ruleset's reach": [
        "ruleset_extends_climbs_out.yaml", "ruleset_extends_absolute.yaml",
        "ruleset_include_secret_file.yaml", "ruleset_include_climbs_out.yaml",
        "ruleset_extends_not_a_ruleset.yaml", "ruleset_include_deal_file.yaml",
    ],  # and below: a link that points out, MAHDIAO_RULESET_PATH, nothing quoted
    "§9 lines lost in JSON": [
        "json_tabs_unknown_card.json", "json_tabs_duplicate_key.json", "json_tabs_bad_seat.json",
        "json_lone_surrogate.json", "json_nan.json", "json_huge_number.json",
        "json_line_separator_in_title.json",
    ],
    "§11 templates are code": [
        "tpl_python_internals", "tpl_globals_through_labels", "tpl_huge_string", "tpl_huge_power",
        "tpl_huge_range",
    ],  # and below: the time bound, Markdown links and images
}


def test_every_class_has_several_corpus_cases():
    names = {p.values[0] for p in BAD_CASES}
    for cls, cases in CLASS_CASES.items():
        assert len(cases) >= 4, cls
        missing = [c for c in cases if c not in names]
        assert not missing, f"{cls}: no corpus case {missing}"


# --------------------------------------------------------------------------- validate = replay


def _corpus_files() -> list[Path]:
    """Deal files and rulesets of the corpus (sittings are read by `mahdiao sitting`, not replay)."""
    files = [BAD / p.values[0] for p in BAD_CASES if p.values[1].kind in ("replay", "validate")
             and not p.values[0].startswith("sitting_")]
    files += sorted((BAD / "good").glob("*.yaml")) + sorted((BAD / "valid_rulesets").glob("*.yaml"))
    files += [BAD / "base_deal.yaml", BAD / "base_ruleset.yaml"]
    return files


def _is_ruleset(path: Path) -> bool:
    return path.name.startswith("ruleset_") or path.parent.name == "valid_rulesets" or \
        path.name == "base_ruleset.yaml"


def _replays(path: Path, out: Path) -> list[list[str]]:
    """Every replay that must fail when validate fails, and pass when it passes."""
    if not _is_ruleset(path):
        return [["replay", str(path), "-o", str(out)]]
    runs = [["replay", str(GOOD_DEAL), "-r", str(path), "-o", str(out)]]
    try:
        rs = find_ruleset(str(path))
    except Exception:
        return runs
    for option in rs.options.values():
        for choice in option.choices:
            if choice != option.default:
                runs.append([*runs[0], "--set", f"{rs.id}.{option.name}={choice}"])
    return runs


@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: p.name)
def test_validate_rejects_exactly_what_replay_would(path, tmp_path):
    out = tmp_path / "out.txt"
    validated = invoke("validate", str(path))
    replayed = [invoke(*args) for args in _replays(path, out)]
    failed = [r for r in replayed if r.exit_code != 0]
    assert validated.exit_code in (0, 2) and all(r.exit_code in (0, 2) for r in replayed)
    if validated.exit_code == 0:
        assert not failed, failed[0].stderr
    else:
        assert failed, f"validate refused {path.name} but every replay took it: {validated.stderr}"
        assert failed[0].stderr == validated.stderr or _is_ruleset(path)


# --------------------------------------------------------------------------- §2 and §5: extends, include


def _write_chain(folder: Path, n: int) -> Path:
    (folder / "r0.yaml").write_bytes(BASE_RULESET.read_bytes())
    for i in range(1, n + 1):
        (folder / f"r{i}.yaml").write_text(f"id: r{i}\nname: n{i}\nextends: r{i - 1}.yaml\n",
                                           encoding="utf-8")
    return folder / f"r{n}.yaml"


def test_a_long_extends_chain_is_read_without_recursion(tmp_path):
    top = _write_chain(tmp_path, 400)
    assert invoke("validate", str(top)).exit_code == 0
    rs = find_ruleset(str(top))
    assert rs.extends[0] == "mini" and len(rs.extends) == 400
    assert invoke("replay", str(GOOD_DEAL), "-r", str(top), "-o", str(tmp_path / "o.txt")).exit_code == 0


def test_a_long_chain_that_ends_in_a_cycle_names_the_cycle(tmp_path):
    top = _write_chain(tmp_path, 300)
    (tmp_path / "r0.yaml").write_text("id: r0\nname: n0\nextends: r200.yaml\n", encoding="utf-8")
    line = error_line(invoke("validate", str(top)))
    assert "r1.yaml:3: extends: extends makes a cycle:" in line or "extends makes a cycle" in line


def test_include_is_counted_as_often_as_it_is_read(tmp_path, monkeypatch):
    sets = "".join(f"  s{i}: {{name: 名, cards: [百老, 千萬], source: {{ref: S, quote: q}}}}\n"
                   for i in range(40))
    (tmp_path / "frag.yaml").write_text("sets:\n" + sets, encoding="utf-8")
    top = tmp_path / "top.yaml"
    top.write_text(BASE_RULESET.read_text(encoding="utf-8") + "include:\n"
                   + "  - frag.yaml\n" * 1000, encoding="utf-8")
    monkeypatch.setattr(ruleset_layers, "DEFAULT_LIMITS", Limits(max_nodes=5000))
    line = error_line(invoke("validate", str(top)))
    found = re.search(r"top\.yaml:(\d+): include\[(\d+)\]: ", line)
    assert found is not None, line
    assert int(found.group(2)) < 10  # stopped at the first include over the limit, not the 1000th
    assert top.read_text(encoding="utf-8").splitlines()[int(found.group(1)) - 1] == "  - frag.yaml"
    assert "more than 5,000 values (each extends: and include: counted as often as it is read" in line


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_a_link_cannot_carry_extends_out_of_the_folder(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "base.yaml").write_bytes(BASE_RULESET.read_bytes())
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "base.yaml").symlink_to(outside / "base.yaml")
    (mine / "child.yaml").write_text("id: child\nname: 子\nextends: base.yaml\n", encoding="utf-8")
    assert "is outside the ruleset's folder" in error_line(invoke("validate", str(mine / "child.yaml")))


def test_the_ruleset_path_variable_widens_the_reach(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "base.yaml").write_bytes(BASE_RULESET.read_bytes())
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "child.yaml").write_text("id: child\nname: 子\nextends: ../shared/base.yaml\n",
                                     encoding="utf-8")
    assert "outside the ruleset's folder" in error_line(invoke("validate", str(mine / "child.yaml")))
    monkeypatch.setenv("MAHDIAO_RULESET_PATH", str(shared))
    assert invoke("validate", str(mine / "child.yaml")).exit_code == 0


def test_a_file_that_is_not_a_ruleset_is_never_quoted(tmp_path):
    secret = "token: s3cr3t-do-not-print"
    (tmp_path / "creds.yaml").write_text(secret + "\n", encoding="utf-8")
    (tmp_path / "notes.yaml").write_text("just a line of text s3cr3t\n", encoding="utf-8")
    for target in ("creds.yaml", "notes.yaml"):
        for key in ("extends", "include"):
            value = target if key == "extends" else f"[{target}]"
            top = tmp_path / f"top-{key}.yaml"
            top.write_text(f"id: t\nname: t\n{key}: {value}\n", encoding="utf-8")
            line = error_line(invoke("validate", str(top)))
            assert "s3cr3t" not in line and "token" not in line, line


def test_zhu_per_diao_written_as_a_whole_float_is_the_whole_number():
    rs = find_ruleset(str(BAD / "valid_rulesets" / "zhu_per_diao_float.yaml"))
    assert rs.zhu_per_diao == 2 and type(rs.zhu_per_diao) is int


# --------------------------------------------------------------------------- §1 reconstruct


def test_rejection_sampling_that_finds_nothing_says_so_when_it_cannot_prove_a_conflict():
    from mahdiao_rules.history.partial import load_partials
    from mahdiao_rules.history.reconstruct import FRUITLESS_DRAWS, reconstruct

    (deal,) = load_partials(BAD / "partial_conflict_exact.yaml")
    # A budget of states too small to decide: the error says the draws ran out, and why.
    with pytest.raises(InputError) as info:
        reconstruct(deal, [], samples=1000, method="rejection", budget=10)
    message = info.value.message
    assert f"no completion found in {FRUITLESS_DRAWS:,} random draws" in message
    assert "the exact count would need more than 10 states to tell which" in message


def test_a_bad_ruleset_costs_nothing_to_refuse(tmp_path):
    """The cost bound is a property of the tree: a ruleset that would take hours per hand is
    refused when it compiles, before any deal is read."""
    deep = "{count: {in: 百老, of: won, min: 2}}"
    for _ in range(30):
        deep = "{any_seat: " + deep + "}"
    path = tmp_path / "r.yaml"
    path.write_text(BASE_RULESET.read_text(encoding="utf-8").replace(
        "when: {won: 百老, zheng_ben: true}", f"when: {deep}"), encoding="utf-8")
    line = error_line(invoke("validate", str(path)))
    assert "nest 30 deep" in line and "the limit is 1,000,000" in line


# --------------------------------------------------------------------------- §4 command-line text


def test_a_seed_with_a_control_character_is_refused(tmp_path):
    for command in (["deal"], ["simulate", "-n", "2"], ["reconstruct", "--samples", "2"]):
        line = error_line(invoke(*command, "--seed", "\x1b[31mred"))
        assert line.startswith("mahdiao: error: --seed: text may not hold the control character U+001B")
        assert "\x1b" not in line


def test_a_file_name_with_control_characters_is_shown_escaped():
    line = error_line(invoke("replay", "no\x1b]0;title\x07such.yaml"))
    assert line == "mahdiao: error: no\\x1b]0;title\\x07such.yaml: cannot read file: no such file"


def test_the_command_line_stamp_shows_control_characters_escaped(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.argv", ["mahdiao", "replay", "--deal", "examples-1", "\u202e"])
    from mahdiao_rules.cli.common import command_line

    assert command_line() == "mahdiao replay --deal examples-1 '\\u202e'"


# --------------------------------------------------------------------------- §11 templates


def test_a_template_that_never_ends_is_stopped(tmp_path, monkeypatch):
    (tmp_path / "replay.txt.j2").write_text(
        "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}\n",
        encoding="utf-8")
    monkeypatch.setenv("MAHDIAO_TEMPLATE_SECONDS", "0.5")
    line = error_line(invoke("replay", "--template-dir", str(tmp_path)))
    assert "the templates took longer than 0.5 s to render" in line
    monkeypatch.setenv("MAHDIAO_TEMPLATE_SECONDS", "forever")
    assert "MAHDIAO_TEMPLATE_SECONDS='forever'" in error_line(
        invoke("replay", "--template-dir", str(tmp_path)))


def test_bundled_templates_render_the_same_in_the_sandbox(tmp_path):
    """A --template-dir runs every template sandboxed, the bundled ones too: they still work."""
    empty = tmp_path / "empty"
    empty.mkdir()
    for fmt in ("text", "md", "html", "latex", "csv"):
        plain = invoke("replay", "-r", "all", "-f", fmt)
        boxed = invoke("replay", "-r", "all", "-f", fmt, "--template-dir", str(empty))
        assert plain.exit_code == boxed.exit_code == 0, boxed.stderr
        # The same but for the stamp's command line, which names the --template-dir.
        def unstamped(text: str) -> list[str]:
            return [line for line in text.splitlines() if "mahdiao replay -r all" not in line]
        assert unstamped(boxed.stdout) == unstamped(plain.stdout)


def test_markdown_neutralises_links_and_remote_images_from_input(tmp_path):
    deal = tmp_path / "d.yaml"
    text = GOOD_DEAL.read_text(encoding="utf-8")
    assert "\nbanker:" in text
    deal.write_text(text.replace(
        "\nbanker:", '\ntitle: "[click](javascript:alert(1)) ![](https://evil.example/t.png)"\nbanker:', 1),
        encoding="utf-8")
    out = invoke("replay", str(deal), "-f", "md")
    assert out.exit_code == 0, out.stderr
    # A link or image needs an unescaped "](" (or "<url>", and < is escaped everywhere).
    assert not re.search(r"(?<!\\)\]\(", out.stdout)
    assert "\\[click\\](javascript:alert(1)) !\\[\\](https://evil.example/t.png)" in out.stdout


def test_html_has_no_link_from_input(tmp_path):
    deal = tmp_path / "d.yaml"
    deal.write_text(GOOD_DEAL.read_text(encoding="utf-8").replace(
        "\nbanker:", '\ntitle: "<a href=javascript:alert(1)>x</a> https://evil.example"\nbanker:', 1),
        encoding="utf-8")
    out = invoke("replay", str(deal), "-f", "html")
    assert out.exit_code == 0
    assert "<a href" not in out.stdout and "https://evil" not in out.stdout


def test_a_fragment_is_known_by_the_keys_its_schema_allows(tmp_path):
    # The keys that make a file a fragment come from the fragment schema: one that holds only
    # decisions is a fragment; one that only describes itself is not.
    (tmp_path / "decided.yaml").write_text(
        "decisions:\n  - id: my_reading\n    name: 我的讀法\n    reading: r\n    alternatives: a\n"
        "    reason: why\n    source: {inference: because, basis: []}\n", encoding="utf-8")
    (tmp_path / "blurb.yaml").write_text("description: just words\n", encoding="utf-8")
    base = BASE_RULESET.read_text(encoding="utf-8")
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(base + "include:\n  - decided.yaml\n", encoding="utf-8")
    bad.write_text(base + "include:\n  - blurb.yaml\n", encoding="utf-8")
    result = invoke("validate", str(good))
    assert result.exit_code == 0, result.output
    assert "blurb.yaml is not a ruleset fragment" in error_line(invoke("validate", str(bad)))
