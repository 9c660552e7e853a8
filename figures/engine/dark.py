"""The dark variant of a drawn frame: the same SVG, every colour moved to suit Material's slate scheme.

Recolouring the light SVG, rather than drawing the figure again with other colours, keeps the
geometry and every id the same by construction, and costs a fraction of a drawing (python -m bench
reports it).
The rule, per colour (a colour drawn in the figures is one of a few dozen):

- white, the panel behind everything, becomes the slate page's own background, so the figure
  sits on the page with no bright panel;
- a grey is turned over, keeping its contrast ratio with every other grey: black and dark grey
  (the ink of text and axes) become light grey, light grey (grid lines, the query's box, pale
  cells) dark grey, and text keeps its contrast with the cell it is written on;
- a light tint of a colour (a bar's pale fill) becomes a tint as far from the slate background as
  it was from white, in the same hue;
- any other colour (the heads' colours, the blends between them, colour maps) keeps its hue and
  saturation and is lightened until it stands out from the slate background at 4.5:1, the
  contrast WCAG asks of text (tests/test_dark.py).

Raster images inside the SVG (the weight matrices, drawn by imshow) are recoloured pixel by pixel
with the same rule.
"""

from __future__ import annotations

import base64
import colorsys
import functools
import io
import re

import numpy as np
from PIL import Image

# Material for MkDocs' slate background, hsl(232, 15%, 14%) (--md-default-bg-color), as Chromium paints it.
SLATE = "#1e2129"
TEXT_CONTRAST = 4.5


def _rgb(hex_colour: str) -> tuple[float, float, float]:
    return tuple(int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))


def _hex(rgb) -> str:
    return "#" + "".join(f"{round(min(max(c, 0.0), 1.0) * 255):02x}" for c in rgb)


def luminance(hex_colour: str) -> float:
    """WCAG relative luminance."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in _rgb(hex_colour)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two colours, 1 to 21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


_SLATE_L = colorsys.rgb_to_hls(*_rgb(SLATE))[1]


def _grey_turned_over(hex_colour: str) -> str:
    """The grey whose luminance Y' makes (Y' + 0.05)(Y + 0.05) the same for every grey: white
    becomes the slate background, and any two greys keep their WCAG contrast ratio, so ink that
    read on white reads as well on slate, and text keeps its contrast with a grey cell under it."""
    y = (luminance(SLATE) + 0.05) * 1.05 / (luminance(hex_colour) + 0.05) - 0.05
    v = min(0.94, 12.92 * y if y <= 0.0031308 else 1.055 * y ** (1 / 2.4) - 0.055)  # ink: no glaring white
    return _hex((v, v, v))


@functools.lru_cache(maxsize=None)
def colour(hex_colour: str) -> str:
    """The dark scheme's colour for a light scheme's colour ('#rrggbb', lower case)."""
    if hex_colour == "#ffffff":
        return SLATE
    h, lightness, s = colorsys.rgb_to_hls(*_rgb(hex_colour))
    if s < 0.15:  # greys: turned over
        return _grey_turned_over(hex_colour)
    if lightness >= 0.8:  # light tints: behind things
        return _hex(colorsys.hls_to_rgb(h, _SLATE_L + (1 - lightness) * 1.1, s * 0.6))
    out = hex_colour
    while contrast(out, SLATE) < TEXT_CONTRAST and lightness < 1:
        lightness = min(lightness + 0.01, 1.0)
        out = _hex(colorsys.hls_to_rgb(h, lightness, s))
    return out


_HEX = re.compile(rb"#[0-9a-fA-F]{6}\b")
_PNG = re.compile(rb"data:image/png;base64,\s*([A-Za-z0-9+/=\s]+)")


def _png(m: re.Match) -> bytes:
    image = Image.open(io.BytesIO(base64.b64decode(m[1]))).convert("RGBA")
    pixels = np.asarray(image)
    rgb = pixels[..., :3].astype(np.uint32)
    unique, index = np.unique((rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2], return_inverse=True)
    mapped = np.array([[int(colour(f"#{c:06x}")[i:i + 2], 16) for i in (1, 3, 5)] for c in unique], dtype=np.uint8)
    out = np.concatenate([mapped[index.reshape(pixels.shape[:2])], pixels[..., 3:]], axis=2)
    buf = io.BytesIO()
    Image.fromarray(out, "RGBA").save(buf, format="png")
    return b"data:image/png;base64," + base64.b64encode(buf.getvalue())


def svg(data: bytes) -> bytes:
    """The dark variant of a light SVG frame: every colour, inline images included, recoloured."""
    data = _PNG.sub(_png, data)
    return _HEX.sub(lambda m: colour(m[0].decode().lower()).encode(), data)
