"""The figure cache on disk redraws exactly the frames whose sources changed, and never reads a half file."""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from figures.cache import ENV, FigureCache, from_env
from figures.render import Frame, frames, render, render_files, render_many

ROOT = Path(__file__).resolve().parents[1]
# one frame each, except width-slices; flow-diagram alone reaches mha_ref.flow.flow_shapes
FIGURES = ("peak-dip", "heads-vs-bleu", "flow-diagram", "width-slices")


def _drawn(repo: Path, *extra: str) -> int:
    """Run the CLI in `repo` on FIGURES in English; how many frames it drew."""
    env = dict(os.environ, **{ENV: str(repo / ".cache" / "figures")})
    run = subprocess.run([sys.executable, "-m", "figures", "--out", str(repo / "out"), "--lang", "en",
                          "--only", *FIGURES, *extra], cwd=repo, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return int(re.search(r"\((\d+) drawn", run.stderr).group(1))


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.slow  # seven runs of the CLI in a copy of the checkout, the first drawing cold
def test_only_the_frames_whose_sources_changed_are_drawn_again(checkout):
    every = sum(len(frames(f)) for f in FIGURES)
    assert _drawn(checkout) == every
    assert _drawn(checkout) == 0  # nothing changed
    # a comment and a docstring in mha_ref code that every one of these figures reaches
    _edit(checkout / "mha_ref/attention.py", "import numpy as np\n", "import numpy as np  # edited\n")
    _edit(checkout / "mha_ref/toy.py", '"""[n] -log of each', '"""[n] (edited) -log of each')
    assert _drawn(checkout) == 0
    # a figure module: only its frame
    _edit(checkout / "figures/peak_dip.py", '"blend ratio"', '"blend ratio (edited)"')
    assert _drawn(checkout) == 1
    # an mha_ref function that only flow-diagram reaches
    _edit(checkout / "mha_ref/flow.py", "    params = init_params(d_model, h, seed=0)\n",
          "    params = init_params(d_model, h, seed=0)\n    n = int(n)\n")
    assert _drawn(checkout) == 1
    # a constant of the running example: every figure that reads mha_ref.toy
    _edit(checkout / "mha_ref/toy.py", "NOISE = 0.04", "NOISE = 0.05")
    assert _drawn(checkout) == len(frames("peak-dip")) + len(frames("width-slices"))
    assert _drawn(checkout, "--no-cache") == every


def test_the_pool_draws_the_same_bytes_as_one_process():
    # frames of two figures in both languages: what a worker drew before must not change its bytes
    tasks = [(f, lang, fmt) for f in frames("width-slices")[:2] + frames("peak-dip")
             for lang in ("zh", "en") for fmt in ("svg", "png")]
    assert list(render_many(tasks, jobs=2)) == [render(*task) for task in tasks]


def test_files_come_back_from_the_cache_unchanged(tmp_path):
    cache = FigureCache(tmp_path)
    first = list(render_files(["en"], ["width-slices"], cache=cache))
    again = list(render_files(["en"], ["width-slices"], cache=cache))
    assert all(r.drawn for r in first) and not any(r.drawn for r in again)
    assert [r.data for r in again] == [r.data for r in first]
    assert [r.frame for r in again] == frames("width-slices")


def test_the_cache_is_turned_off_by_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV, "0")
    assert from_env() is None
    monkeypatch.setenv(ENV, str(tmp_path))
    assert from_env().folder == tmp_path


def test_a_killed_write_leaves_no_file_read_as_a_hit(tmp_path):
    cache = FigureCache(tmp_path)
    path = cache.path("digest", "en", None, "svg")
    # the process dies after writing part of the file, before renaming it into place
    script = textwrap.dedent(f"""
        import os
        from pathlib import Path
        from figures.cache import FigureCache
        os.fsync = lambda fd: os._exit(9)
        FigureCache(Path({str(tmp_path)!r})).put(Path({str(path)!r}), b"<svg>" * 100000)
    """)
    killed = subprocess.run([sys.executable, "-c", script], cwd=ROOT)
    assert killed.returncode == 9
    assert cache.get(path) is None
    left = list(tmp_path.rglob(".tmp-*"))
    assert len(left) == 1  # the partial file, under a name no lookup uses
    os.utime(left[0], (0, 0))  # a day old: no build is still writing it
    cache.prune()
    assert not list(tmp_path.rglob(".tmp-*"))


