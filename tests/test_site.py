"""The built site: strict build, language twins, anchors, search, math, and no third-party host."""

import json
import re
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest
from bs4 import BeautifulSoup

from built_pages import parsed
from site_builds import SUB_PATH_URL
from figures.publish import numbering
from figures.engine import registry
from figures.publish.identity import IDENTITY

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
ZH_PAGES = sorted(DOCS.rglob("*.zh.md"))


def _config():
    return numbering.mkdocs_config()  # !ENV read as MkDocs reads it, !python tags ignored


SITE_HOST = urlparse(IDENTITY.site_url).netloc


def _html(site, rel):
    return parsed(site / rel)


def _built(page: Path, lang: str) -> str:
    """docs/a/b.zh.md -> a/b/index.html (zh) or en/a/b/index.html."""
    stem = page.relative_to(DOCS).as_posix().removesuffix(".zh.md")
    rel = "index.html" if stem == "index" else f"{stem.removesuffix('/index')}/index.html"
    return rel if lang == "zh" else f"en/{rel}"


def test_every_zh_page_has_an_en_twin_and_back():
    zh = {p.as_posix().removesuffix(".zh.md") for p in DOCS.rglob("*.zh.md")}
    en = {p.as_posix().removesuffix(".en.md") for p in DOCS.rglob("*.en.md")}
    assert zh and zh == en


def test_every_heading_carries_an_explicit_english_id():
    for page in DOCS.rglob("*.md"):
        in_code = False
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith("```"):
                in_code = not in_code
            if not in_code and re.match(r"#{1,6} ", line):
                assert re.search(r"\{#[a-z0-9][a-z0-9-]*\}\s*$", line), f"{page.name}: {line}"


@pytest.mark.parametrize("page", ZH_PAGES, ids=lambda p: p.name)
def test_twins_share_figures_and_anchors_in_order(site, page):
    zh, en = _html(site, _built(page, "zh")), _html(site, _built(page, "en"))

    def ids(soup, selector):
        return [el["id"] for el in soup.select(selector) if el.get("id")]

    assert ids(zh, "figure.mha-figure") == ids(en, "figure.mha-figure")
    assert ids(zh, "article h1, article h2, article h3, article h4") == \
        ids(en, "article h1, article h2, article h3, article h4")
    assert ids(zh, "article [id]") == ids(en, "article [id]")


@pytest.mark.parametrize("page", ZH_PAGES, ids=lambda p: p.name)
def test_language_switch_lands_on_the_same_page(site, page):
    for lang, other in (("zh", "en"), ("en", "zh")):
        rel = _built(page, lang)
        links = {a["hreflang"].split("-")[0]: a["href"] for a in _html(site, rel).select("a.md-select__link")}
        target = urlparse(links[other]).path
        here = (site / rel).parent
        resolved = (site / target.lstrip("/")) if target.startswith("/") else (here / target)
        assert resolved.resolve() / "index.html" == (site / _built(page, other)).resolve()


# the language menu as Material's partials/alternate.html writes it, its links from the host's root
# as mkdocs-static-i18n gives them (a site under a sub-path has that path in front)
MENU_ITEM = '<li class="md-select__item">\n  <a href="{href}" hreflang="{lang}" class="md-select__link">\n    {name}\n  </a>\n</li>'
SITE_URLS = ["https://owner.example.io/repo/", "https://owner.example.io/a/b/", "https://example.org/", None]
MENU_PAGES = ["", "one-head-blends/", "sub/deeper/"]  # the zh page's url; its en twin is en/<it>


def _menu_page(root: str, page: str) -> str:
    items = "\n".join(MENU_ITEM.format(href=f"{root}{prefix}{page}", lang=lang, name=name)
                       for lang, prefix, name in (("zh", "", "简体中文"), ("en", "en/", "English")))
    return (f'<html><head><script id="__config" type="application/json">{{"base": "..", "features": []}}</script>'
            f'</head><body><ul class="md-select__list">{items}</ul><a href="/elsewhere/">not the menu</a></body></html>')


def _menu_links(html: str) -> dict[str, str]:
    return {a["hreflang"]: a["href"] for a in BeautifulSoup(html, "html.parser").select("a.md-select__link")}


