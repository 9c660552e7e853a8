"""The site's SVGs made lighter (figures/publish/bundles.py, compact): the same drawing to a hundredth
of a point, every text and the dark look's stylesheet as they were."""

import re
import xml.etree.ElementTree as ET

from figures.publish import bundles

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}href"
TOKEN = re.compile(r"[A-Za-z]|-?\d+(?:\.\d+)?(?:e-?\d+)?")
ARGUMENTS = {"m": 2, "l": 2, "q": 4, "c": 6, "z": 0}


def _absolute(d: str) -> list[tuple[str, tuple[float, ...]]]:
    """Path data, absolute or relative, as its segments: ("M", (x, y)), ("C", (6 numbers)), ("Z", ())."""
    tokens, out, i = TOKEN.findall(d), [], 0
    x = y = x0 = y0 = 0.0
    command = None
    while i < len(tokens):
        if tokens[i].isalpha():
            command = tokens[i]
            i += 1
        n = ARGUMENTS[command.lower()]
        numbers = [float(t) for t in tokens[i:i + n]]
        i += n
        if command.islower():
            numbers = [v + (x if k % 2 == 0 else y) for k, v in enumerate(numbers)]
        upper = command.upper()
        out.append((upper, tuple(numbers)))
        if upper == "Z":
            x, y = x0, y0
        else:
            x, y = numbers[-2], numbers[-1]
            if upper == "M":
                x0, y0 = x, y
                command = "l" if command == "m" else "L"  # after a moveto, pairs are linetos
    return out


def _drawing(svg: bytes) -> tuple[list, list, dict]:
    """What the SVG draws: every element in order with its tag, its attributes (ids only where
    referred to, glyph ids by font order and character, places and path data as numbers), and its
    text; and the referred ids' elements."""
    root = ET.fromstring(svg)
    referred = set(re.findall(r"#([A-Za-z][\w.-]*)", svg.decode()))
    fonts: dict[str, str] = {}

    def name(ref: str) -> str:  # a glyph as (its font's place in the file, its character)
        font, _, code = ref.rpartition("-")
        return f"{fonts.setdefault(font, str(len(fonts)))}:{code}" if re.fullmatch(r"[0-9a-f]+", code) and font else ref

    elements, paths = [], []
    for e in root.iter():
        attrs = dict(e.attrib)
        if attrs.get("id") and attrs["id"] not in referred and e.tag == SVG + "g":
            del attrs["id"]
        if e.tag == SVG + "path" and "id" in attrs:
            attrs["id"] = name(attrs["id"])
        if XLINK in attrs and e.tag == SVG + "use":
            attrs[XLINK] = name(attrs[XLINK][1:])
        place = re.fullmatch(r"translate\(([-\d.e]+) ([-\d.e]+)\)", attrs.get("transform", ""))
        if e.tag == SVG + "use" and place:
            del attrs["transform"]
            attrs["x"], attrs["y"] = place[1], place[2]
        for k in ("x", "y"):
            if e.tag == SVG + "use":
                attrs[k] = round(float(attrs.get(k, 0)), 2)
        if "transform" in attrs:  # a place to a hundredth
            attrs["transform"] = re.sub(r"translate\(([^)]*)\)", lambda t: "translate({})".format(
                " ".join(f"{float(v):.2f}" for v in t[1].split())), attrs["transform"])
        if "d" in attrs:
            paths.append(_absolute(attrs.pop("d")))
        if e.tag == SVG + "g" and not attrs and not len(e) and not (e.text or "").strip():
            continue  # an empty group: draws nothing
        elements.append((e.tag, sorted(attrs.items()), (e.text or "").strip()))
    return elements, paths, fonts


def _close(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        p == q or (p[0] == q[0] and len(p[1]) == len(q[1]) and all(abs(u - v) <= 0.0051 for u, v in zip(p[1], q[1])))
        for p, q in zip(a, b))


