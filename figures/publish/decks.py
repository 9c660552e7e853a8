"""Slide decks for lecturers: for each page that explains figures, a 16:9 PDF in each language,
one for a light room and one for a dark one, made at build time from the frames' own PDFs (no
browser, nothing drawn again).

A deck opens with a title slide (the page's title, the site, the page's address, the licence),
then has one slide per frame of each figure the page explains, in the page's order: the figure's
number and title, which frame it is, the frame itself as large as the slide allows, and the credit
line with the licence at the foot. The figure's caption is the slide's speaker text: a PDF note
(text annotation) on the slide, which presenter views and comment panels list.

The page is 1920 x 1080 pt, one unit per pixel of a 1080p screen, so "18 pt at 1080p" is 18
units here. A frame is placed either under the slide's heading or beside it, whichever lets it be
larger, and never smaller than SMALLEST_TEXT / SMALLEST_PT, so that the smallest text of any
figure (figures/kit/style.py: SMALLEST_PT) is at least SMALLEST_TEXT units on the slide. Maths'
sub- and superscripts are set smaller than the text they hang on, as in print.

The frame is the frame's PDF page itself, placed as a form (a PDF "XObject"), so a deck weighs
about what its frames' PDFs weigh. In the dark deck every colour of the frame, the palettes of its
images included, goes through the same rule as the page's dark drawings (figures/engine/dark.py).
"""

from __future__ import annotations

import functools
import io
import re
from dataclasses import dataclass

import matplotlib
import matplotlib.backends.backend_agg
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure
import pypdf
from pypdf import generic as g

from ..engine import registry
from ..engine.render import frames
from ..kit import style
from ..kit.words import FIGURE_LABEL
from ..text.constructs import first_sentence, plain
from ..text.mathtext import slide_text
from . import expansions
from .attribution import caption, credit_line, frame_words, page_url
from .expansions import CAPTIONS
from .identity import IDENTITY, licence_name
from .pdf_dark import dark_content, dark_palette

PAGE_W, PAGE_H = 1920, 1080  # pt: one unit per pixel of a 1080p screen
MARGIN = 60
EDGE = 30             # the least room above and below a frame placed beside its heading
SIDE = 620            # the text column beside a frame that is placed beside its heading
HEAD = 190            # the least room above a frame that is placed under its heading (head_room)
LINE = 1.3            # a line of text is this many times its size high
FOOT = 110            # the room below it, for the credit line
SMALLEST_TEXT = 18    # units: the least any figure's text is drawn at on a slide
SCHEMES = ("light", "dark")
SIZES = {"title": 64, "heading": 40, "label": 30, "body": 26, "credit": 20}  # units; all >= SMALLEST_TEXT

WORDS = {
    "zh": {"from": "出自《{site}》", "figures": "{figures} 张图，{frames} 帧", "notes": "每张幻灯片的讲稿（图注）在它的 PDF 注释里。",
           "licence": "{licence} 许可 · {authors}", "version": "版本 {}"},
    "en": {"from": "from “{site}”", "figures": "{figures} figures, {frames} frames",
           "notes": "Each slide's speaker text (the figure's caption) is in its PDF note.",
           "licence": "Licensed {licence} · {authors}", "version": "version {}"},
}


class DeckError(ValueError):
    """A deck cannot be made from what it was given (a frame's PDF missing or unreadable)."""


@dataclass(frozen=True)
class Slide:
    heading: str    # "图 1.1 一个头只能混合": the figure's number and title
    label: str      # which frame ("第 2/6 帧：4 · it"), or "" for a figure of one frame
    notes: str      # the caption, as plain text in its print wording: the speaker text
    credit: str     # the credit line, licence included
    frame: bytes    # the frame's PDF, as drawn (one page)


@dataclass(frozen=True)
class Deck:
    lang: str
    title: str      # the page's title
    url: str        # the page's address
    figures: int
    slides: tuple[Slide, ...]


