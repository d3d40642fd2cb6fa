"""Names, terms, prose and languages: every name has pinyin (with tones) and English, every item
a status; conditions are prose; zh outputs carry no English conditions, zh-Hans no traditional
characters; the simplified table covers every character the project prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mahdiao_rules.cards import CARD_HANZI
from mahdiao_rules.report.contract import stamp
from mahdiao_rules.report.hans import known_characters, to_hans
from mahdiao_rules.report.render import RENDERERS, render_text, rules_diff_report, rules_table_report
from mahdiao_rules.report.ruletable import rules_diff_view as rules_diff
from mahdiao_rules.report.ruletable import rules_table_view as rules_table
from mahdiao_rules.ruleset import bundled_ids, find_ruleset
from mahdiao_rules.ruleset.bibliography import STATUSES
from mahdiao_rules.ruleset.describe import PHRASES, Describer
from mahdiao_rules.ruleset.model import CHANNEL_HANZI
from mahdiao_rules.ruleset.terms import all_terms, glossary_terms, translated

ROOT = Path(__file__).resolve().parent.parent
TONES = re.compile(r"[āáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜ]")
HANZI = re.compile(r"[\u3400-\u9fff]")


def rulesets():
    return [find_ruleset(i) for i in bundled_ids()]


def named_things():
    """(what, Chinese name) of every item, fine, offence, option, set, group and channel."""
    for rs in rulesets():
        for it in rs.items.values():
            yield f"{rs.id} item {it.id}", it.name
        for f in rs.fines.values():
            yield f"{rs.id} fine {f.id}", f.name
        if rs.dai_pei:
            for o in rs.dai_pei.offences.values():
                yield f"{rs.id} offence {o.id}", o.name
        for o in rs.options.values():
            yield f"{rs.id} option {o.name}", o.title
        for k, v in rs.set_info.items():
            yield f"{rs.id} set {k}", v["name"]
        for k, v in rs.groups.items():
            yield f"{rs.id} group {k}", v.get("name", k)
    for ch in set(CHANNEL_HANZI.values()) - {"—"}:
        yield f"channel {ch}", ch
    for card in CARD_HANZI:
        yield f"card {card}", card


def test_every_name_has_pinyin_with_tone_marks_and_an_english_name():
    terms = all_terms()
    missing = [(what, name) for what, name in named_things() if name not in terms]
    assert not missing, f"add to rulesets/terms.yaml: {missing[:10]}"
    for what, name in named_things():
        t = terms[name]
        syllables = HANZI.findall(name)
        assert t["en"] and not HANZI.fullmatch(t["en"]), what
        if syllables:
            assert TONES.search(t["pinyin"]) or t["pinyin"] in ("", ), (what, t)
            # one pinyin syllable per hanzi (neutral-tone syllables carry no mark)
            words = re.findall(r"[a-zāáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜü]+", t["pinyin"])
            assert len(words) == len(syllables) + len(re.findall(r"[A-Za-z]+", name)), (what, t)


def test_every_glossary_term_is_defined_in_both_languages():
    for name, t in glossary_terms().items():
        assert t["gloss"] and t["gloss_zh"] and HANZI.search(t["gloss_zh"]), name
        assert TONES.search(t["pinyin"]), name


def test_every_item_has_a_status():
    for rs in rulesets():
        for it in rules_table(rs)["items"]:
            assert it["status"] in STATUSES, (rs.id, it["id"])
            assert it["pinyin"] and it["en"], (rs.id, it["id"])
        if rs.extends:
            assert all(it["status"] == "inherited" for it in rules_table(rs)["items"]
                       if it["inherited_from"])


def test_qing_shows_its_attestation_tags_with_their_text():
    table = rules_table(find_ruleset("qing"))
    tagged = [it for it in table["items"] if it["tags"]]
    assert tagged
    for it in tagged:
        tag = it["tags"][0]
        assert tag["tag"] == "attested_qing" and tag["footnote"]
        assert "「" in tag["text"] or "paraphrase" in tag["text"]
    md = RENDERERS["md"](table, kind="rules-table")
    assert "named in a Qing text" in md and "鯽魚背" in md


def test_every_gloss_reading_and_description_has_a_chinese_text():
    for rs in rulesets():
        chain = (rs.id, *reversed(rs.extends))
        missing = []
        for it in rs.items.values():
            if it.gloss and translated(chain, "items", it.id, "gloss", "") == "":
                missing.append(f"items.{it.id}")
        for f in rs.fines.values():
            if f.gloss and translated(chain, "fines", f.id, "gloss", "") == "":
                missing.append(f"fines.{f.id}")
        for o in rs.options.values():
            if translated(chain, "options", o.name, "description", "") == "":
                missing.append(f"options.{o.name}")
            for k in o.choices:
                if translated(chain, "readings", f"{o.name}.{k}", "gloss", "") == "":
                    missing.append(f"readings.{o.name}.{k}")
        for k, v in rs.set_info.items():
            if v.get("gloss") and translated(chain, "sets", k, "gloss", "") == "":
                missing.append(f"sets.{k}")
        assert not missing, f"{rs.id}: add to rulesets/i18n/zh-Hant.yaml: {missing[:10]}"


# ---------------------------------------------------------------------- prose


def test_conditions_read_as_prose_not_as_the_dsl():
    dsl_marks = re.compile(r"\bnot \(|\[\w+=\w+\]|\bhas (?!made|not made)|∪|∩|\bfired\b|\bwon_any\b")
    for rs in rulesets():
        for lang in ("en", "zh"):
            d = Describer(rs, lang)
            for it in rs.items.values():
                text = d.item(it)["condition"]
                assert not dsl_marks.search(text), (rs.id, it.id, text)


def test_a_formula_shared_by_many_rows_is_stated_once():
    table = rules_table(find_ruleset("app"))
    assert table["formulas"], "the 正色樣 bonus is shared by every 正色樣 row"
    label, text = table["formulas"][0]["label"], table["formulas"][0]["text"]
    rows = [it for it in table["items"] if label in it["amount"]]
    assert len(rows) >= 10 and not any(text in it["amount"] for it in table["items"])


def test_the_phrase_book_has_both_languages():
    for key, (en, zh) in PHRASES.items():
        en_fields, zh_fields = set(re.findall(r"{(\w+)}", en)), set(re.findall(r"{(\w+)}", zh))
        # {s}: English plural; a named reading is only named in Chinese (its ids are in the
        # options table beside the name), in English also by the ids --set takes
        spare = {"s", "option", "value"} if key == "reading_named" else {"s"}
        assert zh_fields <= en_fields and en_fields - zh_fields <= spare, key


# ---------------------------------------------------------------------- languages

ENGLISH_CONDITION = re.compile(
    r"\b(holds|won|took|tricks|is 正本|has made|player|cards of|at least|exactly)\b")


@pytest.mark.parametrize("lang", ["zh-Hant", "zh-Hans"])
def test_zh_rule_tables_have_no_english_conditions(lang):
    for rs in rulesets():
        table = rules_table(rs, lang=lang)
        for it in table["items"]:
            for field in ("condition", "amount", "gloss"):
                text = READING.sub("", it[field])  # a reading is named by its option and value ids
                assert not ENGLISH_CONDITION.search(text), (rs.id, it["id"], field, it[field])
        for o in table["options"]:
            assert HANZI.search(o["description"]), (rs.id, o["name"])
            for ch in o["choices"]:
                assert HANZI.search(ch["description"]), (rs.id, o["name"], ch["value"])
    diff = rules_diff(rulesets(), lang=lang)
    for row in diff["rows"]:
        for c in row["cells"]:
            text = READING.sub("", c["condition"])
            assert not ENGLISH_CONDITION.search(text), (row["concept"], c["condition"])


READING = re.compile(r"（讀法 \w+＝\w+）|（选项 \w+＝\w+）|（選項 \w+＝\w+）|（读法 \w+＝\w+）")
TRADITIONAL_ONLY = ["馬", "弔", "賞", "極", "萬", "紅", "賀", "開", "門", "張", "條", "數", "與", "無"]


def test_zh_hans_output_has_no_traditional_only_characters():
    for fmt in ("text", "md", "html", "latex", "csv"):
        out = render_text(rules_table_report(find_ruleset("feng"), stamp=stamp(""), lang="zh-Hans"),
                          fmt, lang="zh-Hans")
        diff = render_text(rules_diff_report(rulesets(), stamp=stamp(""), lang="zh-Hans"), fmt,
                           lang="zh-Hans")
        for ch in TRADITIONAL_ONLY:
            assert ch not in out and ch not in diff, (fmt, ch)
        assert "四尊四极" in out and "百老" in out and (fmt == "csv" or "马吊" in out)


def test_html_sets_the_page_language():
    for lang in ("en", "zh-Hant", "zh-Hans"):
        page = RENDERERS["html"](rules_table(find_ruleset("feng"), lang=lang), kind="rules-table", lang=lang)
        assert f'<html lang="{lang}">' in page


def test_the_simplified_table_covers_every_character_the_project_prints():
    printed = set()
    for base in ("rulesets", "templates", "examples"):
        for f in (ROOT / base).rglob("*"):
            if f.is_file() and f.suffix in (".yaml", ".j2"):
                printed |= set(HANZI.findall(f.read_text(encoding="utf-8")))
    for f in (ROOT / "mahdiao_rules").rglob("*.py"):
        printed |= set(HANZI.findall(f.read_text(encoding="utf-8")))
    missing = printed - known_characters()
    assert not missing, f"run tools/make_hans_table.py (new characters: {''.join(sorted(missing))})"


def test_to_hans_converts_names_and_keeps_the_rest():
    assert to_hans("馮夢龍《馬弔腳例》 四尊四極 gōng hè 1 注") == "冯梦龙《马吊脚例》 四尊四极 gōng hè 1 注"
    assert to_hans("abc ×½") == "abc ×½"


def test_the_replay_differences_are_worded_in_the_report_language():
    from click.testing import CliRunner

    from mahdiao_rules.cli import main

    zh = CliRunner().invoke(main, ["replay", "-r", "feng", "-r", "app", "--lang", "zh-Hant"]).stdout
    en = CliRunner().invoke(main, ["replay", "-r", "feng", "-r", "app"]).stdout
    assert "未成（" in zh and not ENGLISH_CONDITION.search(READING.sub("", zh.split("未成（", 1)[1][:40]))
    assert "does not fire (" in en


# ---------------------------------------------------------------------- readings, decisions, notes

NEUTRAL = {"de", "zi", "le", "me", "men"}
"""Syllables a name may write without a tone mark (neutral tone: 的, and none other so far)."""
SYLLABLE = re.compile(r"[a-zāáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜü]+")


def test_every_reading_and_decision_is_named_with_tone_marked_pinyin_and_english():
    terms = all_terms()
    named = []
    for rs in rulesets():
        for o in rs.options.values():
            for value in o.choices:
                named.append((f"{rs.id} reading {o.name}.{value}", o.reading_name(value)))
        for d in rs.decisions:
            named.append((f"{rs.id} decision {d.id}", d.name))
    assert len(named) > 80
    for what, name in named:
        assert name and HANZI.search(name), f"{what}: give it a Chinese name (choices.X.name:)"
        assert name in terms, f"{what}: add {name} to rulesets/terms.yaml"
        t = terms[name]
        assert t["en"] and not HANZI.search(t["en"]), what
        syllables = SYLLABLE.findall(t["pinyin"])
        assert len(syllables) == len(HANZI.findall(name)), (what, t["pinyin"])
        for s in syllables:  # every syllable carries its tone, a neutral one excepted
            assert TONES.search(s) or s in NEUTRAL, (what, s)


def test_every_decision_and_item_note_has_a_chinese_text():
    for rs in rulesets():
        chain = (rs.id, *reversed(rs.extends))
        missing = []
        for d in rs.decisions:
            for field in ("reading", "reason", "alternatives"):
                if getattr(d, field) and not HANZI.search(translated(chain, "decisions", d.id, field, "")):
                    missing.append(f"decisions.{d.id}.{field}")
        for it in rs.items.values():
            if it.note and not HANZI.search(translated(chain, "items", it.id, "note", "")):
                missing.append(f"items.{it.id}.note")
        if rs.description and not HANZI.search(translated(chain, "ruleset", "description", "x", "")):
            missing.append("ruleset.description")
        assert not missing, f"{rs.id}: add to rulesets/i18n/zh-Hant.yaml: {missing[:10]}"


def _citation_texts(node, out):
    """(kind, text) of every inference, paraphrase and note of a citation in a YAML tree."""
    if isinstance(node, dict):
        if "ref" in node or "inference" in node:
            for key in ("inference", "paraphrase", "note"):
                if isinstance(node.get(key), str):
                    out.append((key, node[key]))
        for v in node.values():
            _citation_texts(v, out)
    elif isinstance(node, list):
        for v in node:
            _citation_texts(v, out)
    return out


ENGLISH_TEXT = re.compile(r"\b[a-z]{3,}\b")


def test_every_english_citation_text_has_a_chinese_text_and_none_is_stale():
    from mahdiao_rules.io.yamlsafe import load_file
    from mahdiao_rules.ruleset.terms import citation_texts

    catalogue = citation_texts()
    used = []
    for f in sorted((ROOT / "rulesets").rglob("*.yaml")):
        if f.name not in ("sources.yaml", "terms.yaml") and "i18n" not in f.parts:
            used += _citation_texts(load_file(f).data, [])
    texts = {text for _kind, text in used}
    missing = [(k, t) for k, t in used
               if (k == "inference" or ENGLISH_TEXT.search(re.sub(r"\w*[A-Z_.#]\w*", "", t)))
               and t not in catalogue]
    assert not missing, f"add to rulesets/i18n/citations.zh-Hant.yaml: {missing[:5]}"
    stale = [t for t in catalogue if t not in texts]
    assert not stale, f"rulesets/i18n/citations.zh-Hant.yaml: no citation says {stale[:3]}"
    assert all(HANZI.search(zh) for zh in catalogue.values())


def test_every_engine_note_has_a_chinese_wording_with_the_same_fields():
    import string

    from mahdiao_rules.io.resources import data_dir
    from mahdiao_rules.io.yamlsafe import load_file
    from mahdiao_rules.messages import MESSAGES

    labels = load_file(data_dir("templates") / "labels.yaml").data
    for mid, en in MESSAGES.items():
        entry = labels.get(f"note_{mid}")
        assert entry, f"templates/labels.yaml: add note_{mid}"
        en_fields = {f for _, f, _, _ in string.Formatter().parse(en) if f}
        for lang in ("zh-Hant", "zh-Hans"):
            zh_fields = {f for _, f, _, _ in string.Formatter().parse(entry[lang]) if f}
            assert zh_fields <= en_fields, (mid, lang)


def test_a_note_renders_per_language_and_stays_english_in_json():
    import json
    import pickle

    from mahdiao_rules.messages import note
    from mahdiao_rules.report.render import load_labels, note_text

    n = note("sheng_dai", seat="east", card="八萬", face="九萬")
    assert n == "升代: east's 八萬 plays as the face card 九萬" and json.dumps(n) == json.dumps(str(n))
    assert note_text(n, load_labels(None, "zh-Hant")) == "升代：東之八萬作面張九萬而出"
    assert note_text(n, load_labels(None, "en")) == str(n)
    again = pickle.loads(pickle.dumps(n))
    assert again.id == "sheng_dai" and again == n


def test_every_source_note_has_a_chinese_text():
    from mahdiao_rules.ruleset.bibliography import bundled_sources
    from mahdiao_rules.ruleset.terms import source_note_zh

    for key, entry in bundled_sources().items():
        if entry.get("note"):
            assert HANZI.search(source_note_zh(key)), f"rulesets/i18n/citations.zh-Hant.yaml: sources.{key}"
