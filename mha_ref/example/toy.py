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

Why the section-1 blend of `it` does not land on a third token: a single head that must serve
both the position rule and the syntax rule gets the two query signals in *separate* coordinates,
and its score is then (1 - a) * position score + a * syntax score. Had the syntax query been coded
as a position too (``it`` -> position 5, in the same rotating code), blending two queries that
point at positions 3 and 5 would give a query pointing at position 4, the token between them.
Keeping the signals apart is also what a trained head would have to do, since a syntactic target
is not a fixed offset. It is no law, though: a mix of two score rows can still put on top a token
that neither rule ranks first, and for the query `and` it does (see blend_top_keys).
"""

from __future__ import annotations

import functools

from typing import NamedTuple

import numpy as np

from ..params import MHAParams
from ..attention import attention, merge_heads, mha_trace

TOKENS = ("the", "cat", "ate", "and", "it", "ran")
N = len(TOKENS)
D_MODEL = 8
H = 4
D_K = D_MODEL // H
HEADS = ("position", "syntax", "rare", "diffuse")

# A small, made-up frequency table (counts in an imagined corpus of 10,000 tokens): the only
# thing the rare-token head knows. cat is the rarest token of the sentence.
FREQUENCIES = {"the": 620, "cat": 3, "ate": 21, "and": 310, "it": 140, "ran": 27}

# What each token is linked to: what it attaches to in a small dependency reading of the sentence,
# and for the main verb `ate`, which attaches to nothing, its subject.
SYNTAX_TARGET = {"the": "cat", "cat": "ate", "ate": "cat", "and": "ran", "it": "ran", "ran": "ate"}

STEP = np.deg2rad(36.0)  # angle between neighbouring positions: 0..180 degrees for six tokens
ROLE_ANGLE = {"cat": 90.0, "ate": 210.0, "ran": 330.0}  # three well separated directions
GAIN_POSITION = 4.6  # sharp enough that the position head is confident (peak near 0.9)
# The syntax gain balances the two rules for the query `it`: the position head scores `and` above
# `ran` by GAIN_POSITION**2 * (1 - cos(2 STEP)), and the syntax head scores `ran` above `and` by
# GAIN_SYNTAX**2; equal margins put the blend's turning point near the midpoint (the small dense
# part of every block moves it a little: blend_minimum computes where it really is).
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


def params(w_o_mix: float = 1.0, rare_reads: int = 6) -> MHAParams:
    """The block's parameters. ``w_o_mix`` scales the part of W_O that mixes heads (0: block-diagonal);
    ``rare_reads`` is the input number the rare-token head's key reads (6, the rarity; slicing-the-width's
    exercise moves it)."""
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
    w_k[rare_reads, 4] += GAIN_RARE
    # head 3 (columns 6:8): only the small random part, so its scores stay close to each other
    w_v = rng.normal(0.0, 1.0 / np.sqrt(D_MODEL), (D_MODEL, D_MODEL))
    mixing = rng.normal(0.0, 0.5, (D_MODEL, D_MODEL))
    for i in range(H):  # the mixing part has no block on the diagonal
        mixing[i * D_K:(i + 1) * D_K, i * D_K:(i + 1) * D_K] = 0.0
    w_o = np.eye(D_MODEL) + w_o_mix * mixing
    return MHAParams(w_q, w_k, w_v, w_o, b_q=b_q)


def trace(w_o_mix: float = 1.0):
    """The running example's full forward pass (see attention.MHATrace), computed once per mix.

    Every page value and figure reads it, thousands of times per build; its arrays are read-only,
    so a caller that tried to change the shared copy would get an error, not a wrong figure.
    """
    return _trace(float(w_o_mix))


@functools.cache
def _trace(w_o_mix: float):
    t = mha_trace(inputs(), params(w_o_mix), H)
    for a in t:
        a.flags.writeable = False
    return t


def rare_weights_reading(feature: int) -> np.ndarray:
    """The rare-token head's weights [n, n] when its key reads input number `feature` instead of the
    rarity: what slicing-the-width's exercise ("w_k[7, 4] += GAIN_RARE") gives after a rebuild."""
    return mha_trace(inputs(), params(rare_reads=feature), H).weights[head_index("rare")]


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