def test_a_failed_write_leaves_nothing(tmp_path, monkeypatch):
    cache = FigureCache(tmp_path)
    path = cache.path("digest", "en", None, "svg")
    monkeypatch.setattr(os, "replace", lambda a, b: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        cache.put(path, b"<svg/>")
    assert cache.get(path) is None and not list(tmp_path.rglob("*.*"))


def test_prune_keeps_the_most_recently_used(tmp_path):
    cache = FigureCache(tmp_path)
    paths = [cache.path(str(i), "en", None, "svg") for i in range(5)]
    for i, path in enumerate(paths):
        cache.put(path, b"x")
        os.utime(path, (i, i))
    cache.get(paths[0])  # used now: the newest
    cache.prune(keep=2)
    assert sorted(p for p in paths if p.exists()) == sorted([paths[0], paths[4]])


def test_prune_never_forgets_what_this_build_used(tmp_path):
    # a build that uses more files than the cache keeps (issue 11's figures made one use 1,750 of
    # 2,000): its own frames stay, and only files from before it go
    old = FigureCache(tmp_path)
    stale = old.path("stale", "en", None, "svg")
    old.put(stale, b"x")
    os.utime(stale, (0, 0))
    cache = FigureCache(tmp_path)
    paths = [cache.path(str(i), "en", None, "svg") for i in range(5)]
    for path in paths:
        cache.put(path, b"x")
    cache.prune(keep=2)
    assert all(p.exists() for p in paths) and not stale.exists()


def test_a_frame_is_keyed_by_language_frame_and_format(tmp_path):
    cache = FigureCache(tmp_path)
    keys = {cache.path("d", lang, slug, fmt) for lang in ("zh", "en") for slug in (None, "h1")
            for fmt in ("svg", "png")}
    assert len(keys) == 8
    assert Frame("x", None, None).path("svg") == "x.svg"


def test_digests_are_remembered_while_the_code_is_unchanged(tmp_path):
    from figures.sources import Sources

    cache, sources = FigureCache(tmp_path), Sources()
    modules = ["figures.peak_dip", "figures.width_slices"]
    assert cache.digests(modules, sources) == [sources.digest(m) for m in modules]

    class Unread(Sources):
        def digest(self, module):
            raise AssertionError("worked out again")
    assert cache.digests(modules, Unread()) == [sources.digest(m) for m in modules]


def test_a_figure_is_keyed_by_the_mha_ref_code_it_reaches_by_name(tmp_path):
    from figures.sources import Sources

    files = {
        "figures/__init__.py": "", "figures/render.py": "from . import style\n", "figures/style.py": "",
        "figures/fig.py": "from mha_ref import a\n\ndef draw(lang, value):\n    return a.f(value)\n",
        "mha_ref/__init__.py": "from .a import f\n",
        "mha_ref/a.py": ('"""A module."""\nfrom .b import g\n\nK = 1\n\n\ndef f(x):\n    """f."""\n    return g(x) + K\n\n\n'
                         "def unused(x):\n    return x\n"),
        "mha_ref/b.py": "def g(x):\n    return 2 * x\n\n\ndef other(x):\n    return x\n",
    }

    def digest(**edits):
        for rel, text in {**files, **edits}.items():
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_text(text)
        return Sources(tmp_path).digest("figures.fig")

    base = digest()
    a, b = files["mha_ref/a.py"], files["mha_ref/b.py"]
    assert digest(**{"mha_ref/a.py": a.replace('"""f."""', '"""f, edited."""') + "# a comment\n"}) == base
    assert digest(**{"mha_ref/a.py": a.replace("return x", "return x + 1")}) == base  # not reached
    assert digest(**{"mha_ref/b.py": b.replace("return x", "return x + 1")}) == base  # not reached
    assert digest(**{"mha_ref/b.py": b.replace("2 * x", "3 * x")}) != base  # f calls g
    assert digest(**{"mha_ref/a.py": a.replace("K = 1", "K = 2")}) != base  # a constant of a reached module
    assert digest(**{"mha_ref/a.py": a + "\n\ndef f(x):\n    return 0\n"}) != base  # f defined again
    assert digest(**{"figures/style.py": "X = 1\n"}) != base  # figure code counts whole
