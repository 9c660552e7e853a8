"""Print handouts, read from the PDF chromium makes (page.pdf(), A4) and from the page laid out for
print: no heading left at the foot of a page, the BibTeX entry on one page, an address broken only
after a "/" or before a "?" or "#", figure text at 8 pt or more on paper, worked answers left out
unless the reader opened them or asked for every one, and print always in the light scheme.
test_print_offline.py checks the figures in print."""

from __future__ import annotations

import io
import re

import pytest
from pypdf import PdfReader

from test_legibility import shown_px, smallest_by_file

PAGES = ["what-trained-heads-do/", "one-head-blends/", "en/what-trained-heads-do/", "en/references/"]
ANSWER_BODIES = """() => [...document.querySelectorAll('.md-typeset details.success')].map(d =>
    [...d.children].filter(c => c.tagName !== 'SUMMARY').some(c => c.getBoundingClientRect().height > 0))"""


PRINT_PT = 8  # the smallest figure text on paper
ADDRESS = re.compile(r"https?://[\w.~%/#?=:-]*[\w/#]")  # as a reader would pick one out of the text


def _print(page) -> None:
    """Print media, every frame loaded (the slider keeps hidden ones back until print starts)."""
    page.emulate_media(media="print")
    page.wait_for_function("() => !document.querySelector('img[data-src]:not([src])')")
    page.evaluate("document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager')")
    page.wait_for_load_state("networkidle")


def _lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module", params=PAGES)
def handout(request, browser, served):
    """(the page, the text of each printed page, its headings' texts) for a page printed to A4."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(served + request.param, wait_until="networkidle")
    _print(page)
    pdf = PdfReader(io.BytesIO(page.pdf(format="A4")))
    headings = page.evaluate("() => [...document.querySelectorAll('.md-content :is(h1,h2,h3,h4)')].map(h => h.innerText)")
    yield page, [_lines(p.extract_text()) for p in pdf.pages], {" ".join(h.replace("¶", "").split()) for h in headings}
    page.close()


def test_no_heading_is_left_at_the_foot_of_a_printed_page(handout):
    _, pages, headings = handout
    assert len(pages) > 1 and headings
    stranded = [(n + 1, lines[-1]) for n, lines in enumerate(pages[:-1]) if lines and lines[-1] in headings]
    assert stranded == []


def test_the_bibtex_entry_prints_on_one_page(handout):
    page, pages, _ = handout
    entry = _lines(page.evaluate("() => [...document.querySelectorAll('pre code')].map(c => c.innerText)"
                                 ".find(t => t.startsWith('@misc{'))"))
    first, last = entry[0], entry[-2]  # "@misc{key," ... the last field before "}"
    on = [n for n, lines in enumerate(pages) if any(first in line for line in lines)]
    assert len(on) == 1 and any(last in line for line in pages[on[0]]), (first, last, on)


def test_an_address_breaks_only_after_a_slash_or_before_a_query_or_anchor(handout):
    page, pages, _ = handout
    addresses = set(ADDRESS.findall(page.evaluate("() => document.querySelector('.md-content').textContent")))
    printed = "\n".join(line for lines in pages for line in lines)
    breaks = []  # (the line's end, the next line's start) wherever an address runs on
    for address in addresses:
        for m in re.finditer("\n?".join(map(re.escape, address)), printed):
            breaks += [(m[0][:i], m[0][i + 1:]) for i, c in enumerate(m[0]) if c == "\n"]
    assert addresses and all(re.search(re.escape(a[:30]), printed.replace("\n", "")) for a in addresses)
    assert [(a, b) for a, b in breaks if not (a.endswith("/") or b.startswith(("?", "#")))] == []


def _paper(pdf_page) -> tuple[float, float]:
    """(pt of paper per CSS px, left margin in pt): the transform in force where chromium sets the
    page's first text, that of the printed column (CSS px from its top left corner)."""
    first = []
    pdf_page.extract_text(visitor_operand_before=lambda op, args, cm, tm: first.append(cm) if op == b"Tf" and not first else None)
    a, b, c, d, e, f = (float(x) for x in first[0])
    assert b == c == 0, "a page printed upright"
    return a, e


