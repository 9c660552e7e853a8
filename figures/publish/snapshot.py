"""What a tree publishes, as plain data: the one function both sides of "what changed" are read with.

`snapshot()` reads this checkout (its mkdocs.yml nav, its docs, its figures and its quantities) and
gives a JSON-ready mapping:

- `quantities`: every named number (figures.numbers.quantities) and its value;
- `figures`: per figure id, a digest of its data table in each language (`data`), or, for a figure
  without data(), the digest of the code it is drawn from (`code`, the figure cache's key without
  the environment): drawing every frame to compare its bytes would cost a whole build;
- `pages`: in nav order, each page's title, its sections (`page_sections`: heading id, level,
  parent and position, and per language its title and a digest of its text apart from the title), every
  anchor it has (heading ids, `{: #id }` attribute lists, `id="..."`,
  `fig-<id>` of each figure it places), the figures it places and the quantity names it prints
  (its own `{{ value NAME }}` and those in the captions of its figures), and the tables it prints
  (`{{ table NAME }}`, whose cells figures/site/tables.py gives: the site's side of a snapshot).

`python -m figures.publish.snapshot` prints it, for the tree it runs in: figures/site/changes.py runs
it in an earlier release's files, with that release's own code, so the two sides are read alike.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

from ..engine import registry
from ..kit.words import LANGS
from ..text.constructs import TABLE, VALUE
from ..text.markdown_code import outside_code
from . import bundles, numbering

ROOT = Path(__file__).resolve().parents[2]
FORMAT = 2  # what a snapshot holds; a reader refuses another
READS = (1, 2)  # the formats a reader takes: 1 gives no section its parent, position nor `text`

HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<title>.*?)(?:[ \t]*\{#(?P<id>[\w-]+)[^}]*\})?[ \t]*#*[ \t]*$", re.M)
ATTRIBUTES = re.compile(r"(?<!\{)\{:?[ \t]*(?P<body>[^{}\n]*?#[\w-][^{}\n]*?)\}(?!\})")
ATTR_ID = re.compile(r"(?:^|[ \t])#(?P<id>[A-Za-z][\w-]*)")
HTML_ID = re.compile(r"""\bid=["'](?P<id>[A-Za-z][\w-]*)["']""")


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:16]


def _slug(title: str) -> str:
    """Python-Markdown's toc slug, for a heading without an id of its own."""
    from markdown.extensions.toc import slugify
    return slugify(title, "-")


def sections(text: str) -> list[dict]:
    """The page's headings outside code, each with the text under it up to the next heading: [{id,
    level, title, text}]; text before the first heading belongs to a section of id ""."""
    found = outside_code(HEADING, text)
    out = [{"id": "", "level": 0, "title": "", "text": text[:found[0].start()] if found else text}]
    for k, m in enumerate(found):
        end = found[k + 1].start() if k + 1 < len(found) else len(text)
        out.append({"id": m["id"] or _slug(m["title"]), "level": len(m["hashes"]), "title": m["title"].strip(),
                    "text": text[m.end():end]})
    return out


# either digest of a section with no text of its own (a heading right above another): nothing to know it by
BLANK = {_digest("\n" * k) for k in range(5)}


def outline(levels: list[int]) -> list[tuple[int | None, int]]:
    """Each heading's place, from the headings' levels in page order: (the index of the section it
    lies in, the nearest before it of a lower level, None if none; its index among that one's)."""
    out, children = [], {}
    for k, level in enumerate(levels):
        parent = next((j for j in range(k - 1, -1, -1) if levels[j] < level), None)
        out.append((parent, children.get(parent, 0)))
        children[parent] = out[-1][1] + 1
    return out


def page_sections(texts: dict[str, str]) -> list[dict]:
    """A page's sections from its Markdown per language, the first language's headings giving the
    ids, levels and places, its twins' taken in the same order: [{id, level, parent (the id of the
    section it lies in, "" the opening, None for the opening itself), position (its index there),
    and per language its title, `text` (a digest of its text without the blank lines around it, not
    of its title: the last section of a page has no blank line below it) and `digest` (of its text
    as it stands, which format 1 gave alone)}]."""
    langs = list(texts)
    split = {lang: sections(texts[lang]) for lang in langs}
    first = split[langs[0]]
    named = []
    for k, (section, (parent, position)) in enumerate(zip(first, outline([s["level"] for s in first]))):
        twins = {lang: split[lang][k] if k < len(split[lang]) else {"title": "", "text": ""} for lang in langs}
        named.append({"id": section["id"], "level": section["level"],
                      "parent": None if parent is None else first[parent]["id"], "position": position,
                      "title": {lang: twins[lang]["title"] for lang in langs},
                      "text": {lang: _digest(twins[lang]["text"].strip("\n")) for lang in langs},
                      "digest": {lang: _digest(twins[lang]["text"]) for lang in langs}})
    return named


