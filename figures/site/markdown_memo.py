"""Each page's Markdown converted to HTML once, and kept.

Converting the pages is the largest part of a build whose figures are all drawn: about a third of
its CPU, mostly Python-Markdown reading the figures' raw HTML blocks (md_in_html, and MkDocs looking
for their ids). Most builds change few pages, or none (a rebuild under `mkdocs serve` after an edit
to one page, each test's build of the same checkout). What MkDocs' Page.render leaves on a page
(its HTML, table of contents, title from the text, anchors, links to other pages' anchors) and what
it logs depend only on:
- the page's Markdown, once the hooks have expanded it (on_page_markdown);
- where the page and every other file of the build lie (links are checked and rewritten against
  them) and the validation settings;
- the Markdown extensions and their settings (the toc's link title is set per language);
- the versions of MkDocs (or ProperDocs), Python-Markdown, pymdown-extensions and Pygments;
- the level MkDocs logs at (`-q`, `-v`): what is logged, so what is replayed;
- this file.
Our other code is not among them: it reaches the conversion only through the Markdown the hooks
hand it and the settings above. They are kept in the figure cache's markdown/ folder under a digest
of these (figures.keep.disk.kept_json), and a build whose page has not changed takes them from
there, replaying what the conversion logged, whatever else changed (an edit to a figure or to the
reference, the offline copy's switches). Not kept:
- a page that includes a file (pymdownx.snippets' `--8<--`): its text is not all in the key;
- a conversion that warned (a broken link, under `strict`): it is converted again, and warns again.
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager

from ..keep import disk

FOLDER = "markdown"  # the figure cache's folder of converted pages
_KEPT = "_mha_kept"  # marks an engine's Page.render once it is wrapped (a process wraps it once)
SNIPPET = "--8<--"  # pymdownx.snippets' mark: the page includes a file
ENGINES = ("mkdocs", "properdocs")  # ProperDocs, the fork of MkDocs 1.6, has its own Page
# the packages whose versions count, by engine: the engine, Markdown and its extensions, and the
# highlighter the code blocks go through
_PACKAGES = {engine: (engine, "markdown", "pymdown-extensions", "pygments") for engine in ENGINES}


def install() -> None:
    """Wrap Page.render of MkDocs and of ProperDocs (those installed) so that a page's conversion is
    kept and read back."""
    for engine in ENGINES:
        try:
            pages = __import__(f"{engine}.structure.pages", fromlist=["Page"])
        except ImportError:
            continue
        if getattr(pages.Page.render, _KEPT, False):
            continue
        made = pages.Page.render

        def render(page, config, files, made=made, engine=engine):
            convert(page, config, files, made, engine)
        setattr(render, _KEPT, True)
        render.made = made  # the engine's own, for the tests
        pages.Page.render = render


def convert(page, config, files, made, engine: str) -> None:
    """made(page, config, files), or what it left on an earlier build's same page, put back."""
    if page.markdown is None or SNIPPET in page.markdown or _appends_snippets(config):
        made(page, config, files)
        return
    converted: dict | None = None

    def make() -> dict:
        nonlocal converted
        if converted is None:  # once, however often the cache asks (a folder it cannot write)
            with _logged() as records:
                made(page, config, files)
            converted = _state(page, records)
        return converted

    value = disk.kept_json(FOLDER, key(page, config, files, engine), make, "converted page",
                           keep=lambda v: all(level < logging.WARNING for _, level, _ in v["logged"]))
    if converted is None:  # read back
        _restore(page, value, files, engine)


def key(page, config, files, engine: str) -> str:
    """Everything the conversion reads, as text."""
    f = page.file
    return disk.key_text([page.markdown, [f.src_uri, f.dest_uri, f.url], page.url, _files(files),
                          config["markdown_extensions"], config["mdx_configs"], config["validation"],
                          config["use_directory_urls"], disk.versions(_PACKAGES[engine]),
                          logging.getLogger(f"{engine}.structure.pages").getEffectiveLevel(),
                          disk.file_digest(__file__)])


def _files(files) -> list:
    """Where every file of the build lies, and whether it is in it: what a link is checked against."""
    return sorted([f.src_uri, f.dest_uri, f.url, str(f.inclusion)] for f in files)


def _appends_snippets(config) -> bool:
    """pymdownx.snippets set to add files to every page."""
    snippets = (config["mdx_configs"] or {}).get("pymdownx.snippets", {})
    return bool(snippets.get("auto_append"))


def _state(page, records: list) -> dict:
    links = page.links_to_anchors
    return {"content": page.content, "toc": _tokens(page.toc), "title": page._title_from_render,
            "anchors": sorted(page.present_anchor_ids or ()),
            "links": None if links is None else {file.src_uri: dict(anchors) for file, anchors in links.items()},
            "logged": records}


def _tokens(items) -> list[dict]:
    """A table of contents as the toc extension's tokens, which the engine's get_toc reads."""
    return [{"name": item.title, "id": item.id, "level": item.level, "children": _tokens(item.children)}
            for item in items]


def _restore(page, value: dict, files, engine: str) -> None:
    toc = __import__(f"{engine}.structure.toc", fromlist=["get_toc"])
    page.content = value["content"]
    page.toc = toc.get_toc(value["toc"])
    page._title_from_render = value["title"]
    page.present_anchor_ids = set(value["anchors"])
    page.links_to_anchors = None if value["links"] is None else {
        files.get_file_from_path(src): anchors for src, anchors in value["links"].items()}
    for name, level, message in value["logged"]:
        logging.getLogger(name).log(level, "%s", message)


@contextmanager
def _logged():
    """What this thread logs meanwhile, as [logger, level, message]: the records reach their handlers
    as before. The engines' loggers do not pass theirs on to the root's, so each is watched."""
    records, seen, thread = [], set(), threading.get_ident()

    class Keep(logging.Handler):
        def emit(self, record):
            if record.thread == thread and id(record) not in seen:
                seen.add(id(record))
                records.append([record.name, record.levelno, record.getMessage()])

    handler = Keep(logging.DEBUG)
    watched = [logging.getLogger(), *(logging.getLogger(engine) for engine in ENGINES)]
    for logger in watched:
        logger.addHandler(handler)
    try:
        yield records
    finally:
        for logger in watched:
            logger.removeHandler(handler)
