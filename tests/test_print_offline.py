"""Print handouts and the offline copy, in a real browser (Playwright driving Debian's chromium).

Print: pages are laid out with print media emulated at A4 width, and what a reader of the paper
sees is checked. Offline: the MHA_OFFLINE=1 build is opened from disk (file://), searched, and
a link followed. Skipped without chromium or Playwright, except under CI, where that fails.
"""

import re

import pytest

from test_legibility import shown_px, smallest_by_file

PAGES = ["one-head-blends/", "heads-side-by-side/", "what-it-costs/"]
# words that tell a reader to work a control: in print there is none
SLIDER_WORDS = re.compile(r"滑块|拖|slider|drag|step through|move the", re.I)
A4_CONTENT_PX = 703  # 210 mm less the side margins of mha-print.css (12 mm each), at 96 px per inch
PRINT_PT = 8  # the smallest figure text on paper (test_print_handouts.py measures it in the PDF too)
MIN_FRAME_PX = 300  # two frames a row fill the column; three (about 230 px) are too small to read


@pytest.fixture(scope="module", params=[p for p in PAGES] + ["en/" + p for p in PAGES])
def printed(request, browser, served):
    """A page laid out for print at A4 width, every image loaded."""
    page = browser.new_page(viewport={"width": A4_CONTENT_PX, "height": 1000})
    page.goto(served + request.param, wait_until="networkidle")
    page.emulate_media(media="print")
    # mha-figures.js fetches the frames the slider kept back when print media starts to match (an
    # event that comes after emulate_media returns); make them eager only once they have a src.
    page.wait_for_function("() => !document.querySelector('img[data-src]:not([src])')")
    page.evaluate("document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager')")
    page.wait_for_load_state("networkidle")
    page.wait_for_function("() => [...document.images].every(i => i.complete)")
    yield page
    page.close()


def _figures(page) -> list[dict]:
    """Per figure with frames: its computed break-inside, and each frame's visibility and width."""
    return page.evaluate("""() => [...document.querySelectorAll('figure.mha-figure')].map(f => ({
        id: f.id,
        breakInside: getComputedStyle(f).breakInside,
        frames: [...f.querySelectorAll('.mha-frame')].map(fr => {
            const img = fr.querySelector('img'), s = getComputedStyle(fr);
            return {visible: s.display !== 'none' && s.visibility === 'visible' && img.getBoundingClientRect().height > 0,
                    width: img.getBoundingClientRect().width,
                    src: img.currentSrc && new URL(img.currentSrc).pathname.replace(/^\\//, ''),
                    label: (fr.querySelector('.mha-frame-label') || {}).innerText || ''};
        }),
    }))""")


def test_print_hides_every_control(printed):
    shown = printed.evaluate("""() => [...document.querySelectorAll(
        '.md-content button, .md-content input, .mha-controls, .md-clipboard, .md-content a[download]')]
        .filter(e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden')
        .map(e => e.outerHTML.slice(0, 80))""")
    assert shown == []


def test_print_shows_every_frame_large_enough_and_labelled(printed, checked_frames):
    figures = [f for f in _figures(printed) if len(f["frames"]) > 1]
    assert figures, "the page has figures with frames"
    smallest = smallest_by_file(checked_frames)
    for f in figures:
        assert all(fr["visible"] for fr in f["frames"]), f"{f['id']}: a frame is hidden in print"
        narrow = [round(fr["width"]) for fr in f["frames"] if fr["width"] < MIN_FRAME_PX]
        assert not narrow, f"{f['id']}: frames {narrow} px wide, under {MIN_FRAME_PX}"
        # small multiples on paper: the narrow drawings, their smallest text at least 8 pt
        pt = [(fr["src"], shown_px(*smallest[fr["src"]][:2], fr["width"]) * 0.75) for fr in f["frames"]]
        assert all(src.endswith(".narrow.svg") and size >= PRINT_PT for src, size in pt), (f["id"], pt)
        assert all(re.search(r".[：:] \S|.：\S", fr["label"]) for fr in f["frames"]), \
            f"{f['id']}: every frame is labelled with its control and value: {[fr['label'] for fr in f['frames']]}"


def test_print_keeps_a_page_sized_figure_whole(printed):
    for f in _figures(printed):
        if len(f["frames"]) <= 8:  # more rows than a page holds may break between rows
            assert f["breakInside"] == "avoid", f"{f['id']} may be split across pages"


def test_print_says_nothing_about_the_slider(printed):
    text = printed.evaluate("() => document.querySelector('.md-content').innerText")
    assert not SLIDER_WORDS.findall(text), [text[max(0, m.start() - 30):m.end() + 30]
                                            for m in SLIDER_WORDS.finditer(text)]


def test_screen_keeps_its_own_words_and_hides_the_print_ones(browser, served):
    page = browser.new_page()
    page.goto(served + "one-head-blends/", wait_until="networkidle")
    text = page.evaluate("() => document.querySelector('.md-content').innerText")
    page.close()
    assert "滑块" in text and "逐帧画出" not in text


def _search(page, query: str) -> list[str]:
    page.fill(".md-search__input", query)
    page.wait_for_function("document.querySelectorAll('.md-search-result__item').length > 0", timeout=20000)
    return page.eval_on_selector_all(".md-search-result__item > a", "as => as.map(a => a.href)")


def test_offline_copy_searches_and_follows_links_from_disk(browser, offline_site):
    page = browser.new_page()
    errors, requests = [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto((offline_site / "index.html").as_uri(), wait_until="load")
    zh_hits = _search(page, "头")
    en_hits = _search(page, "softmax")
    assert zh_hits and en_hits
    assert all(h.startswith("file://") and ".html" in h for h in zh_hits + en_hits)
    page.goto(en_hits[0], wait_until="load")  # a search result, then a link on that page
    assert page.title()
    page.click("a.md-footer__link--next")
    page.wait_for_load_state("load")
    assert page.url.startswith("file://") and page.url.split("#")[0].endswith(".html")
    assert page.locator("figure.mha-figure img, h1").first.is_visible()
    page.close()
    assert errors == []
    assert [r for r in requests if not r.startswith(("file:", "data:", "about:"))] == []


def test_offline_copy_links_to_files_and_ships_its_search_index(offline_site):
    index = (offline_site / "index.html").read_text(encoding="utf-8")
    assert 'href="one-head-blends.html"' in index
    assert (offline_site / "search" / "search_index.js").is_file()
    assert not re.search(r"""src="https?://""", index), "the offline copy loads nothing from a host"


def test_offline_copy_links_its_licences_on_disk_not_on_their_hosts(offline_site):
    for page in ("index.html", "en/index.html", "en/glossary.html"):
        html = (offline_site / page).read_text(encoding="utf-8")
        licences = re.findall(r'href="([^"]*LICENSE[^"]*)"', html)
        assert len(licences) == 2 and all((offline_site / page).parent.joinpath(h).resolve().is_file() for h in licences)
        assert not re.search(r'<a href="https://(creativecommons|opensource)\.org', html), page


def test_normal_build_keeps_its_urls(site):
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="one-head-blends/"' in index
    assert not (site / "search" / "search_index.js").exists()
    assert "iframe-worker" not in index
