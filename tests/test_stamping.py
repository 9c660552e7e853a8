"""Downloads stamped with their attribution (figures/publish/stamp.py) on small hand-made files: SVG, PNG
and PDF stamps, the all-frames zip, the CSV table, and the attribution itself. No figure is drawn
and nothing is built: test_downloads.py checks the built site's files."""

from __future__ import annotations

import dataclasses
import io
import re
import struct
import xml.etree.ElementTree as ET
import zipfile
import zlib
from types import SimpleNamespace

import pytest
from PIL import Image
from pypdf import PdfReader

from figures.engine import registry
from figures.keep import disk
from figures.kit.control import Control
import identities
from figures.engine.render import Frame
from figures.publish.numbering import FigureNumber
from figures.publish import attribution, bundles, stamp

ID = dataclasses.replace(identities.ID, authors=("张三", "Ann O'Neil"))  # a Chinese name, a quote

A = attribution.Attribution(
    title="图 1.2 <注意> & “权重” 'q'",
    description="图 1.2（第 2/3 帧：v = 0.5），出自《多头注意力》：https://x.example/repo/one-head-blends/#fig-demo",
    source="https://x.example/repo/one-head-blends/#fig-demo?a=1&b=2",
    rights="采用 CC-BY-4.0 许可（https://creativecommons.org/licenses/by/4.0/），署名：张三, Ann O'Neil",
    identifier="demo/v-0.50@1.2.0",
    lang="zh",
    keywords="demo; CC-BY-4.0; https://x.example/repo/one-head-blends/#fig-demo; v1.2.0",
)


@pytest.fixture(autouse=True)
def identity(monkeypatch):
    """The stamps read the authors from IDENTITY: a fixed one, with a Chinese name."""
    monkeypatch.setattr(stamp, "IDENTITY", ID)
    monkeypatch.setattr(attribution, "IDENTITY", ID)


# ---- SVG --------------------------------------------------------------------------------------

SVG_HEAD = ('<?xml version="1.0" encoding="utf-8" standalone="no"?>\n'
            '<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="72pt" height="72pt" viewBox="0 0 72 72" '
            'xmlns="http://www.w3.org/2000/svg" version="1.1">\n')
METADATA_OPEN = (' <metadata>\n'
                 '  <rdf:RDF xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:cc="http://creativecommons.org/ns#" '
                 'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
                 '   <cc:Work>\n')
METADATA_REST = ('    <dc:type rdf:resource="http://purl.org/dc/dcmitype/StillImage"/>\n'
                 '    <dc:format>image/svg+xml</dc:format>\n'
                 '   </cc:Work>\n'
                 '  </rdf:RDF>\n'
                 ' </metadata>\n')
BODY = ' <g id="figure_1">\n  <path d="M 0 0 L 72 72" style="stroke: #000"/>\n </g>\n</svg>\n'
SVG_IN = (SVG_HEAD + METADATA_OPEN + METADATA_REST + BODY).encode()

SVG_OUT = (SVG_HEAD
           + " <title>图 1.2 &lt;注意&gt; &amp; “权重” &#x27;q&#x27;</title>\n"
           + " <desc>图 1.2（第 2/3 帧：v = 0.5），出自《多头注意力》：https://x.example/repo/one-head-blends/#fig-demo</desc>\n"
           + METADATA_OPEN
           + "    <dc:title>图 1.2 &lt;注意&gt; &amp; “权重” &#x27;q&#x27;</dc:title>\n"
           + "    <dc:creator>张三, Ann O&#x27;Neil</dc:creator>\n"
           + "    <dc:description>图 1.2（第 2/3 帧：v = 0.5），出自《多头注意力》："
             "https://x.example/repo/one-head-blends/#fig-demo</dc:description>\n"
           + "    <dc:rights>采用 CC-BY-4.0 许可（https://creativecommons.org/licenses/by/4.0/），"
             "署名：张三, Ann O&#x27;Neil</dc:rights>\n"
           + "    <dc:source>https://x.example/repo/one-head-blends/#fig-demo?a=1&amp;b=2</dc:source>\n"
           + "    <dc:identifier>demo/v-0.50@1.2.0</dc:identifier>\n"
           + "    <dc:language>zh</dc:language>\n"
           + METADATA_REST + BODY).encode()

