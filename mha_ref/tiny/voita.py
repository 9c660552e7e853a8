"""Any model's heads measured strictly as Voita et al. (2019, arXiv:1905.09418) measure heads.

Model-independent: it reads sentences (token ids ending with the end symbol, words, dependency
arcs), each sentence's weights [L, h, n, n] (queries down, keys across, rows sum to 1) and the
training corpus's token counts, and measures every head into one roles.HeadMeasures. What each
rule follows (the paper read in page-cited notes that quote it; /work/shared/FACTS.md marks the
syntactic margin as secondary for the same reason):

- "top key" (§5.2.1: "its maximum attention weight (excluding EOS)"): for each query, the key it
  weights most among the keys that are not the end symbol; the first such key on an exact tie.
  The end symbol is never a query either (§4, footnote 2: EOS "is not a real token").
- confidence (§4): "the average of its maximum attention weight excluding the end of sentence
  symbol, where average is taken over tokens": the largest weight on a key that is not the end
  symbol (not renormalised), averaged over every query that is not the end symbol.
- positional (§5.1): "at least 90% of the time its maximum attention weight is assigned to a
  specific relative position": the top key's offset counted over the same queries; the offset
  named is the most frequent one, on a tie the one nearest the query, then the one before it
  (roles.most_common_offset). The verdict reads the count alone, so the tie rule never changes it
  (at a 90% bar two offsets cannot both reach it).
- syntactic (§5.2.1): per relation and per direction ("the relation is allowed to hold in either
  direction"; "accuracy ... on a specific dependency relation in a specific direction"), the share
  of arcs whose query end puts its top key on the other end, against "the baseline that looks at
  the most frequent relative position for this dependency relation", counted on the same arcs and
  direction; syntactic when "its accuracy is at least 10% higher" than that baseline, read as 10
  percentage points (Table 1 prints both in percent: nsubj 45 against 35 in WMT is called
  syntactic), compared in whole numbers of arcs so that no rounding decides a verdict.
- coreference arcs ("coref", pronoun -> antecedent) are counted the same way but kept apart
  (HeadMeasures.coreference): the paper measures dependency relations only, so a coreference
  score is reported, never a syntactic verdict.
- rare (§5.3): "among sentences where the least frequent token in a sentence is not in the
  top-500 most frequent tokens, this head points to the rarest token in 66% of cases". The cases
  are sentences, and the paper names no query; we take where the head points in a sentence to be
  the key it weights most summed over all its queries (the darkest column of the paper's Figure 5),
  the end symbol left out as query and key. A hit when that key's token is as rare as the
  sentence's rarest (a tie counts). The top 500 of a 32,000-token vocabulary cannot carry over to a
  few dozen words; the cut is a parameter, top_k, and frequent_top_k gives ours (not the paper's):
  the fewest most frequent tokens that make up half of the corpus's running tokens. The paper
  defines no bar for the role: a head takes it here when its share reaches the share the paper's
  rare-words head reached (roles.ROLE_BARS["rare"], marked "reported").
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .. import roles

DIRECTIONS = ("dep->head", "head->dep")
COREF = "coref"  # the relation name of a coreference arc: reported apart, never syntactic
SYNTACTIC_MARGIN_PCT = 10  # percentage points above the fixed-offset baseline (§5.2.1)


def relation_key(relation: str, direction: str) -> str:
    """The key of one relation in one direction in HeadMeasures.relation_hits: 'nsubj:head->dep'."""
    if direction not in DIRECTIONS:
        raise ValueError(f"unknown direction {direction!r}: one of {DIRECTIONS}")
    return f"{relation}:{direction}"


def real(tokens, eos: int) -> np.ndarray:
    """[n] ids -> [n] True where the token is not the end symbol."""
    return np.asarray(tokens) != eos


def top_keys(weights, keep) -> np.ndarray:
    """[n, n], [n] bool -> [n] the key each query weights most among the kept keys (the first on a tie)."""
    w = np.where(np.asarray(keep, dtype=bool)[None, :], np.asarray(weights, dtype=float), -np.inf)
    return w.argmax(axis=-1)


def largest_weights(weights, keep) -> np.ndarray:
    """[n, n], [n] bool -> [n] each query's largest weight on a kept key (not renormalised)."""
    return np.where(np.asarray(keep, dtype=bool)[None, :], np.asarray(weights, dtype=float), -np.inf).max(axis=-1)


def pointed_key(weights, keep) -> int:
    """[n, n], [n] bool -> the kept key the kept queries weight most in all (the first on a tie)."""
    keep = np.asarray(keep, dtype=bool)
    column = np.asarray(weights, dtype=float)[keep].sum(axis=0)
    return int(np.where(keep, column, -np.inf).argmax())


def frequent_top_k(counts, eos: int, coverage: float = 0.5) -> int:
    """Our stand-in for the paper's 500: the fewest most frequent tokens (end symbol left out) that
    together make up at least `coverage` of the corpus's running tokens."""
    c = np.delete(np.asarray(counts), eos)
    running = np.cumsum(np.sort(c)[::-1])
    return int(np.searchsorted(running, coverage * running[-1]) + 1)


def frequent_ids(counts, top_k: int, eos: int) -> set[int]:
    """The top_k token ids by corpus count, the end symbol left out; among equal counts the smaller
    id ranks first."""
    c = np.asarray(counts)
    return set(sorted((t for t in range(len(c)) if t != eos), key=lambda t: (-c[t], t))[:top_k])


