"""The figure cache on disk redraws exactly the frames whose sources changed, and never reads a half file."""

import errno
import hashlib
import json
import logging
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from figures.engine import render as render_module
from figures.engine.cache import ENV, FigureCache, from_env
from figures.engine.render import Frame, frames, render, render_files, render_many
from figures.keep import disk

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
    _edit(checkout / "mha_ref/example/toy.py", '"""[n] -log of each', '"""[n] (edited) -log of each')
    assert _drawn(checkout) == 0
    # a figure module: only its frame
    _edit(checkout / "figures/gallery/peak_dip.py", '"blend ratio"', '"blend ratio (edited)"')
    assert _drawn(checkout) == 1
    # an mha_ref function that only flow-diagram reaches
    _edit(checkout / "mha_ref/flow.py", "    params = init_params(d_model, h, seed=0)\n",
          "    params = init_params(d_model, h, seed=0)\n    n = int(n)\n")
    assert _drawn(checkout) == 1
    # a constant of the running example: every figure that reads mha_ref.toy
    _edit(checkout / "mha_ref/example/toy.py", "NOISE = 0.04", "NOISE = 0.05")
    assert _drawn(checkout) == len(frames("peak-dip")) + len(frames("width-slices"))
    assert _drawn(checkout, "--no-cache") == every


def test_the_pool_draws_the_same_bytes_as_one_process():
    # frames of two figures in both languages: what a worker drew before must not change its bytes
    tasks = [(f, lang, fmt) for f in frames("width-slices")[:2] + frames("peak-dip")
             for lang in ("zh", "en") for fmt in ("svg", "png")]
    assert list(render_many(tasks, jobs=2)) == [render(*task) for task in tasks]


def test_a_process_that_has_drawn_is_never_forked():
    """Its font files are open: forked workers would share them, read position included (the suite
    once failed with FT_Load_Glyph: invalid stream operation, a worker drawing after another test had
    drawn in the same process)."""
    render(frames("peak-dip")[0], "en")
    assert render_module._start_method().get_start_method() != "fork"


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
        from figures.engine.cache import FigureCache
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
        os.utime(disk.sealed_path(path), (i, i))
    cache.get(paths[0])  # used now: the newest
    cache.prune(keep=2)
    assert sorted(p for p in paths if disk.sealed_path(p).exists()) == sorted([paths[0], paths[4]])


def test_prune_leaves_a_folder_linked_in_from_elsewhere_to_its_owner(tmp_path):
    # the suite links the machine's folders (published/, whole/, ...) into each session's cache: a
    # build in the session that pruned them counted them against its own frames and dropped those
    shared = tmp_path / "machine" / "whole"
    shared.mkdir(parents=True)
    (shared / "kept.svg").write_bytes(b"x")
    os.utime(shared / "kept.svg", (0, 0))
    cache = FigureCache(tmp_path / "session")
    paths = [cache.path(str(i), "en", None, "svg") for i in range(3)]
    for i, path in enumerate(paths):
        cache.put(path, b"x")
        os.utime(disk.sealed_path(path), (i + 1, i + 1))
    (tmp_path / "session" / "whole").symlink_to(shared, target_is_directory=True)
    cache = FigureCache(tmp_path / "session")
    cache.prune(keep=2)
    assert (shared / "kept.svg").exists() and [disk.sealed_path(p).exists() for p in paths] == [False, True, True]


