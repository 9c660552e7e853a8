"""The slide decks (figures/publish/decks.py, figures/site/slides.py): a 16:9 PDF per page that
explains figures, per language, light and dark. Checked on a small deck of frames drawn here (what
each slide holds, how large its text is, the dark colours, the same bytes each time), and on the
built site (every page's deck linked, one slide per frame, each caption a slide's note)."""

import dataclasses
import io
import logging
import re

import numpy as np
import pypdf
import pytest

from figures.text.maths import MathsError
from bs4 import BeautifulSoup
from pypdf import generic as g

from figures.engine import dark
from figures.engine.render import frames
from figures.engine.save import to_bytes
from figures.kit import style
from figures.publish import deck_files, decks, pdf_dark
from figures.site import slides
from figures.text.constructs import first_sentence
from figures.keep import disk


def _frame(height: float, word: str, image: bool = False) -> bytes:
    """A frame as the figures draw one: the kit's look, its smallest text, a bar, maybe an image."""
    fig, ax = style.new_figure(height=height)
    ax.bar([0, 1], [1, 2], color=["#0072b2", "#d55e00"])
    ax.set_title(word, fontsize=style.SMALLEST_PT)
    if image:
        ax.imshow(np.arange(12).reshape(3, 4), cmap="Greys", extent=(0, 1, 0, 1))
    return to_bytes(fig, "pdf")


def _deck(lang="en") -> decks.Deck:
    made = [("Figure 1.1 A row of weights.", "frame 1 of 2: it", "The caption, whole. With more.", _frame(2.5, "first")),
            ("Figure 1.1 A row of weights.", "frame 2 of 2: ran", "The caption, whole. With more.", _frame(2.5, "second", True)),
            ("Figure 1.2 A tall one, with maths $d_k$.", "", "Its caption.", _frame(6.4, "tall")),
            # a heading of three lines and a label over a frame placed under them: the frame goes lower
            ("Figure 1.3 A tall one in words: " + "the heads' rows of weights, one under the other, " * 3,
             "frame 1 of 1: ate", "Its caption.", _frame(4.0, "long"))]
    credit = "Figure 1.1 from “Multi-head attention, explained” by someone, CC BY 4.0, https://example.org/mha/#fig-x"
    return decks.Deck(lang, "One head can only blend", "https://example.org/mha/one-head-blends/", 2,
                      tuple(decks.Slide(h, lab, notes, credit, data) for h, lab, notes, data in made))


def _forms(page) -> dict:
    return {name: ref.get_object() for name, ref in page["/Resources"]["/XObject"].items()}


def _placed(page) -> tuple[float, float, float]:
    """(scale, x, y) of the frame drawn on a slide, read from the slide's own content."""
    content = page.get_contents().get_data()
    m = re.search(rb"q ([\d.]+) 0 0 ([\d.]+) ([\d.]+) ([\d.]+) cm /Frame Do Q", content)
    assert m, "no frame drawn on the slide"
    assert m[1] == m[2]  # never stretched
    return float(m[1]), float(m[3]), float(m[4])


@pytest.fixture(scope="module")
def made():
    deck = _deck()
    return deck, decks.deck_pdfs(deck)


def test_a_deck_is_a_title_slide_then_a_slide_per_frame_with_its_caption_as_the_note(made):
    deck, pdfs = made
    reader = pypdf.PdfReader(io.BytesIO(pdfs["light"]))
    assert len(reader.pages) == 1 + len(deck.slides)
    assert all(float(p.mediabox.width) == 1920 and float(p.mediabox.height) == 1080 for p in reader.pages)
    title = reader.pages[0].extract_text()
    assert "One head can only blend" in title and deck.url in title and "CC BY 4.0" in title
    for k, (page, slide) in enumerate(zip(reader.pages[1:], deck.slides), start=2):
        text = " ".join(page.extract_text().split())
        assert "A row of weights." in text or "A tall one" in text
        assert slide.label in text and f"{k} / {len(deck.slides) + 1}" in text
        assert "CC BY 4.0" in text and "https://example.org/mha/#fig-x" in text.replace(" ", "")
        notes = [a.get_object() for a in page["/Annots"]]
        assert [n["/Subtype"] for n in notes] == ["/Text"] and notes[0]["/Contents"] == slide.notes
    assert reader.metadata.title == deck.title


