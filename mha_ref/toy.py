"""The running example: six tokens, d_model = 8, four heads of width d_k = 2.

Nothing here is trained. The input rows are features an earlier layer could have computed, and
the four heads' blocks of W_Q and W_K are built to read them, so that every weight the site shows
comes from a real softmax over real projections:

    x[:, 0:2]  where the token is: (cos, sin) of an angle that grows by STEP per position
    x[:, 2:4]  what other tokens may attach to it: a direction for cat, ate and ran, else zero
    x[:, 4:6]  what the token attaches to: the direction of its syntactic target
    x[:, 6]    how rare the token is: -log of its share of FREQUENCIES, centred
    x[:, 7]    a plain content feature (seeded), read only by the values and the diffuse head

    head 0, position: q = rotate(x[:, 0:2], -STEP), k = x[:, 0:2], so q meets the previous key
    head 1, syntax:   q = x[:, 4:6], k = x[:, 2:4]
    head 2, rare:     q is a bias (the same question from every token), k = rarity
    head 3, diffuse:  small random blocks: it commits to nothing

A small seeded dense part is added to every block, so that each head reads all eight inputs.

Why the section-1 blend does not land on a third token: a single head that must serve both the
position rule and the syntax rule gets the two query signals in *separate* coordinates, and its
score is then (1 - a) * position score + a * syntax score. Had the syntax query been coded as a
position too (``it`` -> position 5, in the same rotating code), blending two queries that point at
positions 3 and 5 would give a query pointing at position 4, the token between them: a third
answer, which is not what one head does. Keeping the signals apart is also what a trained head
would have to do, since a syntactic target is not a fixed offset.
"""

from __future__ import annotations

import numpy as np

from .attention import MHAParams, attention, merge_heads, mha_trace

TOKENS = ("the", "cat", "ate", "and", "it", "ran")
N = len(TOKENS)
D_MODEL = 8
H = 4
D_K = D_MODEL // H
HEADS = ("position", "syntax", "rare", "diffuse")

# A small, made-up frequency table (counts in an imagined corpus of 10,000 tokens): the only
# thing the rare-token head knows. cat is the rarest token of the sentence.
FREQUENCIES = {"the": 620, "cat": 3, "ate": 21, "and": 310, "it": 140, "ran": 27}

# What each token attaches to (a small dependency reading of the sentence).
SYNTAX_TARGET = {"the": "cat", "cat": "ate", "ate": "cat", "and": "ran", "it": "ran", "ran": "ate"}
PREVIOUS = tuple(max(i - 1, 0) for i in range(N))  # position 0 has no previous token: itself

STEP = np.deg2rad(36.0)  # angle between neighbouring positions: 0..180 degrees for six tokens
ROLE_ANGLE = {"cat": 90.0, "ate": 210.0, "ran": 330.0}  # three well separated directions
GAIN_POSITION = 4.6  # sharp enough that the position head is confident (peak near 0.9)
# The syntax gain balances the two rules for the query `it`: the position head scores `and` above
# `ran` by GAIN_POSITION**2 * (1 - cos(2 STEP)), and the syntax head scores `ran` above `and` by
# GAIN_SYNTAX**2; equal margins put the blend's turning point at the midpoint.
GAIN_SYNTAX = GAIN_POSITION * np.sqrt(1.0 - np.cos(2 * STEP))
GAIN_RARE = 1.6
NOISE = 0.04  # the small dense part of every block
SEED = 7


def _unit(deg: float) -> np.ndarray:
    return np.array([np.cos(np.deg2rad(deg)), np.sin(np.deg2rad(deg))])


def _rotation(angle: float) -> np.ndarray:
    # Row-vector convention: x @ R rotates x by `angle`.
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, s], [-s, c]])


def rarity() -> np.ndarray:
    """[n] -log of each token's share of the frequency table, centred on the sentence's mean."""
    total = sum(FREQUENCIES.values())
    r = -np.log(np.array([FREQUENCIES[t] / total for t in TOKENS]))
    return r - r.mean()


def inputs() -> np.ndarray:
    """[n, d_model] the six input rows."""
    x = np.zeros((N, D_MODEL))
    angles = STEP * np.arange(N)
    x[:, 0], x[:, 1] = np.cos(angles), np.sin(angles)
    for i, t in enumerate(TOKENS):
        if t in ROLE_ANGLE:
            x[i, 2:4] = _unit(ROLE_ANGLE[t])
        x[i, 4:6] = _unit(ROLE_ANGLE[SYNTAX_TARGET[t]])
    x[:, 6] = rarity()
    x[:, 7] = np.random.default_rng(SEED).normal(0.0, 1.0, N)
    return x