def _blend_qk(alpha: float, t=None) -> tuple[np.ndarray, np.ndarray]:
    """q, k [n, d_model] of ONE head asked to follow both the position and the syntax rule.

    The head has the full width d_model = 8. Its W_Q holds the position head's query block scaled
    by (1 - alpha) and the syntax head's scaled by alpha, in separate columns; its W_K holds both
    key blocks. The key blocks get the gain (d_model / d_k) ** 0.25 on both sides, so that with the
    head's own divisor sqrt(d_model) the pure ends (alpha = 0 or 1) are exactly the two heads.
    """
    alpha = float(alpha)
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"the blend ratio must lie in [0, 1], got {alpha}")
    t = trace() if t is None else t  # another trace: the same block run on other inputs
    g = (D_MODEL / D_K) ** 0.25
    pos, syn = head_index("position"), head_index("syntax")
    q = np.zeros((N, D_MODEL))
    k = np.zeros((N, D_MODEL))
    q[:, 0:2], k[:, 0:2] = g * (1 - alpha) * t.q[pos], g * t.k[pos]
    q[:, 2:4], k[:, 2:4] = g * alpha * t.q[syn], g * t.k[syn]
    return q, k


def blend_weights(alpha: float, t=None) -> np.ndarray:
    """[n, n] weights of the blended head (see _blend_qk) at ratio alpha; from the trace t of the
    same block run on other inputs, if given."""
    q, k = _blend_qk(alpha, t)
    _, w = attention(q, k, np.eye(N))
    return w


def blend_scores(alpha: float) -> np.ndarray:
    """[n, n] the blended head's scores q.k / sqrt(d_model): (1 - alpha) times the position head's
    scores plus alpha times the syntax head's, so each score is a straight line in alpha."""
    q, k = _blend_qk(alpha)
    return q @ k.T / np.sqrt(D_MODEL)


BLEND_STEPS = 21  # the blend slider's stops: 0, 0.05, ..., 1


def blend_ratios() -> np.ndarray:
    return np.linspace(0.0, 1.0, BLEND_STEPS)


def blend_curve(query: str = "it") -> np.ndarray:
    """[BLEND_STEPS, n] the blended head's row for `query` at each stop of blend_ratios()."""
    i = token_index(query)
    return np.stack([blend_weights(a)[i] for a in blend_ratios()])


class TopSpan(NamedTuple):
    token: str  # the key with the top weight of the row ...
    start: float  # ... for every blend ratio in [start, end]
    end: float


def blend_top_keys(query: str) -> tuple[TopSpan, ...]:
    """Which key gets the blended head's top weight in the row of `query`, for every ratio in [0, 1].

    Exact, not sampled: the softmax keeps the order of the scores, and every score is a straight
    line in alpha, so the top key can change only where two lines cross. Between consecutive
    crossings one key stays on top; it is read off at the middle of each piece.
    """
    i = token_index(query)
    a, b = blend_scores(0.0)[i], blend_scores(1.0)[i]  # score_j(alpha) = a_j + alpha (b_j - a_j)
    slope = b - a
    cuts = {0.0, 1.0}
    for j in range(N):
        for m in range(j + 1, N):
            if slope[j] != slope[m]:
                x = (a[m] - a[j]) / (slope[j] - slope[m])
                if 0.0 < x < 1.0:
                    cuts.add(float(x))
    cuts = sorted(cuts)
    spans: list[TopSpan] = []
    for lo, hi in zip(cuts, cuts[1:]):
        top = TOKENS[int(np.argmax(a + 0.5 * (lo + hi) * slope))]
        if spans and spans[-1].token == top:
            spans[-1] = spans[-1]._replace(end=hi)
        else:
            spans.append(TopSpan(top, lo, hi))
    return tuple(spans)


def blend_peak(alpha: float, query: str = "it") -> float:
    """The largest weight in the blended head's row for `query` at ratio alpha."""
    return float(blend_weights(alpha)[token_index(query)].max())


@functools.cache
def blend_minimum(query: str = "it", grid: int = 401) -> tuple[float, float]:
    """(ratio, peak) where the blended row's largest weight is lowest: the true minimum over
    [0, 1], not the slider's stops. A grid finds the basin, a bounded scalar search refines it."""
    from scipy.optimize import minimize_scalar

    ratios = np.linspace(0.0, 1.0, grid)
    peaks = np.array([blend_peak(r, query) for r in ratios])
    k = int(peaks.argmin())
    lo, hi = ratios[max(k - 1, 0)], ratios[min(k + 1, grid - 1)]
    best = minimize_scalar(lambda r: blend_peak(r, query), bounds=(lo, hi), method="bounded",
                           options={"xatol": 1e-10})
    if best.fun > peaks[k]:  # the search can only improve on the grid
        return float(ratios[k]), float(peaks[k])
    return float(best.x), float(best.fun)


def targets(head: str) -> np.ndarray:
    """[n] the token each query attends to most in `head` (argmax of its weights)."""
    return trace().weights[head_index(head)].argmax(axis=-1)


