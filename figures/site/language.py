"""The two languages' pages, as a reader switches between them.

Material's page script fetches a sitemap.xml beside every <link rel="alternate" hreflang> in the
head, to map the page to its twin; mkdocs-static-i18n points those links at the twin pages
themselves, so every page asked for /en/<page>/sitemap.xml and logged a 404 (two per page), and
the switch lost the reader's place. Those head links are therefore dropped, and each page names its
twins with absolute links of its own (twin_links), which Material's script is shipped to leave
alone (figures/site/material.py); the sitemap.xml (static-i18n's) lists them too. The language
menu keeps its links to the twin pages, and
docs/assets/mha-page.js carries the reader's place (the anchor, or the heading or figure on
screen) across: both languages share every id.
"""

from __future__ import annotations

import json
import re
from html import escape as html_escape
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.utils import get_relative_url

from ..publish.identity import percent_encoded
from . import offline_reading

ALTERNATE = re.compile(r'[ \t]*<link rel="alternate" href="[^"]*" hreflang="[^"]*">\n?')


def without_alternate_links(html: str) -> str:
    """The page's HTML without the head's hreflang links (the language menu's links stay)."""
    return ALTERNATE.sub("", html)


# ---- each language's tag, and the twins named in the head --------------------------------------
# The site's locales are folder names ("zh", "en"); a page names its language by its BCP 47 tag:
# Chinese in simplified characters is zh-Hans. Material's strings and the search's jieba keep the
# locale (theme.language, the search plugin's lang); only what the page says changes.

LANG_TAGS = {"zh": "zh-Hans"}
HTML_LANG = re.compile(r'(<html lang=")([^"]*)(")')
MENU_HREFLANG = re.compile(r'(hreflang=")([^"]*)(" class="md-select__link")')


def lang_tag(locale: str) -> str:
    """The BCP 47 tag of a locale of the site: "zh" -> "zh-Hans"."""
    return LANG_TAGS.get(locale, locale)


def with_html_lang(html: str) -> str:
    """The page with its <html lang> and its language menu's hreflang as BCP 47 tags."""
    html = HTML_LANG.sub(lambda m: m[1] + lang_tag(m[2]) + m[3], html, count=1)
    return MENU_HREFLANG.sub(lambda m: m[1] + lang_tag(m[2]) + m[3], html)


def twin_links(page_url: str, site_url: str, lang: str, default: str, langs: list[str]) -> str:
    """The head's <link rel="alternate" hreflang> to the page in every language (itself included),
    and x-default to the default language's: absolute, from the site's address, as search engines
    want them. Material's script leaves them alone (figures/site/material.py, twin links)."""
    path = page_url.removeprefix(f"{lang}/") if lang != default else page_url
    if page_url == lang and lang != default:  # the home page of a language, "en"
        path = ""

    def url(locale: str) -> str:
        return html_escape(site_url + ("" if locale == default else f"{locale}/") + path)

    tags = [(lang_tag(locale), url(locale)) for locale in langs] + [("x-default", url(default))]
    return "".join(f'<link rel="alternate" hreflang="{tag}" href="{href}">\n' for tag, href in tags)


def with_twin_links(html: str, page_url: str, site_url: str | None, lang: str, default: str,
                    langs: list[str]) -> str:
    """The page with twin_links at the end of its head (none without a site_url)."""
    if not site_url:
        return html
    head, end, rest = html.partition("</head>")
    if not end:
        raise ValueError("the page has no </head>")
    return head + twin_links(page_url, site_url, lang, default, langs) + end + rest


# ---- the 404 page: served at any address -----------------------------------------------------
# A host serves the root 404.html for every missing address, /en/... too, at any depth: a link
# relative to the page would miss. Each language's build writes its own (404.html, en/404.html),
# every link and asset written from the site's root, which a <base> at the top of the head names.
# The build's address cannot say where that root is (a placeholder, a preview elsewhere, a release
# tree whose 404 page serves every release's folder): a small script in that head (overrides/404.html)
# finds it from the address, with the facts below, and leads a reader of a missing /en/... address
# once to en/404.html, the address kept. Without script the <base> is the site's path, the page
# bilingual.

NOT_FOUND = "404.html"
OFFLINE = offline_reading.OFFLINE  # the service worker's answer offline for a page it has not kept
SERVED_ANYWHERE = (NOT_FOUND, OFFLINE)  # pages served at any address, their links from the site's root
SITE_NAMES = "MHA-SITE-NAMES"  # in the 404 pages until the site is built: then its top-level names
NOT_FOUND_MARKER = "assets/mha-page.js"  # a file every build holds at its root (extra_javascript)


def not_found_facts(site_url: str | None, lang: str, default: str, langs: list[str], release: str | None) -> dict:
    """What the 404 page's script knows: the build's site path (the <base> without script), its
    language, the others, the release it is (None: no release), the site's top-level names (filled
    in once the site is built, with_site_names) and the file it asks for to find the root."""
    return {"site": site_root(site_url), "lang": lang, "default": default,
            "others": [other for other in langs if other != default], "release": release,
            "names": SITE_NAMES, "marker": NOT_FOUND_MARKER}


def with_site_names(site_dir: Path, also: list[str] = ()) -> None:
    """Every 404 page of the built site (404.html, <lang>/404.html) given the site's top-level
    names: its root's files and folders, and `also` (those written after the 404 pages are final)."""
    names = sorted({p.name for p in site_dir.iterdir() if not p.name.startswith(".")} | set(also))
    names = json.dumps(names).replace("<", "\\u003c")
    for page in [site_dir / NOT_FOUND, *site_dir.glob(f"*/{NOT_FOUND}")]:
        html = page.read_text(encoding="utf-8")
        if f'"{SITE_NAMES}"' in html:
            page.write_text(html.replace(f'"{SITE_NAMES}"', names, 1), encoding="utf-8")


