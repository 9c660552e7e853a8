"""Page 4's model trained and measured once, kept on disk: mha_ref/tiny computes, this keeps.

trained(seed) keeps lm_train.train's weights in the figure cache's folder (disk.cache_folder) under
trained-lm/<digest>.npz, seed_heads(seed) lm_heads.measured's measurements of them under
lm-heads/<digest>.json, and training_counts() the token counts 'rare' is measured against under
lm-heads/counts-<digest>.npy (disk.kept_or_made, sealed). Each digest covers the code that makes the
result (reach.CodeReach from the function that makes it, comments and docstrings left out), the
configuration, the seed, numpy's and Python's versions and the arithmetic it runs in
(mha_ref/tiny/arithmetic.py): training and measuring run in a process of their own, pinned to one
arithmetic. A process that finds another making the same file waits for it (a lock per file); a
file that cannot be read, or is another seed's, is dropped with a warning and made again;
MHA_FIGURE_CACHE=0, or a folder that cannot be written, keeps the results in memory only.

`python -m figures.numbers.seeds` prints what is kept here.
"""

from __future__ import annotations

import functools
import io
import platform
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from mha_ref import roles
from mha_ref.tiny import arithmetic, lm, lm_heads, lm_train
from mha_ref.tiny import importance as imp

from . import as_json, disk, reach, switches

# ---- the weights --------------------------------------------------------------------------------

@functools.lru_cache(maxsize=16)  # a process reads the code it runs once; serve re-imports after an edit
def weights_digest(config: lm_train.LMTrainConfig = lm_train.CONFIG, seed: int = 0) -> str:
    """sha256 of what decides the weights: the code lm_train.train reaches (without comments or
    docstrings), the config, the seed, numpy's and Python's versions, and the arithmetic it runs in."""
    salt = f"{config!r} seed {seed} numpy {np.__version__} python {platform.python_version()} {arithmetic.ARITHMETIC}"
    return reach.CodeReach().digest((lm_train.__name__, "train"), salt=salt)


def weights_folder() -> Path | None:
    """Where trained weights are kept: under the figure cache's folder (disk.cache_folder), None if off."""
    return disk.cache_folder("trained-lm")


def dump(t: lm_train.TrainedLM) -> bytes:
    """The weights and losses as an .npz."""
    out = io.BytesIO()
    np.savez(out, **lm.named_arrays(t.model), losses=t.losses)
    return out.getvalue()


def load(data: bytes, config: lm_train.LMTrainConfig, seed: int) -> lm_train.TrainedLM:
    template = lm.init(config.model, 0)  # the shapes; every array is replaced by the file's
    with np.load(io.BytesIO(data)) as a:
        model = lm.replace_arrays(template, [a[name] for name in lm.named_arrays(template)])
        return lm_train.TrainedLM(model, a["losses"], config, seed)


REFUSE = "MHA_NO_TRAINING"  # 1: training page 4's model (lm_train.CONFIG) fails (the fast test loop sets it)


class TrainingRefused(RuntimeError):
    """Page 4's model was to be trained where MHA_NO_TRAINING=1 forbids it."""


def training_refused() -> bool:
    """Whether MHA_NO_TRAINING turns training page 4's model off (a value it does not take: EnvError)."""
    return switches.env_switch(REFUSE, False)


def _unless_refused(make: Callable, what: str) -> Callable:
    """make, or, with MHA_NO_TRAINING on, a function refusing in one line to train `what`: the fast
    test loop sets it, so that a test reaching the model in a process of its own fails at once
    instead of training for minutes (tests/conftest.py)."""
    def refused():
        raise TrainingRefused(f"page 4's model, {what}, would be trained here, and {REFUSE}=1 forbids it "
                              "(the fast test loop sets it: a test that reaches the model is marked trained)")
    return refused if training_refused() else make


@functools.lru_cache(maxsize=16)
def _trained(config: lm_train.LMTrainConfig, seed: int, digest: str, folder: Path | None) -> lm_train.TrainedLM:
    make = functools.partial(arithmetic.run, lm_train.__name__, "train", config, seed)
    return disk.kept_or_made(None if folder is None else folder / f"{digest}.npz",
                             functools.partial(load, config=config, seed=seed),
                             _unless_refused(make, f"seed {seed}") if config == lm_train.CONFIG else make,
                             dump, "trained weights")


def trained(seed: int = 0, config: lm_train.LMTrainConfig = lm_train.CONFIG) -> lm_train.TrainedLM:
    """The model trained with seed and config: from the disk cache when this code trained it before."""
    return _trained(config, seed, weights_digest(config, seed), weights_folder())


# ---- the measurements ---------------------------------------------------------------------------

def heads_folder() -> Path | None:
    """Where the measurements are kept: under the figure cache's folder (disk.cache_folder), None if off."""
    return disk.cache_folder("lm-heads")


