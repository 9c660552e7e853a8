"""The masked language model's heads (lm.py, trained by lm_train.py), measured and pruned the papers' way.

For one seed:
- roles (tiny/voita.py, Voita et al. 2019): every head's confidence, positional offset and share,
  accuracy per dependency relation and direction against the best fixed offset, the rare-word share,
  measured on the held-out sentences as they are (nothing masked: a head is described on the input it
  reads). A head is syntactic only on the dependency relations (language.DEPENDENCIES); the two arcs
  that are not dependencies, coreference (pronoun -> antecedent) and repeat (a name's second mention
  -> its first), are scored the same way and reported apart, never as a role.
- importance (tiny/importance.py, Michel et al. 2019): E |d loss / d xi| at every gate open, one
  sentence at a time (each of its tokens masked alone, lm.one_masked), each layer divided by its l2
  norm; averaged over training sentences, so that the evaluation below never sees them.
- pruning: heads masked (gate 0) least important first, and in RANDOM_ORDERS orders drawn at random,
  the model evaluated on the first PRUNE_SENTENCES held-out sentences after each removal
  (lm.evaluate: loss, accuracy, accuracy per relation). A set of masked heads gives the same model whatever order masked it, so
  each set is evaluated once (at most 2^(L h) = 256 of them).

measured(model, seed, counts) does it for one seed's model, in about twenty seconds of one core;
what holds over the seeds is read from their measurements, whoever made them (quantities). The
site trains and measures every seed of lm_train.SEEDS once and keeps both on disk
(figures/keep/tiny_lm.py; `python -m figures.numbers.seeds` prints them with lm_table.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from .. import roles
from . import importance as imp
from . import language, lm, lm_backward, lm_train, voita


RANDOM_ORDERS = 20  # random pruning orders per seed: the band the importance order is read against
SURVIVOR_DROP = 0.05  # survivors: heads left when accuracy is last within 5 points of the full model's
IMPORTANCE_SENTENCES = 200  # the first training sentences: what the importance is averaged over
PRUNE_SENTENCES = 100  # the first held-out sentences: what each pruned model is evaluated on (about 1,000
# masked tokens: a set of masked heads costs one lm.evaluate, and a seed's curves need about 150 sets)
APART = tuple(r for r in language.RELATIONS if r not in language.DEPENDENCIES)  # coref, repeat


# --------------------------------------------------------------------------------------------
# roles
# --------------------------------------------------------------------------------------------

class HeadVerdict(NamedTuple):
    index: int  # flat: layer * h + head, the numbering of importance.py's orders
    measures: roles.HeadMeasures  # voita.measure_heads: confidence, offsets, every relation's ArcScore
    syntactic: tuple[str, ...]  # the dependency relation:direction keys where the paper's test passes
    apart: Mapping[str, roles.ArcScore]  # "coref:dep->head", "repeat:head->dep", ...: scored, no verdict
    roles: tuple[str, ...]  # of roles.ROLES: positional, syntactic (dependencies only), rare

    @property
    def name(self) -> str:
        return f"L{self.measures.layer}H{self.measures.head}"


def training_counts(config: lm_train.LMTrainConfig = lm_train.CONFIG) -> np.ndarray:
    """[vocab] every token's count in the training sentences: what 'rare' is measured against."""
    return language.counts(lm_train.data(config)[0])



def maps_of(model: lm.Model, sentences: Sequence[language.Sentence]) -> list[np.ndarray]:
    """Per sentence [L, h, n, n]: every head's weights on the sentence unmasked."""
    return [lm.attention_maps(model, s) for s in sentences]


def apart_scores(m: roles.HeadMeasures) -> dict[str, roles.ArcScore]:
    """relation:direction -> ArcScore of the arcs that are not dependencies (coref, repeat)."""
    coref = {voita.relation_key(voita.COREF, d): s for d, s in m.coreference.items()}
    others = {k: s for k, s in m.relation_hits.items() if k.split(":", 1)[0] in APART}
    return dict(sorted({**coref, **others}.items()))


