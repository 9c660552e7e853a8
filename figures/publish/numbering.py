"""One number per figure, site-wide: "图 1.3" / "Figure 1.3" on every page that shows it.

The number is <page>.<k>: the figure's home page (the page that explains it) counted among the
content pages in nav order, and the figure's place among the figures that page explains. The home
page is the first page in nav order, after the site's front page (index.md), that places the
figure; the front page only previews figures explained further on. A figure that only the front
page places has the front page as home, counted as page 0: "图 0.1".

The numbers are read from the docs sources of every language at once, and a pair of twins that
place different figures is refused, so the numbering is the same in every language by construction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..keep import switches
from ..engine import registry
from ..kit.words import LANGS
from ..text.constructs import FIGURE, MarkupError
from ..text.markdown_code import outside_code

ROOT = Path(__file__).resolve().parents[2]

FRONT = "index.md"
TITLE = re.compile(r"^# (?P<title>.+?)(?:\s*\{#[^}]*\})?\s*$", re.M)


@dataclass(frozen=True)
class FigureNumber:
    number: str               # "1.3"
    home: str                 # the nav entry of the page that explains the figure, e.g. "one-head-blends.md"
    page: int                 # that page's number: 0 for the front page, 1, 2, ... for the content pages
    titles: dict[str, str]    # that page's title (its first heading) in each language


def nav_pages(nav: list) -> list[str]:
    """The nav's page entries in order ("one-head-blends.md"), from MkDocs' `nav:` setting."""
    pages = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages += nav_pages(value) if isinstance(value, list) else [value]
    return pages


def _path(docs_dir: Path, page: str, lang: str) -> Path:
    return (docs_dir / page.removesuffix(".md")).with_suffix(f".{lang}.md")


def _source(docs_dir: Path, page: str, lang: str) -> str:
    return _path(docs_dir, page, lang).read_text(encoding="utf-8")


def placed_figures(docs_dir: Path, page: str, langs: list[str]) -> list[str]:
    """The figure ids a page places, in order; its twins in every language must agree. An unknown
    id, or a figure placed twice on the page, is refused here, naming the page's file and line,
    before the build draws or numbers anything (a later step would meet it far from its line)."""
    found = {lang: outside_code(FIGURE, _source(docs_dir, page, lang)) for lang in langs}
    for lang in langs:
        _known_and_once(docs_dir, page, lang, found[lang])
    placed = {lang: [m["id"] for m in found[lang]] for lang in langs}
    first = placed[langs[0]]
    for lang in langs[1:]:
        if placed[lang] != first:
            here = _first_difference(docs_dir, page, lang, found[lang], first)
            there = _first_difference(docs_dir, page, langs[0], found[langs[0]], placed[lang])
            raise MarkupError(f"{here}: the {lang} page places figures {placed[lang]}, but its {langs[0]} twin "
                              f"({there}) places {first}; twins place the same figures in the same order")
    return first


def _known_and_once(docs_dir: Path, page: str, lang: str, found: list) -> None:
    seen = set()
    for m in found:
        if m["id"] not in registry.ORDER:
            raise MarkupError(f"{_line(docs_dir, page, lang, m.start())}: {registry.unknown(m['id'])}")
        if m["id"] in seen:
            raise MarkupError(f"{_line(docs_dir, page, lang, m.start())}: figure {m['id']!r} is placed twice; "
                              "its anchor must be unique")
        seen.add(m["id"])


def _line(docs_dir: Path, page: str, lang: str, at: int) -> str:
    """"docs/a.en.md:14": the page's file, and the line of the character `at` of its text."""
    path = _path(docs_dir, page, lang).resolve()
    line = path.read_text(encoding="utf-8").count("\n", 0, at) + 1
    return f"{path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path}:{line}"


def _first_difference(docs_dir: Path, page: str, lang: str, found: list, other: list[str]) -> str:
    """"docs/a.en.md:14": the twin's file and the line of its first figure that is not `other`'s
    (its last line, if it places fewer)."""
    path = _path(docs_dir, page, lang).resolve()
    text = path.read_text(encoding="utf-8")
    k = next((k for k, m in enumerate(found) if k >= len(other) or m["id"] != other[k]), len(found))
    line = text.count("\n", 0, found[k].start() if k < len(found) else len(text.rstrip("\n"))) + 1
    return f"{path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path}:{line}"


def figure_numbers(docs_dir: Path, nav: list, langs: list[str]) -> dict[str, FigureNumber]:
    """Every placed figure's site-wide number, computed from the docs sources in nav order."""
    pages = nav_pages(nav)
    content = [p for p in pages if p != FRONT]
    placed = {p: placed_figures(docs_dir, p, langs) for p in pages}
    # home: the first content page placing the figure, else the front page
    home: dict[str, str] = {}
    for page in content + [FRONT] * (FRONT in pages):
        for fig_id in placed[page]:
            home.setdefault(fig_id, page)
    numbers = {}
    for page in pages:
        own = [fig_id for fig_id in placed[page] if home[fig_id] == page]
        page_number = 0 if page == FRONT else content.index(page) + 1
        titles = {lang: TITLE.search(_source(docs_dir, page, lang))["title"] for lang in langs} if own else {}
        for k, fig_id in enumerate(own, 1):
            numbers[fig_id] = FigureNumber(f"{page_number}.{k}", page, page_number, titles)
    return numbers


def mkdocs_config(path: Path = ROOT / "mkdocs.yml") -> dict:
    """mkdocs.yml as plain data, for what reads it outside MkDocs (the CLI, tests): `!ENV [NAME, default]`
    is NAME's value read as YAML, or the default, as MkDocs reads it; any other tag (!!python/name: ...)
    is None; the English language's `build` is MHA_BUILD_EN's (build_en), as the hooks set it."""
    import os

    import yaml

    class Loader(yaml.SafeLoader):
        pass

    def env(loader, node):
        names = loader.construct_sequence(node) if isinstance(node, yaml.SequenceNode) else [loader.construct_scalar(node)]
        *names, default = names if len(names) > 1 else [*names, None]
        for name in names:
            if name in os.environ:
                return yaml.safe_load(os.environ[name])
        return default

    Loader.add_constructor("!ENV", env)
    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    config = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)
    for plugin in config.get("plugins", []):  # MHA_BUILD_EN, as hooks.on_config sets it for MkDocs
        for language in (plugin.get("i18n") or {}).get("languages", []) if isinstance(plugin, dict) else []:
            if language.get("locale") == "en":
                language["build"] = build_en()
    return config


BUILD_EN_ENV = "MHA_BUILD_EN"  # a switch, on unless "0" (or off, no, false): the Chinese pages alone


def build_en() -> bool:
    """Whether the English pages are built too (mkdocs.yml's en language; hooks.on_config sets it)."""
    return switches.env_switch(BUILD_EN_ENV, True)


def site_numbers(langs=LANGS) -> dict:
    """The site's figure numbers, read from mkdocs.yml's nav and the docs (for the CLI)."""
    config = mkdocs_config()
    return figure_numbers(ROOT / config.get("docs_dir", "docs"), config["nav"], list(langs))
