"""The pages' inline maths ($...$, a small part of TeX) as plain Unicode text, for where no formula
can be set: an image's alt text, a download's title, a slide's speaker note, a glossary card's CSV.

    $\\sqrt{d_k}$                    ->  √d_k
    $d_\\text{model} \\times d_k$     ->  d_model × d_k
    $e^{s_j} / \\sum_l e^{s_l}$      ->  e^(s_j) / Σ_l e^(s_l)
    $h\\,n^2$                        ->  h n²

Sub- and superscripts keep TeX's _ and ^ (Unicode has no subscript d, no superscript Q), with
brackets round a group that is more than a name or a number; a digit as an exponent is a
superscript digit. A command this module does not know is an error that names it, so that a new
page or glossary entry cannot ship raw TeX to a reader.
"""

from __future__ import annotations

import re

# commands that stand for a character (or for nothing: \left and \right only size a bracket)
SYMBOLS = {
    "times": "×", "cdot": "·", "sum": "Σ", "prod": "Π", "dots": "…", "ldots": "…", "cdots": "⋯",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "eta": "η", "theta": "θ",
    "kappa": "κ", "lambda": "λ", "mu": "μ", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ",
    "phi": "φ", "psi": "ψ", "omega": "ω", "Delta": "Δ", "Sigma": "Σ", "Omega": "Ω",
    "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "sim": "∼",
    "infty": "∞", "to": "→", "rightarrow": "→", "leftarrow": "←", "in": "∈", "mid": "|", "pm": "±",
    "top": "ᵀ", "log": "log", "exp": "exp", "max": "max", "min": "min", "arg": "arg",
    "left": "", "right": "", "{": "{", "}": "}", "%": "%", "_": "_", "#": "#", "&": "&",
}
SPACES = {",": " ", ";": " ", ":": " ", "!": "", " ": " ", "quad": " ", "qquad": " "}
WORDS = ("text", "mathrm", "operatorname", "mathbf", "mathit", "mathsf", "boldsymbol", "textrm", "mathcal")
SUPERSCRIPT_DIGITS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
SIMPLE = re.compile(r"[^\W_]+[′']*")  # a group that needs no brackets: one name or number


class MathsError(ValueError):
    """Inline maths this module cannot write as text; names the command or the unbalanced brace."""


def as_text(tex: str) -> str:
    """One formula (without its $ signs) as plain Unicode text."""
    text, rest = _read(tex.strip(), 0, tex)
    if rest != len(tex.strip()):
        raise MathsError(f"an unbalanced }} in the formula {tex!r}")
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"\s*([×·=≤≥≠≈→∈±])\s*", r" \1 ", text).replace("( ", "(").strip()


def inline(markdown_text: str) -> str:
    """Every $...$ of a Markdown text as plain text (as_text), the rest as it is."""
    return re.sub(r"(?<![\\$])\$([^$\n]+)\$", lambda m: as_text(m[1]), markdown_text)


def _read(tex: str, i: int, whole: str, stop: str = "") -> tuple[str, int]:
    """The text of tex from i up to the `stop` character (or the end), and the index after it."""
    out = []
    while i < len(tex) and tex[i] != stop:
        c = tex[i]
        if c == "{":
            group, i = _read(tex, i + 1, whole, "}")
            out.append(group)
            i += 1
        elif c == "}":
            return "".join(out), i
        elif c in "_^":
            arg, i = _argument(tex, i + 1, whole)
            out.append(_script(c, arg))
        elif c == "\\":
            word, i = _command(tex, i + 1, whole)
            out.append(word)
        else:
            out.append(c)
            i += 1
    if stop and i >= len(tex):
        raise MathsError(f"an unclosed {{ in the formula {whole!r}")
    return "".join(out), i


def _argument(tex: str, i: int, whole: str) -> tuple[str, int]:
    """A command's or a script's argument: a {group}, a command, or one character."""
    while i < len(tex) and tex[i] == " ":
        i += 1
    if i >= len(tex):
        raise MathsError(f"a command or script without its argument in the formula {whole!r}")
    if tex[i] == "{":
        group, i = _read(tex, i + 1, whole, "}")
        return group, i + 1
    if tex[i] == "\\":
        return _command(tex, i + 1, whole)
    return tex[i], i + 1


def _command(tex: str, i: int, whole: str) -> tuple[str, int]:
    """The text of the command whose name starts at i (after its backslash), and the index after it."""
    m = re.compile(r"[A-Za-z]+|.").match(tex, i)
    if m is None:
        raise MathsError(f"a lone backslash at the end of the formula {whole!r}")
    name, i = m[0], m.end()
    if name in WORDS:
        return _argument(tex, i, whole)
    if name == "sqrt":
        arg, i = _argument(tex, i, whole)
        return "√" + _grouped(arg), i
    if name == "frac":
        top, i = _argument(tex, i, whole)
        bottom, i = _argument(tex, i, whole)
        return f"{_grouped(top)}/{_grouped(bottom)}", i
    if name in SPACES:
        return SPACES[name], i
    if name in SYMBOLS:
        return SYMBOLS[name] + (" " if name.isalpha() and len(SYMBOLS[name]) > 1 else ""), i
    raise MathsError(f"the command \\{name} in the formula {whole!r} has no plain-text form (figures/text/maths.py)")


def _grouped(text: str) -> str:
    text = text.strip()
    return text if SIMPLE.fullmatch(text) else f"({text})"


def _script(mark: str, arg: str) -> str:
    arg = arg.strip()
    if mark == "^" and arg.isdigit():
        return arg.translate(SUPERSCRIPT_DIGITS)
    if mark == "^" and arg == "ᵀ":
        return arg
    return mark + _grouped(arg)
