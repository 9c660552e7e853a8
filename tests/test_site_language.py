"""The language layer's pure functions (figures/site/language.py), on hand-made HTML and folders:
the language menu's links, the head's hreflang links, each language's search. No build: the
build tests (test_site.py, test_reader.py) check that the hooks call these."""

from __future__ import annotations

import json
import re

import pytest

from figures.site import language

ROOT_SITE = "https://x.example/"
SUB_SITE = "https://x.example/repo/"


def menu(*hrefs: tuple[str, str]) -> str:
    """Material's language menu (partials/alternate.html) with these (href, hreflang) links."""
    items = "".join(f'          <li class="md-select__item">\n'
                    f'            <a href="{href}" hreflang="{lang}" class="md-select__link">\n'
                    f'              {"中文" if lang == "zh" else "English"}\n            </a>\n          </li>\n'
                    for href, lang in hrefs)
    return f'<ul class="md-select__list">\n{items}</ul>\n'


def links(html: str) -> list[str]:

    return re.findall(r'<a href="([^"]*)" hreflang="[^"]*" class="md-select__link">', html)


# ---- the language menu: root-absolute links made relative to the page -----------------------------

# (site_url, the page's url, the link static-i18n wrote, the link the page must carry)
MENU_CASES = [
    # at the host's root: the two home pages link each other and themselves
    (ROOT_SITE, "", "/", "./"),
    (ROOT_SITE, "", "/en/", "en/"),
    (ROOT_SITE, "en/", "/", "../"),
    (ROOT_SITE, "en/", "/en/", "./"),
    # a page and its twin
    (ROOT_SITE, "one-head-blends/", "/en/one-head-blends/", "../en/one-head-blends/"),
    (ROOT_SITE, "en/one-head-blends/", "/one-head-blends/", "../../one-head-blends/"),
    (ROOT_SITE, "one-head-blends/", "/one-head-blends/", "./"),
    # with an anchor
    (ROOT_SITE, "", "/en/#fig-blend-slider", "en/#fig-blend-slider"),
    (ROOT_SITE, "en/", "/#cite", "../#cite"),
    (ROOT_SITE, "one-head-blends/", "/en/one-head-blends/#fig-blend-slider", "../en/one-head-blends/#fig-blend-slider"),
    (ROOT_SITE, "en/one-head-blends/", "/one-head-blends/#why-heads", "../../one-head-blends/#why-heads"),
    # under a sub-path (GitHub Pages serves a project at /REPO/): the sub-path is the site's root
    (SUB_SITE, "", "/repo/", "./"),
    (SUB_SITE, "", "/repo/en/", "en/"),
    (SUB_SITE, "en/", "/repo/", "../"),
    (SUB_SITE, "en/", "/repo/en/", "./"),
    (SUB_SITE, "one-head-blends/", "/repo/en/one-head-blends/", "../en/one-head-blends/"),
    (SUB_SITE, "en/one-head-blends/", "/repo/one-head-blends/#fig-x", "../../one-head-blends/#fig-x"),
    (SUB_SITE, "en/", "/repo/#cite", "../#cite"),
    ("https://x.example/repo", "en/", "/repo/", "../"),  # a site_url without its final slash
    (None, "en/", "/", "../"),  # no site_url at all: the host's root
    # the offline copy: pages are files (use_directory_urls off)
    (ROOT_SITE, "index.html", "/en/index.html", "en/index.html"),
    (ROOT_SITE, "en/index.html", "/index.html", "../index.html"),
    (ROOT_SITE, "en/one-head-blends.html", "/one-head-blends.html#fig-x", "../one-head-blends.html#fig-x"),
]


@pytest.mark.parametrize("site_url, page_url, href, expected", MENU_CASES)
def test_a_root_absolute_menu_link_becomes_relative_to_its_page(site_url, page_url, href, expected):
    out = language.relative_menu_links(menu((href, "en")), page_url, site_url)
    assert links(out) == [expected]
    assert out == menu((expected, "en"))  # nothing else on the page changes


