"""Sliding-window attention with attention sinks: which keys a query may read, as a boolean mask.

A causal model lets query i read keys 0 .. i. A sliding window (Longformer; Mistral 7B, see
models.MISTRAL_7B_WINDOW) keeps only the last `window` of them, the query's own position included,
so a cache of `window` keys per layer suffices however long the text gets. StreamingLLM
(models.STREAMING_SINKS) found that a window alone breaks once the first tokens leave it, and that
keeping a few of them for good ("sinks") repairs it: `sinks` adds keys 0 .. sinks - 1 back.

Information still travels further than one window: layer 2 reads positions that layer 1 already
mixed from their own windows, so after L layers a token can draw on L * (window - 1) positions back
(`window_reach`). The mask goes to attention() or multi_head_attention() as `mask`.
"""

from __future__ import annotations

import numpy as np

from . import checks


# --8<-- [start:mask]
def sliding_window_mask(n: int, window: int, sinks: int = 0) -> np.ndarray:
    """-> [n, n] boolean, True = query i may attend to key j:
    j <= i (causal) and (i - j < window (the last `window` keys, i itself included) or j < sinks)."""
    n = checks.whole(n, "n, the number of tokens,", least=1)
    window = checks.whole(window, "window", least=1)
    sinks = checks.whole(sinks, "sinks", least=0)
    i = np.arange(n)[:, None]  # query positions, down the rows
    j = np.arange(n)[None, :]  # key positions, along the columns
    return (j <= i) & ((i - j < window) | (j < sinks))
# --8<-- [end:mask]


def window_reach(window: int, layers: int) -> int:
    """How many positions back information can come from after `layers` layers of
    sliding_window_mask(..., window): each layer reaches window - 1 further.

    Mistral's paper counts a window of W as reaching W back (positions i - W .. i), hence its
    "W x layers" (4096 x 32 = 131,072, "approximately 131K"); this mask's window of W keys includes
    the query itself, so it reaches W - 1 back a layer. tests/test_modern_attention.py checks the
    formula by multiplying masks (a path through the layers).
    """
    window = checks.whole(window, "window", least=1)
    layers = checks.whole(layers, "layers", least=1)
    return layers * (window - 1)
