"""The gallery's filter (figures/site/gallery.py writes it, docs/assets/mha-gallery.js runs it): by
the page that explains a figure and by words of its id or caption, in the page's language."""

from __future__ import annotations

import re

import pytest

from figures.site import gallery


def test_the_filter_lists_each_page_once_in_order_and_waits_hidden_for_its_script():
    form = gallery.filter_html("en", {"one-head-blends.md": "One head", "a&b.md": "Tom & <Jerry>"})
    assert form.startswith('<form class="mha-gallery-filter" role="search" aria-label="Filter the figures" hidden ')
    assert re.findall(r'<option value="([^"]*)">([^<]*)</option>', form) == [
        ("", "Every page"), ("one-head-blends.md", "One head"), ("a&amp;b.md", "Tom &amp; &lt;Jerry&gt;")]
    assert 'data-count="{shown} of {total} figures shown"' in form
    assert gallery.FILTER_WORDS["zh"].keys() == gallery.FILTER_WORDS["en"].keys()


@pytest.mark.parametrize("lang, width, word", [("zh", 390, "掩码"), ("en", 1280, "mask")])
def test_the_gallery_filters_by_page_and_by_id_or_word(browser, served, site, lang, width, word):
    root = "" if lang == "zh" else "en/"
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.set_default_timeout(10_000)
    page.goto(served + root + "gallery/", wait_until="networkidle")
    cards = page.evaluate("""() => [...document.querySelectorAll('.mha-gallery-item')].map(i => ({
        id: i.id.replace('gallery-', ''), page: i.dataset.page, text: i.innerText.toLowerCase()}))""")

    def shown() -> list[str]:
        return page.evaluate("""() => [...document.querySelectorAll('.mha-gallery-item')]
            .filter(i => i.offsetParent !== null).map(i => i.id.replace('gallery-', ''))""")

    assert len(shown()) == len(cards) > 30
    page.fill(".mha-gallery-filter input", "kv-heads")
    assert shown() == ["kv-heads"]
    page.fill(".mha-gallery-filter input", "")
    page.select_option(".mha-gallery-filter select", "what-trained-heads-do.md")
    on_page = [c["id"] for c in cards if c["page"] == "what-trained-heads-do.md"]
    assert shown() == on_page and len(on_page) > 3
    assert page.locator(".mha-gallery-filter output").inner_text() in (
        f"显示 {len(on_page)} / {len(cards)} 张图", f"{len(on_page)} of {len(cards)} figures shown")
    page.select_option(".mha-gallery-filter select", "")
    page.fill(".mha-gallery-filter input", word)  # a word of the captions, in the page's language
    assert shown() == [c["id"] for c in cards if word in c["text"]] != []
    page.close()