def test_the_machines_shared_folders_keep_the_most_recent_files_and_any_a_session_may_be_using(tmp_path):
    import machine_cache
    for i in range(5):
        (tmp_path / f"{i}.json").write_text("x")
        os.utime(tmp_path / f"{i}.json", (i, i))
    (tmp_path / "now.json").write_text("x")  # written by a session running beside
    machine_cache.prune(tmp_path, keep=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["4.json", "now.json"]
    machine_cache.prune(tmp_path, keep=0)
    assert [p.name for p in tmp_path.iterdir()] == ["now.json"]


def test_prune_never_forgets_what_this_build_used(tmp_path):
    # a build that uses more files than the cache keeps (a build of both languages used 1,750 of
    # 2,000): its own frames stay, and only files from before it go
    old = FigureCache(tmp_path)
    stale = old.path("stale", "en", None, "svg")
    old.put(stale, b"x")
    os.utime(disk.sealed_path(stale), (0, 0))
    cache = FigureCache(tmp_path)
    paths = [cache.path(str(i), "en", None, "svg") for i in range(5)]
    for path in paths:
        cache.put(path, b"x")
    cache.prune(keep=2)
    assert all(disk.sealed_path(p).exists() for p in paths) and not disk.sealed_path(stale).exists()


def test_a_frame_is_keyed_by_language_frame_and_format(tmp_path):
    cache = FigureCache(tmp_path)
    keys = {cache.path("d", lang, slug, fmt) for lang in ("zh", "en") for slug in (None, "h1")
            for fmt in ("svg", "png")}
    assert len(keys) == 8
    assert Frame("x", None, None).path("svg") == "x.svg"


def test_digests_are_remembered_while_the_code_is_unchanged(tmp_path):
    from figures.engine.sources import Sources

    cache, sources = FigureCache(tmp_path), Sources()
    modules = ["figures.gallery.peak_dip", "figures.gallery.width_slices"]
    assert cache.digests(modules, sources) == [sources.digest(m) for m in modules]

    class Unread(Sources):
        def digest(self, module):
            raise AssertionError("worked out again")
    assert cache.digests(modules, Unread()) == [sources.digest(m) for m in modules]


def test_a_figure_is_keyed_by_the_mha_ref_code_it_reaches_by_name(tmp_path):
    from figures.engine.sources import Sources

    files = {
        "figures/__init__.py": "", "figures/engine/__init__.py": "", "figures/engine/render.py": "from . import save\n",
        "figures/engine/save.py": "",
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
    assert digest(**{"figures/engine/save.py": "X = 1\n"}) != base  # figure code counts whole


# ---- a damaged entry, an unwritable cache ------------------------------------------------------

FORMATS = ("svg", "narrow.dark.svg", "png")  # the page's SVG, a variant and a download


@pytest.fixture(autouse=True)
def writable(monkeypatch):
    """No cache marked unwritable by an earlier test, nor by this one for a later test."""
    monkeypatch.setenv(disk.UNWRITABLE_ENV, "")


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == disk.log.name and r.levelno >= logging.WARNING]


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:100])


def _overwritten(path: Path) -> None:  # the same length, one byte changed
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))


def _emptied(path: Path) -> None:
    path.write_bytes(b"")


@pytest.mark.parametrize("fmt, damage", [("svg", _truncated), ("narrow.dark.svg", _overwritten), ("png", _emptied)])
def test_a_damaged_entry_is_dropped_with_a_warning_and_drawn_again(tmp_path, caplog, fmt, damage):
    cache = FigureCache(tmp_path)
    first = list(render_files(["en"], ["peak-dip"], FORMATS, cache, jobs=1))
    (task,) = [r[:3] for r in first if r.fmt == fmt]
    path = disk.sealed_path(render_module._tasks(["en"], ["peak-dip"], FORMATS, cache)[1][FORMATS.index(fmt)])
    damage(path)
    again = list(render_files(["en"], ["peak-dip"], FORMATS, cache, jobs=1))
    assert [r.data for r in again] == [r.data for r in first]  # not the damaged bytes
    assert [r.drawn for r in again] == [r.fmt == fmt for r in again]  # drawn again, the others read
    assert _warnings(caplog) == [f"figure cache: {path}, figure 'peak-dip' (en, its one frame, {fmt}), is damaged "
                                 "(its bytes do not match the digest kept with them): dropped, drawing it again"]
    assert cache.get(path.with_suffix(""), task) == first[FORMATS.index(fmt)].data  # kept whole again


def test_an_unreadable_entry_is_dropped_with_a_warning_and_drawn_again(tmp_path, caplog, monkeypatch):
    cache = FigureCache(tmp_path)
    (first,) = render_files(["en"], ["peak-dip"], ("svg",), cache, jobs=1)
    (path,) = render_module._tasks(["en"], ["peak-dip"], ("svg",), cache)[1]
    path = disk.sealed_path(path)
    read_file = disk.read_file

    def refused(p):
        if p == path:
            raise PermissionError(13, "Permission denied", str(p))
        return read_file(p)

    monkeypatch.setattr(disk, "read_file", refused)
    (again,) = render_files(["en"], ["peak-dip"], ("svg",), cache, jobs=1)
    assert again.drawn and again.data == first.data
    assert _warnings(caplog) == [f"figure cache: {path}, figure 'peak-dip' (en, its one frame, svg), cannot be read "
                                 "(Permission denied): dropped, drawing it again"]


def test_a_file_of_an_earlier_layout_is_never_read(tmp_path):
    cache = FigureCache(tmp_path)
    path = cache.path("d", "en", None, "svg")
    path.parent.mkdir()
    path.write_bytes(b"<svg/>")  # under the key's own name, as files were kept before they were sealed
    assert cache.get(path) is None and path.read_bytes() == b"<svg/>"  # not even read: no warning, left to pruning