def page_decks(numbers: dict, lang: str, pdf_of) -> dict[str, Deck]:
    """The decks of one language: nav entry ("one-head-blends.md") -> Deck, for each page that
    explains a figure, in page order. pdf_of(frame) is the frame's PDF bytes as drawn, or None:
    a page with a frame that has none gets no deck (a failed frame in `mkdocs serve`)."""
    homes: dict[str, list[tuple[tuple[int, ...], str]]] = {}
    for fig_id, n in numbers.items():
        homes.setdefault(n.home, []).append((tuple(map(int, n.number.split("."))), fig_id))
    decks = {}
    for home, placed in sorted(homes.items(), key=lambda kv: min(kv[1])[0]):
        try:
            slides = _slides(placed, numbers, lang, pdf_of)
        except registry.FigureError:  # a figure that fails to import (mkdocs serve): its page's deck waits
            continue
        if slides is not None:
            decks[home] = Deck(lang, numbers[placed[0][1]].titles[lang], page_url(home, lang), len(placed), slides)
    return decks


def _slides(placed: list, numbers: dict, lang: str, pdf_of) -> tuple[Slide, ...] | None:
    """A page's slides, in the order of its figures' numbers; None if a frame has no PDF (it failed
    under mkdocs serve). A figure that fails to import raises its FigureError."""
    slides = []
    for _, fig_id in sorted(placed):
        n = numbers[fig_id]
        words = caption(fig_id, lang)
        # kept beside the captions: setting its maths with mathtext, for a build, is the costly part
        heading = f"{FIGURE_LABEL[lang].format(n.number)} " + expansions.kept(
            CAPTIONS, ("slide heading", words), lambda: first_sentence(slide_text(words)), "a slide's heading")
        notes, credit = plain(words, media="print"), credit_line(fig_id, lang, n)
        for frame in frames(fig_id):
            data = pdf_of(frame)
            if data is None:
                return None
            slides.append(Slide(heading, frame_words(frame, lang), notes, credit, data))
    return tuple(slides)


def placement(width: float, height: float, head: float = HEAD) -> tuple[str, float]:
    """Where a frame of this size (pt) goes on a slide and at what scale: ("under", s) below a
    heading that takes `head` units from the top (head_room), or ("beside", s) right of a text
    column, whichever is larger. Refuses a frame that cannot be shown with its text at SMALLEST_TEXT."""
    under = min((PAGE_W - 2 * MARGIN) / width, (PAGE_H - head - FOOT - MARGIN) / height)
    beside = min((PAGE_W - SIDE - 3 * MARGIN) / width, (PAGE_H - 2 * EDGE) / height)
    where, scale = max(("under", under), ("beside", beside), key=lambda p: p[1])
    if scale * style.SMALLEST_PT < SMALLEST_TEXT:
        raise DeckError(f"a frame of {width:.0f} x {height:.0f} pt fits a slide only at {scale:.2f} times, "
                        f"which draws its {style.SMALLEST_PT} pt text at {scale * style.SMALLEST_PT:.1f} units, "
                        f"under the {SMALLEST_TEXT} a slide asks")
    return where, scale


def frame_box(width: float, height: float, head: float = HEAD) -> tuple[float, float, float]:
    """(x, y, scale): where the frame's lower left corner goes on the slide (PDF units, y up)."""
    where, s = placement(width, height, head)
    w, h = width * s, height * s
    if where == "under":
        return (PAGE_W - w) / 2, FOOT + (PAGE_H - head - FOOT - h) / 2, s
    return SIDE + 2 * MARGIN + (PAGE_W - SIDE - 3 * MARGIN - w) / 2, (PAGE_H - h) / 2, s


UNDER_WIDTH = PAGE_W - 2 * MARGIN - 200  # the heading's width over a frame placed under it
NOTE = 36  # the speaker note's icon, a square


def note_box(width: float, height: float, head: float = HEAD) -> tuple[float, float, float, float]:
    """Where a slide's note icon goes (x0, y0, x1, y1) so that it covers neither frame nor text:
    right of the heading over a frame placed under it, in the gutter between the text column and
    a frame placed beside it (which may reach the slide's top right corner)."""
    where, _ = placement(width, height, head)
    x = PAGE_W - MARGIN - NOTE if where == "under" else SIDE + MARGIN + (MARGIN - NOTE) / 2
    return x, PAGE_H - MARGIN - NOTE, x + NOTE, PAGE_H - MARGIN


