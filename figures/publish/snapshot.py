"""What a tree publishes, as plain data: the one function both sides of "what changed" are read with.

`snapshot()` reads this checkout (its mkdocs.yml nav, its docs, its figures and its quantities) and
gives a JSON-ready mapping:

- `quantities`: every named number (mha_ref.quantities) and its value;
- `figures`: per figure id, a digest of its data table in each language (`data`), or, for a figure
  without data(), the digest of the code it is drawn from (`code`, the figure cache's key without
  the environment): drawing every frame to compare its bytes would cost a whole build;
- `pages`: in nav order, each page's title, its sections (heading id, level, title and a digest of
  its text, per language), every anchor it has (heading ids, `{: #id }` attribute lists, `id="..."`,
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
from ..text.constructs import TABLE, VALUE, outside_code
from . import bundles, numbering

ROOT = Path(__file__).resolve().parents[2]
FORMAT = 1  # what a snapshot holds; a reader refuses another

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
        split = {lang: sections(texts[lang]) for lang in langs}
        first = split[langs[0]]
        named = []
        for k, section in enumerate(first):
            twins = {lang: split[lang][k] if k < len(split[lang]) else {"title": "", "text": ""} for lang in langs}
            named.append({"id": section["id"], "level": section["level"],
                          "title": {lang: twins[lang]["title"] for lang in langs},
                          "digest": {lang: _digest(twins[lang]["text"]) for lang in langs}})
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
