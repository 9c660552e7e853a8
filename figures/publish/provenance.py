"""Where a figure comes from: its module, then every mha_ref function it reaches by name, each as a
file and line in the repository, linked at this version."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from ..engine import registry
from ..engine.sources import BY_NAME, ROOT, Sources
from .identity import IDENTITY


NOT_NUMBERS = (f"{BY_NAME}.checks",)


class Source(NamedTuple):
    label: str  # "figures/gallery/peak_dip.py" or "mha_ref.toy.attention"
    path: str   # relative to the repository root
    line: int
    url: str


@lru_cache(maxsize=1)
def _sources() -> Sources:
    return Sources()


@lru_cache(maxsize=None)  # asked for on its page and in the gallery, in each language; serve re-imports this module
def provenance(fig_id: str) -> tuple[Source, ...]:
    """The figure's module, then every mha_ref function it reaches by name (figures/engine/sources.py), by file and line."""
    sources = _sources()
    module = registry.module_name(fig_id)
    own = sources.module(module).path.relative_to(ROOT).as_posix()
    found = [Source(own, own, 1, IDENTITY.source_url(own, 1))]
    # public functions only: a private helper is part of the public function that calls it;
    # mha_ref.checks only refuses bad input: no number there
    reached = [u for u in sources.figure_units(module) if u[0].split(".")[0] == BY_NAME and u[0] not in NOT_NUMBERS
               and u[1] and not u[1].startswith("_")]
    for name, part in sorted(reached):
        mod = sources.module(name)
        for line in mod.defs[part]:  # each function definition of that name (a class has none)
            path = mod.path.relative_to(ROOT).as_posix()
            found.append(Source(f"{name}.{part}", path, line, IDENTITY.source_url(path, line)))
    return tuple(found)