def test_each_slide_shows_its_own_frame_whole(made):
    deck, pdfs = made
    reader = pypdf.PdfReader(io.BytesIO(pdfs["light"]))
    for page, slide in zip(reader.pages[1:], deck.slides):
        form = _forms(page)["/Frame"]
        drawn = pypdf.PdfReader(io.BytesIO(slide.frame)).pages[0]
        assert form.get_data() == drawn.get_contents().get_data()
        assert [float(v) for v in form["/BBox"]] == [float(v) for v in drawn.mediabox]


def test_every_frame_is_drawn_with_its_smallest_text_at_18_units_or_more_clear_of_the_slides_text(made):
    """18 pt at 1080p: the slide is 1080 units high, so the smallest text a figure has
    (style.SMALLEST_PT) is at least 18 units once scaled; the slide's own text at least as large."""
    deck, pdfs = made
    reader = pypdf.PdfReader(io.BytesIO(pdfs["light"]))
    for page, slide in zip(reader.pages[1:], deck.slides):
        scale, x, y = _placed(page)
        width, height = decks.frame_size(slide.frame)
        assert scale * style.SMALLEST_PT >= decks.SMALLEST_TEXT
        assert 0 <= x and x + width * scale <= 1920 and 0 <= y and y + height * scale <= 1080
        if y + height * scale > 1080 - decks.HEAD:  # not under the heading: right of the text column
            assert x >= decks.SIDE + decks.MARGIN
        else:  # under the heading and label, above the credit line: clear of every line of them
            assert y >= decks.FOOT
            text = pypdf.PdfReader(io.BytesIO(decks._text_pages(deck, [decks.frame_size(s.frame) for s in deck.slides])))
            lines = []
            text.pages[list(deck.slides).index(slide) + 1].extract_text(
                visitor_text=lambda t, cm, tm, font, size: lines.append((cm[5] + tm[5], size)) if t.strip() else None)
            above = [(base, size) for base, size in lines if base > y]
            assert above and all(base - 0.3 * size >= y + height * scale for base, size in above), (slide.heading, above)
    sizes = []
    pypdf.PdfReader(io.BytesIO(decks._text_pages(deck, [decks.frame_size(s.frame) for s in deck.slides]))) \
        .pages[1].extract_text(visitor_text=lambda text, cm, tm, font, size: sizes.append(size * abs(tm[3]) * abs(cm[3]))
                               if text.strip() else None)
    assert sizes and min(sizes) >= decks.SMALLEST_TEXT


def test_a_frame_too_tall_for_a_slide_is_refused_with_its_size():
    with pytest.raises(decks.DeckError, match=r"461 x 900 pt .* under the 18"):
        decks.placement(460.8, 900)
    # every frame the figures can draw at their width, up to the tallest they draw (about 6.3 in), fits
    for inches in np.arange(1.0, 6.6, 0.1):
        assert decks.placement(style.WIDTH * 72, inches * 72)[1] * style.SMALLEST_PT >= decks.SMALLEST_TEXT


def _colours(data: bytes) -> set[str]:
    return {"#" + "".join(f"{round(float(v) * 255):02x}" for v in m.groups()[:3])
            for m in re.finditer(rb"([\d.]+) ([\d.]+) ([\d.]+) (?:rg|RG)\b", data)} | \
           {"#" + f"{round(float(m[1]) * 255):02x}" * 3 for m in re.finditer(rb"(?<![\d.])([\d.]+) [gG]\b", data)}


def test_the_dark_deck_has_each_colour_of_the_light_one_turned_by_the_dark_rule(made):
    deck, pdfs = made
    light, darker = (pypdf.PdfReader(io.BytesIO(pdfs[s])) for s in decks.SCHEMES)
    for lp, dp in zip(light.pages, darker.pages):  # the slide's own text and background
        own = [c.get_object().get_data() for c in lp["/Contents"]][:1] if isinstance(lp["/Contents"], g.ArrayObject) \
            else [lp.get_contents().get_data()]
        turned = [c.get_object().get_data() for c in dp["/Contents"]][:1] if isinstance(dp["/Contents"], g.ArrayObject) \
            else [dp.get_contents().get_data()]
        before, after = _colours(own[0]), _colours(turned[0])
        assert "#ffffff" in before and dark.SLATE in after and after == {dark.colour(c) for c in before}
    for lp, dp in zip(light.pages[1:], darker.pages[1:]):
        lf, df = _forms(lp)["/Frame"], _forms(dp)["/Frame"]
        before, after = _colours(lf.get_data()), _colours(df.get_data())
        assert before and after == {dark.colour(c) for c in before}
        for name, image in lf["/Resources"].get("/XObject", {}).items():
            space, turned = image.get_object()["/ColorSpace"], df["/Resources"]["/XObject"][name].get_object()["/ColorSpace"]
            palette = space[3].get_object()
            palette = bytes(palette.original_bytes if isinstance(palette, g.ByteStringObject) else palette.get_data())
            mapped = bytes(turned[3].original_bytes)
            for i in range(0, len(palette), 3):
                assert "#" + mapped[i:i + 3].hex() == dark.colour("#" + palette[i:i + 3].hex())
    assert any(_forms(p)["/Frame"]["/Resources"].get("/XObject") for p in light.pages[1:])  # an image was checked
    assert pdf_dark.dark_content(b"0.5 g 1 0 0 RG 0 0 1 1 re f") == \
        b"%s rg %s RG 0 0 1 1 re f" % tuple(pdf_dark._fmt(pdf_dark._dark_rgb(c)) for c in ((0.5,) * 3, (1.0, 0.0, 0.0)))


