"""mha_ref.tiny.voita and mha_ref.tiny.importance on made-up attention maps and gate functions whose
answers are known in advance: every verdict asserted on unrounded values."""

from typing import NamedTuple

import numpy as np
import pytest

from mha_ref import roles
from mha_ref.tiny import importance as imp
from mha_ref.tiny import voita

EOS = 0


class Arc(NamedTuple):  # the shapes the page-4 model hands over, made here from nothing of ours
    dependent: int
    head: int
    relation: str


class Sentence(NamedTuple):
    tokens: np.ndarray
    words: tuple
    arcs: tuple


def sentence(ids, arcs=()) -> Sentence:
    """ids of the words; the end symbol is added last."""
    tokens = np.array(list(ids) + [EOS])
    return Sentence(tokens, tuple(str(t) for t in tokens), tuple(Arc(*a) for a in arcs))


def head_map(n: int, targets, p: float = 0.7) -> np.ndarray:
    """[n, n] weight p + (1 - p)/n on targets[q] for each query q, (1 - p)/n on every other key."""
    w = np.full((n, n), (1 - p) / n)
    w[np.arange(n), targets] += p
    return w


def measure(sentences, heads, counts=None, top_k=1):
    """heads: per sentence, a list of [n, n] maps (one layer). Returns the HeadMeasures."""
    counts = np.ones(50) if counts is None else counts
    maps = [np.stack(hs)[None] for hs in heads]  # [1, h, n, n]
    return voita.measure_heads(sentences, maps, counts, EOS, top_k)


def previous(n):
    """The word before each query (the first word: itself); the end symbol looks at the last word."""
    return [max(q - 1, 0) for q in range(n)]


# --- positional -------------------------------------------------------------------------------------

@pytest.mark.parametrize("words, positional", [(10, True), (9, False)])
def test_previous_word_head_is_positional_from_ten_words(words, positional):
    """Every word but the first looks at the one before: 9 of 10 queries is exactly 90%, the bar;
    8 of 9 is below it."""
    s = sentence(range(1, words + 1))
    (m,) = measure([s], [[head_map(words + 1, previous(words + 1))]])
    assert (m.n, m.offset, m.offset_hits, m.offset_tied) == (words, -1, words - 1, False)
    assert m.offset_hits / m.n == (words - 1) / words
    assert ("positional" in m.roles) is positional


@pytest.mark.parametrize("odd, even, named", [(+1, -1, -1), (-1, +1, -1), (+1, -2, +1), (+2, -2, -2)])
def test_a_head_split_between_two_offsets_is_named_by_the_tie_rule(odd, even, named):
    """Queries 1..8 of a ten-word sentence: odd ones look `odd` away, even ones `even` away; the
    first and last words look at themselves. The two offsets tie at 4 queries each (offset 0 has 2):
    the nearest is named, on equal distance the one before the query. Not positional."""
    s = sentence(range(1, 11))
    targets = [0] + [q + (odd if q % 2 else even) for q in range(1, 9)] + [9, 9]
    (m,) = measure([s], [[head_map(11, targets)]])
    assert (m.offset, m.offset_hits, m.offset_tied, m.n) == (named, 4, True, 10)
    assert m.offset_shares == dict(sorted({0: 0.2, odd: 0.4, even: 0.4}.items()))
    assert "positional" not in m.roles


# --- confidence and the end symbol -----------------------------------------------------------------

def test_confidence_leaves_the_end_symbol_out_as_key_and_as_query():
    """Each word's query puts 0.6 on the end symbol, 0.3 on the word before (the first word: on
    itself) and 0.1 spread over the words; the end symbol's own query puts 1.0 on the first word.
    Voita's confidence, the largest weight on a word averaged over the words, is 0.3 + 0.1 / words."""
    words = 5
    n = words + 1
    w = np.zeros((n, n))
    for q in range(words):
        w[q, :words] = 0.1 / words
        w[q, max(q - 1, 0)] += 0.3
        w[q, words] = 0.6
    w[words, 0] = 1.0
    assert np.allclose(w.sum(axis=1), 1.0)
    (m,) = measure([sentence(range(1, n))], [[w]])
    assert m.confidence == pytest.approx(0.3 + 0.1 / words, abs=1e-12)
    assert m.n == words  # the end symbol's query is not counted
    assert (m.offset, m.offset_hits) == (-1, words - 1)  # its top key is never the end symbol