MENU_ANY = re.compile(r'(<a href=")[^"]*(" hreflang=")([^"]*)(" class="md-select__link">)')


def menu_to_homes(html: str, homes: dict[str, str]) -> str:
    """The 404 page's language menu leading to each language's home (static-i18n's menu names
    whichever page its build last saw)."""
    return MENU_ANY.sub(lambda m: m[1] + homes.get(m[3], homes[next(iter(homes))]) + m[2] + m[3] + m[4], html)


MATERIAL_SCOPE = re.compile(r'__md_scope=new URL\("[^"]*",location\)')


def from_site_root(html: str, site_url: str | None) -> str:
    """The 404 page with every link, asset, Material __config URL and the service worker's (the
    mha-worker meta's: overrides/main.html) that starts at the site's path ("/REPO/...") written
    from the site's root instead ("..."), to be read against its <base>; Material's scope too."""
    root = re.escape(site_root(site_url))
    html = re.sub(r'(<(?:a|link|script|img|source)\b[^>]*?\s(?:href|src|srcset)=")' + root + r'([^"]*")',
                  lambda m: m[1] + (m[2] if m[2] != '"' else './"'), html)
    html = re.sub(r'<meta name="mha-worker"[^>]*>',
                  lambda m: re.sub(r'(\s(?:content|data-script)=")' + root, r"\1", m[0]), html)
    # Material's scope (its stored settings' keys; a release's versions.json, "../versions.json"
    # from it): the site's root, which the <base> names once set
    html = MATERIAL_SCOPE.sub('__md_scope=new URL(".",document.baseURI)', html, count=1)
    return re.sub(r'("(?:base|search)": ")' + root, r"\1", html)  # Material's __config (JSON)


def site_root(site_url: str | None) -> str:
    """The site's path on its host, "/" or "/REPO/" under a sub-path; percent-encoded, as the pages
    write it into links."""
    return percent_encoded(urlsplit(site_url or "/").path.rstrip("/") + "/")


def homes(site_url: str | None, langs: list[str], default: str) -> dict[str, str]:
    """Each language's home as a path from the host's root ("/REPO/en/" under a sub-path), the
    form a 404 page needs: it is served at any depth, so a relative link would miss."""
    root = site_root(site_url)
    return {lang: root if lang == default else f"{root}{lang}/" for lang in langs}


# ---- search: each language its own index ----------------------------------------------------
# mkdocs-static-i18n gathers both languages' pages into the one search/search_index.json at the
# root, so a Chinese query on an English page found Chinese pages, and the other way round. After
# the build, the root index keeps the default language's pages and each other language gets
# <lang>/search/search_index.json, its pages' locations taken from its own root; that language's
# pages point Material's script there (the "base" of their __config), which resolves nothing
# else from it but the search results.

CONFIG_BASE = re.compile(r'(<script id="__config" type="application/json">\{.*?"base": ")([^"]*)(")')


def with_own_search(html: str, lang: str, default: str) -> str:
    """A page of language `lang`, its script's base moved to its language's root (the default's is
    the site's root already)."""
    if lang == default:
        return html
    moved, n = CONFIG_BASE.subn(lambda m: f"{m[1]}{m[2].rstrip('/') or '.'}/{lang}/{m[3]}", html, count=1)
    if n != 1:
        raise ValueError("no Material __config script with a base on the page")
    return moved


def split_search_index(site_dir: Path, langs: list[str], default: str, offline: bool) -> None:
    """Split the root search index by language (see above). With `offline`, each index is also
    written as the script Material's offline copy loads."""
    root = site_dir / "search" / "search_index.json"
    if not root.is_file():
        return
    index = json.loads(root.read_text(encoding="utf-8"))
    docs = {lang: [] for lang in langs}
    for doc in index["docs"]:
        first = doc["location"].split("/", 1)[0]
        lang = first if first in docs and first != default else default
        if lang != default:
            doc = dict(doc, location=doc["location"][len(lang) + 1:])
        docs[lang].append(doc)
    for lang in langs:
        folder = site_dir / ("" if lang == default else lang) / "search"
        folder.mkdir(parents=True, exist_ok=True)
        data = json.dumps(dict(index, docs=docs[lang]), ensure_ascii=False, separators=(",", ":"))
        (folder / "search_index.json").write_text(data, encoding="utf-8")
        if offline:
            (folder / "search_index.js").write_text(f"var __index = {data}", encoding="utf-8")


# ---- the language menu's links, relative like every other link -------------------------------
# static-i18n writes the home pages' menu links from the host's root ("/", "/en/"), which miss the
# site when it is served under a sub-path (GitHub Pages serves a project at /REPO/).

MENU_LINK = re.compile(r'(<a href=")(/[^"]*)(" hreflang="[^"]*" class="md-select__link">)')  # from the host's root


def relative_menu_links(html: str, page_url: str, site_url: str | None) -> str:
    """Every root-absolute language-menu link of the page at `page_url`, made relative to it."""
    root = site_root(site_url)

    def relative(m: re.Match) -> str:
        target = m[2][len(root):] if m[2].startswith(root) else m[2].lstrip("/")
        link = get_relative_url(target, page_url)
        # a link made of "." and ".." (the root: "..", "../..") comes without its folder's slash
        return m[1] + percent_encoded(link + "/" if link.rsplit("/", 1)[-1] in (".", "..") else link) + m[3]

    return MENU_LINK.sub(relative, html)