@pytest.mark.parametrize("site_url", SITE_URLS)
@pytest.mark.parametrize("page", MENU_PAGES)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_language_menu_links_are_relative_and_land_on_the_twins_under_a_sub_path(site_url, page, lang):
    """The menu's root-absolute links made relative (figures/site/language.py), for a page served at
    any depth of a site at a host's root or under a sub-path: each link resolves, as a browser
    resolves it (urljoin), from the page's own address to its twin's."""
    from figures.site import language
    base = site_url or "http://127.0.0.1:8000/"
    root = urlparse(base).path  # "/repo/" under a sub-path
    page_url = page if lang == "zh" else f"en/{page}"
    html = language.relative_menu_links(_menu_page(root, page), page_url, site_url)
    links = _menu_links(html)
    assert set(links) == {"zh", "en"}
    for twin_lang, href in links.items():
        assert not href.startswith("/") and not urlparse(href).scheme, f"page {page_url!r}: menu link {href!r} is not relative"
        twin = page if twin_lang == "zh" else f"en/{page}"
        assert urljoin(base + page_url, href) == base + twin, (page_url, href)
    assert '<a href="/elsewhere/">' in html  # links outside the menu are not the menu's to change


def test_the_post_page_hook_makes_the_menu_relative(monkeypatch):
    """The build's own hook (figures/site/hooks.py on_post_page) applies it, in both languages."""
    import types
    from figures.site import hooks
    site_url = "https://owner.example.io/repo/"
    for lang, page_url in (("zh", "one-head-blends/"), ("en", "en/one-head-blends/")):
        languages = [types.SimpleNamespace(locale=locale) for locale in ("zh", "en")]
        i18n = types.SimpleNamespace(current_language=lang, default_language="zh",
                                     config=types.SimpleNamespace(languages=languages))
        config = types.SimpleNamespace(site_url=site_url, plugins={"i18n": i18n})
        out = hooks.on_post_page(_menu_page("/repo/", "one-head-blends/"), types.SimpleNamespace(url=page_url), config)
        assert sorted(_menu_links(out)) == ["en", "zh-Hans"]
        for twin_lang, href in _menu_links(out).items():
            twin = "one-head-blends/" if twin_lang == "zh-Hans" else "en/one-head-blends/"
            assert urljoin(site_url + page_url, href) == site_url + twin and not href.startswith("/"), href
        twins = {link["hreflang"]: link["href"] for link in BeautifulSoup(out, "html.parser").select("head link[hreflang]")}
        assert twins == {"zh-Hans": site_url + "one-head-blends/", "en": site_url + "en/one-head-blends/",
                         "x-default": site_url + "one-head-blends/"}


def test_figures_are_in_the_page_language_and_exist(site):
    for page in ZH_PAGES:
        for lang in ("zh", "en"):
            rel = _built(page, lang)
            for img in _html(site, rel).select("figure.mha-figure img, figure.mha-gallery-item img"):
                src = img.get("src") or img["data-src"]  # a frame the slider hides: fetched later
                # the dark picture shows the same file at #dark (figures/engine/dark.py)
                assert src.partition("#")[2] == ("dark" if "mha-dark" in img.parent.get("class", []) else ""), src
                target = ((site / rel).parent / src.partition("#")[0]).resolve()
                assert target.is_file(), src
                lang_root = site if lang == "zh" else site / "en"
                assert target.is_relative_to(lang_root / "figures"), src
                # its box is reserved before it loads: the SVG's own size, pt to CSS px
                w, h = (float(v) * 4 / 3 for v in re.search(r'<svg [^>]*?width="([\d.]+)pt" height="([\d.]+)pt"',
                                                             target.read_text()).groups())
                assert (int(img["width"]), int(img["height"])) == (round(w), round(h)), src
    zh_svg, en_svg = site / "figures/peak-dip.svg", site / "en/figures/peak-dip.svg"
    assert zh_svg.read_bytes() != en_svg.read_bytes()  # the words differ