def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def _read_only(*args, **kwargs):
    raise PermissionError(errno.EACCES, "Permission denied")


@pytest.mark.parametrize("refuse, reason", [(_no_space, "No space left on device"), (_read_only, "Permission denied")])
def test_a_cache_that_cannot_be_written_is_turned_off_with_one_warning(tmp_path, caplog, monkeypatch, refuse, reason):
    drawn = []
    real_task = render_module._render_task
    monkeypatch.setattr(render_module, "_render_task", lambda task: drawn.append(task) or real_task(task))
    monkeypatch.setattr(disk, "write_atomic", refuse)
    cache = FigureCache(tmp_path)
    # as gen_figures.py does: fill the cache, then read it; fill_cache stops at the first write
    # that fails, rather than drawing every frame for nothing
    render_module.fill_cache(cache, ["en"], ["width-slices"], ("svg",), jobs=1)
    assert len(drawn) == 1
    rendered = list(render_files(["en"], ["width-slices"], ("svg",), cache, jobs=1))
    assert [r.data for r in rendered] == [render(f, "en") for f in frames("width-slices")]
    assert _warnings(caplog) == [f"cache folder {tmp_path} cannot be written ({reason}): nothing more is kept there "
                                 "in this build; what it holds is still read"]
    assert not list(tmp_path.rglob("*"))


def test_a_cache_under_a_file_is_turned_off_with_one_warning(tmp_path, caplog):
    (tmp_path / "file").write_text("not a folder")
    cache = FigureCache(tmp_path / "file" / "cache")
    rendered = list(render_files(["en"], ["peak-dip"], ("svg",), cache, jobs=1))
    assert [r.data for r in rendered] == [render(frames("peak-dip")[0], "en")]
    assert _warnings(caplog) == [f"cache folder {tmp_path / 'file' / 'cache'} cannot be written (Not a directory): "
                                 "nothing more is kept there in this build; what it holds is still read"]


def test_a_read_only_cache_is_still_read(tmp_path, caplog, monkeypatch):
    cache = FigureCache(tmp_path)
    first = list(render_files(["en"], ["width-slices"], ("svg",), cache, jobs=1))
    monkeypatch.setattr(os, "utime", lambda *a, **k: _read_only())  # a read-only file system: no time updated
    monkeypatch.setattr(disk, "write_atomic", _read_only)
    again = list(render_files(["en"], ["width-slices"], ("svg",), cache, jobs=1))
    assert not any(r.drawn for r in again) and [r.data for r in again] == [r.data for r in first]
    assert _warnings(caplog) == [f"cache folder {tmp_path} cannot be written (Permission denied): nothing more is "
                                 "kept there in this build; what it holds is still read"]
    cache.prune(keep=0)  # not even tried
    assert len(list(tmp_path.glob("*/*.svg" + disk.SEALED))) == len(first)


def test_the_processes_a_build_starts_know_the_cache_cannot_be_written(tmp_path, caplog, monkeypatch):
    monkeypatch.setattr(disk, "write_atomic", _no_space)
    FigureCache(tmp_path).put(tmp_path / "ab" / "x.svg", b"<svg/>")
    child = subprocess.run([sys.executable, "-c", "from figures.keep import disk; print(disk.cache_writable("
                            f"{str(tmp_path / 'trained')!r}))"], cwd=ROOT, capture_output=True, text=True)
    assert child.stdout.strip() == "False"  # so a worker neither tries nor warns again
    disk.cache_writable_again()  # the next build (a serve rebuild) tries again
    assert disk.cache_writable(tmp_path)


def _memo(cache: FigureCache, sources) -> Path:
    return cache.folder / "sources" / f"{sources.stamp()}.json"


@pytest.mark.parametrize("content, problem", [
    (b"[]", "is damaged (its bytes do not match the digest kept with them)"),  # written by hand: no digest
    (b'{"figures.gallery.peak_dip": "abc', "is damaged (its bytes do not match the digest kept with them)"),
    ("kept", "holds list, not a table of digests"),  # a digest that matches, of JSON of the wrong type
])
def test_a_damaged_index_of_digests_is_worked_out_again_with_a_warning(tmp_path, caplog, content, problem):
    from figures.engine.sources import Sources

    cache, sources = FigureCache(tmp_path), Sources()
    memo = _memo(cache, sources)
    if content == "kept":
        cache.put(memo, b"[1, 2]")
    else:
        memo.parent.mkdir(parents=True)
        disk.sealed_path(memo).write_bytes(content)
    modules = ["figures.gallery.peak_dip"]
    assert cache.digests(modules, sources) == [sources.digest("figures.gallery.peak_dip")]
    then = "working the digests out again"
    assert _warnings(caplog) == [f"figure cache: {disk.sealed_path(memo)}, the index of figure digests, {problem}: "
                                 f"dropped, {then}"]
    assert json.loads(cache.get(memo)) == {"figures.gallery.peak_dip": sources.digest("figures.gallery.peak_dip")}