SVG = "{http://www.w3.org/2000/svg}"
DC = "{http://purl.org/dc/elements/1.1/}"


def test_svg_stamp_exact():
    assert stamp.stamp(SVG_IN, "svg", A) == SVG_OUT


def test_svg_title_and_desc_come_first_and_dublin_core_reads_back():
    root = ET.fromstring(stamp.stamp(SVG_IN, "svg", A))
    assert [child.tag for child in root][:3] == [f"{SVG}title", f"{SVG}desc", f"{SVG}metadata"]
    assert root.find(f"{SVG}title").text == A.title  # <&>' survive the escaping
    assert root.find(f"{SVG}desc").text == A.description
    work = root.find(f"{SVG}metadata/{{http://www.w3.org/1999/02/22-rdf-syntax-ns#}}RDF/"
                     "{http://creativecommons.org/ns#}Work")
    dc = {el.tag.removeprefix(DC): el.text for el in work}
    assert dc == {"title": A.title, "creator": "张三, Ann O'Neil", "description": A.description, "rights": A.rights,
                  "source": A.source, "identifier": A.identifier, "language": "zh", "type": None,
                  "format": "image/svg+xml"}
    assert root.find(f"{SVG}g/{SVG}path").get("d") == "M 0 0 L 72 72"  # the drawing untouched


def test_svg_stamp_of_a_real_matplotlib_svg():
    from matplotlib.figure import Figure
    fig = Figure(figsize=(0.5, 0.5))
    fig.add_subplot().plot([0, 1])
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    root = ET.fromstring(stamp.stamp(buf.getvalue(), "svg", A))
    assert [child.tag for child in root][:2] == [f"{SVG}title", f"{SVG}desc"]
    assert root.find(f"{SVG}title").text == A.title
    assert root.find(f".//{DC}identifier").text == A.identifier


@pytest.mark.parametrize("data", [
    b'<svg xmlns="http://www.w3.org/2000/svg"><g/></svg>',  # no metadata (an error card, a hand-written SVG)
    (SVG_HEAD + "<metadata><cc:Work/></metadata>" + BODY).encode(),  # not matplotlib's layout
])
def test_an_svg_without_matplotlibs_metadata_is_refused(data):
    with pytest.raises(ValueError, match=r"^not an SVG written by matplotlib: no <metadata> block to stamp$"):
        stamp.stamp(data, "svg", A)


# ---- PNG --------------------------------------------------------------------------------------

def png_in() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (3, 2), (200, 30, 30)).save(buf, format="PNG")
    return buf.getvalue()


