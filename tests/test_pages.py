"""The hand-written pages: twins in structure, no number typed by hand, no bound that rounding made false."""

import functools
import re
from decimal import Decimal
from pathlib import Path

import pytest

from figures.engine import registry
from figures.text import bounds
from figures.text.constructs import FIGURE
from figures.numbers import quantities
from figures.keep import tiny_lm
from mha_ref.tiny import lm_findings, lm_heads
from prose_rules import prose
from figures.site import markup
from figures.text import constructs

DOCS = Path(__file__).resolve().parents[1] / "docs"
ZH_PAGES = sorted(DOCS.rglob("*.zh.md"))
# page 4's model's numbers (tiny/lm_heads.py, tiny/lm_findings.py): five seeds trained and measured
TRAINED = set(lm_heads.quantities(tiny_lm.all_seeds, tiny_lm.training_counts)) | set(lm_findings.quantities(tiny_lm.all_seeds))
# which named numbers a test reads: those that need no training (the fast loop's), or page 4's model's
QUANTITY_SETS = [pytest.param(False, id="untrained"), pytest.param(True, id="trained", marks=pytest.mark.trained)]


def _page_params(pages: list[Path]) -> list:
    """The pages as parameters, a page printing a number of page 4's model (or its twin) marked trained."""
    def trained(page: Path) -> bool:
        return any(m[1] in TRAINED for twin in (page, page.with_name(page.name.replace(".zh.md", ".en.md")))
                   if twin.exists() for m in re.finditer(r"\{\{ *value +([\w.]+)", twin.read_text(encoding="utf-8")))
    return [pytest.param(p, marks=[pytest.mark.trained] if trained(p) else []) for p in pages]


@pytest.mark.parametrize("page", sorted(DOCS.rglob("*.md")), ids=lambda p: p.name)
def test_no_number_is_typed_by_hand(page):
    for n, line in enumerate(prose(page.read_text(encoding="utf-8")).splitlines(), 1):
        assert not re.search(r"\d", line), f"{page.name}: a number typed by hand: {line.strip()[:120]}"


def _structure(page: Path):
    text = page.read_text(encoding="utf-8")
    return (re.findall(r"^#{1,6} .*\{#([^}]+)\}\s*$", text, re.M),
            [m["id"] for m in FIGURE.finditer(text)])


@pytest.mark.parametrize("page", ZH_PAGES, ids=lambda p: p.name)
def test_twins_have_the_same_headings_and_figures_in_the_same_order(page):
    twin = page.with_name(page.name.replace(".zh.md", ".en.md"))
    assert twin.exists()
    assert _structure(page) == _structure(twin)


@pytest.mark.parametrize("page", ZH_PAGES, ids=lambda p: p.name)
def test_placed_figures_are_registered(page):
    for fig_id in _structure(page)[1]:
        registry.get(fig_id)


def test_chinese_paragraphs_are_not_hard_wrapped():
    """A line break inside Chinese prose shows as a stray space in the browser."""
    for page in ZH_PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        for a, b in zip(lines, lines[1:]):
            if re.search(r"[\u4e00-\u9fff，。；：]$", a) and re.match(r"[\u4e00-\u9fff]", b):
                raise AssertionError(f"{page.name}: a paragraph is wrapped after: {a[-30:]}")


# bounds next to printed numbers (figures/text/bounds.py) -----------------------------------------
@pytest.mark.parametrize("page", _page_params(sorted(DOCS.rglob("*.md"))), ids=lambda p: p.name)
def test_every_bound_word_on_a_page_holds_for_the_unrounded_value(page):
    assert constructs.bound_problems(page.read_text(encoding="utf-8"), page.name) == []


@pytest.mark.parametrize("fig_id", registry.ORDER)
def test_every_bound_word_in_a_caption_holds_for_the_unrounded_value(fig_id):
    mod = registry.get(fig_id)
    for lang, text in (("zh", mod.CAPTION_ZH), ("en", mod.CAPTION_EN)):
        assert constructs.bound_problems(text, f"caption of {fig_id} ({lang})") == []


