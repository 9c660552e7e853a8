"""An address written out in a page wraps only after a "/" or before a "?" or "#" (figures/site/urls.py);
tests/test_print_handouts.py checks the printed lines themselves."""

import re

from figures.site.urls import with_breakable_urls


def _pieces(html: str) -> list[str]:
    return re.findall(r"<span>([^<]*)</span>", html)


def test_an_address_is_cut_into_pieces_that_end_at_a_slash_or_start_a_query_or_anchor():
    out = with_breakable_urls("<p>from https://mha-explained.example.org/en/what-it-costs/?q=1#fig-x.</p>")
    assert _pieces(out) == ["https://", "mha-explained.example.org/", "en/", "what-it-costs/", "?q=1", "#fig-x"]
    assert re.sub(r"<[^>]*>", "", out) == "from https://mha-explained.example.org/en/what-it-costs/?q=1#fig-x."  # text unchanged
    assert out.count("<wbr>") == 5


def test_attributes_scripts_and_styles_keep_their_addresses():
    html = ('<a href="https://a.org/b/">x</a><script>u = "https://a.org/c/"</script>'
            '<style>a::after { content: "https://a.org/d/" }</style>')
    assert with_breakable_urls(html) == html


def test_an_address_in_a_code_string_stops_at_its_quote():
    out = with_breakable_urls('<span class="s">&quot;https://a.org/en/&quot;</span>')
    assert _pieces(out) == ["https://", "a.org/", "en/"] and out.endswith("</span>&quot;</span>")
