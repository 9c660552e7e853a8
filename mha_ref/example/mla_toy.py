"""Multi-head latent attention (latent.py) on the running example's six tokens.

The tokens' inputs are toy.inputs() (d_model = 8) and there are toy.H heads of toy.D_K numbers, as
in the running example; the MLA matrices are random (init_mla_params, seeded), since the example's
hand-built heads have no latent. Each token caches a latent of D_C numbers and a rotary key of
D_ROPE; plain multi-head attention would cache a key and a value per head, 2 h d_k numbers.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import costs
from ..latent import MLAParams, init_mla_params, mla_attention
from . import toy

D_C = 4  # the latent's width
D_ROPE = 2  # the rotary key's width (rope turns pairs)
SEED = 0
SEEDS = tuple(range(8))  # the seeds the tests try the page's claims on


@functools.cache
def params(seed: int = SEED) -> MLAParams:
    return init_mla_params(toy.D_MODEL, toy.H, D_C, toy.D_K, D_ROPE, seed=seed)


def outputs(seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """[n, d_model] twice: the output with every head's keys and values made from the latent
    (materialised), and with W_UK, W_UV absorbed into the query and output sides."""
    made, _ = mla_attention(toy.inputs(), params(seed), toy.H)
    absorbed, _ = mla_attention(toy.inputs(), params(seed), toy.H, absorbed=True)
    return made, absorbed


def largest_difference(seed: int = SEED) -> float:
    """The largest difference between the materialised and the absorbed outputs."""
    made, absorbed = outputs(seed)
    return float(np.abs(made - absorbed).max())


def cached_per_token() -> int:
    """Numbers one token adds to one layer's cache: its latent and its rotary key."""
    return D_C + D_ROPE


def cached_per_token_mha() -> int:
    """Numbers one token would add to one layer's cache in plain multi-head attention: a key and a value per head."""
    return costs.kv_cache_per_token(toy.D_MODEL, toy.H)