def test_an_image_the_dark_rule_cannot_recolour_is_refused_by_name():
    image = g.StreamObject()
    image.update({g.NameObject("/Subtype"): g.NameObject("/Image"), g.NameObject("/ColorSpace"): g.NameObject("/DeviceRGB")})
    resources = g.DictionaryObject({g.NameObject("/XObject"): g.DictionaryObject({g.NameObject("/I1"): image})})
    with pytest.raises(decks.DeckError, match=r"cannot recolour the image /I1: colour space /DeviceRGB"):
        decks._recolour_resources(resources)


def test_the_same_deck_is_the_same_bytes_and_a_changed_frame_a_new_name(made):
    deck, pdfs = made
    assert decks.deck_pdfs(deck) == pdfs
    code = deck_files.code_digest()
    other = dataclasses.replace(deck, slides=(dataclasses.replace(deck.slides[0], frame=_frame(2.5, "changed")),
                                              *deck.slides[1:]))
    assert deck_files.key(deck, "light", code) != deck_files.key(other, "light", code) != deck_files.key(other, "dark", code)
    assert deck_files.key(deck, "light", code) == deck_files.key(_deck(), "light", code)


def test_a_slide_sets_the_captions_maths_and_wraps_lines_to_their_room(caplog):
    assert decks.slide_text("See [the page](x.md) for $\\text{softmax}(q \\cdot k)$ and *this*.") == \
        "See the page for $\\mathrm{softmax}(q \\cdot k)$ and this."
    assert decks.slide_text("Thin spaces: $a\\,v_\\mathbf{x}$.") == "Thin spaces: $a\\,v_\\mathbf{x}$."
    # what mathtext cannot set is written as text (maths.py), or named when it has no text form either
    assert decks.slide_text("Words: $\\textrm{ab}\\,c$.") == "Words: ab c."
    # a character mathtext's font lacks would be an empty box: the maths is written as text, and
    # matplotlib has nothing to warn about
    with caplog.at_level(logging.WARNING, logger="matplotlib"):
        shown = decks.slide_text("乘上 $e^{m_\\text{旧}-m_\\text{新}}$ 缩小")
    assert "$" not in shown and "旧" in shown and "新" in shown and caplog.records == [], (shown, caplog.records)
    with pytest.raises(MathsError, match=r"\\notacommand"):
        decks.slide_text("Bad maths: $\\notacommand{x}$.")
    style.setup()
    text = "一个头只能混合：它给每个词一个权重，权重加起来是一，所以输出是值的加权平均 " * 3
    address = "Figure 3.2 from “Multi-head attention, explained”, https://mha-explained.example.org/en/heads-side-by-side/#fig-four-heads"
    for words, width in ((text, 600), ("A key that stands out ($q \\cdot k$) from the rest, by a fixed strength " * 3, 500),
                         (address, decks.SIDE)):  # an address in the narrow column breaks at its slashes
        lines = decks._wrap(words, 40, width, "en").split("\n")
        assert len(lines) > 1 and "".join(lines).replace(" ", "") == words.replace(" ", "").rstrip()
        assert all(decks._width(line, 40, "en") <= width * 1.02 for line in lines)
        assert all(line.count("$") % 2 == 0 for line in lines)  # maths never split across lines