def verdict(index: int, m: roles.HeadMeasures) -> HeadVerdict:
    """One head's roles, syntactic read on the dependency relations alone."""
    syntactic = tuple(k for k in voita.syntactic_relations(m) if k.split(":", 1)[0] in language.DEPENDENCIES)
    met = {"positional": "positional" in m.roles, "syntactic": bool(syntactic), "rare": "rare" in m.roles}
    return HeadVerdict(index, m, syntactic, apart_scores(m), tuple(r for r in roles.ROLES if met[r]))


def head_verdicts(model: lm.Model, sentences: Sequence[language.Sentence], counts: np.ndarray,
                  top_k: int | None = None) -> tuple[HeadVerdict, ...]:
    """[L * h] every head measured on the sentences (unmasked); top_k the rare condition's cut
    (None: voita.frequent_top_k of the counts)."""
    top_k = voita.frequent_top_k(counts, language.EOS) if top_k is None else top_k
    measures = voita.measure_heads(sentences, maps_of(model, sentences), counts, language.EOS, top_k)
    return tuple(verdict(i, m) for i, m in enumerate(measures))


# --------------------------------------------------------------------------------------------
# importance
# --------------------------------------------------------------------------------------------

def sentence_batch(sentence: language.Sentence) -> lm.Batch:
    """One sentence, each of its tokens but <eos> masked alone: a Batch of len(tokens) - 1 rows."""
    return lm.one_masked([sentence])[0]


def gate_gradient(model: lm.Model, batch: lm.Batch, gates: np.ndarray) -> np.ndarray:
    """gates [L, h] -> [L, h] d loss / d gates, the loss lm_backward.loss_and_grads' (mean over masked tokens)."""
    return lm_backward.loss_and_grads(model, batch, np.asarray(gates, dtype=model.embed.dtype))[2]


def head_importance(model: lm.Model, sentences: Sequence[language.Sentence]) -> np.ndarray:
    """[L, h] Michel et al.'s importance: mean over sentences of |d loss / d xi| at xi = 1, each
    layer normalised to unit l2 norm."""
    return imp.michel_importance(functools.partial(gate_gradient, model),
                                 [sentence_batch(s) for s in sentences], lm.ones(model))


# --------------------------------------------------------------------------------------------
# pruning
# --------------------------------------------------------------------------------------------

class Pruning(NamedTuple):
    order: tuple[int, ...]  # flat heads, least important first: the order they are masked in
    curve: list[imp.CurveStep]  # [L h + 1] the full model, then one head more masked each step
    random_orders: list[tuple[int, ...]]  # [RANDOM_ORDERS] orders drawn at random
    random_curves: list[list[imp.CurveStep]]  # one curve each
    survivors: tuple[int, ...]  # heads left when accuracy was last within SURVIVOR_DROP of the full model's


def evaluator(model: lm.Model, sentences: Sequence[language.Sentence]) -> Callable[[np.ndarray], imp.Evaluation]:
    """gates [L, h] -> (loss, accuracy, accuracy per relation) on the sentences, each set of closed
    gates evaluated once."""
    seen: dict[bytes, imp.Evaluation] = {}

    def evaluate(gates: np.ndarray) -> imp.Evaluation:
        key = (np.asarray(gates) == 0).tobytes()
        if key not in seen:
            seen[key] = tuple(lm.evaluate(model, sentences, np.asarray(gates, dtype=model.embed.dtype)))
        return seen[key]
    return evaluate


def pruning(evaluate: Callable[[np.ndarray], imp.Evaluation], importance: np.ndarray, seed: int,
            k: int = RANDOM_ORDERS) -> Pruning:
    """importance [L, h] -> the importance order's curve and k random orders' (drawn from seed), each
    through every head. evaluate(gates [L, h]) -> (loss, accuracy, accuracy per relation): evaluator()'s."""
    shape = importance.shape
    order = imp.importance_order(importance)
    randoms = imp.random_orders(importance.size, k, seed)
    curve = imp.prune_curve(evaluate, order, shape)
    return Pruning(order, curve, randoms, [imp.prune_curve(evaluate, o, shape) for o in randoms],
                   imp.survivors(curve, importance.size, SURVIVOR_DROP))


