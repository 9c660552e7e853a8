"""The maths' own font (figures/site/mathfont.py): fetched from the npm registry like the offline
copy's shim, served by the site, named by the stylesheet, and what a reader sees in chromium: a
display sum larger than the text, brackets that grow around a fraction, and a wide formula on a
phone that scrolls inside the column with a shadow at the edge that hides more of it."""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from fontTools.ttLib import TTFont

from figures.site import mathfont, offline
from test_site_offline import fake_config, npm  # noqa: F401  (npm: the fake npm fixture)

FONT = b"wOF2 a font's bytes"
LICENCE = b"This Font Software is licensed under the SIL Open Font License, Version 1.1."
MEMBERS = {"package/files/stix-two-math-latin-400-normal.woff2": FONT, "package/LICENSE": LICENCE}


def _config(tmp_path):
    return fake_config(tmp_path, plugin_name=None)


def test_the_font_and_its_licence_come_from_the_scoped_package_and_become_site_files(npm, tmp_path):  # noqa: F811
    from mkdocs.structure.files import Files
    npm.members = MEMBERS
    cache = tmp_path / "npm"
    files = mathfont.add_font(Files([]), _config(tmp_path), cache)
    got = {f.src_uri: Path(f.abs_src_path).read_bytes() for f in files}
    assert got == {"assets/vendor/stix-two-math.woff2": FONT, "assets/vendor/stix-two-math.LICENSE.txt": LICENCE}
    # npm names a scoped package's tarball scope-name-version.tgz; a second build needs no npm
    assert (cache / "fontsource-stix-two-math-5.3.0.tgz").is_file()
    mathfont.add_font(Files([]), _config(tmp_path), cache)
    assert len(npm.calls) == 1


def test_without_npm_the_build_says_so_in_one_warning_and_goes_on(monkeypatch, tmp_path, caplog):
    from mkdocs.structure.files import Files
    monkeypatch.setattr(offline, "shutil", SimpleNamespace(which=lambda name: None))
    with caplog.at_level(logging.WARNING):
        files = mathfont.add_font(Files([]), _config(tmp_path), tmp_path / "npm")
    assert list(files) == []
    [record] = caplog.records
    assert record.getMessage().startswith(f"the maths' font ({mathfont.PACKAGE}) is missing, so formulas fall back "
                                          "to the reader's fonts: needs npm once")


def test_the_characters_are_read_from_every_pages_maths_and_only_there(tmp_path):
    (tmp_path / "en" / "p").mkdir(parents=True)
    (tmp_path / "index.html").write_text('<p>Σ outside</p><math display="block"><mo>&#x2211;</mo><mi>ξ</mi></math>')
    (tmp_path / "en" / "p" / "index.html").write_text('<math><mo>&lt;</mo><mi mathvariant="normal">ℝ</mi></math>'
                                                      '<math\n><mo>⇔</mo></math>')
    used = mathfont.used_characters(tmp_path)
    assert used - mathfont.BASE == {ord(c) for c in "∑ξℝ⇔"}  # "<" is ASCII; Σ stands outside the maths
    # a root's sign is the font's √, drawn by the browser for <msqrt> with no character on the page
    (tmp_path / "root.html").write_text("<math><msqrt><mi>d</mi></msqrt></math>")
    assert mathfont.used_characters(tmp_path) - used == {0x221A}
    assert {ord("x"), 0x1D465, 0x210E} <= mathfont.BASE  # x, and the italic x and h a browser draws for <mi>x</mi>


def test_the_built_site_serves_the_font_cut_to_its_maths(site):
    css = (site / "assets" / "mha-figures.css").read_text()
    [url] = re.findall(r'font-family: "STIX Two Math";\s*src: url\("([^"]+)"\) format\("woff2"\)', css)
    served = (site / "assets" / url).read_bytes()
    whole = offline.npm_file(mathfont.PACKAGE, mathfont.FILES["assets/vendor/stix-two-math.woff2"]).read_bytes()
    assert served[:4] == b"wOF2" and len(served) < len(whole) / 5
    font = TTFont(io.BytesIO(served))
    # every character the maths uses that the whole font has (位置 in a formula is left to the text font)
    has = set(TTFont(io.BytesIO(whole)).getBestCmap())
    assert set(font.getBestCmap()) >= mathfont.used_characters(site) & has
    # the MATH table, and the larger sums it offers a display formula, cut with the font
    variants = font["MATH"].table.MathVariants
    sums = {v.VariantGlyph for c, g in zip(variants.VertGlyphCoverage.glyphs, variants.VertGlyphConstruction)
            if c == font.getBestCmap()[0x2211] for v in g.MathGlyphVariantRecord}
    assert len(sums) > 1 and sums <= set(font.getGlyphOrder())
    assert "Open Font License" in (site / "assets" / "vendor" / "stix-two-math.LICENSE.txt").read_text()
    assert re.search(r'math\s*\{\s*font-family: "STIX Two Math", math;', css)