def test_figures_have_frames_numbers_and_captions(site):
    soup = _html(site, "index.html")
    width = soup.select_one("#fig-width-slices")
    assert len(width.select(".mha-frame")) == 4
    assert width.select_one(".mha-frames")["data-label-control"] == "头数 h"
    # the first figure that page 2 (slicing-the-width) explains, reused on the home page
    assert width.select_one("figcaption .mha-fig-num").get_text() == "图 2.1"
    assert "（详见第 2 页“切开宽度”）" in width.select_one("figcaption").get_text()
    en = _html(site, "en/index.html").select_one("#fig-width-slices")
    assert en.select_one(".mha-frames")["data-label-control"] == "number of heads h"
    assert en.select_one("figcaption .mha-fig-num").get_text() == "Figure 2.1"
    assert "(explained on page 2, Slicing the width)" in en.select_one("figcaption").get_text()


# one number per figure, site-wide ---------------------------------------------------------------
def _nav_built(lang):
    """The built pages in nav order: (nav entry, path below the site)."""
    return [(entry, _built(DOCS / entry.replace(".md", ".zh.md"), lang)) for entry in _config()["nav"]]


def _placed_numbers(site):
    """For every language and page in nav order: [(figure id, number text, resolved link)]."""
    found = {}
    for lang, word in (("zh", "图 "), ("en", "Figure ")):
        for entry, rel in _nav_built(lang):
            rows = []
            for fig in _html(site, rel).select("figure.mha-figure"):
                num = fig.select_one("figcaption .mha-fig-num")
                assert num.get_text().startswith(word), (rel, num.get_text())
                link = urlparse(num["href"])
                target = (site / rel).parent / link.path if link.path else site / rel
                if target.is_dir():
                    target = target / "index.html"
                rows.append((fig["id"].removeprefix("fig-"), num.get_text().removeprefix(word),
                             (target.resolve().relative_to(site.resolve()).as_posix(), link.fragment)))
            found[lang, entry] = rows
    return found


def _home(found, lang, fig_id):
    """The page that explains a figure: the first page in nav order after the front page placing it."""
    order = [entry for (lg, entry) in found if lg == lang]
    for entry in order[1:] + order[:1]:
        if fig_id in [row[0] for row in found[lang, entry]]:
            return entry


def test_every_figure_has_one_number_on_every_page_and_in_both_languages(site):
    found = _placed_numbers(site)
    numbers: dict[str, set[str]] = {}
    for rows in found.values():
        for fig_id, number, _ in rows:
            numbers.setdefault(fig_id, set()).add(number)
    assert set(numbers) == set(registry.ORDER)  # every figure is placed somewhere
    assert all(len(n) == 1 for n in numbers.values()), {k: v for k, v in numbers.items() if len(v) > 1}
    assert len({n.pop() for n in numbers.values()}) == len(numbers)  # different figures, different numbers


def test_a_reused_figure_links_its_number_back_to_the_page_that_explains_it(site):
    found = _placed_numbers(site)
    reuses = 0
    for (lang, entry), rows in found.items():
        for fig_id, _, (target, fragment) in rows:
            home = _home(found, lang, fig_id)
            assert fragment == f"fig-{fig_id}"
            assert target == _built(DOCS / home.replace(".md", ".zh.md"), lang), (lang, entry, fig_id)
            assert _html(site, target).select_one(f"figure#fig-{fig_id}")
            reuses += home != entry
    assert reuses  # the front page previews figures that later pages explain


def test_a_page_numbers_the_figures_it_explains_in_order(site):
    found = _placed_numbers(site)
    for lang in ("zh", "en"):
        content = [entry for (lg, entry) in found if lg == lang][1:]  # the front page is not counted
        for page_number, entry in enumerate(content, 1):
            own = [number for fig_id, number, _ in found[lang, entry] if _home(found, lang, fig_id) == entry]
            assert own == [f"{page_number}.{k}" for k in range(1, len(own) + 1)], (lang, entry, own)


def test_reference_titles_ending_in_a_question_mark_get_no_extra_full_stop(site):
    from mha_ref import models
    for lang in ("zh", "en"):
        refs = _html(site, _built(DOCS / "references.zh.md", lang))
        for key, ref in models.REFERENCES.items():
            entry = refs.select_one(f"#{key}").get_text()
            title = entry.split(ref.title, 1)[1]
            assert title.startswith(" " if ref.title[-1] in ".?!" else ". "), (key, entry)


def test_numbers_are_filled_in_and_no_construct_is_left(site):
    for page in ZH_PAGES:
        for lang in ("zh", "en"):
            text = (site / _built(page, lang)).read_text(encoding="utf-8")
            assert "{{" not in text, _built(page, lang)
    from figures.numbers import quantities
    assert f"{quantities.value('gpt2.params'):,}" in (site / "index.html").read_text(encoding="utf-8")


