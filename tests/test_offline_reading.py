"""A page read online keeps working offline (figures/site/offline_reading.py, its service worker
offline-worker.js and docs/assets/mha-offline.js), in a real browser: every frame of every slider,
in both schemes, and the page itself on the next visit; with the browser asking to save data,
nothing is fetched beyond the first view. Skipped without chromium or Playwright, except under CI."""

import posixpath
import re
import zipfile

import pytest

from figures.site import language
from serving import static_site
from test_reader import _hits, _watched

PAGE = "one-head-blends/"


@pytest.fixture(scope="module")
def served(site):
    """conftest's `served`, the same build, but every answer says Cache-Control: no-store: offline,
    only the worker's cache can answer, as on a host whose answers have gone stale (GitHub Pages
    keeps them fresh for 10 minutes), not the browser's own HTTP cache."""
    with static_site(site, {"Cache-Control": "no-store"}) as url:
        yield url
LANG_ROOT = {"zh": "", "en": "en/"}
SAVE_DATA = "Object.defineProperty(navigator, 'connection', {get: () => ({saveData: true})})"

# Every figure image the page shows now, each brought into view (a lazy image loads there) and
# waited for: those not drawn (a broken image has no natural width).
BROKEN_IMAGES = """async () => {
    const shown = [...document.querySelectorAll('.mha-figure img')].filter(i => i.offsetParent !== null && getComputedStyle(i).visibility === 'visible');
    const broken = [];
    for (const i of shown) {
        i.scrollIntoView();
        if (!i.complete) await new Promise(settled => {
            i.addEventListener('load', settled, {once: true});
            i.addEventListener('error', settled, {once: true});
        });
        if (!(i.complete && i.naturalWidth > 0)) broken.push(i.currentSrc || i.src);
    }
    return shown.length ? broken : ['no figure image shown'];
}"""


def _wait_until_kept(page):
    """Until mha-offline.js says the worker kept every file the page listed."""
    page.wait_for_function("document.documentElement.dataset.mhaOffline", timeout=60000)
    assert page.evaluate("document.documentElement.dataset.mhaOffline") == "kept"


def _every_frame_shown_is_drawn(page) -> int:
    """Step every slider of the page through all its frames, checking the images shown at each; the
    number of frames seen."""
    seen = 0
    figures = page.locator(".mha-figure:has(.mha-frames.mha-js)")
    for k in range(figures.count()):
        figure = figures.nth(k)
        figure.scroll_into_view_if_needed()
        frames = figure.locator(".mha-frame").count()
        figure.locator("input[type=range]").evaluate(
            "r => { r.value = 0; r.dispatchEvent(new Event('input')); }")
        for i in range(frames):
            if i:
                figure.locator(".mha-next").click()
            img = figure.locator(".mha-frame.is-current picture:visible img")
            img.evaluate("""i => i.complete || new Promise(settled => {
                i.addEventListener('load', settled, {once: true}); i.addEventListener('error', settled, {once: true}); })""")
            assert img.evaluate("i => i.complete && i.naturalWidth > 0"), (k, i, img.evaluate("i => i.currentSrc"))
            seen += 1
    return seen


@pytest.mark.parametrize("lang, width", [("zh", 1280), ("en", 390)])  # both languages, wide and narrow drawings
def test_a_page_read_online_keeps_every_frame_and_scheme_offline(browser, served, lang, width):
    context = browser.new_context(viewport={"width": width, "height": 900}, service_workers="allow")
    page = _watched(context.new_page())
    url = served + LANG_ROOT[lang] + PAGE
    page.goto(url, wait_until="load")
    _wait_until_kept(page)
    context.set_offline(True)
    try:
        seen = {}
        for scheme in ("default", "slate"):  # light, then Material's dark scheme, as its toggle sets it
            page.evaluate("s => document.body.setAttribute('data-md-color-scheme', s)", scheme)
            seen[scheme] = _every_frame_shown_is_drawn(page)
            assert page.evaluate(BROKEN_IMAGES) == [], scheme
        assert seen["default"] == seen["slate"] > 1
        # the next visit, still offline: the page, its style and script, its search
        page.reload(wait_until="load")
        assert page.locator(".mha-figure").count() > 0
        assert page.evaluate("document.documentElement.classList.contains('js')")  # Material's script ran
        assert page.evaluate("getComputedStyle(document.querySelector('.md-header')).position") in ("sticky", "fixed")
        assert page.evaluate(BROKEN_IMAGES) == []
        assert _hits(page, "softmax")  # search: Material's worker, its lunr files, this language's index
        assert page.troubles == []
    finally:
        context.close()


