"""The page constructs (figures/text/constructs.py, figures/site/markup.py) with no site build: every
error names its file and line, a code fence never closed is refused, and code indented by four
spaces is left as written exactly where Python-Markdown makes it code."""

import re
from pathlib import Path
from types import SimpleNamespace

import markdown
import pytest
from mkdocs.exceptions import PluginError
from mkdocs.utils import meta

from figures.publish import numbering
from figures.engine import registry
from figures.site import hooks, markup, page_markdown
from figures.text import constructs, markdown_code
from figures.text.constructs import MarkupError

ROOT = Path(__file__).resolve().parents[1]
PAGE = "docs/p.en.md"


def _expand(text: str, **kw) -> str:
    return markup.expand(text, "en", lambda path: f"../figures/{path}", PAGE, **kw)[0]


def _error(text: str, **kw) -> str:
    with pytest.raises(MarkupError) as refused:
        _expand(text, **kw)
    return str(refused.value)


# --- every error names the file and the line -----------------------------------------------------

FIGURE_AND_TABLE = "# Title\n\nIntro.\n\n{{ figure peak-dip }}\n\n{{ table head-count }}\n\n"  # lines 1-8


@pytest.mark.parametrize("text, message", [
    ("# Title\n\nSome {{ value nope }} here.\n", ":3: unknown value 'nope'"),
    # after a figure and a table, which the expansion makes many lines long
    (FIGURE_AND_TABLE + "A {{ value nope }}.\n", ":9: unknown value 'nope'"),
    (FIGURE_AND_TABLE + "{{ figure no-such-figure }}\n", ":9: unknown figure id 'no-such-figure'"),
    (FIGURE_AND_TABLE + "{{ figure peak-dip }}\n", ":9: figure 'peak-dip' is placed twice"),
    (FIGURE_AND_TABLE + "{{ figure width-slices colour=red }}\n", ":9: figure 'width-slices' has unknown option(s)"),
    (FIGURE_AND_TABLE + "{{ figure width-slices start=h3 }}\n", ":9: figure 'width-slices' has no frame 'h3'"),
    (FIGURE_AND_TABLE + "{{ table nope }}\n", ":9: unknown table 'nope'"),
    (FIGURE_AND_TABLE + "Text {{ figure width-slices }} inline.\n", ":9: unknown or misplaced construct '{{ figure"),
    (FIGURE_AND_TABLE + "\n\n{{ vaule toy.n }}\n", ":11: unknown or misplaced construct '{{ vaule toy.n }}'"),
    (FIGURE_AND_TABLE + "{{ value gpt2.ratio .2x }}\n", ":9: value 'gpt2.ratio': format spec '.2x' does not fit"),
    (FIGURE_AND_TABLE + "at most {{ value diffuse.max_weight .2f }}\n", ":9: “at most” 0.17 is a bound"),
    # a construct over two lines, and a screen/print one, do not shift the lines after them
    ("A {{ value\ntoy.n }} and {{ screen \"drag\"\nprint \"see\" }}.\n\n{{ value nope }}\n", ":5: unknown value"),
    # inside a ??? answer block (indented, expanded)
    ('??? success "Worked answer"\n\n    First.\n\n    Then {{ value nope }}.\n', ":5: unknown value 'nope'"),
])
def test_every_construct_error_names_the_file_and_line(text, message):
    assert _error(text).startswith(PAGE + message), _error(text)


@pytest.mark.parametrize("spec, message", [
    (".10000000f", "format spec '.10000000f': a precision of 10000000, where at most 17 is printed"),
    ("10000000", "format spec '10000000': a width of 10000000, where at most 40 is printed"),
    (">" + "9" * 30 + "d", "format spec '>9999999999999999999...': a width of more than 10^11, where at most 40"),
])
def test_a_format_spec_asking_for_a_huge_number_is_refused_not_printed(spec, message):
    """{{ value toy.n 10000000 }} printed a page of ten million characters."""
    said = _error(f"# T\n\n{{{{ value toy.n {spec} }}}}\n")
    assert said.startswith(f"{PAGE}:3: value 'toy.n': {message}") and len(said) < 200, said
    assert _expand("# T\n\n{{ value toy.n 0>40.17f }}\n").count("0") >= 30  # the most it takes still prints


@pytest.mark.parametrize("mistake, message", [
    ("{{ figure no-such-figure }}", "unknown figure id 'no-such-figure'"),
    # a misspelt id: the nearest registered ids, not all of them
    ("{{ figure four-head }}", "unknown figure id 'four-head'; did you mean 'four-heads'"),
    ("{{ figure width-slices }}", "figure 'width-slices' is placed twice")])
