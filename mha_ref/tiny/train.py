"""Training tinymodel on corpus.py's language, with Adam, deterministically, and the weights kept on disk.

Everything that decides the weights is fixed: the seed draws the training sentences, the held-out
sentences, the first weights and the order of the batches; the arithmetic is float64 on one thread
(threadpoolctl), so the same commit trains the same weights on the same machine.

Training takes seconds, so trained() keeps the result in the figure cache's folder
(MHA_FIGURE_CACHE, default .cache/figures), under trained/<digest>.npz. The digest covers what the
weights are made from: the code that train() reaches (found by mha_ref.store.CodeReach, comments and
docstrings left out), the configuration, the seed and the numpy and Python versions. A build with
nothing changed loads the file; an edit to any of that code trains afresh. MHA_FIGURE_CACHE=0 keeps
the weights in memory only, and so does a folder that cannot be written (with one warning). A file
that cannot be read (truncated, damaged) is dropped with a warning naming it, and the model trained
again.
"""

from __future__ import annotations

import functools
import platform
from pathlib import Path
from typing import NamedTuple

import numpy as np
from threadpoolctl import threadpool_limits

from .. import store
from ..params import MHAParams
from . import corpus
from . import model as tinymodel

CACHE_ENV = store.CACHE_ENV


class TrainConfig(NamedTuple):
    d_model: int = 32
    h: int = 4
    train_sentences: int = 4000
    held_out: int = 400
    steps: int = 600
    batch: int = 64
    learning_rate: float = 0.01
    seed: int = 2


CONFIG = TrainConfig()


class Trained(NamedTuple):
    model: tinymodel.Model
    losses: np.ndarray  # [steps] the training loss at each step
    config: TrainConfig


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


@functools.lru_cache(maxsize=4)
def data(config: TrainConfig = CONFIG) -> tuple[tuple[corpus.Sentence, ...], tuple[corpus.Sentence, ...]]:
    """(training sentences, held-out sentences): two streams of the same generator, never shared."""
    seeds = np.random.SeedSequence(config.seed).spawn(2)
    train_rng, held_rng = (np.random.default_rng(s) for s in seeds)
    return (tuple(corpus.sentence(train_rng) for _ in range(config.train_sentences)),
            tuple(corpus.sentence(held_rng) for _ in range(config.held_out)))


def train(config: TrainConfig = CONFIG) -> Trained:
    """A model trained from scratch on the training sentences: config.steps steps of Adam."""
    train_set, _ = data(config)
    rng = np.random.default_rng(config.seed)
    model = tinymodel.init(tinymodel.Config(config.d_model, config.h), int(rng.integers(2**31)))
    opt = Adam(model.arrays(), config.learning_rate)
    losses = np.empty(config.steps)
    order = np.empty(0, dtype=int)
    with threadpool_limits(limits=1):
        for step in range(config.steps):
            if len(order) < config.batch:  # a new pass over the sentences, in a new order
                order = np.concatenate([order, rng.permutation(len(train_set))])
            picked, order = order[: config.batch], order[config.batch:]
            loss, grads = tinymodel.loss_and_grads(model, corpus.batch([train_set[i] for i in picked]))
            opt.step(grads.arrays())
            losses[step] = loss
    return Trained(model, losses, config)


@functools.lru_cache(maxsize=4)  # a process reads the code it runs once; serve re-imports after an edit
def code_digest(config: TrainConfig = CONFIG) -> str:
    """sha256 of what decides the weights: the code train() reaches (without comments or docstrings),
    the config, numpy's and Python's versions."""
    salt = f"{tuple(config)!r} numpy {np.__version__} python {platform.python_version()}"
    return store.CodeReach().digest((__name__, "train"), salt=salt)


def cache_folder() -> Path | None:
    """Where trained weights are kept: the figure cache's folder (mha_ref.store), None if off."""
    folder = store.cache_folder()
    return None if folder is None else folder / "trained"


def _arrays(t: Trained) -> dict[str, np.ndarray]:
    m = t.model
    out = {"embed": m.embed, "position": m.position, "losses": t.losses}
    out.update({f"mha_{f}": a for f, a in zip(MHAParams._fields, m.mha) if a is not None})
    out.update({f"read_{i}": r for i, r in enumerate(m.read)})
    out.update({f"read_bias_{i}": c for i, c in enumerate(m.read_bias)})
    return out


def _from_arrays(a, config: TrainConfig) -> Trained:
    mha = MHAParams(*(a[f"mha_{f}"] if f"mha_{f}" in a else None for f in MHAParams._fields))
    n = len(corpus.QUESTIONS)
    model = tinymodel.Model(a["embed"], a["position"], mha, tuple(a[f"read_{i}"] for i in range(n)),
                            tuple(a[f"read_bias_{i}"] for i in range(n)), config.h)
    return Trained(model, a["losses"], config)


def save(t: Trained, path: Path) -> bool:
    """Write the weights whole under a temporary name, then rename: no half file under path. Whether
    they were written: a folder that cannot be written is turned off for writing (store.write_kept)."""
    return store.write_kept(path, lambda f: np.savez(f, **_arrays(t)), path.parent)


def load(path: Path, config: TrainConfig) -> Trained:
    with np.load(path) as a:
        return _from_arrays({k: a[k] for k in a.files}, config)


@functools.lru_cache(maxsize=4)
def _trained(config: TrainConfig, digest: str, folder: Path | None) -> Trained:
    return store.kept_or_made(None if folder is None else folder / f"{digest}.npz",
                              functools.partial(load, config=config), functools.partial(train, config),
                              save, "trained weights")


def prepare() -> None:
    """Train now and keep the weights on disk, unless they are there already: what figures.engine.render
    runs in a process beside its pool before the trained figures are drawn (a figure's PREPARE).
    With the disk cache off (or unwritable) there is nothing to keep, and each process trains for itself."""
    folder = cache_folder()
    if folder is not None and store.cache_writable(folder):
        trained()


def trained(config: TrainConfig = CONFIG) -> Trained:
    """The model trained with config: from the disk cache when this code trained it before."""
    return _trained(config, code_digest(config), cache_folder())
