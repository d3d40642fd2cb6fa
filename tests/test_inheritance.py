"""Rulesets built on others: qing over app, extends without overrides, options as switches."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from helpers import E, N, S, W, build, zhu
from test_feng_golden import DIAO_TABLE, partition_deal

from mahdiao_rules.cards import Card
from mahdiao_rules.deal import Deal, RecordedTrick, Seat
from mahdiao_rules.errors import InputError
from mahdiao_rules.pipeline import settle_deal
from mahdiao_rules.play.tricks import play_random
from mahdiao_rules.ruleset import find_ruleset, load_ruleset

TU_ITEMS = {"xiao_tu", "da_huo_bai_tu", "quan_tu_da_huo", "xiao_huo_bai_tu"}
SMALL_SE_YANG = {"bai_hou_qu", "qu_hou_bai", "mei_nv_can_chan", "xiao_can_chan", "zhuo_ji_xian_ji"}
"""The small 色樣 鏡花緣 names that the catalogue has (捉百獻極 is not the app's 捉極獻百)."""


def random_played(seed: int) -> Deal:
    rng = random.Random(seed)
    cards = [Card(c) for c in range(40)]
    rng.shuffle(cards)
    deal = Deal(id=f"r{seed}", banker=Seat(rng.randrange(4)),
                hands=tuple(tuple(cards[8 * i: 8 * i + 8]) for i in range(4)),  # type: ignore[arg-type]
                stock=tuple(cards[32:]))
    played = play_random(deal, Seat(rng.randrange(4)), rng)
    return dataclasses.replace(deal, play=tuple(RecordedTrick(t.lead, t.cards) for t in played.tricks))


def test_qing_has_no_tu_and_keeps_the_app_catalogue():
    app, qing = find_ruleset("app"), find_ruleset("qing")
    assert TU_ITEMS <= set(app.items)
    assert not TU_ITEMS & set(qing.items)
    assert set(qing.items) == set(app.items) - TU_ITEMS - {
        "qiao_men_da_huo_bai_tu", "qiao_men_quan_tu_da_huo", "qiao_men_xiao_huo_bai_tu"}
    assert qing.extends == ("app",)


def test_qing_shi_pu_drops_the_small_se_yang_the_novel_names():
    gu, shi = find_ruleset("qing"), find_ruleset("qing", {"pu": "shi"})
    assert SMALL_SE_YANG <= set(gu.items)
    assert set(gu.items) - set(shi.items) == SMALL_SE_YANG
    assert "zhuo_ji_xian_bai" in shi.items                 # the app's, not the novel's 捉百獻極
    assert "之類" in shi.options["pu"].choices["shi"]       # the list is illustrative


def test_qing_tags_what_qing_texts_attest():
    qing = find_ruleset("qing")
    attested = {i for i, item in qing.items.items() if item.tags.get("attested_qing")}
    assert attested == {"bai_ji_yu_bei", "bai_hou_qu", "qu_hou_bai", "mei_nv_can_chan",
                        "xiao_can_chan", "zhuo_ji_xian_ji", "san_hua_tian_nv", "tian_nv_san_hua",
                        "qi_lin_zhong", "kai_chong"}
    # no text names a 賞/肩 鯽魚背, a 麒麟種 formed on the table, or 捉極獻百
    assert not attested & {"shang_ji_yu_bei", "shang_ji_yu_bei_mei", "jian_ji_yu_bei",
                           "jian_ji_yu_bei_mei", "qi_lin_zhong_shang_zhuo", "zhuo_ji_xian_bai"}
    kai_chong = qing.items["kai_chong"].tags["attested_qing"]
    assert kai_chong.parts[0].quote == "百子開沖，紅萬沖出"


def test_da_huo_bai_tu_under_app_is_plain_da_huo_bai_under_qing():
    wins = [(E, "百老"), (E, "八萬"), (E, "九索"), (S, "七索"), (S, "六索"),
            (W, "五索"), (W, "四萬"), (N, "三萬")]
    deal = build(wins, banker=N, stock=["五文"])
    app, qing = settle_deal(find_ruleset("app"), deal), settle_deal(find_ruleset("qing"), deal)
    assert {f.item.id for f in app.firings if f.seat == E} >= {"da_huo_bai_tu"}
    qing_items = {f.item.id for f in qing.firings if f.seat == E}
    assert "da_huo_bai" in qing_items and not TU_ITEMS & qing_items
    assert zhu(app, item="da_huo_bai_tu")[N] == -6
    assert zhu(qing, item="da_huo_bai")[N] == -3


@pytest.mark.parametrize(("counts", "diao", "nets_e", "nets_n"), DIAO_TABLE,
                         ids=["-".join(map(str, row[0])) for row in DIAO_TABLE])
def test_app_diao_table_in_zhu(counts, diao, nets_e, nets_n):
    # Digest §4.1 in 注 under app: every value doubled (1 吊 = 2 注).
    for banker, expected in ((E, nets_e), (N, nets_n)):
        s = settle_deal(find_ruleset("app"), partition_deal(counts, banker))
        assert zhu(s, item="diao")[:4] == [2 * x for x in expected]


def test_cross_ruleset_example_app():
    # Digest §4.5, app column: 吊 2 + 大活百突 6 (replaces 大活百; no 賞 pay), 敲門 2: +14/0/0/−14.
    wins = [(E, "百老"), (E, "八萬"), (E, "九索"), (S, "七索"), (S, "六索"),
            (W, "五索"), (W, "四萬"), (N, "三萬")]
    s = settle_deal(find_ruleset("app"), build(wins, banker=N, stock=["五文"]))
    kai = ["diao", "da_huo_bai", "da_huo_bai_tu", "qiao_men_da_huo_bai_tu"]
    assert zhu(s, items=kai)[:4] == [14, 0, 0, -14]


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("base", ["feng", "app"])
def test_extends_without_overrides_settles_like_its_base(tmp_path, base):
    path = write(tmp_path, "child.yaml", f"id: child\nname: 子\nextends: {base}\n")
    child, parent = load_ruleset(path), find_ruleset(base)
    for seed in range(150):
        deal = random_played(seed)
        assert settle_deal(child, deal).ledger == settle_deal(parent, deal).ledger


@pytest.mark.parametrize(("rs_id", "option", "value", "allowed"), [
    ("app", "kai_zhu_values", "code",
     {"quan_tu_da_huo", "xiao_huo_bai_tu", "qiao_men_quan_tu_da_huo", "qiao_men_xiao_huo_bai_tu",
      "zheng_ben_bai", "da_huo_bai_tu", "da_huo_bai", "qiao_men_da_huo_bai_tu",
      "qiao_men_da_huo_bai"}),
    ("app", "fo_chi_jiao", "kai_zhu", {"fo_chi_jiao", "qiao_men_fo_chi_jiao"}),
    ("feng", "jia_kui_zheng_ben", "exempt", {"jia_kui"}),
    ("feng", "qi_zhuo", "any_seven", {"ba_zhuo_quan_shou"}),
])
def test_toggling_an_option_changes_only_the_items_it_names(rs_id, option, value, allowed):
    plain, switched = find_ruleset(rs_id), find_ruleset(rs_id, {option: value})
    for seed in range(300):
        deal = random_played(seed)
        a = {(f.item.id, f.seat, f.amount) for f in settle_deal(plain, deal).firings}
        b = {(f.item.id, f.seat, f.amount) for f in settle_deal(switched, deal).firings}
        assert {item for item, _, _ in a ^ b} <= allowed


def test_override_and_remove_and_conflicts(tmp_path):
    ok = write(tmp_path, "ok.yaml", """id: variant
name: 變體
extends: feng
remove: [jia_kui]
options:
  qi_zhuo: {default: any_seven}
items:
  - id: shang
    override: true
    name: 賞
    phase: play
    channel: kai_zhu
    zhu: 2
    per: {won: shang}
    when: {zheng_ben: true}
    source: {inference: "賞一注, doubled for this test"}
""")
    rs = load_ruleset(ok)
    assert "jia_kui" not in rs.items
    assert rs.option_values["qi_zhuo"] == "any_seven"
    assert list(rs.items).index("shang") == list(find_ruleset("feng").items).index("shang")

    clash = write(tmp_path, "clash.yaml", """id: clash
name: 衝突
extends: feng
items:
  - id: shang
    name: 賞
    phase: play
    channel: kai_zhu
    zhu: 2
    source: {inference: "x"}
""")
    with pytest.raises(InputError, match=r"already defined at rulesets/feng.yaml:\d+; write override: true"):
        load_ruleset(clash)
    dangling = write(tmp_path, "dangling.yaml", "id: d\nname: 缺\nextends: feng\nremove: [da_huo_bai]\n")
    with pytest.raises(InputError, match="fired: 'da_huo_bai' is not an item or group") as err:
        load_ruleset(dangling)
    assert err.value.file == "rulesets/feng.yaml" and err.value.line
    a = write(tmp_path, "a.yaml", "id: a\nname: 甲\nextends: b.yaml\n")
    write(tmp_path, "b.yaml", "id: b\nname: 乙\nextends: a.yaml\n")
    with pytest.raises(InputError, match=r"extends makes a cycle: a.yaml → b.yaml → a.yaml"):
        load_ruleset(a)


def test_partial_override_changes_only_the_keys_given(tmp_path):
    path = write(tmp_path, "partial.yaml", """id: partial
name: 部分
extends: feng
items:
  - id: shang
    override: partial
    zhu: 2
""")
    rs, feng = load_ruleset(path), find_ruleset("feng")
    new, old = rs.items["shang"], feng.items["shang"]
    assert new.raw["zhu"] == 2 * old.raw["zhu"]  # (the settlements below pay twice as much)
    assert (new.name, new.phase, new.channel, new.source, new.raw["when"], new.raw["per"]) == \
           (old.name, old.phase, old.channel, old.source, old.raw["when"], old.raw["per"])
    assert list(rs.items).index("shang") == list(feng.items).index("shang")
    deal = next(d for d in (random_played(s) for s in range(200))
                if any(f.item.id == "shang" for f in settle_deal(feng, d).firings))
    before = {f.seat: f.amount for f in settle_deal(feng, deal).firings if f.item.id == "shang"}
    after = {f.seat: f.amount for f in settle_deal(rs, deal).firings if f.item.id == "shang"}
    assert after == {seat: 2 * amount for seat, amount in before.items()}

    nothing = write(tmp_path, "nothing.yaml", "id: n\nname: 無\nextends: feng\nitems:\n"
                                              "  - {id: no_such_item, override: partial, zhu: 1}\n")
    with pytest.raises(InputError, match="no_such_item' overrides nothing"):
        load_ruleset(nothing)
    whole = write(tmp_path, "whole.yaml", "id: w\nname: 全\nextends: feng\nitems:\n"
                                          "  - {id: shang, override: true, zhu: 1}\n")
    with pytest.raises(InputError, match=r"whole\.yaml:5.*(name|phase|channel|source)"):
        load_ruleset(whole)  # override: true replaces the item: it must be complete


def test_a_derived_ruleset_never_passes_for_its_base(tmp_path):
    bare = load_ruleset(write(tmp_path, "bare.yaml", "id: bare\nname: 變\nextends: feng\n"))
    feng = find_ruleset("feng")
    assert bare.name_en == f"variant of {feng.name_en} (feng)" and bare.base_name == feng.name
    assert bare.description == ""
    named = load_ruleset(write(tmp_path, "named.yaml", "id: named\nname: 變\nname_en: My reading\n"
                                                       "extends: feng\n"))
    assert named.name_en == "My reading"
    assert find_ruleset("qing").name_en.startswith("Qing-dynasty")
    assert (bare.order, bare.colour) == (None, None)  # neither is inherited


def test_qing_shi_shu_men_changes_the_heuristic_play_and_the_payments():
    """Deal with 莊 S, played by the heuristic policy.  W's 百老 wins trick 4; 萬萬 (W) and 千萬 (N)
    are still out when S, without 百老 or 萬萬, leads trick 7.
    san_hua: 十 is still a 禁門, S leads 七索; W ends with 5 tricks, S 2, N 1, E 0.  K: W 吊 2 +
    大活百 3 = 5, S 0, E = N = −2; 開沖 W 10, S 3.  E −2 − 3 − 敲門 1 = −6, N −6,
    W 5 + (10 − 3) + 2 = 14, S −(−2 + 5 − 2) + (3·3 − 10) = −2.
    bai_zi: 百子上桌, so S leads 二十; W captures with 萬萬 (N's 千萬 comes too late) and takes
    trick 8: 6 tricks, 六桌吊 3 (公賀); 開沖 W 8.  E −2 − 3 − 1 − 3 = −9, N −9,
    W 5 + (8 − 3) + 2 + 9 = 21, S −1 + (9 − 8) − 3 = −3."""
    from mahdiao_rules.cards import parse_card
    from mahdiao_rules.play.policies import make_policy

    def cards(text: str) -> tuple[Card, ...]:
        return tuple(Card(int(parse_card(c))) for c in text.split())
    deal = Deal(id="shi-shu-men", banker=S, hands=(
        cards("七十 三十 六萬 五萬 四萬 四索 四文 九文"), cards("六十 五十 二十 二萬 七索 五索 半文 八文"),
        cards("萬萬 百萬 八十 九萬 八索 一索 六文 七文"), cards("千萬 三萬 一萬 九索 三索 一文 二文 五文")),
        stock=cards("八萬 六索 九十 七萬 四十 二索 三文 空文"))
    nets = {}
    for reading in ("san_hua", "bai_zi"):
        rs = find_ruleset("qing", {"shi_shu_men": reading})
        s = settle_deal(rs, deal, policy=make_policy("heuristic", rs))
        nets[reading] = [n / 24 for n in s.nets]
        nets[reading + "_lead7"] = s.play.tricks[6].cards[0].hanzi
    assert nets["san_hua_lead7"] == "七索" and nets["bai_zi_lead7"] == "二十"
    assert nets["san_hua"] == [-6, -2, 14, -6, 0]
    assert nets["bai_zi"] == [-9, -3, 21, -9, 0]