def test_a_frame_drawn_in_this_process_is_found_again():
    # the first frame a process draws itself registers the CJK font (kit.style.setup): that must not
    # change the figures' digests, or the next lookup would miss every frame
    script = textwrap.dedent("""
        import tempfile
        from pathlib import Path
        from figures.engine.cache import FigureCache
        from figures.engine.render import render_files
        cache = FigureCache(Path(tempfile.mkdtemp()))
        for _ in range(2):
            print([r.drawn for r in render_files(["en"], ["peak-dip"], ("svg",), cache, jobs=1)])
    """)
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert run.stdout.split() == ["[True]", "[False]"], run.stderr


def test_the_fonts_count_by_their_files_and_order_not_by_where_a_venv_put_them(tmp_path, monkeypatch):
    """A fresh clone installs its own venv: the same fonts under another root, in the same order of paths,
    give the same digest (so the machine's kept frames serve it); another font file, or the same fonts
    in another order of paths (matplotlib's PDF writes its fonts in that order), give another."""
    import dataclasses
    import noto_cjk_sans_otc
    from matplotlib import font_manager
    from figures.engine import sources
    before = sources.environment()
    fonts, noto = font_manager.fontManager.ttflist, str(noto_cjk_sans_otc.FONT_PATH)

    def moved(where):  # every font file (Noto too) linked at where(its path)
        for path in {str(f.fname) for f in fonts} | {noto}:
            link = where(path)
            if not link.exists():
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(path)
        monkeypatch.setattr(font_manager.fontManager, "ttflist", [dataclasses.replace(f, fname=str(where(f.fname)))
                                                                 for f in fonts])
        monkeypatch.setattr(noto_cjk_sans_otc, "FONT_PATH", str(where(noto)))
        return sources.environment()

    assert moved(lambda path: tmp_path / "same" / path.lstrip("/")) == before
    rank = {path: i for i, path in enumerate(sorted({str(f.fname) for f in fonts} | {noto}, reverse=True))}
    assert moved(lambda path: tmp_path / "reversed" / f"{rank[path]:04d}" / Path(path).name) != before
    other = tmp_path / "other" / Path(noto).name
    other.parent.mkdir()
    other.write_bytes(b"\0" * 100)  # another face under the same name
    moved(lambda path: tmp_path / "same" / path.lstrip("/"))
    monkeypatch.setattr(noto_cjk_sans_otc, "FONT_PATH", str(other))
    assert sources.environment() != before


def test_frames_drawn_while_their_code_changed_are_not_kept(tmp_path, caplog, monkeypatch):
    """A file saved while frames are drawn (mkdocs serve): the frames could be either version's, under
    one version's digest. Here the code's bytes read differently once the first frame is drawn, and
    with them the digest of width-slices (what it is drawn from), not that of peak-dip."""
    from figures.engine.sources import Sources
    cache = FigureCache(tmp_path)
    _, paths = render_module._tasks(["en"], ["width-slices"], ("svg",), cache)
    _, others = render_module._tasks(["en"], ["peak-dip"], ("svg",), cache)
    edited = []
    real_stamp, real_digest, real_task = Sources.stamp, Sources.digest, render_module._render_task
    monkeypatch.setattr(Sources, "stamp", lambda self: real_stamp(self) + ("+edit" if edited else ""))
    monkeypatch.setattr(Sources, "digest", lambda self, module: real_digest(self, module)
                        + ("+edit" if edited and module.endswith("width_slices") else ""))
    monkeypatch.setattr(render_module, "_render_task", lambda task: edited.append(task) or real_task(task))
    render_module.fill_cache(cache, ["en"], ["width-slices", "peak-dip"], ("svg",), jobs=1)
    assert len(edited) == len(paths) + len(others) > 2 and not any(disk.sealed_path(p).exists() for p in paths)
    assert all(disk.sealed_path(p).exists() for p in others)  # its code did not change: kept
    assert _warnings(caplog) == [f"figure cache: the code changed while {len(paths)} files were drawn; they are "
                                 "not kept (the next build draws them again)"]
    edited.clear()
    monkeypatch.setattr(Sources, "stamp", real_stamp)  # no edit: every frame kept
    monkeypatch.setattr(Sources, "digest", real_digest)
    render_module.fill_cache(cache, ["en"], ["width-slices"], ("svg",), jobs=1)
    assert all(disk.sealed_path(p).exists() for p in paths)


