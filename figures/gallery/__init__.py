"""The figures themselves: one module per figure, its file name the figure's id (`-` written `_`).

Each module gives its control (`CONTROL`, or None for a single frame), its captions (`CAPTION_ZH`,
`CAPTION_EN`) and `draw(lang, value)`, which returns a matplotlib Figure; it may also give
`data(lang)`, the numbers it draws as a table, and `PREPARE`, slow shared work run once before
drawing (with `PREPARE_PROGRESS`, a name and a function giving how far it has come: (done, total)). A figure imports only `mha_ref`, the kit (`figures.kit`) and, to share a look, another
figure. This file is the one ordered list of figures: the site, the CLI and the tests read it
(through figures.engine.registry).

An id is stable forever: it names the figure's module, files, anchor (#fig-<id>) and downloads.
"""

# Site order (the order the pages number them in). Each id maps to figures/gallery/<id with _ for ->.py.
ORDER = (
    # section 1: one head can only blend
    "blend-rows",
    "blend-slider",
    "peak-dip",
    "output-blend",
    # section 2: slicing the width
    "width-slices",
    "what-a-head-reads",
    "projection-columns",
    "worked-example",
    # section 3: heads side by side
    "two-heads-full-strength",
    "four-heads",
    "head-planes",
    "attention-maps",
    "scale-pitfall",
    # section 4: what trained heads do
    "position-vs-rare-rows",
    "position-vs-rare-lines",
    "syntax-walk",
    "head-ablation",
    "pruning-evidence",
    "seed-roles",
    "trained-maps",
    # section 5: concatenate, then mix
    "concat-slots",
    "head-outputs",
    "wo-mixing",
    "four-matrices",
    # section 6: what it costs
    "params-vs-h",
    "flops-vs-context",
    "attention-memory",
    "kv-heads",
    "dk-expressiveness",
    # section 7: the code
    "reshape-pitfall",
    "causal-mask",
    "published-models",
    # section 8: attention as today's models run it
    "rope-offset",
    "rope-wavelengths",
    "tile-steps",
    "tile-memory",
    "latent-absorb",
    "kv-cache-bytes",
    "window-reach",
    "sink-weights",
    # reference page (the reference page)
    "flow-diagram",
    "heads-vs-bleu",
)
