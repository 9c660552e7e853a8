"""The numbers behind a figure, as a table folded under it (figure_block.data_html): the numbers mha_ref
computes, the same table in both languages, on the page under its figure."""

import csv
import functools
import io
import subprocess
import sys
from urllib.parse import unquote

import numpy as np
import pytest
from bs4 import BeautifulSoup

from built_pages import parsed as parsed_page
from frame_checks import needs_training
from figures.engine import registry
from figures.__main__ import main as cli
from figures.kit.style import HEAD_NAMES
from mha_ref import multi_head_attention_loop
from figures.keep import disk
from mha_ref import costs, models
from mha_ref.example import toy
from figures.publish import bundles
from figures.site import figure_block
from figures.text import constructs

WITH_DATA = [i for i in registry.ORDER if hasattr(registry.get(i), "data")]
# as parameters: the tables of page 4's trained model (seed-roles, trained-maps) marked trained
TABLES = [pytest.param(i, marks=[pytest.mark.trained] if needs_training(i) else []) for i in WITH_DATA]


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


def test_the_w_o_table_adds_up_to_the_blocks_real_output():
    """Each row's heads sum to its total, and the total is the block's output, computed here by the
    per-head loop (not the trace the figure reads), at every mixing stop."""
    head, rows = registry.get("wo-mixing").data("en")
    assert len(rows) == len(registry.get("wo-mixing").CONTROL.values) * toy.D_K
    it = toy.token_index("it")
    for row in rows:
        mix, slot = float(row[0]), int(row[1].split()[-1]) - 1
        out, _ = multi_head_attention_loop(toy.inputs(), toy.params(mix), toy.H)
        parts = [float(c) for c in row[2:-1]]
        assert parts == pytest.approx(toy.contributions(mix)[:, slot], abs=0.005), row
        assert float(row[-1]) == pytest.approx(out[it, slot], abs=0.005) == pytest.approx(sum(parts), abs=0.02)


