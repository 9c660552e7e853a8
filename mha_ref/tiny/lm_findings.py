"""What page 4 reads from the measured seeds beyond lm_heads' counts: each syntactic verdict's margin in
arcs, which way the repeat heads look, the ceiling the sentence ends put on a neighbour head, and the
pruning curves read the same way at two points.

Everything here reads the seeds' measurements (lm_heads.measured, kept on disk by
figures/keep/tiny_lm.py) and measures nothing again: a new reading costs no re-measuring of the seeds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from . import language, lm_heads, lm_train, voita
from .. import roles

NEAR_SE = 2  # a verdict is near its bar when its margin above the bar is under this many standard errors
REPEAT_BACK, REPEAT_ON = (voita.relation_key("repeat", d) for d in voita.DIRECTIONS)  # from the repeat to its first
# mention (dependent to head), and from the first mention on to the repeat


# --------------------------------------------------------------------------------------------
# syntactic verdicts: by how many arcs, and how firm
# --------------------------------------------------------------------------------------------

def passes(s: lm_heads.SeedHeads) -> list[tuple[str, str, roles.ArcScore]]:
    """(head name, relation:direction, its ArcScore) of every dependency on which a head of the seed
    passes the syntactic test: one verdict per head, relation and direction."""
    return [(v.name, k, v.measures.relation_hits[k]) for v in s.heads for k in v.syntactic]


def spare_arcs(a: roles.ArcScore) -> int:
    """How many of its hits the head could lose, the baseline unchanged, and still pass: the largest k
    with 100 (hits - k - offset_hits) >= margin * arcs (voita.syntactic_on, in whole arcs)."""
    return (100 * (a.hits - a.offset_hits) - voita.SYNTACTIC_MARGIN_PCT * a.arcs) // 100


def standard_error_pts(a: roles.ArcScore) -> float:
    """The head's share of hits on these arcs, its binomial standard error in percentage points: about
    how far another sample of as many arcs would move it."""
    p = a.hits / a.arcs
    return 100 * math.sqrt(p * (1 - p) / a.arcs)


def near_bar(a: roles.ArcScore) -> bool:
    """A pass by less than NEAR_SE standard errors: another held-out sample could well tip it."""
    return lm_heads.margin_pts(a) - voita.SYNTACTIC_MARGIN_PCT < NEAR_SE * standard_error_pts(a)


def firm_syntactic(s: lm_heads.SeedHeads) -> bool:
    """The seed has a syntactic verdict that is not near its bar."""
    return any(not near_bar(a) for _, _, a in passes(s))


# --------------------------------------------------------------------------------------------
# repeat heads: which way they look
# --------------------------------------------------------------------------------------------

def repeat_ways(v: lm_heads.HeadVerdict) -> tuple[bool, bool]:
    """(from a repeated name back to its first mention, from the first mention on to the repeat): the
    directions in which the head scores the repeat arcs as a syntactic head would."""
    return tuple(k in v.apart and voita.syntactic_on(v.apart[k]) for k in (REPEAT_BACK, REPEAT_ON))


def repeat_heads(s: lm_heads.SeedHeads, back: bool, on: bool) -> int:
    """How many heads of the seed pass the repeat arcs in exactly these directions."""
    return sum(repeat_ways(v) == (back, on) for v in s.heads)


# --------------------------------------------------------------------------------------------
# neighbour heads: the ceiling the sentence ends set
# --------------------------------------------------------------------------------------------

def queries(s: lm_heads.SeedHeads) -> int:
    """The queries every head is measured over (the held-out sentences' words, <eos> left out)."""
    return s.heads[0].measures.n


def with_neighbour(s: lm_heads.SeedHeads) -> int:
    """The queries that have a word before them, which is as many as have a word after them: every
    held-out sentence has one first word (nothing before) and one last word (only <eos> after, never
    a key)."""
    return queries(s) - len(lm_train.held_out())


def ceiling(s: lm_heads.SeedHeads) -> float:
    """The largest share of its queries a previous-word (or next-word) head can put at that offset."""
    return with_neighbour(s) / queries(s)


def best_share_given(s: lm_heads.SeedHeads, offset: int) -> float:
    """lm_heads.best_share counted only over the queries that have that neighbour: at a first word
    (offset -1) or a last word (+1) no key sits at the offset, so every hit is among the others."""
    return lm_heads.best_at(s, offset).measures.offset_counts.get(offset, 0) / with_neighbour(s)


# --------------------------------------------------------------------------------------------
# pruning: the importance order against the random orders, the same two ways at each point
# --------------------------------------------------------------------------------------------

def below_median(s: lm_heads.SeedHeads, k: int) -> bool:
    loss, band = lm_heads.pruned_at(s, "loss", k)
    return loss < band.median


def below_all(s: lm_heads.SeedHeads, k: int) -> bool:
    loss, band = lm_heads.pruned_at(s, "loss", k)
    return loss <= band.low


def quantities(all_seeds: Callable[[], Sequence[lm_heads.SeedHeads]]) -> dict[str, Callable[[], float | int]]:
    """Facts over every seed, for figures.numbers.quantities: all_seeds() gives every seed's measurements."""

    def seeds_where(test: Callable[[lm_heads.SeedHeads], bool]) -> int:
        return lm_heads.seeds_where(test, all_seeds())

    def over(reduce, per_seed):  # reduce (min, max, sum, a median) of one number per seed
        return lambda: reduce([per_seed(s) for s in all_seeds()])

    def every(per_verdict, reduce):  # reduce over every verdict of every seed
        return lambda: reduce([per_verdict(a) for s in all_seeds() for _, _, a in passes(s)])
    late = lm_heads.LATE
    return {
        # the most seeds any one dependency relation has a syntactic head in (the page names the relations that reach it)
        "lm.seeds.syntactic.most": lambda: max(seeds_where(lambda s, r=r: lm_heads.has_syntactic(s, r))
                                               for r in language.DEPENDENCIES),
        # syntactic verdicts, each a head on one relation in one direction
        "lm.syntactic.verdicts": over(sum, lambda s: len(passes(s))),
        "lm.syntactic.spare_min": every(spare_arcs, min),
        "lm.syntactic.near": over(sum, lambda s: sum(near_bar(a) for _, _, a in passes(s))),
        "lm.syntactic.near_se": lambda: NEAR_SE,
        "lm.syntactic.se_pts_min": every(standard_error_pts, min),
        "lm.syntactic.se_pts_max": every(standard_error_pts, max),
        "lm.seeds.syntactic_firm": lambda: seeds_where(firm_syntactic),
        # repeat heads by direction
        "lm.apart_heads.repeat.back_only": over(sum, lambda s: repeat_heads(s, True, False)),
        "lm.apart_heads.repeat.on_only": over(sum, lambda s: repeat_heads(s, False, True)),
        "lm.apart_heads.repeat.both_ways": over(sum, lambda s: repeat_heads(s, True, True)),
        # neighbour heads
        "lm.neighbour_ceiling": over(min, ceiling),  # the same in every seed: the same held-out sentences
        "lm.prev_given_share_min": over(min, lambda s: best_share_given(s, -1)),
        "lm.prev_given_share_max": over(max, lambda s: best_share_given(s, -1)),
        "lm.next_given_share_min": over(min, lambda s: best_share_given(s, 1)),
        "lm.next_given_share_max": over(max, lambda s: best_share_given(s, 1)),
        "lm.seeds.prev_given_positional": lambda: seeds_where(
            lambda s: best_share_given(s, -1) >= roles.ROLE_BARS["positional"].share),
        "lm.seeds.next_given_positional": lambda: seeds_where(
            lambda s: best_share_given(s, 1) >= roles.ROLE_BARS["positional"].share),
        # pruning read late as it is read at half
        "lm.late.seeds_below_random_median": lambda: seeds_where(lambda s: below_median(s, late)),
        "lm.late.seeds_below_random_min": lambda: seeds_where(lambda s: below_all(s, late)),
        "lm.late.importance_loss_median": over(lambda v: float(np.median(v)), lambda s: lm_heads.pruned_at(s, "loss", late)[0]),
        "lm.late.random_loss_median": over(lambda v: float(np.median(v)), lambda s: lm_heads.pruned_at(s, "loss", late)[1].median),
    }
