"""Drawing helpers shared by the figures: each takes an Axes and returns what it drew."""

from __future__ import annotations

import re
import textwrap

import numpy as np

from mha_ref.example import toy

from .style import HEAD_COLOURS, INK, MUTED, QUERY_BOX, new_figure
from .words import pick


def wrapped(text: str, chars: int) -> str:
    """text broken at its spaces into lines of at most `chars` characters where it can be, never
    inside $...$ math (a word longer than that stays whole); Chinese, with no spaces, stays whole."""
    keep = "\0"  # a space inside math, not a place to break
    inside = re.sub(r"\$[^$]*\$", lambda m: m[0].replace(" ", keep), text)
    return textwrap.fill(inside, chars, break_long_words=False, break_on_hyphens=False).replace(keep, " ")


def weight_bars(ax, weights, colour: str, *, title: str = "", peak_label: bool = True):
    """One row of attention weights over the six tokens, as bars; the peak's value above it."""
    weights = np.asarray(weights)
    x = np.arange(len(weights))
    bars = ax.bar(x, weights, color=colour, width=0.7, zorder=2)
    ax.set_ylim(0, 1.12)
    ax.set_xticks(x, toy.TOKENS)
    ax.set_yticks([0, 0.5, 1])
    ax.grid(axis="y", color="#e6e6e6", lw=0.8, zorder=0)
    if peak_label:
        top = int(weights.argmax())
        ax.text(top, weights[top] + 0.02, f"{weights[top]:.2f}", ha="center", va="bottom",
                fontsize=9, color=INK)
    if title:
        ax.set_title(title, loc="left", fontsize=10, color=colour)
    return bars


def mark_query(ax, query: int):
    """A shaded column and a box round the query token's label, so the reader sees who is asking.

    A box, not bold: the CJK face ships in one weight only (see kit/style.py, setup)."""
    labels = ax.get_xticklabels()  # empty on the upper axes of a shared-x stack
    if query < len(labels):
        labels[query].set_bbox(QUERY_BOX)
        labels[query].set_color(INK)
    return ax.axvspan(query - 0.45, query + 0.45, color=MUTED, alpha=0.08, zorder=0)


def head_rows(lang: str, query: int, rows, *, height: float = 3.6, reference=None):
    """A figure with one weight row per head for `query`, stacked over a shared token axis.

    rows: (head, title_zh, title_en) per row. reference: (value, text) for a dashed line drawn
    across every row, with its text on the first.
    """
    w = toy.trace().weights
    fig, axes = new_figure(height, nrows=len(rows), sharex=True)
    for ax, (head, zh, en) in zip(axes, rows):
        weight_bars(ax, w[toy.head_index(head)][query], HEAD_COLOURS[head], title=pick(lang, zh, en),
                    peak_label=head != "diffuse")
        mark_query(ax, query)
        if reference is not None:
            ax.axhline(reference[0], color=MUTED, lw=1, ls="--")
    if reference is not None:
        axes[0].text(-0.45, reference[0] + 0.04, reference[1], ha="left", va="bottom", fontsize=8.5,
                     color=MUTED, bbox={"facecolor": "white", "edgecolor": "none", "pad": 1}, zorder=4)
    if len(rows) <= 2:
        for ax in axes:
            ax.set_ylabel(pick(lang, "权重", "weight"))
    axes[-1].set_xlabel(pick(lang, f"键（查询 = {toy.TOKENS[query]}）", f"keys (query = {toy.TOKENS[query]})"))
    return fig
