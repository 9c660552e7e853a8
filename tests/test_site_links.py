"""The site's addresses as a reader and a search engine meet them: the placeholder address told,
each page's language tag, its twins and its description, and the 404 page's links from the site's
root (figures/publish/identity.py, figures/site/language.py, figures/site/description.py)."""

import json
import logging
import re

import markdown
import pytest
from bs4 import BeautifulSoup
from mkdocs.exceptions import PluginError

from figures.engine import registry
from figures.publish import identity
from figures.site import address, description, figure_block, language


@pytest.mark.parametrize("url, placeholder", [
    ("https://mha-explained.example.org/", True), ("https://example.com/x/", True), ("http://EXAMPLE.NET", True),
    ("https://site.test/", True), ("https://a.b.invalid/", True), ("https://docs.example/", True),
    ("https://owner.github.io/repo/", False), ("https://owner.example.io/mha/", False),
    ("https://example.org.cn/", False), ("https://myexample.org/", False), ("http://127.0.0.1:8000/", False),
])
def test_a_placeholder_is_an_address_under_a_name_reserved_for_examples(url, placeholder):
    assert identity.is_placeholder(url) == placeholder


def test_the_placeholder_notice_is_one_line_naming_the_value_and_where_it_came_from(monkeypatch):
    monkeypatch.delenv(identity.SITE_URL_ENV, raising=False)
    notice = identity.placeholder_notice("https://mha-explained.example.org/")
    assert "\n" not in notice and "pyproject.toml [tool.mha-explained] site_url = 'https://mha-explained.example.org/'" in notice
    monkeypatch.setenv(identity.SITE_URL_ENV, "https://example.com/")
    assert identity.placeholder_notice("https://example.com/").startswith("MHA_SITE_URL='https://example.com/'")
    assert identity.placeholder_notice("https://owner.github.io/repo/") is None


def _told(monkeypatch, site_url: str, require: str | None) -> list[logging.LogRecord]:
    monkeypatch.setattr(identity, "IDENTITY", identity.IDENTITY.__class__(**{**identity.IDENTITY.__dict__, "site_url": site_url}))
    monkeypatch.setattr(address, "_told", False)
    if require is None:
        monkeypatch.delenv(identity.REQUIRE_SITE_URL_ENV, raising=False)
    else:
        monkeypatch.setenv(identity.REQUIRE_SITE_URL_ENV, require)
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger("mkdocs").addHandler(handler)  # as mkdocs' --strict counts warnings
    try:
        address.tell_placeholder(identity)
        address.tell_placeholder(identity)  # the second language's build
    finally:
        logging.getLogger("mkdocs").removeHandler(handler)
    return records


def test_a_build_at_the_placeholder_warns_once_without_failing_strict(monkeypatch, capsys):
    assert _told(monkeypatch, "https://mha-explained.example.org/", None) == []  # --strict counts nothing
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("WARNING") and "placeholder" in said[0]
    assert _told(monkeypatch, "https://mha-explained.example.org/", "0") == []
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_a_publishing_build_at_the_placeholder_stops(monkeypatch):
    with pytest.raises(PluginError, match="placeholder.*MHA_REQUIRE_SITE_URL is set"):
        _told(monkeypatch, "https://mha-explained.example.org/", "1")
    assert _told(monkeypatch, "https://owner.github.io/repo/", "1") == []


# ---- language tags and twins ----------------------------------------------------------------------

def test_chinese_pages_are_tagged_zh_hans_in_html_lang_and_the_menu():
    page = ('<html lang="zh" class="no-js"><a href="../" hreflang="zh" class="md-select__link">简体中文</a>'
            '<a href="./" hreflang="en" class="md-select__link">English</a><p lang="zh">x</p>')
    out = BeautifulSoup(language.with_html_lang(page), "html.parser")
    assert out.html["lang"] == "zh-Hans"
    assert [a["hreflang"] for a in out.select("a.md-select__link")] == ["zh-Hans", "en"]
    assert language.with_html_lang('<html lang="en">') == '<html lang="en">'


@pytest.mark.parametrize("page_url, lang, path", [
    ("", "zh", ""), ("en/", "en", ""), ("one-head-blends/", "zh", "one-head-blends/"),
    ("en/one-head-blends/", "en", "one-head-blends/"),
])
def test_every_page_names_its_twins_and_the_default_absolutely(page_url, lang, path):
    site = "https://owner.github.io/repo/"
    links = BeautifulSoup(language.twin_links(page_url, site, lang, "zh", ["zh", "en"]), "html.parser").select("link")
    assert [(link["rel"], link["hreflang"], link["href"]) for link in links] == [
        (["alternate"], "zh-Hans", site + path), (["alternate"], "en", site + "en/" + path),
        (["alternate"], "x-default", site + path)]


# ---- the 404 page ---------------------------------------------------------------------------------