def chunks(data: bytes) -> list[tuple[bytes, bytes, int]]:
    """(type, body, stored CRC) of every chunk, read by hand."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    out, at = [], 8
    while at < len(data):
        (n,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + n]
        (crc,) = struct.unpack(">I", data[at + 8 + n:at + 12 + n])
        out.append((kind, body, crc))
        at += 12 + n
    assert at == len(data)
    return out


PNG_FIELDS = [("Title", A.title), ("Author", "张三, Ann O'Neil"), ("Description", A.description),
              ("Copyright", A.rights), ("Source", A.source), ("Identifier", A.identifier)]


def test_png_itxt_chunks_right_after_ihdr_with_valid_crcs():
    original = png_in()
    stamped = stamp.stamp(original, "png", A)
    before, after = chunks(original), chunks(stamped)
    assert [k for k, _, _ in after] == [b"IHDR", *[b"iTXt"] * 6, *[k for k, _, _ in before[1:]]]
    assert after[0] == before[0] and after[7:] == before[1:]  # every other chunk as it was
    for kind, body, crc in after:
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
    # iTXt: keyword NUL, compression flag 0, method 0, language NUL, translated keyword NUL, UTF-8 text
    expected = [k.encode("latin-1") + b"\0" + b"\0\0" + b"zh\0" + b"\0" + v.encode("utf-8") for k, v in PNG_FIELDS]
    assert [body for _, body, _ in after[1:7]] == expected


def test_png_text_round_trips_through_pillow():
    stamped = stamp.stamp(png_in(), "png", A)
    Image.open(io.BytesIO(stamped)).verify()  # Pillow checks every chunk's CRC
    with Image.open(io.BytesIO(stamped)) as im:
        im.load()
        assert dict(im.text) == dict(PNG_FIELDS)
        assert im.text["Title"] == "图 1.2 <注意> & “权重” 'q'"
        assert {im.text[k].lang for k, _ in PNG_FIELDS} == {"zh"}
        assert im.size == (3, 2) and im.getpixel((2, 1)) == (200, 30, 30)


@pytest.mark.parametrize("data", [b"", b"GIF89a" + b"\0" * 30, b"\x89PNG\r\n\x1a\n" + b"\0\0\0\x04gAMA\0\0\0\0"])
def test_a_file_that_is_not_a_png_is_refused(data):
    with pytest.raises(ValueError, match=r"^not a PNG: no IHDR chunk to stamp after$"):
        stamp.stamp(data, "png", A)


# ---- PDF --------------------------------------------------------------------------------------

def pdf_in(final_newline: bool = True) -> bytes:
    """A one-page PDF as matplotlib lays one out: objects, xref, trailer with /Info, startxref."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 72 36 ] /Resources << >> >>",
               b"<< >>"]
    out, offsets = bytearray(b"%PDF-1.4\n%\xac\xdc \xab\xba\n"), []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i, body)
    xref = len(out)
    out += b"xref\n0 5\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size 5 /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF" % xref
    return bytes(out) + (b"\n" if final_newline else b"")


def pdf_trailers(data: bytes) -> list[bytes]:
    return re.findall(rb"trailer\s*<<(.*?)>>\s*startxref", data, re.S)


