"""The smallest model that can learn corpus.py's three questions: one attention block, nothing else.

    x      = E[tokens] + P[positions]               [batch, n, d_model]  word and learned position
    y      = x + MultiHeadAttention(x)              [batch, n, d_model]  the block, with a residual
    logits = y @ R_q + c_q   for q in QUESTIONS     [batch, n, vocab]    one read-out per question
    loss   = sum over questions of the mean cross-entropy at the positions that have an answer

No layer norm and no MLP: each answer is one word that some token of the sentence holds, so a head
that looks at that token and a linear read-out of what it brings back are enough. Every function
works on a whole batch of padded sentences; padding is never looked at (the attention mask) and
never scored (IGNORE).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import corpus
from ..params import MHAParams
from ..attention import init_params, merge_heads, mha_trace, softmax
from ..backward import multi_head_attention_backward


class Config(NamedTuple):
    d_model: int = 32
    h: int = 4


class Model(NamedTuple):
    embed: np.ndarray  # [vocab, d_model]
    position: np.ndarray  # [MAX_LEN, d_model] learned, one row per position
    mha: MHAParams
    read: tuple[np.ndarray, ...]  # one [d_model, vocab] per question
    read_bias: tuple[np.ndarray, ...]  # one [vocab] per question
    h: int  # not a weight: the head count

    def arrays(self) -> list[np.ndarray]:
        """Every weight, in a fixed order (None biases left out): what the optimiser updates."""
        return [self.embed, self.position, *(a for a in self.mha if a is not None), *self.read, *self.read_bias]


def init(config: Config, seed: int) -> Model:
    """Small random weights for a model of config's size."""
    rng = np.random.default_rng(seed)
    vocab, d = len(corpus.VOCAB), config.d_model
    embed = rng.standard_normal((vocab, d)) * 0.5
    position = rng.standard_normal((corpus.MAX_LEN, d)) * 0.5
    mha = init_params(d, config.h, seed=int(rng.integers(2**31)))
    read = tuple(rng.standard_normal((d, vocab)) / np.sqrt(d) for _ in corpus.QUESTIONS)
    read_bias = tuple(np.zeros(vocab) for _ in corpus.QUESTIONS)
    return Model(embed, position, mha, read, read_bias, config.h)


def embed(model: Model, tokens: np.ndarray) -> np.ndarray:
    """tokens [batch, n] -> x [batch, n, d_model]: the word's row plus the position's row."""
    return model.embed[tokens] + model.position[: tokens.shape[1]]


def _rows(a: np.ndarray) -> np.ndarray:
    """[batch, n, k] -> [batch * n, k]."""
    return a.reshape(-1, a.shape[-1])


class Forward(NamedTuple):
    x: np.ndarray  # [batch, n, d_model]
    weights: np.ndarray  # [batch, h, n, n]
    heads: np.ndarray  # [batch, h, n, d_k] each head's output
    y: np.ndarray  # [batch, n, d_model]
    logits: tuple[np.ndarray, ...]  # one [batch, n, vocab] per question


def forward(model: Model, b: corpus.Batch, *, head_outputs=None) -> Forward:
    """The model on a batch. head_outputs [batch, h, n, d_k], if given, replaces the heads' outputs
    (pruning puts a head's mean output in place of its own)."""
    x = embed(model, b.tokens)
    t = mha_trace(x, model.mha, model.h, mask=b.keys)
    heads = t.heads if head_outputs is None else head_outputs
    y = x + merge_heads(heads) @ model.mha.w_o + model.mha.b_o  # the block's output, added to its input
    logits = tuple(y @ r + c for r, c in zip(model.read, model.read_bias))
    return Forward(x, t.weights, t.heads, y, logits)


def cross_entropy(logits: np.ndarray, answers: np.ndarray) -> tuple[float, np.ndarray]:
    """logits [batch, n, vocab], answers [batch, n] (IGNORE where none) -> (mean loss over the
    answered positions, d loss / d logits [batch, n, vocab])."""
    p = softmax(logits, axis=-1)  # [batch, n, vocab]
    scored = answers != corpus.IGNORE  # [batch, n]
    count = max(int(scored.sum()), 1)
    onehot = np.zeros_like(p)
    np.put_along_axis(onehot, np.where(scored, answers, 0)[..., None], 1.0, axis=-1)
    log_p = logits - logits.max(axis=-1, keepdims=True)
    log_p -= np.log(np.exp(log_p).sum(axis=-1, keepdims=True))
    loss = -np.sum((onehot * log_p)[scored]) / count
    d_logits = (p - onehot) * (scored[..., None] / count)  # unanswered positions add nothing
    return float(loss), d_logits


def accuracy(logits: np.ndarray, answers: np.ndarray) -> float:
    """The share of answered positions whose highest logit is the answer."""
    scored = answers != corpus.IGNORE
    return float(np.mean(logits.argmax(axis=-1)[scored] == answers[scored]))


def loss_and_grads(model: Model, b: corpus.Batch) -> tuple[float, Model]:
    """The summed loss of the three questions on a batch, and its gradient for every weight."""
    f = forward(model, b)
    total, d_y = 0.0, np.zeros_like(f.y)
    d_read, d_read_bias = [], []
    for r, logits, answers in zip(model.read, f.logits, b.answers):
        loss, d_logits = cross_entropy(logits, answers)  # [batch, n, vocab]
        total += loss
        d_read.append(_rows(f.y).T @ _rows(d_logits))  # [d_model, vocab]
        d_read_bias.append(_rows(d_logits).sum(axis=0))  # [vocab]
        d_y += d_logits @ r.T  # [batch, n, d_model]
    # y = x + MHA(x): the residual passes d_y straight to x, the block adds its own part
    d_mha, d_x_block = multi_head_attention_backward(f.x, model.mha, model.h, d_y, mask=b.keys)
    d_x = d_y + d_x_block  # [batch, n, d_model]
    d_embed = np.zeros_like(model.embed)
    np.add.at(d_embed, b.tokens, d_x)  # each word's row collects the gradient of its tokens
    d_position = np.zeros_like(model.position)
    d_position[: b.tokens.shape[1]] = d_x.sum(axis=0)
    return total, Model(d_embed, d_position, d_mha, tuple(d_read), tuple(d_read_bias), model.h)
