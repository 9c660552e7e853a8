"""A small transformer encoder trained to fill in masked words of language.py's sentences.

    x_0    = E[tokens] + P[positions]                          [batch, n, d_model]
    a      = LayerNorm_1(x_l)                                  each of L layers (pre-norm):
    x_l'   = x_l + (concat_i (xi_{l,i} head_i(a))) W_O + b_O     attention, one gate per head
    x_l+1  = x_l' + W_2 ReLU(W_1 LayerNorm_2(x_l') + b_1) + b_2   the MLP
    logits = LayerNorm_f(x_L) E^T + c                          [batch, n, vocab]  read-out tied to E

The objective is BERT's masked-token prediction (Devlin et al., 2019): about MASK_RATE of each
sentence's tokens (never <eos>; at least one) are replaced by <mask>, and the loss is the mean
cross-entropy of the original token at those places. It reads the whole sentence at once, as the
encoder Voita et al. (2019) studied does; it names no role a head should take: which heads read
the neighbours, agreement partners or rare words is up to training. (Devlin et al. also keep 10%
of the chosen tokens and swap 10% for random ones; here every chosen token is masked.)

xi_{l,i} (gates [L, h], ones by default) multiplies head i of layer l's output before W_O: Michel
et al. (2019) prune heads by setting it to 0 and rank them by |d loss / d xi|. The attention is the
reference's (mha_ref.attention.mha_trace forward; mha_ref.backward's steps backward); the rest of
the backward pass is written out in lm_backward.py, one function per step.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import language
from ..params import MHAParams
from ..attention import init_params, merge_heads, mha_trace

MASK_RATE = 0.15
IGNORE = -1  # the target of a token that was not masked
LN_EPS = 1e-5


class Config(NamedTuple):
    d_model: int = 32
    h: int = 4
    layers: int = 2
    d_ff: int = 64  # the MLP's hidden width
    dtype: str = "float32"  # twice as fast as float64 here; the tests' finite differences use float64


class Norm(NamedTuple):
    gain: np.ndarray  # [d_model]
    bias: np.ndarray  # [d_model]


class MLP(NamedTuple):
    w_1: np.ndarray  # [d_model, d_ff]
    b_1: np.ndarray  # [d_ff]
    w_2: np.ndarray  # [d_ff, d_model]
    b_2: np.ndarray  # [d_model]


class Layer(NamedTuple):
    norm_1: Norm
    mha: MHAParams
    norm_2: Norm
    mlp: MLP


class Model(NamedTuple):
    embed: np.ndarray  # [vocab, d_model], also the read-out
    position: np.ndarray  # [MAX_LEN, d_model], learned
    layers: tuple[Layer, ...]
    norm_f: Norm
    out_bias: np.ndarray  # [vocab]
    h: int  # not a weight: the head count per layer


def arrays(tree) -> list[np.ndarray]:
    """Every array of a Model (or of its gradients, the same shape of tree), in a fixed order."""
    if isinstance(tree, np.ndarray):
        return [tree]
    if isinstance(tree, tuple):
        return [a for part in tree for a in arrays(part)]
    return []  # h, or a bias that is None


def named_arrays(tree, prefix: str = "") -> dict[str, np.ndarray]:
    """{"layers.0.mha.w_q": array, ...}: arrays() with names, for saving."""
    if isinstance(tree, np.ndarray):
        return {prefix: tree}
    if not isinstance(tree, tuple):
        return {}
    out = {}
    for name, part in zip(getattr(tree, "_fields", range(len(tree))), tree):
        out.update(named_arrays(part, f"{prefix}.{name}" if prefix else str(name)))
    return out


def replace_arrays(tree, new: list[np.ndarray]):
    """tree with its arrays replaced by new, in arrays() order."""
    return _fill(tree, iter(new))


def _fill(tree, new):
    if isinstance(tree, np.ndarray):
        return next(new)
    if isinstance(tree, tuple):
        parts = [_fill(part, new) for part in tree]
        return type(tree)(*parts) if hasattr(tree, "_fields") else tuple(parts)
    return tree


def init(config: Config, seed: int) -> Model:
    """Small random weights of config.dtype: rows of E and P of norm about 1, projections 1 / sqrt(fan-in)."""
    rng = np.random.default_rng(seed)
    d, f = config.d_model, config.d_ff
    embed = rng.standard_normal((len(language.VOCAB), d)) / math.sqrt(d)
    position = rng.standard_normal((language.MAX_LEN, d)) / math.sqrt(d)

    def norm():
        return Norm(np.ones(d), np.zeros(d))

    layers = tuple(Layer(norm(), init_params(d, config.h, seed=int(rng.integers(2**31))), norm(),
                         MLP(rng.standard_normal((d, f)) / math.sqrt(d), np.zeros(f),
                             rng.standard_normal((f, d)) / math.sqrt(f), np.zeros(d)))
                   for _ in range(config.layers))
    model = Model(embed, position, layers, norm(), np.zeros(len(language.VOCAB)), config.h)
    return replace_arrays(model, [a.astype(config.dtype) for a in arrays(model)])


# --------------------------------------------------------------------------------------------
# the batch: padded sentences, some tokens masked
# --------------------------------------------------------------------------------------------

class Batch(NamedTuple):
    inputs: np.ndarray  # [batch, n] token ids, <mask> where masked, <pad> after the sentence
    targets: np.ndarray  # [batch, n] the original token where masked, IGNORE elsewhere
    real: np.ndarray  # [batch, n] bool: True at the sentence's tokens, False at padding


def pad(sentences) -> tuple[np.ndarray, np.ndarray]:
    """-> tokens [batch, n], real [batch, n]: n the longest sentence, <pad> after the shorter."""
    n = max(len(s.tokens) for s in sentences)
    tokens = np.full((len(sentences), n), language.PAD)
    for row, s in zip(tokens, sentences):
        row[: len(s.tokens)] = s.tokens
    return tokens, tokens != language.PAD


def mask_tokens(tokens: np.ndarray, real: np.ndarray, rng: np.random.Generator) -> Batch:
    """tokens [batch, n] -> a Batch with each maskable token (real, not <eos>) masked with
    probability MASK_RATE, and at least one per sentence (the one of lowest draw)."""
    maskable = real & (tokens != language.EOS)
    draw = np.where(maskable, rng.random(tokens.shape), 2.0)  # [batch, n]
    chosen = draw < MASK_RATE
    chosen[np.arange(len(tokens)), draw.argmin(axis=1)] = True
    return Batch(np.where(chosen, language.MASK, tokens), np.where(chosen, tokens, IGNORE), real)


def masked_batch(sentences, rng: np.random.Generator) -> Batch:
    return mask_tokens(*pad(sentences), rng)


# --------------------------------------------------------------------------------------------
# forward, one function per step
# --------------------------------------------------------------------------------------------

class NormTrace(NamedTuple):
    x_hat: np.ndarray  # [..., d_model] the input centred and scaled to unit variance
    inv_std: np.ndarray  # [..., 1]


def layer_norm(x: np.ndarray, norm: Norm) -> tuple[np.ndarray, NormTrace]:
    """[..., d_model] -> [..., d_model]: (x - mean) / sqrt(var + eps) * gain + bias, per token."""
    centred = x - x.mean(axis=-1, keepdims=True)
    inv_std = 1.0 / np.sqrt((centred ** 2).mean(axis=-1, keepdims=True) + LN_EPS)
    x_hat = centred * inv_std
    return x_hat * norm.gain + norm.bias, NormTrace(x_hat, inv_std)


def relu(u: np.ndarray) -> np.ndarray:
    """[...] -> [...]: max(u, 0)."""
    return np.maximum(u, 0)


class MLPTrace(NamedTuple):
    u: np.ndarray  # [..., d_ff] before ReLU
    z: np.ndarray  # [..., d_ff] after


def mlp(x: np.ndarray, p: MLP) -> tuple[np.ndarray, MLPTrace]:
    """[..., d_model] -> [..., d_model]: ReLU(x W_1 + b_1) W_2 + b_2."""
    u = x @ p.w_1 + p.b_1
    z = relu(u)
    return z @ p.w_2 + p.b_2, MLPTrace(u, z)


class AttentionTrace(NamedTuple):
    heads: object  # mha_ref.attention.MHATrace: q, k, v, weights and each head's output (ungated)
    gated: np.ndarray  # [batch, n, d_model] the heads' outputs times their gates, side by side


def gated_attention(a: np.ndarray, p: MHAParams, h: int, keys: np.ndarray, gates: np.ndarray):
    """a [batch, n, d_model], keys [batch, n, n], gates [h] -> (out [batch, n, d_model], AttentionTrace):
    multi-head attention with head i's output times gates[i] before W_O."""
    t = mha_trace(a, p, h, mask=keys)
    gated = merge_heads(t.heads * gates[:, None, None])  # [batch, n, h * d_k]
    return gated @ p.w_o + p.b_o, AttentionTrace(t, gated)


