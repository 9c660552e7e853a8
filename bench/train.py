"""python -m bench.train [page4|lm]: how long training the heads' models takes, cold, and how well they do.

page4 (mha_ref.tiny.train): a fresh Python process with its own empty cache folder
(MHA_FIGURE_CACHE in a temporary folder) calls train.trained(), which trains train.CONFIG and saves
the weights. Warm: another fresh process with the same folder loads them. Each is timed on the
clock, whole (interpreter, imports and all) and inside the call, and in CPU time. The cold build
must stay under BUDGET. Then the heads of those weights, measured as mha_ref.trained measures them.

lm (mha_ref.tiny.lm_train, the masked language model): for each of lm_train.SEEDS, a fresh process
with an empty cache trains that seed cold, timed the same way, then reports its held-out
masked-token accuracy, overall and per relation (lm.evaluate). Without an argument, both.
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
# The child: trained() timed, and whether the weights' file was there before it ran.
CHILD = '''
import json, resource, time
start = time.perf_counter()
from mha_ref.tiny import train
path = train.cache_folder() / f"{train.code_digest()}.npz"
existed = path.exists()
call = time.perf_counter()
t = train.trained()
done = time.perf_counter()
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"existed": existed, "exists": path.exists(), "call": done - call, "in_process": done - start,
                  "cpu": usage.ru_utime + usage.ru_stime, "final_loss": float(t.losses[-1]),
                  "first_loss": float(t.losses[0])}))
'''


# The child for the masked language model: trained(seed) timed, then evaluated on the held-out sentences.
LM_CHILD = '''
import json, resource, sys, time
start = time.perf_counter()
from mha_ref.tiny import lm, lm_train
seed = int(sys.argv[1])
path = lm_train.cache_folder() / f"{lm_train.code_digest(lm_train.CONFIG, seed)}.npz"
existed = path.exists()
call = time.perf_counter()
t = lm_train.trained(seed)
done = time.perf_counter()
usage = resource.getrusage(resource.RUSAGE_SELF)
e = lm.evaluate(t.model, lm_train.held_out())
print(json.dumps({"existed": existed, "exists": path.exists(), "call": done - call, "in_process": done - start,
                  "cpu": usage.ru_utime + usage.ru_stime, "final_loss": float(t.losses[-50:].mean()),
                  "first_loss": float(t.losses[0]), "loss": e.loss, "accuracy": e.accuracy,
                  "per_relation": e.per_relation}))
'''


def run_child(cache: Path, child: str = CHILD, *args: str) -> tuple[float, dict]:
    """(seconds on the clock for the whole process, what the child reports) in a fresh process."""
    env = dict(os.environ, MHA_FIGURE_CACHE=str(cache))
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", child, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit(f"bench.train: the child process failed:\n{run.stderr[-3000:]}")
    return seconds, json.loads(run.stdout)


def heads_table() -> str:
    """The heads of the weights in MHA_FIGURE_CACHE, measured on the held-out sentences."""
    from mha_ref.tiny import trained
    lines = [f"{'head':>4} {'confidence':>10} {'offset':>6} {'share':>6} {'rare':>6} "
             f"{'antecedent':>10} {'nsubj':>6}  roles"]
    for h in trained.heads():
        lines.append(f"{h.head:>4} {h.confidence:10.2f} {h.offset:>+6d} {h.offset_share:6.0%} {h.rare_share:6.0%} "
                     f"{h.relation_share['antecedent']:10.0%} {h.relation_share['nsubj']:6.0%}  "
                     f"{', '.join(h.roles) or '-'}")
    fixed = "; ".join(f"{r} {o:+d} ({s:.0%})" for r in trained.RELATIONS for o, s in [trained.best_fixed_offset(r)])
    lines.append(f"best fixed offset per relation (what a positional head scores on it): {fixed}")
    lines.append(f"{trained.heads()[0].queries} queries over {len(trained.held_out())} held-out sentences")
    return "\n".join(lines)


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
    which = sys.argv[1:] or ["page4", "lm"]
    if set(which) - {"page4", "lm"}:
        sys.exit("usage: python -m bench.train [page4|lm]")
    if "page4" in which:
        page4()
    if "lm" in which:
        lm_seeds()
    print(f"\n{os.cpu_count()} cores; load average now: {os.getloadavg()[0]:.2f}")
    return 0


def page4() -> None:
    from mha_ref.tiny import train
    load = os.getloadavg()[0]  # other work on the machine slows both runs on the clock
    with tempfile.TemporaryDirectory(prefix="mha-bench-train-") as tmp:
        cache = Path(tmp)
        print(f"bench.train: training {train.CONFIG} in a fresh process, cache {cache} ...", flush=True)
        cold_seconds, cold = run_child(cache)
        warm_seconds, warm = run_child(cache)
        if cold["existed"] or not cold["exists"] or not warm["existed"]:
            sys.exit(f"bench.train: the cold run must train and save, the warm one load: {cold}, {warm}")
        print(f"{'run':<6} {'process s':>9} {'trained() s':>11} {'cpu s':>7} {'budget':>8}")
        print(f"{'cold':<6} {cold_seconds:9.2f} {cold['call']:11.2f} {cold['cpu']:7.2f} {f'<= {BUDGET:.0f}':>8}"
              f"  {'within' if cold_seconds <= BUDGET else 'OVER'} budget")
        print(f"{'warm':<6} {warm_seconds:9.2f} {warm['call']:11.2f} {warm['cpu']:7.2f}")
        print(f"training loss {cold['first_loss']:.3f} at the first step, {cold['final_loss']:.3f} at the last "
              f"({train.CONFIG.steps} steps of {train.CONFIG.batch} sentences)")
        os.environ["MHA_FIGURE_CACHE"] = str(cache)  # the measures below load the warm run's weights
        print()
        print(heads_table())
    print(f"load average at the start: {load:.2f}\n")


if __name__ == "__main__":
    sys.exit(main())