def test_a_compact_svg_is_the_same_drawing_to_a_hundredth_of_a_point(checked_frames):
    saved = 0
    for (frame, lang), c in list(checked_frames.items())[::7]:  # every seventh frame: all kinds of figure
        svg = c.files["svg"]
        small = bundles.compact(svg)
        saved += len(svg) - len(small)
        (elements, paths, _), (small_elements, small_paths, _) = _drawing(svg), _drawing(small)
        assert small_elements == elements, frame.path()
        assert len(paths) == len(small_paths), frame.path()
        for a, b in zip(paths, small_paths):
            assert _close(a, b), (frame.path(), a[:3], b[:3])
        assert not re.search(rb">\n +<", small)
        assert not re.search(rb'\sd="[^"]*\d\.\d{3}', small) and not re.search(rb'<use [^>]*(?: [xy]="[^"]*|translate\([^)]*)\d\.\d{3}', small)
    assert saved > 0


def test_a_title_that_holds_decimals_keeps_them():
    svg = (b'<svg>\n <title>w = 0.125 d="1.23456"</title>\n <g>\n  <path d="M 0.123456 1.5 \nL 2 2.004999 \nz\n"/>\n'
           b' </g>\n</svg>\n')
    assert bundles.compact(svg) == (b'<svg>\n<title>w = 0.125 d="1.23456"</title>\n<g>\n<path d="m0.12 1.5 1.88 0.5z"/>\n'
                                    b'</g>\n</svg>\n')


def test_path_data_is_relative_and_keeps_only_the_spaces_its_grammar_needs():
    svg = b'<path id="G-4a" d="M 589 0 L 1178 -0.5 C -1.234 -5 6 7 8 9 z \nM 883 4192 z L 1 1"/>'
    assert bundles.compact(svg) == b'<path id="F0-4a" d="m589 0 589-0.5c-1179.23-4.5-1172 7.5-1170 9.5zm294 4192zl-882-4191"/>'
    assert _close(_absolute("m589 0 589-0.5c-1179.23-4.5-1172 7.5-1170 9.5zm294 4192zl-882-4191"), [
        ("M", (589, 0)), ("L", (1178, -0.5)), ("C", (-1.23, -5, 6, 7, 8, 9)), ("Z", ()), ("M", (883, 4192)), ("Z", ()),
        ("L", (1, 1))])


def test_data_of_another_command_stays_absolute():
    svg = b'<path d="M 0 0 A 1 1 0 0 1 2.004 2"/>'
    assert bundles.compact(svg) == b'<path d="M0 0A1 1 0 0 1 2 2"/>'


def test_glyphs_are_named_by_font_order_and_placed_by_x_and_y():
    svg = (b'<defs>\n<path id="NotoSansCJKsc-Regular-4a" d="M 0 0 z"/>\n<path id="DejaVuSans-Oblique-3b1" d="M 0 0 z"/>\n'
           b'</defs>\n<g id="text_1">\n<use xlink:href="#DejaVuSans-Oblique-3b1" transform="translate(37.703125 0)"/>\n'
           b'<use xlink:href="#NotoSansCJKsc-Regular-4a" transform="translate(1.5 -2.25)"/>\n'
           b'<use xlink:href="#m5c9f0e8a2b" x="328.940474" y="321.868726" style="stroke-width: 0.8"/>\n</g>\n'
           b'<g id="line2d_1"/>\n<g id="kept_1"/>\n<path d="M 0 0 z" clip-path="url(#kept_1)"/>')
    assert bundles.compact(svg) == (
        b'<defs>\n<path id="F0-4a" d="m0 0z"/>\n<path id="F1-3b1" d="m0 0z"/>\n</defs>\n<g>\n'
        b'<use xlink:href="#F1-3b1" x="37.7"/>\n<use xlink:href="#F0-4a" x="1.5" y="-2.25"/>\n'
        b'<use xlink:href="#m5c9f0e8a2b" x="328.94" y="321.87" style="stroke-width: 0.8"/>\n</g>\n'
        b'<g id="kept_1"/>\n<path d="m0 0z" clip-path="url(#kept_1)"/>')
