"""Turn registered figures into files: every frame, for a language, in a format.

Used by the site's build step and by the CLI, so both write the same paths and the same bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, MutableMapping
from pathlib import Path
from typing import Any, NamedTuple

import matplotlib

from . import registry
from .style import FORMATS, LANGS, to_bytes


class FigureError(RuntimeError):
    """A figure failed to draw; the message names the figure, language and frame."""


class Frame(NamedTuple):
    fig_id: str
    value: Any  # the control value, or None for a figure without a control
    slug: str | None

    def path(self, fmt: str = "svg") -> str:
        """Where the frame lives below the figures folder: stable, cited by lecturers."""
        if self.slug is None:
            return f"{self.fig_id}.{fmt}"
        return f"{self.fig_id}/{self.slug}.{fmt}"


def frames(fig_id: str) -> list[Frame]:
    control = registry.get(fig_id).CONTROL
    if control is None:
        return [Frame(fig_id, None, None)]
    return [Frame(fig_id, v, control.slug(v)) for v in control.values]


def render(frame: Frame, lang: str, fmt: str = "svg") -> bytes:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; use one of {LANGS}")
    if fmt not in FORMATS:
        raise ValueError(f"unknown figure format {fmt!r}; use one of {FORMATS}")
    where = f"figure {frame.fig_id!r} ({lang}" + (f", frame {frame.slug}" if frame.slug else "") + ")"
    try:
        fig = registry.get(frame.fig_id).draw(lang, frame.value)
    except Exception as e:
        raise FigureError(f"{where} failed to draw: {type(e).__name__}: {e}") from e
    if fig is None or not hasattr(fig, "savefig"):
        raise FigureError(f"{where}: draw() must return a matplotlib Figure, got {fig!r}")
    return to_bytes(fig, fmt)


def plan(ids: Iterable[str] | None = None) -> list[Frame]:
    """Every frame of the chosen figures (all registered ones by default), in site order."""
    chosen = registry.ORDER if ids is None else list(ids)
    for fig_id in chosen:
        registry.get(fig_id)  # refuse an unknown id before drawing anything
    return [f for fig_id in chosen for f in frames(fig_id)]


_HERE = Path(__file__).resolve().parent
_SHARED = [*sorted((_HERE.parent / "mha_ref").glob("*.py")),
           *(_HERE / name for name in ("style.py", "draw.py", "control.py", "render.py", "registry.py"))]


def source_digest(fig_id: str) -> str:
    """A fingerprint of everything a figure is drawn from: mha_ref, the shared figure code,
    the figure's own module and matplotlib's version. Equal digests give equal bytes."""
    h = hashlib.sha256(matplotlib.__version__.encode())
    for path in (*_SHARED, Path(registry.get(fig_id).__file__)):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def render_all(lang: str, ids=None, formats=("svg",),
               cache: MutableMapping[tuple, bytes] | None = None) -> Iterator[tuple[str, bytes]]:
    """Every frame's file. With a cache (kept by a long-running `mkdocs serve`), a figure whose
    sources have not changed since it was last drawn is not drawn again."""
    digests: dict[str, str] = {}
    used = set()
    for frame in plan(ids):
        for fmt in formats:
            if cache is None:
                yield frame.path(fmt), render(frame, lang, fmt)
                continue
            if frame.fig_id not in digests:
                digests[frame.fig_id] = source_digest(frame.fig_id)
            key = (digests[frame.fig_id], lang, frame.slug, fmt)
            if key not in cache:
                cache[key] = render(frame, lang, fmt)
            used.add(key)
            yield frame.path(fmt), cache[key]
    if cache is not None:  # forget this language's frames drawn from sources since edited
        for key in [k for k in cache if k[1] == lang and k not in used]:
            del cache[key]