class HeadPlane(NamedTuple):
    """One head of width d_k = 2 seen in its own plane: what head-planes draws."""

    q: np.ndarray  # [n, 2] each token's query in this head
    k: np.ndarray  # [n, 2] each token's key
    dots: np.ndarray  # [n, n] q . k, before the division by sqrt(d_k): row = query, column = key
    corners: np.ndarray  # [m] the keys that can win for some query: the keys' hull, counter-clockwise


@functools.cache  # asked for by every frame's readout and drawing: the hull is a linear program per key
def head_plane(head: str) -> HeadPlane:
    """The queries and keys of one head of the running example, as the trace computes them.

    The softmax keeps the order of a row's scores, so in every row the key with the largest dot
    product is the key with the largest weight: the winner is the key that reaches farthest along
    the query's direction.
    """
    from .expressiveness import hull_corners  # scipy's solver: only the figures that ask load it

    t = trace()
    i = head_index(head)
    q, k = t.q[i], t.k[i]  # [n, d_k] each
    plane = HeadPlane(q, k, q @ k.T, hull_corners(k))
    for a in plane:  # shared by every caller: read-only
        a.setflags(write=False)
    return plane


def head_sensitivity(every_token: bool = False) -> HeadSensitivity:
    """How far each head's output moves per unit nudge of one input number, split by path.

    Entry (i, d) of each [h, d_model] grid is the largest |d head_i[t, c] / d x[j, d]| over the
    query t, the output number c and the nudged token j: input number d of ONE token moves.
    The attention path lets the nudge reach only q and k (the weights move, the values stay);
    the value path lets it reach only v; total is both at once (their sum, to first order).

    ``every_token=True`` moves input number d of every token together instead. Then the key side
    of the attention path vanishes: every key moves by the same row of W_K, every score of a row
    by the same amount, and the softmax ignores a constant added to a whole row.
    """
    def largest(jac):  # [n_t, n_j, d_model, d_k] -> [d_model]
        return np.abs(jac).max(axis=(0, 1, 3))

    grids = []  # [h][3][d_model]
    for i in range(H):
        attn, val = head_jacobian(i)  # [n, n, d_model, d_k] each
        if every_token:  # the nudges of all tokens add up: sum over the nudged token j
            attn, val = attn.sum(axis=1, keepdims=True), val.sum(axis=1, keepdims=True)
        grids.append([largest(attn), largest(val), largest(attn + val)])
    return HeadSensitivity(*np.array(grids).transpose(1, 0, 2))  # 3 x [h, d_model]


class HeadSensitivity(NamedTuple):
    """The three [h, d_model] grids of head_sensitivity()."""

    attention_path: np.ndarray  # the nudge reaches q and k only: the weights move
    value_path: np.ndarray  # the nudge reaches v only: the weights stay
    total: np.ndarray  # the nudge reaches all three


def head_jacobian(i: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact derivatives of head i's output [n, d_k] by every input number x[j, d].

    Returns (attention path, value path), each [n_t, n_j, d_model, d_k]: entry [t, j, d, c] is
    d head_i[t, c] / d x[j, d] with only q, k (attention path) or only v (value path) following x.
    With a = softmax(s) and out_t = sum_s a_ts v_s:
        d out_t = sum_s a_ts * d(s_ts) * (v_s - out_t)      (weights move)
        d out_t = a_tj * W_V[d]                               (values move)
    """
    t, p = trace(), params()
    cols = slice(i * D_K, (i + 1) * D_K)
    q, k, v, a, out = t.q[i], t.k[i], t.v[i], t.weights[i], t.heads[i]  # [n, d_k] x3, [n, n], [n, d_k]
    w_q, w_k, w_v = p.w_q[:, cols], p.w_k[:, cols], p.w_v[:, cols]  # [d_model, d_k] each
    same = np.eye(N)
    # d s_ts / d x[j, d] = (1[t = j] W_Q[d] . k_s + 1[s = j] q_t . W_K[d]) / sqrt(d_k): [t, s, j, d]
    via_query = same[:, None, :, None] * (k @ w_q.T)[None, :, None, :]  # x_j moves q_j
    via_key = same[None, :, :, None] * (q @ w_k.T)[:, None, None, :]  # x_j moves k_j
    d_scores = (via_query + via_key) / np.sqrt(D_K)
    attention_path = np.einsum("ts,tsjd,tsc->tjdc", a, d_scores, v[None, :, :] - out[:, None, :])
    value_path = np.einsum("tj,dc->tjdc", a, w_v)
    return attention_path, value_path


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

