"""Every registered figure renders every frame in both languages, with every glyph from the face
it asks for, identically."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from figures.engine import registry
from figures.engine.render import FigureError, Frame, frames, render
from figures.engine.save import to_bytes
from frame_checks import ONE_WITH_PLURAL, frame_params
from figures.kit import style
from figures.text import constructs
from figures.site import markup

ROOT = Path(__file__).resolve().parents[1]
ALL_FRAMES = [f for fig_id in registry.ORDER for f in frames(fig_id)]


def test_registry_has_one_module_per_figure_with_the_contract():
    for fig_id in registry.ORDER:
        mod = registry.get(fig_id)
        assert Path(mod.__file__).name == fig_id.replace("-", "_") + ".py"
        assert callable(mod.draw)
        assert mod.CAPTION_ZH.strip() and mod.CAPTION_EN.strip()
        assert mod.__doc__.split(":")[0] == fig_id  # the docstring opens with the id


def test_unknown_figure_id_is_named():
    with pytest.raises(KeyError, match="no-such-figure"):
        registry.get("no-such-figure")


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("frame", frame_params(ALL_FRAMES), ids=lambda f: f.path("svg"))
def test_frame_renders_every_glyph_from_the_face_it_asks_for(frame, lang, checked_frames):
    checked = checked_frames[frame, lang]  # drawn once for the session, in a pool
    assert checked.files is not None, checked.error
    assert not checked.missing, checked.missing
    assert not checked.fallbacks, checked.fallbacks
    assert not checked.underscores, checked.underscores  # symbols are mathtext ($d_k$), never raw underscores
    assert not checked.plurals, checked.plurals
    svg = checked.files["svg"]
    assert svg.startswith(b"<?xml") and b"<svg" in svg
    assert b"<dc:date>" not in svg  # no date: two builds give the same bytes
    assert b"<text" not in svg  # glyphs are paths: the reader needs no font


@pytest.mark.parametrize("frame", [f for f in ALL_FRAMES if hasattr(registry.get(f.fig_id), "readout")],
                         ids=lambda f: f.path("svg"))
def test_english_readouts_agree_in_number(frame):
    text = registry.get(frame.fig_id).readout("en", frame.value)
    assert not ONE_WITH_PLURAL.search(text), text


def test_published_models_are_plotted_at_their_true_h_and_d_k_and_told_apart_where_they_meet():
    from mha_ref import models
    fig = registry.get("published-models").draw("en")
    points = {}  # (h, d_k) -> [(family, marker size)]
    for c in fig.axes[0].collections:
        # a collection holds one family: the models whose names start with its label
        family = [m for m in models.PUBLISHED_MODELS if m.name.startswith(c.get_label() + " ")]
        assert sorted(map(tuple, c.get_offsets().tolist())) == sorted((m.heads, m.d_head) for m in family)
        sizes = list(c.get_sizes()) * len(family) if len(c.get_sizes()) == 1 else list(c.get_sizes())
        for (h, d_k), s in zip(c.get_offsets().tolist(), sizes):
            points.setdefault((h, d_k), []).append((c.get_label(), s))
    assert sum(len(v) for v in points.values()) == len(models.PUBLISHED_MODELS)
    for point, here in points.items():  # families that meet at a point get different sizes there
        assert len({s for _, s in here}) == len(here), (point, here)
    to_bytes(fig)


@pytest.mark.parametrize("frame", frames("syntax-walk"), ids=lambda f: f.slug)
def test_syntax_walk_draws_arcs_ahead_above_the_words_and_arcs_back_below(frame):
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path as MplPath

    from mha_ref.example import toy
    fig = registry.get("syntax-walk").draw("en", frame.value)
    fig.canvas.draw()  # lay the figure out, so that the arcs' paths are final
    ax = fig.axes[0]
    words_y = {t.get_position()[1] for t in ax.texts if t.get_text() in toy.TOKENS}
    assert len(words_y) == 1
    arcs = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    targets = toy.targets("syntax")
    assert len(arcs) == toy.N
    for query, (arc, target) in enumerate(zip(arcs, targets)):
        path = arc.get_path()  # in data coordinates; a closing vertex of the head carries no point
        y = path.vertices[path.codes != MplPath.CLOSEPOLY, 1]
        if target > query:
            assert y.min() > min(words_y), (toy.TOKENS[query], "ahead, so above")
        else:
            assert y.max() < min(words_y), (toy.TOKENS[query], "back, so below")
    to_bytes(fig)


def test_zh_and_en_frames_differ_where_they_have_words():
    frame = Frame("peak-dip", None, None)
    assert render(frame, "zh") != render(frame, "en")


def test_a_broken_figure_is_named(monkeypatch):
    mod = registry.get("peak-dip")
    monkeypatch.setattr(mod, "draw", lambda lang, value=None: 1 / 0)
    with pytest.raises(FigureError, match="peak-dip.*zh.*ZeroDivisionError"):
        render(Frame("peak-dip", None, None), "zh")


# The CLI writes every frame with the bytes the site serves, read from the session's figure cache
# (so the CLI and the site agree without drawing anything twice). That a frame drawn again in
# another process gives the same bytes is shown on a chosen sample: a figure without a control, one
# with a slider, and the diagram; as SVG against the site's files (drawn by the session's pool), as
# PDF and PNG against this process.
SAMPLE = ("peak-dip", "width-slices", "flow-diagram")


def _cli(out: Path, *args: str) -> str:
    run = subprocess.run([sys.executable, "-m", "figures", "--out", str(out), *args],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stderr


def _served(site: Path, lang: str, path: str) -> bytes:
    return (site / ("" if lang == "zh" else "en") / "figures" / path).read_bytes()


def test_the_cli_writes_the_bytes_the_site_serves(tmp_path, site):
    log = _cli(tmp_path)
    assert "(0 drawn," in log  # every frame came from the cache the site was built from
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.svg"))
    assert written == sorted(f"{lang}/{f.path('svg')}" for lang in ("zh", "en") for f in ALL_FRAMES)
    for rel in written:
        lang, path = rel.split("/", 1)
        assert (tmp_path / rel).read_bytes() == _served(site, lang, path), rel


@pytest.mark.parametrize("fmt", ["svg", "pdf", "png"])
def test_two_renders_in_separate_processes_are_byte_identical(tmp_path, fmt, site):
    out = tmp_path / "once"
    _cli(out, "--format", fmt, "--no-cache", "--jobs", "1", "--only", *SAMPLE)
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob(f"*.{fmt}"))
    expected = {f"{lang}/{f.path(fmt)}": (f, lang) for lang in ("zh", "en") for fig_id in SAMPLE for f in frames(fig_id)}
    assert written == sorted(expected)
    if fmt == "png":  # the site keeps no PNG (its pages draw them): a second render of its own
        again = tmp_path / "again"
        _cli(again, "--format", fmt, "--no-cache", "--jobs", "1", "--only", *SAMPLE)
    for rel in written:
        frame, lang = expected[rel]
        # the site serves every format stamped with its attribution (figures/publish/), as the CLI writes it
        other = (again / rel).read_bytes() if fmt == "png" else _served(site, lang, frame.path(fmt))
        assert (out / rel).read_bytes() == other, rel


def test_cli_refuses_unknown_id_and_format(tmp_path):
    bad_id = subprocess.run([sys.executable, "-m", "figures", "--out", str(tmp_path), "--only", "nope"],
                            cwd=ROOT, capture_output=True, text=True)
    assert bad_id.returncode != 0 and "nope" in bad_id.stderr
    bad_fmt = subprocess.run([sys.executable, "-m", "figures", "--out", str(tmp_path), "--format", "gif"],
                             cwd=ROOT, capture_output=True, text=True)
    assert bad_fmt.returncode != 0 and "gif" in bad_fmt.stderr


def test_cli_writes_only_the_chosen_figures_and_languages(tmp_path):
    subprocess.run([sys.executable, "-m", "figures", "--out", str(tmp_path), "--lang", "en",
                    "--only", "width-slices"], cwd=ROOT, check=True, capture_output=True)
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.svg"))
    assert written == sorted(f"en/{f.path('svg')}" for f in frames("width-slices"))


# the figure construct ---------------------------------------------------------------------------
def _url(path):
    return f"../figures/{path}"


def test_figure_construct_places_frames_caption_number_and_anchor():
    text, ids = markup.expand("intro\n\n{{ figure width-slices }}\n\n{{ figure peak-dip }}\n", "en", _url, "t.md")
    assert ids == ["width-slices", "peak-dip"]
    assert 'id="fig-width-slices"' in text and 'id="fig-peak-dip"' in text
    assert "Figure 1</a>" in text and "Figure 2</a>" in text
    assert len(re.findall(r'class="mha-frame(?: is-current)?"', text)) == len(frames("width-slices")) + 1
    assert text.count('class="mha-frame is-current"') == 1  # the slider's start frame, marked for the first paint
    assert 'data-start="2"' in text  # h = 4, the running example's head count
    assert 'data-label-control="number of heads h"' in text


def test_figure_construct_start_option_and_errors():
    text, _ = markup.expand("{{ figure width-slices start=h2 }}", "zh", _url, "t.md")
    assert 'data-start="1"' in text and "图 1</a>" in text
    for bad, pattern in [("{{ figure nope }}", "nope"), ("{{ figure width-slices start=h3 }}", "h3"),
                         ("{{ figure peak-dip start=1 }}", "no control"),
                         ("{{ figure peak-dip colour=red }}", "colour"),
                         ("{{ figure peak-dip }}\n\n{{ figure peak-dip }}", "twice"),
                         ("text {{ figure peak-dip }} inline", "misplaced"), ("{{ vaule toy.n }}", "vaule")]:
        with pytest.raises(constructs.MarkupError, match=pattern):
            markup.expand(bad, "en", _url, "t.md")


def test_value_construct_prints_computed_numbers():
    text, _ = markup.expand("{{ value gpt2.params }} / {{ value gpt2.ratio .1f }}", "en", _url, "t.md")
    assert text == "2,362,368 / 1.5"
    with pytest.raises(constructs.MarkupError, match="t.md.*nope"):
        markup.expand("{{ value nope }}", "en", _url, "t.md")


def test_captions_type_no_number_by_hand():
    from prose_rules import prose
    for fig_id in registry.ORDER:
        mod = registry.get(fig_id)
        for cap in (mod.CAPTION_ZH, mod.CAPTION_EN):
            assert not re.search(r"\d", prose(cap)), (fig_id, prose(cap))


def test_references_construct_lists_every_work_with_its_anchor():
    from mha_ref import models
    text, _ = markup.expand("{{ references }}", "en", _url, "t.md")
    for key, ref in models.REFERENCES.items():
        assert f"{{: #{key} .mha-reference }}" in text and ref.title in text
        if ref.arxiv:
            assert f"arXiv:{ref.arxiv}" in text


def test_table_construct_comes_from_the_data_in_the_page_language():
    from mha_ref import models
    zh, _ = markup.expand("{{ table published-models }}", "zh", _url, "t.md")
    en, _ = markup.expand("{{ table published-models }}", "en", _url, "t.md")
    assert "| 模型 |" in zh and "| model |" in en
    assert len([line for line in zh.splitlines() if line.startswith("| ")]) == len(models.PUBLISHED_MODELS) + 1
    gpt3 = models.model("GPT-3 175B")
    assert f"| {gpt3.name} | {gpt3.d_model} | {gpt3.layers} | {gpt3.heads} | {gpt3.heads} | {gpt3.d_head} | {gpt3.context} |" in en
    llama3 = models.model("Llama 3 8B")
    assert f"| {llama3.heads} | {llama3.kv_heads} | {llama3.d_head} |" in en
    head, _ = markup.expand("{{ table head-count }}", "en", _url, "t.md")
    assert "| 1 | 512 | 5.29 | 24.9 |" in head
    with pytest.raises(constructs.MarkupError, match="nope"):
        markup.expand("{{ table nope }}", "en", _url, "t.md")


@pytest.mark.slow  # 24 renders, every one twice
def test_drawing_once_gives_the_bytes_of_matplotlibs_two_pass_savefig(monkeypatch):
    from matplotlib.figure import Figure

    # four figures of different make: a curve, a strip of slices, the heads' rows, the diagram
    chosen = [Frame("peak-dip", None, None), *frames("width-slices")[:1], *frames("four-heads")[:1],
              Frame("flow-diagram", None, None)]
    tasks = [(f, lang, fmt) for f in chosen for lang in ("zh", "en") for fmt in ("svg", "pdf", "png")]
    once = [render(*task) for task in tasks]
    monkeypatch.setattr(style.LaidOutOnce, "draw", Figure.draw)
    assert [render(*task) for task in tasks] == once
