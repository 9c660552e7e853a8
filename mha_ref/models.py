"""Published facts the site may state (each with its source, in this module), as data that carries its source.

Only this module and the pages' citations bring outside numbers in; everything else is computed.
"""

from __future__ import annotations

from typing import NamedTuple


class Reference(NamedTuple):
    key: str
    authors: str
    title: str
    venue: str
    year: int
    arxiv: str | None = None  # None for a model card or repository


REFERENCES = {
    r.key: r
    for r in (
        Reference("vaswani2017", "Vaswani, Shazeer, Parmar, Uszkoreit, Jones, Gomez, Kaiser, Polosukhin",
                  "Attention Is All You Need", "NIPS", 2017, "1706.03762"),
        Reference("voita2019", "Voita, Talbot, Moiseev, Sennrich, Titov",
                  "Analyzing Multi-Head Self-Attention: Specialized Heads Do the Heavy Lifting, "
                  "the Rest Can Be Pruned", "ACL", 2019, "1905.09418"),
        Reference("michel2019", "Michel, Levy, Neubig", "Are Sixteen Heads Really Better than One?",
                  "NeurIPS", 2019, "1905.10650"),
        Reference("elhage2021", "Elhage, Nanda, Olsson, Henighan, Joseph, Mann, et al.",
                  "A Mathematical Framework for Transformer Circuits", "Transformer Circuits Thread", 2021),
        Reference("raffel2020", "Raffel, Shazeer, Roberts, Lee, Narang, Matena, Zhou, Li, Liu",
                  "Exploring the Limits of Transfer Learning with a Unified Text-to-Text Transformer (T5)",
                  "JMLR", 2020, "1910.10683"),
        Reference("milakov2018", "Milakov, Gimelshein", "Online normalizer calculation for softmax",
                  "arXiv preprint", 2018, "1805.02867"),
        Reference("dao2022", "Dao, Fu, Ermon, Rudra, Ré",
                  "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness", "NeurIPS",
                  2022, "2205.14135"),
        Reference("gemma2024", "Gemma Team, Google DeepMind",
                  "Gemma: Open Models Based on Gemini Research and Technology", "technical report", 2024,
                  "2403.08295"),
        Reference("devlin2019", "Google Research", "BERT (repository README: model sizes)",
                  "google-research/bert", 2018),
        Reference("radford2019", "OpenAI", "GPT-2 (repository: model hyperparameters)",
                  "openai/gpt-2", 2019),
        Reference("brown2020", "Brown et al.", "Language Models are Few-Shot Learners", "NeurIPS",
                  2020, "2005.14165"),
        Reference("touvron2023", "Meta AI", "LLaMA (2023) model card", "facebookresearch/llama", 2023),
        Reference("meta2024", "Meta AI", "Llama 3 model card", "meta-llama/llama3", 2024),
        Reference("shazeer2019", "Shazeer", "Fast Transformer Decoding: One Write-Head is All You Need",
                  "arXiv preprint", 2019, "1911.02150"),
        Reference("ainslie2023", "Ainslie, Lee-Thorp, de Jong, Zemlyanskiy, Lebrón, Sanghai",
                  "GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints",
                  "EMNLP", 2023, "2305.13245"),
        # page 8: attention as today's models run it
        Reference("su2021", "Su, Lu, Pan, Murtadha, Wen, Liu",
                  "RoFormer: Enhanced Transformer with Rotary Position Embedding", "arXiv preprint", 2021,
                  "2104.09864"),
        Reference("deepseek2024", "DeepSeek-AI",
                  "DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts Language Model",
                  "technical report", 2024, "2405.04434"),
        Reference("deepseek2024v3", "DeepSeek-AI", "DeepSeek-V3 Technical Report", "technical report", 2024,
                  "2412.19437"),
        Reference("jiang2023", "Jiang, Sablayrolles, Mensch, Bamford, Chaplot, de las Casas, et al.", "Mistral 7B",
                  "arXiv preprint", 2023, "2310.06825"),
        Reference("xiao2023", "Xiao, Tian, Chen, Han, Lewis", "Efficient Streaming Language Models with Attention Sinks",
                  "ICLR", 2024, "2309.17453"),
        Reference("falcon2023", "Technology Innovation Institute", "Falcon-7B (model configuration)",
                  "tiiuae/falcon-7b", 2023),
    )
}


