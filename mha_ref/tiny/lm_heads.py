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

all_seeds() does it for every seed of lm_train.SEEDS; `python -m mha_ref.tiny.lm_heads` prints it.
seed_heads keeps each seed's measurements on disk beside the weights (lm-heads/<digest>.json, a digest
of the code measuring reaches): they take about twenty seconds of one core per seed.
"""

from __future__ import annotations

import functools
import io
import platform
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .. import roles, store
from . import importance as imp
from . import arithmetic, language, lm, lm_train, voita

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


@functools.lru_cache(maxsize=4)
def training_counts(config: lm_train.LMTrainConfig = lm_train.CONFIG) -> np.ndarray:
    """[vocab] every token's count in the training sentences: what 'rare' is measured against. Kept
    on disk beside the measurements (cache_folder), under a digest of the code that counts and the
    configuration: a build reads it instead of writing out every training sentence again."""
    folder = cache_folder()
    salt = f"{config!r} numpy {np.__version__} python {platform.python_version()}"
    path = None if folder is None else folder / f"counts-{store.CodeReach().digest((__name__, '_counted'), salt=salt)}.npy"
    counts = store.kept_or_made(path, lambda data: np.load(io.BytesIO(data), allow_pickle=False),
                                functools.partial(_counted, config), _npy, "the training sentences' token counts")
    counts.setflags(write=False)  # shared by every caller
    return counts


def _npy(a: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.save(out, a, allow_pickle=False)
    return out.getvalue()


def _counted(config: lm_train.LMTrainConfig) -> np.ndarray:
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
    """gates [L, h] -> [L, h] d loss / d gates, the loss lm.loss_and_grads' (mean over masked tokens)."""
    return lm.loss_and_grads(model, batch, np.asarray(gates, dtype=model.embed.dtype))[2]


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


@functools.lru_cache(maxsize=8)
def _roles_and_importance(seed: int) -> tuple[tuple[HeadVerdict, ...], np.ndarray]:
    train_set, held = lm_train.data()
    model = lm_train.trained(seed).model
    return head_verdicts(model, held, training_counts()), head_importance(model, train_set[:IMPORTANCE_SENTENCES])


@functools.lru_cache(maxsize=8)
def _evaluator(seed: int) -> Callable[[np.ndarray], imp.Evaluation]:
    return evaluator(lm_train.trained(seed).model, lm_train.held_out()[:PRUNE_SENTENCES])


@functools.lru_cache(maxsize=16)
def seed_heads(seed: int) -> SeedHeads:
    """lm_train's model of this seed: roles on its held-out sentences, importance on the first
    IMPORTANCE_SENTENCES training sentences, pruning curves on the first PRUNE_SENTENCES held-out ones
    through every head. Kept on disk beside the weights (cache_folder) under a digest of the code
    measuring reaches, the weights' code included (code_digest): every process of a build, and every
    later build, reads it from there."""
    folder = cache_folder()
    return store.kept_or_made(None if folder is None else folder / f"{code_digest(seed)}.json",
                              _read, functools.partial(arithmetic.run, __name__, "_measured", seed), _dump,
                              "head measurements")


def _measured(seed: int) -> SeedHeads:
    heads, importance = _roles_and_importance(seed)
    return SeedHeads(seed, heads, importance, pruning(_evaluator(seed), importance, seed))


KEPT_TYPES = (SeedHeads, HeadVerdict, Pruning, roles.HeadMeasures, roles.ArcScore, imp.CurveStep)


def _read(data: bytes) -> SeedHeads:
    s = store.from_json(data.decode("utf-8"), KEPT_TYPES)
    if not isinstance(s, SeedHeads):
        raise ValueError(f"a kept {type(s).__name__}, not SeedHeads")
    return s


def _dump(s: SeedHeads) -> bytes:
    return store.to_json(s).encode("utf-8")


@functools.lru_cache(maxsize=32)  # a process reads the code it runs once; serve re-imports after an edit
def code_digest(seed: int) -> str:
    """sha256 of what decides a seed's measurements: the code _measured() reaches (lm_train.train and
    what it reaches among it, so the weights' code too; comments and docstrings left out), the seed,
    numpy's and Python's versions, and the arithmetic it runs in (arithmetic.py)."""
    salt = f"seed {seed} numpy {np.__version__} python {platform.python_version()} {arithmetic.ARITHMETIC}"
    return store.CodeReach().digest((__name__, "_measured"), salt=salt)


def cache_folder() -> Path | None:
    """Where the measurements are kept: under the figure cache's folder (mha_ref.store), None if off."""
    return store.cache_folder("lm-heads")


def all_seeds(seeds: Sequence[int] = lm_train.SEEDS) -> tuple[SeedHeads, ...]:
    """Every seed's heads: the roles per head per seed and the pruning order a figure draws. Seeds
    not kept yet are trained and measured side by side (_side_by_side), not one after the other."""
    return tuple(_side_by_side(seed_heads, seeds))


