"""The attribution written into the bytes of each format a reader can download: SVG, PNG and PDF.

A stamp takes well under a millisecond (a PDF save alone takes about 0.2 s), so stamping at write
time, not drawing with the metadata, keeps the figure cache independent of the pages.
"""

from __future__ import annotations

import re
import struct
import zlib
from html import escape

from .attribution import Attribution
from .identity import IDENTITY


def stamp(data: bytes, fmt: str, a: Attribution) -> bytes:
    stampers = {"svg": _stamp_svg, "pdf": _stamp_pdf, "png": _stamp_png}
    if fmt not in stampers:
        raise ValueError(f"cannot stamp the format {fmt!r}: known formats are {', '.join(stampers)}")
    return stampers[fmt](data, a)


def _stamp_svg(data: bytes, a: Attribution) -> bytes:
    """<title> and <desc> first in the <svg> (what screen readers and editors show), and the Dublin
    Core fields in the <metadata> block matplotlib wrote: every field a PNG of the frame carries
    (PNG_FIELDS), so that the page's script stamps the PNG it draws from the SVG alike."""
    dc = "".join(f"    <dc:{k}>{escape(v)}</dc:{k}>\n" for k, v in (
        ("title", a.title), ("creator", ", ".join(IDENTITY.authors)), ("description", a.description),
        ("rights", a.rights), ("source", a.source), ("identifier", a.identifier), ("language", a.lang)))
    text = data.decode("utf-8")
    head = f" <title>{escape(a.title)}</title>\n <desc>{escape(a.description)}</desc>\n"
    stamped, n = re.subn(r"( <metadata>.*?<cc:Work>\n)", lambda m: head + m[1] + dc, text, count=1, flags=re.S)
    if n != 1:
        raise ValueError("not an SVG written by matplotlib: no <metadata> block to stamp")
    return stamped.encode("utf-8")


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


# A PNG's text chunks (keyword, the Attribution's field or None for the authors, and the Dublin Core
# field of the SVG stamp that holds the same text: docs/assets/mha-figures.js reads them there)
PNG_FIELDS = (("Title", "title", "title"), ("Author", None, "creator"), ("Description", "description", "description"),
              ("Copyright", "rights", "rights"), ("Source", "source", "source"), ("Identifier", "identifier", "identifier"))


def _stamp_png(data: bytes, a: Attribution) -> bytes:
    """International text chunks (UTF-8, so Chinese fits) right after the header chunk."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG: no IHDR chunk to stamp after")
    end = 8 + 12 + struct.unpack(">I", data[8:12])[0]
    fields = [(key, getattr(a, name) if name else ", ".join(IDENTITY.authors)) for key, name, _ in PNG_FIELDS]
    chunks = b"".join(_png_chunk(b"iTXt", k.encode("latin-1") + b"\0\0\0" + a.lang.encode() + b"\0\0" + v.encode())
                      for k, v in fields)
    return data[:end] + chunks + data[end:]


def _pdf_text(s: str) -> bytes:
    return b"<FEFF" + s.encode("utf-16-be").hex().upper().encode() + b">"


def _stamp_pdf(data: bytes, a: Attribution) -> bytes:
    """An incremental update (PDF 1.4, 7.5.6): a new Info dictionary, appended with its own xref
    section and a trailer pointing back at the old one. The drawing's bytes stay untouched."""
    m = re.search(rb"trailer\s*<<(.*?)>>\s*startxref\s*(\d+)\s*%%EOF\s*$", data, re.S)
    if not m:
        raise ValueError("not a PDF written by matplotlib: no trailer to stamp after")
    size, root = re.search(rb"/Size (\d+)", m[1]), re.search(rb"/Root (\d+ \d+ R)", m[1])
    missing = [key for key, found in (("/Size", size), ("/Root", root)) if not found]
    if missing:  # the new trailer must repeat both
        raise ValueError(f"not a PDF written by matplotlib: its trailer has no {' and no '.join(missing)}")
    size, root = int(size[1]), root[1]
    info = b"".join(b"/%s %s " % (k, _pdf_text(v)) for k, v in (
        (b"Title", a.title), (b"Author", ", ".join(IDENTITY.authors)), (b"Subject", a.description),
        (b"Keywords", a.keywords), (b"Rights", a.rights), (b"Source", a.source), (b"Identifier", a.identifier)))
    body = data if data.endswith(b"\n") else data + b"\n"
    obj = b"%d 0 obj\n<< %s>>\nendobj\n" % (size, info)
    xref = len(body) + len(obj)
    return (body + obj + b"xref\n%d 1\n%010d 00000 n \ntrailer\n<< /Size %d /Root %s /Info %d 0 R /Prev %s >>\n"
            b"startxref\n%d\n%%%%EOF\n" % (size, len(body), size + 1, root, size, m[2], xref))