OFFLINE_H1 = {"zh": "这一页没有保存在本机，离线时打不开", "en": "This page is not saved for reading offline"}
NO_PAGE_KEPT = {"zh": "本机还没有保存任何页面。", "en": "No page is saved yet."}


def _offline_page(page, url: str, lang: str) -> list[tuple[str, str]]:
    """Open `url` offline: the worker's offline page in `lang` at that address, styled, and the kept
    pages it lists (link, title)."""
    response = page.goto(url, wait_until="load")
    assert response.status == 503 and page.url == url
    assert page.evaluate("document.documentElement.lang") == {"zh": "zh-Hans"}.get(lang, lang)
    assert page.inner_text(".md-content h1") == OFFLINE_H1[lang]
    assert page.evaluate("getComputedStyle(document.querySelector('.md-header')).position") in ("sticky", "fixed")
    page.wait_for_function("document.querySelector('[data-mha-kept]').children.length || "
                           "!document.querySelector('[data-mha-none]').hidden")  # the cache read
    page.wait_for_timeout(300)  # every title read
    return [tuple(k) for k in page.eval_on_selector_all("[data-mha-kept] a", "as => as.map(a => [a.href, a.textContent])")]


def test_offline_a_page_not_kept_says_so_in_its_language_the_glossary_is_kept_and_search_marks_the_rest(browser, served):
    """A page read online, then offline: a page never visited, and the English twin of the one read,
    get the site's offline page in their address's language, listing the pages kept (the glossary the
    page links among them); the glossary opens; search marks the results whose page is not kept."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="allow")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    page.on("requestfailed", lambda r: errors.append(f"failed: {r.url} ({r.failure})")  # as test_reader._watched
            if "ERR_ABORTED" not in (r.failure or "") else None)
    page.goto(served + PAGE, wait_until="load")
    title = page.inner_text(".md-content h1").rstrip("¶").strip()
    _wait_until_kept(page)
    context.set_offline(True)
    try:
        kept = _offline_page(page, served + "what-it-costs/", "zh")
        assert (served + PAGE, title) in kept and (served + "glossary/", "术语表") in kept, kept
        assert all(not u.startswith(served + "en/") for u, _ in kept)
        assert page.get_attribute(".md-content a:text('回到首页')", "href") == "./"  # from the site's root, its <base>
        assert _offline_page(page, served + "en/" + PAGE, "en") == []  # the twin: English, nothing English kept
        assert page.inner_text("[data-mha-none]") == NO_PAGE_KEPT["en"]
        page.goto(served + "glossary/", wait_until="load")
        assert page.inner_text(".md-content h1").startswith("术语表")  # kept with the page that links it
        page.goto(served + PAGE, wait_until="load")
        hits = _hits(page, "softmax")
        page.wait_for_function("[...document.querySelectorAll('.md-search-result__link')].every(a => a.dataset.mhaKept)")
        marks = page.eval_on_selector_all(".md-search-result__link", "as => as.map(a => [a.href.split(/[?#]/)[0], a.dataset.mhaKept])")
        assert {u for u, mark in marks if mark == "yes"} <= {served + PAGE, served + "glossary/"} and len(marks) >= len(hits) > 1
        assert any(mark == "no" for _, mark in marks) and any(mark == "yes" for _, mark in marks), marks
        assert page.inner_text(".md-search-result__link[data-mha-kept='no'] .mha-not-kept") == "未保存，离线时打不开"
        assert errors == [], "\n".join(errors)
    finally:
        context.close()


def test_the_worker_serves_under_one_scope_for_both_languages(browser, served):
    context = browser.new_context(service_workers="allow")
    page = context.new_page()
    page.goto(served + "en/" + PAGE, wait_until="load")
    _wait_until_kept(page)
    scope = page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.scope)")
    assert scope == served  # the site's root: the zh pages at / and the en pages at /en/
    context.close()


def test_a_browser_saving_data_fetches_nothing_for_offline(browser, served):
    """With navigator.connection.saveData, the page fetches what a first view fetches, no more."""
    context = browser.new_context(service_workers="allow")
    context.add_init_script(SAVE_DATA)
    page = context.new_page()
    fetched = []
    page.on("request", lambda r: fetched.append(r.url))
    page.goto(served + PAGE, wait_until="load")
    page.wait_for_function("document.documentElement.dataset.mhaOffline")
    assert page.evaluate("document.documentElement.dataset.mhaOffline") == "save-data"
    page.wait_for_load_state("networkidle")
    hidden = page.eval_on_selector_all("img[data-src]:not([src]), source[data-srcset]:not([srcset])",
                                       "es => es.map(e => new URL(e.dataset.src || e.dataset.srcset, document.baseURI).href)")
    assert hidden
    assert not [u for u in fetched if u in hidden or u.endswith(("/sw.js", "/mha-offline.js"))], fetched
    assert page.evaluate("navigator.serviceWorker.getRegistration().then(r => r === undefined)")
    context.close()


# ---- the builds: a worker for the whole site, the zip offered where there is one ----------------

WORKER_META = re.compile(r'<meta name="mha-worker" content="([^"]+)" data-script="([^"]+)">')
ZIP_LINK = re.compile(r'<div class="mha-offline-zip">\s*<a href="([^"]+)" download>([^<]+)</a>')


def _pages(site):
    """Every page of both languages, as (its path in the site, its language, its HTML); the 404
    and offline pages (404.html, offline.html, en/...), whose links start from a <base> set where
    they are served, aside."""
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        if path.name not in language.SERVED_ANYWHERE:
            yield rel, "en" if rel.startswith("en/") else "zh", path.read_text(encoding="utf-8")


def _target(site, rel, href):
    return (site / posixpath.normpath(posixpath.join(posixpath.dirname(rel), href))).resolve()


def test_under_a_sub_path_every_page_registers_the_one_worker_and_offers_the_zip(sub_path_site):
    seen = set()
    for rel, lang, html in _pages(sub_path_site):
        worker = WORKER_META.search(html)
        assert worker and _target(sub_path_site, rel, worker[1]) == (sub_path_site / "sw.js").resolve(), rel
        assert _target(sub_path_site, rel, worker[2]) == (sub_path_site / "assets" / "mha-offline.js").resolve(), rel
        link = ZIP_LINK.search(html)
        assert link and _target(sub_path_site, rel, link[1]) == (sub_path_site / "mha-offline.zip").resolve(), rel
        assert ("离线" in link[2]) == (lang == "zh") and ("offline" in link[2]) == (lang == "en"), (rel, link[2])
        assert re.search(r"\(zip, \d+ KB\)|（zip，\d+ KB）", link[2]), link[2]  # its size
        seen.add(lang)
    assert seen == {"zh", "en"}
    assert zipfile.ZipFile(sub_path_site / "mha-offline.zip").namelist() == ["index.html"]


def test_a_build_without_a_zip_offers_none_and_versions_its_worker(site, sub_path_site):
    assert not (site / "mha-offline.zip").exists()
    assert not [rel for rel, _, html in _pages(site) if "mha-offline-zip" in html]
    assert all(WORKER_META.search(html) for _, _, html in _pages(site))
    version = re.compile(r'const BUILD = \{"version": "([0-9a-f]{16})"')
    versions = {s: version.search((s / "sw.js").read_text(encoding="utf-8"))[1] for s in (site, sub_path_site)}
    assert versions[site] != versions[sub_path_site]  # two builds, two caches


def test_the_built_worker_names_its_cache_by_the_built_sites_own_files(site):
    """The version in the site's sw.js (its cache's name: tests/test_offline_worker.py) is the digest
    of the files the build left, so no step after the worker is written changes a file under it."""
    from figures.site import offline_reading
    version = re.search(r'const BUILD = \{"version": "([0-9a-f]{16})"', (site / "sw.js").read_text(encoding="utf-8"))
    assert version and version[1] == offline_reading.build_digest(site)


def test_the_offline_copy_registers_no_worker_from_disk(browser, offline_site):
    assert not (offline_site / "sw.js").exists()
    assert not [rel for rel, _, html in _pages(offline_site) if "mha-worker" in html or "mha-offline-zip" in html]
    page = browser.new_page(service_workers="allow")  # as a reader's: a worker could register if the page asked
    troubles, requests = [], []
    page.on("pageerror", lambda e: troubles.append(str(e)))
    page.on("console", lambda m: troubles.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: requests.append(r.url))
    page.goto((offline_site / "one-head-blends.html").as_uri(), wait_until="load")
    page.evaluate("new Promise(done => requestIdleCallback(() => setTimeout(done, 100)))")  # after mha-page.js's idle turn
    assert page.evaluate("document.documentElement.dataset.mhaOffline") is None
    assert not [u for u in requests if u.endswith("sw.js")]
    assert page.evaluate(BROKEN_IMAGES) == [] and troubles == []
    page.close()
