"""The print switch and the left-out notes of worked answers (figures/site/answers.py), written
into the page: what the page holds, on hand-made HTML as Material's details extension writes it.
test_print_handouts.py checks what print shows in chromium."""

from __future__ import annotations

from figures.site import answers

ANSWER = '<details class="success">\n<summary>{}</summary>\n<p>x = 1</p>\n</details>'


def test_the_switch_stands_before_the_first_answer_and_each_title_gets_its_note():
    page = "<p>Try it.</p>\n" + ANSWER.format("Worked answer") + "\n<p>More.</p>\n" + ANSWER.format("Worked answer")
    out = answers.with_print_switch(page, "en")
    assert out.index('<label class="mha-answers-switch') < out.index("<details") and out.count("mha-answers-switch") == 1
    assert out.count('<summary>Worked answer<span class="mha-answer-left-out"> (not printed)</span></summary>') == 2
    zh = answers.with_print_switch(ANSWER.format("参考解答"), "zh")
    assert "打印时附上全部参考解答" in zh and '<summary>参考解答<span class="mha-answer-left-out">（未打印）</span>' in zh


def test_a_page_without_answers_is_left_as_it_is():
    page = '<details class="note">\n<summary>Note</summary>\n</details>\n<p>text</p>'
    assert answers.with_print_switch(page, "en") == page