def test_the_404_page_is_written_from_the_sites_root_its_base_left_alone():
    page = ('<base href="/repo/"><link rel="stylesheet" href="/repo/assets/main.css">'
            '<a href="/repo/">home</a><a href="/repo/en/one/">one</a><a href="https://x.org/repo/">out</a>'
            '<script defer src="/repo/assets/bundle.js"></script><a href="/repository/">other</a>'
            '<script id="__config" type="application/json">{"base": "/repo/", "search": "/repo/assets/w.js"}</script>')
    out = BeautifulSoup(language.from_site_root(page, "https://owner.github.io/repo/"), "html.parser")
    assert out.base["href"] == "/repo/"
    assert [a["href"] for a in out.select("a")] == ["./", "en/one/", "https://x.org/repo/", "/repository/"]
    assert out.link["href"] == "assets/main.css" and out.select("script")[0]["src"] == "assets/bundle.js"
    assert out.select("script")[1].string == '{"base": "", "search": "assets/w.js"}'


def test_the_404_page_registers_the_worker_and_scopes_materials_settings_from_the_sites_root():
    meta = ('<meta name="mha-worker" content="/repo/sw.js" data-script="/repo/assets/mha-offline.js">'
            '<script>__md_scope=new URL("/repo/",location),__md_hash=e=>0</script>')
    out = BeautifulSoup(language.from_site_root(meta, "https://owner.github.io/repo/"), "html.parser")
    assert (out.meta["content"], out.meta["data-script"]) == ("sw.js", "assets/mha-offline.js")
    assert out.script.string == '__md_scope=new URL(".",document.baseURI),__md_hash=e=>0'


def test_the_404_page_is_given_the_sites_top_level_names_once_built(tmp_path):
    facts = language.not_found_facts("https://owner.github.io/repo/", "en", "zh", ["zh", "en"], "0.1.0")
    page = f"<script>var F={json.dumps(facts)}</script>"
    for where in ("", "en/"):
        (tmp_path / where).mkdir(exist_ok=True)
        (tmp_path / where / "404.html").write_text(page)
    (tmp_path / "one-head-blends").mkdir()
    (tmp_path / "sitemap.xml").write_text("")
    language.with_site_names(tmp_path, also=["sw.js"])
    for where in ("", "en/"):
        got = json.loads((tmp_path / where / "404.html").read_text().removeprefix("<script>var F=").removesuffix("</script>"))
        assert got == dict(facts, names=["404.html", "en", "one-head-blends", "sitemap.xml", "sw.js"])
    assert got["site"] == "/repo/" and got["others"] == ["en"] and got["release"] == "0.1.0"


def test_the_404_menu_leads_to_each_home():
    page = ('<a href="/repo/what-trained-heads-do/" hreflang="zh" class="md-select__link">简体中文</a>'
            '<a href="/repo/en/what-trained-heads-do/" hreflang="en" class="md-select__link">English</a>')
    homes = language.homes("https://owner.github.io/repo/", ["zh", "en"], "zh")
    out = BeautifulSoup(language.menu_to_homes(page, homes), "html.parser")
    assert [a["href"] for a in out.select("a")] == ["/repo/", "/repo/en/"]


# ---- descriptions ---------------------------------------------------------------------------------

def test_a_description_is_the_opening_sentences_within_the_limit_without_formulas():
    html = ('<h1>T</h1><p>First <a href="x">one</a> &amp; done. Second has <span class="arithmatex">\\(x\\)</span>. '
            'Third, <span class="mha-screen-only">drag</span><span class="mha-print-only" data-search-exclude>go through</span> it.</p>'
            '<figure><p class="mha-downloads">not text</p></figure><p>' + "Long sentence here. " * 20 + '</p>')
    assert description.page_description(html, "en") == "First one & done. Third, drag it. Long sentence here." + \
        "".join(" Long sentence here." for _ in range(5))
    assert len(description.page_description(html, "en")) <= description.LIMIT["en"]


def test_search_reads_the_screens_words_and_not_prints():
    """A screen/print construct and a frame's print label: Material's search index holds the words a
    reader sees on screen, not the printed page's (joined, they read "Drag the sliderGo through");
    nor the gallery filter's page titles ("Every pageOne head can only blend")."""
    import types
    from material.plugins.search.plugin import SearchIndex
    from figures.site import gallery
    from figures.text import constructs
    control = types.SimpleNamespace(label=lambda lang: "heads")
    body = (constructs.expand_media('<p>{{ screen "Drag the slider" print "Go through the frames" }} to see it.</p>')
            + figure_block._print_label(control, "en", "4") + gallery.filter_html("en", {"a.md": "One head can only blend"}))
    page = types.SimpleNamespace(content=f'<h1 id="t">T</h1>{body}', url="p/", toc=[], title="T", meta={})
    index = SearchIndex(lang=["en"], separator=r"[\s]+", pipeline=[], fields={})
    index.add_entry_from_context(page)
    text = " ".join(entry["text"] for entry in index.entries)
    assert "Drag the slider to see it." in text
    assert "Go through" not in text and "heads" not in text and "Every page" not in text and "One head" not in text
    assert "Go through the frames" in body  # still printed