def rare_condition(ids, counts, frequent: set[int]) -> bool:
    """The paper's condition on a sentence: its least frequent token (the smaller id on a tie) is
    not among the frequent ones."""
    return min(ids, key=lambda t: (counts[t], t)) not in frequent


def _arcs(sentence, keep) -> Iterable[tuple[str, int, int]]:
    """(relation key, query, the other end) for every arc in both directions; arcs without two real
    ends (a root, the end symbol) are left out."""
    for arc in sentence.arcs:
        d, h = arc.dependent, arc.head
        if h < 0 or d == h or not (keep[d] and keep[h]):
            continue
        yield relation_key(arc.relation, "dep->head"), d, h
        yield relation_key(arc.relation, "head->dep"), h, d


def syntactic_on(score: roles.ArcScore) -> bool:
    """The paper's verdict on one relation and direction: accuracy at least 10 points above the
    baseline, in whole numbers of arcs."""
    return 100 * (score.hits - score.offset_hits) >= SYNTACTIC_MARGIN_PCT * score.arcs


class _Tally:
    """One head's counts, summed over sentences."""

    def __init__(self):
        self.queries = 0
        self.confidence = 0.0
        self.offsets: Counter = Counter()
        self.rare_hits = self.rare_of = 0
        self.hits: Counter = Counter()
        self.arcs: Counter = Counter()
        self.arc_offsets: dict[str, Counter] = defaultdict(Counter)

    def add(self, w, keep, arcs, rare_target: float | None, counts, ids):
        queries = np.flatnonzero(keep)
        top = top_keys(w, keep)
        self.queries += len(queries)
        self.confidence += float(largest_weights(w, keep)[queries].sum())
        self.offsets.update(int(top[q] - q) for q in queries)
        for key, q, other in arcs:
            self.arcs[key] += 1
            self.hits[key] += int(top[q] == other)
            self.arc_offsets[key][other - q] += 1
        if rare_target is not None:
            self.rare_of += 1
            self.rare_hits += int(counts[ids[pointed_key(w, keep)]] == rare_target)

    def scores(self, relations) -> dict[str, roles.ArcScore]:
        out = {}
        for key in relations:
            offset = roles.most_common_offset(self.arc_offsets[key])
            out[key] = roles.ArcScore(self.hits[key], self.arcs[key], offset, self.arc_offsets[key][offset])
        return out

    def measures(self, layer: int, head: int) -> roles.HeadMeasures:
        offset, offset_hits, tied = roles.counted_offset(self.offsets)
        keys = sorted(self.arcs)
        relations = self.scores(k for k in keys if not k.startswith(COREF + ":"))
        coref = {k.split(":", 1)[1]: s for k, s in self.scores(k for k in keys if k.startswith(COREF + ":")).items()}
        n = self.queries
        met = {
            "positional": offset_hits / n >= roles.ROLE_BARS["positional"].share,
            "syntactic": any(syntactic_on(s) for s in relations.values()),
            "rare": bool(self.rare_of) and self.rare_hits / self.rare_of >= roles.ROLE_BARS["rare"].share,
        }
        return roles.HeadMeasures(
            n, self.confidence / n, offset, offset_hits, tied, self.rare_hits, relations,
            tuple(r for r in roles.ROLES if met[r]), head, layer, self.rare_of, coref, dict(self.offsets))


def measure_heads(sentences: Sequence, maps: Sequence[np.ndarray], counts, eos: int,
                  top_k: int) -> tuple[roles.HeadMeasures, ...]:
    """Every head measured over every sentence, layer by layer: (L * h) HeadMeasures.

    sentences[i] has .tokens [n] (ending with eos), .arcs (.dependent, .head, .relation);
    maps[i] is [L, h, n, n]; counts [vocab] the training corpus's token counts; top_k the rare
    condition's cut (frequent_top_k for ours)."""
    if len(sentences) != len(maps) or not sentences:
        raise ValueError(f"{len(sentences)} sentences and {len(maps)} maps: need one map per sentence, at least one")
    L, h = np.shape(maps[0])[:2]
    tallies = [[_Tally() for _ in range(h)] for _ in range(L)]
    counts = np.asarray(counts)
    frequent = frequent_ids(counts, top_k, eos)
    for s, m in zip(sentences, maps):
        ids = np.asarray(s.tokens)
        m = np.asarray(m, dtype=float)
        if m.shape != (L, h, len(ids), len(ids)):
            raise ValueError(f"a map of shape {m.shape} for a sentence of {len(ids)} tokens: need {(L, h, len(ids), len(ids))}")
        keep = real(ids, eos)
        arcs = list(_arcs(s, keep))
        words = ids[keep]
        rare_target = counts[words].min() if rare_condition(words, counts, frequent) else None
        for layer in range(L):
            for head in range(h):
                tallies[layer][head].add(m[layer, head], keep, arcs, rare_target, counts, ids)
    return tuple(t.measures(layer, head) for layer, row in enumerate(tallies) for head, t in enumerate(row))


def syntactic_relations(measures: roles.HeadMeasures) -> tuple[str, ...]:
    """The relation keys (relation:direction) on which a head passes the paper's syntactic test."""
    return tuple(k for k, s in measures.relation_hits.items() if isinstance(s, roles.ArcScore) and syntactic_on(s))
