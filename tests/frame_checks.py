"""Every frame of every figure drawn once, in a pool, and read as it is drawn: the glyph, symbol and
plural checks of the Figure, where its texts lie (the extents its SVG's save measures), and the files it becomes (SVG and its variants, and the PDF and PNG
downloads when the site has them and the session builds it). The workers put the files into the
session's figure cache, so the site build that follows draws nothing again, and hand back only what
they found: the files are read from the cache when a test asks for them. The pool starts when the
session does (Checking) and draws while the tests that need no frame run; this process receives
little meanwhile (a test measuring its own allocations sees none of it).

What a frame's checks found is kept between sessions (Kept, in .cache/frame-checks/), with its
files, under the name of the frame's files in the figure cache: a digest of everything the frame
is drawn from (figures/engine/sources.py) and of this file. A later session whose frame has the
same name links the files into its own cache and reads the findings instead of drawing the frame
again; an edit to the figure, to what it reaches or to these checks gives new names, and the frame
is drawn and checked afresh. A fresh clone (CI) keeps nothing, and draws every frame."""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import re
import warnings
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import NamedTuple
from unittest import mock

import numpy as np
from matplotlib import font_manager
from matplotlib.axis import Axis
from matplotlib.text import Text
from matplotlib.transforms import Affine2D, Bbox

import figures.engine.render
from figures.engine import registry
from figures.engine.cache import from_env
from figures.engine.render import Frame, cores, plan, render_set
from figures.kit.words import LANGS
from figures.engine.save import to_bytes_each
from figures.publish import bundles
from figures.keep import disk

import machine_cache

KEPT = machine_cache.folder() / "frame-checks"  # shared by every clone on the machine
KEEP = 20000  # files kept after pruning: the whole suite's frames are about 7,600 files, the fast loop's 2,500

# "1 heads", "1 columns": a count of one with a plural noun (the English text only)
ONE_WITH_PLURAL = re.compile(r"(?<![\d.,])\b1 (?!is\b|was\b|has\b)[a-z]+s\b")


class Checked(NamedTuple):
    files: Mapping[str, bytes] | None  # by format; None: the frame failed to draw (error says why)
    error: str
    missing: list[str]  # matplotlib's warnings of glyphs missing from a font
    fallbacks: list[str]  # texts drawn from another face than the one they ask for
    underscores: list[str]  # texts with a raw underscore outside $...$
    plurals: list[str]  # English texts with "1 heads"
    # the smallest text of each drawing (wide, then narrow when the site has it): its size in pt,
    # the figure's width in inches, and the text
    smallest: list[tuple[float, float, str]] = []
    # how many columns of panels each drawing has (wide, then narrow): distinct left edges of the
    # axes that show something
    columns: list[int] = []
    # texts past the figure's edge, and texts over one another, in each drawing ("wide: ...")
    cut: list[str] = []
    overlaps: list[str] = []


def texts(fig) -> list[Text]:
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def drawn_texts(fig) -> list[Text]:
    """The texts the last draw of the figure drew: none of a hidden artist, nor of an axis that
    `axis("off")` hides, nor the labels of ticks outside an axis's view (matplotlib keeps those,
    with their last text and place, undrawn). An axis is not asked for its children, which would
    make every tick it could have (findobj does)."""
    found = []

    def walk(artist):
        if not artist.get_visible():
            return
        if isinstance(artist, Axis):
            if artist.axes.axison:
                shown = [tick for tick in artist._update_ticks() if tick.get_visible()]  # as Axis.draw finds them
                found.extend([artist.label, artist.offsetText, *(t for tick in shown for t in (tick.label1, tick.label2))])
            return
        if isinstance(artist, Text):
            found.append(artist)
        for child in artist.get_children():
            walk(child)

    walk(fig)
    return [t for t in found if t.get_visible() and t.get_text().strip()]


def extents(fig, renderer) -> list[tuple[str, Bbox]]:
    """Each text the last draw drew, and its box as `renderer` measures it, in CSS px (96 an inch,
    the page's unit) from the figure's lower left corner: call it while the figure is being saved
    (a "draw_event"), when the figure's dpi is the renderer's."""
    to_px = Affine2D().scale(96 / fig.dpi)
    return [(t.get_text(), t.get_window_extent(renderer).transformed(to_px)) for t in drawn_texts(fig)]


