"""A PDF's colours turned to the dark scheme's (figures/engine/dark.py: colour): every colour a
content stream sets (rg, RG, g, G) and an indexed image's palette. What makes a slide deck's dark
PDF from its light one (decks.py)."""

from __future__ import annotations

import re

from ..engine import dark

_NUM = rb"(-?(?:\d+\.?\d*|\.\d+))"
_RGB = re.compile(_NUM + rb"\s+" + _NUM + rb"\s+" + _NUM + rb"\s+(rg|RG)(?=[\s/\[<(]|$)")
_GREY = re.compile(_NUM + rb"\s+(g|G)(?=[\s/\[<(]|$)")


def _dark_rgb(values: tuple[float, ...]) -> tuple[float, float, float]:
    hexed = "#" + "".join(f"{round(min(max(v, 0.0), 1.0) * 255):02x}" for v in values)
    mapped = dark.colour(hexed)
    return tuple(int(mapped[i:i + 2], 16) / 255 for i in (1, 3, 5))


def _fmt(values) -> bytes:
    return b" ".join(f"{v:.4f}".rstrip("0").rstrip(".").encode() or b"0" for v in values)


def dark_content(data: bytes) -> bytes:
    """A PDF content stream with every colour set by rg, RG, g or G turned to the dark scheme's
    (figures/engine/dark.py: colour)."""
    def rgb(m: re.Match) -> bytes:
        return _fmt(_dark_rgb(tuple(float(m[i]) for i in (1, 2, 3)))) + b" " + m[4]

    def grey(m: re.Match) -> bytes:
        return _fmt(_dark_rgb((float(m[1]),) * 3)) + (b" rg" if m[2] == b"g" else b" RG")

    return _GREY.sub(grey, _RGB.sub(rgb, data))


def dark_palette(palette: bytes) -> bytes:
    out = bytearray()
    for i in range(0, len(palette) - len(palette) % 3, 3):
        out += bytes(int(c * 255 + 0.5) for c in _dark_rgb(tuple(b / 255 for b in palette[i:i + 3])))
    return bytes(out)
