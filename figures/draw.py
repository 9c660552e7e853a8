"""Drawing helpers shared by the figures: each takes an Axes and returns what it drew."""

from __future__ import annotations

import numpy as np

from mha_ref import toy

from .style import INK, MUTED


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
                fontsize=9, color=INK, fontweight="bold")
    if title:
        ax.set_title(title, loc="left", fontsize=10, color=colour)
    return bars


def mark_query(ax, query: int):
    """A marker under the query token's label, so the reader sees who is asking."""
    labels = ax.get_xticklabels()  # empty on the upper axes of a shared-x stack
    if query < len(labels):
        labels[query].set_fontweight("bold")
        labels[query].set_color(INK)
    return ax.axvspan(query - 0.45, query + 0.45, color=MUTED, alpha=0.08, zorder=0)