@pytest.mark.parametrize("path", ["one-head-blends/", "en/what-trained-heads-do/"])
def test_figure_text_prints_at_8_pt_or_more_on_a4(browser, served, checked_frames, path):
    """Measured on the PDF's own scale: the page laid out as wide as chromium's printed column (the
    A4 page less the margins it printed), each frame's smallest text at the width the frame gets
    (a slider's frames as small multiples, two a row; a figure of one frame across the column)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(served + path, wait_until="networkidle")
    _print(page)
    pdf = PdfReader(io.BytesIO(page.pdf(format="A4")))
    scale, margin = _paper(pdf.pages[0])
    column_px = (float(pdf.pages[0].mediabox.width) - 2 * margin) / scale
    page.set_viewport_size({"width": round(column_px), "height": 900})
    page.wait_for_function("() => [...document.images].every(i => i.complete)")
    frames = page.evaluate("""() => [...document.querySelectorAll('.mha-frames .mha-frame img')]
        .filter(i => i.getBoundingClientRect().width > 0)
        .map(i => [new URL(i.currentSrc).pathname.replace(/^\\//, ''), i.getBoundingClientRect().width])""")
    page.close()
    smallest = smallest_by_file(checked_frames)
    printed = {src: shown_px(*smallest[src][:2], width) * scale for src, width in frames}
    assert sum(src.endswith(".narrow.svg") for src in printed) > 4, printed  # small multiples among them
    small = {src: round(pt, 2) for src, pt in printed.items() if pt < PRINT_PT}
    assert small == {}, f"figure text under {PRINT_PT} pt on A4 (column {column_px:.0f} px): {small}"


@pytest.mark.parametrize("path", ["one-head-blends/", "en/one-head-blends/"])
def test_worked_answers_print_only_when_opened_or_asked_for(browser, served, path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(served + path, wait_until="networkidle")
    assert page.evaluate(ANSWER_BODIES), "the page has worked answers"
    page.locator(".md-typeset details.success > summary").first.click()  # the reader opens the first
    page.emulate_media(media="print")
    shown = page.evaluate(ANSWER_BODIES)
    notes = page.evaluate("() => [...document.querySelectorAll('.mha-answer-left-out')].map(n => n.offsetParent !== null)")
    assert shown[0] and not any(shown[1:]), shown  # Material opened them all; only the reader's prints
    assert notes == [False] + [True] * (len(notes) - 1)  # the others say they were left out
    page.emulate_media(media="screen")
    page.locator(".mha-answers-switch input").check()  # "print with every answer"
    page.emulate_media(media="print")
    assert all(page.evaluate(ANSWER_BODIES))
    page.close()


@pytest.mark.parametrize("path", ["what-trained-heads-do/", "en/references/"])
def test_a_page_read_in_the_dark_scheme_prints_light(browser, served, path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(served + path, wait_until="networkidle")
    page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
    page.emulate_media(media="print")
    page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'default'")
    colours = page.evaluate("""() => [getComputedStyle(document.body).backgroundColor,
        getComputedStyle(document.querySelector('.md-content p')).color]""")
    assert colours[0] in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)") and colours[1].startswith("rgba(0, 0, 0"), colours
    page.emulate_media(media="screen")  # printing over: the reader's scheme comes back
    page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'slate'")
    page.close()


@pytest.mark.parametrize("path", ["one-head-blends/", "en/references/"])
def test_the_citations_carry_todays_date_on_screen_and_the_placeholders_in_print(browser, served, path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(served + path, wait_until="networkidle")
    today = page.evaluate("() => { const d = new Date(); return [d.getFullYear(), d.getMonth() + 1, d.getDate()]; }")
    iso = f"{today[0]}-{today[1]:02d}-{today[2]:02d}"
    citations = "() => [...document.querySelectorAll('#cite ~ * pre code')].map(c => c.innerText).join('\\n')"
    screen = page.evaluate(citations)
    assert "YYYY-MM-DD" not in screen and "Month D, YYYY" not in screen
    assert screen.count(f"[{iso}]") == 1 and f'urldate = "{iso}"' in " ".join(screen.split())  # GB/T, BibTeX
    assert f", {today[0]}, from " in screen  # APA's "Retrieved December 1, 2026, from"
    page.emulate_media(media="print")  # the script hears of it a moment later (a media query's change)
    page.wait_for_function(f"() => ({citations})().includes('[YYYY-MM-DD]')", timeout=5000)
    printed = page.evaluate(citations)
    assert "[YYYY-MM-DD]" in printed and "Retrieved Month D, YYYY, from" in printed and f"[{iso}]" not in printed
    page.close()