def test_an_unknown_or_twice_placed_figure_is_refused_at_numbering_naming_its_own_page_and_line(tmp_path, mistake, message):
    """Numbering reads every page first (hooks.on_pre_build): the mistake is refused there, naming its
    page and line, before anything draws or another page's step meets it (the decks read every
    numbered figure's caption: an unknown id was a KeyError there, from figures/engine/registry.py)."""
    for lang in ("zh", "en"):
        (tmp_path / f"a.{lang}.md").write_text("# a {#a}\n\n{{ figure peak-dip }}\n", encoding="utf-8")
        (tmp_path / f"b.{lang}.md").write_text("# b {#b}\n\nText.\n\n{{ figure width-slices }}\n\nMore.\n"
                                               f"{mistake}\n", encoding="utf-8")
    with pytest.raises(MarkupError) as e:
        numbering.figure_numbers(tmp_path, ["a.md", "b.md"], ["zh", "en"])
    assert str(e.value).startswith(f"{tmp_path / 'b.zh.md'}:8: {message}"), str(e.value)
    assert "head-planes" not in str(e.value)  # one line, not every registered id


def test_a_value_that_fails_names_its_line(monkeypatch):
    from figures.numbers import quantities
    monkeypatch.setitem(quantities.QUANTITIES, "broken.zero", lambda: 1 / 0)
    assert _error("\n\n{{ value broken.zero }}").startswith(f"{PAGE}:3: the value 'broken.zero' failed: ZeroDivisionError")


def test_the_line_counts_from_where_the_markdown_starts_in_its_file():
    # MkDocs hands the hooks a page without its front matter: the hook says which line it starts on
    assert _error("# Title\n\n{{ value nope }}\n", first_line=5).startswith(f"{PAGE}:7: unknown value")


CAPTION_MODULE = '''"""A figure whose caption is written as several literals."""

CAPTION_EN = (
    "First {{ value toy.n }}, "
    "second {{ value nope }}; "
    """third,
and {{ value toy.h }}"""
)
'''


def test_a_caption_is_located_on_the_line_of_its_module_it_is_written_on(tmp_path):
    path = tmp_path / "fig.py"
    path.write_text(CAPTION_MODULE, encoding="utf-8")
    namespace = {}
    exec(CAPTION_MODULE, namespace)
    text = constructs.python_constant(namespace["CAPTION_EN"], path, "CAPTION_EN", "figures/gallery/fig.py", "caption")
    assert [text.where(m.start()) for m in constructs.VALUE.finditer(text.text)] == \
        ["figures/gallery/fig.py:4: caption", "figures/gallery/fig.py:5: caption", "figures/gallery/fig.py:7: caption"]
    with pytest.raises(MarkupError, match=r"^figures/gallery/fig\.py:5: caption: unknown value 'nope'"):
        constructs.expand_values(text)
    # text that is not the literals as written (changed since, built otherwise): the assignment's line
    changed = constructs.python_constant("new {{ value nope }}", path, "CAPTION_EN", "fig.py")
    assert changed.where(4) == "fig.py:3"
    assert constructs.python_constant("x", path, "NO_SUCH_NAME", "fig.py").where(0) == "fig.py"


@pytest.mark.parametrize("fig_id", ["peak-dip", "head-planes"])
def test_each_construct_of_a_real_caption_is_on_the_line_of_its_module_that_holds_it(fig_id):
    mod = registry.get(fig_id)
    lines = Path(mod.__file__).read_text(encoding="utf-8").splitlines()
    for name in ("CAPTION_EN", "CAPTION_ZH"):
        text = constructs.python_constant(getattr(mod, name), mod.__file__, name, "f.py")
        found = list(constructs.VALUE.finditer(text.text))
        assert found
        for m in found:
            line = int(text.where(m.start()).split(":")[1])
            assert m["name"] in lines[line - 1], (name, m[0], line, lines[line - 1])


def test_a_caption_error_names_the_figure_module_line_and_the_page_line_that_places_it(monkeypatch):
    mod = registry.get("peak-dip")
    monkeypatch.setattr(mod, "CAPTION_EN", "A caption with {{ value nope }}.")
    assigned = next(n for n, line in enumerate(Path(mod.__file__).read_text(encoding="utf-8").splitlines(), 1)
                    if line.startswith("CAPTION_EN"))
    assert _error("# Title\n\n{{ figure peak-dip }}\n").startswith(
        f"figures/gallery/peak_dip.py:{assigned}: caption of figure 'peak-dip' (en), placed at {PAGE}:3: unknown value 'nope'")


# --- a code fence never closed -----------------------------------------------------------------

@pytest.mark.parametrize("text, line, fence", [
    ("# Title\n\nText.\n\n```python\nx = 1\n", 5, "```python"),
    ("# Title\n\n~~~~\n```\nclosed inside\n```\n", 3, "~~~~"),  # a shorter or other fence closes nothing
    ("# Title\n\n```\na\n```\n\n- item\n\n    ```\n    b\n", 9, "```"),
])
def test_a_code_fence_never_closed_is_refused_at_the_line_it_opens(text, line, fence):
    assert _error(text) == (f"{PAGE}:{line}: the code fence {fence!r} opened here is never closed; "
                            "close it with a line of the same fence")


def test_closed_fences_pass():
    text = "# Title\n\n````\n```\n{{ value nope }}\n```\n````\n\n~~~\n{{ figure nope }}\n~~~\n"
    assert _expand(text) == text