def test_a_cache_that_holds_every_frame_is_filled_by_drawing_nothing(tmp_path):
    cache = FigureCache(tmp_path)
    assert render_module.fill_cache(cache, ["en"], ["peak-dip"], ("svg",), jobs=1) == 1
    assert render_module.fill_cache(cache, ["en"], ["peak-dip"], ("svg",), jobs=1) == 0


def test_registering_a_figure_leaves_every_other_figures_digest_alone(tmp_path):
    """A new id in the ordered list (figures/gallery/__init__.py) redraws that figure only: the list
    is read by the registry, which every frame's harness imports, yet nothing drawn depends on it."""
    import shutil

    from figures.engine.registry import module_name
    from figures.engine.sources import Sources
    from figures.gallery import ORDER

    for package in ("figures", "mha_ref"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    before = {f: Sources(tmp_path).digest(module_name(f)) for f in ORDER}
    _edit(tmp_path / "figures/gallery/__init__.py", f'    "{ORDER[0]}",\n', f'    "{ORDER[0]}",\n    "a-new-one",\n')
    (tmp_path / "figures/gallery/a_new_one.py").write_text(
        (tmp_path / "figures/gallery" / f"{ORDER[0].replace('-', '_')}.py").read_text(encoding="utf-8"), encoding="utf-8")
    after = Sources(tmp_path)
    assert {f: after.digest(module_name(f)) for f in ORDER} == before
    # the harness still counts: an edit to what turns a figure into bytes redraws every figure
    with open(tmp_path / "figures/engine/save.py", "a", encoding="utf-8") as f:
        f.write("\n_ = None\n")
    edited = Sources(tmp_path)
    assert [f for f in ORDER if edited.digest(module_name(f)) == before[f]] == []


# progress lines (figures/engine/progress.py) ------------------------------------------------------

def test_progress_says_each_count_with_the_time_left_at_its_rate_so_far():
    from figures.engine.progress import Progress
    now, seeds, said = [0.0], [1], []
    progress = Progress(40, said.append, {"seeds trained": lambda: (seeds[0], 5)}, clock=lambda: now[0])
    assert progress.line() == "figures: 0 of 40 frames drawn, time left not yet known; seeds trained: 1 of 5, time left not yet known"
    now[0], seeds[0] = 30.0, 3
    progress.drawn(10)
    # 10 frames in 30 s: 30 left take 90 s; 2 seeds more in the 30 s since the first line: 2 left take 30 s
    assert progress.line() == "figures: 10 of 40 frames drawn, about 1 min 30 s left; seeds trained: 3 of 5, about 30 s left"
    # a seed takes a while: until the next one is done, the time left counts down, never up
    now[0] = 50.0
    assert progress.line().endswith("; seeds trained: 3 of 5, about 10 s left")
    now[0] = 70.0
    assert progress.line().endswith("; seeds trained: 3 of 5, due now at its rate so far")
    now[0], seeds[0] = 90.0, 4  # 3 more in 90 s: the one left takes 30 s
    assert progress.line().endswith("; seeds trained: 4 of 5, about 30 s left")
    now[0], seeds[0] = 100.0, 5
    progress.drawn(30)
    assert progress.line() == "figures: 40 of 40 frames drawn; seeds trained: 5 of 5"
    progress = Progress(40, said.append, {"seeds trained": lambda: (seeds[0], 5)}, clock=lambda: now[0], waiting=4)
    now[0], seeds[0] = 110.0, 2
    progress.drawn(36)  # the others are drawn once the seeds are trained
    assert progress.line().startswith("figures: 36 of 40 frames drawn, 4 wait for what follows; seeds trained: 2 of 5")


def test_filling_the_cache_says_how_many_frames_are_drawn_of_how_many(tmp_path):
    said = []
    cache = FigureCache(tmp_path)
    n = len(frames("peak-dip"))
    assert render_module.fill_cache(cache, ["zh", "en"], ["peak-dip"], ("svg", "pdf"), jobs=1, say=said.append) == 2 * n
    assert said[0] == f"figures: 0 of {2 * n} frames drawn, time left not yet known"
    assert said[-1].startswith(f"figures: {2 * n} of {2 * n} frames drawn in ")  # one frame, its two files: counted once
    assert render_module.fill_cache(cache, ["zh", "en"], ["peak-dip"], ("svg", "pdf"), jobs=1, say=said.append) == 0
    assert len(said) == 2  # nothing to draw, nothing said
