"""The running example under a sliding window, with and without sink tokens; and how far a window reaches.

With a window of WINDOW keys (the query's own included), the last token `ran` sees only `and`, `it`
and itself. Two of its heads lose their target: the syntax head's `ate` and the rare-token head's
`cat`, the token that head looks at from everywhere. The softmax still hands out a whole unit of
weight over what is left, and decides where it goes; keeping the first `sinks` tokens as well
(sliding_window_mask(n, window, sinks)) brings them back into every row.
"""

from __future__ import annotations

import functools

import numpy as np

from . import toy
from ..attention import MHATrace, mha_trace
from ..windows import sliding_window_mask

WINDOW = 3  # small enough that `ran` loses both `ate` and `cat`
SINKS = (0, 1, 2, 3)  # the sink-weights slider's frames: how many of the first tokens stay
REACH_N, REACH_WINDOW = 16, 4  # window-reach's small text: 16 tokens, a window of 4 keys


@functools.cache
def trace(sinks: int = 0, window: int = WINDOW) -> MHATrace:
    """The running example's forward pass under a causal sliding window of `window` keys, keeping
    the first `sinks` tokens as well; read-only arrays, like toy.trace()'s."""
    t = mha_trace(toy.inputs(), toy.params(), toy.H, mask=sliding_window_mask(toy.N, window, sinks))
    for a in t:
        a.flags.writeable = False
    return t


@functools.cache
def causal_trace() -> MHATrace:
    """The same block with a causal mask only (a window as long as the sentence)."""
    return trace(0, toy.N)


def row(head: str, query: str = "ran", sinks: int = 0, window: int = WINDOW) -> np.ndarray:
    """[n] the weights of `head` for `query` under the window, keeping `sinks` first tokens."""
    return trace(sinks, window).weights[toy.head_index(head), toy.token_index(query)]


def weight(head: str, query: str, key: str, sinks: int = 0, window: int = WINDOW) -> float:
    return float(row(head, query, sinks, window)[toy.token_index(key)])


def top_key(head: str, query: str = "ran", sinks: int = 0, window: int = WINDOW) -> str:
    return toy.TOKENS[int(row(head, query, sinks, window).argmax())]


def reachable(n: int, window: int, layers: int, sinks: int = 0) -> np.ndarray:
    """[layers, n] boolean: entry [l, j] says whether the input at position j can reach the last
    token's output after l + 1 layers of sliding_window_mask(n, window, sinks). One layer lets
    position i read the keys its mask row allows; l + 1 layers are a path of l + 1 such steps: the
    boolean product of the mask with itself."""
    mask = sliding_window_mask(n, window, sinks).astype(int)
    rows, now = [], mask[-1]
    for _ in range(layers):
        rows.append(now > 0)
        now = now @ mask  # one more layer below: whatever those positions read
    return np.array(rows)


def farthest_back(n: int, window: int, layers: int, sinks: int = 0) -> int:
    """How many positions back from the last token the farthest input it can draw on sits."""
    reach = reachable(n, window, layers, sinks)[-1]
    return int(n - 1 - np.flatnonzero(reach)[0])