def _hook_page(tmp_path, source: str):
    """on_page_markdown's arguments for a page file holding `source`, as MkDocs gives them."""
    path = tmp_path / "p.en.md"
    path.write_text(source, encoding="utf-8")
    config = {"figure_numbers": {}}
    config = type("Config", (dict,), {"plugins": {"i18n": SimpleNamespace(current_language="en")}})(config)
    page = SimpleNamespace(file=SimpleNamespace(src_uri="p.en.md", abs_src_path=str(path)), url="p/")
    return meta.get_data(source)[0], page, config, None


def test_the_build_fails_on_a_fence_never_closed_naming_the_file_and_line(tmp_path):
    source = "---\ntitle: P\n---\n\n# P\n\nText.\n\n```python\nx = 1\n"
    with pytest.raises(PluginError, match=rf"^{re.escape(str(tmp_path / 'p.en.md'))}:9: the code fence '```python' "
                                          r"opened here is never closed"):
        hooks.on_page_markdown(*_hook_page(tmp_path, source))


def test_the_hook_names_a_page_of_the_docs_from_the_checkout_root():
    page = SimpleNamespace(file=SimpleNamespace(src_uri="one-head-blends.en.md",
                                                abs_src_path=str(ROOT / "docs/one-head-blends.en.md")))
    text = (ROOT / "docs/one-head-blends.en.md").read_text(encoding="utf-8")
    assert page_markdown._source_file(page, text) == ("docs/one-head-blends.en.md", 1)


# --- code indented by four spaces --------------------------------------------------------------

V = "{{ value toy.n }}"


def _python_markdown(text: str) -> str:
    """text as the site's Markdown makes it HTML: mkdocs.yml's extensions and settings."""
    config = numbering.mkdocs_config()["markdown_extensions"]
    names = [e if isinstance(e, str) else next(iter(e)) for e in config]
    settings = {next(iter(e)): next(iter(e.values())) for e in config if isinstance(e, dict)}
    return markdown.markdown(text, extensions=names, extension_configs=settings)


def _in_code(html: str) -> list[bool]:
    """For each {{ in html, in order: is it inside <code>?"""
    return [html.count("<code", 0, m.start()) > html.count("</code>", 0, m.start()) for m in re.finditer(r"\{\{", html)]


@pytest.mark.parametrize("text, expanded", [
    # from the pages: the worked answers under the exercises, their formulas, lists
    (f'??? success "Worked answer"\n\n    The weight is {V}.\n', True),
    (f'??? success "Worked answer"\n\n    First.\n\n    $$\n    a = {V}\n    $$\n\n    Then {V}.\n', True),
    (f"!!! note\n    {V}\n", True),
    (f"- ① The input row has {V}\n  numbers.\n\n    Continued: {V}.\n", True),
    (f"1. item\n\n    {V}\n", True),
    (f"- a\n    - b\n\n        {V}\n", True),  # continues the nested item
    (f"Some text\n    {V}\n", True),  # a paragraph's lazy line
    (f"- a\n\n??? note\n\n    {V}\n", True),
    # code: after a paragraph, heading, rule, fence or at the start; code in a container's content
    (f"Some text.\n\n    {V}\n", False),
    (f"    {V}\n", False),
    (f"# Title\n\n    {V}\n", False),
    (f"Some text.\n\n\t{V}\n", False),  # a tab is four spaces
    (f"- item\n\nA paragraph ends the list.\n\n    {V}\n", False),
    (f"!!! note\n\n    text\n\n## A heading ends the note\n\n    {V}\n", False),
    (f"p\n\n    code\n\n    {V}\n", False),  # a code block goes on after a blank line
    (f"- - -\n\n    {V}\n", False),  # a rule, not a list
    (f"```\nx\n```\n\n    {V}\n", False),
    (f"??? note\n\n    text\n\n        {V}\n", False),
    (f"- item\n\n        {V}\n", False),
])
def test_indented_code_is_left_as_written_where_python_markdown_makes_it_code(text, expanded):
    assert _in_code(_python_markdown(text)) == [not expanded] * text.count("{{")  # the case says what Markdown does
    assert (_expand(text) != text) == expanded


def test_a_construct_in_indented_code_is_not_read_at_all():
    text = "Write a figure like this:\n\n    {{ figure no-such-figure }}\n    {{ vaule x }}\n\nand a number: {{ value toy.n }}.\n"
    from figures.numbers import quantities
    assert _expand(text) == text.replace("{{ value toy.n }}", str(quantities.value("toy.n")))


@pytest.mark.parametrize("page", sorted((ROOT / "docs").glob("*.md")), ids=lambda p: p.name)
def test_every_construct_on_the_pages_is_code_exactly_where_python_markdown_makes_it_code(page):
    text = page.read_text(encoding="utf-8")
    outside = {m.start() for m in markdown_code.outside_code(re.compile(r"\{\{"), text)}
    assert _in_code(_python_markdown(text)) == [m.start() not in outside for m in re.finditer(r"\{\{", text)]