def test_formulas_render_as_mathml_without_a_script(site):
    soup = _html(site, "index.html")
    assert soup.select("math[display=block]") and soup.select("math[display=inline]")
    text = str(soup)
    assert "arithmatex" not in text and "\\(" not in text
    assert not re.search(r"mathjax|katex", " ".join(s.get("src", "") for s in soup.select("script")), re.I)
    raw = []  # TeX left as typed, anywhere but code: a heading's formula in the table of contents, say
    for page in site.rglob("index.html"):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for code in soup.select("pre, code, script"):
            code.decompose()
        raw += [f"{page.relative_to(site)}: {line.strip()}" for line in soup.get_text("\n").splitlines() if "\\(" in line]
    assert raw == []


def _index_words(site, lang: str, but: str = "//") -> tuple[dict, set[str]]:
    """A language's search index (figures/site/language.py splits them) and the words it holds,
    leaving out the pages whose location starts with `but`."""
    index = json.loads((site / ("" if lang == "zh" else f"{lang}/") / "search/search_index.json").read_text(encoding="utf-8"))
    sep = re.compile(index["config"]["separator"])
    return index, set().union(*(sep.split(d["title"] + " " + d["text"].lower()) for d in index["docs"]
                                if not d["location"].startswith(but)))


def test_each_language_searches_its_own_pages_with_chinese_and_english_words(site):
    (zh_index, zh_words), (en_index, en_words) = _index_words(site, "zh"), _index_words(site, "en")
    for index in (zh_index, en_index):
        assert index["config"]["pipeline"] == []  # no stemmer: prefix search finds whole English words
        assert {"zh", "en"} <= set(index["config"]["lang"])
    assert {"注意力", "投影", "查询"} <= zh_words  # jieba cut the Chinese into words
    assert {"attention", "projections", "heads"} <= en_words
    # each index one language; the glossary alone names every term in both, to search by either
    assert "注意力" not in _index_words(site, "en", but="glossary/")[1]
    assert "projections" not in _index_words(site, "zh", but="glossary/")[1]
    assert "注意力" in en_words and "projection" in zh_words
    # every page of its language, located from that language's root
    pages = {p.name.removesuffix(".zh.md") for p in ZH_PAGES}
    for index in (zh_index, en_index):
        found = {d["location"].split("/")[0].split("#")[0] or "index" for d in index["docs"]}
        assert found == pages


def _absolute_urls(text):
    return re.findall(r"""(?:https?:)?//[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}[^\s"'()<>]*""", text)


# Strings inside Material's bundled JavaScript that never cause a request on this site:
# licence comments and messages, and loaders for features the site does not use (asserted below).
INERT_IN_BUNDLED_JS = {
    "github.com", "api.github.com",  # repository facts: only with repo_url, which is not set
    "unpkg.com",  # mermaid and a polyfill: only for mermaid diagrams, which no page has
    "www.w3.org", "www.mozilla.org", "developer.mozilla.org", "people.mozilla.org", "fontawesome.com",
    "clipboardjs.com", "bit.ly", "snowball.tartarus.org", "tartarus.org", "code.google.com",
    "en.wikipedia.org", "wiki.ecmascript.org", "wiki.commonjs.org", "underscorejs.org",
    "narwhaljs.org", "msdn.microsoft.com", "lunrjs.com", "docs.python.org", "chasen.org",
}


# Hosts a page may link to, a link the reader follows and the page never fetches: the licences and
# the source code (the footer).
LINKED_HOSTS = {urlparse(url).netloc for url in
                (IDENTITY.repository, IDENTITY.content_licence_url, IDENTITY.code_licence_url)}


def _only_followed(el) -> bool:
    return el.name == "a" or (el.name == "link" and el.get("rel") == ["license"])


