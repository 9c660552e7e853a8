"""The glossary as cards to study from: an Anki deck (genanki) and a CSV table per language, made
from the glossary pages (docs/glossary.zh.md, docs/glossary.en.md) at build time, so that a term
added to, changed in or taken out of the glossary is a card added, changed or taken out.

A card is one entry (### heading {#anchor}): its term in the page's language, its name in the
other language, its symbol when the entry has one, the first sentence of its meaning, and links to
its entry in the glossary and to where the pages first explain it. A card's Anki id comes from its
anchor, so a learner who imports a newer deck has their cards updated, not doubled.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import itertools
import re
import sqlite3
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import genanki

from ..keep import disk, reach
from ..text import maths
from ..text.constructs import first_sentence

GLOSSARY = "glossary"  # the page's name: docs/glossary.<lang>.md, published at <lang root>glossary/
ENTRY = re.compile(r"^### (?P<title>.+?) \{#(?P<anchor>[\w-]+)\}[ \t]*$", re.M)
HEADING = re.compile(r"^#{1,6} ", re.M)
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)")
SYMBOL = re.compile(r"^\$[^$]+\$$")
SEP = " · "

DECK_NAME = {"zh": "多头注意力 · 术语表", "en": "Multi-head attention · glossary"}
FIELDS = {"zh": ("术语", "英文名", "符号", "含义", "术语表条目", "首次讲解"),
          "en": ("Term", "Chinese name", "Symbol", "Meaning", "Glossary entry", "First explained")}
# fixed ids (Anki's model and deck ids must not change between builds): any number, chosen once
MODEL_ID = {"zh": 1_846_271_905, "en": 1_846_271_906}
DECK_ID = {"zh": 2_094_517_331, "en": 2_094_517_332}
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # every member's date: two builds of one glossary give the same bytes


class GlossaryError(ValueError):
    """An entry of the glossary the cards cannot be made from; names the file and the entry."""


@dataclass(frozen=True)
class Card:
    anchor: str       # the entry's anchor, the same in both languages: its card's id
    term: str         # in the page's language
    other: str        # its name in the other language ("" when the entry gives none, e.g. softmax)
    symbol: str       # "$d_k$" when the entry is a symbol's, else ""
    meaning: str      # the first sentence of its explanation, Markdown links reduced to their words
    entry: str        # the entry's address on the site
    explained: str    # where the pages first explain it ("" when the entry names no place)


def cards(source: str, lang: str, site: str, where: str = "glossary") -> list[Card]:
    """The cards of one glossary page (its Markdown `source`), in its order. `site` is the address of
    the site's root in this language (".../" or ".../en/"), which the cards' links are made from."""
    found = []
    entries = list(ENTRY.finditer(source))
    for m in entries:
        rest = source[m.end():]
        following = HEADING.search(rest)
        body = rest[:following.start() if following else len(rest)].strip()
        paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", body) if p.strip()]
        if not paragraphs:
            raise GlossaryError(f"{where}: the entry {m['anchor']!r} has no text to make its card's meaning from")
        names = m["title"].split(SEP)
        symbol = names.pop(0) if SYMBOL.match(names[0]) else ""
        term, other = names[0], SEP.join(names[1:])  # each page names its own language's term first
        links = LINK.findall(paragraphs[-1]) if len(paragraphs) > 1 else []
        explained = _absolute(site, links[0][1]) if links else ""
        meaning = first_sentence(LINK.sub(r"\1", paragraphs[0]))
        found.append(Card(m["anchor"], term, other, symbol, meaning, f"{site}{GLOSSARY}/#{m['anchor']}", explained))
    anchors = [c.anchor for c in found]
    twice = sorted({a for a in anchors if anchors.count(a) > 1})
    if twice:
        raise GlossaryError(f"{where}: the anchor(s) {twice} name more than one entry")
    return found


def _absolute(site: str, link: str) -> str:
    """A link of the glossary page ("one-head-blends.md#a-mixture") as an address on the site."""
    page, _, anchor = link.partition("#")
    page = page.removesuffix(".md")
    path = "" if page in ("", "index") else page + "/"
    return site + path + (f"#{anchor}" if anchor else "")


def csv_bytes(found: list[Card], lang: str) -> bytes:
    """The cards as a CSV table (UTF-8 with a byte-order mark, which Excel needs to read Chinese), its
    maths as plain Unicode text: a spreadsheet sets no formula."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(("id",) + FIELDS[lang])
    for c in found:
        writer.writerow((c.anchor, *map(maths.inline, (c.term, c.other, c.symbol, c.meaning)), c.entry, c.explained))
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def _anki_maths(text: str) -> str:
    r"""$x$ as Anki's MathJax reads inline maths: \(x\)."""
    return re.sub(r"\$([^$]+)\$", r"\\(\1\\)", text)