def test_the_copy_read_from_disk_preloads_nothing(offline_site):
    """From file:// chromium refuses a preload of the font (a CORS fetch: a console error), and
    loads it from the stylesheet anyway."""
    pages = [p.read_text(encoding="utf-8") for p in offline_site.rglob("*.html")]
    assert sum("<math" in html for html in pages) > 20
    assert not any('rel="preload"' in html for html in pages)


def test_a_page_with_maths_preloads_the_font_and_one_without_does_not(site):
    preload = re.compile(r'<link rel="preload" href="([^"]+stix-two-math\.woff2)" as="font" type="font/woff2" crossorigin>')
    for page in ("what-it-costs/index.html", "en/what-it-costs/index.html"):
        html = (site / page).read_text()
        [href] = preload.findall(html)
        assert "<math" in html and (site / page).parent.joinpath(href).resolve() == (site / "assets/vendor/stix-two-math.woff2").resolve()
    pages = {p: p.read_text() for p in site.rglob("*.html")}  # the 404 pages hold no maths
    assert {bool(preload.search(html)) for html in pages.values()} == {True, False}
    assert all(bool(preload.search(html)) == ("<math" in html) for html in pages.values())


# Each display sign's height over the font size, and each pair of brackets around a fraction: what
# the MATH table changes. Set in the text font the sum is 0.94 em and the brackets 1.0 em.
MEASURE = """() => [...document.querySelectorAll('.mha-math math mo')].map(mo => {
  const em = parseFloat(getComputedStyle(mo).fontSize);
  // a bracket set to grow (\\left( ... \\right)) around a fraction
  const aroundFraction = mo.getAttribute('stretchy') === 'true' && mo.textContent === '('
      && mo.parentElement.querySelector('mfrac') !== null;
  return {sign: mo.textContent, height: mo.getBoundingClientRect().height / em, aroundFraction};
})"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_display_maths_is_set_with_a_math_font(browser, served, lang):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    signs, roots = [], []
    for path in ("one-head-blends/", "reference/", "heads-side-by-side/"):
        page.goto(served + ("en/" if lang == "en" else "") + path, wait_until="networkidle")
        page.evaluate("document.fonts.ready.then(() => true)")
        signs += page.evaluate(MEASURE)
        # a root's sign is drawn before what it covers: the room between the <msqrt>'s left edge and
        # its content's (none when the font has no √: the sign vanished, and the width with it)
        roots += page.evaluate("""() => [...document.querySelectorAll('msqrt')].map(r =>
            r.firstElementChild.getBoundingClientRect().left - r.getBoundingClientRect().left)""")
    page.close()
    sums = [s["height"] for s in signs if s["sign"] == "∑"]
    brackets = [s["height"] for s in signs if s["aroundFraction"]]
    assert sums and brackets and roots
    assert min(sums) >= 1.3, sums  # a display sum is larger than the text around it
    assert min(brackets) >= 2, brackets  # brackets grow to hold a fraction
    assert min(roots) >= 4, roots  # px: the sign takes room


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_wide_formula_on_a_phone_scrolls_in_its_column_with_a_shadow_at_the_edge(browser, served, lang):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(served + ("en/" if lang == "en" else "") + "one-head-blends/", wait_until="networkidle")
    found = page.evaluate("""() => [...document.querySelectorAll('.mha-math')].map(d => ({
        scrolls: d.scrollWidth > d.clientWidth, tabIndex: d.tabIndex,
        inside: d.getBoundingClientRect().right <= document.documentElement.clientWidth,
        shadows: (getComputedStyle(d).backgroundImage.match(/radial-gradient/g) || []).length}))""")
    page.close()
    wide = [d for d in found if d["scrolls"]]
    assert wide  # the first display of this page is wider than a phone
    assert all(d["inside"] and d["tabIndex"] == 0 and d["shadows"] == 2 for d in wide), wide
