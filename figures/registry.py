"""The ordered list of figures. The site, the CLI and the tests all read it; nothing else does.

An id is stable forever: it names the figure's module, files, anchor (#fig-<id>) and downloads.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# Site order (the order of FIGURES.md). Each id maps to figures/<id with _ for ->.py.
ORDER = (
    # section 1: one head can only blend
    "blend-rows",
    "blend-slider",
    "peak-dip",
    # section 2: slicing the width
    "width-slices",
    "what-a-head-reads",
    "projection-columns",
    # section 3: heads side by side
    "two-heads-full-strength",
    "four-heads",
    "scale-pitfall",
    # section 4: what trained heads do
    "position-vs-rare-rows",
    "position-vs-rare-lines",
    "syntax-walk",
    "head-ablation",
    "pruning-evidence",
    # section 5: concatenate, then mix
    "concat-slots",
    "head-outputs",
    "wo-mixing",
    "four-matrices",
    # section 6: what it costs
    "params-vs-h",
    "flops-vs-context",
    "dk-expressiveness",
    # section 7: the code
    "published-models",
    # reference page (note 003)
    "flow-diagram",
    "heads-vs-bleu",
)


def module_name(fig_id: str) -> str:
    return f"figures.{fig_id.replace('-', '_')}"


def get(fig_id: str) -> ModuleType:
    """The module that draws `fig_id`; an unknown id is refused by name."""
    if fig_id not in ORDER:
        raise KeyError(f"unknown figure id {fig_id!r}; registered ids: {', '.join(ORDER)}")
    return importlib.import_module(module_name(fig_id))


def all_figures() -> list[ModuleType]:
    return [get(fig_id) for fig_id in ORDER]