def cut(fig, boxes: list[tuple[str, Bbox]]) -> list[str]:
    """Each text that reaches past the figure's edge, with how far past (CSS px) and on which side:
    the export keeps only the figure's box (savefig without bbox_inches), so that part is lost."""
    width, height = fig.get_size_inches() * 96
    found = []
    for text, b in boxes:
        past = {"left": -b.x0, "right": b.x1 - width, "bottom": -b.y0, "top": b.y1 - height}
        found += [f"{text!r} {by:.1f} px past the {side}" for side, by in past.items() if by >= 0.05]
    return found


def overlapping(boxes: list[tuple[str, Bbox]]) -> list[str]:
    """Each pair of texts whose boxes overlap by more than a pixel both ways."""
    if len(boxes) < 2:
        return []
    x0, y0, x1, y1 = np.array([b.extents for _, b in boxes]).T[:, :, None]  # each [n, 1]
    across = np.minimum(x1, x1.T) - np.maximum(x0, x0.T)  # [n, n]: how far each pair overlaps
    up = np.minimum(y1, y1.T) - np.maximum(y0, y0.T)
    return [f"{boxes[i][0]!r} over {boxes[j][0]!r}" for i, j in zip(*np.nonzero(np.triu((across > 1) & (up > 1), 1)))]


def _weight(w) -> int:
    return font_manager.weight_dict[w] if isinstance(w, str) else int(w)


@functools.lru_cache(1)
def _faces() -> dict[tuple[str, int], list]:
    """matplotlib's known faces by (real file path, face index in the file)."""
    found: dict[tuple[str, int], list] = {}
    for f in font_manager.fontManager.ttflist:
        found.setdefault((os.path.realpath(f.fname), f.index), []).append(f)
    return found


@functools.lru_cache(256)
def _resolves(family: str, weight, style: str, variant: str, stretch) -> str:
    """"" when matplotlib finds a face of `family` in that weight and style, else what it finds
    (to follow the text's repr in a message)."""
    asked = font_manager.FontProperties(family=family, weight=weight, style=style, variant=variant, stretch=stretch)
    try:
        path = font_manager.fontManager.findfont(asked, fallback_to_default=False)
    except ValueError:
        return f": no face of family {family!r}"
    faces = _faces().get((os.path.realpath(path), path.face_index), [])
    if any(f.name == family and _weight(f.weight) == _weight(weight) and f.style == style for f in faces):
        return ""
    got = ", ".join(sorted({f"{f.name} {f.weight} {f.style}" for f in faces}))
    return f" asks for {family} {weight} {style}, gets {got} ({Path(path).name})"


def fallbacks(text: Text) -> list[str]:
    """Each family the text asks for must resolve to a face of that family in the weight and style
    asked: matplotlib otherwise quietly draws the nearest face (e.g. Regular for bold)."""
    prop = text.get_fontproperties()
    found = (_resolves(family, prop.get_weight(), prop.get_style(), prop.get_variant(), prop.get_stretch())
             for family in prop.get_family())
    return [f"{text.get_text()!r}{msg}" for msg in found if msg]


def outside_math(text: str) -> str:
    return re.sub(r"\$[^$]*\$", "", text)


class CachedFiles(Mapping):
    """A frame's files by format, read from the figure cache (checked, as the build reads them) each
    time one is asked for."""

    def __init__(self, paths: dict[str, Path]):
        self.paths = paths

    def __getitem__(self, fmt: str) -> bytes:
        data = from_env().get(self.paths[fmt])
        if data is None:
            raise KeyError(f"{self.paths[fmt]} ({fmt}) is no longer in the figure cache")
        return data

    def __iter__(self):
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)


