"""mha_ref: the numpy reference implementation behind every number and figure of the site.

`import mha_ref` loads the reference and nothing else: attention and multi-head attention
(attention.py: the batched reshape and the per-head loop), their parameters (params.py), the input
checks (checks.py) and the backward pass (backward.py); and attention as today's models run it
(page 8): rotary positions (rope.py), exact attention a tile of keys at a time (flash.py), sliding
windows with sinks (windows.py), multi-head latent attention (latent.py). Beside it, each imported on its own:

- costs.py, models.py, flow.py: what a block costs, published configurations with their sources,
  the shapes along one block;
- example/: the running example (six tokens, four hand-built heads) and what the pages compute
  from it, with the demonstrations of scaling and of narrow heads;
- tiny/: page 4's model: a generated language, a small trained model, its heads measured;
- roles.py: Voita et al.'s measures of a head, shared by example/ and tiny/.
"""

from .attention import (
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
from .backward import multi_head_attention_backward
from .flash import FlashTrace, flash_attention, flash_trace
from .latent import AbsorbedWeights, MLAParams, MLATrace, absorbed_weights, init_mla_params, mla_attention, mla_trace
from .params import MHAParams
from .rope import rope, rope_frequencies, rope_wavelengths
from .windows import sliding_window_mask, window_reach

__all__ = [
    "MHAParams", "MHATrace", "attention", "init_params", "merge_heads", "mha_trace", "multi_head_attention",
    "multi_head_attention_backward", "multi_head_attention_loop", "softmax", "split_heads",
    "FlashTrace", "flash_attention", "flash_trace", "AbsorbedWeights", "MLAParams", "MLATrace", "absorbed_weights",
    "init_mla_params", "mla_attention", "mla_trace", "rope", "rope_frequencies", "rope_wavelengths", "sliding_window_mask", "window_reach",
]
