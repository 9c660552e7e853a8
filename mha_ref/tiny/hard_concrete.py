"""Voita et al.'s head gates (2019, §6.1): one Hard Concrete gate per head, trained with the model fixed.

Followed from the authors' code (lena-voita/the-story-of-heads, lib/layers/concrete_gate.py,
after Louizos et al. 2018): a gate with log-scale log_a draws u ~ U(eps, 1 - eps) and gives

    s = sigmoid((log u - log(1 - u) + log_a) / temperature)      (the binary Concrete)
    g = clip(s * (high - low) + low, 0, 1)                        (stretched to (low, high), clipped)

with temperature 0.33 and (low, high) = (-0.1, 1.1), their defaults; without noise (evaluation) their
code takes s = sigmoid(log_a). The relaxed L0 penalty is the sum over gates of
P(g != 0) = sigmoid(log_a - temperature * log(-low / high)), and the objective
L(gates) + lambda * that sum. At test time the paper (§6.1, as page-cited notes quote it)
binarises each trained gate by which of P(g = 0) and P(g = 1) is larger. Everything here is generic: the model comes in as
loss_grad(gates [L, h]) -> (loss, dL/dgates [L, h]).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

TEMPERATURE = 0.33
LIMITS = (-0.1, 1.1)
EPS = 1e-6


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def concrete(log_a, u) -> np.ndarray:
    """[L, h] the binary Concrete s for noise u (u None: sigmoid(log_a), their evaluation gate)."""
    if u is None:
        return sigmoid(log_a)
    return sigmoid((np.log(u) - np.log(1 - u) + log_a) / TEMPERATURE)


def gates(log_a, u=None) -> np.ndarray:
    """[L, h] stretched and clipped to [0, 1]."""
    low, high = LIMITS
    return np.clip(concrete(log_a, u) * (high - low) + low, 0.0, 1.0)


def gates_grad(log_a, u=None) -> np.ndarray:
    """[L, h] dg/dlog_a, elementwise: zero where the clip holds the gate at 0 or 1."""
    low, high = LIMITS
    s = concrete(log_a, u)
    stretched = s * (high - low) + low
    slope = s * (1 - s) * (1.0 if u is None else 1 / TEMPERATURE)
    return np.where((stretched > 0) & (stretched < 1), (high - low) * slope, 0.0)


def p_open(log_a) -> np.ndarray:
    """[L, h] P(g != 0): each gate's share of the relaxed L0 penalty."""
    low, high = LIMITS
    return sigmoid(log_a - TEMPERATURE * np.log(-low / high))


def p_one(log_a) -> np.ndarray:
    """[L, h] P(g = 1): the stretched Concrete above 1."""
    low, high = LIMITS
    return sigmoid(log_a - TEMPERATURE * np.log((1 - low) / (high - 1)))


def binarised(log_a) -> np.ndarray:
    """[L, h] the test-time gates: 1 where P(g = 1) > P(g = 0), else 0."""
    return (p_one(log_a) > 1 - p_open(log_a)).astype(float)


class GateRun(NamedTuple):
    log_a: np.ndarray  # [L, h] the trained log-scales
    objective: list  # per step, loss + lambda * sum P(g != 0), at the step's sampled gates


def train_gates(loss_grad: Callable[[np.ndarray], tuple[float, np.ndarray]], shape: tuple[int, int],
                lam: float, steps: int = 500, lr: float = 0.1, seed: int = 0, log_a0: float = 2.0) -> GateRun:
    """Fit log_a by plain gradient descent on loss(g) + lam * sum P(g != 0), a fresh gate sample
    each step (the reparameterisation: the noise is drawn, the gradient flows through g)."""
    rng = np.random.default_rng(seed)
    log_a = np.full(shape, float(log_a0))
    history = []
    for _ in range(steps):
        u = rng.uniform(EPS, 1 - EPS, size=shape)
        g = gates(log_a, u)
        loss, d_g = loss_grad(g)
        p = p_open(log_a)
        history.append(float(loss) + lam * float(p.sum()))
        log_a = log_a - lr * (np.asarray(d_g) * gates_grad(log_a, u) + lam * p * (1 - p))
    return GateRun(log_a, history)
