"""What the trained model's heads do, measured on held-out sentences the way Voita et al. measure heads.

Per head, over every query of every held-out sentence: its confidence (the largest weight at a
query, averaged), the relative offset its top key takes most often and the share of queries at it,
the share whose top key is the sentence's rarest word (rarest in the training sentences), and, per
dependency relation, the share of that relation's queries whose top key is the related word:

    antecedent  `it` -> the first clause's noun, which `it` stands for
    nsubj       each verb -> its subject (the noun for the first verb, `it` for the second)

A head takes a role when its numbers reach the bars of roles.ROLE_BARS: positional, the paper's 90%
at one offset; rare, the share the paper's rare-words head reached; syntactic, our bar on one
relation and, so that a head does not pass for syntactic by looking at a fixed offset that often
happens to hold the related word, SYNTAX_MARGIN above the best any fixed offset does on it.

Pruning takes heads away one at a time: each step removes the head whose loss is the smallest when
it is replaced by its mean output (over every held-out token), keeping the heads removed before.
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import NamedTuple

import numpy as np

from . import corpus, model as tinymodel, train
from .. import roles

RELATIONS = ("antecedent", "nsubj")
SYNTAX_MARGIN = 0.10  # a syntactic head beats every fixed offset on its relation by this much


@functools.lru_cache(maxsize=1)
def _held_out() -> tuple[corpus.Sentence, ...]:
    return tuple(train.data(train.CONFIG)[1])


def held_out() -> tuple[corpus.Sentence, ...]:
    """The sentences every measure is taken on: never seen in training."""
    return _held_out()


@functools.lru_cache(maxsize=1)
def frequencies() -> dict[str, int]:
    """How often each word occurs in the training sentences: what "rarest" means."""
    return corpus.frequencies(train.data(train.CONFIG)[0])


def model() -> tinymodel.Model:
    return train.trained().model


@functools.lru_cache(maxsize=1)
def _batch() -> corpus.Batch:
    return corpus.batch(list(held_out()))


def forward(head_outputs=None) -> tinymodel.Forward:
    """The trained model on all held-out sentences, padded to one batch."""
    if head_outputs is None:
        return _forward()
    return tinymodel.forward(model(), _batch(), head_outputs=head_outputs)


@functools.lru_cache(maxsize=1)
def _forward() -> tinymodel.Forward:
    return tinymodel.forward(model(), _batch())


def _weights() -> np.ndarray:
    return _forward().weights


def weights(sentence: int) -> np.ndarray:
    """[h, n, n] every head's weights in held-out sentence `sentence` (queries down, keys across)."""
    n = len(held_out()[sentence].words)
    return _weights()[sentence, :, :n, :n]


@functools.lru_cache(maxsize=1)
def _rarest() -> tuple[int, ...]:
    return tuple(rarest(s) for s in held_out())


def rarest(s: corpus.Sentence) -> int:
    """The position of the sentence's least frequent word (the first on a tie)."""
    return s.words.index(roles.rarest_token(s.words, frequencies()))


def relation_pairs(relation: str) -> list[tuple[int, int, int]]:
    """(sentence, query position, the related word's position) for each query of a relation."""
    if relation not in RELATIONS:
        raise ValueError(f"unknown relation {relation!r}: one of {RELATIONS}")
    out = []
    for i, s in enumerate(held_out()):
        if relation == "antecedent":
            out.append((i, s.pronoun, s.subject))
        else:
            out += [(i, v, s.nsubj(v)) for v in s.verbs]
    return out


def best_fixed_offset(relation: str) -> tuple[int, float]:
    """(offset, share): the relative offset that most often holds the related word, and how often.
    What a head that always looks at one offset would score on the relation."""
    counts = Counter(target - query for _, query, target in relation_pairs(relation))
    offset = roles.most_common_offset(counts)
    return offset, counts[offset] / sum(counts.values())


@functools.lru_cache(maxsize=1)
def _top_keys() -> list[np.ndarray]:
    """Per sentence, [h, n] the key each head's query weights most."""
    return [weights(i).argmax(axis=-1) for i in range(len(held_out()))]


def syntactic_bar(relation: str) -> float:
    """The share of a relation's queries a syntactic head must reach: the role's bar
    (roles.ROLE_BARS), and SYNTAX_MARGIN more than the best fixed offset scores on the relation."""
    return max(roles.ROLE_BARS["syntactic"].share, best_fixed_offset(relation)[1] + SYNTAX_MARGIN)


def syntactic(relation_share: dict) -> bool:
    """Syntactic on some relation: its share of that relation's queries reaches syntactic_bar."""
    return any(share >= syntactic_bar(r) for r, share in relation_share.items())


