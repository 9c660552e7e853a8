"""Rotary position embeddings (RoPE): position enters attention as a rotation of queries and keys.

Su et al.'s RoFormer (models.REFERENCES["su2021"]) turns each pair of a query's (or key's) numbers
by an angle proportional to the token's position: pair i at position m turns by m * theta_i, with
theta_i = base^(-2i/d) for i = 0 .. d/2 - 1 (base 10000 in the paper). Rotating the query at m and
the key at n, their dot product only sees the difference of the angles, (m - n) * theta_i: the score
depends on the relative offset m - n, never on m or n alone.

Which numbers form a pair is a choice of basis. RoFormer pairs neighbours (2i, 2i + 1), and so does
Meta's own Llama code (it reads each neighbouring pair as one complex number); GPT-NeoX and the
Hugging Face port of Llama pair i with i + d/2 ("rotate half"), which is what `rope` does. Reordering the axis
(0, 2, 4, ..., 1, 3, 5, ...) turns one into the other: the same rotations, the same scores, as long
as queries and keys are reordered alike (and the learned W_Q, W_K absorb any fixed reordering).
tests/test_modern_attention.py checks both pairings and the complex-number form against `rope`.
"""

from __future__ import annotations

import numpy as np

from . import checks


def rope_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """d (even) -> theta [d/2]: theta_i = base^(-2i/d), the angle pair i turns by per position.
    Pair 0 turns by 1 radian a position; later pairs turn ever slower."""
    d = checks.whole(d, "the width d", least=2)
    if d % 2:
        raise ValueError(f"the width d={d} must be even: rotary positions turn it in pairs")
    base = checks.rope_base(base)
    return base ** (-np.arange(d // 2) * 2.0 / d)


def rope_wavelengths(d: int, base: float = 10000.0) -> np.ndarray:
    """d (even) -> [d/2]: how many positions pair i takes to turn once, 2 pi / theta_i =
    2 pi base^(2i/d): from 2 pi (about 6 tokens) for pair 0 to nearly 2 pi base for the last."""
    return 2 * np.pi / rope_frequencies(d, base)


# --8<-- [start:rope]
def rope(x, positions, base: float = 10000.0) -> np.ndarray:
    """[..., n, d] -> [..., n, d]: each token's pairs (j, j + d/2) turned by position * theta_j.

    positions: [n] (or anything that broadcasts to x's shape without its last axis), usually
    0, 1, ..., n - 1. Lengths are kept: a rotation moves a vector, it never stretches it.
    """
    x = checks.rotary_input(x)
    pos = checks.positions(positions, x.shape[:-1])  # [..., n]
    half = x.shape[-1] // 2
    angle = pos[..., None] * rope_frequencies(x.shape[-1], base)  # [..., n, d/2]
    cos, sin = np.cos(angle), np.sin(angle)
    x1, x2 = x[..., :half], x[..., half:]  # the pairs: x1[j] goes with x2[j]
    # each pair (a, b) turns to (a cos - b sin, a sin + b cos), a 2 x 2 rotation
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
# --8<-- [end:rope]