def test_top_keys_skip_the_end_symbol_and_take_the_first_on_a_tie():
    w = np.array([[0.2, 0.2, 0.6], [0.1, 0.3, 0.6], [0.5, 0.25, 0.25]])
    keep = np.array([True, True, False])
    assert voita.top_keys(w, keep).tolist() == [0, 1, 0]
    assert voita.largest_weights(w, keep).tolist() == [0.2, 0.3, 0.5]


# --- syntactic ---------------------------------------------------------------------------------------

def subject_sentences():
    """Three sentences; the subject sits 1, 2 and 1 words before its verb (nsubj baseline 2/3)."""
    return [
        sentence([3, 4, 5, 6, 7], [(1, 2, "nsubj"), (0, 1, "det"), (4, 2, "dobj"), (3, 4, "det")]),
        sentence([3, 8, 4, 5, 6, 7], [(2, 4, "nsubj"), (1, 2, "amod"), (0, 2, "det"), (5, 4, "dobj"), (4, 5, "det")]),
        sentence([3, 4, 5, 7], [(1, 2, "nsubj"), (0, 1, "det"), (3, 2, "dobj")]),
    ]


SUBJECT = [1, 2, 1]  # each sentence's subject


def test_a_head_on_the_subject_from_every_query_is_syntactic_verb_to_subject_only():
    """Every query looks at the subject. verb -> subject: 3 of 3 against a baseline of 2 of 3
    (+33 points): syntactic. subject -> verb: the subject looks at itself, 0 of 3: not."""
    ss = subject_sentences()
    heads = [[head_map(len(s.tokens), [SUBJECT[i]] * len(s.tokens))] for i, s in enumerate(ss)]
    (m,) = measure(ss, heads)
    v2s, s2v = m.relation_hits["nsubj:head->dep"], m.relation_hits["nsubj:dep->head"]
    assert (v2s.hits, v2s.arcs, v2s.offset, v2s.offset_hits) == (3, 3, -1, 2)
    assert (s2v.hits, s2v.arcs, s2v.offset, s2v.offset_hits) == (0, 3, +1, 2)
    assert voita.syntactic_on(v2s) and not voita.syntactic_on(s2v)
    assert "nsubj:head->dep" in voita.syntactic_relations(m)
    assert "syntactic" in m.roles
    # the subjects' determiners find their noun too (3 of the 5 det arcs), short of det's baseline
    det = m.relation_hits["det:dep->head"]
    assert (det.hits, det.arcs, det.offset, det.offset_hits) == (3, 5, +1, 4)
    assert not voita.syntactic_on(det)


def amod_sentences(before: int, two_before: int):
    """Sentences 'adjective noun' (the adjective right before its noun) `before` times, and
    'adjective x noun' two_before times."""
    out = [sentence([8, 4], [(0, 1, "amod")]) for _ in range(before)]
    out += [sentence([8, 9, 4], [(0, 2, "amod")]) for _ in range(two_before)]
    return out


def adjective_head(s):
    """Every query looks at the sentence's adjective (position 0)."""
    return [head_map(len(s.tokens), [0] * len(s.tokens))]


