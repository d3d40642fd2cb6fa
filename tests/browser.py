"""Render HTML pages in headless Chromium and measure their layout (used by test_browser.py).

No Python dependency: a copy of the page gets a small script that measures the rendered
layout once the fonts are ready (getBoundingClientRect, scrollWidth, canvas text widths) and
writes the result as JSON into the DOM; Chromium's ``--dump-dom`` hands the DOM back.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--virtual-time-budget=10000"]

MEASURE = r"""
<script id="layout-probe">
(function () {
  function run() {
    var vw = document.documentElement.clientWidth, out = {viewport: vw,
      page_width: document.documentElement.scrollWidth, too_wide: [], offscreen_numbers: [], nets: 0};
    var all = document.body.getElementsByTagName("*");
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      if (el.id === "layout-report" || el.closest("head")) continue;
      var r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.right > vw + 1 || r.left < -1) {
        var cls = typeof el.className === "string" && el.className ? "." + el.className : "";
        var span = " " + Math.round(r.left) + "–" + Math.round(r.right);
        out.too_wide.push(el.tagName.toLowerCase() + cls + span);
      }
    }
    var nets = document.querySelectorAll("tr.net td.num, tr.net th.num, td.num.net");
    out.nets = nets.length;
    nets.forEach(function (td) {
      var r = td.getBoundingClientRect();
      if (!(r.width > 0 && r.right <= vw + 1 && r.left >= -1)) {
        out.offscreen_numbers.push(td.textContent.trim());
      }
    });
    // Missing glyphs: a hanzi drawn in the page's font must not look like a character no font
    // has (U+10FFFD, private use) — that is the missing-glyph box (tofu).  Compare pixels.
    var body = getComputedStyle(document.body);
    function image(ch) {
      var c = document.createElement("canvas"); c.width = 64; c.height = 64;
      var g = c.getContext("2d"); g.fillStyle = "#fff"; g.fillRect(0, 0, 64, 64);
      g.fillStyle = "#000"; g.font = "48px " + body.fontFamily; g.fillText(ch, 4, 52);
      return Array.prototype.join.call(g.getImageData(0, 0, 64, 64).data, ",");
    }
    var tofu = image("\u{10FFFD}"), hanzi = "馬吊注椿賞百老萬索文", missing = [], seen = {};
    for (var k = 0; k < hanzi.length; k++) {
      var img = image(hanzi[k]);
      if (img === tofu || seen[img]) missing.push(hanzi[k]);
      seen[img] = true;
    }
    out.missing_glyphs = missing;
    out.font_family = body.fontFamily; out.lang = document.documentElement.lang;
    var pre = document.createElement("pre"); pre.id = "layout-report";
    pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
  }
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(run); else run();
})();
</script>
"""
REPORT = re.compile(r'<pre id="layout-report">(.*?)</pre>', re.S)


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def measure(html: str, width: int, workdir: Path, *, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Load *html* at *width* CSS pixels in headless Chromium; the layout facts as a dict."""
    browser = chromium()
    assert browser is not None
    page = workdir / f"page-{width}.html"
    page.write_text(html.replace("</body>", MEASURE + "</body>", 1), encoding="utf-8")
    done = subprocess.run(
        [browser, *FLAGS, f"--user-data-dir={workdir / 'profile'}", f"--window-size={width},900",
         "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=180, check=False,
        env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr[-2000:]
    found = REPORT.search(done.stdout)
    assert found, "the layout probe did not run: " + done.stderr[-1500:]
    import html as html_lib

    return json.loads(html_lib.unescape(found.group(1)))