class BlockTrace(NamedTuple):
    x: np.ndarray  # [batch, n, d_model] the block's input
    norm_1: NormTrace
    a: np.ndarray  # [batch, n, d_model] LN_1(x), what the attention reads
    attention: AttentionTrace
    mid: np.ndarray  # [batch, n, d_model] after the attention's residual
    norm_2: NormTrace
    m: np.ndarray  # [batch, n, d_model] LN_2(mid), what the MLP reads
    mlp: MLPTrace


def block(x: np.ndarray, layer: Layer, h: int, keys: np.ndarray, gates: np.ndarray):
    """x [batch, n, d_model] -> (x [batch, n, d_model], BlockTrace): pre-norm attention, then MLP."""
    a, n1 = layer_norm(x, layer.norm_1)
    attended, at = gated_attention(a, layer.mha, h, keys, gates)
    mid = x + attended
    m, n2 = layer_norm(mid, layer.norm_2)
    fed, mt = mlp(m, layer.mlp)
    return mid + fed, BlockTrace(x, n1, a, at, mid, n2, m, mt)


class Encoding(NamedTuple):
    blocks: tuple[BlockTrace, ...]
    x: np.ndarray  # [batch, n, d_model] the last block's output
    norm_f: NormTrace
    y: np.ndarray  # [batch, n, d_model] LN_f(x), what the read-out reads