@pytest.mark.parametrize("before, two_before, syntactic", [
    (19, 1, False),  # accuracy 20/20, baseline 19/20: 5 points above, short of 10
    (9, 1, True),    # 10/10 against 9/10: exactly 10 points (0.1 is not 1.0 - 0.9 in floating point)
    (5, 5, True),    # 10/10 against 5/10
])
def test_a_relation_whose_fixed_offset_already_holds_it_needs_ten_points_more(before, two_before, syntactic):
    """A head that finds every adjective from its noun: syntactic on amod only when that beats
    'the word before' by at least 10 points of the arcs."""
    ss = amod_sentences(before, two_before)
    (m,) = measure(ss, [adjective_head(s) for s in ss])
    score = m.relation_hits["amod:head->dep"]
    arcs = before + two_before
    assert (score.hits, score.arcs, score.offset, score.offset_hits) == (arcs, arcs, -1, max(before, two_before))
    assert score.accuracy == 1.0
    assert voita.syntactic_on(score) is syntactic
    assert ("syntactic" in m.roles) is syntactic


def test_exactly_ten_points_above_the_baseline_is_syntactic():
    """6 of 10 arcs found against a baseline of 5 of 10: 0.6 - 0.5 < 0.1 in floating point, yet the
    paper's 'at least 10% higher' holds."""
    ss = amod_sentences(5, 5)
    heads = [adjective_head(s) if i in (0, 5, 6, 7, 8, 9) else [head_map(len(s.tokens), [len(s.tokens) - 2] * len(s.tokens))]
             for i, s in enumerate(ss)]
    (m,) = measure(ss, heads)
    score = m.relation_hits["amod:head->dep"]
    assert (score.hits, score.offset_hits, score.arcs) == (6, 5, 10)
    assert score.accuracy - score.baseline < 0.1  # the float comparison would say no
    assert voita.syntactic_on(score)


def test_coreference_is_reported_apart_and_never_makes_a_head_syntactic():
    """A head that finds every antecedent from its pronoun (antecedent at varied distances, so far
    above any fixed offset) has a coreference score of 1 and no syntactic verdict."""
    ss = [sentence([4, 5, 6, 7], [(3, 0, "coref")]), sentence([4, 5, 7], [(2, 0, "coref")]),
          sentence([4, 5, 6, 6, 7], [(4, 0, "coref")])]
    (m,) = measure(ss, [adjective_head(s) for s in ss])
    assert set(m.coreference) == set(voita.DIRECTIONS)
    found = m.coreference["dep->head"]
    assert (found.hits, found.arcs, found.offset_hits) == (3, 3, 1)
    assert not any(k.startswith("coref") for k in m.relation_hits)
    assert "syntactic" not in m.roles


# --- rare words -------------------------------------------------------------------------------------

def rare_counts():
    """ids 1..5 are frequent (counts 100..60), 6..9 rare (counts 5..2); the end symbol 1000."""
    counts = np.zeros(10)
    counts[EOS] = 1000
    counts[1:6] = [100, 90, 80, 70, 60]
    counts[6:10] = [5, 4, 3, 2]
    return counts


def test_a_rare_token_head_hits_in_every_sentence_the_condition_keeps():
    """Every query looks at the sentence's rarest word. Sentences whose rarest word is among the
    top 5 are left out (the paper's condition), whatever the head does there."""
    counts = rare_counts()
    ss = [sentence([1, 2, 7, 3]), sentence([6, 1, 9, 2]), sentence([1, 2, 3]), sentence([4, 5, 1])]
    rarest = [2, 2, None, None]
    heads = []
    for s, r in zip(ss, rarest):
        n = len(s.tokens)
        heads.append([head_map(n, [r if r is not None else 0] * n)])
    (m,) = measure(ss, heads, counts, top_k=5)
    assert (m.rare_hits, m.rare_of) == (2, 2)
    assert m.rare_share == 1.0 and "rare" in m.roles


def test_sentences_outside_the_condition_do_not_count_against_the_head():
    """The same head on sentences whose rarest word is frequent, where it looks elsewhere: with the
    condition (top_k 5) its share stays 1; without it (top_k 0) it would fall to a half."""
    counts = rare_counts()
    ss = [sentence([1, 2, 7, 3]), sentence([6, 1, 9, 2]), sentence([1, 2, 3]), sentence([4, 5, 1])]
    heads = [[head_map(len(s.tokens), [t] * len(s.tokens))] for s, t in zip(ss, [2, 2, 1, 0])]
    (m,) = measure(ss, heads, counts, top_k=5)
    assert (m.rare_hits, m.rare_of, "rare" in m.roles) == (2, 2, True)
    (loose,) = measure(ss, heads, counts, top_k=0)
    assert (loose.rare_hits, loose.rare_of, "rare" in loose.roles) == (2, 4, False)


