"""The two languages' pages, as a reader switches between them.

Material's page script fetches a sitemap.xml beside every <link rel="alternate" hreflang> in the
head, to map the page to its twin; mkdocs-static-i18n points those links at the twin pages
themselves, so every page asked for /en/<page>/sitemap.xml and logged a 404 (two per page), and
the switch lost the reader's place. The head links are therefore dropped: the site's sitemap.xml
(written by static-i18n) lists every page with its twin as hreflang alternates, which search
engines read as they read head links. The language menu keeps its links to the twin pages, and
docs/assets/mha-page.js carries the reader's place (the anchor, or the heading or figure on
screen) across: both languages share every id.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.utils import get_relative_url

from ..publish.identity import percent_encoded

ALTERNATE = re.compile(r'[ \t]*<link rel="alternate" href="[^"]*" hreflang="[^"]*">\n?')


def without_alternate_links(html: str) -> str:
    """The page's HTML without the head's hreflang links (the language menu's links stay)."""
    return ALTERNATE.sub("", html)


# ---- the 404 page: one for the whole site, in both languages --------------------------------
# A host serves the root 404.html for every missing address, under /en/ too, so the page speaks
# both languages (the default first) and links each language's home page. Its language menu
# already does: mkdocs builds it before the pages, while static-i18n's menu still names the homes
# (tests/test_reader.py checks it).

NOT_FOUND = "404.html"


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