class Trace(NamedTuple):
    encoding: Encoding
    logits: np.ndarray  # [batch, n, vocab]

    @property
    def weights(self) -> tuple[np.ndarray, ...]:
        """Per layer [batch, h, n, n]: every head's attention weights (queries down, keys across)."""
        return tuple(b.attention.heads.weights for b in self.encoding.blocks)


def ones(model: Model) -> np.ndarray:
    """[L, h]: every gate open."""
    return np.ones((len(model.layers), model.h), dtype=model.embed.dtype)


def encode(model: Model, tokens: np.ndarray, pad_mask: np.ndarray, gates: np.ndarray) -> Encoding:
    """tokens [batch, n], pad_mask [batch, n] (True at real tokens), gates [L, h] -> Encoding: every
    layer. No query looks at padding; padding's own rows are computed and never read."""
    keys = np.broadcast_to(pad_mask[:, None, :], (*tokens.shape, tokens.shape[1]))  # [batch, n, n]
    x = model.embed[tokens] + model.position[: tokens.shape[1]]
    traces = []
    for layer, g in zip(model.layers, gates):
        x, t = block(x, layer, model.h, keys, g)
        traces.append(t)
    y, nf = layer_norm(x, model.norm_f)
    return Encoding(tuple(traces), x, nf, y)


def read_out(model: Model, y: np.ndarray) -> np.ndarray:
    """[..., d_model] -> logits [..., vocab]: y E^T + c, the embedding read backwards."""
    return y @ model.embed.T + model.out_bias


