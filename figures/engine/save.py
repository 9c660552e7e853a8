"""A drawn figure as bytes: each format saved by this package's canvases, with nothing in it that
changes from run to run (no date, no tool version), and the dark variant recoloured from the SVG."""

from __future__ import annotations

import io

import matplotlib.pyplot as plt

from . import dark, pdf_canvas, png_canvas, svg_canvas

FORMATS = ("svg", "png", "pdf")  # what a frame is saved as, for the page and for download
# The page's other looks of a frame, never downloaded: for the slate scheme (dark.py), for phones,
# print and small multiples (kit.style.narrow()), and both.
VARIANTS = ("dark.svg", "narrow.svg", "narrow.dark.svg")
KINDS = FORMATS + VARIANTS

# Each format is saved by matplotlib's canvas with a memory of every text measured and parsed in
# the process (svg_canvas.py, pdf_canvas.py, png_canvas.py). Imported, not only named, so that the
# figure cache (sources.py) sees them among the code every frame is drawn with.
_BACKENDS = {fmt: f"module://{m.__name__}" for fmt, m in (("svg", svg_canvas), ("pdf", pdf_canvas),
                                                        ("png", png_canvas))}
_METADATA = {
    "svg": {"Date": None, "Creator": None},
    "pdf": {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None},
    "png": {"Software": None},
}


def to_bytes(fig, fmt: str = "svg") -> bytes:
    """Serialise and close a figure, with no date or tool version inside (identical bytes each run)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown figure format {fmt!r}; use one of {FORMATS}")
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format=fmt, metadata=_METADATA[fmt], backend=_BACKENDS[fmt])
    finally:
        plt.close(fig)
    return buf.getvalue()


PNG_DPI = 192  # PNG downloads at 2x: the page shows a figure at CSS's 96 px per inch


def to_bytes_each(fig, fmts) -> tuple[bytes, ...]:
    """One drawing saved in each format, then closed. SVG is saved first whatever is asked, so
    that its save runs the layout, as for the page's own SVG; the other formats reuse that
    layout, so a PDF or PNG is the same whichever formats are asked with it. "dark.svg" is the
    SVG recoloured (figures/engine/dark.py)."""
    for fmt in fmts:
        if fmt not in (*FORMATS, "dark.svg"):
            raise ValueError(f"unknown figure format {fmt!r}; use one of {(*FORMATS, 'dark.svg')}")
    saved = {}
    try:
        for fmt in ("svg", *(f for f in FORMATS if f in fmts and f != "svg")):
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, metadata=_METADATA[fmt], backend=_BACKENDS[fmt],
                        **({"dpi": PNG_DPI} if fmt == "png" else {}))
            saved[fmt] = buf.getvalue()
            fig.set_layout_engine("none")  # laid out: keep the positions, do not lay out again
    finally:
        plt.close(fig)
    if "dark.svg" in fmts:
        saved["dark.svg"] = dark.svg(saved["svg"])
    return tuple(saved[fmt] for fmt in fmts)