def head_room(slide: Slide, lang: str) -> float:
    """How far down from the slide's top its heading and frame label reach when the frame is placed
    under them (at least HEAD): a long heading takes more lines, and the frame goes lower."""
    lines = _wrap(slide.heading, SIZES["heading"], UNDER_WIDTH, lang).count("\n") + 1
    label = 16 + SIZES["label"] * LINE if slide.label else 0
    return max(HEAD, MARGIN + lines * SIZES["heading"] * LINE + label + 24)


# --- the text of the slides, drawn by matplotlib -------------------------------------------------

_CJK_CHARS = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"
# punctuation that never starts a line (it closes or ends something) and that never ends one
_CLOSING = "）】》」』〉〕，。、；：！？”’"
_OPENING = "（【《「『〈〔“‘"
# what a line may break between: a word (maths and what sticks to it included) with the spaces
# after it, one Chinese character, and an address's parts (after a slash, before a #); opening
# punctuation sticks to what follows it, closing punctuation to what comes before
_TOKEN = re.compile(rf"[{_OPENING}]*(?:#?(?:\$[^$]*\$|[^\s$/#{_CJK_CHARS}{_CLOSING}])+/*[{_CLOSING}]*\s*"
                    rf"|[/#]+\s*|[{_CJK_CHARS}][{_CLOSING}]*)|[{_CLOSING}]+|\s+")
# English text in the CJK face's Japanese cut: the same Latin letters as the Chinese cut's, but
# quotation marks as wide as a Latin text's (the Chinese cut's are a whole em wide, a visible gap)
FAMILY = {"zh": ("Noto Sans CJK SC", "DejaVu Sans"), "en": ("Noto Sans CJK JP", "DejaVu Sans")}


def _wrap(text: str, size: float, width: float, lang: str) -> str:
    """The text broken into lines no wider than `width` units at `size`: between words, and
    between any two Chinese characters (a line never starts with a space or closing punctuation)."""
    lines, line, wide = [], "", 0.0
    for token in _TOKEN.findall(text):
        if line and wide + _width(token.rstrip(), size, lang) > width:
            lines.append(line.rstrip())
            line = token.lstrip()
            wide = _width(line, size, lang)
        else:
            line += token
            wide += _width(token, size, lang)
    return "\n".join([*lines, line.rstrip()])


_MEASURE = Figure(dpi=72)  # a point is a unit: text measured as the slides draw it


@functools.lru_cache(maxsize=None)
def _width(token: str, size: float, lang: str) -> float:
    """A piece of text's width in units at `size`, a little more than it takes (kerning between
    pieces is not counted), so that a line measured piece by piece is never wider than its room."""
    if not token.strip():
        return size * 0.3 * len(token)
    matplotlib.backends.backend_agg.FigureCanvasAgg(_MEASURE)
    probe = _MEASURE.text(0, 0, token, fontsize=size, family=list(FAMILY[lang]))
    try:
        return probe.get_window_extent(_MEASURE.canvas.get_renderer()).width * 1.02
    finally:
        probe.remove()