def _model(lang: str) -> genanki.Model:
    names = FIELDS[lang]
    front = (f"<div class=term>{{{{{names[0]}}}}}</div>{{{{#{names[2]}}}}}<div class=symbol>{{{{{names[2]}}}}}</div>"
             f"{{{{/{names[2]}}}}}")
    back = (f'{{{{FrontSide}}}}<hr id=answer><div>{{{{{names[3]}}}}}</div>'
            f'{{{{#{names[1]}}}}}<div class=other>{{{{{names[1]}}}}}</div>{{{{/{names[1]}}}}}'
            f'<div class=links><a href="{{{{{names[4]}}}}}">{names[4]}</a>'
            f'{{{{#{names[5]}}}}} · <a href="{{{{{names[5]}}}}}">{names[5]}</a>{{{{/{names[5]}}}}}</div>')
    css = (".card { font-family: sans-serif; font-size: 22px; text-align: center; }"
           " .symbol, .other { color: #555; margin-top: .4em; } .links { font-size: 16px; margin-top: 1em; }")
    return genanki.Model(MODEL_ID[lang], DECK_NAME[lang], fields=[{"name": n} for n in names],
                         templates=[{"name": names[0], "qfmt": front, "afmt": back}], css=css)


def anki_bytes(found: list[Card], lang: str) -> bytes:
    """The cards as an Anki package (.apkg): one deck, a note per entry, the same bytes for the same cards."""
    model = _model(lang)
    deck = genanki.Deck(DECK_ID[lang], DECK_NAME[lang])
    for c in found:
        fields = [_anki_maths(c.term), _anki_maths(c.other), _anki_maths(c.symbol), _anki_maths(c.meaning), c.entry,
                  c.explained]
        deck.add_note(genanki.Note(model=model, fields=fields, guid=genanki.guid_for("mha-explained", c.anchor, lang)))
    # genanki's own write_to_file leaves its database behind in the system's temporary folder (it never
    # removes the file it made): the database is written here, in a folder that goes when it is read,
    # and zipped as write_to_file would (collection.anki2, no media), every member with one date
    with tempfile.TemporaryDirectory(prefix="mha-cards-") as tmp:
        db = Path(tmp) / "collection.anki2"
        with contextlib.closing(sqlite3.connect(db)) as conn:
            genanki.Package(deck).write_to_db(conn.cursor(), 0, itertools.count(0))
            conn.commit()
        collection = db.read_bytes()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for name, data in (("collection.anki2", collection), ("media", b"{}")):
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.external_attr = 0o644 << 16  # rw-r--r-- once unpacked (none: unzip makes it 0600)
            dst.writestr(info, data, zipfile.ZIP_DEFLATED)
    return out.getvalue()


def download_names(lang: str) -> dict[str, str]:
    """fmt -> the file's path below the site's root in this language (a page links it relative to docs/)."""
    return {fmt: f"downloads/glossary-cards.{lang}.{fmt}" for fmt in ("apkg", "csv")}


def files(docs_dir: Path, lang: str, site: str) -> dict[str, bytes]:
    """The cards' files for one language: path below its root -> bytes. Kept in the build's cache
    under a digest of the glossary page, this module, genanki's version and the address, so that a
    warm build reads them rather than making them again (cache_folder)."""
    source = (docs_dir / f"{GLOSSARY}.{lang}.md").read_text(encoding="utf-8")
    key = cache_key(source, lang, site)
    folder = cache_folder()
    made: dict[str, bytes] = {}

    def make() -> dict[str, bytes]:
        if not made:
            found = cards(source, lang, site, where=f"docs/{GLOSSARY}.{lang}.md")
            paths = download_names(lang)
            made.update({paths["apkg"]: anki_bytes(found, lang), paths["csv"]: csv_bytes(found, lang)})
        return made

    return {path: disk.kept_or_made(None if folder is None else folder / f"{key}.{path.rsplit('/', 1)[1]}",
                                     bytes, lambda path=path: make()[path], bytes, "a glossary card file")
            for path in download_names(lang).values()}


def cache_key(source: str, lang: str, site: str, root: Path = disk.ROOT) -> str:
    """The kept files' name: a digest of the code making them, as far as it reaches (CodeReach: this
    module and what it calls, first_sentence included), of the glossary's text, genanki's version,
    the language and the address."""
    salt = "\0".join((hashlib.sha256(source.encode()).hexdigest(), genanki.__version__, lang, site))
    return reach.CodeReach(root, by_name=("figures", "mha_ref")).digest((__name__, "files"), salt=salt)[:32]


def cache_folder() -> Path | None:
    """Where the card files are kept: under the build's cache folder (figures.keep.disk), None if off."""
    return disk.cache_folder("flashcards")