def _side_by_side(each: Callable[[int], SeedHeads], seeds: Sequence[int]) -> list[SeedHeads]:
    """[each(seed) for seed in seeds], the seeds side by side, one per core: each training and
    measurement runs in a process of its own (arithmetic.run); where the arithmetic cannot be pinned
    they run here, one after the other. Another process that needs the same seed waits for it (a
    lock per kept file) and reads it."""
    side_by_side = min(len(seeds), store.cores()) if arithmetic.pins() else 1
    if side_by_side <= 1:
        return [each(s) for s in seeds]
    with ThreadPoolExecutor(side_by_side) as threads:
        return list(threads.map(each, seeds))


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


def seeds_where(test: Callable[[SeedHeads], bool], seeds: Sequence[int] = lm_train.SEEDS) -> int:
    """In how many of the seeds test holds (their curves pruned through every head)."""
    return sum(bool(test(s)) for s in all_seeds(seeds))


def over_seeds(reduce: Callable, per_seed: Callable[[SeedHeads], float]) -> Callable[[], float]:
    """A quantity: reduce (min, max, sum, a median) of one number per seed."""
    return lambda: reduce([per_seed(s) for s in all_seeds()])


def _median(values) -> float:
    return float(np.median(values))


HALF = lm_train.CONFIG.model.layers * lm_train.CONFIG.model.h // 2  # half the heads masked
LATE = 6  # heads masked where the importance order is read against the best random order


def quantities() -> dict[str, Callable[[], float | int]]:
    """Facts over every seed of lm_train.SEEDS, none from one seed alone, for mha_ref.quantities."""
    cfg = lm_train.CONFIG
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
        "lm.rare.top_k": lambda: voita.frequent_top_k(training_counts(), language.EOS),
        "lm.rare.sentences": lambda: all_seeds()[0].heads[0].measures.rare_of,
        "lm.half": lambda: HALF,
        "lm.late": lambda: LATE,
        # the full models
        "lm.full_accuracy_min": over_seeds(min, lambda s: imp.measure_of(s.pruning.curve[0], "accuracy")),
        "lm.full_accuracy_max": over_seeds(max, lambda s: imp.measure_of(s.pruning.curve[0], "accuracy")),
        # confidence
        "lm.seeds.most_confident_first_layer": lambda: seeds_where(lambda s: layer_of(most_confident(s)) == 0),
        "lm.conf.last_layer_max": over_seeds(max, lambda s: max(v.measures.confidence for v in s.heads
                                                                if layer_of(v) == last)),
        "lm.conf.first_layer_best_min": over_seeds(min, lambda s: max(v.measures.confidence for v in s.heads
                                                                      if layer_of(v) == 0)),
        # roles
        "lm.seeds.positional": lambda: seeds_where(lambda s: has_role(s, "positional")),
        "lm.seeds.positional_prev": lambda: seeds_where(lambda s: has_positional(s, -1)),
        "lm.seeds.positional_next": lambda: seeds_where(lambda s: has_positional(s, 1)),
        "lm.seeds.prev_best_first_layer": lambda: seeds_where(lambda s: layer_of(best_at(s, -1)) == 0),
        "lm.seeds.next_best_first_layer": lambda: seeds_where(lambda s: layer_of(best_at(s, 1)) == 0),
        "lm.seeds.syntactic": lambda: seeds_where(lambda s: has_role(s, "syntactic")),
        "lm.seeds.rare": lambda: seeds_where(lambda s: has_role(s, "rare")),
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
        "lm.seeds.top_head_has_role": lambda: seeds_where(lambda s: bool(most_important(s).roles)),
        "lm.seeds.first_pruned_has_role": lambda: seeds_where(lambda s: bool(s.heads[s.pruning.order[0]].roles)),
        "lm.half.importance_loss_median": over_seeds(_median, lambda s: half_pruned(s)[0]),
        "lm.half.random_loss_median": over_seeds(_median, lambda s: half_pruned(s)[1].median),
        "lm.half.seeds_below_random_median": lambda: seeds_where(lambda s: half_pruned(s)[0] < half_pruned(s)[1].median),
        "lm.half.seeds_below_random_min": lambda: seeds_where(lambda s: half_pruned(s)[0] <= half_pruned(s)[1].low),
        "lm.late.seeds_above_random_min": lambda: seeds_where(lambda s: pruned_at(s, "loss", LATE)[0]
                                                              > pruned_at(s, "loss", LATE)[1].low),
    }
    for relation in language.DEPENDENCIES:
        q[f"lm.seeds.syntactic.{relation}"] = functools.partial(seeds_where, functools.partial(has_syntactic, relation=relation))
        q[f"lm.best_margin.{relation}"] = over_seeds(max, functools.partial(best_margin, relation=relation))
    for relation in APART:
        q[f"lm.seeds.apart.{relation}"] = functools.partial(seeds_where, functools.partial(has_apart, relation=relation))
        q[f"lm.apart_heads.{relation}"] = over_seeds(sum, lambda s, r=relation: sum(
            apart_heads(s, r, layer) for layer in range(cfg.model.layers)))
        for layer in range(cfg.model.layers):
            q[f"lm.apart_heads.{relation}.layer{layer}"] = over_seeds(sum, functools.partial(apart_heads, relation=relation,
                                                                                             layer=layer))
    return q