def forward(model: Model, tokens: np.ndarray, pad_mask: np.ndarray, gates: np.ndarray | None = None) -> Trace:
    """tokens [batch, n], pad_mask [batch, n] (True at real tokens), gates [L, h] (None: ones) -> Trace."""
    e = encode(model, tokens, pad_mask, ones(model) if gates is None else gates)
    return Trace(e, read_out(model, e.y))


def cross_entropy(logits: np.ndarray, targets: np.ndarray) -> tuple[float, np.ndarray]:
    """logits [..., vocab], targets [...] (IGNORE where none) -> (mean loss over the targets,
    d loss / d logits [..., vocab])."""
    scored = targets != IGNORE  # [...]
    count = max(int(scored.sum()), 1)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    at = (*np.nonzero(scored), targets[scored])  # (sentence, position, target) of each scored token
    d_logits = np.exp(log_p)  # softmax, then minus the one-hot target
    d_logits[at] -= 1
    d_logits *= scored[..., None] / count  # unscored positions add nothing
    return float(-log_p[at].sum() / count), d_logits


# --------------------------------------------------------------------------------------------
# what a trained model does
# --------------------------------------------------------------------------------------------

def attention_maps(model: Model, sentence: language.Sentence) -> np.ndarray:
    """-> [L, h, n, n]: every head's weights on the sentence as it is (nothing masked)."""
    tokens = sentence.tokens[None, :]
    return np.stack([w[0] for w in forward(model, tokens, np.ones(tokens.shape, dtype=bool)).weights])


class Evaluation(NamedTuple):
    loss: float  # mean cross-entropy over every masked token
    accuracy: float  # share of masked tokens whose highest logit is the original token
    per_relation: dict[str, float]  # relation -> accuracy on the masked tokens that are its dependent


def one_masked(sentences) -> tuple[Batch, list[tuple[int, int]]]:
    """Every non-<eos> token of every sentence masked on its own, one row each: the Batch, and for
    each row (its sentence's index, the masked position)."""
    rows = [(i, j) for i, s in enumerate(sentences) for j in range(len(s.tokens) - 1)]
    tokens, real = pad([sentences[i] for i, _ in rows])
    at = (np.arange(len(rows)), np.array([j for _, j in rows]))
    inputs, targets = tokens.copy(), np.full(tokens.shape, IGNORE)
    inputs[at], targets[at] = language.MASK, tokens[at]
    return Batch(inputs, targets, real), rows


def evaluate(model: Model, sentences, gates: np.ndarray | None = None, chunk: int = 512) -> Evaluation:
    """Each non-<eos> token of each sentence masked alone and predicted: loss and accuracy overall,
    and per relation over the masked tokens that are the dependent of an arc of that relation (as
    many as the sentences have arcs of it; a relation with none is left out)."""
    sentences = sorted(sentences, key=lambda s: len(s.tokens))  # rows of similar length, less padding
    batch, rows = one_masked(sentences)
    losses, right = np.empty(len(rows)), np.empty(len(rows), dtype=bool)
    for start in range(0, len(rows), chunk):
        part = slice(start, start + chunk)
        n = int(batch.real[part].sum(axis=1).max())
        b = Batch(*(a[part, :n] for a in batch))
        logits = forward(model, b.inputs, b.real, gates).logits
        scored = b.targets != IGNORE  # one per row
        shifted = logits[scored] - logits[scored].max(axis=-1, keepdims=True)  # [rows, vocab]
        log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        target = b.targets[scored]
        losses[part] = -log_p[np.arange(len(target)), target]
        right[part] = log_p.argmax(axis=-1) == target
    relation_of = {(i, a.dependent): [] for i, s in enumerate(sentences) for a in s.arcs}
    for i, s in enumerate(sentences):
        for a in s.arcs:
            relation_of[i, a.dependent].append(a.relation)
    hits = {r: [] for r in language.RELATIONS}
    for k, row in enumerate(rows):
        for r in relation_of.get(row, ()):
            hits[r].append(right[k])
    return Evaluation(float(losses.mean()), float(right.mean()), {r: float(np.mean(v)) for r, v in hits.items() if v})
