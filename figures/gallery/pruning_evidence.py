"""pruning-evidence: what Voita et al. (2019) measured when they pruned a trained model's heads.

Published numbers only (published, with sources in mha_ref/models.py): on WMT EN-RU, 10 of the 48 encoder heads kept for a loss of
0.15 BLEU; on OpenSubtitles, 4 kept for 0.25 BLEU.
"""

from __future__ import annotations

from mha_ref import models

from ..kit.draw import wrapped
from ..kit.style import HEAD_COLOURS, INK, MUTED, is_narrow, new_figure
from ..kit.words import pick

CONTROL = None
CAPTION_ZH = (
    "Voita 等人（2019）的剪枝结果：在 WMT 英俄翻译上，编码器的 {{ value voita.heads }} 个头只留 "
    "{{ value voita.kept }} 个，BLEU 只掉 {{ value voita.drop .2f }}；在 OpenSubtitles 上只留 "
    "{{ value voita.kept_subs }} 个，掉 {{ value voita.drop_subs .2f }}。"
    "论文发现，专职的头是最后才被剪掉的。数据见[参考文献](references.md#voita2019)。"
)
CAPTION_EN = (
    "Pruning results of Voita et al. (2019): on WMT English-Russian, keeping {{ value voita.kept }} "
    "of the encoder's {{ value voita.heads }} heads costs {{ value voita.drop .2f }} BLEU; on "
    "OpenSubtitles, keeping {{ value voita.kept_subs }} costs {{ value voita.drop_subs .2f }}. The "
    "paper finds the specialised heads are the last to be pruned. Source in the "
    "[references](references.md#voita2019)."
)


def data(lang: str):
    """The two published results drawn (models.VOITA_*): heads kept of the encoder's, and the BLEU lost."""
    return ([pick(lang, "数据集", "data set"), pick(lang, "留下的头", "heads kept"),
             pick(lang, "编码器的头", "encoder heads"), pick(lang, "BLEU 下降", "BLEU lost")],
            [[name, str(r["heads_kept"]), str(models.VOITA_ENCODER_HEADS), f"{r['bleu_drop']:.2f}"]
             for name, r in _results(lang)])


def _results(lang: str):
    """The published results, one bar each: (data set, its record in models)."""
    return ((pick(lang, "WMT 英俄", "WMT EN-RU"), models.VOITA_PRUNED), ("OpenSubtitles", models.VOITA_PRUNED_SUBTITLES))


def draw(lang: str, value=None):
    total = models.VOITA_ENCODER_HEADS
    fig, ax = new_figure(2.6)
    results = _results(lang)
    for row, (label, result) in enumerate(results):
        kept = result["heads_kept"]
        ax.barh(row, total, color="#eeeeee", edgecolor=MUTED, height=0.5)
        ax.barh(row, kept, color=HEAD_COLOURS["position"], height=0.5)
        ax.text(kept + 0.6, row, pick(lang, f"留下 {kept} / {total} 个头，BLEU −{result['bleu_drop']:.2f}",
                                      f"{kept} of {total} heads kept, BLEU −{result['bleu_drop']:.2f}"),
                va="center", fontsize=9, color=INK)
    ax.set_yticks(range(len(results)), [label for label, _ in results])
    ax.invert_yaxis()
    ax.set_xlim(0, total)
    ax.set_xlabel(pick(lang, "编码器自注意力头的个数", "encoder self-attention heads"))
    title = pick(lang, "Voita 等（2019）：剪掉大部分头之后", "Voita et al. (2019): after pruning most heads")
    ax.set_title(wrapped(title, 30) if is_narrow() else title, loc="left", fontsize=10)  # two lines on a phone
    return fig