def progress() -> tuple[int, int]:
    """(seeds whose measurements are kept on disk, seeds): how far prepare() has come, read without
    training anything (a build's progress lines say it: figures/engine/progress.py)."""
    folder = cache_folder()
    kept = 0 if folder is None else sum(store.sealed_path(folder / f"{code_digest(s)}.json").is_file()
                                        for s in lm_train.SEEDS)
    return kept, len(lm_train.SEEDS)


def prepare() -> None:
    """Train every seed and measure its heads now (measuring trains the seed first, in the same
    process), keeping both on disk, unless they are there already: what seed-roles' PREPARE runs
    before its frame is drawn or its data table made (figures.engine.render). With the disk cache
    off they are kept in this process's memory (seed_heads), where figures.engine.render then runs
    it and draws the figure; with a cache that cannot be written, nowhere, so nothing is done."""
    folder = cache_folder()
    if folder is None or store.cache_writable(folder):
        all_seeds()


# --------------------------------------------------------------------------------------------
# the table `python -m mha_ref.tiny.lm_heads` prints
# --------------------------------------------------------------------------------------------

def _pct(x: float) -> str:
    return f"{100 * x:.0f}"


def _arc(key: str, a: roles.ArcScore) -> str:
    """'nsubj:dep->head' -> 'nsubj>' (dependent to head), 'nsubj<' (head to dependent), with accuracy/baseline %."""
    relation, direction = key.split(":", 1)
    return f"{relation}{'>' if direction == voita.DIRECTIONS[0] else '<'}{_pct(a.accuracy)}/{_pct(a.baseline)}"


def head_row(v: HeadVerdict, importance: float, pruned_at: int) -> str:
    """One head on one line: confidence, top offset and its share, rare share, importance and when it
    was pruned, its roles, the relations it is syntactic on, and the arcs kept apart (dependent to head)."""
    m = v.measures
    mark = "".join(r[0].upper() for r in v.roles) or "-"
    syntactic = " ".join(_arc(k, m.relation_hits[k]) for k in v.syntactic)
    apart = " ".join(_arc(k, a) for k, a in v.apart.items() if k.endswith(voita.DIRECTIONS[0]))
    return (f"  {v.name} conf {m.confidence:.2f} top {m.offset:+d} {_pct(m.offset_share):>2}% rare {_pct(m.rare_share):>2}% "
            f"imp {importance:.2f} #{pruned_at} {mark:<3} {syntactic}{' ' if syntactic else ''}| {apart}")


def seed_table(s: SeedHeads, steps: Sequence[int] = (2, 4, 6)) -> str:
    """A seed's heads, one line each, then its pruning: order, survivors, and at a few steps the
    importance order's loss and accuracy beside the random orders' [min median max]."""
    names = [v.name for v in s.heads]
    pruned_at = {h: k + 1 for k, h in enumerate(s.pruning.order)}
    lines = [f"seed {s.seed}"]
    lines += [head_row(v, float(s.importance.flat[v.index]), pruned_at[v.index]) for v in s.heads]
    lines.append("  order " + " ".join(names[h] for h in s.pruning.order) + "; survivors "
                 + " ".join(f"{names[h]}[{''.join(r[0].upper() for r in s.heads[h].roles) or '-'}]"
                            for h in s.pruning.survivors))
    for name in ("loss", "accuracy"):
        band = imp.spread(s.pruning.random_curves, name)
        cells = [f"{k}: {imp.measure_of(s.pruning.curve[k], name):.3f} [{band.low[k]:.3f} {band.median[k]:.3f} "
                 f"{band.high[k]:.3f}]" for k in steps]
        lines.append(f"  {name} full {imp.measure_of(s.pruning.curve[0], name):.3f}; masked " + ", ".join(cells))
    return "\n".join(lines)


def main() -> None:
    print(f"seeds {lm_train.SEEDS}; roles on {lm_train.CONFIG.held_out} held-out sentences, importance on "
          f"{IMPORTANCE_SENTENCES} training sentences, pruning on {PRUNE_SENTENCES} held-out ones.\n"
          f"top: most frequent top-key offset, its share; #: pruning step (least important first); roles "
          f"P positional, S syntactic, R rare; then syntactic relations and, after |, coref and repeat "
          f"(> dependent to head, < head to dependent: accuracy/baseline %); masked k: importance order "
          f"[{RANDOM_ORDERS} random orders' min median max]")
    for s in all_seeds():
        print(seed_table(s), flush=True)
    q = quantities()
    print("over seeds: " + "; ".join(f"{name} = {q[name]():.4g}" for name in q))


if __name__ == "__main__":
    main()