def _text_pages(deck: Deck, sizes: list[tuple[float, float]]) -> bytes:
    """The deck's pages with their text only, one per slide after the title slide, in the light
    scheme: matplotlib draws them (the CJK face and the settings of every figure, figures/kit/style.py)."""
    style.setup()
    back, ink, muted = "#ffffff", style.INK, style.MUTED
    w = WORDS[deck.lang]
    out = io.BytesIO()
    with PdfPages(out, metadata={"Creator": None, "Producer": None, "CreationDate": None, "ModDate": None}) as pdf:
        def page():
            fig = Figure(figsize=(PAGE_W / 72, PAGE_H / 72), dpi=72, facecolor=back)
            matplotlib.backends.backend_agg.FigureCanvasAgg(fig)
            return fig

        def put(fig, x, y, text, size, colour, width, **kw) -> int:
            """Text at (x, y) units, wrapped to `width`; how many lines it took."""
            wrapped = _wrap(text, size, width, deck.lang)
            fig.text(x / PAGE_W, y / PAGE_H, wrapped, fontsize=size, color=colour, linespacing=LINE,
                     family=list(FAMILY[deck.lang]), **kw)
            return wrapped.count("\n") + 1

        fig = page()
        full = PAGE_W - 2 * MARGIN
        put(fig, MARGIN, PAGE_H - 200, deck.title, SIZES["title"], ink, full, va="top")
        put(fig, MARGIN, PAGE_H - 330, w["from"].format(site=IDENTITY.title[deck.lang]), SIZES["heading"], ink, full, va="top")
        put(fig, MARGIN, PAGE_H - 420, w["figures"].format(figures=deck.figures, frames=len(deck.slides)),
            SIZES["body"], muted, full, va="top")
        put(fig, MARGIN, 260, deck.url, SIZES["body"], ink, full, va="bottom")
        put(fig, MARGIN, 200, w["version"].format(IDENTITY.version) + " · " + w["licence"].format(
            licence=licence_name(IDENTITY.content_licence), authors=", ".join(IDENTITY.authors)),
            SIZES["credit"], muted, full, va="bottom")
        put(fig, MARGIN, 140, w["notes"], SIZES["credit"], muted, full, va="bottom")
        pdf.savefig(fig)

        for k, (slide, (fw, fh)) in enumerate(zip(deck.slides, sizes), start=1):
            fig = page()
            where, _ = placement(fw, fh, head_room(slide, deck.lang))
            width = UNDER_WIDTH if where == "under" else SIDE
            lines = put(fig, MARGIN, PAGE_H - MARGIN, slide.heading, SIZES["heading"], ink, width, va="top")
            if slide.label:  # under the heading, whatever its lines
                put(fig, MARGIN, PAGE_H - MARGIN - lines * SIZES["heading"] * LINE - 16, slide.label, SIZES["label"],
                    muted, width, va="top")
            # the foot, where no frame reaches: the credit line, and the slide's number at the end of
            # its room (under it in the narrow column, where the credit's address may take the whole line)
            lift = 0 if where == "under" else SIZES["credit"] * 1.6
            put(fig, MARGIN, 30 + lift, slide.credit, SIZES["credit"], muted, width - (140 if where == "under" else 0),
                va="bottom")
            fig.text((MARGIN + width) / PAGE_W, 30 / PAGE_H, f"{k + 1} / {len(deck.slides) + 1}",
                     fontsize=SIZES["credit"], color=muted, ha="right", va="bottom", family=list(FAMILY[deck.lang]))
            pdf.savefig(fig)
    return out.getvalue()


# --- the frames, placed as forms -------------------------------------------------------------------

def _recolour_resources(resources: g.DictionaryObject) -> None:
    """The dark scheme's colours in a form's resources: its images' palettes (matplotlib writes every
    image indexed, its alpha apart as a soft mask) and the content of its patterns (hatches).
    Refuses an image of any other kind, which it could not recolour."""
    for name, ref in (resources.get("/XObject") or {}).items():
        xobject = ref.get_object()
        if xobject.get("/Subtype") != "/Image":
            continue
        space = xobject.get("/ColorSpace")
        if not (isinstance(space, g.ArrayObject) and len(space) == 4 and space[0] == "/Indexed"
                and space[1] == "/DeviceRGB"):
            raise DeckError(f"cannot recolour the image {name}: colour space {space}")
        lookup = space[3].get_object()
        palette = lookup.get_data() if isinstance(lookup, g.StreamObject) else bytes(lookup.original_bytes)
        space[3] = g.ByteStringObject(dark_palette(palette))
    for ref in (resources.get("/Pattern") or {}).values():
        pattern = ref.get_object()
        if isinstance(pattern, g.StreamObject):
            pattern.set_data(dark_content(pattern.get_data()))


@functools.lru_cache(maxsize=64)  # a frame is placed in the light deck, then in the dark one
def _frame_page(frame: bytes) -> tuple[pypdf.PageObject, bytes]:
    """The frame's one page, and its content stream decoded."""
    try:
        page = pypdf.PdfReader(io.BytesIO(frame)).pages[0]
        content = page.get_contents()
    except Exception as e:  # pypdf's errors are many; any of them means the bytes are not a PDF page
        raise DeckError(f"a frame's PDF cannot be read: {e}") from e
    return page, b"" if content is None else content.get_data()


