"""The numbers behind a figure, as a table folded under it (markup.data_html): the numbers mha_ref
computes, the same table in both languages, on the page under its figure."""

import pytest
from bs4 import BeautifulSoup

from figures import registry
from figures.style import HEAD_NAMES
from mha_ref import costs, toy

WITH_DATA = [i for i in registry.ORDER if hasattr(registry.get(i), "data")]


def test_a_weight_table_holds_every_weight_mha_ref_computes():
    head, rows = registry.get("four-heads").data("en")
    assert head[2:] == list(toy.TOKENS) and len(rows) == toy.N * toy.H
    weights = toy.trace().weights
    by_name = {names[1]: h for h, names in HEAD_NAMES.items()}
    for row in rows:
        expected = weights[toy.head_index(by_name[row[1]])][toy.TOKENS.index(row[0])]
        assert [float(c) for c in row[2:]] == pytest.approx(expected, abs=0.005), row


def test_the_cost_tables_hold_mha_refs_counts():
    _, rows = registry.get("params-vs-h").data("en")
    d_model = 768
    for h, d_k, per_head, total in rows:
        assert int(total.replace(",", "")) == costs.param_count(d_model, int(h)) == 4 * d_model ** 2 + 4 * d_model
        assert int(per_head.replace(",", "")) * int(h) + d_model ** 2 + d_model == int(total.replace(",", ""))
    _, rows = registry.get("peak-dip").data("en")
    assert [float(r[0]) for r in rows] == pytest.approx(toy.blend_ratios(), abs=0.005)
    assert [float(r[3]) for r in rows] == pytest.approx(toy.blend_curve("it").max(axis=1), abs=0.005)


@pytest.mark.parametrize("fig_id", WITH_DATA)
def test_a_data_table_has_one_shape_in_both_languages(fig_id):
    (zh_head, zh_rows), (en_head, en_rows) = (registry.get(fig_id).data(lang) for lang in ("zh", "en"))
    assert len(zh_head) == len(en_head) and [len(r) for r in zh_rows] == [len(r) for r in en_rows]
    numbers = [[c for c in r if c[:1].isdigit()] for r in zh_rows]
    assert numbers == [[c for c in r if c[:1].isdigit()] for r in en_rows]  # the same numbers


def test_each_table_sits_folded_under_its_figure_on_its_page(site):
    found = {}
    for page in site.rglob("index.html"):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for figure in soup.select("figure.mha-figure"):
            table = figure.select_one("details.mha-data table")
            if table is not None:
                lang = "en" if page.relative_to(site).parts[0] == "en" else "zh"
                found[figure["id"].removeprefix("fig-"), lang] = len(table.select("tbody tr"))
    expected = {(i, lang): len(registry.get(i).data(lang)[1]) for i in WITH_DATA for lang in ("zh", "en")}
    assert len(WITH_DATA) >= 9 and found == expected
