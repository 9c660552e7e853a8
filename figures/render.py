"""Turn registered figures into files: every frame, for a language, in a format.

Used by the site's build step and by the CLI, so both write the same paths and the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

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


def render_all(lang: str, ids=None, formats=("svg",)) -> Iterator[tuple[str, bytes]]:
    for frame in plan(ids):
        for fmt in formats:
            yield frame.path(fmt), render(frame, lang, fmt)
