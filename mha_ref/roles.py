"""Voita et al.'s measures of a head, and which of their roles each of the toy heads meets.

Voita et al. (2019) describe a head by its confidence (its largest weight at a token, averaged over
the tokens; the end-of-sentence symbol is left out, and our sentence has none) and by where that
largest weight lands: at one fixed relative offset (positional heads), on the token in one
dependency relation (syntactic heads), on the sentence's least frequent token (the rare-words
head). The measures below take any head's weights [n, n] (queries down, keys across);
toy_head_roles() applies them to the running example. Everything is counted per query, so a share
is a whole number of queries out of n. tiny/voita.py measures any model's heads over many sentences
into the same HeadMeasures, strictly the paper's way (end symbol, both directions, fixed-offset
baselines, the rare-word condition).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from . import models
from .example import toy

ROLES = ("positional", "syntactic", "rare")


class RoleBar(NamedTuple):
    """The share of queries a head must reach to count as having a role."""

    share: float
    kind: str  # "definition": the paper's own test; "reported": what its head reached; "ours"
    source: str  # a key of models.REFERENCES, or "ours" where the paper prints no number


ROLE_BARS = {
    # The paper's definition: the top key at one offset at least 90% of the time.
    "positional": RoleBar(models.VOITA_ROLES["positional_pct"] / 100, "definition", models.VOITA_ROLES["source"]),
    # The paper defines this role qualitatively; the number it prints for a syntactic head's
    # accuracy is known here only from third-party notes (published, with sources in mha_ref/models.py), so the bar is ours.
    "syntactic": RoleBar(0.5, "ours", "ours"),
    # The paper reports one rare-words head and how often it hit the rarest token (OpenSubtitles):
    # a head meets the role here when it hits it at least that often.
    "rare": RoleBar(models.VOITA_ROLES["rarest_pct"] / 100, "reported", models.VOITA_ROLES["source"]),
}


class ArcScore(NamedTuple):
    """One relation in one direction, over its arcs: how often the head's top key at the query end is
    the other end (the paper's "accuracy"), and how often the best fixed offset holds the other end
    (the paper's positional baseline). tiny/voita.py counts them."""

    hits: int  # arcs whose query end puts its top key on the other end
    arcs: int
    offset: int  # the relative offset that holds the other end most often (most_common_offset's tie rule)
    offset_hits: int  # arcs whose other end sits at that offset: what a head fixed on it would score

    @property
    def accuracy(self) -> float:
        return self.hits / self.arcs

    @property
    def baseline(self) -> float:
        return self.offset_hits / self.arcs


class HeadMeasures(NamedTuple):
    """One head measured the paper's way, over n queries (one sentence, or many). Hits count queries,
    except rare_hits when rare_of is given (then sentences, tiny/voita.py).

    The running example's heads (toy_head_roles) and any model's maps measured by tiny/voita.py (page
    4's trained model's among them) are all measured into this one type. relation_hits holds
    (hits, total) pairs, or ArcScores (which start with the same two numbers) where a baseline was
    counted too."""

    n: int
    confidence: float  # mean over queries of the largest weight
    offset: int  # the most frequent offset (top key's position minus the query's)
    offset_hits: int  # queries whose top key sits at that offset
    offset_tied: bool  # another offset has as many queries: no offset stands out
    rare_hits: int  # queries whose top key is the sentence's rarest token
    # relation -> (queries whose top key is the word the relation links them to, queries that have one),
    # or, from tiny/voita.py, "relation:direction" -> ArcScore over the arcs (their hits and count first)
    relation_hits: Mapping[str, tuple[int, int] | ArcScore]
    roles: tuple[str, ...]  # the roles whose bar the head reaches; () when it reaches none
    head: int | None = None  # its place among its layer's heads, where heads are numbered
    layer: int | None = None  # its layer, where the model has several
    rare_of: int | None = None  # what rare_hits counts out of when not the n queries (sentences, tiny/voita.py)
    # direction -> ArcScore of the coreference arcs (pronoun -> antecedent): reported apart, never a syntactic verdict
    coreference: Mapping[str, ArcScore] = MappingProxyType({})
    offset_counts: Mapping[int, int] = MappingProxyType({})  # every relative offset -> queries whose top key sits there

    @property
    def offset_share(self) -> float:
        return self.offset_hits / self.n

    @property
    def offset_shares(self) -> dict[int, float]:
        """Each offset's share of the queries (where offset_counts were kept)."""
        return {o: k / self.n for o, k in sorted(self.offset_counts.items())}

    @property
    def rare_share(self) -> float:
        """rare_hits over what they count (nan when no sentence met the condition: no verdict)."""
        total = self.n if self.rare_of is None else self.rare_of
        return self.rare_hits / total if total else float("nan")


def _square(weights) -> np.ndarray:
    w = np.asarray(weights, dtype=float)
    if w.ndim != 2 or w.shape[0] != w.shape[1] or w.shape[0] < 1:
        raise ValueError(f"a head's weights must be a square [n, n] array, got shape {w.shape}")
    return w


def top_keys(weights) -> np.ndarray:
    """[n, n] -> [n] the key each query weights most (the first one on a tie)."""
    return _square(weights).argmax(axis=-1)


def confidence(weights) -> float:
    """[n, n] -> the head's largest weight at each query, averaged over the queries."""
    return float(_square(weights).max(axis=-1).mean())


def top_offsets(weights) -> np.ndarray:
    """[n, n] -> [n] where each query's top key sits relative to the query (-1: the token before)."""
    top = top_keys(weights)
    return top - np.arange(len(top))


def modal_offset(weights) -> tuple[int, int, bool]:
    """[n, n] -> (offset, queries at it, tied): the relative offset the top key takes most often.

    On a tie (tied=True) the offset nearest the query is named, then the one before it; the count
    is the same whichever tied offset is named, and the count is what the positional bar reads.
    """
    return counted_offset(Counter(int(o) for o in top_offsets(weights)))


def counted_offset(counts: Mapping[int, int]) -> tuple[int, int, bool]:
    """(offset, queries at it, tied) from each offset's count of queries (most_common_offset's rule)."""
    offset = most_common_offset(counts)
    return offset, counts[offset], sum(c == counts[offset] for c in counts.values()) > 1


def most_common_offset(counts: Mapping[int, int]) -> int:
    """The offset counted most often; on a tie the one nearest the query, then the one before it."""
    return min(counts, key=lambda o: (-counts[o], abs(o), o))


def hits(weights, tokens: Sequence[str], wanted: Sequence[str]) -> int:
    """[n, n] -> how many queries put their top key on the token they are meant to (wanted[i] for
    query i). Tokens are compared by word, so a repeated word counts wherever it stands."""
    top = top_keys(weights)
    if not len(tokens) == len(wanted) == len(top):
        raise ValueError(f"{len(top)} queries, {len(tokens)} tokens and {len(wanted)} targets must agree")
    return sum(tokens[k] == w for k, w in zip(top, wanted))


def rarest_token(tokens: Sequence[str], frequencies: Mapping[str, int]) -> str:
    """The sentence's least frequent word (the first of them on a tie)."""
    return min(tokens, key=lambda t: frequencies[t])


def roles_met(offset_share: float, syntax_share: float, rare_share: float) -> tuple[str, ...]:
    """The roles whose bar (ROLE_BARS) these shares reach, in the order of ROLES."""
    shares = {"positional": offset_share, "syntactic": syntax_share, "rare": rare_share}
    return tuple(r for r in ROLES if shares[r] >= ROLE_BARS[r].share)


def measure(weights, tokens: Sequence[str], frequencies: Mapping[str, int],
            syntax_target: Mapping[str, str]) -> HeadMeasures:
    """[n, n] -> every measure of one head on a sentence of n tokens."""
    w = _square(weights)
    n = len(w)
    offset, offset_hits, offset_tied = modal_offset(w)
    rare_hits = hits(w, tokens, [rarest_token(tokens, frequencies)] * n)
    syntax_hits = hits(w, tokens, [syntax_target[t] for t in tokens])
    roles = roles_met(offset_hits / n, syntax_hits / n, rare_hits / n)
    return HeadMeasures(n, confidence(w), offset, offset_hits, offset_tied, rare_hits, {"syntax": (syntax_hits, n)}, roles)


def toy_head_roles() -> dict[str, HeadMeasures]:
    """Every head of the running example, measured: {head name: its measures}, in toy.HEADS order."""
    weights = toy.trace().weights  # [h, n, n]
    return {name: measure(weights[i], toy.TOKENS, toy.FREQUENCIES, toy.SYNTAX_TARGET)
            for i, name in enumerate(toy.HEADS)}


def offset_ceiling(n: int, offset: int) -> float:
    """The largest share of n queries whose top key can sit at `offset`: |offset| of the queries
    have no token there (the first token has none before it)."""
    return max(n - abs(offset), 0) / n


def shortest_sentence(offset: int, pct: int) -> int:
    """The fewest tokens in which a head at `offset` can reach pct% at that offset:
    the smallest n with (n - |offset|) / n >= pct / 100, counted in whole numbers."""
    if not 0 <= pct < 100:
        raise ValueError(f"the bar must be a percentage in [0, 100), got {pct}")
    return max(-(-100 * abs(offset) // (100 - pct)), abs(offset) + 1)