@functools.lru_cache(maxsize=1)
def heads() -> tuple[roles.HeadMeasures, ...]:
    """Every head of the trained model, measured over all held-out queries."""
    tops = _top_keys()
    out = []
    for h in range(model().h):
        # every query but the sentence-start symbol, which the paper's end-of-sentence symbol stands for
        conf = np.concatenate([weights(i)[h, 1:].max(axis=-1) for i in range(len(tops))])
        offset, offset_hits, tied = roles.counted_offset(
            Counter(int(o) for t in tops for o in (t[h] - np.arange(len(t[h])))[1:]))
        n = len(conf)
        rare = sum(int(np.sum(t[h][1:] == r)) for t, r in zip(tops, _rarest()))
        rel = {r: (sum(int(tops[i][h][q] == k) for i, q, k in pairs), len(pairs))
               for r in RELATIONS for pairs in [relation_pairs(r)]}
        shares = {"positional": offset_hits / n, "rare": rare / n}
        met = tuple(r for r in roles.ROLES if (syntactic({r: k / m for r, (k, m) in rel.items()}) if r == "syntactic"
                                                else shares[r] >= roles.ROLE_BARS[r].share))
        out.append(roles.HeadMeasures(n, float(conf.mean()), offset, offset_hits, tied, rare, rel, met, h))
    return tuple(out)


class PruneStep(NamedTuple):
    kept: tuple[int, ...]  # the heads still working
    removed: int | None  # the head this step took away (None: the full model)
    loss: float  # the three questions' cross-entropies, summed, on the held-out sentences
    accuracy: dict  # question -> share of its answers right


def _evaluate(replaced: tuple[int, ...], means: np.ndarray) -> tuple[float, dict]:
    b = _batch()
    outs = forward().heads.copy()
    for h in replaced:
        outs[:, h] = means[h]
    g = tinymodel.forward(model(), b, head_outputs=outs)
    loss = sum(tinymodel.cross_entropy(l, a)[0] for l, a in zip(g.logits, b.answers))
    return float(loss), {q: tinymodel.accuracy(l, a) for q, l, a in zip(corpus.QUESTIONS, g.logits, b.answers)}


@functools.lru_cache(maxsize=1)
def mean_outputs() -> np.ndarray:
    """[h, d_k] each head's output averaged over every real token of the held-out sentences."""
    f = forward()
    real = _batch().tokens != corpus.INDEX[corpus.PAD]  # [batch, n]
    return np.stack([f.heads[:, h][real].mean(axis=0) for h in range(model().h)])


@functools.lru_cache(maxsize=1)
def pruning() -> tuple[PruneStep, ...]:
    """The full model, then one head fewer at each step, the cheapest to lose first."""
    means = mean_outputs()
    removed: tuple[int, ...] = ()
    loss, acc = _evaluate(removed, means)
    steps = [PruneStep(tuple(range(model().h)), None, loss, acc)]
    while len(removed) < model().h:
        left = [h for h in range(model().h) if h not in removed]
        trials = {h: _evaluate(removed + (h,), means) for h in left}
        cheapest = min(left, key=lambda h: (trials[h][0], h))
        removed += (cheapest,)
        steps.append(PruneStep(tuple(h for h in left if h != cheapest), cheapest, *trials[cheapest]))
    return tuple(steps)


# The hand-built head of the running example (toy.HEADS) that plays each role.
ROLE_PARTNER = {"positional": "position", "syntactic": "syntax", "rare": "rare"}


def partner(head: roles.HeadMeasures) -> str:
    """The running example's head to set beside a trained one: the one built for the first role
    the trained head meets; for a head that meets none, the position head when its top key sits
    one step away for most queries, else the diffuse head."""
    if head.roles:
        return ROLE_PARTNER[head.roles[0]]
    return "position" if abs(head.offset) == 1 and head.offset_share >= 0.5 else "diffuse"


def with_role(role: str) -> tuple[int, ...]:
    """The heads that meet a role."""
    if role not in roles.ROLES:
        raise ValueError(f"unknown role {role!r}: one of {roles.ROLES}")
    return tuple(h.head for h in heads() if role in h.roles)


def roles_emerged() -> tuple[str, ...]:
    """The roles at least one head meets, in the order of roles.ROLES."""
    return tuple(r for r in roles.ROLES if with_role(r))


def tokens(sentence: int) -> tuple[str, ...]:
    return held_out()[sentence].words


def neighbour_head(offset: int) -> roles.HeadMeasures:
    """The head whose usual offset is `offset` (-1: the word before, +1: the word after) and that
    sits there most often."""
    found = [h for h in heads() if h.offset == offset]
    if not found:
        raise ValueError(f"no trained head looks at offset {offset:+d} most often")
    return max(found, key=lambda h: h.offset_share)


def share_at_first_word(head: int, offset: int) -> float:
    """The share of held-out sentences whose first word (after the start symbol) puts this head's
    top key at `offset`."""
    return float(np.mean([weights(i)[head, 1].argmax() == 1 + offset for i in range(len(held_out()))]))


def share_past_first_word(head: int, offset: int) -> float:
    """The share of queries after the first word whose top key sits at `offset`."""
    hits = total = 0
    for i in range(len(held_out())):
        top = weights(i)[head, 2:].argmax(axis=-1) - np.arange(2, len(held_out()[i].words))
        hits += int(np.sum(top == offset))
        total += len(top)
    return hits / total


def subject_share(head: int) -> float:
    """The share of queries (start symbol left out) whose top key is the sentence's subject noun."""
    hits = total = 0
    for i, s in enumerate(held_out()):
        top = weights(i)[head, 1:].argmax(axis=-1)
        hits += int(np.sum(top == s.subject))
        total += len(top)
    return hits / total