def test_both_menu_links_of_a_page_are_rewritten_and_relative_ones_left_alone():
    page = menu(("/repo/", "zh"), ("/repo/en/", "en"))
    assert links(language.relative_menu_links(page, "en/", SUB_SITE)) == ["../", "./"]
    # static-i18n writes the other pages' links relative already: they stay as written
    twin = menu(("../one-head-blends/", "zh"), ("./", "en"))
    assert language.relative_menu_links(twin, "en/one-head-blends/", SUB_SITE) == twin


def test_only_the_language_menu_is_touched():
    other = ('<a href="/elsewhere/" class="md-nav__link">x</a>\n'
             '<a href="/en/" hreflang="en" class="md-header__button">y</a>\n')
    assert language.relative_menu_links(other, "en/", ROOT_SITE) == other


@pytest.mark.parametrize("site_url, page_url, href, expected", MENU_CASES)
def test_no_menu_link_is_left_root_absolute(site_url, page_url, href, expected):
    out = links(language.relative_menu_links(menu((href, "zh")), page_url, site_url))
    assert out and not any(link.startswith("/") or "://" in link for link in out)


def test_the_root_from_two_levels_down_keeps_its_folder_slash():
    out = language.relative_menu_links(menu(("/", "zh")), "en/one-head-blends/", ROOT_SITE)
    assert links(out) == ["../../"]


# ---- the head's hreflang links, dropped ----------------------------------------------------------

def test_head_hreflang_links_are_dropped_and_everything_else_kept():
    head = ('<head>\n'
            '    <link rel="canonical" href="https://x.example/en/">\n'
            '      <link rel="alternate" href="/" hreflang="zh">\n'
            '      <link rel="alternate" href="/en/" hreflang="en">\n'
            '    <link rel="alternate" type="application/rss+xml" title="RSS" href="feed.xml">\n'
            '</head>\n')
    assert language.without_alternate_links(head) == (
        '<head>\n'
        '    <link rel="canonical" href="https://x.example/en/">\n'
        '    <link rel="alternate" type="application/rss+xml" title="RSS" href="feed.xml">\n'
        '</head>\n')
    menu_html = menu(("/", "zh"), ("/en/", "en"))
    assert language.without_alternate_links(menu_html) == menu_html  # the menu's own links stay


# ---- the 404 page's home links ----------------------------------------------------------------

@pytest.mark.parametrize("site_url, root", [
    (None, "/"), ("https://x.example", "/"), (ROOT_SITE, "/"), (SUB_SITE, "/repo/"),
    ("https://x.example/repo", "/repo/"), ("https://x.example/a/b/", "/a/b/"),
])
def test_site_root_is_the_sites_path_with_one_final_slash(site_url, root):
    assert language.site_root(site_url) == root


def test_homes_are_paths_from_the_hosts_root_default_language_at_the_root():
    assert language.homes(SUB_SITE, ["zh", "en"], "zh") == {"zh": "/repo/", "en": "/repo/en/"}
    assert language.homes(None, ["zh", "en"], "zh") == {"zh": "/", "en": "/en/"}
    assert language.homes(ROOT_SITE, ["zh", "en"], "en") == {"zh": "/zh/", "en": "/"}


# ---- each language its own search ---------------------------------------------------------------

def config_script(base: str) -> str:
    return ('<script id="__config" type="application/json">{"annotate": null, "base": "' + base
            + '", "features": [], "search": "../assets/javascripts/workers/search.js"}</script>')


@pytest.mark.parametrize("base, moved", [
    ("..", "../en/"),          # the en home page, en/
    ("../..", "../../en/"),    # en/one-head-blends/
    ("../", "../en/"),
    (".", "./en/"),
    ("", "./en/"),
])
def test_an_english_page_points_its_search_at_its_own_root(base, moved):
    page = f"<body>{config_script(base)}</body>"
    assert language.with_own_search(page, "en", "zh") == f"<body>{config_script(moved)}</body>"