@functools.lru_cache(maxsize=4)
def training_counts(config: lm_train.LMTrainConfig = lm_train.CONFIG) -> np.ndarray:
    """lm_heads.training_counts, kept beside the measurements under a digest of the code that counts
    and the configuration: a build reads it instead of writing out every training sentence again."""
    folder = heads_folder()
    salt = f"{config!r} numpy {np.__version__} python {platform.python_version()}"
    digest = reach.CodeReach().digest((lm_heads.__name__, "training_counts"), salt=salt)
    counts = disk.kept_or_made(None if folder is None else folder / f"counts-{digest}.npy",
                               lambda data: np.load(io.BytesIO(data), allow_pickle=False),
                               lambda: lm_heads.training_counts(config), _npy, "the training sentences' token counts")
    counts.setflags(write=False)  # shared by every caller
    return counts


def _npy(a: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.save(out, a, allow_pickle=False)
    return out.getvalue()


@functools.lru_cache(maxsize=16)
def seed_heads(seed: int) -> lm_heads.SeedHeads:
    """lm_heads.measured of this seed's trained model. Kept on disk beside the weights (heads_folder)
    under a digest of the code measuring reaches, the weights' code included (heads_digest): every
    process of a build, and every later build, reads it from there."""
    folder = heads_folder()
    return disk.kept_or_made(None if folder is None else folder / f"{heads_digest(seed)}.json",
                             _read, functools.partial(arithmetic.run, __name__, "_measured", seed), _dump,
                             "head measurements")


def _measured(seed: int) -> lm_heads.SeedHeads:
    return lm_heads.measured(trained(seed).model, seed, training_counts())


KEPT_TYPES = (lm_heads.SeedHeads, lm_heads.HeadVerdict, lm_heads.Pruning, roles.HeadMeasures, roles.ArcScore,
              imp.CurveStep)


def _read(data: bytes) -> lm_heads.SeedHeads:
    s = as_json.from_json(data.decode("utf-8"), KEPT_TYPES)
    if not isinstance(s, lm_heads.SeedHeads):
        raise ValueError(f"a kept {type(s).__name__}, not SeedHeads")
    return s


def _dump(s: lm_heads.SeedHeads) -> bytes:
    return as_json.to_json(s).encode("utf-8")


@functools.lru_cache(maxsize=32)  # a process reads the code it runs once; serve re-imports after an edit
def heads_digest(seed: int) -> str:
    """sha256 of what decides a seed's measurements: the code _measured() reaches (lm_heads.measured
    and trained(); comments and docstrings left out), the weights' digest (lm_train.train runs in a
    pinned process, called by its name in a string, so no name reaches it), the seed, numpy's and
    Python's versions, and the arithmetic it runs in."""
    salt = (f"seed {seed} weights {weights_digest(lm_train.CONFIG, seed)} numpy {np.__version__} "
            f"python {platform.python_version()} {arithmetic.ARITHMETIC}")
    return reach.CodeReach(by_name=("mha_ref", "figures")).digest((__name__, "_measured"), salt=salt)


def all_seeds(seeds: Sequence[int] = lm_train.SEEDS) -> tuple[lm_heads.SeedHeads, ...]:
    """Every seed's heads: the roles per head per seed and the pruning order a figure draws. Seeds
    not kept yet are trained and measured side by side (_side_by_side), not one after the other."""
    return tuple(_side_by_side(seed_heads, seeds))


def _side_by_side(each: Callable[[int], lm_heads.SeedHeads], seeds: Sequence[int]) -> list[lm_heads.SeedHeads]:
    """[each(seed) for seed in seeds], the seeds side by side, one per core: each training and
    measurement runs in a process of its own (arithmetic.run); where the arithmetic cannot be pinned
    they run here, one after the other. Another process that needs the same seed waits for it (a
    lock per kept file) and reads it."""
    side_by_side = min(len(seeds), switches.cores()) if arithmetic.pins() else 1
    if side_by_side <= 1:
        return [each(s) for s in seeds]
    with ThreadPoolExecutor(side_by_side) as threads:
        return list(threads.map(each, seeds))


def progress() -> tuple[int, int]:
    """(seeds whose measurements are kept on disk, seeds): how far prepare() has come, read without
    training anything (a build's progress lines say it: figures/engine/progress.py)."""
    folder = heads_folder()
    kept = 0 if folder is None else sum(disk.sealed_path(folder / f"{heads_digest(s)}.json").is_file()
                                        for s in lm_train.SEEDS)
    return kept, len(lm_train.SEEDS)


def prepare() -> None:
    """Train every seed and measure its heads now (measuring trains the seed first, in the same
    process), keeping both on disk, unless they are there already: what seed-roles' PREPARE runs
    before its frame is drawn or its data table made (figures.engine.render). With the disk cache
    off they are kept in this process's memory (seed_heads), where figures.engine.render then runs
    it and draws the figure; with a cache that cannot be written, nowhere, so nothing is done."""
    folder = heads_folder()
    if folder is None or disk.cache_writable(folder):
        all_seeds()
