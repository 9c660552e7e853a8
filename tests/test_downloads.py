"""Every figure reusable: downloads that carry their attribution, provenance links, the gallery, and
the CLI writing the very bytes the site serves (figures/publish/)."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup
from PIL import Image
from pypdf import PdfReader

from built_pages import parsed
from figures.engine import dark as dark_look, registry
from figures.__main__ import main as cli
from figures.publish.identity import IDENTITY
from figures.engine.render import frames
from figures.engine import save, sources
from figures.publish import attribution, bundles, numbering, provenance
from figures.site import figure_block

LANG_DIRS = {"zh": "", "en": "en/"}
MULTI = "blend-slider"  # a figure with a slider: its frames, its zips


def pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("index.html") if p.parent.name not in ("assets", "search"))


def soup(path: Path) -> BeautifulSoup:
    return parsed(path)


def resolve(site: Path, page: Path, href: str) -> Path:
    """The built file a relative link of `page` leads to (a page's folder: its index.html)."""
    target = (page.parent / unquote(urlsplit(href).path)).resolve()
    return target / "index.html" if target.is_dir() else target


def page_of(site: Path, url: str) -> Path:
    """The built file behind a full URL of this site."""
    assert url.startswith(IDENTITY.site_url), url
    return site / unquote(urlsplit(url).path.removeprefix(urlsplit(IDENTITY.site_url).path)) / "index.html"


def shown_number(site: Path, lang: str, fig_id: str) -> tuple[str, Path]:
    """The figure's number as its home page prints it, and that page (found from the gallery's link)."""
    gallery = site / LANG_DIRS[lang] / "gallery" / "index.html"
    card = soup(gallery).find(id=f"gallery-{fig_id}")
    home = resolve(site, gallery, card.find("a", class_="mha-fig-num")["href"])
    number = soup(home).find(id=f"fig-{fig_id}").find(class_="mha-fig-num").get_text()
    return number, home


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_format_carries_its_attribution(site, lang, tmp_path):
    """The SVG (and its dark look made plain) and the PDF as the site serves them, and the PNG as
    the CLI writes it (the page draws its own from the SVG: tests/test_slide_downloads.py)."""
    frame = frames(MULTI)[1]
    base = site / LANG_DIRS[lang] / "figures"
    number, home = shown_number(site, lang, MULTI)
    svg = (base / frame.path("svg")).read_text(encoding="utf-8")
    # the dark slide's download: the SVG's dark look as a plain SVG (the page's script makes it)
    dark = dark_look.literal((base / frame.path("svg")).read_bytes()).decode("utf-8")
    pdf = PdfReader(io.BytesIO((base / frame.path("pdf")).read_bytes()))
    assert not (base / frame.path("png")).exists()
    assert cli(["--out", str(tmp_path), "--lang", lang, "--only", MULTI, "--format", "png"]) == 0
    png = Image.open(tmp_path / lang / frame.path("png"))
    png.load()
    title = re.search(r"<svg[^>]*>\s*<title>([^<]*)</title>\s*<desc>([^<]*)</desc>", svg)
    dark_title = re.search(r"<svg[^>]*>\s*<title>([^<]*)</title>\s*<desc>([^<]*)</desc>", dark)
    assert title and dark_title, "the SVG's <title> and <desc> come first"
    for got_title, description, source, rights in [
        (title[1], title[2], re.search(r"<dc:source>([^<]*)<", svg)[1], re.search(r"<dc:rights>([^<]*)<", svg)[1]),
        (dark_title[1], dark_title[2], re.search(r"<dc:source>([^<]*)<", dark)[1], re.search(r"<dc:rights>([^<]*)<", dark)[1]),
        (pdf.metadata["/Title"], pdf.metadata["/Subject"], pdf.metadata["/Source"], pdf.metadata["/Rights"]),
        (png.text["Title"], png.text["Description"], png.text["Source"], png.text["Copyright"]),
    ]:
        assert got_title.startswith(number + " ")  # the number the page shows
        assert page_of(site, source) == home and source.endswith(f"#fig-{MULTI}")
        assert source in description and IDENTITY.version in description
        assert IDENTITY.content_licence in rights and IDENTITY.content_licence_url in rights
        assert all(author in rights for author in IDENTITY.authors)
    assert pdf.metadata["/Author"] == ", ".join(IDENTITY.authors)
    assert "/CreationDate" not in pdf.metadata and "/ModDate" not in pdf.metadata  # no build-time clock
    assert "Date" not in svg and "Creation Time" not in png.text
    # real text, not outlines: the figure's own words can be found in the PDF
    words = "权重" if lang == "zh" else "weight"
    assert words in pdf.pages[0].extract_text()
    assert abs(png.size[0] - 2 * 96 * float(re.search(r'width="([\d.]+)pt"', svg)[1]) / 72) <= 1  # 2x the page


def test_every_download_link_resolves(site):
    links = 0
    for page in pages(site):
        doc = soup(page)
        for figure in doc.select("figure.mha-figure, figure.mha-gallery-item"):
            for a in figure.select(".mha-downloads a[download]"):
                assert resolve(site, page, a["href"]).is_file(), (page, a["href"])
                links += 1
            for frame in figure.select(".mha-frame"):
                for fmt in save.FORMATS:
                    assert resolve(site, page, frame[f"data-{fmt}"]).is_file(), (page, fmt)
            copy = figure.select_one("a.mha-copy-link")
            if figure["class"] == ["mha-figure"]:  # the figure's anchor, on whatever address the page is read
                assert copy["href"] == f"#{figure['id']}"
    assert links > 2 * len(registry.ORDER) * len(save.FORMATS)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_gallery_lists_every_figure(site, lang):
    gallery = site / LANG_DIRS[lang] / "gallery" / "index.html"
    cards = soup(gallery).select("figure.mha-gallery-item")
    assert sorted(c["id"].removeprefix("gallery-") for c in cards) == sorted(registry.ORDER)
    numbers = [tuple(map(int, re.findall(r"\d+", c.find(class_="mha-fig-num").get_text()))) for c in cards]
    assert numbers == sorted(numbers)  # in figure-number order
    for card in cards:
        fig_id = card["id"].removeprefix("gallery-")
        assert resolve(site, gallery, card.img["src"]).is_file() and card.img["loading"] == "lazy"
        assert card.find("code").get_text() == fig_id
        home = card.find("a", class_="mha-fig-num")
        assert soup(resolve(site, gallery, home["href"])).find(id=f"fig-{fig_id}"), home["href"]
        assert len(card.select(".mha-downloads a[download]")) >= len(save.FORMATS)


def test_provenance_names_real_definitions(site):
    doc = soup(site / "one-head-blends" / "index.html")
    for box in doc.select("figure.mha-figure"):
        fig_id = box["id"].removeprefix("fig-")
        links = box.select(".mha-provenance a")
        assert links[0].get_text() == registry.module_name(fig_id).replace(".", "/") + ".py"
        assert len(links) > 1, f"{fig_id}: no mha_ref function named"
        for a in links[1:]:
            m = re.fullmatch(re.escape(IDENTITY.repository) + r"/blob/v[^/]+/(.+)#L(\d+)", a["href"])
            line = (Path(sources.ROOT) / m[1]).read_text(encoding="utf-8").splitlines()[int(m[2]) - 1]
            name = a.get_text().split(".")[-1]
            assert re.match(rf"\s*def {name}\(", line), (a.get_text(), m[1], m[2], line)


def test_cli_writes_the_sites_bytes(site, tmp_path):
    """The CLI's files are the site's, byte for byte; its zips of all frames (which the site does not
    keep: the page packs them) hold the site's frames, each as the site serves it. Its PNGs the site
    does not keep either (the page draws them from the SVG)."""
    chosen = [MULTI, "published-models"]
    assert cli(["--out", str(tmp_path), "--only", *chosen, "--format", "svg,pdf,png"]) == 0
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    zips = [p for p in written if p.endswith(".zip")]
    assert {p.split("/", 1)[1] for p in zips} == {bundles.zip_path(MULTI, fmt) for fmt in save.FORMATS}
    for rel in written:
        lang, path = rel.split("/", 1)
        served = site / LANG_DIRS[lang] / "figures" / path
        if path.endswith(".png"):  # the site keeps no PNG: the page draws it from the SVG
            assert not served.exists(), rel
        elif rel in zips:
            assert not served.exists(), rel
            with zipfile.ZipFile(tmp_path / rel) as z:
                fmt = path.removesuffix(".zip").rsplit("-", 1)[1]
                assert z.namelist() == bundles.zip_members(MULTI, fmt)
                assert all(i.date_time == bundles.ZIP_TIME for i in z.infolist())
                for name in z.namelist()[1:]:
                    if not name.endswith(".png"):
                        assert z.read(name) == (site / LANG_DIRS[lang] / "figures" / name).read_bytes(), name
        else:
            assert (tmp_path / rel).read_bytes() == served.read_bytes(), rel
    expected = {f"{lang}/{f.path(fmt)}" for lang in LANG_DIRS for i in chosen for f in frames(i) for fmt in save.FORMATS}
    assert expected <= set(written)


def test_the_page_names_what_its_zips_hold(site):
    """What the page's script packs a zip of all frames from (mha-figures.js): the files its row
    names (data-base + each of data-frames + the format) are the site's frames, in frame order, and
    the attribution it writes first is the CLI's ATTRIBUTION.txt (the browser test packs them)."""
    numbers = numbering.site_numbers()
    for lang, prefix in LANG_DIRS.items():
        page = site / prefix / "one-head-blends" / "index.html"
        box = soup(page).find(id=f"fig-{MULTI}")
        row = box.select_one(".mha-dl-every")
        stems = row["data-frames"].split()
        assert [f"{s}.pdf" for s in stems] == [f.path("pdf") for f in frames(MULTI)]
        for a in row.select("a.mha-zip"):
            fmt = a["data-zip"]
            source = "svg" if a.get("data-width") else fmt  # a PNG is drawn from the frame's SVG
            assert (fmt == "png") == (source == "svg" != fmt)
            for stem in stems:
                assert resolve(site, page, row["data-base"] + stem + "." + source) == site / prefix / "figures" / f"{stem}.{source}"
                assert (site / prefix / "figures" / f"{stem}.{source}").is_file()
            made = bundles.zip_frames(MULTI, fmt, [], attribution.attribution(frames(MULTI)[0]._replace(value=None, slug=None), lang, numbers.get(MULTI)))
            with zipfile.ZipFile(io.BytesIO(made)) as z:
                assert row["data-attribution"] == z.read(bundles.ATTRIBUTION).decode()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_files_title_is_plain_words_in_its_print_wording(lang):
    """A downloaded file is read away from the page: its title holds no page construct, Markdown or
    TeX, and where a caption speaks of the slider it says what the frames show instead."""
    numbers = numbering.site_numbers()
    for fig_id in registry.ORDER:
        a = attribution.attribution(frames(fig_id)[0], lang, numbers.get(fig_id))
        assert not re.search(r"\{\{|\}\}|[`*$\\]|\]\(", a.title), a.title
        assert not re.search(r"slider|滑块|拖", a.title), a.title


@pytest.mark.parametrize("lang", LANG_DIRS)
def test_a_long_source_list_is_folded_under_its_count(site, lang):
    """A figure whose drawing reaches more than PROVENANCE_FOLD mha_ref functions (seed-roles reaches
    the whole training and measuring code) shows its module, then the functions folded under their
    count; no link sits inside the fold's summary; a short list stays one line."""
    doc = soup(site / LANG_DIRS[lang] / "what-trained-heads-do" / "index.html")
    searched = (site / LANG_DIRS[lang] / "search" / "search_index.json").read_text(encoding="utf-8")
    searched = searched.replace("\u200b", "")  # jieba's mark between Chinese words
    folded = 0
    for box in doc.select("figure.mha-figure"):
        fig_id = box["id"].removeprefix("fig-")
        functions = provenance.provenance(fig_id)[1:]
        prov = box.select_one(".mha-provenance")
        links = prov.select("a")
        assert [a.get_text() for a in links[1:]] == [f.label.removeprefix("mha_ref.") for f in functions]
        fold = prov.select_one("details.mha-provenance-fold")
        if len(functions) > figure_block.PROVENANCE_FOLD:
            folded += 1
            assert fold is not None and not fold.summary.select("a"), fig_id
            assert re.search(rf"\b{len(functions)}\b", fold.summary.get_text()), fold.summary
            assert len(fold.select("a")) == len(functions)
            # data-search-exclude: not searched (Material's search drops the attribute once it has read it)
            assert json.dumps(fold.summary.get_text(), ensure_ascii=False)[1:-1] not in searched, fold.summary
        else:
            assert fold is None, fig_id
    assert folded >= 1  # seed-roles