@functools.cache
def _rounded_quantities(trained: bool) -> dict[str, float]:
    """Every named float that .2f does not print exactly (where rounding can break a bound), with its
    value: page 4's model's (`trained`: its seeds trained and measured), or every other."""
    values = {n: quantities.value(n) for n in quantities.QUANTITIES if (n in TRAINED) == trained}
    return {n: v for n, v in values.items()
            if isinstance(v, float) and Decimal(format(v, ".2f")) != Decimal(repr(v))}


@pytest.mark.parametrize("trained", QUANTITY_SETS)
def test_up_and_down_round_to_the_neighbours_that_bracket_the_value(trained):
    assert len(_rounded_quantities(trained)) > 10
    for name, value in _rounded_quantities(trained).items():
        v = Decimal(repr(value))
        for spec, quantum, scale in ((".2f", Decimal("0.01"), 1), (".3f", Decimal("0.001"), 1),
                                     (".1%", Decimal("0.1"), 100)):
            up, down, nearest = (Decimal(constructs.format_value(value, spec, d).rstrip("%"))
                                 for d in ("up", "down", None))
            assert down <= v * scale <= up and up - down <= quantum, (name, spec, up, down)
            assert nearest in (up, down), (name, spec)


@pytest.mark.parametrize("text, word, safe", [
    ("at most ", "at most", "up"), ("no more than ", "no more than", "up"), ("不超过 ", "不超过", "up"),
    ("最多 ", "最多", "up"), ("under ", "under", "up"), ("at least ", "at least", "down"),
    ("不低于 ", "不低于", "down"), ("至少 ", "至少", "down"), ("above ", "above", "down"),
    # a negation turns the bound around
    ("never drops below ", "never drops below", "down"), ("not below ", "not below", "down"),
    ("never falls under ", "never falls under", "down"), ("never more than ", "never more than", "up"),
    ("doesn't exceed ", "doesn't exceed", "up"), ("no higher than **", "no higher than", "up"),
    ("从未低于 ", "未低于", "down"), ("不会超过 ", "不会超过", "up"), ("没有一个高于 ", "没有一个高于", "up"),
    # the bound word a few words before its number
    ("至少有 ", "至少", "down"), ("最多只有约 ", "最多", "up"), ("at least a weight of ", "at least", "down"),
    ("less than *about* ", "less than", "up"), ("never more than about ", "never more than", "up"),
])
@pytest.mark.parametrize("trained", QUANTITY_SETS)
def test_a_bound_word_refuses_every_rounding_but_the_safe_one(text, word, safe, trained):
    bound = bounds.bound_word(f"the weight is {text}", ".")
    assert bound[:2] == (word, safe)
    for name, value in _rounded_quantities(trained).items():
        for direction in (None, "up", "down"):
            printed = constructs.format_value(value, ".2f", direction)
            problem = bounds.problem(bound, name, value, printed, direction, "p.md")
            if direction == safe:
                assert problem is None, problem
            else:
                assert problem.startswith(f"p.md: “{word}” {printed} ") and repr(value) in problem


def test_a_negated_bound_is_read_as_the_opposite_bound_and_the_build_says_so():
    # the page that printed "never drops below 1.80" for 1.7914 on the rule's old advice (round up)
    name = next(n for n, v in _rounded_quantities(False).items() if format(v, ".2f") != constructs.format_value(v, ".2f", "up"))
    value = quantities.value(name)
    for sentence, safe in ((f"it never drops below {{{{ value {name} .2f DIR }}}}.", "down"),
                           (f"它从来没有低于 {{{{ value {name} .2f DIR }}}}。", "down"),
                           (f"it is never more than {{{{ value {name} .2f DIR }}}}.", "up"),
                           (f"它不会超过 {{{{ value {name} .2f DIR }}}}。", "up")):
        unsafe = "up" if safe == "down" else "down"
        assert constructs.bound_problems(sentence.replace("DIR", safe), "p") == []
        [problem] = constructs.bound_problems(sentence.replace("DIR", unsafe), "p")
        assert f"{constructs.format_value(value, '.2f', unsafe)} is a bound" in problem
        assert "so the sentence is false" in problem and problem.endswith(f"to round it {safe}")