def test_where_a_head_points_is_its_heaviest_column():
    """Most queries lean on the rare word; one query puts all its weight elsewhere. The column
    summed over the queries still points at the rare word."""
    counts = rare_counts()
    s = sentence([1, 2, 7, 3])
    w = head_map(5, [2, 2, 2, 2, 2], p=0.5)
    w[0] = 0.0
    w[0, 1] = 1.0
    assert voita.pointed_key(w, voita.real(s.tokens, EOS)) == 2
    (m,) = measure([s], [[w]], counts, top_k=5)
    assert (m.rare_hits, m.rare_of) == (1, 1)


def test_two_words_tied_for_rarest_are_both_the_rarest():
    """Ids 6 and 7 share the smallest count; a head on either one hits."""
    counts = rare_counts()
    counts[7] = counts[6]
    ss = [sentence([1, 6, 2, 7]), sentence([1, 6, 2, 7])]
    heads = [[head_map(5, [1] * 5)], [head_map(5, [3] * 5)]]
    (m,) = measure(ss, heads, counts, top_k=5)
    assert (m.rare_hits, m.rare_of) == (2, 2)


def test_a_sentence_with_no_condition_met_gives_no_rare_verdict():
    (m,) = measure([sentence([1, 2, 3])], [[head_map(4, [0, 0, 0, 0])]], rare_counts(), top_k=5)
    assert m.rare_of == 0 and np.isnan(m.rare_share) and "rare" not in m.roles


def test_frequent_top_k_covers_half_the_running_tokens():
    counts = rare_counts()  # 100 + 90 + 80 + 70 + 60 + 14 = 414 words; 100 + 90 = 190 < 207 <= 270
    assert voita.frequent_top_k(counts, EOS) == 3
    assert voita.frequent_ids(counts, 3, EOS) == {1, 2, 3}  # the end symbol, counted most, is no word
    assert voita.frequent_ids(np.array([0, 5, 7, 5]), 2, EOS) == {2, 1}  # equal counts: the smaller id first


# --- the whole model ----------------------------------------------------------------------------------

def test_every_head_of_every_layer_comes_back_in_order():
    s = sentence([1, 2, 3, 4])
    n = len(s.tokens)
    maps = [np.stack([np.stack([head_map(n, [(q + layer + head) % 4 for q in range(n)]) for head in range(3)])
                      for layer in range(2)])]
    got = voita.measure_heads([s], maps, np.ones(10), EOS, top_k=1)
    assert [(m.layer, m.head) for m in got] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    with pytest.raises(ValueError, match="shape"):
        voita.measure_heads([s], [maps[0][..., :-1]], np.ones(10), EOS, top_k=1)


# --- Michel et al.'s importance ---------------------------------------------------------------------

A = np.array([[[1.0, -2.0, 0.5], [3.0, 0.0, -1.0]],
              [[-1.0, 2.0, 0.5], [-3.0, 4.0, 1.0]]])  # [batch, L, h] one slope per batch and gate
B = np.array([[0.5, 0.0, -0.5], [1.0, 2.0, 0.0]])  # [L, h]


def toy_loss(batch: int, gates):
    """L_x(xi) = sum a_x xi + 0.5 b xi^2: dL/dxi = a_x + b xi."""
    return float((A[batch] * gates + 0.5 * B * gates ** 2).sum())


def toy_grad(batch, gates):
    return A[batch] + B * gates


