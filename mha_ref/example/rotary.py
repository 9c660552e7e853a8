"""Page 1's position head again, with its position given by rotation (rope) instead of input features.

On page 1 the position arrives in the input rows: x[:, 0:2] is (cos, sin) of an angle that grows by
toy.STEP a token, and the head's W_Q turns that pair back by one step, so each query meets the key
of the token before it. Here the input rows carry no position at all. Before rotation every token
has the same key, GAIN * (1, 0), and the same query: that key turned back by one position. rope then
turns the query of position m by m * theta and the key of position n by n * theta, so their dot
product is GAIN^2 cos((m - 1 - n) theta): largest when n = m - 1, whatever m is.

A head of width d_k = 2 is one pair, and rope's first pair turns by theta_0 = base^0 = 1 radian a
token, whatever the base (toy.STEP is 36 degrees). One radian a token comes round in 2 pi, about
6.3 tokens: for the first token, `ran`, five positions later, sits 5 - 2 pi = -1.28 tokens round the
circle, close to one behind, and takes the place of the token before it, which the first token
does not have.

`shift` moves the whole sentence along (positions shift, shift + 1, ...): the weights do not move.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from . import toy
from ..attention import softmax
from ..rope import rope, rope_frequencies

BASE = 10000.0  # RoFormer's base; a head of width 2 turns by base^0 = 1 radian a token whatever it is
D_K = 2
SHIFTS = (0, 1, 2, 10, 100, 1000, 10000)  # where the sentence starts: the rope-offset slider's frames


class RotaryHead(NamedTuple):
    q: np.ndarray  # [n, d_k] each token's query after rotation
    k: np.ndarray  # [n, d_k] each token's key after rotation
    scores: np.ndarray  # [n, n] q . k / sqrt(d_k)
    weights: np.ndarray  # [n, n] softmax of each row


def positions(shift: int = 0) -> np.ndarray:
    """[n] the sentence's positions when it starts at `shift`."""
    return shift + np.arange(toy.N)


@functools.cache
def position_head(shift: int = 0) -> RotaryHead:
    """The rotary position head over the running example's six tokens, starting at position `shift`."""
    key = np.tile([toy.GAIN_POSITION, 0.0], (toy.N, 1))  # [n, 2] the same for every token
    pos = positions(shift)
    q = rope(key, pos - 1, BASE)  # the key, turned to one position earlier
    k = rope(key, pos, BASE)
    scores = q @ k.T / np.sqrt(D_K)
    head = RotaryHead(q, k, scores, softmax(scores))
    for a in head:
        a.setflags(write=False)
    return head


def step_degrees() -> float:
    """How far the head's one pair turns per token, in degrees (page 1's head: toy.STEP)."""
    return float(np.degrees(rope_frequencies(D_K, BASE)[0]))


def angle_degrees(v: np.ndarray) -> float:
    """The direction of a 2-number vector, in degrees within [0, 360)."""
    return float(np.degrees(np.arctan2(v[1], v[0])) % 360.0)


def targets(shift: int = 0) -> tuple[str, ...]:
    """For each query in sentence order, the token the rotary head weights most."""
    return tuple(toy.TOKENS[j] for j in position_head(shift).weights.argmax(axis=-1))


def page_one_targets() -> tuple[str, ...]:
    """The same for page 1's position head, whose position comes from the input rows."""
    return tuple(toy.TOKENS[j] for j in toy.targets("position"))


def largest_change_over_shifts() -> float:
    """The largest change of any weight between the sentence at position 0 and at any shift of SHIFTS."""
    w0 = position_head(0).weights
    return float(max(np.abs(position_head(s).weights - w0).max() for s in SHIFTS))
