"""Head importance and pruning curves, model-independent: the model comes in as callables of the gates.

Every head's output is multiplied by a gate xi [L, h] (1: working, 0: masked), as Michel et al.
(2019, arXiv:1905.10650) do. What we followed:

- michel_importance: I_h = E_x |dL(x)/dxi_h| at xi = 1 (§4.1 of the paper). Their code
  (calculate_head_importance in the authors' pytorch-pretrained-BERT fork, examples/run_classifier.py)
  takes the absolute value per token before averaging, then, with --normalize_pruning_by_layer,
  divides each layer's scores by their l2 norm (plus 1e-20). Here the absolute value is taken per
  batch: pass batches of one example to follow the paper's E|.| rather than |E .|.
- importance_order: the heads from least to most important, the order their pruning takes them in.
- prune_curve: heads masked (gate 0) one at a time in a given order, the model evaluated at each
  step; random_orders and spread give the band that orders drawn at random make.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

import numpy as np

Evaluation = tuple[float, float, Mapping[str, float]]  # (loss, accuracy overall, accuracy per relation)


def michel_importance(gate_grad_fn: Callable[[object, np.ndarray], np.ndarray], batches: Iterable,
                      gates: np.ndarray, normalise: bool = True) -> np.ndarray:
    """[L, h]: each head's mean over batches of |dL/dxi_h| at `gates` (all ones for the full model),
    each layer divided by its l2 norm when `normalise`. gate_grad_fn(batch, gates) -> [L, h]."""
    gates = np.asarray(gates, dtype=float)
    grads = [np.abs(np.asarray(gate_grad_fn(b, gates.copy()), dtype=float)) for b in batches]
    if not grads:
        raise ValueError("no batches: importance is a mean over at least one")
    importance = np.mean(grads, axis=0)  # [L, h]
    if importance.shape != gates.shape:
        raise ValueError(f"gate_grad_fn gave {importance.shape}, the gates are {gates.shape}")
    if normalise:
        importance = importance / (np.sqrt((importance ** 2).sum(axis=-1, keepdims=True)) + 1e-20)
    return importance


def gate_gradient(loss_fn: Callable[[np.ndarray], float], gates: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """[L, h] dL/dxi by central differences of loss_fn(gates): the check for a gate_grad_fn."""
    gates = np.asarray(gates, dtype=float)
    grad = np.zeros_like(gates)
    for i in np.ndindex(gates.shape):
        up, down = gates.copy(), gates.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (loss_fn(up) - loss_fn(down)) / (2 * eps)
    return grad


def importance_order(importance: np.ndarray) -> tuple[int, ...]:
    """The heads (flat, layer by layer: layer * h + head) from least to most important; equal
    scores in flat order."""
    return tuple(int(i) for i in np.argsort(np.asarray(importance).ravel(), kind="stable"))


class CurveStep(NamedTuple):
    masked: tuple[int, ...]  # flat heads masked so far, in the order they were masked
    loss: float
    accuracy: float
    per_relation: Mapping[str, float]


def gates_without(shape: tuple[int, int], masked: Sequence[int]) -> np.ndarray:
    """[L, h] ones, with the flat heads in `masked` set to 0."""
    gates = np.ones(shape)
    gates.flat[list(masked)] = 0.0
    return gates


def prune_curve(evaluate_fn: Callable[[np.ndarray], Evaluation], order: Sequence[int],
                shape: tuple[int, int]) -> list[CurveStep]:
    """The model with every head, then one head more masked at each step, in `order` (flat heads):
    len(order) + 1 steps. evaluate_fn(gates [L, h]) -> (loss, accuracy, accuracy per relation)."""
    order = [int(i) for i in order]
    if len(set(order)) != len(order) or not all(0 <= i < shape[0] * shape[1] for i in order):
        raise ValueError(f"an order names each of the {shape[0] * shape[1]} heads at most once, got {order}")
    steps = []
    for k in range(len(order) + 1):
        loss, accuracy, per_relation = evaluate_fn(gates_without(shape, order[:k]))
        steps.append(CurveStep(tuple(order[:k]), float(loss), float(accuracy), dict(per_relation)))
    return steps


def random_orders(n_heads: int, k: int, seed: int) -> list[tuple[int, ...]]:
    """k orders of the n_heads flat heads drawn at random (k >= 20, so that a band has a shape)."""
    if k < 20:
        raise ValueError(f"at least 20 random orders, got {k}")
    rng = np.random.default_rng(seed)
    return [tuple(int(i) for i in rng.permutation(n_heads)) for _ in range(k)]


class Spread(NamedTuple):
    low: np.ndarray  # [steps] the smallest value at each step, over the orders
    median: np.ndarray
    high: np.ndarray


def measure_of(step: CurveStep, measure: str) -> float:
    """'loss', 'accuracy', or a relation's name (its accuracy)."""
    return step.loss if measure == "loss" else step.accuracy if measure == "accuracy" else step.per_relation[measure]


def spread(curves: Sequence[Sequence[CurveStep]], measure: str = "accuracy") -> Spread:
    """Per step, the min, median and max of one measure over curves of the same length."""
    values = np.array([[measure_of(s, measure) for s in c] for c in curves])  # [curves, steps]
    return Spread(values.min(axis=0), np.median(values, axis=0), values.max(axis=0))


def survivors(curve: Sequence[CurveStep], n_heads: int, drop: float, measure: str = "accuracy") -> tuple[int, ...]:
    """The heads still working at the last step before `measure` first falls more than `drop` below
    the full model's: which heads this order kept longest while the model still worked."""
    full = measure_of(curve[0], measure)
    last = curve[0]
    for step in curve[1:]:
        if measure_of(step, measure) < full - drop:
            break
        last = step
    return tuple(i for i in range(n_heads) if i not in last.masked)