def _form(writer: pypdf.PdfWriter, frame: bytes, scheme: str) -> tuple[g.IndirectObject, float, float]:
    """The frame's page as a form in `writer`: (reference, width, height)."""
    page, data = _frame_page(frame)
    box = page.mediabox
    resources = page["/Resources"].clone(writer)
    if scheme == "dark":
        data = dark_content(data)
        _recolour_resources(resources)
    form = g.StreamObject()
    form.update({g.NameObject("/Type"): g.NameObject("/XObject"), g.NameObject("/Subtype"): g.NameObject("/Form"),
                 g.NameObject("/BBox"): g.ArrayObject([g.FloatObject(v) for v in box]),
                 g.NameObject("/Resources"): resources})
    form.set_data(data)
    form = form.flate_encode()
    return writer._add_object(form), float(box.width), float(box.height)


def _note(rect: tuple[float, float, float, float], text: str) -> g.DictionaryObject:
    """A PDF note (text annotation) holding the slide's speaker text; not printed."""
    return g.DictionaryObject({
        g.NameObject("/Type"): g.NameObject("/Annot"), g.NameObject("/Subtype"): g.NameObject("/Text"),
        g.NameObject("/Rect"): g.ArrayObject([g.FloatObject(v) for v in rect]),
        g.NameObject("/Contents"): g.TextStringObject(text), g.NameObject("/Name"): g.NameObject("/Comment"),
        g.NameObject("/Open"): g.BooleanObject(False), g.NameObject("/F"): g.NumberObject(0),
    })


def frame_size(frame: bytes) -> tuple[float, float]:
    """A frame's width and height in pt."""
    box = _frame_page(frame)[0].mediabox
    return float(box.width), float(box.height)


def deck_pdfs(deck: Deck) -> dict[str, bytes]:
    """The deck as one PDF in each scheme: the same bytes for the same deck. The slides' text is
    drawn once; the dark deck is the light one with every colour turned (dark_content), its
    background and ink as the dark drawings have them."""
    sizes = [frame_size(s.frame) for s in deck.slides]
    text = _text_pages(deck, sizes)
    return {scheme: _assembled(deck, text, scheme) for scheme in SCHEMES}


def _assembled(deck: Deck, text: bytes, scheme: str) -> bytes:
    """The slides' text pages with each slide's frame placed on it, in a scheme."""
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(text)))
    if scheme == "dark":
        for page in writer.pages:
            content = page.get_contents()
            turned = g.StreamObject()
            turned.set_data(dark_content(content.get_data()))
            page[g.NameObject("/Contents")] = writer._add_object(turned.flate_encode())
    for page, slide in zip(writer.pages[1:], deck.slides):
        ref, w, h = _form(writer, slide.frame, scheme)
        x, y, s = frame_box(w, h, head_room(slide, deck.lang))
        # matplotlib's pages share one resources dictionary: each slide gets its own, naming its frame
        resources = g.DictionaryObject(page.get("/Resources", g.DictionaryObject()).get_object())
        xobjects = g.DictionaryObject(resources.get("/XObject", g.DictionaryObject()).get_object())
        xobjects[g.NameObject("/Frame")] = ref
        resources[g.NameObject("/XObject")] = xobjects
        page[g.NameObject("/Resources")] = resources
        drawn = g.StreamObject()
        drawn.set_data(f"q {s:.5f} 0 0 {s:.5f} {x:.3f} {y:.3f} cm /Frame Do Q".encode())
        # the page's text (matplotlib writes one stream a page), then the frame over it
        page[g.NameObject("/Contents")] = g.ArrayObject([page.raw_get("/Contents"), writer._add_object(drawn)])
        page[g.NameObject("/Annots")] = g.ArrayObject([writer._add_object(_note(
            note_box(w, h, head_room(slide, deck.lang)), slide.notes))])
    writer.add_metadata({"/Title": deck.title, "/Author": ", ".join(IDENTITY.authors),
                         "/Subject": deck.url, "/Keywords": f"{IDENTITY.content_licence}; v{IDENTITY.version}",
                         "/Producer": "mha-explained"})
    writer.page_mode = "/UseNone"
    # the frames of a figure draw the same glyphs, each frame's PDF with its own copy: one is kept
    writer.compress_identical_objects(remove_duplicates=True, remove_unreferenced=True)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
