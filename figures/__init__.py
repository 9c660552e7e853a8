"""figures: one module per figure, drawn with matplotlib from numbers mha_ref computes."""

from .registry import ORDER, get
from .render import FigureError, Frame, frames, plan, render, render_all

__all__ = ["ORDER", "FigureError", "Frame", "frames", "get", "plan", "render", "render_all"]