def test_a_default_language_page_keeps_its_base_and_only_the_first_config_moves():
    page = config_script("..")
    assert language.with_own_search(page, "zh", "zh") == page
    twice = config_script("..") + '\n<p>"base": ".."</p>'
    assert language.with_own_search(twice, "en", "zh") == config_script("../en/") + '\n<p>"base": ".."</p>'


def test_a_page_without_materials_config_is_refused():
    with pytest.raises(ValueError, match="no Material __config script with a base"):
        language.with_own_search("<html><body>no script</body></html>", "en", "zh")
    # the default language's page is not looked at
    assert language.with_own_search("<p>x</p>", "zh", "zh") == "<p>x</p>"


INDEX = {
    "config": {"lang": ["zh", "en"], "separator": "[\\s\\-]+"},
    "docs": [
        {"location": "", "title": "多头注意力", "text": "首页"},
        {"location": "one-head-blends/", "title": "一个头", "text": "混合"},
        {"location": "one-head-blends/#fig-x", "title": "图", "text": "图"},
        {"location": "en/", "title": "Multi-head attention", "text": "home"},
        {"location": "en/one-head-blends/#fig-x", "title": "Figure", "text": "blend"},
        {"location": "entropy/", "title": "熵", "text": "一个以 en 开头的页面"},
    ],
}


def split(tmp_path, offline: bool, index=INDEX):
    (tmp_path / "search").mkdir()
    (tmp_path / "search" / "search_index.json").write_text(json.dumps(index), encoding="utf-8")
    language.split_search_index(tmp_path, ["zh", "en"], "zh", offline)
    return {lang: tmp_path / sub / "search" for lang, sub in (("zh", ""), ("en", "en"))}


def test_the_search_index_is_split_by_language_locations_from_each_languages_root(tmp_path):
    folders = split(tmp_path, offline=False)
    zh = json.loads((folders["zh"] / "search_index.json").read_text(encoding="utf-8"))
    en = json.loads((folders["en"] / "search_index.json").read_text(encoding="utf-8"))
    assert [d["location"] for d in zh["docs"]] == ["", "one-head-blends/", "one-head-blends/#fig-x", "entropy/"]
    assert [d["location"] for d in en["docs"]] == ["", "one-head-blends/#fig-x"]
    assert [d["title"] for d in en["docs"]] == ["Multi-head attention", "Figure"]
    assert zh["config"] == en["config"] == INDEX["config"]
    assert not (folders["zh"] / "search_index.js").exists() and not (folders["en"] / "search_index.js").exists()


def test_the_index_is_compact_utf8_not_escaped(tmp_path):
    text = (split(tmp_path, offline=False)["zh"] / "search_index.json").read_text(encoding="utf-8")
    assert '"title":"多头注意力"' in text and "\\u" not in text
    assert '": ' not in text and ', "' not in text  # no spaces after separators


def test_offline_each_index_also_ships_as_the_script_the_offline_copy_loads(tmp_path):
    folders = split(tmp_path, offline=True)
    for lang in ("zh", "en"):
        data = (folders[lang] / "search_index.json").read_text(encoding="utf-8")
        script = (folders[lang] / "search_index.js").read_text(encoding="utf-8")
        assert script == "var __index = " + data
        assert json.loads(script.removeprefix("var __index = ")) == json.loads(data)


def test_an_offline_index_of_html_files_splits_the_same_way(tmp_path):
    index = {"config": {}, "docs": [{"location": "index.html"}, {"location": "en/index.html"},
                                    {"location": "en/one-head-blends.html#x"}, {"location": "one-head-blends.html"}]}
    folders = split(tmp_path, offline=True, index=index)
    en = json.loads((folders["en"] / "search_index.json").read_text(encoding="utf-8"))
    zh = json.loads((folders["zh"] / "search_index.json").read_text(encoding="utf-8"))
    assert [d["location"] for d in en["docs"]] == ["index.html", "one-head-blends.html#x"]
    assert [d["location"] for d in zh["docs"]] == ["index.html", "one-head-blends.html"]


def test_without_a_search_index_nothing_is_written(tmp_path):
    language.split_search_index(tmp_path, ["zh", "en"], "zh", offline=True)
    assert list(tmp_path.iterdir()) == []
