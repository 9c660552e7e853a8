"""python -m bench.train: how long training page 4's model takes, cold, and how well it does.

For each of lm_train.SEEDS (mha_ref.tiny.lm_train, the masked language model), a fresh Python process
with its own empty cache folder (MHA_FIGURE_CACHE in a temporary folder) trains that seed cold, timed
on the clock, whole (interpreter, imports and all) and inside the call, and in CPU time; then it
reports its held-out masked-token accuracy, overall and per relation (lm.evaluate). Each cold train
is read against BUDGET.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET = 60.0  # seconds a cold train may take: it runs inside a cold build of the site
# The child for the masked language model: trained(seed) timed, then evaluated on the held-out sentences.
LM_CHILD = '''
import json, resource, sys, time
start = time.perf_counter()
from figures.keep import disk, tiny_lm
from mha_ref.tiny import lm, lm_train
seed = int(sys.argv[1])
path = disk.sealed_path(tiny_lm.weights_folder() / f"{tiny_lm.weights_digest(lm_train.CONFIG, seed)}.npz")
existed = path.exists()
call = time.perf_counter()
t = tiny_lm.trained(seed)
done = time.perf_counter()
usage = resource.getrusage(resource.RUSAGE_SELF)
e = lm.evaluate(t.model, lm_train.held_out())
print(json.dumps({"existed": existed, "exists": path.exists(), "call": done - call, "in_process": done - start,
                  "cpu": usage.ru_utime + usage.ru_stime, "final_loss": float(t.losses[-50:].mean()),
                  "first_loss": float(t.losses[0]), "loss": e.loss, "accuracy": e.accuracy,
                  "per_relation": e.per_relation}))
'''


def run_child(cache: Path, child: str, *args: str) -> tuple[float, dict]:
    """(seconds on the clock for the whole process, what the child reports) in a fresh process."""
    env = dict(os.environ, MHA_FIGURE_CACHE=str(cache))
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", child, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit(f"bench.train: the child process failed:\n{run.stderr[-3000:]}")
    return seconds, json.loads(run.stdout)


def lm_seeds() -> None:
    """Each seed of the masked language model trained cold in a fresh process, and its held-out accuracy."""
    from mha_ref.tiny import language, lm_train
    c = lm_train.CONFIG
    print(f"bench.train: the masked language model, {c.model}, {c.steps} steps of {c.batch} sentences, "
          f"seeds {lm_train.SEEDS}, each in a fresh process with an empty cache ...", flush=True)
    relations = language.RELATIONS
    print(f"{'seed':>4} {'process s':>9} {'trained() s':>11} {'cpu s':>7} {'budget':>8} {'load':>5} "
          f"{'loss':>6} {'acc':>5}  " + " ".join(f"{r:>6}" for r in relations))
    for seed in lm_train.SEEDS:
        load = os.getloadavg()[0]
        with tempfile.TemporaryDirectory(prefix="mha-bench-lm-") as tmp:
            seconds, cold = run_child(Path(tmp), LM_CHILD, str(seed))
        if cold["existed"] or not cold["exists"]:
            sys.exit(f"bench.train: the cold run must train and save: {cold}")
        print(f"{seed:>4} {seconds:9.2f} {cold['call']:11.2f} {cold['cpu']:7.2f} {f'<= {BUDGET:.0f}':>8} {load:5.2f} "
              f"{cold['loss']:6.3f} {cold['accuracy']:5.1%}  "
              + " ".join(f"{cold['per_relation'].get(r, float('nan')):6.1%}" for r in relations)
              + f"  {'within' if seconds <= BUDGET else 'OVER'} budget")
    arcs = [a.relation for s in lm_train.held_out() for a in s.arcs]
    print(f"{len(lm_train.held_out())} held-out sentences, each token masked alone; masked tokens per relation: "
          + ", ".join(f"{r} {arcs.count(r)}" for r in relations))


def main() -> int:
    if sys.argv[1:] not in ([], ["lm"]):
        sys.exit("usage: python -m bench.train")
    lm_seeds()
    print(f"\n{os.cpu_count()} cores; load average now: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