def test_michel_importance_is_the_mean_absolute_gate_gradient_normalised_per_layer():
    """At xi = 1 the gradients are a_x + b; their absolute values averaged over the two batches,
    each layer then divided by its l2 norm. Counted here with loops."""
    expect = np.zeros((2, 3))
    for layer in range(2):
        for head in range(3):
            expect[layer, head] = sum(abs(A[x, layer, head] + B[layer, head]) for x in range(2)) / 2
    raw = imp.michel_importance(toy_grad, range(2), np.ones((2, 3)), normalise=False)
    assert np.allclose(raw, expect, atol=1e-12)
    assert (raw[0, 0], raw[0, 1]) == (1.0, 2.0)  # the absolute value of the mean would give 0.5 and 0
    normed = imp.michel_importance(toy_grad, range(2), np.ones((2, 3)))
    for layer in range(2):
        assert np.allclose(normed[layer], expect[layer] / np.sqrt(sum(v * v for v in expect[layer])), atol=1e-12)
    assert np.allclose((normed ** 2).sum(axis=1), 1.0)


def test_gate_gradient_by_finite_differences_matches_the_toy_gradient():
    gates = np.array([[1.0, 0.5, 0.0], [1.0, 1.0, 0.25]])
    for x in range(2):
        assert np.allclose(imp.gate_gradient(lambda g: toy_loss(x, g), gates), toy_grad(x, gates), atol=1e-7)


def test_importance_order_is_least_important_first():
    assert imp.importance_order(np.array([[0.3, 0.1], [0.1, 0.9]])) == (1, 2, 0, 3)


# --- pruning curves ---------------------------------------------------------------------------------

def test_prune_curve_masks_one_more_head_per_step_in_the_given_order():
    seen = []

    def evaluate(gates):
        seen.append(gates)
        off = int((gates == 0).sum())
        return 1.0 + off, 1.0 - off / 10, {"nsubj": 1.0 - off / 5}

    order = (4, 0, 5)
    steps = imp.prune_curve(evaluate, order, (2, 3))
    assert [s.masked for s in steps] == [(), (4,), (4, 0), (4, 0, 5)]
    assert [g.tolist() for g in seen] == [
        [[1, 1, 1], [1, 1, 1]], [[1, 1, 1], [1, 0, 1]], [[0, 1, 1], [1, 0, 1]], [[0, 1, 1], [1, 0, 0]]]
    assert [(s.loss, s.accuracy, s.per_relation["nsubj"]) for s in steps] == \
        [(1.0, 1.0, 1.0), (2.0, 0.9, 0.8), (3.0, 0.8, 0.6), (4.0, 0.7, 0.4)]
    with pytest.raises(ValueError):
        imp.prune_curve(evaluate, (1, 1), (2, 3))


def test_random_orders_are_permutations_fixed_by_the_seed():
    orders = imp.random_orders(8, 20, seed=3)
    assert len(orders) == 20 and all(sorted(o) == list(range(8)) for o in orders)
    assert orders == imp.random_orders(8, 20, seed=3) and orders != imp.random_orders(8, 20, seed=4)
    assert len(set(orders)) > 1
    with pytest.raises(ValueError):
        imp.random_orders(8, 19, seed=3)


def test_spread_and_survivors():
    def curve(accs):
        return [imp.CurveStep(tuple(range(k)), 0.0, a, {}) for k, a in enumerate(accs)]

    curves = [curve([1.0, 0.9, 0.5]), curve([1.0, 0.7, 0.6]), curve([1.0, 0.8, 0.1])]
    s = imp.spread(curves)
    assert s.low.tolist() == [1.0, 0.7, 0.1] and s.median.tolist() == [1.0, 0.8, 0.5] and s.high.tolist() == [1.0, 0.9, 0.6]
    assert imp.survivors(curves[0], 3, drop=0.15) == (1, 2)  # 0.9 holds, 0.5 does not
    assert imp.survivors(curves[1], 3, drop=0.15) == (0, 1, 2)


# --- against a recount in plain Python, one query at a time ---------------------------------------

