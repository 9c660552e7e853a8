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


# One file for both schemes. The page shows a frame's SVG as it is in the light scheme, and the same
# file's address with #dark (FRAGMENT) in the slate scheme, so that the site keeps no second SVG of
# every frame. The file carries its dark colours in a stylesheet that only the fragment switches on:
# a rule per colour drawn takes the colour from a custom property when one is set, and the root
# element, when it is the fragment's target (:target), sets one for each colour: colour(c). Custom
# properties are inherited into <use> clones (matplotlib draws every glyph and marker so), which a
# selector naming the target as their ancestor would not reach. An inline image (imshow) comes with
# a recoloured twin right after it, hidden unless the target is set. A program that reads no
# stylesheet (or no var()) sees the light drawing as before.
#
# literal() turns such a file back into the plain dark SVG, dark.svg(light), for a download: a
# slide program may not read stylesheets. docs/assets/mha-figures.js does the same (literalDark),
# and the tests hold the two to the same bytes.

FRAGMENT = "dark"
_ROOT = b"<svg "
_TARGET = b'<svg id="' + FRAGMENT.encode() + b'" '
_SHEET = b'<style type="text/css">'
_OWN = re.compile(rb'<style id="mha-dark">(.*?)</style>', re.S)
_STYLED = re.compile(rb'(fill|stroke)(: |=")(#[0-9a-f]{6})\b')  # in a style, or an attribute (a hatch's)
_IMAGE = re.compile(rb'<image xlink:href="(data:image/png;base64,[^"]*)"([^>]*?)/>')
_TWIN = b'<image class="mha-dark-only" display="none" xlink:href="'
_PAIR = re.compile(rb'(<image xlink:href=")[^"]*("[^>]*?/>)' + re.escape(_TWIN) + rb'([^"]*)"[^>]*?/>')
_ID = re.compile(rb' id="[^"]*"')


class DarkError(ValueError):
    """A light SVG that both() cannot give a dark look by stylesheet alone."""


def both(light: bytes) -> bytes:
    """The light SVG, holding its dark look too: shown when its address ends in #dark."""
    if not light.lstrip().startswith(b"<?xml") or light.count(_ROOT) != 1 or light.count(_SHEET) != 1:
        raise DarkError("not an SVG as matplotlib writes it: one <svg> root and one stylesheet")
    drawn = _IMAGE.sub(b"", light)
    colours = {m[0].decode() for m in _HEX.finditer(drawn)}
    styled = {(m[1].decode(), m[2].decode(), m[3].decode()) for m in _STYLED.finditer(drawn)}
    if stray := colours - {c for _, _, c in styled}:
        raise DarkError(f"colours outside a fill or stroke, which no rule could recolour: {sorted(stray)}")
    rules = "".join((f'[style*="{prop}: {c}"]' if how == ": " else f'[{prop}="{c}"]')
                    + f"{{{prop}:var(--c{c[1:]},{c})!important}}" for prop, how, c in sorted(styled))
    rules += f"#{FRAGMENT}:target{{" + "".join(f"--c{c[1:]}:{colour(c)};" for c in sorted(colours)) + "}"
    twins = [0]

    def twin(m: re.Match) -> bytes:
        twins[0] += 1
        dark = _png(_PNG.match(m[1]))  # the pixels recoloured as dark.svg recolours them
        return m[0] + _TWIN + dark + b'"' + _ID.sub(b"", m[2], count=1) + b"/>"

    out = _IMAGE.sub(twin, light)
    if twins[0]:
        rules += f"#{FRAGMENT}:target image{{display:none}}#{FRAGMENT}:target .mha-dark-only{{display:inline}}"
    out = out.replace(_SHEET, b'<style id="mha-dark">' + rules.encode() + b"</style>" + _SHEET, 1)
    return out.replace(_ROOT, _TARGET, 1)


def literal(dual: bytes) -> bytes:
    """both()'s file as the plain dark SVG it shows at #dark: dark.svg(light) to the byte (stamped
    after both(), it is stamp(dark.svg(light)))."""
    own = _OWN.search(dual)
    if own is None:
        raise DarkError("no dark look in this SVG (dark.both)")
    mapping = {light: dark for light, dark in re.findall(rb"--c([0-9a-f]{6}):(#[0-9a-f]{6})", own[1])}
    out = dual.replace(own[0], b"", 1).replace(_TARGET, _ROOT, 1)
    out = _PAIR.sub(rb"\1\3\2", out)
    return _HEX.sub(lambda m: mapping.get(m[0][1:].lower(), m[0]), out)