class Model(NamedTuple):
    name: str
    d_model: int
    layers: str  # as printed: "6+6" for encoder + decoder
    heads: int
    d_head: int
    context: int | None
    source: str  # a key of REFERENCES
    kv_heads: int | None = None  # grouped-query attention: fewer key/value heads than query heads

    @property
    def layer_count(self) -> int:
        """The number of layers of a single stack ("32" -> 32). An encoder-decoder ("6+6") is
        refused: its two stacks keep different things, so one count would mislead."""
        if not self.layers.isdigit():
            raise ValueError(f"{self.name} has layers {self.layers!r}, not a single stack: no one layer count")
        return int(self.layers)


PUBLISHED_MODELS = (
    Model("Transformer base", 512, "6+6", 8, 64, None, "vaswani2017"),
    Model("Transformer big", 1024, "6+6", 16, 64, None, "vaswani2017"),
    Model("BERT base", 768, "12", 12, 64, 512, "devlin2019"),
    Model("BERT large", 1024, "24", 16, 64, 512, "devlin2019"),
    Model("GPT-2 small", 768, "12", 12, 64, 1024, "radford2019"),
    Model("GPT-2 medium", 1024, "24", 16, 64, 1024, "radford2019"),
    Model("GPT-2 large", 1280, "36", 20, 64, 1024, "radford2019"),
    Model("GPT-2 XL", 1600, "48", 25, 64, 1024, "radford2019"),
    # Brown et al. Table 2.1 has rows where heads x d_head != d_model; only the 175B row is used.
    Model("GPT-3 175B", 12288, "96", 96, 128, 2048, "brown2020"),
    Model("LLaMA 7B", 4096, "32", 32, 128, 2048, "touvron2023"),
    Model("LLaMA 13B", 5120, "40", 40, 128, 2048, "touvron2023"),
    Model("LLaMA 33B", 6656, "60", 52, 128, 2048, "touvron2023"),
    Model("LLaMA 65B", 8192, "80", 64, 128, 2048, "touvron2023"),
    Model("Llama 3 8B", 4096, "32", 32, 128, 8192, "meta2024", kv_heads=8),
    Model("Llama 3 70B", 8192, "80", 64, 128, 8192, "meta2024", kv_heads=8),
)


class WideHeads(NamedTuple):
    """A published model whose heads do not add up to d_model: h * d_head != d_model."""

    name: str
    d_model: int
    heads: int
    d_head: int
    source: str  # a key of REFERENCES (the numbers are read in the official configs)

    @property
    def inner(self) -> int:
        """The width of the concatenation, which W_O maps back to d_model."""
        return self.heads * self.d_head


# the published source (mha_ref/models.py): head widths that are not d_model / h (official configs).
WIDE_HEADS = (
    WideHeads("T5-11B", 1024, 128, 128, "raffel2020"),
    WideHeads("Gemma 7B", 3072, 16, 256, "gemma2024"),
)


def model(name: str) -> Model:
    for m in PUBLISHED_MODELS:
        if m.name == name:
            return m
    raise ValueError(f"unknown model {name!r}; known: {', '.join(m.name for m in PUBLISHED_MODELS)}")


class HeadCountRow(NamedTuple):
    h: int
    d_k: int
    ppl: float  # dev perplexity, EN-DE newstest2013
    bleu: float  # dev BLEU


# Vaswani et al. 2017, Table 3 rows (A): computation held constant while h varies.
HEAD_COUNT_TABLE = (
    HeadCountRow(1, 512, 5.29, 24.9),
    HeadCountRow(4, 128, 5.00, 25.5),
    HeadCountRow(8, 64, 4.92, 25.8),
    HeadCountRow(16, 32, 4.91, 25.8),
    HeadCountRow(32, 16, 5.01, 25.4),
)
HEAD_COUNT_SOURCE = "vaswani2017"

# Voita et al. 2019, pruning on WMT EN-RU: heads kept of the encoder's 48, and the BLEU it cost.
VOITA_ENCODER_HEADS = 48
VOITA_PRUNED = {"heads_kept": 10, "bleu_drop": 0.15, "source": "voita2019"}
# ... and on OpenSubtitles EN-RU: 4 heads kept for 0.25 BLEU.
# Their role definitions and findings, as printed (percentages):
VOITA_ROLES = {
    "positional_pct": 90,  # a positional head's max weight sits at one fixed offset >= 90% of the time
    "rarest_pct": 66,  # the rare-words head points at the rarest token (OpenSubtitles)
    "two_rarest_pct": 83,  # ... at one of the two rarest tokens
    "all_roles_heads": 17,  # a pruned model this small still has every role
    "confident_pct": 80,  # a few heads put more than this on one token (confidence, the importance measure)
    "source": "voita2019",
}
VOITA_PRUNED_SUBTITLES = {"heads_kept": 4, "bleu_drop": 0.25, "source": "voita2019"}