def _recount(sentences, maps, counts, top_k):
    """Every measure of every head recounted with loops over lists, from the paper's words alone."""
    L, h = maps[0].shape[:2]
    frequent = sorted((t for t in range(len(counts)) if t != EOS), key=lambda t: (-counts[t], t))[:top_k]
    out = []
    for layer in range(L):
        for head in range(h):
            conf, queries, offsets = 0.0, 0, {}
            hits, arcs, at = {}, {}, {}
            rare_hits = rare_of = 0
            for s, m in zip(sentences, maps):
                ids = [int(t) for t in s.tokens]
                w = m[layer, head].tolist()
                words = [i for i, t in enumerate(ids) if t != EOS]
                top = {q: max(words, key=lambda k: (w[q][k], -k)) for q in words}
                for q in words:
                    conf += max(w[q][k] for k in words)
                    queries += 1
                    offsets[top[q] - q] = offsets.get(top[q] - q, 0) + 1
                for a in s.arcs:
                    for name, q, other in ((a.relation + ":dep->head", a.dependent, a.head),
                                           (a.relation + ":head->dep", a.head, a.dependent)):
                        arcs[name] = arcs.get(name, 0) + 1
                        hits[name] = hits.get(name, 0) + (top[q] == other)
                        at.setdefault(name, {})
                        at[name][other - q] = at[name].get(other - q, 0) + 1
                rarest = min((ids[i] for i in words), key=lambda t: (counts[t], t))
                if rarest not in frequent:
                    rare_of += 1
                    column = {k: sum(w[q][k] for q in words) for k in words}
                    pointed = max(words, key=lambda k: (column[k], -k))
                    rare_hits += counts[ids[pointed]] == counts[rarest]
            best = max(offsets.values())
            scores = {}
            for name in arcs:
                most = max(at[name].values())
                named = min((o for o, c in at[name].items() if c == most), key=lambda o: (abs(o), o))
                scores[name] = (hits[name], arcs[name], named, most)
            syntactic = any(10 * (k - b) >= m for name, (k, m, _, b) in scores.items() if not name.startswith("coref"))
            out.append({"confidence": conf / queries, "n": queries, "offset_hits": best, "offsets": offsets,
                        "tied": sum(c == best for c in offsets.values()) > 1, "scores": scores,
                        "rare": (rare_hits, rare_of), "syntactic": syntactic,
                        "positional": 10 * best >= 9 * queries})
    return out


def _random_sentences(rng, count):
    out = []
    for _ in range(count):
        n = int(rng.integers(3, 9))
        ids = rng.integers(1, 16, size=n)
        root = int(rng.integers(n))
        arcs = [(d, int(rng.choice([k for k in range(n) if k != d])), str(rng.choice(["nsubj", "det", "amod", "coref"])))
                for d in range(n) if d != root]
        out.append(sentence(ids, arcs))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_measures_match_a_recount_on_random_maps(seed):
    rng = np.random.default_rng(seed)
    sentences = _random_sentences(rng, 30)
    maps = []
    for s in sentences:
        logits = rng.normal(size=(2, 3, len(s.tokens), len(s.tokens))) * 3
        e = np.exp(logits - logits.max(axis=-1, keepdims=True))
        maps.append(e / e.sum(axis=-1, keepdims=True))
    counts = rng.integers(1, 200, size=16)
    counts[EOS] = 10_000
    got = voita.measure_heads(sentences, maps, counts, EOS, top_k=5)
    for m, expect in zip(got, _recount(sentences, maps, counts.tolist(), 5)):
        assert m.confidence == pytest.approx(expect["confidence"], abs=1e-12)
        assert (m.n, m.offset_hits, m.offset_tied) == (expect["n"], expect["offset_hits"], expect["tied"])
        assert m.offset_counts == expect["offsets"]
        assert (m.rare_hits, m.rare_of) == expect["rare"]
        both = {**m.relation_hits, **{"coref:" + d: s for d, s in m.coreference.items()}}
        assert {k: tuple(s) for k, s in both.items()} == expect["scores"]
        assert ("syntactic" in m.roles) == expect["syntactic"]
        assert ("positional" in m.roles) == expect["positional"]