class Kept:
    """Findings and files of frames checked in an earlier session, by the names of their files."""

    def __init__(self, folder: Path = KEPT):
        self.folder = folder
        self.stamp = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]  # what the checks are

    def _record(self, paths: dict[str, Path]) -> Path:
        names = "\0".join(f"{fmt}={paths[fmt].name}" for fmt in sorted(paths))
        return self.folder / f"{hashlib.sha256((self.stamp + names).encode()).hexdigest()}.json"

    def take(self, paths: dict[str, Path]) -> Checked | None:
        """The Checked kept for a frame whose files go to `paths`, its files linked there; None if
        none is kept whole (then the frame is drawn)."""
        try:
            found = json.loads(self._record(paths).read_text())
            for path in paths.values():
                if not disk.sealed_path(path).exists():
                    _copy(self.folder / "files" / disk.sealed_path(path).name, path)
        except (OSError, ValueError):
            return None
        return Checked(CachedFiles(paths), "", found["missing"], found["fallbacks"], found["underscores"],
                       found["plurals"], [tuple(s) for s in found["smallest"]], found["columns"],
                       found["cut"], found["overlaps"])

    def keep(self, paths: dict[str, Path], checked: Checked) -> None:
        """Keep a frame's findings and files (already in the figure cache at `paths`) for later
        sessions; a folder that cannot be written keeps nothing, and the frames are drawn next time."""
        try:
            for path in paths.values():
                if not (self.folder / "files" / disk.sealed_path(path).name).exists():
                    _copy(disk.sealed_path(path), path, self.folder / "files" / disk.sealed_path(path).name)
            found = {k: getattr(checked, k) for k in ("missing", "fallbacks", "underscores", "plurals", "smallest",
                                                      "columns", "cut", "overlaps")}
            disk.write_atomic(self._record(paths), json.dumps(found).encode())
        except (OSError, ValueError):
            pass

    def lock(self):
        """Wait until no other process draws frames into this folder, then hold it (an open file:
        closing it lets the next one in); None when the folder cannot be written."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            held = open(self.folder / ".lock", "a")
        except OSError:
            return None
        fcntl.flock(held, fcntl.LOCK_EX)
        return held

    def prune(self, keep: int = KEEP) -> None:
        """Forget all but the `keep` most recently written files (findings and frames)."""
        try:
            files = sorted((p for p in self.folder.rglob("*") if p.is_file() and not p.name.startswith(".")),
                           key=lambda p: p.stat().st_mtime)
            for p in files[:max(len(files) - keep, 0)]:
                p.unlink(missing_ok=True)
        except OSError:
            pass


def _copy(source: Path, path: Path, target: Path | None = None) -> None:
    """The file kept under `path` in the figure cache (disk.keep) copied whole from `source` to
    `target` (by default where the cache keeps it); never linked: a test that damages a file of its
    session's cache on purpose must not damage what later sessions take. One that is not sealed
    for `path`, as every file of the figure cache is, is refused (ValueError)."""
    data = disk.read_file(source)
    disk.unseal(data, path)
    target = disk.sealed_path(path) if target is None else target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".tmp-{os.getpid()}-{target.name}")  # renamed whole: never half there
    tmp.write_bytes(data)
    os.replace(tmp, target)


def check(task: tuple[Frame, str, tuple[str, ...], dict[str, Path] | None]) -> Checked:
    """render_set() one frame in the formats asked, reading the Figure it serialises on its way; with
    paths (by format, in the figure cache) the files go there, and the Checked reads them there, and
    is kept for later sessions (Kept)."""
    frame, lang, fmts, paths = task
    drawn = []
    placed = []  # (cut, overlapping) of each drawing, measured as its first save (the SVG) drew it

    def measure(event):
        if len(placed) < len(drawn):
            boxes = extents(event.canvas.figure, event.renderer)
            placed.append((cut(event.canvas.figure, boxes), overlapping(boxes)))

    def saved(fig, f):
        drawn.append(fig)
        fig.canvas.mpl_connect("draw_event", measure)
        return to_bytes_each(fig, f)

    with warnings.catch_warnings(record=True) as caught, \
            mock.patch.object(figures.engine.render, "to_bytes_each", saved):
        warnings.simplefilter("always")
        try:
            files = dict(zip(fmts, render_set(frame, lang, fmts)))
        except Exception as e:
            return Checked(None, f"{type(e).__name__}: {e}", [], [], [], [])
    if paths is not None:
        cache = from_env()
        for fmt, data in files.items():
            cache.put(paths[fmt], data)
        files = CachedFiles(paths)
    words = [t.get_text() for t in texts(drawn[0])]
    smallest = [min((t.get_fontsize(), fig.get_size_inches()[0], t.get_text()) for t in texts(fig)) for fig in drawn]
    columns = [len({round(a.get_position().x0, 2) for a in fig.axes if a.get_visible() and a.has_data()})
               for fig in drawn]
    checked = Checked(
        files, "",
        missing=[str(w.message) for w in caught if "missing" in str(w.message).lower()],
        fallbacks=[msg for t in texts(drawn[0]) for msg in fallbacks(t)],
        underscores=[w for w in words if "_" in outside_math(w)],
        plurals=[w for w in words if lang == "en" and ONE_WITH_PLURAL.search(outside_math(w))],
        smallest=smallest,
        columns=columns,
        cut=[f"{which}: {c}" for which, (cuts, _) in zip(("wide", "narrow"), placed) for c in cuts],
        overlaps=[f"{which}: {o}" for which, (_, over) in zip(("wide", "narrow"), placed) for o in over],
    )
    if paths is not None:
        Kept().keep(paths, checked)
    return checked


def page_formats() -> tuple[str, ...]:
    """What a page shows of each frame: its SVG and the variants, without the downloads."""
    return tuple(f for f in bundles.site_formats() if f.endswith("svg"))


def needs_training(fig_id: str) -> bool:
    """Whether the figure draws page 4's trained model: it declares a PREPARE (figures.engine.render),
    which trains the five seeds, minutes when the code they reach changed."""
    return getattr(registry.get(fig_id), "PREPARE", None) is not None


def opening(frame: Frame) -> bool:
    """Whether the frame is the one its figure's page opens on (its control's start; a figure without
    a control has only that one): the fast loop checks these, the whole suite every frame."""
    control = registry.get(frame.fig_id).CONTROL
    return control is None or frame.value == control.start


def frame_params(frames: list[Frame]) -> list:
    """The frames as pytest parameters: those of a figure that needs training marked `trained`, and
    every frame but the one its page opens on marked `slow` (the whole suite checks them; the fast
    loop, after an edit that reaches every figure, draws one frame a figure and language)."""
    import pytest
    return [pytest.param(f, marks=[*([pytest.mark.trained] if needs_training(f.fig_id) else []),
                                   *([] if opening(f) else [pytest.mark.slow])]) for f in frames]


def checked_keys(trained: bool = True, every: bool = True, named: frozenset[Frame] = frozenset()) -> list[tuple[Frame, str]]:
    """The (frame, language) pairs a session checks (Checking): every frame of every figure in both
    languages; without `trained`, none of a figure that needs training; without `every`, only the
    frame each page opens on (opening) and the frames `named`."""
    return [(frame, lang) for lang in LANGS for frame in plan()
            if (trained or not needs_training(frame.fig_id)) and (every or opening(frame) or frame in named)]


class Checking:
    """check() every frame in both languages, started at once in a pool of one process per core,
    each file drawn put into the figure cache (MHA_FIGURE_CACHE) by the worker that drew it;
    result() waits for the pool. fmts: the site's (bundles.site_formats) unless told, e.g.
    page_formats() in a session that builds no site. Without `trained` (a session that runs no
    test marked trained: the fast loop), the frames of the figures that need training are left out;
    without `every` (a session whose tests need no other: the fast loop), all but the frame each
    page opens on (opening) and the frames `named` by the session's tests."""

    def __init__(self, fmts: tuple[str, ...] | None = None, trained: bool = True, every: bool = True,
                 named: frozenset[Frame] = frozenset()):
        fmts = fmts or bundles.site_formats()
        self.keys = checked_keys(trained, every, named)
        cache = from_env()
        if cache is None:  # no cache: the files come back as bytes
            paths = {key: None for key in self.keys}
        else:
            modules = sorted({registry.module_name(f.fig_id) for f, _ in self.keys})
            digest = dict(zip(modules, cache.digests(modules)))
            paths = {(f, lang): {fmt: cache.path(digest[registry.module_name(f.fig_id)], lang, f.slug, fmt) for fmt in fmts}
                     for f, lang in self.keys}
        kept = Kept()
        self.lock = kept.lock()  # another process of the suite drawing the same frames: wait, then take them
        self.found = {key: kept.take(paths[key]) for key in self.keys if paths[key] is not None}
        drawn = [key for key in self.keys if self.found.get(key) is None]
        # not forked from this process, which other tests may have drawn in (render._start_method)
        self.pool = ProcessPoolExecutor(cores(), mp_context=figures.engine.render._start_method(fork=False))
        self.results = self.pool.map(check, [(f, lang, fmts, paths[f, lang]) for f, lang in drawn], chunksize=4)
        self.drawn = drawn

    def result(self) -> dict[tuple[Frame, str], Checked]:
        try:
            fresh = dict(zip(self.drawn, self.results))
        finally:
            self.pool.shutdown()
            self.unlock()
        if self.drawn:
            Kept().prune()
        return {key: fresh[key] if key in fresh else self.found[key] for key in self.keys}

    def cancel(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.unlock()

    def unlock(self) -> None:
        if self.lock is not None:
            self.lock.close()
            self.lock = None