def test_a_sentence_ends_after_et_al_only_where_the_sentence_ends():
    assert first_sentence("Vaswani et al. (2017), Table 3: the rows. Then more.") == "Vaswani et al. (2017), Table 3: the rows."
    assert first_sentence("One. Two.") == "One."


def test_the_slides_section_links_each_deck_the_build_wrote_under_a_name_of_its_own():
    from figures.publish.numbering import FigureNumber
    numbers = {"blend-rows": FigureNumber("1.1", "one-head-blends.md", 1, {"zh": "一个头", "en": "One head"}),
               "peak-dip": FigureNumber("1.2", "one-head-blends.md", 1, {"zh": "一个头", "en": "One head"}),
               "kv-heads": FigureNumber("6.1", "what-it-costs.md", 6, {"zh": "代价", "en": "Costs"})}
    built = {deck_files.path("one-head-blends.md", s): (f"../figures/{deck_files.path('one-head-blends.md', s)}", 2_100_000)
             for s in decks.SCHEMES}
    en = slides.section("one-head-blends.md", "en", numbers, built.get)
    count = len(frames("blend-rows")) + len(frames("peak-dip"))
    assert en.lstrip().startswith('<div class="mha-slides mha-screen-only" markdown="block">')  # print leaves it out
    assert "{#slides}" in en and "The 2 figures" in en and f"{count} frames" in en and en.count("(2.1 MB)") == 2
    names = re.findall(r'download="([^"]+)"', en + slides.section("one-head-blends.md", "zh", numbers, built.get))
    assert names == ["slides-1-one-head-blends.en.pdf", "slides-1-one-head-blends.en.dark.pdf",
                     "slides-1-one-head-blends.zh.pdf", "slides-1-one-head-blends.zh.dark.pdf"]
    assert slides.section("what-it-costs.md", "en", numbers, built.get) == ""  # the build wrote none: no link
    assert slides.section("glossary.md", "en", numbers, built.get) == ""
    gallery = slides.section("gallery.md", "zh", numbers, built.get)
    assert "[一个头](one-head-blends.md)（第 1 页）" in gallery and "代价" not in gallery


@pytest.mark.parametrize("lang, root", [("zh", ""), ("en", "en/")])
def test_every_page_of_the_built_site_links_its_decks_with_a_slide_per_frame(site, lang, root):
    import mkdocs.config
    from figures.publish.numbering import figure_numbers
    from figures.keep.disk import ROOT
    numbers = figure_numbers(ROOT / "docs", mkdocs.config.load_config(str(ROOT / "mkdocs.yml")).nav, ["zh", "en"])
    gallery = BeautifulSoup((site / root / "gallery" / "index.html").read_text(encoding="utf-8"), "html.parser")
    listed = [a["href"] for a in gallery.select('a[href*="/slides/"]')]
    pages = {}
    for href in listed[::2]:
        pages[href.rsplit("/", 1)[1].removesuffix(".pdf")] = href
    assert len(pages) >= 7 and len(listed) == 2 * len(pages)
    for slug in pages:
        html = BeautifulSoup((site / root / slug / "index.html").read_text(encoding="utf-8"), "html.parser")
        section = html.select_one("#slides")
        assert section is not None, slug
        links = [a for a in html.select('article a[href*="/slides/"]')]
        assert [a["download"].rsplit(".", 2)[-2] for a in links][:1] == [lang]
        placed = [fig_id for fig_id, n in numbers.items() if n.home == f"{slug}.md"]
        for a in links:
            reader = pypdf.PdfReader((site / root / slug / a["href"]).resolve())
            notes = [p["/Annots"][0].get_object()["/Contents"] for p in reader.pages[1:]]
            assert len(reader.pages) - 1 == sum(len(frames(f)) for f in placed), (slug, a["href"])
            assert len(notes) == len(reader.pages) - 1 and all(notes)


def test_a_deck_kept_in_the_cache_is_read_not_made_again(made, tmp_path, monkeypatch):
    deck, pdfs = made
    monkeypatch.setenv("MHA_FIGURE_CACHE", str(tmp_path))
    monkeypatch.setattr(decks, "page_decks", lambda numbers, lang, pdf_of: {"one-head-blends.md": deck})
    first, again = {}, {}
    sizes = deck_files.write_all({}, "en", None, first.__setitem__)
    assert first == {"slides/one-head-blends.pdf": pdfs["light"], "slides/one-head-blends.dark.pdf": pdfs["dark"]}
    assert sizes == {path: len(data) for path, data in first.items()}
    monkeypatch.setattr(decks, "deck_pdfs", lambda *args: pytest.fail("a kept deck was made again"))
    deck_files.write_all({}, "en", None, again.__setitem__)
    kept = sorted((tmp_path / "decks").glob("*.pdf" + disk.SEALED))
    assert again == first and len(kept) == 2
    kept[0].write_bytes(kept[0].read_bytes()[:-100])  # truncated: made again
    monkeypatch.setattr(decks, "deck_pdfs", lambda *args: pdfs)
    deck_files.write_all({}, "en", None, again.__setitem__)
    assert again == first and kept[0].exists()