def params(w_o_mix: float = 1.0) -> MHAParams:
    """The block's parameters. ``w_o_mix`` scales the part of W_O that mixes heads (0: block-diagonal)."""
    rng = np.random.default_rng(SEED + 1)
    w_q = rng.normal(0.0, NOISE, (D_MODEL, D_MODEL))
    w_k = rng.normal(0.0, NOISE, (D_MODEL, D_MODEL))
    b_q = np.zeros(D_MODEL)
    # head 0 (columns 0:2): the position code, the query turned back by one step
    w_q[0:2, 0:2] += GAIN_POSITION * _rotation(-STEP)
    w_k[0:2, 0:2] += GAIN_POSITION * np.eye(2)
    # head 1 (columns 2:4): "what I attach to" meets "what attaches to me"
    w_q[4:6, 2:4] += GAIN_SYNTAX * np.eye(2)
    w_k[2:4, 2:4] += GAIN_SYNTAX * np.eye(2)
    # head 2 (columns 4:6): a constant query, a key that is the rarity
    b_q[4] = GAIN_RARE
    w_k[6, 4] += GAIN_RARE
    # head 3 (columns 6:8): only the small random part, so its scores stay close to each other
    w_v = rng.normal(0.0, 1.0 / np.sqrt(D_MODEL), (D_MODEL, D_MODEL))
    mixing = rng.normal(0.0, 0.5, (D_MODEL, D_MODEL))
    for i in range(H):  # the mixing part has no block on the diagonal
        mixing[i * D_K:(i + 1) * D_K, i * D_K:(i + 1) * D_K] = 0.0
    w_o = np.eye(D_MODEL) + w_o_mix * mixing
    return MHAParams(w_q, w_k, w_v, w_o, b_q=b_q)


def trace(w_o_mix: float = 1.0):
    """The running example's full forward pass (see attention.MHATrace)."""
    return mha_trace(inputs(), params(w_o_mix), H)


def head_index(name: str) -> int:
    try:
        return HEADS.index(name)
    except ValueError:
        raise ValueError(f"unknown head {name!r}; the heads are {HEADS}") from None


def token_index(token: str) -> int:
    try:
        return TOKENS.index(token)
    except ValueError:
        raise ValueError(f"unknown token {token!r}; the sentence is {' '.join(TOKENS)}") from None


def blend_weights(alpha: float) -> np.ndarray:
    """[n, n] weights of ONE head asked to follow both the position and the syntax rule.

    The head has the full width d_model = 8. Its W_Q holds the position head's query block scaled
    by (1 - alpha) and the syntax head's scaled by alpha, in separate columns; its W_K holds both
    key blocks. The key blocks get the gain (d_model / d_k) ** 0.25 on both sides, so that with the
    head's own divisor sqrt(d_model) the pure ends (alpha = 0 or 1) are exactly the two heads.
    """
    alpha = float(alpha)
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"the blend ratio must lie in [0, 1], got {alpha}")
    t = trace()
    g = (D_MODEL / D_K) ** 0.25
    pos, syn = head_index("position"), head_index("syntax")
    q = np.zeros((N, D_MODEL))
    k = np.zeros((N, D_MODEL))
    q[:, 0:2], k[:, 0:2] = g * (1 - alpha) * t.q[pos], g * t.k[pos]
    q[:, 2:4], k[:, 2:4] = g * alpha * t.q[syn], g * t.k[syn]
    _, w = attention(q, k, np.eye(N))
    return w


BLEND_STEPS = 21  # the blend slider's stops: 0, 0.05, ..., 1


def blend_ratios() -> np.ndarray:
    return np.linspace(0.0, 1.0, BLEND_STEPS)


def blend_curve(query: str = "it") -> np.ndarray:
    """[BLEND_STEPS, n] the blended head's row for `query` at each stop of blend_ratios()."""
    i = token_index(query)
    return np.stack([blend_weights(a)[i] for a in blend_ratios()])


def targets(head: str) -> np.ndarray:
    """[n] the token each query attends to most in `head` (argmax of its weights)."""
    return trace().weights[head_index(head)].argmax(axis=-1)


def head_sensitivity(eps: float = 1e-4) -> np.ndarray:
    """[h, d_model]: how far each head's output moves when one input number is nudged.

    Entry (i, d) is the largest change of head i's output (over tokens and output numbers), per
    unit nudge, when input number d of every token moves by eps. A head that read only its own
    slice of the token would show zeros outside that slice.
    """
    x, p = inputs(), params()
    base = mha_trace(x, p, H).heads  # [h, n, d_k]
    out = np.empty((H, D_MODEL))
    for d in range(D_MODEL):
        nudged = x.copy()
        nudged[:, d] += eps
        out[:, d] = np.abs(mha_trace(nudged, p, H).heads - base).max(axis=(1, 2)) / eps
    return out


def ablation() -> np.ndarray:
    """[h] what removing each head costs: the change of the block's output, relative to its size,
    when the head's output is replaced by its mean output: the mean of its value vectors, which
    is what the head says when it weights every token alike.

    (The mean over this one sentence's tokens would not do: the rare-token head says the same
    thing at every token of a sentence, so that mean would call it free. Over many sentences its
    target changes; the plain mean of the values stands in for that average.)
    """
    t = trace()
    w_o = params().w_o
    full = t.concat @ w_o
    cost = []
    for i in range(H):
        heads = t.heads.copy()
        heads[i] = t.v[i].mean(axis=0, keepdims=True)  # the same mean value at every token
        cost.append(np.linalg.norm(merge_heads(heads) @ w_o - full) / np.linalg.norm(full))
    return np.array(cost)


def contributions(w_o_mix: float, query: str = "it", slots=slice(0, D_K)) -> np.ndarray:
    """[h, len(slots)] how much each head adds to the chosen output slots of `query`:
    head i's part of the concatenation times its rows of W_O."""
    t = trace(w_o_mix)
    w_o = params(w_o_mix).w_o
    row = t.concat[token_index(query)]
    return np.stack([row[i * D_K:(i + 1) * D_K] @ w_o[i * D_K:(i + 1) * D_K, slots] for i in range(H)])