def test_built_site_requests_no_third_party_host(site):
    config = _config()
    assert "repo_url" not in config and config["theme"]["font"] is False
    for path in site.rglob("*"):
        if path.suffix == ".html":
            soup = parsed(path)
            assert not soup.select(".mermaid, pre.mermaid"), path
            for el in soup.find_all(True):
                for attr in ("src", "href", "srcset", "data", "poster", "action", "content"):
                    allowed = {SITE_HOST} | (LINKED_HOSTS if attr == "href" and _only_followed(el) else set())
                    for url in _absolute_urls(str(el.get(attr, ""))):
                        assert urlparse(url if "://" in url else "https:" + url).netloc in allowed, (path, url)
                for url in _absolute_urls(el.get("style", "")):
                    raise AssertionError((path, url))
            for style in soup.find_all("style"):
                assert not _absolute_urls(style.get_text()), path
        elif path.suffix == ".css":
            css = path.read_text(encoding="utf-8")
            for m in re.finditer(r"""(?:url\(\s*['"]?|@import\s+['"])([^'")\s]+)""", css):
                assert not _absolute_urls(m.group(1)), (path, m.group(1))
        elif path.suffix == ".js":
            # minified code is full of "//" in regular expressions: only a scheme makes a URL here
            for url in re.findall(r"https?://[a-zA-Z0-9.-]+", path.read_text(encoding="utf-8")):
                host = urlparse(url).netloc
                assert host == SITE_HOST or host in INERT_IN_BUNDLED_JS, (path, url)


def test_our_own_script_and_style_reach_nothing_outside(site):
    for name in ("mha-figures.js", "mha-figures.css"):
        assert not _absolute_urls((site / "assets" / name).read_text(encoding="utf-8"))


def test_nav_order_home_sections_reference_glossary_gallery_references():
    assert _config()["nav"] == [
        "index.md", "one-head-blends.md", "slicing-the-width.md", "heads-side-by-side.md",
        "what-trained-heads-do.md", "concatenate-then-mix.md", "what-it-costs.md", "the-code.md",
        "attention-today.md", "reference.md", "glossary.md", "gallery.md", "references.md", "changes.md",
    ]


def test_the_code_page_shows_the_real_lines_of_mha_ref(site):
    source = (ROOT / "mha_ref/attention.py").read_text(encoding="utf-8")
    core = source.split("# --8<-- [start:core]\n")[1].split("    # --8<-- [end:core]")[0]
    assert len(core.strip().splitlines()) >= 7
    for lang in ("zh", "en"):
        code = _html(site, _built(DOCS / "the-code.zh.md", lang)).select_one("div.highlight code").get_text()
        for line in core.strip().splitlines():
            assert line.strip() in code, line
    # split_heads and merge_heads, with their shape comments (the section on the reshape and transpose)
    split = source.split("# --8<-- [start:split]\n")[1].split("# --8<-- [end:split]")[0]
    assert "def split_heads" in split and "def merge_heads" in split
    for lang in ("zh", "en"):
        blocks = _html(site, _built(DOCS / "the-code.zh.md", lang)).select("div.highlight code")
        code = next(b.get_text() for b in blocks if "def split_heads" in b.get_text())
        for line in split.strip().splitlines():
            assert line.strip() in code, line


def test_every_cited_work_has_an_anchor_and_every_citing_page_links_it(site):
    from mha_ref import models
    for lang in ("zh", "en"):
        refs = _html(site, _built(DOCS / "references.zh.md", lang))
        assert all(refs.select_one(f"#{key}") for key in models.REFERENCES)
    names = {"voita2019": "Voita", "vaswani2017": "Vaswani", "michel2019": "Michel"}
    for page in DOCS.rglob("*.md"):
        if page.stem.startswith("references"):
            continue
        text = page.read_text(encoding="utf-8")
        for key, name in names.items():
            if name in text:
                assert f"references.md#{key}" in text, f"{page.name} names {name} without linking #{key}"