# --------------------------------------------------------------------------------------------
# one seed, every seed
# --------------------------------------------------------------------------------------------

class SeedHeads(NamedTuple):
    seed: int
    heads: tuple[HeadVerdict, ...]  # [L * h], flat order
    importance: np.ndarray  # [L, h]
    pruning: Pruning


def measure(model: lm.Model, held_out: Sequence[language.Sentence], pruned_on: Sequence[language.Sentence],
            train_sentences: Sequence[language.Sentence], counts: np.ndarray, seed: int,
            top_k: int | None = None) -> SeedHeads:
    """One model's heads: roles on held_out, importance on train_sentences, pruning on pruned_on."""
    importance = head_importance(model, train_sentences)
    return SeedHeads(seed, head_verdicts(model, held_out, counts, top_k), importance,
                     pruning(evaluator(model, pruned_on), importance, seed))

def measured(model: lm.Model, seed: int, counts: np.ndarray, config: lm_train.LMTrainConfig = lm_train.CONFIG) -> SeedHeads:
    """lm_train's model of this seed measured the page's way: roles on its held-out sentences,
    importance on the first IMPORTANCE_SENTENCES training sentences, pruning curves on the first
    PRUNE_SENTENCES held-out ones through every head; counts: training_counts(config)."""
    train_set, held = lm_train.data(config)
    return measure(model, held, held[:PRUNE_SENTENCES], train_set[:IMPORTANCE_SENTENCES], counts, seed)



# --------------------------------------------------------------------------------------------
# what holds over seeds
# --------------------------------------------------------------------------------------------

def has_positional(s: SeedHeads, offset: int) -> bool:
    return any("positional" in v.roles and v.measures.offset == offset for v in s.heads)


def has_role(s: SeedHeads, role: str) -> bool:
    return any(role in v.roles for v in s.heads)


def has_syntactic(s: SeedHeads, relation: str) -> bool:
    """A head passes the syntactic test on this dependency relation, in either direction."""
    return any(k.split(":", 1)[0] == relation for v in s.heads for k in v.syntactic)


def has_apart(s: SeedHeads, relation: str) -> bool:
    """A head scores a non-dependency relation (coref, repeat) at least the syntactic margin above its
    fixed-offset baseline in some direction: what would be a syntactic head were it a dependency."""
    return any(voita.syntactic_on(a) for v in s.heads for k, a in v.apart.items() if k.split(":", 1)[0] == relation)


def best_share(s: SeedHeads, offset: int) -> float:
    """The largest share of its queries any head of the seed puts its top key at this offset: how
    near the seed came to a positional head there (the bar: roles.ROLE_BARS["positional"])."""
    return max(v.measures.offset_shares.get(offset, 0.0) for v in s.heads)


def best_rare_share(s: SeedHeads) -> float:
    """The largest rare-word share of any head of the seed (the bar: roles.ROLE_BARS["rare"])."""
    return max(v.measures.rare_share for v in s.heads)


def most_important(s: SeedHeads) -> HeadVerdict:
    return s.heads[s.pruning.order[-1]]


def half(s: SeedHeads) -> int:
    """The step at which half the heads are masked."""
    return len(s.heads) // 2


def pruned_at(s: SeedHeads, measure_name: str, k: int) -> tuple[float, imp.Spread]:
    """(the importance order's value, the random orders' min/median/max) with k heads masked."""
    band = imp.spread(s.pruning.random_curves, measure_name)
    return (imp.measure_of(s.pruning.curve[k], measure_name), imp.Spread(*(float(a[k]) for a in band)))


def half_pruned(s: SeedHeads, measure_name: str = "loss") -> tuple[float, imp.Spread]:
    """pruned_at with half the heads masked."""
    return pruned_at(s, measure_name, half(s))


def margin_pts(a: roles.ArcScore) -> float:
    """Accuracy above the best fixed offset's on the same arcs, in percentage points (the syntactic
    test asks for voita.SYNTACTIC_MARGIN_PCT)."""
    return 100 * (a.hits - a.offset_hits) / a.arcs if a.arcs else float("-inf")


