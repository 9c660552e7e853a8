"""Bound words next to printed numbers: "at most 0.18" must hold for the unrounded value.

A page prints `{{ value NAME .2f }}` rounded to the nearest; next to a bound word that can turn
a true sentence false ("at most 0.17" where the value is 0.1738). So a rounded number next to a
bound word must be rounded towards the safe side, `{{ value NAME .2f up }}` after "at most",
`{{ value NAME .2f down }}` after "at least", and a direction word anywhere else is refused (a
plain statement of a value rounds to the nearest). `problem` is the one rule; the build applies
it to every page and caption it expands, and the tests to every page and caption there is.

A number printed exactly (a count, or a threshold quoted from the published source (mha_ref/models.py) such as Voita et al.'s
"at least 90% of the time") has nothing rounded: the bound word then qualifies the world, not our
number, and the rule lets it be.

The two ends of a range ("from 0.32 to 0.61", "在 0.32 到 0.61 之间") may carry either direction
and need none: whether inward or outward rounding is safe depends on the claim ("for every ratio in
it" wants inward, "the value lies in it" outward, "falls from 0.95 to 0.52" the nearest), which only
the writer can say.

A negation a few words before the bound word (before the number, for a word after it: "不在 0.9
以上") turns it around: "never drops below 1.79" and "is not
below 1.79" say "at least 1.79" (round down), "is never more than", "没有超过" say "at most"
(round up). A bound word may stand a few words before its number ("至少有 0.90", "at least a
weight of 0.90"), except the everyday prepositions (over, under, above, below, up to) and the
symbols, which bound only the number right after them ("the sum over the keys is 1.00" has none).
"""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

# word -> (the direction that keeps it true, strict?). "up": the value is at most the printed
# number, so round up; "down": the value is at least the printed number, so round down.
BEFORE = {
    # upper bounds
    "at most": ("up", False), "no more than": ("up", False), "not more than": ("up", False),
    "no higher than": ("up", False), "no greater than": ("up", False), "no larger than": ("up", False),
    "up to": ("up", False), "under": ("up", True), "below": ("up", True), "less than": ("up", True),
    "fewer than": ("up", True), "lower than": ("up", True), "smaller than": ("up", True),
    "≤": ("up", False), r"\le": ("up", False), r"\leq": ("up", False), "<": ("up", True), r"\lt": ("up", True),
    "不超过": ("up", False), "不高于": ("up", False), "不大于": ("up", False), "不多于": ("up", False),
    "最多": ("up", False), "至多": ("up", False),
    "不到": ("up", True), "不足": ("up", True), "低于": ("up", True), "小于": ("up", True), "少于": ("up", True),
    # lower bounds
    "at least": ("down", False), "no less than": ("down", False), "not less than": ("down", False),
    "no fewer than": ("down", False), "no lower than": ("down", False), "no smaller than": ("down", False),
    "above": ("down", True), "over": ("down", True), "more than": ("down", True), "greater than": ("down", True),
    "higher than": ("down", True), "larger than": ("down", True), "exceeds": ("down", True), "exceed": ("down", True),
    "≥": ("down", False), r"\ge": ("down", False), r"\geq": ("down", False), ">": ("down", True), r"\gt": ("down", True),
    "不低于": ("down", False), "不少于": ("down", False), "不小于": ("down", False), "至少": ("down", False),
    "最少": ("down", False),
    "超过": ("down", True), "高于": ("down", True), "大于": ("down", True), "多于": ("down", True),
}
AFTER = {  # words that follow the number: "0.9 以上", "90% or more"
    "以上": ("down", False), "或以上": ("down", False), "or more": ("down", False), "or above": ("down", False),
    "or higher": ("down", False), "and above": ("down", False),
    "以下": ("up", False), "或以下": ("up", False), "以内": ("up", False), "or less": ("up", False),
    "or fewer": ("up", False), "or below": ("up", False), "or lower": ("up", False), "and below": ("up", False),
}


def _alternatives(words) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# Between the word and the number spaces, emphasis and math delimiters, and for the words that
# are never anything but a bound up to three words (an English word or a Chinese character each):
# no punctuation, digit or other value. After the number a unit. Not after a letter or digit, so
# that "thunder" is no "under" and the ">" of "<br>" no bound.
ADJACENT_ONLY = {"over", "under", "above", "below", "up to", "≤", r"\le", r"\leq", "<", r"\lt",
                 "≥", r"\ge", r"\geq", ">", r"\gt"}
_WORD = r"[\s*_]*(?:[A-Za-z]+(?:['’][a-z]+)?|[\u4e00-\u9fff])"  # one word of a gap
_BEFORE = re.compile(rf"(?<![A-Za-z0-9])(?P<word>{_alternatives(BEFORE)})[\s*_$（(]*$")
_BEFORE_GAP = re.compile(rf"(?<![A-Za-z0-9])(?P<word>{_alternatives(set(BEFORE) - ADJACENT_ONLY)})"
                         rf"(?:{_WORD}){{1,3}}[\s*_$（(]*$")
# A negation up to two words before the bound word: "never drops below", "is not below", "没有超过".
# Not "not only", nor the 不 of 不断 (keeps), 不同 (different), 不仅 (not only), 差不多 (about) and the like.
_NEGATION = re.compile(r"(?:(?<![A-Za-z])(?:not(?!\s+(?:only|just|merely)\b)|never|no|nor|cannot|without"
                       r"|[A-Za-z]+n['’]t)(?![A-Za-z])|没有?|未(?!来|必)|(?<!差)不(?![断同仅只但少久过论管多])|并非|绝非|无(?!论))"
                       rf"(?:{_WORD}){{0,2}}[\s*_]*$")