def test_the_context_table_holds_the_cost_formulas_at_every_h():
    mod = registry.get("flops-vs-context")
    _, rows = mod.data("en")
    d = models.model("GPT-2 small").d_model
    ns = [int(r[0]) for r in rows]
    assert models.model("GPT-2 small").context in ns and costs.crossover_context(d) in ns and len(rows) <= 40
    for n, attention, projections, ratio in rows:
        n, attention, projections = int(n), int(attention.replace(",", "")), int(projections.replace(",", ""))
        assert attention == 2 * n * n * d and projections == 4 * n * d * d  # n^2 d_k per head, times h
        for h in mod.CONTROL.values:
            assert costs.multiply_adds(n, d, h)[:] == (projections, attention // 2, attention // 2)
        assert float(ratio) == pytest.approx(projections / attention, abs=0.005)


def test_the_matrix_tables_hold_the_examples_matrices():
    p = toy.params()
    _, rows = registry.get("four-matrices").data("en")
    for name, w in zip(("W_Q", "W_K", "W_V", "W_O"), (p.w_q, p.w_k, p.w_v, p.w_o)):
        table = np.array([[float(c) for c in r[2:]] for r in rows if r[0] == name])
        assert table.shape == w.shape and np.allclose(table, w, atol=0.005), name
    _, rows = registry.get("projection-columns").data("en")
    for h in registry.get("projection-columns").CONTROL.values:
        mine = [r for r in rows if r[0] == str(h)]
        assert len(mine) == h and all(r[3] == f"{toy.D_MODEL} × {toy.D_MODEL // h}" for r in mine)
        blocks = np.split(p.w_q, h, axis=1)
        assert [float(r[4]) for r in mine] == pytest.approx([abs(b).max() for b in blocks], abs=0.005)


def test_the_concatenation_tables_hold_the_traces_concat():
    concat = toy.trace().concat
    _, rows = registry.get("head-outputs").data("en")
    assert np.allclose([[float(c) for c in r[1:]] for r in rows], concat, atol=0.005)
    _, rows = registry.get("concat-slots").data("en")
    it = concat[toy.token_index("it")]
    for placed, *cells in rows:
        filled = int(placed) * toy.D_K
        assert [float(c) for c in cells[:filled]] == pytest.approx(it[:filled], abs=0.005)
        assert cells[filled:] == ["empty"] * (toy.D_MODEL - filled)


def test_the_pruning_table_holds_the_published_numbers():
    _, rows = registry.get("pruning-evidence").data("en")
    assert [[int(r[1]), int(r[2]), float(r[3])] for r in rows] == [
        [r["heads_kept"], models.VOITA_ENCODER_HEADS, r["bleu_drop"]]
        for r in (models.VOITA_PRUNED, models.VOITA_PRUNED_SUBTITLES)]


@pytest.mark.parametrize("fig_id", TABLES)
def test_a_data_table_has_one_shape_in_both_languages(fig_id):
    (zh_head, zh_rows), (en_head, en_rows) = (registry.get(fig_id).data(lang) for lang in ("zh", "en"))
    assert len(zh_head) == len(en_head) and [len(r) for r in zh_rows] == [len(r) for r in en_rows]
    numbers = [[c for c in r if c[:1].isdigit()] for r in zh_rows]
    assert numbers == [[c for c in r if c[:1].isdigit()] for r in en_rows]  # the same numbers


def test_each_table_sits_folded_under_its_figure_on_its_page(site):
    found = {}
    for page in site.rglob("index.html"):
        soup = parsed_page(page)
        for figure in soup.select("figure.mha-figure"):
            table = figure.select_one("details.mha-data table")
            if table is not None:
                lang = "en" if page.relative_to(site).parts[0] == "en" else "zh"
                found[figure["id"].removeprefix("fig-"), lang] = len(table.select("tbody tr"))
    expected = {(i, lang): len(registry.get(i).data(lang)[1]) for i in WITH_DATA for lang in ("zh", "en")}
    assert len(WITH_DATA) >= 22 and found == expected


def test_a_figures_prepare_is_done_before_its_data_table_outside_its_time_limit(monkeypatch, tmp_path):
    """seed-roles' data() reads the five seeds its PREPARE trains, minutes when nothing is kept: the
    table waits for the PREPARE (in a process of its own, PREPARE_LIMITS limits) before data() starts
    under the figure's limit, as its frames do; a reader of the table alone, with nothing kept, was
    stopped after the limit. Here a PREPARE of 1.5 s under a limit of 1 s."""
    from figures.engine import render
    kept = tmp_path / "kept"
    slow = functools.partial(subprocess.run, [sys.executable, "-c", "import pathlib, time; time.sleep(1.5); "
                                              f"pathlib.Path({str(kept)!r}).write_text('seeds')"], check=True)
    monkeypatch.setattr(render, "_preparation", lambda fig_id: slow if fig_id == "seed-roles" else None)
    monkeypatch.setenv("MHA_FIGURE_TIMEOUT", "1")
    table = bundles._data_table("seed-roles", "zh", lambda lang: (("read",), ((kept.read_text(),),)))
    assert table == (("read",), (("seeds",),))


# the same tables as CSV files (bundles.data_csv) -------------------------------------------------
def parsed(data: bytes) -> list[list[str]]:
    """A CSV file as Excel or Python's csv module reads it: the byte-order mark first, then UTF-8."""
    assert data.startswith(b"\xef\xbb\xbf")
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("fig_id", TABLES)
def test_each_data_table_as_csv_parses_back_to_the_table(fig_id, lang):
    data = bundles.data_csv(fig_id, lang)
    head, rows = registry.get(fig_id).data(lang)
    assert parsed(data) == [list(head), *map(list, rows)]
    assert data.count(b"\r\n") >= len(rows) + 1 and b"\n" not in data.replace(b"\r\n", b"")
    bundles.data_table.cache_clear()  # computed afresh: the same bytes
    assert bundles.data_csv(fig_id, lang) == data


def test_a_figure_without_a_table_has_no_csv_and_the_cli_writes_the_others(tmp_path):
    assert bundles.data_csv("published-models", "zh") is None
    assert cli(["--out", str(tmp_path), "--only", "blend-slider", "published-models", "--format", "csv"]) == 0
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert written == ["en/blend-slider.csv", "zh/blend-slider.csv"]  # nothing drawn, no file without a table
    for lang in ("zh", "en"):
        assert (tmp_path / lang / "blend-slider.csv").read_bytes() == bundles.data_csv("blend-slider", lang)


def test_the_fold_links_its_csv_when_the_file_was_written():
    mod = registry.get("four-heads")
    html = figure_block.data_html(mod, "en", "../figures/four-heads.csv")
    fold = BeautifulSoup(html, "html.parser").select_one("details.mha-data")
    assert fold.select_one("a[download]")["href"] == "../figures/four-heads.csv"
    assert "CSV" in fold.select_one("a[download]").get_text()
    assert BeautifulSoup(figure_block.data_html(mod, "en"), "html.parser").select_one("a") is None


def test_a_data_table_of_the_wrong_shape_is_refused_by_name(monkeypatch):
    mod = registry.get("peak-dip")
    monkeypatch.setenv(disk.CACHE_ENV, "0")  # data() patched here: its sources, which name the kept table, did not
    monkeypatch.setattr(mod, "data", lambda lang: (["a", "b"], [["1"]]))
    bundles.data_table.cache_clear()
    try:
        with pytest.raises(constructs.MarkupError, match=r"figure peak-dip: data\(\) must give rows of 2 cells"):
            figure_block.data_html(mod, "en")
        with pytest.raises(registry.FigureError, match=r"figure 'peak-dip' \(en, every frame\) failed to give "
                                                        r"its data table: DataTableError"):
            bundles.write_tables(["en"], ["peak-dip"], lambda *a: None)
        assert bundles.write_tables(["en"], ["peak-dip"], lambda *a: None, keep_going=True) == 0
    finally:
        bundles.data_table.cache_clear()


def test_each_csv_on_the_site_is_linked_from_its_table_and_holds_it(site):
    linked = set()
    for page in site.rglob("index.html"):
        lang = "en" if page.relative_to(site).parts[0] == "en" else "zh"
        soup = parsed_page(page)
        for figure in soup.select("figure.mha-figure"):
            fig_id = figure["id"].removeprefix("fig-")
            fold = figure.select_one("details.mha-data")
            if fold is None:
                continue
            link = fold.select_one(".mha-data-csv a[download]")
            target = (page.parent / unquote(link["href"])).resolve()
            assert target.name == bundles.csv_path(fig_id) and target.read_bytes() == bundles.data_csv(fig_id, lang)
            shown = [[c.get_text() for c in tr.select("th, td")] for tr in fold.select("table tr")]
            assert parsed(target.read_bytes()) == shown
            linked.add((fig_id, lang))
    assert linked == {(i, lang) for i in WITH_DATA for lang in ("zh", "en")}
