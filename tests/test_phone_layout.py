"""A 390 px phone: no page scrolls sideways, with script or without (the language menu, hidden but
laid out, once reached 22 px past the edge when no script ran), and no back-to-top button appears
over the text (it covered a slider's row when the reader scrolled up)."""

from __future__ import annotations

import pytest

from test_reader import LANG_ROOT, PAGES

PHONE = {"width": 390, "height": 844}
SIDEWAYS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.mark.parametrize("script", [True, False], ids=["script", "no-script"])
def test_no_page_scrolls_sideways_on_a_phone(browser, served, script):
    context = browser.new_context(viewport=PHONE, java_script_enabled=script)
    page = context.new_page()
    wide = {}
    for lang, root in LANG_ROOT.items():
        for path in PAGES:
            page.goto(served + root + path, wait_until="load")
            if page.evaluate(SIDEWAYS) > 0:
                wide[root + path] = page.evaluate(SIDEWAYS)
    context.close()
    assert wide == {}


def test_no_back_to_top_button_covers_the_text_on_a_phone(browser, served):
    page = browser.new_page(viewport=PHONE)
    page.goto(served + "en/one-head-blends/", wait_until="networkidle")
    page.mouse.wheel(0, 3000)
    page.wait_for_timeout(300)
    page.mouse.wheel(0, -600)  # Material shows its button when the reader scrolls back up
    page.wait_for_timeout(500)
    shown = page.evaluate("() => [...document.querySelectorAll('.md-top')].some(b => b.getClientRects().length > 0 && !b.hidden)")
    page.close()
    assert not shown
