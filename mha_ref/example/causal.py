"""The running example under a causal mask: each token may attend to itself and the tokens before it.

That is the mask of a model that writes text left to right (GPT-2's, say): a token's output may not
depend on words not yet written. The heads of toy.py were built without it; under it, a head whose
target comes later has to put its weight somewhere else, and the softmax decides where.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import checks
from . import toy
from ..attention import MHATrace, mha_trace


def causal_mask(n: int) -> np.ndarray:
    """[n, n] boolean: True on and below the diagonal, where query i may attend to key j <= i."""
    n = checks.count(n, "the number of tokens n")
    return np.tril(np.ones((n, n), dtype=bool))


def allowed_weights(n: int) -> int:
    """How many entries of one head's n x n weight table a causal mask leaves free."""
    return int(causal_mask(n).sum())


@functools.cache
def trace() -> MHATrace:
    """The running example's forward pass with the causal mask (see attention.MHATrace), computed
    once; its arrays are read-only, like toy.trace()'s."""
    t = mha_trace(toy.inputs(), toy.params(), toy.H, mask=causal_mask(toy.N))
    for a in t:
        a.flags.writeable = False
    return t


def weight(head: str, query: str, key: str, *, masked: bool = True) -> float:
    """One weight of the running example, with the causal mask or without."""
    w = (trace() if masked else toy.trace()).weights[toy.head_index(head)]
    return float(w[toy.token_index(query), toy.token_index(key)])


def top_keys(head: str) -> tuple[str, ...]:
    """For each query, in sentence order, the key `head` weights most under the mask."""
    w = trace().weights[toy.head_index(head)]
    return tuple(toy.TOKENS[j] for j in w.argmax(axis=-1))


def hidden_targets() -> tuple[str, ...]:
    """The queries whose syntactic target (toy.SYNTAX_TARGET) comes after them: the mask hides it."""
    return tuple(t for t in toy.TOKENS if toy.token_index(toy.SYNTAX_TARGET[t]) > toy.token_index(t))


def largest_change(head: str) -> float:
    """The largest change the mask makes to any weight of `head`."""
    i = toy.head_index(head)
    return float(np.abs(trace().weights[i] - toy.trace().weights[i]).max())