def anchors(text: str, placed: list[str]) -> list[str]:
    """Every id a page's Markdown gives an element: its headings', attribute lists', HTML's and its figures'."""
    ids = [s["id"] for s in sections(text) if s["id"]]
    for m in outside_code(ATTRIBUTES, text):
        ids += [a["id"] for a in ATTR_ID.finditer(" " + m["body"])]
    ids += [m["id"] for m in outside_code(HTML_ID, text)]
    ids += [f"fig-{fig_id}" for fig_id in placed]
    return sorted(set(ids))


def _caption_values(fig_id: str, lang: str) -> list[str]:
    caption = getattr(registry.get(fig_id), f"CAPTION_{lang.upper()}", "") or ""
    return [m["name"] for m in VALUE.finditer(caption)]


def _figure(fig_id: str, sources) -> dict:
    from ..engine.render import frames
    thumb = frames(fig_id)[0].path("svg")  # where its first frame lives under figures/: its thumbnail
    if getattr(registry.get(fig_id), "data", None) is not None:
        return {"data": {lang: _digest(bundles.data_table(fig_id, lang)) for lang in LANGS}, "thumb": thumb}
    # the figure cache's key without the environment (library versions, fonts): the same code, the same key
    return {"code": sources.digest(registry.module_name(fig_id))[:16], "thumb": thumb}


def _mkdocs_yml(path: Path) -> dict:
    """mkdocs.yml's plain settings (nav, docs_dir), its tags read as None: read here, not with
    numbering.mkdocs_config, so that an earlier release without it is read alike."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    return yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)


def snapshot(root: Path = ROOT) -> dict:
    """This tree's snapshot (the module's docstring says what it holds)."""
    try:
        from ..numbers import quantities
    except ImportError:  # copied into a tree older than figures/numbers/ (_tree_snapshot): its registry was mha_ref's
        from mha_ref import quantities
    from ..engine.sources import Sources
    from ..gallery import ORDER

    config = _mkdocs_yml(root / "mkdocs.yml")
    docs = root / config.get("docs_dir", "docs")
    langs = list(LANGS)
    values = {}
    for name in quantities.QUANTITIES:
        try:
            values[name] = quantities.value(name)
        except Exception as e:  # an earlier release's number that fails now is reported, not fatal
            values[name] = {"error": f"{type(e).__name__}: {e}"}
    sources = Sources(root)
    sources.env = ""  # the code alone: a library upgraded between releases is no change of a figure's data
    figures = {fig_id: _figure(fig_id, sources) for fig_id in ORDER}
    pages = []
    for page in numbering.nav_pages(config["nav"]):
        texts = {lang: numbering._source(docs, page, lang) for lang in langs}
        placed = numbering.placed_figures(docs, page, langs)
        named = page_sections(texts)
        printed = set()
        for lang in langs:
            printed |= {m["name"] for m in outside_code(VALUE, texts[lang])}
            for fig_id in placed:
                printed |= set(_caption_values(fig_id, lang))
        tables = sorted({m["name"] for lang in langs for m in outside_code(TABLE, texts[lang])})
        pages.append({"page": page, "title": {lang: (numbering.TITLE.search(texts[lang]) or {"title": page})["title"]
                                              for lang in langs},
                      "sections": named, "anchors": anchors(texts[langs[0]], placed), "figures": placed,
                      "values": sorted(printed), "tables": tables})
    version = __import__("figures.publish.identity", fromlist=["load"]).load(root / "pyproject.toml").version
    return {"format": FORMAT, "version": version, "quantities": values, "figures": figures, "pages": pages}


if __name__ == "__main__":
    import argparse
    argparse.ArgumentParser(prog="python -m figures.publish.snapshot",  # it takes no argument: any is refused
                            description="This tree's snapshot, as JSON on stdout (what changed, figures/site/changes.py).").parse_args()
    json.dump(snapshot(), sys.stdout, ensure_ascii=False, sort_keys=True)
