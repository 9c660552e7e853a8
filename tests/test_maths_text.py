"""Inline maths as plain Unicode text (figures/text/maths.py): alt texts, download titles, slide
notes and the glossary's CSV, where no formula can be set."""

import pytest

from figures.text import maths
from figures.text.constructs import plain


@pytest.mark.parametrize("tex, text", [
    (r"\sqrt{d_k}", "√(d_k)"),
    (r"\sqrt{h}", "√h"),
    (r"d_\text{model} \times d_k", "d_model × d_k"),
    (r"\mathrm{softmax}(s)_j = e^{s_j} / \sum_l e^{s_l}", "softmax(s)_j = e^(s_j) / Σ_l e^(s_l)"),
    (r"a\,v_\text{and} + b\,v_\text{ran}", "a v_and + b v_ran"),  # a thin space is a space, not a comma
    (r"h\,n^2", "h n²"),
    (r"QK^\top", "QKᵀ"),
    (r"\mathrm{MultiHead}(X) = \mathrm{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h)\, W^O",
     "MultiHead(X) = Concat(head_1, …, head_h) W^O"),
    (r"\frac{1}{\sqrt{d_k}}", "1/(√(d_k))"),
    (r"s_j(\alpha) = (1-\alpha)\, s_j^\text{位置}", "s_j(α) = (1-α) s_j^位置"),
])
def test_a_formula_reads_as_text(tex, text):
    assert maths.as_text(tex) == text


@pytest.mark.parametrize("tex, error", [(r"\mathbb{R}", r"\\mathbb"), (r"e^{x", "unclosed"), (r"x}", "unbalanced"),
                                        ("x^", "without its argument")])
def test_maths_with_no_text_form_is_named(tex, error):
    with pytest.raises(maths.MathsError, match=error):
        maths.as_text(tex)


def test_plain_writes_maths_as_text_and_keeps_an_escaped_dollar():
    assert plain(r"Each weight is divided by $\sqrt{d_k}$, costs \$5 and $a\,b$.") == \
        "Each weight is divided by √(d_k), costs $5 and a b."