@pytest.mark.parametrize("final_newline", [True, False])
def test_pdf_stamp_is_an_incremental_update_that_pypdf_reads(final_newline):
    original = pdf_in(final_newline)
    stamped = stamp.stamp(original, "pdf", A)
    assert stamped.startswith(original)  # the drawing's bytes untouched
    update = stamped[len(original):]
    assert update.startswith(b"\n5 0 obj\n<< /Title <FEFF" if not final_newline else b"5 0 obj\n<< /Title <FEFF")
    old_xref = int(original.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    old, new = pdf_trailers(stamped)
    assert new.split() == [b"/Size", b"6", b"/Root", b"1", b"0", b"R", b"/Info", b"5", b"0", b"R",
                           b"/Prev", str(old_xref).encode()]
    start = int(stamped.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    assert stamped[start:start + 19] == b"xref\n5 1\n%010d" % stamped.index(b"5 0 obj")
    assert stamped.endswith(b"%%EOF\n")

    reader = PdfReader(io.BytesIO(stamped), strict=True)
    assert len(reader.pages) == 1 and [float(x) for x in reader.pages[0].mediabox] == [0, 0, 72, 36]
    info = reader.metadata
    assert info.title == A.title and info.author == "张三, Ann O'Neil" and info.subject == A.description
    assert info["/Keywords"] == A.keywords
    assert (info["/Rights"], info["/Source"], info["/Identifier"]) == (A.rights, A.source, A.identifier)


def test_pdf_text_is_utf16_hex_so_any_character_round_trips():
    tricky = A._replace(title="a (b) \\ c ) 注意 𝑥 \u00e9", description="")
    stamped = stamp.stamp(pdf_in(), "pdf", tricky)
    hexed = "a (b) \\ c ) 注意 𝑥 \u00e9".encode("utf-16-be").hex().upper().encode()
    assert b"/Title <FEFF" + hexed + b">" in stamped
    info = PdfReader(io.BytesIO(stamped), strict=True).metadata
    assert info.title == tricky.title and info.subject == ""


def test_pdf_stamp_of_a_real_matplotlib_pdf():
    from matplotlib.figure import Figure
    fig = Figure(figsize=(0.5, 0.5))
    fig.add_subplot().plot([0, 1])
    buf = io.BytesIO()
    fig.savefig(buf, format="pdf", metadata={"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None})
    info = PdfReader(io.BytesIO(stamp.stamp(buf.getvalue(), "pdf", A)), strict=True).metadata
    assert info.title == A.title and info["/Identifier"] == A.identifier


@pytest.mark.parametrize("data", [
    b"",
    b"%PDF-1.4\nnot a pdf at all\n",
    pdf_in() + b"% something after the end\n",
    pdf_in().replace(b"trailer\n", b""),  # a PDF with an xref stream has no trailer keyword
])
def test_a_file_that_is_not_matplotlibs_pdf_is_refused(data):
    with pytest.raises(ValueError, match=r"^not a PDF written by matplotlib: no trailer to stamp after$"):
        stamp.stamp(data, "pdf", A)


@pytest.mark.parametrize("cut, missing", [(b"/Root 1 0 R ", "/Root"), (b"/Size 5 ", "/Size"),
                                          (b"/Size 5 /Root 1 0 R ", "/Size and no /Root")])
def test_a_trailer_without_root_is_refused_by_name(cut, missing):
    with pytest.raises(ValueError, match=f"^not a PDF written by matplotlib: its trailer has no {missing}$"):
        stamp.stamp(pdf_in().replace(cut, b""), "pdf", A)


def test_an_unknown_format_is_refused_by_name():
    with pytest.raises(ValueError, match=r"^cannot stamp the format 'eps': known formats are svg, pdf, png$"):
        stamp.stamp(b"", "eps", A)


# ---- the all-frames zip -----------------------------------------------------------------------

FRAMES = [(Frame("demo", 0.0, "v-0.00"), b"<svg>0</svg>\n" * 20), (Frame("demo", 0.5, "v-0.50"), b"<svg>1</svg>\n" * 20),
          (Frame("demo", 1.0, "v-1.00"), b"<svg>2</svg>\n" * 20)]


def local_headers(data: bytes) -> list[tuple[str, int, int, int]]:
    """(name, compression, DOS time, DOS date) of each local file header, read by hand."""
    out, at = [], 0
    while data[at:at + 4] == b"PK\x03\x04":
        _, _, flags, method, time, date, _, csize, _, n, m = struct.unpack("<IHHHHHIIIHH", data[at:at + 30])
        name = data[at + 30:at + 30 + n].decode("utf-8" if flags & 0x800 else "cp437")
        out.append((name, method, time, date))
        at += 30 + n + m + csize
    return out


def test_zip_holds_the_attribution_then_each_frame_in_order():
    data = bundles.zip_frames("demo", "svg", FRAMES, A)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.namelist() == ["ATTRIBUTION.txt", "demo/v-0.00.svg", "demo/v-0.50.svg", "demo/v-1.00.svg"]
        assert z.read("ATTRIBUTION.txt") == (A.title + "\n" + A.description + "\n").encode("utf-8")
        assert [z.read(f.path("svg")) for f, _ in FRAMES] == [d for _, d in FRAMES]
        assert z.testzip() is None
        for info in z.infolist():
            assert info.date_time == (1980, 1, 1, 0, 0, 0)
            assert info.external_attr == 0o644 << 16  # rw-r--r--, whatever the builder's umask


def test_zip_timestamps_are_fixed_in_the_bytes_and_two_zips_are_identical():
    first = bundles.zip_frames("demo", "svg", FRAMES, A)
    # DOS date of 1980-01-01: (1980 - 1980) << 9 | 1 << 5 | 1; time 00:00:00 is 0
    assert {(t, d) for _, _, t, d in local_headers(first)} == {(0, 0x21)}
    assert bundles.zip_frames("demo", "svg", FRAMES, A) == first
    assert bundles.zip_frames("demo", "svg", list(FRAMES), A._replace()) == first


@pytest.mark.parametrize("fmt, frames_method", [("svg", zipfile.ZIP_DEFLATED), ("png", zipfile.ZIP_STORED),
                                                ("pdf", zipfile.ZIP_STORED)])
def test_zip_deflates_text_and_stores_what_is_compressed_already(fmt, frames_method):
    files = [(f, d) for f, d in FRAMES]
    headers = local_headers(bundles.zip_frames("demo", fmt, files, A))
    assert headers[0][:2] == ("ATTRIBUTION.txt", zipfile.ZIP_DEFLATED)
    assert [(name, method) for name, method, _, _ in headers[1:]] == [
        (f"demo/{f.slug}.{fmt}", frames_method) for f, _ in FRAMES]


# ---- the CSV table ----------------------------------------------------------------------------

@pytest.fixture
def figure_with_data(monkeypatch):
    """A registered-looking figure "csv-demo" whose data(lang) the test sets. It has no module whose
    sources could name its table in the figure cache, so the cache is off."""
    monkeypatch.setenv(disk.CACHE_ENV, "0")
    fake = SimpleNamespace()
    real_get = registry.get
    monkeypatch.setattr(registry, "get", lambda fig_id: fake if fig_id == "csv-demo" else real_get(fig_id))
    bundles.data_table.cache_clear()
    yield fake
    bundles.data_table.cache_clear()


def test_csv_has_a_bom_crlf_and_quotes_only_where_needed(figure_with_data):
    figure_with_data.data = lambda lang: (
        ["词元 token", "weight, %", 'say "hi"'],
        [["它", "0.50", "two\nlines"], ["x", "", 1], ["plain", 0.25, "a;b"]],
    )
    assert bundles.data_csv("csv-demo", "zh") == (
        b"\xef\xbb\xbf"
        + '词元 token,"weight, %","say ""hi"""\r\n'.encode()
        + '它,0.50,"two\nlines"\r\n'.encode()
        + b"x,,1\r\n"
        + b"plain,0.25,a;b\r\n")


def test_csv_asks_the_figure_in_the_language_asked(figure_with_data):
    figure_with_data.data = lambda lang: (["k"], [[lang]])
    assert bundles.data_csv("csv-demo", "en") == b"\xef\xbb\xbfk\r\nen\r\n"
    assert bundles.data_csv("csv-demo", "zh") == b"\xef\xbb\xbfk\r\nzh\r\n"


def test_a_figure_without_data_has_no_csv(figure_with_data):
    assert bundles.data_csv("csv-demo", "zh") is None


@pytest.mark.parametrize("rows", [[], [["a", "b"], ["c"]], [["a", "b", "c"]]])
def test_a_table_of_the_wrong_shape_is_refused_by_figure(figure_with_data, rows):
    figure_with_data.data = lambda lang: (["h1", "h2"], rows)
    with pytest.raises(bundles.DataTableError, match=r"^figure csv-demo: data\(\) must give rows of 2 cells$"):
        bundles.data_csv("csv-demo", "zh")


# ---- the attribution --------------------------------------------------------------------------

@pytest.fixture
def demo_figure(monkeypatch):
    """A figure "demo" with three frames and a caption whose first sentence has print wording."""
    control = Control(label_zh="比例", label_en="ratio", values=(0.0, 0.5, 1.0), start=0.5,
                      slug=lambda v: f"v-{v:.2f}", value_label=lambda v, lang: f"v = {v}")
    fake = SimpleNamespace(
        CONTROL=control,
        CAPTION_ZH='`it` 的一行权重，{{ screen "拖动滑块" print "逐帧" }}看它变化。第二句不进标题。',
        CAPTION_EN='The row of weights for `it`; {{ screen "drag the slider" print "go through the frames" }} '
                   "to see it change. A second sentence.",
    )
    real_get = registry.get
    monkeypatch.setattr(registry, "get", lambda fig_id: fake if fig_id == "demo" else real_get(fig_id))
    return fake


NUMBER = FigureNumber(number="1.2", home="one-head-blends.md", page=1, titles={})


def test_attribution_of_a_frame_in_chinese(demo_figure):
    a = attribution.attribution(Frame("demo", 0.5, "v-0.50"), "zh", NUMBER)
    assert a == attribution.Attribution(
        title="图 1.2 it 的一行权重，逐帧看它变化。",
        description=("图 1.2（第 2/3 帧：v = 0.5），出自《多头注意力》：https://x.example/repo/one-head-blends/#fig-demo。"
                     "采用 CC-BY-4.0 许可（https://creativecommons.org/licenses/by/4.0/），署名：张三, Ann O'Neil；"
                     "版本 1.2.0（非正式发布的构建，地址不固定）"),
        source="https://x.example/repo/one-head-blends/#fig-demo",
        rights="采用 CC-BY-4.0 许可（https://creativecommons.org/licenses/by/4.0/），署名：张三, Ann O'Neil",
        identifier="demo/v-0.50@1.2.0",
        lang="zh",
        keywords="demo; CC-BY-4.0; https://x.example/repo/one-head-blends/#fig-demo; v1.2.0",
    )


def test_attribution_of_a_frame_in_english(demo_figure):
    a = attribution.attribution(Frame("demo", 1.0, "v-1.00"), "en", NUMBER)
    assert a.title == "Figure 1.2 The row of weights for it; go through the frames to see it change."
    assert a.description == (
        "Figure 1.2 (frame 3 of 3: v = 1.0) of Multi-head attention, explained: "
        "https://x.example/repo/en/one-head-blends/#fig-demo. Licensed CC-BY-4.0 "
        "(https://creativecommons.org/licenses/by/4.0/); attribute to 张三, Ann O'Neil; version 1.2.0 "
        "(a build, not a release: the address is not frozen)")
    assert a.source == "https://x.example/repo/en/one-head-blends/#fig-demo"
    assert (a.identifier, a.lang) == ("demo/v-1.00@1.2.0", "en")


def test_attribution_of_the_whole_figure_and_of_an_unplaced_one(demo_figure):
    whole = attribution.attribution(Frame("demo", None, None), "en", NUMBER)  # the zip's ATTRIBUTION.txt
    assert whole.description.startswith("Figure 1.2 of Multi-head attention, explained: ")
    assert whole.identifier == "demo/demo@1.2.0"
    unplaced = attribution.attribution(Frame("demo", 0.0, "v-0.00"), "zh", None)
    assert unplaced.title.startswith("图（未编号） it 的一行权重")
    assert unplaced.source == "https://x.example/repo/#fig-demo"
    assert unplaced.description.startswith("图（未编号）（第 1/3 帧：v = 0.0），出自《多头注意力》：https://x.example/repo/#fig-demo。")


@pytest.mark.parametrize("lang, page, latest", [
    ("zh", "https://x.example/repo/1.2.0/one-head-blends/#fig-demo", "，最新版：https://x.example/repo/latest/one-head-blends/#fig-demo"),
    ("en", "https://x.example/repo/1.2.0/en/one-head-blends/#fig-demo", "; newest version: https://x.example/repo/latest/en/one-head-blends/#fig-demo")])
def test_a_release_attributes_each_file_to_its_frozen_address_with_the_newest_beside_it(demo_figure, monkeypatch,
                                                                                       lang, page, latest):
    """.github/CONTRIBUTING.md, "Releases": the page's address in this release's folder, and the same page in `latest`."""
    released = dataclasses.replace(ID, site_url="https://x.example/repo/1.2.0/", release="1.2.0",
                                   home_url="https://x.example/repo/")
    monkeypatch.setattr(attribution, "IDENTITY", released)
    a = attribution.attribution(Frame("demo", 0.5, "v-0.50"), lang, NUMBER)
    assert a.source == page and f"{page}{'。' if lang == 'zh' else '. '}" in a.description
    assert a.description.endswith(("版本 1.2.0" if lang == "zh" else "version 1.2.0") + latest)
    assert "not a release" not in a.description and "非正式" not in a.description


def test_page_url_puts_the_first_language_at_the_root():
    assert attribution.page_url("index.md", "zh") == "https://x.example/repo/"
    assert attribution.page_url("index.md", "en") == "https://x.example/repo/en/"
    assert attribution.page_url("one-head-blends.md", "zh") == "https://x.example/repo/one-head-blends/"
    assert attribution.page_url("one-head-blends.md", "en") == "https://x.example/repo/en/one-head-blends/"
