"""The glossary as cards (figures/publish/flashcards.py): an Anki deck and a CSV table per language,
made from the glossary pages at build time. Checked on a small glossary written here, and on the
built site, whose glossary page the cards are read against: every entry a card, no card stale."""

import csv
import io
import sqlite3
import tempfile
import zipfile

import pytest
from bs4 import BeautifulSoup

from figures.publish import flashcards
from figures.publish.identity import IDENTITY

SITE = "https://example.org/mha/en/"
SMALL = """# Glossary {#glossary}

Intro, not an entry.

## The basics {#basics}

### query · 查询 {#query}

The vector a token asks with, $q = x W^Q$: see [the page](one-head-blends.md#a-mixture). Its second sentence.

First explained in
[One head · a mixture](one-head-blends.md#a-mixture).

### $d_k$ · head width · 头宽 {#d-k}

The width of one head.

First explained in [Home](index.md#start).

### softmax {#softmax}

Turns scores into weights.
"""


def test_each_entry_is_a_card_with_its_names_symbol_first_sentence_and_links():
    cards = flashcards.cards(SMALL, "en", SITE)
    assert [c.anchor for c in cards] == ["query", "d-k", "softmax"]
    query, width, softmax = cards
    assert (query.term, query.other, query.symbol) == ("query", "查询", "")
    assert query.meaning == "The vector a token asks with, $q = x W^Q$: see the page."  # the link keeps its words
    assert query.entry == SITE + "glossary/#query"
    assert query.explained == SITE + "one-head-blends/#a-mixture"
    assert (width.term, width.other, width.symbol, width.explained) == ("head width", "头宽", "$d_k$", SITE + "#start")
    assert (softmax.other, softmax.explained) == ("", "")  # no other name, no place named


def test_a_glossary_the_cards_cannot_be_made_from_is_named():
    with pytest.raises(flashcards.GlossaryError, match=r"docs/g.md: the anchor\(s\) \['query'\] name more than one"):
        flashcards.cards(SMALL + "\n### query again {#query}\n\nAgain.\n", "en", SITE, where="docs/g.md")
    with pytest.raises(flashcards.GlossaryError, match="the entry 'empty' has no text"):
        flashcards.cards(SMALL + "\n### empty {#empty}\n\n## Next {#next}\n", "en", SITE)


def _notes(apkg: bytes) -> list[tuple[str, list[str]]]:
    """(guid, fields) of every note in an Anki package, read with sqlite, not with genanki."""
    with zipfile.ZipFile(io.BytesIO(apkg)) as z, tempfile.NamedTemporaryFile(suffix=".anki2") as db:
        db.write(z.read("collection.anki2"))
        db.flush()
        with sqlite3.connect(db.name) as con:
            return [(guid, flds.split("\x1f")) for guid, flds in con.execute("select guid, flds from notes order by id")]


def test_the_deck_holds_a_note_per_card_with_its_maths_for_anki_and_the_same_bytes_each_time():
    cards = flashcards.cards(SMALL, "en", SITE)
    apkg = flashcards.anki_bytes(cards, "en")
    notes = _notes(apkg)
    assert [fields[0] for _, fields in notes] == ["query", "head width", "softmax"]
    assert notes[1][1][2] == r"\(d_k\)" and r"\(q = x W^Q\)" in notes[0][1][3]  # Anki's MathJax delimiters
    assert notes[0][1][4:] == [SITE + "glossary/#query", SITE + "one-head-blends/#a-mixture"]
    assert flashcards.anki_bytes(cards, "en") == apkg
    with zipfile.ZipFile(io.BytesIO(apkg)) as z:
        assert {i.external_attr for i in z.infolist()} == {0o644 << 16}  # unpacked: rw-r--r--, whatever the umask
    # a card's id follows its anchor, not its place or words: a newer deck updates the learner's cards
    moved = flashcards.anki_bytes(flashcards.cards(SMALL.replace("head width", "width of a head"), "en", SITE), "en")
    assert [g for g, _ in _notes(moved)] == [g for g, _ in notes]
    zh = _notes(flashcards.anki_bytes(cards, "zh"))
    assert not {g for g, _ in zh} & {g for g, _ in notes}  # the two languages' decks are apart