def best_margin(s: SeedHeads, relation: str) -> float:
    """The largest margin of any head of the seed on this dependency relation, either direction."""
    return max(margin_pts(a) for v in s.heads for k, a in v.measures.relation_hits.items()
               if k.split(":", 1)[0] == relation)


def layer_of(v: HeadVerdict) -> int:
    return v.measures.layer


def most_confident(s: SeedHeads) -> HeadVerdict:
    return max(s.heads, key=lambda v: v.measures.confidence)


def best_at(s: SeedHeads, offset: int) -> HeadVerdict:
    """The head of the seed that puts its top key at this offset for the largest share of queries."""
    return max(s.heads, key=lambda v: v.measures.offset_shares.get(offset, 0.0))


def syntactic_heads(s: SeedHeads) -> list[HeadVerdict]:
    return [v for v in s.heads if "syntactic" in v.roles]


def pruned_in_first_half(s: SeedHeads, v: HeadVerdict) -> bool:
    return v.index in s.pruning.order[:half(s)]


def apart_heads(s: SeedHeads, relation: str, layer: int) -> int:
    """How many heads of this layer score the non-dependency relation as a syntactic head would."""
    return sum(any(voita.syntactic_on(a) for k, a in v.apart.items() if k.split(":", 1)[0] == relation)
               for v in s.heads if layer_of(v) == layer)


def seeds_where(test: Callable[[SeedHeads], bool], seeds: Sequence[SeedHeads]) -> int:
    """In how many of the seeds' measurements test holds (their curves pruned through every head)."""
    return sum(bool(test(s)) for s in seeds)


def _median(values) -> float:
    return float(np.median(values))


HALF = lm_train.CONFIG.model.layers * lm_train.CONFIG.model.h // 2  # half the heads masked
LATE = 6  # heads masked where the importance order is read against the best random order


