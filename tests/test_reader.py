"""What a reader gets in a real browser (Playwright driving Debian's chromium, conftest): no console
error or failed request on any page, a language switch that keeps the reader's place, search in the
page's language, one 404 page in both languages, no layout shift from the slider, hidden frames
fetched only when the reader comes near them (the axe-core audit: tests/test_axe.py).
Skipped without chromium or Playwright, except under CI, where that fails."""

from pathlib import Path

import pytest

from side_by_side import SideBySide

DOCS = Path(__file__).resolve().parents[1] / "docs"
# every page's path below a language's root: index.zh.md -> "", one-head-blends.zh.md -> "one-head-blends/"
PAGES = sorted("" if p.name == "index.zh.md" else p.name.removesuffix(".zh.md") + "/" for p in DOCS.glob("*.zh.md"))
LANG_ROOT = {"zh": "", "en": "en/"}


def _watched(page):
    """The tab, noting every console error, page error, failed request and HTTP error in page.troubles."""
    page.troubles = []
    page.on("console", lambda m: page.troubles.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: page.troubles.append(f"page error: {e}"))
    # a load the browser itself cancels (ERR_ABORTED: a lazy image when the tab moves on) is no failure;
    # a missing file still shows as its HTTP status
    page.on("requestfailed", lambda r: page.troubles.append(f"failed: {r.url} ({r.failure})")
            if "ERR_ABORTED" not in (r.failure or "") else None)
    page.on("response", lambda r: page.troubles.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    return page


@pytest.fixture(scope="module")
def reader(browser):
    """One tab that notes every console error, page error, failed request and HTTP error."""
    page = _watched(browser.new_page(viewport={"width": 1280, "height": 900}))
    yield page
    page.close()


@pytest.fixture(scope="module")
def troubles_by_lang(browser, served):
    """What a watched tab (as reader's) notes going through every page of a language, and the 404
    page: a tab per language, the two going through their pages side by side."""
    tabs = SideBySide(browser, {lang: {"viewport": {"width": 1280, "height": 900}, "service_workers": "allow"}
                                for lang in LANG_ROOT})  # a reader's tab: the offline worker keeps the page
    for tab in tabs.tabs.values():
        _watched(tab)
    for path in [*PAGES, None]:
        tabs.goto(lambda lang: served + ("404.html" if path is None else LANG_ROOT[lang] + path), wait_until="networkidle")
        tabs.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")  # the lazy images below the fold too
        for tab in tabs.tabs.values():
            tab.wait_for_load_state("networkidle")
    troubles = {lang: tab.troubles for lang, tab in tabs.tabs.items()}
    tabs.close()
    return troubles


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_page_logs_an_error_or_fails_a_request(troubles_by_lang, lang):
    assert troubles_by_lang[lang] == [], "\n".join(troubles_by_lang[lang])


def _switch(page, to: str) -> str:
    """Follow the language menu's link to `to`, as a click does; the URL landed on (known once the
    browser has the twin's answer: the twin's own loading is test_no_page_logs_an_error_or_fails_a_request's)."""
    with page.expect_navigation(wait_until="commit"):
        page.locator(f"a.md-select__link[hreflang|={to}]").dispatch_event("click")
    return page.url


@pytest.mark.parametrize("lang, other", [("zh", "en"), ("en", "zh")])
def test_the_language_switch_lands_on_the_twin_at_the_same_anchor(reader, served, lang, other):
    reader.troubles.clear()
    for path in PAGES:
        reader.goto(served + LANG_ROOT[lang] + path, wait_until="domcontentloaded")  # images hold their room
        ids = reader.eval_on_selector_all(".md-content h2[id], .md-content h3[id], .md-content figure[id]",
                                          "es => es.map(e => e.id)")
        # without an anchor in the address: the place the reader scrolled to, a heading or figure at
        # the top of the screen with the next one more than half a screen below it
        place = reader.evaluate("""ids => ids.find((id, k) => k + 1 < ids.length &&
            document.getElementById(ids[k + 1]).getBoundingClientRect().top
            - document.getElementById(id).getBoundingClientRect().top > window.innerHeight / 2)""", ids)
        if place:
            reader.evaluate("id => document.getElementById(id).scrollIntoView()", place)
        assert _switch(reader, other) == served + LANG_ROOT[other] + path + ("#" + place if place else "")
        if ids:  # an address with an anchor, as a citation gives it
            anchor = ids[-1]
            reader.goto(served + LANG_ROOT[lang] + path + "#" + anchor, wait_until="domcontentloaded")
            assert _switch(reader, other) == served + LANG_ROOT[other] + path + "#" + anchor
    assert reader.troubles == []


def _hits(page, query: str) -> list[str]:
    """The search results for `query`, typed again until the index has loaded (20 s at most); its
    last letter is typed as a key, which Material's search listens for."""
    for _ in range(20):
        page.fill(".md-search__input", query[:-1])
        page.type(".md-search__input", query[-1])
        try:
            page.wait_for_function("document.querySelectorAll('.md-search-result__item').length > 0", timeout=1000)
        except Exception:  # playwright's TimeoutError: the index is still loading
            continue
        return page.eval_on_selector_all(".md-search-result__item > a", "as => as.map(a => a.href)")
    raise AssertionError(f"no result for {query!r}")


@pytest.mark.parametrize("lang, queries", [
    ("zh", ["softmax", "多头", "投影", "Voita"]),
    ("en", ["softmax", "Voita", "proj", "concatenat"]),  # prefixes are found too
])
def test_search_finds_only_pages_of_the_page_language(reader, served, lang, queries):
    reader.troubles.clear()
    reader.goto(served + LANG_ROOT[lang] + "one-head-blends/", wait_until="networkidle")
    for query in queries:
        hits = _hits(reader, query)
        en_hits = [h for h in hits if h.startswith(served + "en/")]
        assert en_hits == (hits if lang == "en" else []), (query, hits)
    assert reader.troubles == []


def test_the_404_page_speaks_both_languages_and_leads_to_each_home(reader, served):
    reader.goto(served + "404.html", wait_until="networkidle")
    assert reader.evaluate("document.documentElement.lang") == "zh-Hans"
    texts = reader.eval_on_selector_all(".md-content [lang]", "es => es.map(e => [e.lang, e.innerText])")
    assert {lang for lang, _ in texts} == {"zh-Hans", "en"}
    # written from the site's root, which <base> names (tests/test_not_found.py: at any address)
    menu = reader.eval_on_selector_all("a.md-select__link", "as => as.map(a => [a.hreflang, a.href])")
    assert sorted(menu) == [["en", served + "en/"], ["zh-Hans", served]]
    links = reader.eval_on_selector_all(".md-content a", "as => as.map(a => a.href)")
    assert links == [served, served + "en/"]



CLS = """() => new Promise(done => {
    let sum = 0;
    new PerformanceObserver(list => list.getEntries().forEach(e => { if (!e.hadRecentInput) sum += e.value; }))
        .observe({type: "layout-shift", buffered: true});
    setTimeout(() => done(sum), 500);
})"""


@pytest.mark.parametrize("width", [1280, 390])
def test_the_slider_script_shifts_nothing_and_keeps_its_row_on_one_line(browser, served, width):
    page = browser.new_page(viewport={"width": width, "height": 800})
    for path in ("slicing-the-width/", "en/slicing-the-width/", "one-head-blends/", "en/what-it-costs/"):
        page.goto(served + path, wait_until="networkidle")
        assert page.evaluate(CLS) < 0.05, path  # Material alone shifted the layout by up to 0.36
        rows = page.eval_on_selector_all(".mha-controls", """rs => rs.map(r => [...r.querySelectorAll(
            'button, input, output')].map(e => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2)))""")
        assert rows and all(len(r) == 4 and max(r) - min(r) <= 2 for r in rows), (path, rows)  # ‹ slider › value
        shown = page.eval_on_selector_all(".mha-frames.mha-js", """bs => bs.map(b => [b.previousElementSibling
            .getBoundingClientRect().height, [...b.children].filter(f => getComputedStyle(f).visibility === 'visible').length])""")
        assert shown and all(height > 0 and visible == 1 for height, visible in shown), (path, shown)  # a stepper
    page.close()


# Every value of every slider on the page, shown in turn: the name and the value that do not show
# whole (wider or taller than their box, the rest hidden, an ellipsis or a clipped line in its place).
NOT_WHOLE = """() => [...document.querySelectorAll('.mha-controls')].flatMap(row => {
    const range = row.querySelector('input[type=range]');
    const figure = row.closest('figure').id;
    const found = [];
    for (let k = 0; k <= Number(range.max); k++) {
        range.value = k;
        range.dispatchEvent(new Event('input'));
        for (const e of row.querySelectorAll('label, output')) {
            if (e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight)
                found.push(`${figure} ${e.tagName}: ${e.textContent} (${e.scrollWidth}x${e.scrollHeight} in ${e.clientWidth}x${e.clientHeight})`);
        }
    }
    return found.length ? found : [row.querySelectorAll('label, output').length === 2 ? null : `${figure}: no name or value`];
}).filter(Boolean)"""


def test_every_slider_shows_its_name_and_each_value_whole_on_a_phone(browser, served):
    page = browser.new_page(viewport={"width": 390, "height": 800})
    found, rows = [], 0
    for lang, root in LANG_ROOT.items():
        for path in PAGES:
            # the page's styles are in force and its deferred scripts have built the controls once its
            # document has loaded; the names and values are set in the system's fonts, so no later
            # load changes their boxes (its images are left loading: the next page stops them)
            page.goto(served + root + path, wait_until="domcontentloaded")
            rows += page.eval_on_selector_all(".mha-controls", "rs => rs.length")
            found += [f"{root + path} {f}" for f in page.evaluate(NOT_WHOLE)]
    page.close()
    assert rows > 10 and found == []


def test_a_hidden_frame_is_fetched_only_when_the_reader_comes_near_it(browser, served):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    fetched = []
    page.on("request", lambda r: fetched.append(r.url[len(served):]) if "/figures/" in r.url else None)
    page.goto(served + "slicing-the-width/", wait_until="networkidle")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_load_state("networkidle")
    hidden = page.eval_on_selector_all(".mha-frames.mha-js > .mha-frame:not(.is-current) img",
                                       "is => is.map(i => (i.dataset.src || i.getAttribute('src')).replace(/^(\\.\\.\\/)+/, ''))")
    assert hidden and not [f for f in fetched if any(f.endswith(h) for h in hidden)], fetched
    # the reader reaches for a slider: the frames one step either side come, and a step shows one
    figure = page.locator("#fig-width-slices")
    frames = figure.locator(".mha-frame")
    start = int(figure.locator(".mha-frames").get_attribute("data-start"))
    figure.locator(".mha-controls").hover()
    page.wait_for_load_state("networkidle")
    near = [frames.nth(k).locator("img").first.get_attribute("src") for k in (start - 1, start + 1) if 0 <= k < frames.count()]
    assert near and all(near), near
    figure.locator(".mha-next").click()
    loaded = frames.nth(start + 1).locator("img").first.evaluate("i => i.complete && i.naturalWidth > 0")
    assert loaded
    page.close()


def test_without_script_and_in_print_every_frame_is_shown(browser, served, checked_frames):
    """No script: every frame, each its narrow drawing, its smallest text at least 7 pt."""
    from test_legibility import MULTIPLE_PT, shown_px, smallest_by_file
    smallest = smallest_by_file(checked_frames)
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(served + "slicing-the-width/", wait_until="networkidle")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_load_state("networkidle")
    frames = page.eval_on_selector_all("#fig-width-slices .mha-frame", """fs => fs.map(f => [...f.querySelectorAll('img')]
        .filter(i => i.getClientRects().length).map(i => [i.getBoundingClientRect().height,
            new URL(i.currentSrc || i.src).pathname.replace(/^\\//, ''), i.getBoundingClientRect().width]))""")
    assert len(frames) > 1 and all(len(f) == 1 and f[0][0] > 0 for f in frames), frames  # one image each, laid out
    pt = [(src, shown_px(*smallest[src][:2], width) * 0.75) for (_, src, width), in frames]
    assert all(src.endswith(".narrow.svg") and size >= MULTIPLE_PT for src, size in pt), pt
    context.close()


ANIMATIONS = """() => document.getAnimations().map(a => `${a.effect.target.className} ${a.transitionProperty || a.animationName}`)"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_reader_who_asks_for_less_motion_sees_none(browser, served, motion):
    """Stepping a slider, switching the scheme and opening the menu on a phone: Material's
    transitions run, unless the reader's system asks for reduced motion (the slider has none)."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, reduced_motion=motion)
    page.goto(served + "one-head-blends/", wait_until="networkidle")
    seen = []
    page.locator("#fig-blend-rows .mha-next").click()
    seen += page.evaluate(ANIMATIONS)
    page.locator("label.md-header__button[for^='__palette']:visible").first.click()
    seen += page.evaluate(ANIMATIONS)
    page.locator("label.md-header__button[for='__drawer']").click()
    seen += page.evaluate(ANIMATIONS)
    page.close()
    assert (seen == []) == (motion == "reduce"), seen
