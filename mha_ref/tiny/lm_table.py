"""A seed's heads as text, one line each, then its pruning: what `python -m figures.numbers.seeds` prints
(lm_heads.py's measurements)."""

from __future__ import annotations

from collections.abc import Sequence

from .. import roles
from . import importance as imp
from . import voita
from .lm_heads import HeadVerdict, SeedHeads


def _pct(x: float) -> str:
    return f"{100 * x:.0f}"


def _arc(key: str, a: roles.ArcScore) -> str:
    """'nsubj:dep->head' -> 'nsubj>' (dependent to head), 'nsubj<' (head to dependent), with accuracy/baseline %."""
    relation, direction = key.split(":", 1)
    return f"{relation}{'>' if direction == voita.DIRECTIONS[0] else '<'}{_pct(a.accuracy)}/{_pct(a.baseline)}"


def head_row(v: HeadVerdict, importance: float, pruned_at: int) -> str:
    """One head on one line: confidence, top offset and its share, rare share, importance and when it
    was pruned, its roles, the relations it is syntactic on, and the arcs kept apart (dependent to head)."""
    m = v.measures
    mark = "".join(r[0].upper() for r in v.roles) or "-"
    syntactic = " ".join(_arc(k, m.relation_hits[k]) for k in v.syntactic)
    apart = " ".join(_arc(k, a) for k, a in v.apart.items() if k.endswith(voita.DIRECTIONS[0]))
    return (f"  {v.name} conf {m.confidence:.2f} top {m.offset:+d} {_pct(m.offset_share):>2}% rare {_pct(m.rare_share):>2}% "
            f"imp {importance:.2f} #{pruned_at} {mark:<3} {syntactic}{' ' if syntactic else ''}| {apart}")


def seed_table(s: SeedHeads, steps: Sequence[int] = (2, 4, 6)) -> str:
    """A seed's heads, one line each, then its pruning: order, survivors, and at a few steps the
    importance order's loss and accuracy beside the random orders' [min median max]."""
    names = [v.name for v in s.heads]
    pruned_at = {h: k + 1 for k, h in enumerate(s.pruning.order)}
    lines = [f"seed {s.seed}"]
    lines += [head_row(v, float(s.importance.flat[v.index]), pruned_at[v.index]) for v in s.heads]
    lines.append("  order " + " ".join(names[h] for h in s.pruning.order) + "; survivors "
                 + " ".join(f"{names[h]}[{''.join(r[0].upper() for r in s.heads[h].roles) or '-'}]"
                            for h in s.pruning.survivors))
    for name in ("loss", "accuracy"):
        band = imp.spread(s.pruning.random_curves, name)
        cells = [f"{k}: {imp.measure_of(s.pruning.curve[k], name):.3f} [{band.low[k]:.3f} {band.median[k]:.3f} "
                 f"{band.high[k]:.3f}]" for k in steps]
        lines.append(f"  {name} full {imp.measure_of(s.pruning.curve[0], name):.3f}; masked " + ", ".join(cells))
    return "\n".join(lines)