def test_a_first_sentence_too_long_is_cut_at_a_word_and_chinese_at_a_character():
    assert description.page_description("<p>" + "word " * 60 + "end.</p>", "en") == ("word " * 31).strip() + "…"
    zh = description.page_description("<p>" + "字" * 100 + "。</p><p>后面。</p>", "zh")
    assert zh == "字" * 79 + "…" and len(zh) == description.LIMIT["zh"]
    assert description.page_description("<p>第一句。第二句！</p>", "zh") == "第一句。第二句！"
    assert description.page_description("<h1>only a title</h1>", "en") == ""


# ---- a figure's blocks, and its "Copy link" ---------------------------------------------------------

BLOCK_IN_P = re.compile(r"<p\b[^>]*>(?:(?!</p>).)*?<(?:p|div|figure|table|details|ul|ol|h[1-6])\b", re.S)


@pytest.mark.parametrize("fold", [figure_block.PROVENANCE_FOLD, 0])  # its code's list as a <p>, and folded (<div>)
def test_markdown_wraps_no_block_of_a_figure_in_a_paragraph(monkeypatch, fold):
    """As the page's Markdown (md_in_html) reads a placed figure: a <p> around a block would leave
    the browser two empty paragraphs."""
    monkeypatch.setattr(figure_block, "PROVENANCE_FOLD", fold)
    html = figure_block.figure_html(registry.ORDER[0], "en", 1, lambda path: f"../figures/{path}", where="page.md")
    out = markdown.markdown(html, extensions=["md_in_html", "attr_list"])
    assert BLOCK_IN_P.search(out) is None, BLOCK_IN_P.search(out)[0][:200]
    assert out.count('class="mha-provenance"') == 1


def test_copy_link_is_the_figures_anchor():
    html = figure_block.figure_html(registry.ORDER[0], "zh", 1, lambda path: f"../figures/{path}", where="page.md")
    soup = BeautifulSoup(html, "html.parser")
    link = soup.select_one("a.mha-copy-link")
    # the credit line under it cites the configured address (a citation); the links to follow do not
    assert link["href"] == f"#fig-{registry.ORDER[0]}"
    # (a zip's ATTRIBUTION.txt, in data-attribution, cites it as the credit line does)
    assert not [a["href"] for a in soup.select(".mha-downloads a") if identity.IDENTITY.site_url in a["href"]]


def test_copy_link_copies_the_address_the_reader_is_on(browser, served):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    address = served + "en/one-head-blends/?via=a-copy"  # wherever the page is read, query included
    page.goto(address, wait_until="networkidle")
    figure = page.eval_on_selector("figure.mha-figure", "f => f.id")
    page.click(f"#{figure} a.mha-copy-link")
    assert page.evaluate("navigator.clipboard.readText()") == f"{address}#{figure}"
    assert page.url == address  # copied, not followed
    context.close()


# ---- the built site -------------------------------------------------------------------------------

def _pages(site):
    return sorted(p for p in site.rglob("index.html") if "figures" not in p.parts)


def test_only_the_build_at_the_placeholder_says_so_in_one_line(site, sub_path_site):
    """site_builds keeps each build's log beside its folder; mkdocs build --strict passed for both."""
    said = [line for line in (site.parent / "build.log").read_text(encoding="utf-8").splitlines() if "placeholder" in line]
    assert len(said) == 1 and said[0].startswith("WARNING"), said
    assert "placeholder" not in (sub_path_site.parent / "build.log").read_text(encoding="utf-8")


def test_no_paragraph_holds_a_block_so_no_empty_paragraph_is_made(site):
    found = [f"{page.relative_to(site)}: {m[0][:80]}" for page in [*_pages(site), site / "404.html"]
             for m in BLOCK_IN_P.finditer(page.read_text(encoding="utf-8"))]
    assert found == []


def test_every_page_has_a_description_of_its_own_in_its_language(site):
    seen = {}
    for page in _pages(site):
        doc = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        text = doc.find("meta", attrs={"name": "description"})["content"]
        chinese = bool(re.search(r"[\u4e00-\u9fff]", text))
        assert chinese == (doc.html["lang"] == "zh-Hans"), (page, text)
        assert text not in seen, (page, seen.get(text))
        seen[text] = page
    assert len(seen) > 20


def test_every_page_names_its_twins_which_exist(site):
    for page in _pages(site):
        doc = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        twins = {link["hreflang"]: link["href"] for link in doc.select("head link[rel=alternate][hreflang]")}
        assert sorted(twins) == ["en", "x-default", "zh-Hans"], page
        for href in twins.values():
            file = site / href.removeprefix(identity.IDENTITY.site_url) / "index.html"
            assert file.is_file(), (page, href)
        assert page.relative_to(site).as_posix() in (
            twins[doc.html["lang"]].removeprefix(identity.IDENTITY.site_url) + "index.html",)
