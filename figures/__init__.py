"""figures: one module per figure, drawn with matplotlib from numbers mha_ref computes.

figures.registry lists them in order; figures.render turns them into files; `python -m figures`
is the command line for maintainers and lecturers.
"""

from .registry import ORDER, get

__all__ = ["ORDER", "get"]
