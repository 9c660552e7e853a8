"""Training lm.py's model on language.py's sentences, with Adam, one model per seed.

The sentences (training and held-out) are drawn from the configuration's data_seed, the same for
every seed; a seed draws the first weights, the order of the batches and which tokens are masked.
The arithmetic is float32 (lm.Config.dtype) on one thread (threadpoolctl), in a process whose
kernels are pinned to x86-64-v3 (arithmetic.py), so that the same commit should train the same
weights from the same seed on every x86-64 machine with AVX2. tests/test_arithmetic.py checks that
the pinned process computes with those kernels on this machine; no test compares weights trained on
two machines.

Batches hold sentences of about one length (less padding to compute): each pass over the
training sentences shuffles them, sorts them by length (a stable sort keeps the shuffle within a
length), cuts them into batches and shuffles the batches. The learning rate rises linearly over
the first `warmup` steps, then falls linearly to a tenth of its peak.

train(config, seed) returns the weights and losses and keeps nothing: the site trains each seed
once and keeps the weights on disk (figures/keep/tiny_lm.py), named by a digest of the code train()
reaches.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
from threadpoolctl import threadpool_limits

from . import language, lm, lm_backward


class Adam:
    """Adam (Kingma and Ba, 2015) with its usual betas, over a list of arrays updated in place."""

    def __init__(self, arrays: list[np.ndarray], learning_rate: float, beta1=0.9, beta2=0.999, eps=1e-8):
        self.arrays, self.lr, self.b1, self.b2, self.eps = arrays, learning_rate, beta1, beta2, eps
        self.m = [np.zeros_like(a) for a in arrays]  # running mean of the gradient
        self.v = [np.zeros_like(a) for a in arrays]  # running mean of its square
        self.t = 0

    def step(self, grads: list[np.ndarray]) -> None:
        self.t += 1
        for a, g, m, v in zip(self.arrays, grads, self.m, self.v):
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * g * g
            m_hat = m / (1 - self.b1 ** self.t)  # the early steps' means are biased towards 0
            v_hat = v / (1 - self.b2 ** self.t)
            a -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)


SEEDS = (0, 1, 2, 3, 4)


class LMTrainConfig(NamedTuple):
    model: lm.Config = lm.Config()
    data_seed: int = 2026
    train_sentences: int = 6000
    held_out: int = 500
    steps: int = 4000  # about 35 s of one core
    batch: int = 64
    learning_rate: float = 1e-2
    warmup: int = 100


CONFIG = LMTrainConfig()


class TrainedLM(NamedTuple):
    model: lm.Model
    losses: np.ndarray  # [steps] the training loss at each step
    config: LMTrainConfig
    seed: int


@functools.lru_cache(maxsize=4)
def data(config: LMTrainConfig = CONFIG) -> tuple[tuple[language.Sentence, ...], tuple[language.Sentence, ...]]:
    """(training sentences, held-out sentences): two streams of one seed, never shared."""
    train_seed, held_seed = np.random.SeedSequence(config.data_seed).spawn(2)
    return (language.sentences(config.train_sentences, train_seed.generate_state(1)[0]),
            language.sentences(config.held_out, held_seed.generate_state(1)[0]))


def batch_order(lengths: np.ndarray, batch: int, rng: np.random.Generator) -> list[np.ndarray]:
    """One pass over sentences of these lengths [count]: index arrays of at most `batch` sentences of
    about one length, in a random order."""
    shuffled = rng.permutation(len(lengths))
    by_length = shuffled[np.argsort(lengths[shuffled], kind="stable")]
    batches = [by_length[i: i + batch] for i in range(0, len(by_length), batch)]
    return [batches[i] for i in rng.permutation(len(batches))]


def learning_rate(config: LMTrainConfig, step: int) -> float:
    """Linear warm-up to config.learning_rate, then a linear fall to a tenth of it at the last step."""
    if step < config.warmup:
        return config.learning_rate * (step + 1) / config.warmup
    left = (config.steps - 1 - step) / max(config.steps - 1 - config.warmup, 1)
    return config.learning_rate * (0.1 + 0.9 * left)


def train(config: LMTrainConfig = CONFIG, seed: int = 0) -> TrainedLM:
    """A model trained from scratch with seed: config.steps steps of Adam on masked batches."""
    train_set, _ = data(config)
    lengths = np.array([len(s.tokens) for s in train_set])
    rng = np.random.default_rng(seed)
    model = lm.init(config.model, int(rng.integers(2**31)))
    opt = Adam(lm.arrays(model), config.learning_rate)
    losses = np.empty(config.steps)
    order: list[np.ndarray] = []
    with threadpool_limits(limits=1):
        for step in range(config.steps):
            if not order:  # a new pass over the sentences
                order = batch_order(lengths, config.batch, rng)
            picked = order.pop()
            batch = lm.masked_batch([train_set[i] for i in picked], rng)
            loss, grads, _ = lm_backward.loss_and_grads(model, batch)
            opt.lr = learning_rate(config, step)
            opt.step(lm.arrays(grads))
            losses[step] = loss
    return TrainedLM(model, losses, config, seed)


def held_out(config: LMTrainConfig = CONFIG) -> tuple[language.Sentence, ...]:
    """The sentences no seed trains on: what evaluations and head measures use."""
    return data(config)[1]