_AFTER = re.compile(rf"^[\s*_$]*(?:%|个百分点|个|次|倍)?[\s*_$）)]*(?P<word>{_alternatives(AFTER)})(?![A-Za-z])")
# A range: the value after "from"/"between", or the one joined to another value by to/and/到/至/–.
_JOIN = r"(?:to|through|到|至|–|—|~|～)"
_VALUE_END = r"\{\{\s*value[^}]*\}\}[\s*_$%个]{0,6}"
_RANGE_BEFORE = re.compile(rf"(?:(?<![A-Za-z])(?:from|between)|{_VALUE_END}(?<![A-Za-z]){_JOIN}"
                           rf"|between[\s*_$]*{_VALUE_END}and)[\s*_$]*$")
_RANGE_AFTER = re.compile(rf"^[\s*_$%个]{{0,6}}{_JOIN}[\s*_$]*\{{\{{\s*value")
_SPEC = re.compile(r"^(?:.?[<>=^])?[+\- ]?z?#?0?\d*[,_]?(?:\.(?P<precision>\d+))?(?P<type>[bcdeEfFgGnosxX%])?$")


def _negated(safe: str, strict: bool) -> tuple[str, bool]:
    """The bound a negation makes of one: not(v < x) is v >= x; not(v <= x) is v > x."""
    return ("down" if safe == "up" else "up"), not strict


def bound_word(before: str, after: str) -> tuple[str, str, bool] | None:
    """The bound word right before (or after) a number: (word, safe direction, strict?).

    The safe direction is "up", "down", or "either" for an end of a range.
    """
    before = before[-120:]
    if m := _BEFORE.search(before) or _BEFORE_GAP.search(before):
        safe, strict = BEFORE[m["word"]]
        if n := _NEGATION.search(before[:m.start()]):
            return (" ".join(before[n.start():m.end("word")].split()), *_negated(safe, strict))
        return (m["word"], safe, strict)
    if m := _AFTER.search(after[:40]):
        safe, strict = AFTER[m["word"]]
        if n := _NEGATION.search(before.rstrip("$（(")):  # "不在 0.9 以上", "no head gives 0.9 or more"
            return (" ".join(before[n.start():].split()) + " … " + m["word"], *_negated(safe, strict))
        return (m["word"], safe, strict)
    if _RANGE_BEFORE.search(before[-120:]) or _RANGE_AFTER.search(after[:40]):
        return ("range", "either", False)
    return None


def unrounded(v: float | int) -> Decimal:
    """The number v stands for, as a decimal: its shortest repr, so 0.15 quoted from the published source (mha_ref/models.py) stays
    0.15 (not the binary 0.1499...), and a computed 0.8971584130135072 keeps every digit."""
    return Decimal(repr(v))


def rounded(v: float | int, spec: str, direction: str) -> Decimal | int:
    """v rounded up (ceiling) or down (floor) at the precision `spec` prints, in decimal arithmetic.

    A `%` spec prints 100·v, so it keeps two more decimals. An int needs no rounding.
    """
    if isinstance(v, int):
        return v
    m = _SPEC.match(spec)
    if not m or m["type"] not in ("f", "F", "%"):
        raise ValueError(f"rounding {direction} needs a fixed-point spec (.2f, .1%, ,.0f), not {spec!r}")
    places = int(m["precision"] or 6) + (2 if m["type"] == "%" else 0)
    q = unrounded(v).quantize(Decimal(1).scaleb(-places), rounding=ROUND_CEILING if direction == "up" else ROUND_FLOOR)
    return q.copy_abs() if q == 0 else q  # no "-0.00"


def printed_value(text: str) -> Decimal:
    """The number a reader reads in a printed value: "1,024" -> 1024, "17.4%" -> 0.174."""
    plain = text.replace(",", "").replace("_", "").strip()
    return Decimal(plain[:-1]) / 100 if plain.endswith("%") else Decimal(plain)


def problem(bound: tuple[str, str, bool] | None, name: str, value: float | int, printed: str,
            direction: str | None, where: str, spec: str = ".2f") -> str | None:
    """None if the printed number may stand where it is; otherwise what is wrong, and the fix.

    bound: `bound_word` next to the number (None: there is none); value: the unrounded number;
    printed: what the page prints (with the format `spec`); direction: the construct's rounding
    word (up, down or None).
    """
    exact = printed_value(printed) == unrounded(value)
    if bound is None:
        if direction is not None and not exact:
            return (f"{where}: {{{{ value {name} … {direction} }}}} prints {printed} for {value!r} with no bound "
                    "word next to it; a plain statement rounds to the nearest, so drop the direction word")
        return None
    word, safe, strict = bound
    if exact or safe == "either":
        return None  # nothing rounded (a count, a quoted threshold), or a range: the writer's call
    true_value, shown = unrounded(value), printed_value(printed)
    holds = (true_value < shown if strict else true_value <= shown) if safe == "up" else \
        (true_value > shown if strict else true_value >= shown)
    if direction == safe and holds:
        return None
    return (f"{where}: “{word}” {printed} is a bound, but {name} is {value!r} unrounded"
            + ("" if holds else ", so the sentence is false")
            + f"; write {{{{ value {name} {spec} {safe} }}}} to round it {safe}")
