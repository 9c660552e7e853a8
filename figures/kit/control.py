"""What a figure's control is: its frames, the frame the page opens on, and their labels."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .words import pick


@dataclass(frozen=True)
class Control:
    """The stepped values of the source's widget. One pre-rendered frame per value."""

    label_zh: str
    label_en: str
    values: Sequence[Any]
    start: Any  # the value the page opens on: the one the text talks about
    slug: Callable[[Any], str]  # file-name part: stable, ASCII
    value_label: Callable[[Any, str], str]  # what the slider shows for a value, in a language

    def __post_init__(self):
        if self.start not in self.values:
            raise ValueError(f"control start {self.start!r} is not one of its values {list(self.values)}")
        slugs = [self.slug(v) for v in self.values]
        if len(set(slugs)) != len(slugs):
            raise ValueError(f"control values give clashing file names: {slugs}")

    def label(self, lang: str) -> str:
        return pick(lang, self.label_zh, self.label_en)


def query_control(start: str = "it") -> Control:
    """The query-token slider of the running example, opening on `start`."""
    from mha_ref.example import toy

    return Control(
        label_zh="查询 token", label_en="query token", values=tuple(range(toy.N)),
        start=toy.token_index(start), slug=lambda i: f"q{i}-{toy.TOKENS[i]}",
        value_label=lambda i, lang: f"{i} · {toy.TOKENS[i]}",
    )


def divisors(n: int, *, at_most: int | None = None) -> tuple[int, ...]:
    """The head counts h that cut a width n evenly."""
    return tuple(h for h in range(1, n + 1) if n % h == 0 and (at_most is None or h <= at_most))


def heads_control(values, start: int) -> Control:
    """The head-count slider: frames h1, h2, ... whatever the width."""
    return Control(
        label_zh="头数 h", label_en="number of heads h", values=tuple(values), start=start,
        slug=lambda h: f"h{h}", value_label=lambda h, lang: f"h = {h}",
    )
