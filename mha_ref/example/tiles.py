"""The running example computed a tile of keys at a time (flash.py), and what the tiles save.

One query row is followed tile by tile: the position head's row for `it`, in tiles of BLOCK keys.
Its largest score sits in the second tile (`and`), so that tile brings a new maximum and rescales
what the first tile added, and the third tile brings none. After the last tile the row's output is
attention()'s, to rounding; `largest_difference` measures that over every head, query and tile size.

What the tiles save is memory: `layer_table_numbers` against `layer_tile_numbers` at GPT-2 small's
width, for the context lengths page 6 draws and beyond.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import costs, models
from ..attention import attention
from ..flash import FlashTrace, flash_attention, flash_trace
from . import toy

HEAD = "position"
QUERY = "it"
BLOCK = 2  # keys per tile: the six tokens make three tiles

# What the tiles save, at a published size: GPT-2 small, as page 6 counts its weight tables.
GPT2 = models.model("GPT-2 small")
MEMORY_BLOCK = 128  # keys per tile in the memory count


def head_qkv(head: str = HEAD) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The running example's q, k, v of one head, each [n, d_k]."""
    t, i = toy.trace(), toy.head_index(head)
    return t.q[i], t.k[i], t.v[i]


@functools.cache
def trace(block: int = BLOCK) -> FlashTrace:
    """flash_trace of the query row of QUERY in HEAD: m, l, the rescale and the output after each tile."""
    q, k, v = head_qkv()
    row = toy.token_index(QUERY)
    return flash_trace(q[row:row + 1], k, v, block)


def reference_row() -> np.ndarray:
    """[d_k] attention()'s output for the same query row: what the last tile must arrive at."""
    q, k, v = head_qkv()
    out, _ = attention(q, k, v)
    return out[toy.token_index(QUERY)]


def tiles(block: int = BLOCK) -> list[tuple[int, int]]:
    """(first key, one past the last key) of each tile."""
    stops = [int(s) for s in trace(block).stops]
    return list(zip([0, *stops[:-1]], stops))


def rescaling_tiles(block: int = BLOCK) -> list[int]:
    """The tiles (counted from 1) that found a larger maximum and scaled down what came before them."""
    t = trace(block)
    return [i + 1 for i in range(1, len(t.stops)) if t.m[i, 0] > t.m[i - 1, 0]]


def largest_difference() -> float:
    """The largest difference between flash_attention and attention over the whole running example:
    every head, every query, every tile size from one key to all of them."""
    worst = 0.0
    for head in toy.HEADS:
        q, k, v = head_qkv(head)
        out, _ = attention(q, k, v)
        for block in range(1, toy.N + 1):
            worst = max(worst, float(np.abs(flash_attention(q, k, v, block) - out).max()))
    return worst



def layer_table_numbers(n: int) -> int:
    """The numbers of every head's n x n table of scores in one layer of GPT-2 small's heads."""
    return costs.attention_weights(n, GPT2.heads)


def layer_tile_numbers(n: int) -> int:
    """What the tiles hold instead in that layer: for every head a tile of n x MEMORY_BLOCK scores
    and each query's running maximum, denominator and output (costs.flash_numbers)."""
    return GPT2.heads * costs.flash_numbers(n, MEMORY_BLOCK, GPT2.d_head)
