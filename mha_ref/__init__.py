"""mha_ref: the numpy reference implementation behind every number and figure of the site."""

from . import costs, expressiveness, models, one_head, quantities, roles, scale, toy
from .attention import (
    MHAParams,
    MHATrace,
    attention,
    init_params,
    merge_heads,
    mha_trace,
    multi_head_attention,
    multi_head_attention_loop,
    softmax,
    split_heads,
)
from .flow import BLOCK_STEPS, FlowShapes, TensorShape, block_shapes, flow_shapes

__all__ = [
    "BLOCK_STEPS", "FlowShapes", "MHAParams", "MHATrace", "TensorShape", "attention", "block_shapes", "costs",
    "expressiveness", "flow_shapes",
    "init_params", "merge_heads", "mha_trace", "models", "multi_head_attention",
    "multi_head_attention_loop", "one_head", "quantities", "roles", "scale", "softmax", "split_heads", "toy",
]