def test_numbering_counts_content_pages_from_one_and_refuses_twins_that_differ(tmp_path):
    from figures.publish import numbering
    pages = {"index": ["peak-dip", "four-heads"], "a": ["width-slices", "peak-dip"], "b": ["peak-dip", "blend-rows"]}
    for stem, ids in pages.items():
        for lang in ("zh", "en"):
            figures = "\n\n".join(f"{{{{ figure {i} }}}}" for i in ids)
            (tmp_path / f"{stem}.{lang}.md").write_text(f"# {stem} {lang} {{#{stem}}}\n\n{figures}\n", encoding="utf-8")
    numbers = numbering.figure_numbers(tmp_path, ["index.md", "a.md", "b.md"], ["zh", "en"])
    assert {i: (n.number, n.home) for i, n in numbers.items()} == {
        "width-slices": ("1.1", "a.md"), "peak-dip": ("1.2", "a.md"), "blend-rows": ("2.1", "b.md"),
        "four-heads": ("0.1", "index.md")}  # only the front page places it: page 0
    assert numbers["peak-dip"].titles == {"zh": "a zh", "en": "a en"}
    (tmp_path / "b.en.md").write_text("# b {#b}\n\n{{ figure blend-rows }}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"b\.en\.md:3: the en page places figures"):
        numbering.figure_numbers(tmp_path, ["index.md", "a.md", "b.md"], ["zh", "en"])


def test_numbering_refuses_twins_that_place_the_same_figures_in_another_order(tmp_path):
    """The numbers are counted from one language's order: twins that place the same figures in a
    different order would give a figure one number in zh and its place in en another."""
    from figures.publish import numbering
    from figures.text.constructs import MarkupError
    order = {"zh": ["width-slices", "peak-dip", "blend-rows"], "en": ["peak-dip", "width-slices", "blend-rows"]}
    for lang, ids in order.items():
        figures = "\n\n".join(f"{{{{ figure {i} }}}}" for i in ids)
        (tmp_path / f"a.{lang}.md").write_text(f"# a {lang} {{#a}}\n\n{figures}\n", encoding="utf-8")
    with pytest.raises(MarkupError) as refused:
        numbering.figure_numbers(tmp_path, ["a.md"], ["zh", "en"])
    message = str(refused.value)
    # each twin named with the line of its first figure out of order
    assert message.startswith(f"{(tmp_path / 'a.en.md').resolve()}:3: ") and "same order" in message, message
    assert f"({(tmp_path / 'a.zh.md').resolve()}:3)" in message, message
    assert str(order["zh"]) in message and str(order["en"]) in message, message  # both orders, named
    # and in the same order, the same twins are numbered
    (tmp_path / "a.en.md").write_text((tmp_path / "a.zh.md").read_text(encoding="utf-8"), encoding="utf-8")
    numbers = numbering.figure_numbers(tmp_path, ["a.md"], ["zh", "en"])
    assert {i: n.number for i, n in numbers.items()} == {"width-slices": "1.1", "peak-dip": "1.2", "blend-rows": "1.3"}


def test_a_page_in_one_language_only_fails_the_build(checkout, mkdocs_build):
    (checkout / "docs/extra.zh.md").write_text("# 额外 {#extra}\n\n只有中文。\n", encoding="utf-8")
    run = mkdocs_build(checkout / "out", cwd=checkout)
    assert run.returncode != 0
    assert "extra.zh.md has no en twin extra.en.md" in run.stderr, run.stderr[-2000:]


def test_untwinned_pages_are_named_in_both_directions(tmp_path):
    from figures.site.hooks import untwinned_pages
    for name in ("a.zh.md", "a.en.md", "b.zh.md", "sub/c.en.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("# x {#x}\n", encoding="utf-8")
    assert untwinned_pages(tmp_path, ["zh", "en"]) == ["b.zh.md has no en twin b.en.md",
                                                       "sub/c.en.md has no zh twin sub/c.zh.md"]


# published under a sub-path, as GitHub Pages serves a project ------------------------------------

def _internal_links(page_html: str):
    soup = BeautifulSoup(page_html, "html.parser")
    for el in soup.select("[href], [src]"):
        link = el.get("href") or el.get("src")
        # about:blank: the 404 page's <base> until its script names the root (overrides/404.html)
        if link and not link.startswith(("#", "data:", "mailto:", "javascript:", "about:")):
            yield link


def test_under_a_sub_path_every_internal_link_reaches_a_file_of_the_site(sub_path_site):
    """Served at https://owner.github.io/some-repo/, every link on every page, the 404 page included
    (served at any depth), reaches a file of the site, never the host's root."""
    prefix = urlparse(SUB_PATH_URL).path  # /some-repo/
    pages = sorted(sub_path_site.rglob("*.html"))
    assert len(pages) > 2 * len(ZH_PAGES)
    checked = 0
    for page in pages:
        rel = page.relative_to(sub_path_site).as_posix()
        at = f"https://owner.github.io{prefix}" + ("no/such/page/" if rel.endswith("404.html") else rel)
        text = page.read_text(encoding="utf-8")
        if base := BeautifulSoup(text, "html.parser").find("base"):  # the 404 pages' (as without script)
            at = urljoin(at, base["href"])
        for link in _internal_links(text):
            parsed = urlparse(link)
            if parsed.scheme in ("http", "https") and parsed.netloc != "owner.github.io":
                continue  # a cited work, the licence: outside links are test_built_site_requests_no_third_party_host's
            target = urlparse(urljoin(at, link)).path
            assert target.startswith(prefix), f"{rel}: {link!r} leaves the site ({target})"
            file = sub_path_site / target[len(prefix):]
            assert file.is_file() or (file / "index.html").is_file(), f"{rel}: {link!r} reaches nothing ({target})"
            checked += 1
    assert checked > 1000


def test_no_script_holds_up_the_first_paint(site):
    """Material's script and ours are deferred (overrides/main.html): parsed pages paint first."""
    blocking = []
    for page in [*site.rglob("index.html"), site / "404.html"]:
        for tag in re.findall(r"<script\b[^>]*\bsrc=[^>]*>", page.read_text(encoding="utf-8")):
            if not re.search(r"\s(defer|async)\b", tag):
                blocking.append(f"{page.relative_to(site)}: {tag}")
    assert blocking == []


@pytest.mark.parametrize("value", [None, "false", "true"])
def test_mkdocs_yml_reads_outside_mkdocs_as_mkdocs_reads_it(monkeypatch, value):
    """numbering.mkdocs_config (the CLI's and the tests' reader) against MkDocs' own loader, !ENV included."""
    from mkdocs.utils import yaml_load
    if value is None:
        monkeypatch.delenv("MHA_BUILD_EN", raising=False)
    else:
        monkeypatch.setenv("MHA_BUILD_EN", value)
    ours = numbering.mkdocs_config()
    theirs = yaml_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    languages = next(p["i18n"]["languages"] for p in ours["plugins"] if isinstance(p, dict) and "i18n" in p)
    assert [language["build"] for language in languages] == [True, value != "false"]  # MHA_BUILD_EN, as the hooks set it
    languages[1]["build"] = True  # what mkdocs.yml itself says
    assert ours["plugins"] == theirs["plugins"] and ours["nav"] == theirs["nav"]


def _modes(folder: Path) -> dict[str, list[str]]:
    """The files and folders below `folder` (it included) that are not 0644 and 0755, or are links."""
    wrong: dict[str, list[str]] = {}
    for p in [folder, *folder.rglob("*")]:
        mode = p.lstat().st_mode
        want = None if p.is_symlink() else 0o755 if p.is_dir() else 0o644
        if want is None or mode & 0o7777 != want:
            wrong.setdefault("link" if want is None else oct(mode & 0o7777), []).append(p.relative_to(folder).as_posix())
    return wrong


def test_every_file_published_is_readable_by_all(site, offline_site):
    # a web server running as another user serves every file, and a zip of the site keeps the modes;
    # the figures are links to the cache's files (figures/site/linked.py), which share their mode
    for built in (site, offline_site):
        assert _modes(built) == {}, built
        assert len(list((built / "figures").rglob("*.svg"))) > 100  # the linked figures are among them


def test_a_built_sites_modes_are_set_whatever_the_umask(tmp_path):
    from figures.site import linked
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c.svg").write_bytes(b"<svg/>")
    (tmp_path / "a" / "b" / "c.svg").chmod(0o600)  # a file linked from a cache of another umask
    (tmp_path / "a").chmod(0o700)
    linked.readable_by_all(tmp_path)
    assert _modes(tmp_path) == {}


def test_the_built_site_holds_no_placeholder_of_a_frame_or_number_still_being_made(site):
    """`mkdocs build` waits for every frame and every number; only `mkdocs serve` shows the cards and
    marks of what it is still drawing or training (figures/site/later.py)."""
    from figures.site import later
    marks = [later.PENDING_CLASS.encode(), *(w.encode() for w in later.WORDS.values())]
    found = [path.relative_to(site).as_posix() for path in site.rglob("*") if path.suffix in (".html", ".svg", ".js")
             for data in [path.read_bytes()] if any(m in data for m in marks)]
    assert found == []
