"""python -m bench: how long `mkdocs build --strict` takes in each case, against the floor.

Every case builds a temporary copy of this checkout with its own, initially empty figure cache:
cold without the figures' downloads (MHA_DOWNLOADS=0: the pages' SVGs only), cold with them (the
site as published: every frame also as PDF and PNG, and the all-frames zips), warm (nothing changed), after an edit to one figure module, to one
mha_ref function, to comments and docstrings only, and to one page's prose (each edit case three times, with
another edit each time: the median). Before each build the disk is synced. The floor is the same build with the
figure files handed over ready-made, so it measures everything but the figures.

Everything it writes stays in one temporary folder (its copy, and the builds' own temporary files,
TMPDIR pointing inside it), removed when it ends, also on Ctrl-C (SIGINT) or SIGTERM; it edits
files only in its copy, never in this checkout.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the checkout's copier, shared with the test suite
from checkout_copy import copy_checkout  # noqa: E402
GEN_SCRIPT = "figures/site/gen_figures.py"
# The floor's gen-files script: the figures of an earlier build, placed as they are (linked into the
# site, as the build links what it takes from the cache: figures/site/linked.py).
FLOOR_SCRIPT = '''
import os
from pathlib import Path

import mkdocs_gen_files

from figures.site import linked

config = mkdocs_gen_files.config
i18n = config.plugins["i18n"]
lang = i18n.current_language
src = Path(os.environ["BENCH_FIGURES"]) / ("figures" if lang == i18n.default_language else f"{lang}/figures")
linked.start(config)
for path in sorted(p for p in src.rglob("*") if p.is_file()):  # frames, downloads and tables
    linked.place(config, f"figures/{path.relative_to(src).as_posix()}", path)
'''
# Not ours: what the bare floor's configuration leaves out of mkdocs.yml (with everything indented under it)
OURS = ("hooks:", "- gen-files:", "- mike:", "- offline:", "custom_dir:", "strict:")
DOWNLOADS_GOAL = 1.5  # the cold build with downloads, in cold builds without them
# (case, file, text before, text after, the most this case may take, in floors). Each case is
# built EDIT_RUNS times, each time with another edit (the text after, with {i} the run's number: an
# edit made before would find its pages and frames kept), and reported by the median: one build is
# too noisy a sample on a shared machine
EDITS = [
    ("one figure edited", "figures/gallery/peak_dip.py", '"blend ratio"', '"blend ratio (edited {i})"', 1.5),
    ("one mha_ref function edited", "mha_ref/example/scale.py", "    q, k = query_and_keys(d_k)\n",
     "    q, k = query_and_keys(d_k)\n    d_k = int(d_k) + 0 * {i}\n", None),
    ("mha_ref comments only", "mha_ref/attention.py", "import numpy as np\n",
     "import numpy as np  # a comment, {i}\n", 1.2),
    ("one page's prose edited", "docs/one-head-blends.en.md", "\n## ", "\nOne more sentence of prose, {i}.\n\n## ", 1.2),
]
EDIT_RUNS = 3
BARE_GOALS = {"warm": 3.0, "one page's prose edited": 3.0, "one figure edited": 4.0}  # in bare floors


def bare_config(text: str) -> str:
    """mkdocs.yml without what this site adds to MkDocs, Material and static-i18n (OURS: the hooks,
    gen-files' figures, mike, the offline plugin, the theme's overrides, strict): the same pages,
    languages, search and Markdown extensions, the constructs left as text."""
    out, skip = [], None
    for line in text.splitlines(keepends=True):
        indent = len(line) - len(line.lstrip())
        if skip is not None and (not line.strip() or indent > skip):
            continue
        skip = None
        if line.strip().startswith(OURS):
            skip = indent
            continue
        out.append(line)
    return "".join(out)


def build(repo: Path, config: str = "mkdocs.yml", strict: bool = True, **env: str) -> tuple[float, float, int | None]:
    """Seconds a build of `repo` (strict unless told) takes, on the clock and in CPU time (every process it ran,
    which other work on the machine does not inflate), and the frames it drew (None: not reported)."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", MHA_FIGURE_CACHE=str(repo / ".cache" / "figures"),
               TMPDIR=str(repo.parent / "tmp"), **env)  # mkdocs' temporary folders go with ours, even if it is killed
    os.sync()  # what the case before wrote reaches the disk first: no case pays for another's writing
    start, cpu = time.perf_counter(), _children_cpu()
    # a session of its own, so that a stopped bench ends the build with every process under it
    # (drawing workers, the training) before it removes the folder they write into
    run = subprocess.Popen([sys.executable, "-m", "mkdocs", "build", *(["--strict"] if strict else []), "-f", config,
                            "-d", str(repo / ("site" if strict else "site-bare"))],
                           cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    try:
        _, stderr = run.communicate()
    except BaseException:
        _end_group(run)
        raise
    seconds, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if run.returncode != 0:
        sys.exit(f"bench: the build failed in {repo}:\n{stderr[-3000:]}")
    drawn = [int(n) for n in re.findall(r"(\d+) frames drawn", stderr)]
    return seconds, cpu, sum(drawn) if drawn else None


def _end_group(run: subprocess.Popen, patience: float = 10.0) -> None:
    """Kill a build and every process of its session, and wait (up to `patience` s) until none is left."""
    try:
        os.killpg(run.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    run.wait()
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        try:
            os.killpg(run.pid, signal.SIGKILL)  # one that forked as the others died
        except ProcessLookupError:
            return
        time.sleep(0.05)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    if old not in text:
        sys.exit(f"bench: {path} no longer contains {old!r}; update bench/__main__.py")
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def variant_costs() -> str:
    """What the page's looks of a frame cost against its SVG: the dark look written into it
    (engine.dark.both, as the site writes every SVG) and the narrow drawing: every figure's start
    frame in both languages, drawn in this process, one after the other."""
    from figures.engine import dark, registry
    from figures.engine.render import frames, render_set
    from figures.site.figure_block import opening_frame
    from figures.kit.words import LANGS
    chosen = [(frames(i)[opening_frame(i, None, "bench")], lang) for lang in LANGS for i in registry.ORDER]
    for frame, lang in chosen[:4]:  # imports and first measurements out of the way
        render_set(frame, lang, ("svg", "narrow.svg"))
    seconds = {"svg": 0.0, "dark": 0.0, "narrow": 0.0}
    for frame, lang in chosen:
        start = time.perf_counter()
        svg, = render_set(frame, lang, ("svg",))
        seconds["svg"] += time.perf_counter() - start
        start = time.perf_counter()
        dark.both(svg)
        seconds["dark"] += time.perf_counter() - start
        start = time.perf_counter()
        render_set(frame, lang, ("narrow.svg",))
        seconds["narrow"] += time.perf_counter() - start
    each = {k: 1000 * v / len(chosen) for k, v in seconds.items()}
    return (f"looks, per frame ({len(chosen)} start frames): the SVG {each['svg']:.0f} ms; its dark look written in "
            f"{each['dark']:.1f} ms ({each['dark'] / each['svg']:.2f}x); the narrow drawing {each['narrow']:.0f} ms "
            f"({each['narrow'] / each['svg']:.2f}x), and its dark look the same again as the wide one's")


def _stopped(signum, frame):
    """SIGTERM ends bench as Ctrl-C does: the build under way is killed (subprocess.run) and the
    temporary folder removed on the way out."""
    raise KeyboardInterrupt


def main(argv=None) -> int:
    argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    signal.signal(signal.SIGTERM, _stopped)
    try:
        return _run()
    except KeyboardInterrupt:
        print("bench: stopped; its temporary folder is removed", file=sys.stderr)
        return 130


def _run() -> int:
    load = os.getloadavg()[0]  # other work on the machine slows every case on the clock
    rows: list[tuple[str, float, float, int | None, float | None]] = []  # case, seconds, cpu, drawn, goal
    with tempfile.TemporaryDirectory(prefix="mha-bench-") as tmp:
        (Path(tmp) / "tmp").mkdir()
        repo = copy_checkout(Path(tmp) / "repo")
        print(f"bench: building a copy of {ROOT} in {tmp}, {9 + EDIT_RUNS * len(EDITS)} times ...", flush=True)
        rows.append(("cold, no downloads", *build(repo, MHA_DOWNLOADS="0"), 4.0))
        shutil.rmtree(repo / ".cache" / "figures")  # cold again
        rows.append(("cold with downloads", *build(repo), 4.0))
        rows.append(("warm", *build(repo), 1.2))
        # the floor: three builds with ready-made figures (those of the warm build), the median
        shutil.copytree(repo / "site", Path(tmp) / "figures", ignore=shutil.ignore_patterns("*.html", "*.js", "*.css"))
        config = (repo / "mkdocs.yml").read_text(encoding="utf-8")
        assert GEN_SCRIPT in config, f"mkdocs.yml no longer runs {GEN_SCRIPT}"
        (repo / "bench_floor.py").write_text(FLOOR_SCRIPT, encoding="utf-8")
        (repo / "mkdocs-floor.yml").write_text(config.replace(GEN_SCRIPT, "bench_floor.py"), encoding="utf-8")
        floors = [build(repo, "mkdocs-floor.yml", BENCH_FIGURES=str(Path(tmp) / "figures"))[:2] for _ in range(3)]
        floor, floor_cpu = (statistics.median(f[i] for f in floors) for i in (0, 1))
        # the bare floor: MkDocs, Material and static-i18n alone on the same pages, nothing of ours
        (repo / "mkdocs-bare.yml").write_text(bare_config(config), encoding="utf-8")
        bares = [build(repo, "mkdocs-bare.yml", strict=False)[:2] for _ in range(3)]
        bare, bare_cpu = (statistics.median(f[i] for f in bares) for i in (0, 1))
        for case, rel, old, new, goal in EDITS:
            original, runs = (repo / rel).read_text(encoding="utf-8"), []
            for i in range(1, EDIT_RUNS + 1):
                (repo / rel).write_text(original, encoding="utf-8")
                edit(repo / rel, old, new.format(i=i))
                runs.append(build(repo))
            seconds, cpu = (statistics.median(r[k] for r in runs) for k in (0, 1))
            rows.append((case, seconds, cpu, runs[0][2], goal))  # frames drawn: each run draws the same
    print(f"{'case':<30} {'seconds':>8} {'x floor':>8} {'goal':>7} {'frames drawn':>13} {'cpu s':>7} {'x floor':>8}"
          f" {'x bare':>7} {'goal':>7}")
    print(f"{'floor (median of 3)':<30} {floor:8.2f} {1:8.2f} {'':>7} {'-':>13} {floor_cpu:7.2f} {1:8.2f}"
          f" {floor / bare:7.2f}")
    print(f"{'bare floor (median of 3)':<30} {bare:8.2f} {bare / floor:8.2f} {'':>7} {'-':>13} {bare_cpu:7.2f}"
          f" {bare_cpu / floor_cpu:8.2f} {1:7.2f}")
    for case, seconds, cpu, drawn, goal in rows:
        bare_goal = BARE_GOALS.get(case)
        print(f"{case:<30} {seconds:8.2f} {seconds / floor:8.2f} {f'<= {goal}' if goal else '':>7} "
              f"{'?' if drawn is None else drawn:>13} {cpu:7.2f} {cpu / floor_cpu:8.2f} {seconds / bare:7.2f}"
              f" {f'<= {bare_goal}' if bare_goal else '':>7}")
    (_, plain, plain_cpu, *_), (_, full, full_cpu, *_) = rows[:2]
    print(f"downloads: the cold build with them takes {full / plain:.2f}x the one without "
          f"({full_cpu / plain_cpu:.2f}x in cpu time); goal <= {DOWNLOADS_GOAL}")
    print(variant_costs())
    print(f"floor runs: {', '.join(f'{s:.2f}' for s, _ in floors)} s; bare floor runs: "
          f"{', '.join(f'{s:.2f}' for s, _ in bares)} s; {os.cpu_count()} cores; "
          f"load average at the start: {load:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