def test_a_bound_word_a_few_words_before_its_number_but_not_a_preposition_nor_across_a_clause():
    name = "diffuse.max_weight"
    assert constructs.bound_problems(f"至少有 {{{{ value {name} .2f down }}}}", "p") == []
    assert "“至少” " in constructs.bound_problems(f"至少有 {{{{ value {name} .2f }}}}", "p")[0]
    assert "“at most” " in constructs.bound_problems(f"at most roughly {{{{ value {name} .2f }}}}", "p")[0]
    # over, under, above, below and the symbols bound only the number right after them
    for text in (f"the sum over the keys is {{{{ value {name} .2f }}}}",
                 f"the row under the diagonal gives {{{{ value {name} .2f }}}}",
                 # a gap has no punctuation, no other number and at most three words
                 f"至少，有 {{{{ value {name} .2f }}}}", f"at least four heads, each {{{{ value {name} .2f }}}}",
                 f"at least {{{{ value toy.n }}}} heads give {{{{ value {name} .2f }}}}",
                 f"at least half of the heads give {{{{ value {name} .2f }}}}"):
        assert bounds.bound_word(text[:text.rindex("{{")], "") is None, text
    # words that only look like a negation leave the bound as it is
    for text, safe in (("not only above ", "down"), ("不断超过 ", "down"), ("不同的头都低于 ", "up"),
                       ("差不多低于 ", "up"), ("nothing is above ", "down")):
        assert bounds.bound_word(text, "")[1] == safe, text


def test_a_bound_after_the_number_and_a_range_are_recognised():
    name = "diffuse.max_weight"
    assert constructs.bound_problems(f"{{{{ value {name} .2f down }}}} 以上", "p") == []
    assert constructs.bound_problems(f"{{{{ value {name} .2f up }}}} 以上", "p")
    assert constructs.bound_problems(f"{{{{ value {name} .2f up }}}} or less", "p") == []
    # a negation before the number turns the bound after it around
    for text in (f"权重不在 {{{{ value {name} .2f DIR }}}} 以上", f"no head gives {{{{ value {name} .2f DIR }}}} or more"):
        assert constructs.bound_problems(text.replace("DIR", "up"), "p") == []
        assert "so the sentence is false" in constructs.bound_problems(text.replace("DIR", "down"), "p")[0]
    # the ends of a range may round either way (the writer knows which is safe), or not at all
    for a, b in (("up", "down"), ("down", "up"), ("", "")):
        assert constructs.bound_problems(f"from {{{{ value {name} .2f {a} }}}} to {{{{ value blend.peak_mid .2f {b} }}}}",
                                     "p") == []


def test_a_direction_word_needs_a_bound_word_and_the_build_names_the_page_or_caption(monkeypatch):
    assert constructs.bound_problems("the peak is {{ value diffuse.max_weight .2f up }}.", "p")
    with pytest.raises(constructs.MarkupError, match=r"what\.zh\.md:2: “至少” "):
        markup.expand("# 标题\n权重至少 {{ value diffuse.max_weight .2f }}。", "zh", str, "what.zh.md")
    # a caption goes through the same rule when a page places its figure
    mod = registry.get("four-heads")
    monkeypatch.setattr(mod, "CAPTION_EN", "its largest weight is at most {{ value diffuse.max_weight .2f }}.")
    with pytest.raises(constructs.MarkupError, match=r"^figures/gallery/four_heads\.py:\d+: caption of figure 'four-heads' "
                                                     r"\(en\), placed at heads\.en\.md:1: “at most”"):
        markup.expand("{{ figure four-heads }}", "en", lambda path: path, "heads.en.md")