# Ainslie et al. 2023 (paper copy): T5-XXL uptrained to share keys and values; inference time
# (seconds) and average score, for plain multi-head attention, multi-query attention (one key/value
# head) and grouped-query attention with 8 key/value heads (GQA-8).
GQA_T5_XXL = {
    "mha_time_s": 1.51, "mha_score": 47.2,
    "mqa_time_s": 0.24, "mqa_score": 46.6,
    "gqa8_time_s": 0.28, "gqa8_score": 47.1, "gqa8_kv_heads": 8,
    "source": "ainslie2023",
}


# ---- page 8: attention as today's models run it -----------------------------------------------

class LatentModel(NamedTuple):
    """A published multi-head latent attention (MLA) configuration, named as in latent.py; the
    config.json names are in the comments."""

    name: str
    d_model: int  # dim
    layers: int  # n_layers
    heads: int  # n_heads
    d_c: int  # kv_lora_rank: the latent's width, what the cache keeps for keys and values
    d_rope: int  # qk_rope_head_dim: the rotary key, shared by the heads, cached beside the latent
    d_nope: int  # qk_nope_head_dim: each head's query and key width without position
    d_v: int  # v_head_dim
    q_lora_rank: int  # the queries' own latent width (latent.py leaves it out)
    source: str  # a key of REFERENCES


# DeepSeek-V2's report (deepseek-ai/DeepSeek-V2, deepseek-v2-tech-report.pdf, section 3.1.2): 60 layers,
# hidden dimension 5120, n_h = 128 heads of d_h = 128, d_c = 512, d'_c = 1536, d_h^R = 64; its Table 1:
# MLA caches (d_c + d_h^R) l elements a token, "equal to GQA with only 2.25 groups".
DEEPSEEK_V2 = LatentModel("DeepSeek-V2", 5120, 60, 128, 512, 64, 128, 128, 1536, "deepseek2024")

# deepseek-ai/DeepSeek-V3, inference/configs/config_671B.json (read at commit 9b4e978): n_layers 61,
# n_heads 128, dim 7168, kv_lora_rank 512, qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128,
# q_lora_rank 1536. Its inference/model.py (attn_impl "absorb") caches kv_cache [.., kv_lora_rank] and
# pe_cache [.., qk_rope_head_dim] per token, in the default dtype bfloat16.
DEEPSEEK_V3 = LatentModel("DeepSeek-V3", 7168, 61, 128, 512, 64, 128, 128, 1536, "deepseek2024v3")

# Mistral 7B's params.json (n_layers 32, dim 4096, n_heads 32, head_dim 128, n_kv_heads 8,
# sliding_window 4096), read in mlx-community/mistral-7B-v0.1 and in configs derived from
# mistralai/Mistral-7B-v0.1 (num_hidden_layers 32, num_key_value_heads 8, sliding_window 4096).
# The paper: query i attends to positions i - W .. i of the layer below, so after the last layer
# "a theoretical attention span of approximately 131K tokens" (W x layers = 4096 x 32); Mistral's
# first reference code (mistralai/mistral-src, initial commit) builds that band, W + 1 keys wide.
# Its context is left out: the paper's 8192 and the config's 32768 differ.
MISTRAL_7B = Model("Mistral 7B", 4096, "32", 32, 128, None, "jiang2023", kv_heads=8)
MISTRAL_7B_WINDOW = 4096  # W: windows.sliding_window_mask counts W keys with the query, Mistral W + 1

# Falcon-7B, multi-query attention ("multi_query": true: one key/value head for its 71 query heads):
# hidden_size 4544, n_head 71 (d_head 64), n_layer 32, read in copies of tiiuae/falcon-7b's config.json.
FALCON_7B = Model("Falcon-7B", 4544, "32", 71, 64, None, "falcon2023", kv_heads=1)

# RoPE's base: 10000 in RoFormer (theta_i = 10000^(-2(i-1)/d)); Llama 3's rope_theta 500000
# (meta-llama/llama3, llama/model.py, ModelArgs; also each Llama 3 config.json).
ROPE_BASES = {"roformer": 10000.0, "source": "su2021"}
LLAMA3_ROPE_BASE = {"llama3": 500000.0, "source": "meta2024"}

# StreamingLLM keeps the first 4 tokens as attention sinks (mit-han-lab/streaming-llm,
# examples/run_streaming_llama.py: --start_size default 4, beside --recent_size 2000).
STREAMING_SINKS = {"sinks": 4, "source": "xiao2023"}