def test_a_page_whose_figure_fails_to_import_gets_no_deck_and_the_others_theirs(monkeypatch):
    """Under mkdocs serve a figure module may fail to import: its page's deck waits, the rest are made."""
    from figures.engine import registry
    from figures.publish.numbering import FigureNumber
    numbers = {"blend-rows": FigureNumber("1.1", "one-head-blends.md", 1, {"zh": "一个头", "en": "One head"}),
               "kv-heads": FigureNumber("6.1", "what-it-costs.md", 6, {"zh": "代价", "en": "Costs"})}
    real = decks.caption

    def caption(fig_id, lang, where=""):
        if fig_id == "kv-heads":
            raise registry.FigureError(fig_id, lang, None, "failed to import: broken on purpose", "")
        return real(fig_id, lang, where)

    monkeypatch.setattr(decks, "caption", caption)
    frame = _frame(2.5, "x")
    found = decks.page_decks(numbers, "en", lambda f: frame)
    assert list(found) == ["one-head-blends.md"] and len(found["one-head-blends.md"].slides) == len(frames("blend-rows"))
    # a frame without a PDF (it failed to draw): no deck for its page either
    assert decks.page_decks(numbers, "en", lambda f: None) == {}


def test_a_chinese_line_never_starts_with_closing_punctuation_nor_ends_with_opening():
    text = "（每个头）看一个词，（再看“下一个”词），然后（混合）。" * 6
    for width in range(200, 700, 7):  # every place a line can break
        lines = decks._wrap(text, 40, width, "zh").split("\n")
        assert "".join(lines) == text
        assert not [line for line in lines[1:] if line[0] in decks._CLOSING], width
        assert not [line for line in lines[:-1] if line[-1] in decks._OPENING], width


def _fonts(pdf: bytes) -> set[str]:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return {str(font["/BaseFont"]) for page in reader.pages
            for font in page["/Resources"].get("/Font", {}).values()}


def test_english_slides_set_quotation_marks_as_wide_as_latin_text_and_chinese_ones_full_width():
    sizes = [decks.frame_size(s.frame) for s in _deck().slides]
    en, zh = (_fonts(decks._text_pages(_deck(lang), sizes)) for lang in ("en", "zh"))
    assert any("CJKjp" in f for f in en) and not any("CJKsc" in f for f in en), en
    assert any("CJKsc" in f for f in zh) and not any("CJKjp" in f for f in zh), zh
    # the Chinese cut's “ is an em wide: a gap around an English word; the other cut's is not
    assert decks._width("“x”", 40, "en") < 0.7 * decks._width("“x”", 40, "zh")


def test_the_note_icon_covers_neither_the_frame_nor_the_text(made):
    deck, pdfs = made
    reader = pypdf.PdfReader(io.BytesIO(pdfs["light"]))
    cases = [(page, decks.frame_size(slide.frame)) for page, slide in zip(reader.pages[1:], deck.slides)]
    for page, (width, height) in cases:
        scale, x, y = _placed(page)
        x0, y0, x1, y1 = (float(v) for v in page["/Annots"][0].get_object()["/Rect"])
        frame = (x, y, x + width * scale, y + height * scale)
        assert x1 <= frame[0] or x0 >= frame[2] or y1 <= frame[1] or y0 >= frame[3], ((x0, y0, x1, y1), frame)
    # a frame as wide and tall as a slide allows, placed beside the heading: the note goes in the gutter
    for width, height in ((400, 480), (800, 150), (520, 470)):
        where, s = decks.placement(width, height)
        x, y, _ = decks.frame_box(width, height)
        x0, y0, x1, y1 = decks.note_box(width, height)
        assert x1 <= x or x0 >= x + width * s or y1 <= y or y0 >= y + height * s, (where, width, height)
        assert x0 >= decks.MARGIN + (decks.SIDE if where == "beside" else decks.UNDER_WIDTH)  # right of the text
