"""The parameters of one multi-head attention block: its four matrices and their biases.

A module of its own so that the input checks (checks.py) can know the type without importing the
attention code that uses them. init_params (attention.py) draws random ones.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class MHAParams(NamedTuple):
    """The four matrices of one block, and their biases (or None). All four are d_model x d_model,
    except that with kv_heads key/value heads (grouped-query attention) W_K and W_V only have
    kv_heads * d_k columns. multi_head_attention_backward returns the gradients as one of these too,
    each of its parameter's shape."""

    w_q: np.ndarray  # [d_model, d_model]
    w_k: np.ndarray  # [d_model, kv_heads * d_k]
    w_v: np.ndarray  # [d_model, kv_heads * d_k]
    w_o: np.ndarray  # [d_model, d_model]
    b_q: np.ndarray | None = None  # [d_model]
    b_k: np.ndarray | None = None  # [kv_heads * d_k]
    b_v: np.ndarray | None = None  # [kv_heads * d_k]
    b_o: np.ndarray | None = None  # [d_model]