def test_making_the_deck_leaves_nothing_in_the_temporary_folder(tmp_path, monkeypatch):
    # mkdocs serve's temporary folder, a reader's /tmp: genanki's write_to_file leaves its database there
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    apkg = flashcards.anki_bytes(flashcards.cards(SMALL, "en", SITE), "en")
    assert list(temp.iterdir()) == []
    with zipfile.ZipFile(io.BytesIO(apkg)) as z:
        assert z.namelist() == ["collection.anki2", "media"] and z.read("media") == b"{}"


def test_the_table_opens_in_excel_with_a_row_per_card():
    data = flashcards.csv_bytes(flashcards.cards(SMALL, "en", SITE), "en")
    assert data.startswith("\ufeff".encode())
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    assert rows[0] == ["id", *flashcards.FIELDS["en"]]
    assert [r[0] for r in rows[1:]] == ["query", "d-k", "softmax"] and rows[2][3] == "d_k"
    assert rows[1][4] == "The vector a token asks with, q = x W^Q: see the page."  # maths as text: no formula is set


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_real_glossarys_table_holds_no_tex(lang):
    from pathlib import Path
    source = (Path(__file__).resolve().parents[1] / "docs" / f"glossary.{lang}.md").read_text(encoding="utf-8")
    cards = flashcards.cards(source, lang, SITE)
    assert sum("$" in c.meaning for c in cards) > 10  # the entries do write maths
    text = flashcards.csv_bytes(cards, lang).decode("utf-8-sig")
    assert not set("$\\{}") & set(text), [line for line in text.splitlines() if set("$\\{}") & set(line)][:3]
    assert "√(d_k)" in text and "×" in text


@pytest.mark.parametrize("lang, root", [("zh", ""), ("en", "en/")])
def test_every_glossary_entry_of_the_built_site_is_a_card_and_no_card_is_stale(site, lang, root):
    page = BeautifulSoup((site / root / "glossary" / "index.html").read_text(encoding="utf-8"), "html.parser")
    entries = [h["id"] for h in page.select("article h3[id]")]
    links = {a["href"].rsplit(".", 1)[1]: a["href"] for a in page.select('article a[href*="glossary-cards"]')}
    assert set(links) == {"apkg", "csv"}
    files = {fmt: (site / root / "glossary" / href).resolve() for fmt, href in links.items()}
    rows = list(csv.reader(io.StringIO(files["csv"].read_text(encoding="utf-8-sig"))))[1:]
    assert len(entries) > 40 and [r[0] for r in rows] == entries
    notes = _notes(files["apkg"].read_bytes())
    assert [fields[0] for _, fields in notes] == [r[1] for r in rows]
    # each card's links lead to its entry and to a page of the site, in this language
    here = IDENTITY.site_url + root
    for r in rows:
        assert r[5] == f"{here}glossary/#{r[0]}"
        page, _, anchor = r[6].removeprefix(here).partition("#")
        html = (site / root / page / "index.html").read_text(encoding="utf-8")
        assert r[6].startswith(here) and f'id="{anchor}"' in html, r


def test_the_kept_cards_follow_the_code_that_makes_them(tmp_path):
    """The cache's name covers the code the cards reach (first_sentence in figures/text/ included),
    not only this module's file: an edit there makes the cards again, a comment does not."""
    import shutil
    from figures.keep.disk import ROOT as root
    for package in ("figures", "mha_ref"):
        shutil.copytree(root / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    key = flashcards.cache_key(SMALL, "en", SITE, root=tmp_path)
    assert key == flashcards.cache_key(SMALL, "en", SITE)  # where the checkout lies does not count
    constructs = tmp_path / "figures" / "text" / "constructs.py"
    source = constructs.read_text(encoding="utf-8")
    constructs.write_text(source.replace('def first_sentence(text: str) -> str:\n',
                                         'def first_sentence(text: str) -> str:  # a comment\n'), encoding="utf-8")
    assert flashcards.cache_key(SMALL, "en", SITE, root=tmp_path) == key
    constructs.write_text(source.replace("[。！？]", "[。！？；]"), encoding="utf-8")
    assert flashcards.cache_key(SMALL, "en", SITE, root=tmp_path) != key
    assert flashcards.cache_key(SMALL + "x", "en", SITE) != flashcards.cache_key(SMALL, "en", SITE)