def quantities(all_seeds: Callable[[], Sequence[SeedHeads]],
               counts: Callable[[], np.ndarray]) -> dict[str, Callable[[], float | int]]:
    """Facts over every seed of lm_train.SEEDS, none from one seed alone, for figures.numbers.quantities:
    all_seeds() gives every seed's measurements, counts() training_counts()."""
    cfg = lm_train.CONFIG

    def where(test: Callable[[SeedHeads], bool]) -> int:
        return seeds_where(test, all_seeds())

    def over_seeds(reduce: Callable, per_seed: Callable[[SeedHeads], float]) -> Callable[[], float]:
        """A quantity: reduce (min, max, sum, a median) of one number per seed."""
        return lambda: reduce([per_seed(s) for s in all_seeds()])

    last = cfg.model.layers - 1
    q: dict[str, Callable[[], float | int]] = {
        # what was built (the same for every seed)
        "lm.seeds": lambda: len(lm_train.SEEDS),
        "lm.heads": lambda: cfg.model.layers * cfg.model.h,
        "lm.layers": lambda: cfg.model.layers,
        "lm.h": lambda: cfg.model.h,
        "lm.d_model": lambda: cfg.model.d_model,
        "lm.d_ff": lambda: cfg.model.d_ff,
        "lm.steps": lambda: cfg.steps,
        "lm.batch": lambda: cfg.batch,
        "lm.train_sentences": lambda: cfg.train_sentences,
        "lm.held_out": lambda: cfg.held_out,
        "lm.mask_pct": lambda: 100 * lm.MASK_RATE,
        "lm.vocab": lambda: len(language.VOCAB),
        "lm.names": lambda: len(language.NAMES),
        "lm.importance_sentences": lambda: IMPORTANCE_SENTENCES,
        "lm.prune_sentences": lambda: PRUNE_SENTENCES,
        "lm.random_orders": lambda: RANDOM_ORDERS,
        "lm.syntactic_margin_pts": lambda: voita.SYNTACTIC_MARGIN_PCT,
        "lm.rare.top_k": lambda: voita.frequent_top_k(counts(), language.EOS),
        "lm.rare.sentences": lambda: all_seeds()[0].heads[0].measures.rare_of,
        "lm.half": lambda: HALF,
        "lm.late": lambda: LATE,
        # the full models
        "lm.full_accuracy_min": over_seeds(min, lambda s: imp.measure_of(s.pruning.curve[0], "accuracy")),
        "lm.full_accuracy_max": over_seeds(max, lambda s: imp.measure_of(s.pruning.curve[0], "accuracy")),
        # confidence
        "lm.seeds.most_confident_first_layer": lambda: where(lambda s: layer_of(most_confident(s)) == 0),
        "lm.conf.last_layer_max": over_seeds(max, lambda s: max(v.measures.confidence for v in s.heads
                                                                if layer_of(v) == last)),
        "lm.conf.first_layer_best_min": over_seeds(min, lambda s: max(v.measures.confidence for v in s.heads
                                                                      if layer_of(v) == 0)),
        # roles
        "lm.seeds.positional": lambda: where(lambda s: has_role(s, "positional")),
        "lm.seeds.positional_prev": lambda: where(lambda s: has_positional(s, -1)),
        "lm.seeds.positional_next": lambda: where(lambda s: has_positional(s, 1)),
        "lm.seeds.prev_best_first_layer": lambda: where(lambda s: layer_of(best_at(s, -1)) == 0),
        "lm.seeds.next_best_first_layer": lambda: where(lambda s: layer_of(best_at(s, 1)) == 0),
        "lm.seeds.syntactic": lambda: where(lambda s: has_role(s, "syntactic")),
        "lm.seeds.rare": lambda: where(lambda s: has_role(s, "rare")),
        # how near the seeds came: each seed's best head, the weakest and the strongest seed
        "lm.prev_best_share_min": over_seeds(min, lambda s: best_share(s, -1)),
        "lm.prev_best_share_max": over_seeds(max, lambda s: best_share(s, -1)),
        "lm.next_best_share_min": over_seeds(min, lambda s: best_share(s, 1)),
        "lm.next_best_share_max": over_seeds(max, lambda s: best_share(s, 1)),
        "lm.rare_best_share_max": over_seeds(max, best_rare_share),
        "lm.syntactic_heads": over_seeds(sum, lambda s: len(syntactic_heads(s))),
        "lm.syntactic_heads.first_half": over_seeds(sum, lambda s: sum(pruned_in_first_half(s, v)
                                                                        for v in syntactic_heads(s))),
        # importance and pruning
        "lm.seeds.top_head_has_role": lambda: where(lambda s: bool(most_important(s).roles)),
        "lm.seeds.first_pruned_has_role": lambda: where(lambda s: bool(s.heads[s.pruning.order[0]].roles)),
        "lm.half.importance_loss_median": over_seeds(_median, lambda s: half_pruned(s)[0]),
        "lm.half.random_loss_median": over_seeds(_median, lambda s: half_pruned(s)[1].median),
        "lm.half.seeds_below_random_median": lambda: where(lambda s: half_pruned(s)[0] < half_pruned(s)[1].median),
        "lm.half.seeds_below_random_min": lambda: where(lambda s: half_pruned(s)[0] <= half_pruned(s)[1].low),
        "lm.late.seeds_above_random_min": lambda: where(lambda s: pruned_at(s, "loss", LATE)[0]
                                                              > pruned_at(s, "loss", LATE)[1].low),
    }
    for relation in language.DEPENDENCIES:
        q[f"lm.seeds.syntactic.{relation}"] = functools.partial(where, functools.partial(has_syntactic, relation=relation))
        q[f"lm.best_margin.{relation}"] = over_seeds(max, functools.partial(best_margin, relation=relation))
    for relation in APART:
        q[f"lm.seeds.apart.{relation}"] = functools.partial(where, functools.partial(has_apart, relation=relation))
        q[f"lm.apart_heads.{relation}"] = over_seeds(sum, lambda s, r=relation: sum(
            apart_heads(s, r, layer) for layer in range(cfg.model.layers)))
        for layer in range(cfg.model.layers):
            q[f"lm.apart_heads.{relation}.layer{layer}"] = over_seeds(sum, functools.partial(apart_heads, relation=relation,
                                                                                             layer=layer))
    return q
