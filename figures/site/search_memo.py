"""The search entries of each page, made once and kept.

Material's search plugin reads every page's HTML into sections and cuts their Chinese text into
words with jieba: about two seconds of CPU in each build, although most builds change few pages.
What it makes of a page (its entries: location, title, text) depends only on the page's HTML, its
URL, its table of contents, its title, its front matter's search settings and tags, the plugin's
settings, the versions of Material, jieba and backrefs, and this file. The entries are kept in the
figure cache's search/ folder under a digest of those (figures.keep.disk.kept_json), and a build
whose page has not changed takes them from there, whatever else changed (an edit to a figure, the
offline copy's switches): the same entries in the same order, so search_index.json comes out byte
for byte as without them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..keep import disk

FOLDER = "search"  # the figure cache's folder of kept entries
_KEPT = "_mha_kept"  # marks Material's method once it is wrapped (a process wraps it once)


def install() -> None:
    """Wrap Material's SearchIndex.add_entry_from_context so that a page's entries are kept and read
    back (entries); nothing without Material's search plugin."""
    try:
        from material.plugins.search.plugin import SearchIndex
    except ImportError:
        return
    if getattr(SearchIndex.add_entry_from_context, _KEPT, False):
        return
    made = SearchIndex.add_entry_from_context

    def add_entry_from_context(self, page):
        self.entries.extend(entries(self, page, made))
    setattr(add_entry_from_context, _KEPT, True)
    add_entry_from_context.made = made  # Material's own, for the tests
    SearchIndex.add_entry_from_context = add_entry_from_context


def entries(index, page, made) -> list[dict]:
    """The entries made(index, page) adds to index.entries, or those kept from an earlier build of
    the same page (key); index.entries is left as it was."""
    new: list[dict] | None = None

    def make() -> list[dict]:
        nonlocal new
        if new is None:  # once, however often the cache asks (a folder it cannot write)
            start = len(index.entries)
            made(index, page)
            new = index.entries[start:]
            del index.entries[start:]
        return new

    return disk.kept_json(FOLDER, key(index, page), make, "search entries")


def key(index, page) -> str:
    """Everything the plugin reads to make a page's entries, as text."""
    meta = {name: page.meta.get(name) for name in ("search", "tags", "title")}
    settings = dict(index.config)
    for name in ("jieba_dict", "jieba_dict_user"):  # a dictionary file: its bytes, not only its name
        path = settings.get(name)
        if path and Path(path).is_file():
            settings[name] = [path, hashlib.sha256(Path(path).read_bytes()).hexdigest()]
    return disk.key_text([page.content, page.url, _toc(page.toc), str(page.title), meta, settings,
                          disk.versions(("mkdocs-material", "jieba", "backrefs")), disk.file_digest(__file__)])


def _toc(items) -> list:
    """The ids and URLs of a table of contents, nested as it is (what the plugin links a section to)."""
    return [[item.id, item.url, _toc(item.children)] for item in items]
