"""Every HTML page kind in a real browser: headless Chromium renders it at 1024–1920 px and a
probe script measures the layout (tests/browser.py), not only the DOM.

Asserted from the rendered layout: the page is no wider than the window and no element
sticks out of it; every net amount is on screen; hanzi are drawn with real glyphs, not the
missing-glyph box (checked by pixels against a character no font has — and shown to catch a
machine without a CJK font, by running Chromium with a font configuration that has none).

Without Chromium the test skips — except where ``MAHDIAO_REQUIRE_BROWSER=1`` (``.ci/run`` sets
it after installing Chromium and fonts-noto-cjk), where a missing browser fails the run.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from browser import chromium, measure
from click.testing import CliRunner

from mahdiao_rules.cli import main

ROOT = Path(__file__).resolve().parents[1]
VARIANT = str(ROOT / "tests" / "data" / "feng_variant.yaml")
REQUIRED = os.environ.get("MAHDIAO_REQUIRE_BROWSER") == "1"

PAGES: dict[str, list[str]] = {
    "replay": ["replay"],
    "replay -r all": ["replay", "-r", "all", "-r", VARIANT],
    "explain": ["explain", "--deal", "cross-ruleset", "--seat", "east", "-r", "app"],
    "rules table feng": ["rules", "table", "feng"],
    "rules table app": ["rules", "table", "app"],
    "rules diff": ["rules", "diff", "feng", "qing", "app"],
    "simulate": ["simulate", "-n", "40", "--seed", "browser"],
    "ablate": ["ablate", "-r", "feng", "-n", "40", "--seed", "browser"],
    "simulate --sitting": ["simulate", "--sitting", "6", "-n", "8", "-r", "all", "-r", VARIANT,
                           "--seed", "browser"],
    "reconstruct": ["reconstruct", "-r", "feng", "-r", "app", "--samples", "20"],
}
WIDTHS = (1024, 1920)
NET_CELLS = {"replay", "replay -r all", "explain", "reconstruct"}


@pytest.fixture(scope="module")
def browser_dir(tmp_path_factory) -> Path:
    if chromium() is None:
        message = ("headless Chromium is not installed (Debian: apt-get install chromium fonts-noto-cjk; "
                   ".ci/run installs both)")
        if REQUIRED:
            pytest.fail(message + " — and MAHDIAO_REQUIRE_BROWSER=1 says this run must use it")
        pytest.skip(message)
    return tmp_path_factory.mktemp("browser")


def page(kind: str) -> str:
    result = CliRunner().invoke(main, [*PAGES[kind], "-f", "html"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("kind", list(PAGES))
def test_every_page_fits_the_window_and_draws_its_hanzi(kind, browser_dir):
    html = page(kind)
    widths = (*WIDTHS, 1440) if kind == "replay -r all" else WIDTHS
    for width in widths:
        got = measure(html, width, browser_dir)
        where = f"{kind} at {width} px"
        assert got["viewport"] == width, where
        assert got["page_width"] <= width, f"{where}: the page is {got['page_width']} px wide"
        assert not got["too_wide"], f"{where}: elements outside the window: {got['too_wide'][:5]}"
        assert not got["missing_glyphs"], f"{where}: hanzi drawn as missing glyphs: {got['missing_glyphs']}"
        if kind in NET_CELLS:
            assert got["nets"] > 0, f"{where}: no net cell found"
            off = got["offscreen_numbers"]
            assert not off, f"{where}: net cells off screen: {off[:5]}"


def test_the_glyph_check_catches_a_machine_without_a_cjk_font(browser_dir):
    fonts = [d for d in ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation")
             if Path(d).is_dir()]
    if not fonts or shutil.which("fc-list") is None:
        pytest.skip("no fontconfig with a Latin-only font folder to compare with")
    conf = browser_dir / "latin-only.conf"
    dirs = "".join(f"<dir>{d}</dir>" for d in fonts)
    conf.write_text(f'<?xml version="1.0"?><fontconfig>{dirs}<cachedir>{browser_dir / "fc"}</cachedir>'
                    "</fontconfig>", encoding="utf-8")
    got = measure(page("explain"), 1280, browser_dir, env={"FONTCONFIG_FILE": str(conf)})
    assert len(got["missing_glyphs"]) >= 5  # every hanzi a box: the probe sees it


def test_pages_say_which_text_is_chinese_and_link_their_sources(browser_dir):
    html = page("replay")
    assert re.search(r'<html lang="en">', html)
    assert '<span lang="zh-Hant">馬吊</span>' in html
    assert "<title>" in html and "<title><span" not in html  # never inside raw-text elements
    assert re.search(r'<a class="mono" href="https://', html)  # cited URLs are links
    zh = CliRunner().invoke(main, ["replay", "-f", "html", "--lang", "zh-Hant"]).output
    assert '<html lang="zh-Hant">' in zh and '<span lang="zh-Hant">' not in zh


def test_replay_shows_a_legend_for_every_symbol_of_its_grid():
    html = page("replay -r all")
    assert "did not fire" in html and "no such item" in html and "differs between the rulesets" in html
