"""A caption may not find a panel by where it sits when the narrow drawing (phones, print) moves
it: a figure whose panels stand side by side in its wide drawing and are stacked in its narrow one
names each panel by its title or content, never "left", "right", "top left"... (nor 左, 右, 上格).
Which figures stack is read from their drawings (frame_checks: the columns of panels of each)."""

import re

import pytest

from figures.engine import registry
from figures.kit.words import LANGS

WHERE = {
    "en": re.compile(r"\b(?:Left|Right|Top|Bottom|Below)\s*[:,]|\b(?:on|at) the (?:left|right)\b|"
                     r"\b(?:top|bottom|upper|lower) (?:left|right|grid|panel|row)\b|\b(?:left|right) (?:panel|grid|column)\b",
                     re.IGNORECASE),
    "zh": re.compile(r"[左右上下][：:]|左上|右上|左下|右下|下左|下右|左边|右边|左图|右图|上格|下格|上图|下图"),
}


def stacked(checked_frames) -> list[str]:
    """The figures with a frame whose narrow drawing has fewer columns of panels than its wide one."""
    found = []
    for (frame, lang), c in checked_frames.items():
        if c.files is not None and len(c.columns) == 2 and c.columns[1] < c.columns[0] and frame.fig_id not in found:
            found.append(frame.fig_id)
    return found


def test_the_figures_known_to_stack_are_found(checked_frames):
    # the check finds what it must: these four stack their panels on a phone
    assert {"what-a-head-reads", "attention-memory", "reshape-pitfall", "kv-heads"} <= set(stacked(checked_frames))


@pytest.mark.parametrize("lang", LANGS)
def test_no_caption_finds_a_stacked_panel_by_where_it_sits(checked_frames, lang):
    found = [f"{fig_id}: {m[0]!r}" for fig_id in stacked(checked_frames)
             for m in WHERE[lang].finditer(getattr(registry.get(fig_id), f"CAPTION_{lang.upper()}"))]
    assert found == []


@pytest.mark.parametrize("lang, text", [("en", "Left: the inputs."), ("en", "the multiply-adds on the left"),
                                        ("en", "Top right, the blocks"), ("en", "in the upper grid"),
                                        ("zh", "左：连线。"), ("zh", "右上是拆开的块"), ("zh", "上格里它那一行")])
def test_the_words_it_looks_for_are_found(lang, text):
    assert WHERE[lang].search(text)


SIDE = {"en": re.compile(r"\b(?:left|right)\b", re.IGNORECASE), "zh": re.compile(r"[左右]")}


@pytest.mark.parametrize("lang", LANGS)
def test_no_slider_value_says_left_or_right(lang):
    # shown beside the drawing, whose panels move on a phone: "(right)" reads as a place, not as "correct"
    found = [f"{fig_id}: {label!r}" for fig_id in registry.ORDER if (control := registry.get(fig_id).CONTROL)
             for label in (control.value_label(v, lang) for v in control.values) if SIDE[lang].search(label)]
    assert found == []
