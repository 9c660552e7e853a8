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
        # page 8 (attention-today), rotary positions and windows
        Reference("su2021", "Su, Lu, Pan, Murtadha, Wen, Liu",
                  "RoFormer: Enhanced Transformer with Rotary Position Embedding", "arXiv preprint", 2021,
                  "2104.09864"),
        Reference("jiang2023", "Jiang, Sablayrolles, Mensch, Bamford, Chaplot, et al.", "Mistral 7B",
                  "arXiv preprint", 2023, "2310.06825"),
        Reference("xiao2023", "Xiao, Tian, Chen, Han, Lewis",
                  "Efficient Streaming Language Models with Attention Sinks", "ICLR", 2024, "2309.17453"),
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


# Page 8 (attention-today), #rotary and #windows: published settings, each read in its source.
# RoPE's base: RoFormer's theta_i = 10000^(-2(i-1)/d) (paper, section 3.2.2); Llama 3's rope_theta,
# 500000 (meta-llama/llama3: llama/model.py, ModelArgs.rope_theta, and each model's params.json).
ROPE_BASES = {"RoFormer": 10000.0, "Llama 3": 500000.0}
ROPE_BASE_SOURCES = {"RoFormer": "su2021", "Llama 3": "meta2024"}
# Mistral 7B (paper, section 2 and Table 1): a sliding window of 4096 over 32 layers, "a theoretical
# attention span of approximately 131K tokens" (W x layers: its window reaches W back, i - W .. i).
MISTRAL_7B_WINDOW = {"window": 4096, "layers": 32, "span_thousands": 131, "source": "jiang2023"}
# StreamingLLM (paper, section 4): "four initial tokens as attention sinks" by default.
STREAMING_SINKS = {"sinks": 4, "source": "xiao2023"}
