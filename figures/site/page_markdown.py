"""A page's Markdown as the site shows it (on_page_markdown, figures/site/hooks.py): its constructs
expanded against the files this build wrote below figures/, and the sections every page ends with.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from ..publish import bundles
from ..text.constructs import CONTENTS, MarkupError
from . import changes, cite, markup, slides

ROOT = Path(__file__).resolve().parents[2]


def expand(markdown: str, page, config, files, serving: bool) -> str:
    """The page's Markdown with every construct expanded ("what changed" first, then figures, values,
    tables, references, contents: figures/site/markup.py, kept with the expanded pages), its slide decks' and
    its citation's sections after it. serving: under `mkdocs serve`, a failed figure is a card."""
    lang = config.plugins["i18n"].current_language
    where = page.file.src_uri

    def _written(path: str):
        """The file the build wrote below the site's figures/, or None."""
        return files.get_file_from_path(f"figures/{path}")

    def _written_url(path: str) -> str | None:
        """A file below the site's figures/, linked from this page; None if the build wrote none."""
        f = _written(path)
        return None if f is None else get_relative_url(f.url, page.url)

    def url(path: str) -> str:
        link = _written_url(path)
        if link is None:
            raise PluginError(f"{where}: the figure file figures/{path} was not generated")
        return link

    def size(path: str) -> tuple[int, int] | None:
        f = _written(path)
        if f is None:
            return None
        with open(f.abs_src_path, "rb") as svg:
            return bundles.svg_size(svg.read(2048))

    nav_entry = re.sub(r"\.[a-z]{2}(?:_[A-Z]{2})?\.md$", ".md", where)  # index.en.md -> index.md
    try:  # the "what changed" page's tables, before the constructs they may name are expanded
        markdown = changes.expand(markdown, lang, _written_url, page.url.count("/"))
    except changes.ChangesError as e:
        raise PluginError(f"{where}: {e}") from e
    try:
        file, first_line = _source_file(page, markdown)
        numbers = config["figure_numbers"]
        # the figure files this build wrote: a page links only those (a frame that failed under serve has none)
        written = hashlib.sha256("\n".join(sorted(u for u in (files.src_uris if files else ()) if u.startswith("figures/"))).encode())
        pages = config.get("numbered_pages")
        # only a page that lists the pages is expanded again when another page's reading time changes
        listed = repr(pages) if CONTENTS.search(markdown) else ""
        text, _ = markup.kept_expansion(
            (markdown, lang, file, first_line, repr(numbers), nav_entry, serving, page.url, written.hexdigest(), listed),
            lambda: markup.expand(markdown, lang, url, file, numbers, nav_entry, serving, size, first_line, pages))
    except MarkupError as e:
        raise PluginError(str(e)) from e

    def linked(path: str) -> tuple[str, int] | None:
        """A file below figures/ as this page links it, with its size in bytes; None if not written."""
        f = _written(path)
        return None if f is None else (get_relative_url(f.url, page.url), os.path.getsize(f.abs_src_path))

    text += slides.section(nav_entry, lang, config["figure_numbers"], linked)
    try:
        return text + cite.page_section(ROOT, markdown, page, lang, nav_entry)
    except ValueError as e:
        raise PluginError(str(e)) from e


def _source_file(page, markdown: str) -> tuple[str, int]:
    """The page's file as an error names it ("docs/one-head-blends.en.md", from the checkout's
    root), and the line of that file `markdown` starts on (MkDocs has cut any YAML front matter)."""
    if page.file.abs_src_path is None:  # a generated page
        return page.file.src_uri, 1
    path = Path(page.file.abs_src_path).resolve()
    raw = path.read_text(encoding="utf-8-sig").replace("\r\n", "\n")
    first = raw[:len(raw) - len(markdown)].count("\n") + 1 if raw.endswith(markdown) else 1
    return (path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)), first