def test_exact_numbers_and_quoted_thresholds_pass_whatever_the_word():
    # a count or a threshold quoted from the published source (mha_ref/models.py): nothing was rounded, so no direction is needed
    for name in ("voita.positional_pct", "toy.n", "gpt2.h"):
        assert constructs.bound_problems(f"at least {{{{ value {name} }}}} and under {{{{ value {name} }}}}", "p") == []
    assert bounds.unrounded(quantities.value("voita.drop")) == Decimal(str(quantities.value("voita.drop")))


# words that only make sense on screen (print shows the {{ screen … print … }} twin instead) --------
SCREEN_ONLY = {
    "en": re.compile(r"\bslider|\bdrag|\bslide (?:right|left|across|to)\b|\bstep (?:through|to other|the)\b|\bstepping\b"
                     r"|\bswitch to\b|\bmove (?:the|it|\$)|\bclick|\bpress\b|\barrow keys|\bbutton"
                     r"|\bopens (?:on|with|halfway)\b|\bopening (?:setting|frame)|\bpick a\b|\bthe chosen (?:query|token)",
                     re.I),
    "zh": re.compile(r"滑块|拖|滑到|点击|按钮|方向键|打开时|打开页面|打开的这一|换一个查询|换到别的|切到|所选|选定"),
}


def _printed_sources():
    """(where, language, Markdown source) of every page and every figure caption."""
    for page in sorted(DOCS.rglob("*.md")):
        yield page.name, page.name.split(".")[-2], page.read_text(encoding="utf-8")
    for fig_id in registry.ORDER:
        mod = registry.get(fig_id)
        yield f"caption of {fig_id}", "zh", mod.CAPTION_ZH
        yield f"caption of {fig_id}", "en", mod.CAPTION_EN


def test_print_never_asks_the_reader_to_move_a_slider():
    """What print reads (the print twin of every screen/print construct; code left out) says what the
    frames show, not how to drag, click or step through them (docs/assets/mha-print.css)."""
    found = [f"{where} ({lang}): “{m[0]}” in …{printed[max(0, m.start() - 30):m.end() + 30]}…".replace("\n", " ")
             for where, lang, text in _printed_sources()
             for printed in [prose(constructs.expand_media(text, only="print"))]
             for m in SCREEN_ONLY[lang].finditer(printed)]
    assert not found, "screen-only words in print; write them as {{ screen \"…\" print \"…\" }}:\n" + "\n".join(found)


# lists: the same in both languages, whatever a number prints as ------------------------------------
def _lists(page: Path) -> list[tuple[str, int]]:
    """Each list of the page as Python-Markdown reads it once every number is printed: its kind
    (ol, ul) and how many items it has, in the page's order."""
    import markdown
    from bs4 import BeautifulSoup
    text = constructs.expand_values(constructs.expand_media(constructs.Located(page.read_text(encoding="utf-8"),
                                                                               page.name))).text
    html = markdown.markdown(text, extensions=["attr_list", "md_in_html", "admonition", "pymdownx.details",
                                               "tables", "pymdownx.superfences"])
    return [(tag.name, len(tag.find_all("li", recursive=False)))
            for tag in BeautifulSoup(html, "html.parser").find_all(["ol", "ul"])]


@pytest.mark.parametrize("page", _page_params(ZH_PAGES), ids=lambda p: p.name)
def test_twins_have_the_same_lists_once_their_numbers_are_printed(page):
    assert _lists(page) == _lists(page.with_name(page.name.replace(".zh.md", ".en.md")))


@pytest.mark.parametrize("before, after", [("  ", ". nsubj and amod in none"), ("", ") in all"), ("> ", ". Then")])
def test_a_number_that_starts_a_line_never_starts_a_list(before, after):
    import markdown
    page = f"- det in\n{before}{{{{ value toy.n }}}}{after}\n"
    html = markdown.markdown(constructs.expand_values(constructs.Located(page, "p.md")).text)
    assert "<ol" not in html and f"{quantities.value('toy.n')}{after[0]}" in html
