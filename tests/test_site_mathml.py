"""Formulas to MathML and headings to plain text (figures/site/mathml.py), on hand-made HTML as
pymdownx.arithmatex leaves it. test_site.py checks that built pages carry MathML and no script."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest

from figures.site import mathml

NS = "{http://www.w3.org/1998/Math/MathML}"


def inline(tex: str) -> str:
    return f'<span class="arithmatex">\\({tex}\\)</span>'


def block(tex: str) -> str:
    return f'<div class="arithmatex">\\[{tex}\\]</div>'


def shape(el: ET.Element) -> str:
    """An element as tag(children) or tag:text, attributes left out: 'mfrac(mrow(mi:a),mrow(mi:b))'."""
    tag = el.tag.removeprefix(NS)
    kids = list(el)
    return f"{tag}({','.join(map(shape, kids))})" if kids else f"{tag}:{el.text or ''}"


def math(html: str) -> ET.Element:
    root = ET.fromstring(html)
    assert root.tag == f"{NS}math"
    return root


@pytest.mark.parametrize("tex, expected", [
    (r"\frac{a}{b}", "math(mrow(mfrac(mrow(mi:a),mrow(mi:b))))"),
    (r"\sqrt{d_k}", "math(mrow(msqrt(mrow(msub(mi:d,mi:k)))))"),
    (r"d_\text{model}", "math(mrow(msub(mi:d,mtext:model)))"),
    (r"W^Q_i", "math(mrow(msubsup(mi:W,mi:i,mi:Q)))"),
    (r"x^{2}", "math(mrow(msup(mi:x,mrow(mn:2))))"),
    (r"\sum_{i=1}^{n} x_i", "math(mrow(msubsup(mo:\u2211,mrow(mi:i,mo:=,mn:1),mrow(mi:n)),msub(mi:x,mi:i)))"),
    (r"a &lt; b", "math(mrow(mi:a,mo:<,mi:b))"),  # arithmatex leaves < escaped; MathML gets the operator
    (r"h \cdot d_k = 64", "math(mrow(mi:h,mo:\u00b7,msub(mi:d,mi:k),mo:=,mn:64))"),
])
def test_an_inline_formula_becomes_inline_mathml(tex, expected):
    out = mathml.to_mathml(inline(tex))
    root = math(out)
    assert root.get("display") == "inline"
    assert shape(root) == expected


def test_a_block_formula_becomes_block_mathml_in_its_own_div():
    out = mathml.to_mathml(block(r"\sum_{i=1}^{n} x_i"))
    div = ET.fromstring(out)
    assert div.tag == "div" and div.get("class") == "mha-math"
    (root,) = list(div)
    assert root.tag == f"{NS}math" and root.get("display") == "block"
    # displayed, the limits go under and over the sum
    assert shape(root) == "math(mrow(munderover(mo:\u2211,mrow(mi:i,mo:=,mn:1),mrow(mi:n)),msub(mi:x,mi:i)))"


def test_a_matrix_with_escaped_ampersands_becomes_a_table():
    out = mathml.to_mathml(block(r"\begin{pmatrix} a &amp; b \\ c &amp; d \end{pmatrix}"))
    (root,) = list(ET.fromstring(out))
    assert shape(root) == "math(mrow(mo:(,mtable(mtr(mtd(mi:a),mtd(mi:b)),mtr(mtd(mi:c),mtd(mi:d))),mo:)))"


def test_the_page_around_the_formulas_is_kept_and_each_formula_replaced_in_order():
    page = (f"<p>Split {inline('d')} into {inline('h')} heads:</p>\n"
            f'<div class="arithmatex">\n\\[d_k = d / h\\]\n</div>\n'
            f"<p>Code keeps <code>\\(x\\)</code> as typed.</p>")
    out = mathml.to_mathml(page)
    assert "arithmatex" not in out
    assert out.startswith("<p>Split <math ") and out.endswith("<p>Code keeps <code>\\(x\\)</code> as typed.</p>")
    maths = re.findall(r"<math .*?</math>", out)
    assert [shape(math(m)) for m in maths] == [
        "math(mrow(mi:d))", "math(mrow(mi:h))", "math(mrow(msub(mi:d,mi:k),mo:=,mi:d,mo:/,mi:h))"]
    assert [math(m).get("display") for m in maths] == ["inline", "inline", "block"]
    # the whole page is well formed once wrapped: every formula closed where it opened
    ET.fromstring(f"<body>{out}</body>")


def test_a_page_without_formulas_is_unchanged():
    page = '<p>No maths here, only \\(text\\) outside arithmatex and a <span class="other">\\(x\\)</span>.</p>'
    assert mathml.to_mathml(page, "x.md") == page


@pytest.mark.parametrize("tex, kind", [
    ("x^", "MissingSuperScriptOrSubscriptError"),
    (r"\left( x", "ExtraLeftOrMissingRightError"),
    (r"\begin{matrix} a", "MissingEndError"),
    (r"\sqrt", "NoAvailableTokensError"),
])
def test_a_formula_that_cannot_render_names_the_page_and_the_formula(tex, kind):
    with pytest.raises(ValueError) as e:
        mathml.to_mathml(f"<p>ok {inline('a')}</p><p>{inline(tex)}</p>", "one-head-blends.en.md")
    assert str(e.value).startswith(f"one-head-blends.en.md: cannot render the formula {tex!r}: ")
    assert type(e.value.__cause__).__name__ == kind  # latex2mathml's own error, chained


# ---- headings in the table of contents: plain text -------------------------------------------------

@pytest.mark.parametrize("title, plain", [
    (r"Why \(h\) heads", "Why h heads"),
    (r"\(d_\text{model}\) and \(d_k\)", "d_model and d_k"),
    (r"\(\mathrm{softmax}(x)\)", "softmax(x)"),
    (r"\(\alpha\) · 混合比例", "α · 混合比例"),
    (r"\(\alpha\), \(\beta\) and \(\omega\)", "α, β and ω"),
    (r"\( W^O \)", "W^O"),  # the delimiters' spaces go
    (r"\(\sqrt{d_k}\)", r"\sqrt{d_k}"),  # any other command is left as typed
    ("No formula: 1 < 2", "No formula: 1 < 2"),
])
def test_a_heading_title_loses_its_formula_delimiters(title, plain):
    assert mathml.toc_title(title) == plain


def test_lambda_becomes_its_letter():
    assert mathml.toc_title(r"\(\lambda\)") == "λ"


def test_a_capital_greek_letter_stays_capital():
    assert mathml.toc_title(r"\(\Delta\)") == "Δ"


def test_a_heading_title_stays_html():
    assert mathml.toc_title(r"Why \(a &lt; b\) &amp; c") == "Why a &lt; b &amp; c"


def test_every_title_of_a_toc_tree_is_made_plain():
    def item(title, *children):
        return SimpleNamespace(title=title, children=list(children))
    toc = [item(r"\(h\) heads", item(r"\(d_k\) per head", item(r"\(\alpha\)")), item("plain")),
           item(r"\(W^O\)")]
    mathml.plain_toc(toc)
    assert [t.title for t in toc] == ["h heads", "W^O"]
    assert [c.title for c in toc[0].children] == ["d_k per head", "plain"]
    assert toc[0].children[0].children[0].title == "α"
