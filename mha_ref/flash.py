"""Exact attention a tile of keys at a time (the online softmax behind FlashAttention).

attention() makes the whole n_q x n_k table of scores, then its softmax. Here the keys come in
tiles of `block`; for each query only three running quantities are kept:

- m, the largest score seen so far;
- l, the softmax's denominator so far, sum_j exp(s_j - m);
- acc, the weighted sum of values so far, sum_j exp(s_j - m) v_j.

When a tile brings a larger maximum m', what was summed against the old m is rescaled by
exp(m - m') (a number <= 1), so every term ends up measured against the same maximum. After the
last tile, acc / l is softmax(s) @ v exactly, the same numbers as attention(), whatever the tile
size: only the order of the additions changes. The table of scores is never made; one tile of
n_q x block scores lives at a time. Milakov & Gimelshein (2018, "Online normalizer calculation for
softmax") found the running rescale; Dao et al. built FlashAttention on it (models.REFERENCES
["dao2022"]). The GPU kernels also cut the queries into tiles, which changes nothing in the maths and
is left out here; costs.flash_numbers counts what one tile holds.

flash_trace returns m, l, acc and the output after every tile, for the figures.
"""

from __future__ import annotations

import math
from typing import Iterator, NamedTuple

import numpy as np

from . import checks


class FlashTrace(NamedTuple):
    """The running quantities after each of the T = ceil(n_k / block) tiles (axis 0 is the tile)."""

    stops: np.ndarray  # [T]: tile t covers keys stops[t-1] .. stops[t] - 1 (from 0 for t = 0)
    m: np.ndarray  # [T, ..., n_q]: the running maximum (-inf while every key seen is masked)
    rescale: np.ndarray  # [T, ..., n_q]: exp(m_before - m_after), what tile t multiplied the old l, acc by
    l: np.ndarray  # [T, ..., n_q]: the running denominator, sum over keys seen of exp(s_j - m)
    acc: np.ndarray  # [T, ..., n_q, d_v]: the running sum of exp(s_j - m) v_j
    out: np.ndarray  # [T, ..., n_q, d_v]: acc / l, attention over the keys seen so far (0 where l = 0)


def _exp_below(s: np.ndarray, top: np.ndarray) -> np.ndarray:
    """exp(s - top), with top = -inf (nothing allowed yet) read as 0: exp(-inf - -inf) would be nan."""
    return np.exp(s - np.where(top == -np.inf, 0.0, top))


def _tiles(q, k, v, block, mask) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Checks the inputs, then yields (stop, m, rescale, l, acc) after each tile of keys."""
    q, k, v = checks.qkv(q, k, v)
    block = checks.whole(block, "block, the number of keys in a tile,", least=1)
    *lead, n_q, _ = np.broadcast_shapes(q.shape, k.shape[:-2] + q.shape[-2:])
    n_k = k.shape[-2]
    checks.scores_fit((*lead, n_q, min(block, n_k)), np.result_type(q, k),
                      f"a tile of {min(block, n_k)} keys for {n_q} queries", "batch x n_q x block" if lead else "n_q x block")
    if mask is not None:
        mask = checks.mask(mask, (*lead, n_q, n_k))  # a view: no n_q x n_k copy is made
    scale = 1.0 / math.sqrt(q.shape[-1])
    # --8<-- [start:tiles]
    m = np.full((*lead, n_q), -np.inf)  # the running maximum: nothing seen yet
    l = np.zeros((*lead, n_q))  # the running denominator
    acc = np.zeros((*lead, n_q, v.shape[-1]))  # the running weighted sum of values
    for start in range(0, n_k, block):
        stop = min(start + block, n_k)
        s = (q @ np.swapaxes(k[..., start:stop, :], -1, -2)) * scale  # [..., n_q, tile]: this tile's scores
        checks.finite_scores(s)
        if mask is not None:
            s = np.where(mask[..., start:stop], s, -np.inf)
        m_new = np.maximum(m, s.max(axis=-1))  # [..., n_q]
        rescale = _exp_below(m, m_new)  # exp(m - m_new) <= 1: the old terms, measured against m_new
        p = _exp_below(s, m_new[..., None])  # [..., n_q, tile]: each score <= m_new, so p <= 1
        l = rescale * l + p.sum(axis=-1)
        acc = rescale[..., None] * acc + p @ v[..., start:stop, :]
        m = m_new
        yield stop, m, rescale, l, acc
    # --8<-- [end:tiles]


def _divide(acc: np.ndarray, l: np.ndarray) -> np.ndarray:
    """acc / l; a query with every key masked has l = 0 and reads nothing: 0, as in attention()."""
    return acc / np.where(l == 0, 1.0, l)[..., None]


def flash_attention(q, k, v, block: int, mask=None) -> np.ndarray:
    """q [..., n_q, d_k], k [..., n_k, d_k], v [..., n_k, d_v] -> out [..., n_q, d_v], float64.

    The output of attention(q, k, v, mask) (scale 1 / sqrt(d_k)), computed over tiles of `block`
    keys (a whole number >= 1; the last tile may be shorter). mask: boolean, True = may attend,
    broadcastable to [..., n_q, n_k]; a query with no key allowed gets 0, as in attention().
    """
    acc = l = None
    for _, _, _, l, acc in _tiles(q, k, v, block, mask):
        pass
    return _divide(acc, l)


def flash_trace(q, k, v, block: int, mask=None) -> FlashTrace:
    """flash_attention with the running quantities after every tile (see FlashTrace);
    trace.out[-1] is flash_attention's output."""
    rows = list(_tiles(q, k, v, block, mask))
    stops, m, rescale, l, acc = (np.array([r[i] for r in rows]) for i in range(5))
    return FlashTrace(stops, m, rescale, l, acc, _divide(acc, l))
