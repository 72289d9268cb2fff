"""`make bench`: what a runbook run costs next to papermill's own floor, interleaved and repeated.

Standard library only; run it with any Python 3.11+ (the Makefile uses the project's). It measures:

1. an empty parameterized notebook (bench/empty.ipynb) through a STOCK environment (`pip install papermill
   jupyterlab` in bench/.venv-stock, created on first use) against the whole runbook in the project's
   environment, `make run` and `runbook run`, each on a fresh lab root (`runbook lab-init`, not timed);
   for reference also plain `.venv/bin/papermill` on the runbook, the empty notebook through our runner,
   and the runbook through our runner without papermill's per-cell saves (what those saves cost);
   and the command the mission types, plain `papermill notebooks/run.ipynb out.ipynb -p root R`, in a NODE
   install (bench/.venv-node: `pip install .`, no extras), with the empty notebook in that same install,
   paired round by round with the stock empty run, and the same notebook with every code cell `pass`
   (node_floor: what the notebook's shape alone costs plain papermill); then where that run's time goes
   (bench/papermill_phases.py: imports, kernel start, cells, papermill's saves, the kernel's stop);
2. the runbook's own code cells (the durations papermill records in the executed notebook) and the kernel
   start alone (bench/kernel_start.py) in both environments;
3. the edit alone (bench/edit_bench.py) on containerd 1.6's default config and on grown configs;
4. N roots one after another (N separate `runbook run`) against one `runbook run --jobs 2` over the N roots;
5. peak memory of a run: the largest process (wait4's ru_maxrss) and the sum over the run's process tree
   (sampled from /proc every 10 ms).

Each round runs every command once, in a rotated order, so slow drifts of the machine's load hit all of
them alike; the report gives medians over rounds and the ratios of those medians (and the median of the
per-round ratios). Wall time is what a user waits; CPU time (user+sys of the whole process tree) is given
beside it because it is far less disturbed by other work on the machine.

    python bench/run.py [--quick] [--rounds 5] [--par-rounds 2] [--roots 20] [--class-rounds 3] [--out bench/results/latest.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"
PROJECT_BIN = REPO / ".venv" / "bin"
PROJECT_PY = PROJECT_BIN / "python"
STOCK = BENCH / ".venv-stock"
STOCK_BIN = STOCK / "bin"
NODE = BENCH / ".venv-node"  # `pip install .`: no lab/test/fleet extras, as the Ansible role and DaemonSet install it
NODE_BIN = NODE / "bin"
EMPTY = BENCH / "empty.ipynb"
PAGE = os.sysconf("SC_PAGE_SIZE")
MIB = 1024 * 1024

TARGETS = {
    "class: papermill loop / runbook grade --jobs 2 (wall, median per round)": 40,
    "class --jobs 2: peak memory of all processes, MiB (PSS)": 300,
    "course of 240: runbook grade --jobs 2, end to end (wall s, median)": 10,
    "course of 240 --jobs 2: peak memory of all processes, MiB (PSS)": 300,
    "node_plain / node_floor (wall, median per round)": 1.10,
    "node_plain / stock_empty (wall, median per round)": 0.55,
    "make_run / stock_empty (wall)": 0.40,
    "runbook_run / stock_empty (wall)": 0.55,
    "code cells, s": 0.3,
    "edit on 1.6 default, ms": 50,
    "20 roots: sequential / jobs2": 1.7,
    "peak memory per run, MiB": 150,
}


# --- running one command ---------------------------------------------------------------------------------


def _tree_rss(root_pid: int, pss: bool = False):
    """Resident bytes of root_pid and every descendant, from /proc (a sample); with pss, (RSS, PSS)."""
    parent: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                parent[int(entry.name)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                pass
    pids, frontier = {root_pid}, [root_pid]
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    while frontier:
        for child in children.get(frontier.pop(), []):
            if child not in pids:
                pids.add(child)
                frontier.append(child)
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            pass
    return total if not pss else (total, _tree_pss(pids))


def _tree_pss(pids) -> int:
    """Proportional set size summed over the processes: a page shared by k of them counts 1/k in each, so the sum
    is the memory the tree really holds (RSS counts a page the zygote's forks share once in every fork)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
                for line in f:
                    if line.startswith(b"Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        except (OSError, IndexError, ValueError):
            pass
    return total


def run(cmd: list, *, cwd: Path | None = None, sample_memory: bool = False, log: Path | None = None) -> dict:
    """Run a command to completion: wall seconds, CPU seconds of its whole tree, largest process' RSS."""
    out = open(log, "ab") if log else subprocess.DEVNULL
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    t0 = time.perf_counter()
    proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, stdout=out, stderr=out, env=env)
    peak = [0, 0]
    stop = threading.Event()

    def sampler():
        while not stop.is_set():
            rss, pss = _tree_rss(proc.pid, pss=True)
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)
            stop.wait(0.01)

    thread = threading.Thread(target=sampler, daemon=True) if sample_memory else None
    if thread:
        thread.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if thread:
        stop.set()
        thread.join()
    if log:
        out.close()
    res = {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "maxrss_mib": usage.ru_maxrss / 1024,
           "rc": proc.returncode}
    if sample_memory:
        res["tree_peak_mib"] = peak[0] / MIB
        res["tree_pss_peak_mib"] = peak[1] / MIB
    return res


def check_rc(name: str, res: dict, log: Path) -> None:
    if res["rc"] not in (0,):
        tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
        raise SystemExit(f"bench: {name} exited {res['rc']}; its output ends with:\n{tail}")


# --- environments and inputs ------------------------------------------------------------------------------


def ensure_stock(log: Path) -> None:
    """bench/.venv-stock: `pip install papermill jupyterlab`, nothing of ours; created once."""
    stamp = STOCK / ".installed"
    if stamp.exists():
        return
    print("bench: creating the stock environment (pip install papermill jupyterlab) in", STOCK, flush=True)
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--clear", str(STOCK)], check=True)
    with open(log, "ab") as out:
        subprocess.run([STOCK_BIN / "python", "-m", "pip", "install", "--quiet", "--upgrade", "pip"],
                       check=True, stdout=out, stderr=out)
        subprocess.run([STOCK_BIN / "python", "-m", "pip", "install", "--quiet", "papermill", "jupyterlab"],
                       check=True, stdout=out, stderr=out)
        subprocess.run([STOCK_BIN / "python", "-m", "ipykernel", "install", "--sys-prefix", "--name", "python3"],
                       check=True, stdout=out, stderr=out)
    stamp.touch()


def ensure_node(log: Path) -> None:
    """bench/.venv-node: `pip install .` into a fresh venv once; then every time the dependencies this checkout
    adds and the package itself reinstalled, so the figure is for the code as it is now."""
    base = getattr(sys, "_base_executable", sys.executable)
    stamp = NODE / ".installed"
    had_build = (REPO / "build").exists()
    with open(log, "ab") as out:
        if not stamp.exists():
            print("bench: creating the node environment (pip install .) in", NODE, flush=True)
            subprocess.run([base, "-m", "venv", "--clear", str(NODE)], check=True)
            subprocess.run([NODE_BIN / "python", "-m", "pip", "install", "--quiet", "--upgrade", "pip"],
                           check=True, stdout=out, stderr=out)
            subprocess.run([NODE_BIN / "python", "-m", "pip", "install", "--quiet", str(REPO)],
                           check=True, stdout=out, stderr=out)
            stamp.touch()
        else:  # a dependency added since the environment was made
            subprocess.run([NODE_BIN / "python", "-m", "pip", "install", "--quiet", str(REPO)],
                           check=True, stdout=out, stderr=out)
        subprocess.run([NODE_BIN / "python", "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall",
                        str(REPO)], check=True, stdout=out, stderr=out)
    if not had_build:
        shutil.rmtree(REPO / "build", ignore_errors=True)  # setuptools' in-tree build folder


def ensure_project() -> None:
    if not (REPO / ".venv" / ".installed").exists():
        subprocess.run(["make", "-s", "-C", str(REPO), "venv"], check=True)


def versions(python: Path) -> dict:
    code = ("import json, importlib.metadata as m\nout = {}\n"
            "for d in ('papermill', 'nbclient', 'ipykernel', 'jupyterlab', 'jsonschema', 'rfc3987-syntax', 'nbconvert'):\n"
            "    try: out[d] = m.version(d)\n    except m.PackageNotFoundError: out[d] = None\n"
            "print(json.dumps(out))")
    return json.loads(subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout)


def machine() -> dict:
    info = {"nproc": os.cpu_count(), "python": platform.python_version(), "kernel": platform.release(),
            "machine": platform.machine()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["mem_gib"] = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return info


def fresh_root(parent: Path, name: str) -> Path:
    root = parent / name
    subprocess.run([PROJECT_PY, "-m", "runbook_lib.cli", "lab-init", str(root)], check=True,
                   stdout=subprocess.DEVNULL)
    return root


def code_cells(nb_path: Path) -> dict:
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    durations = [(c.get("metadata", {}).get("papermill", {}) or {}).get("duration") or 0.0
                 for c in nb["cells"] if c["cell_type"] == "code"]
    return {"cells_sum": sum(durations), "cells_n": len(durations), "cells_max": max(durations),
            "notebook_duration": nb["metadata"].get("papermill", {}).get("duration")}


# --- the scenarios -------------------------------------------------------------------------------------------


def floor_notebook(work: Path) -> Path:
    """The runbook's own cells with nothing in them: the same narrative and the same number of code cells,
    each `pass` (the parameters cell kept, for `-p root`). What plain papermill costs for the notebook's shape
    alone, before any of the runbook's work or output."""
    path = work / "floor.ipynb"
    if not path.exists():
        nb = json.loads((REPO / "notebooks/run.ipynb").read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "code" and "parameters" not in cell["metadata"].get("tags", []):
                cell["source"] = "pass"
        path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def scenario(name: str, work: Path, log: Path, *, sample_memory: bool = False) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=work))
    pm_quiet = ["--log-level", "WARNING", "--no-progress-bar"]
    if name == "stock_empty":
        res = run([STOCK_BIN / "papermill", *pm_quiet, EMPTY, tmp / "out.ipynb", "-p", "x", "1"],
                  sample_memory=sample_memory, log=log)
    elif name == "project_empty":
        res = run([PROJECT_PY, "-m", "runbook_lib.runner", *pm_quiet, EMPTY, tmp / "out.ipynb", "-p", "x", "1"],
                  sample_memory=sample_memory, log=log)
    elif name == "plain_papermill":
        root = fresh_root(tmp, "root")
        res = run([PROJECT_BIN / "papermill", *pm_quiet, REPO / "notebooks/run.ipynb", tmp / "out.ipynb",
                   "-p", "root", root], sample_memory=sample_memory, log=log)
        res.update(code_cells(tmp / "out.ipynb"))
    elif name in ("node_plain", "node_floor"):
        # what the mission types, in a node install: plain papermill, no runner, no engine, no extras; from a
        # folder of its own, as on a node (from the checkout, the kernel would import the checkout's runbook_lib)
        root = fresh_root(tmp, "root")
        notebook = REPO / "notebooks/run.ipynb" if name == "node_plain" else floor_notebook(work)
        res = run([NODE_BIN / "papermill", *pm_quiet, notebook, tmp / "out.ipynb", "-p", "root", root],
                  cwd=tmp, sample_memory=sample_memory, log=log)
        res.update(code_cells(tmp / "out.ipynb"))
    elif name == "node_empty":
        res = run([NODE_BIN / "papermill", *pm_quiet, EMPTY, tmp / "out.ipynb", "-p", "x", "1"],
                  cwd=tmp, sample_memory=sample_memory, log=log)
    elif name == "runner_nosave":
        # the runbook through the runner without make and without --show (what `make run` adds around it)
        root = fresh_root(tmp, "root")
        res = run([PROJECT_PY, "-m", "runbook_lib.runner", *pm_quiet, "--no-request-save-on-cell-execute",
                   REPO / "notebooks/run.ipynb", tmp / "out.ipynb", "-p", "root", root],
                  sample_memory=sample_memory, log=log)
        res.update(code_cells(tmp / "out.ipynb"))
    elif name == "make_run":
        root = fresh_root(tmp, "root")
        res = run(["make", "-s", "-C", REPO, "run", f"ROOT={root}", f"OUT={tmp}"], sample_memory=sample_memory,
                  log=log)
        res.update(code_cells(tmp / "run.ipynb"))
    elif name == "runbook_run":
        root = fresh_root(tmp, "root")
        res = run([PROJECT_BIN / "runbook", "run", "--root", root, "--archive", tmp / "archive", "--label", "bench"],
                  sample_memory=sample_memory, log=log)
        (nb,) = (tmp / "archive" / "bench").glob("*/run.ipynb")
        res.update(code_cells(nb))
    elif name in ("kernel_project", "kernel_stock"):
        py = PROJECT_PY if name == "kernel_project" else STOCK_BIN / "python"
        proc = subprocess.run([py, BENCH / "kernel_start.py", tmp / "k"], capture_output=True, text=True)
        if proc.returncode:
            raise SystemExit(f"bench: {name} failed:\n{proc.stderr[-3000:]}")
        res = {"rc": 0, **json.loads(proc.stdout.strip().splitlines()[-1])}
        res["wall"] = res["ready"]
    else:
        raise ValueError(name)
    check_rc(name, res, log)
    shutil.rmtree(tmp, ignore_errors=True)
    return res


def parallel(kind: str, n: int, work: Path, log: Path) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix=f"{kind}-", dir=work))
    roots = [fresh_root(tmp, f"student{i:02d}") for i in range(1, n + 1)]
    archive = tmp / "archive"
    if kind == "sequential":
        t0 = time.perf_counter()
        cpu = 0.0
        for root in roots:
            res = run([PROJECT_BIN / "runbook", "run", "--root", root, "--archive", archive, "--label", root.name],
                      log=log)
            check_rc(kind, res, log)
            cpu += res["cpu"]
        res = {"wall": time.perf_counter() - t0, "cpu": cpu, "rc": 0}
    else:
        jobs = kind.removeprefix("jobs")
        res = run([PROJECT_BIN / "runbook", "run", "--jobs", jobs, *[a for r in roots for a in ("--root", r)],
                   "--archive", archive], log=log)
        check_rc(kind, res, log)
    runs = list(archive.glob("*/*/manifest.json"))
    ok = sum(json.loads(p.read_text())["ok"] for p in runs)
    if ok != n:
        raise SystemExit(f"bench: {kind}: {ok} of {n} runs passed (see {archive})")
    shutil.rmtree(tmp, ignore_errors=True)
    return res


# --- a class: what an instructor waits for -----------------------------------------------------------------


def make_class(parent: Path, n: int) -> Path:
    """n student roots: every other one a finished lab, the rest each with one known mistake (not timed)."""
    folder = parent / "class"
    code = ("import sys\nfrom runbook_lib.lab.init_root import add_mistakes, finished_lab\n"
            "from runbook_lib.lab.mistakes import MISTAKES\n"
            "base, n = sys.argv[1], int(sys.argv[2])\n"
            "for i in range(n):\n"
            "    root = f'{base}/s{i:02d}'\n"
            "    finished_lab(root) if i % 2 == 0 else add_mistakes(root, MISTAKES[(i // 2) % len(MISTAKES)].kind)\n")
    subprocess.run([PROJECT_PY, "-c", code, folder, str(n)], check=True, stdout=subprocess.DEVNULL)
    return folder


def class_run(kind: str, folder: Path, work: Path, log: Path, *, sample_memory: bool = False) -> dict:
    """One class graded one way: `loop` (what an instructor writes without `runbook grade`), `grade`
    (`runbook grade --jobs 2`) or `class_notebook` (notebooks/class.ipynb through plain papermill, jobs 2)."""
    roots = sorted(p for p in folder.iterdir() if p.is_dir())
    tmp = Path(tempfile.mkdtemp(prefix=f"class-{kind}-", dir=work))
    pm_quiet = ["--log-level", "WARNING", "--no-progress-bar"]
    if kind == "loop":
        t0, cpu = time.perf_counter(), 0.0
        for root in roots:  # papermill exits 1 for a student with a failed step: the notebook is still written
            res = run([PROJECT_BIN / "papermill", *pm_quiet, REPO / "notebooks/run.ipynb", tmp / f"{root.name}.ipynb",
                       "-p", "root", root, "-p", "mode", "check"], cwd=tmp, log=log)
            if res["rc"] not in (0, 1) or not (tmp / f"{root.name}.ipynb").exists():
                check_rc(kind, res, log)
            cpu += res["cpu"]
        res = {"wall": time.perf_counter() - t0, "cpu": cpu, "rc": 0}
        graded = len(list(tmp.glob("*.ipynb")))
    elif kind == "grade":
        res = run([PROJECT_BIN / "runbook", "grade", "--jobs", "2", "--out", tmp / "grades", *roots], cwd=tmp,
                  log=log, sample_memory=sample_memory)
        graded = len(json.loads((tmp / "grades" / "grades.json").read_text())["students"])
        for name in ("junit.xml", "index.html"):  # end to end: the class's files, and each student's
            if not (tmp / "grades" / name).exists():
                raise SystemExit(f"bench: class grade: no {name}")
        graded = min(graded, len(list((tmp / "grades").glob("*/results.json"))))
    elif kind == "class_notebook":
        res = run([PROJECT_BIN / "papermill", *pm_quiet, REPO / "notebooks/class.ipynb", tmp / "class-out.ipynb",
                   "-p", "roots", f"{folder}/*", "-p", "out", tmp / "grades", "-p", "jobs", "2"], cwd=tmp, log=log)
        graded = len(json.loads((tmp / "grades" / "grades.json").read_text())["students"])
        nb = json.loads((tmp / "class-out.ipynb").read_text())
        cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and "cn.grade(" in "".join(c["source"]))
        res["grading_cell"] = cell["metadata"]["papermill"]["duration"]
    else:
        raise ValueError(kind)
    if res["rc"] not in (0, 1) or graded != len(roots):
        raise SystemExit(f"bench: class {kind}: {graded} of {len(roots)} students graded (rc {res['rc']}, see {log})")
    shutil.rmtree(tmp, ignore_errors=True)
    return res


def class_section(args, work: Path, log: Path, started: float) -> dict:
    folder = make_class(work, args.students)
    kinds = ["loop", "grade", "class_notebook"]
    samples: dict[str, list[dict]] = {k: [] for k in kinds}
    for r in range(args.class_rounds):
        for kind in kinds[r % len(kinds):] + kinds[:r % len(kinds)]:
            samples[kind].append(class_run(kind, folder, work, log))
        print(f"bench: class of {args.students}, round {r + 1}/{args.class_rounds} done "
              f"({time.time() - started:.0f} s)", flush=True)
    memory = [class_run("grade", folder, work, log, sample_memory=True) for _ in range(2)]
    shutil.rmtree(folder, ignore_errors=True)
    course = course_section(args, work, log, started)
    medians = {k: {f: med([x[f] for x in v if f in x]) for f in v[0]} for k, v in samples.items()}
    per_round = [a["wall"] / b["wall"] for a, b in zip(samples["loop"], samples["grade"])]
    return {"students": args.students, "samples": samples, "medians": medians,
            "loop_over_grade": {"median_per_round": med(per_round),
                                "of_medians": medians["loop"]["wall"] / medians["grade"]["wall"],
                                "cpu_of_medians": medians["loop"]["cpu"] / medians["grade"]["cpu"]},
            "notebook_over_grade": medians["class_notebook"]["grading_cell"] / medians["grade"]["wall"],
            "memory": {"tree_pss_peak_mib": max(m["tree_pss_peak_mib"] for m in memory),
                       "tree_peak_mib": max(m["tree_peak_mib"] for m in memory),
                       "maxrss_mib": max(m["maxrss_mib"] for m in memory)},
            "course": course}


def course_section(args, work: Path, log: Path, started: float) -> dict:
    """A course: `args.course` roots graded end to end by `runbook grade --jobs 2` (every student's run.ipynb,
    run.html, manifest.json, feedback.html and results.json, then grades.json, junit.xml and the class page),
    `args.course_rounds` times, the last one with its process tree sampled for memory."""
    folder = make_class(work / "course", args.course)
    runs = []
    for r in range(args.course_rounds):
        runs.append(class_run("grade", folder, work, log, sample_memory=r == args.course_rounds - 1))
        print(f"bench: course of {args.course}, round {r + 1}/{args.course_rounds} done "
              f"({time.time() - started:.0f} s)", flush=True)
    shutil.rmtree(folder.parent, ignore_errors=True)
    last = runs[-1]
    return {"students": args.course, "samples": runs, "wall": med([x["wall"] for x in runs]),
            "cpu": med([x["cpu"] for x in runs]), "tree_pss_peak_mib": last["tree_pss_peak_mib"],
            "tree_peak_mib": last["tree_peak_mib"], "maxrss_mib": last["maxrss_mib"]}


# --- report ----------------------------------------------------------------------------------------------------


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, help="rounds of the single-run scenarios (default 5, quick 3)")
    ap.add_argument("--par-rounds", type=int, help="rounds of the N-roots comparison (default 2, quick 1)")
    ap.add_argument("--roots", type=int, help="roots in the N-roots comparison (default 20, quick 6)")
    ap.add_argument("--jobs1", action="store_true", help="also time `runbook run --jobs 1` over the N roots")
    ap.add_argument("--students", type=int, default=24, help="students in the class comparison (default 24)")
    ap.add_argument("--class-rounds", type=int, help="rounds of the class comparison (default 3, quick 2)")
    ap.add_argument("--course", type=int, default=240, help="students in the course graded end to end (default 240)")
    ap.add_argument("--course-rounds", type=int, help="rounds of the course (default 3, quick 2)")
    ap.add_argument("--quick", action="store_true",
                    help="fewer rounds (3 single, 1 of 6 roots, 2 of the class of 24): every figure, ~10-15 min "
                         "on 2 quiet cores")
    ap.add_argument("--only", choices=("all", "class"), default="all",
                    help="class: only the class comparison and its memory (a quicker look)")
    ap.add_argument("--out", default=str(BENCH / "results" / "latest.json"))
    args = ap.parse_args(argv)
    for name, full, quick in (("rounds", 5, 3), ("par_rounds", 2, 1), ("roots", 20, 6), ("class_rounds", 3, 2),
                              ("course_rounds", 3, 2)):
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
    if args.only == "class":
        return class_only(args)

    out_path = Path(args.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    log = out_path.with_suffix(".log")
    log.write_text("")
    ensure_project()
    ensure_stock(log)
    ensure_node(log)
    work = Path(tempfile.mkdtemp(prefix="runbook-bench-"))
    report: dict = {"machine": machine(), "load_before": os.getloadavg(),
                    "versions": {"project": versions(PROJECT_PY), "stock": versions(STOCK_BIN / "python"),
                                 "node": versions(NODE_BIN / "python")},
                    "rounds": args.rounds, "par_rounds": args.par_rounds, "roots": args.roots}
    names = ["stock_empty", "node_plain", "make_run", "runbook_run", "plain_papermill", "project_empty",
             "runner_nosave", "node_empty", "node_floor", "kernel_project", "kernel_stock"]
    samples: dict[str, list[dict]] = {n: [] for n in names}
    started = time.time()
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            samples[name].append(scenario(name, work, log))
        print(f"bench: round {r + 1}/{args.rounds} done ({time.time() - started:.0f} s)", flush=True)

    print("bench: where plain papermill's time goes (node install)", flush=True)
    phases = {"runbook": [], "empty": []}
    for _ in range(3):
        for kind, nb_args in (("runbook", [REPO / "notebooks/run.ipynb"]), ("empty", [EMPTY])):
            tmp = Path(tempfile.mkdtemp(prefix="phases-", dir=work))
            params = ["-p", "root", fresh_root(tmp, "root")] if kind == "runbook" else ["-p", "x", "1"]
            proc = subprocess.run([NODE_BIN / "python", BENCH / "papermill_phases.py", *nb_args, tmp / "out.ipynb",
                                   *params], capture_output=True, text=True, cwd=tmp)
            if proc.returncode:
                raise SystemExit(f"bench: papermill_phases failed:\n{proc.stderr[-3000:]}")
            phases[kind].append(json.loads(proc.stdout.strip().splitlines()[-1]))
            if kind == "runbook" and "output_costs" not in report:  # what each of its outputs cost those saves
                costs = subprocess.run([NODE_BIN / "python", BENCH / "output_costs.py", tmp / "out.ipynb"],
                                       capture_output=True, text=True, check=True)
                report["output_costs"] = json.loads(costs.stdout.strip().splitlines()[-1])
            shutil.rmtree(tmp, ignore_errors=True)
    report["phases"] = {k: {f: med([r[f] for r in v]) for f in v[0]} for k, v in phases.items()}

    print("bench: memory pass", flush=True)
    memory = {n: [scenario(n, work, log, sample_memory=True) for _ in range(2)]
              for n in ("stock_empty", "make_run", "runbook_run")}

    print("bench: edit alone", flush=True)
    edit = json.loads(subprocess.run([PROJECT_PY, BENCH / "edit_bench.py"], capture_output=True, text=True,
                                     check=True, cwd=REPO).stdout)

    kinds = ["sequential", "jobs2"] + (["jobs1"] if args.jobs1 else [])
    par: dict[str, list[dict]] = {k: [] for k in kinds}
    for r in range(args.par_rounds):
        for kind in (kinds if r % 2 == 0 else kinds[::-1]):
            par[kind].append(parallel(kind, args.roots, work, log))
        print(f"bench: {args.roots} roots, round {r + 1}/{args.par_rounds} done ({time.time() - started:.0f} s)",
              flush=True)
    print("bench: a class", flush=True)
    report["class"] = class_section(args, work, log, started)
    shutil.rmtree(work, ignore_errors=True)
    report["load_after"] = os.getloadavg()
    report["seconds"] = round(time.time() - started)

    # medians and ratios
    m = {n: {k: med([s[k] for s in samples[n] if k in s]) for k in samples[n][0]} for n in names}
    base = samples["stock_empty"]

    def ratio(name, key="wall"):
        per_round = [a[key] / b[key] for a, b in zip(samples[name], base)]
        return {"of_medians": m[name][key] / m["stock_empty"][key], "median_per_round": med(per_round)}

    ratios = {f"{n} / stock_empty": {"wall": ratio(n), "cpu": ratio(n, "cpu")}
              for n in ("node_plain", "node_floor", "node_empty", "make_run", "runbook_run", "plain_papermill", "project_empty",
                        "runner_nosave")}
    cells = med([s["cells_sum"] for n in ("make_run", "runbook_run") for s in samples[n]])
    pm_ = {k: {"wall": med([s["wall"] for s in v]), "cpu": med([s["cpu"] for s in v])} for k, v in par.items()}
    speedup = pm_["sequential"]["wall"] / pm_["jobs2"]["wall"]
    peak = {n: {"tree_peak_mib": max(s["tree_peak_mib"] for s in v), "maxrss_mib": max(s["maxrss_mib"] for s in v)}
            for n, v in memory.items()}
    report.update({"samples": samples, "medians": m, "ratios": ratios, "cells_sum_median": cells,
                   "memory": peak, "edit": edit, "parallel": {"samples": par, "medians": pm_,
                                                               "speedup_sequential_over_jobs2": speedup}})
    floor = med([a["wall"] / b["wall"] for a, b in zip(samples["node_plain"], samples["node_floor"])])
    ratios["node_plain / node_floor"] = {"wall": {"of_medians": m["node_plain"]["wall"] / m["node_floor"]["wall"],
                                                  "median_per_round": floor},
                                         "cpu": {"of_medians": m["node_plain"]["cpu"] / m["node_floor"]["cpu"],
                                                 "median_per_round": med([a["cpu"] / b["cpu"] for a, b in zip(
                                                     samples["node_plain"], samples["node_floor"])])}}
    cls = report["class"]
    verdict = {
        f"class of {args.students}: papermill loop / runbook grade --jobs 2 (wall, median per round)":
            cls["loop_over_grade"]["median_per_round"],
        f"class of {args.students} --jobs 2: peak memory of all processes, MiB (PSS)": cls["memory"]["tree_pss_peak_mib"],
        **course_verdict(cls),
        "node_plain / node_floor (wall, median per round)": floor,
        "node_plain / stock_empty (wall, median per round)": ratios["node_plain / stock_empty"]["wall"]["median_per_round"],
        "make_run / stock_empty (wall)": ratios["make_run / stock_empty"]["wall"]["of_medians"],
        "runbook_run / stock_empty (wall)": ratios["runbook_run / stock_empty"]["wall"]["of_medians"],
        "code cells, s": cells,
        "edit on 1.6 default, ms": edit["default_1_6"]["median_ms"],
        "20 roots: sequential / jobs2": speedup,
        "peak memory per run, MiB": max(v["tree_peak_mib"] for n, v in peak.items() if n != "stock_empty"),
    }
    report["targets"] = targets(verdict)
    out_path.write_text(json.dumps(report, indent=1) + "\n")
    print_report(report)
    print(f"\nbench: full results in {out_path}")
    return 0


def course_verdict(cls: dict) -> dict:
    c = cls["course"]
    return {f"course of {c['students']}: runbook grade --jobs 2, end to end (wall s, median)": c["wall"],
            f"course of {c['students']} --jobs 2: peak memory of all processes, MiB (PSS)": c["tree_pss_peak_mib"]}


def targets(verdict: dict) -> dict:
    """Each measured figure against its target; "at least" for the speed-ups, "at most" for the rest."""
    out = {}
    for k, v in verdict.items():
        key = re.sub(r"^class of \d+", "class", re.sub(r"^course of \d+", "course of 240", k))
        at_least = "sequential / jobs2" in key or "loop / runbook grade" in key
        out[k] = {"measured": v, "target": TARGETS[key], "met": v >= TARGETS[key] if at_least else v <= TARGETS[key]}
    return out


def class_only(args) -> int:
    """`--only class`: the class comparison and its memory, nothing else."""
    out_path = Path(args.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    log = out_path.with_suffix(".log")
    log.write_text("")
    ensure_project()
    work = Path(tempfile.mkdtemp(prefix="runbook-bench-"))
    started = time.time()
    report = {"machine": machine(), "load_before": os.getloadavg()}
    report["class"] = class_section(args, work, log, started)
    shutil.rmtree(work, ignore_errors=True)
    report["load_after"], report["seconds"] = os.getloadavg(), round(time.time() - started)
    cls = report["class"]
    report["targets"] = targets({
        f"class of {args.students}: papermill loop / runbook grade --jobs 2 (wall, median per round)":
            cls["loop_over_grade"]["median_per_round"],
        f"class of {args.students} --jobs 2: peak memory of all processes, MiB (PSS)": cls["memory"]["tree_pss_peak_mib"],
        **course_verdict(cls)})
    out_path.write_text(json.dumps(report, indent=1) + "\n")
    mc = report["machine"]
    print(f"\nmachine: {mc.get('cpu')}, {mc['nproc']} cores, load {report['load_before'][0]:.1f} before / "
          f"{report['load_after'][0]:.1f} after, {report['seconds']} s")
    print_class(cls)
    print_targets(report)
    return 0


def print_class(cls: dict) -> None:
    n = cls["students"]
    print(f"\n| a class of {n} (median of {len(cls['samples']['loop'])}) | wall s | CPU s |")
    print("|---|---:|---:|")
    names = {"loop": f"{n} × plain `papermill notebooks/run.ipynb ... -p mode check`",
             "grade": "`runbook grade --jobs 2`", "class_notebook": "notebooks/class.ipynb via plain papermill, jobs 2"}
    for k, v in cls["medians"].items():
        print(f"| {names[k]} | {v['wall']:.1f} | {v['cpu']:.1f} |")
    print(f"| the class notebook's grading cell alone | {cls['medians']['class_notebook']['grading_cell']:.1f} | |")
    r = cls["loop_over_grade"]
    print(f"\nloop / grade: {r['median_per_round']:.1f}× (median per round), {r['of_medians']:.1f}× (of medians), "
          f"CPU {r['cpu_of_medians']:.1f}×; the class notebook's grading cell / runbook grade: "
          f"{cls['notebook_over_grade']:.2f}")
    c = cls["course"]
    print(f"a course of {c['students']} graded end to end by `runbook grade --jobs 2` (median of {len(c['samples'])}): "
          f"{c['wall']:.1f} s wall, {c['cpu']:.1f} s CPU, {c['wall'] / c['students'] * 1000:.0f} ms a student; peak "
          f"memory {c['tree_pss_peak_mib']:.0f} MiB PSS over all its processes ({c['tree_peak_mib']:.0f} MiB RSS summed)")
    mem = cls["memory"]
    print(f"peak memory of `runbook grade --jobs 2` over all its processes: {mem['tree_pss_peak_mib']:.0f} MiB PSS, "
          f"{mem['tree_peak_mib']:.0f} MiB RSS summed (shared pages counted in every process), largest process "
          f"{mem['maxrss_mib']:.0f} MiB")


HEADLINE = ("class: papermill loop / runbook grade --jobs 2", "class --jobs 2: peak memory",
            "course of 240: runbook grade", "course of 240 --jobs 2: peak memory",
            "node_plain / node_floor", "make_run / stock_empty")  # issue 43's six figures


def print_targets(rep: dict) -> None:
    print("\n| target | measured | target | met |")
    print("|---|---:|---:|---|")
    for k, v in rep["targets"].items():
        print(f"| {k} | {v['measured']:.3g} | {v['target']} | {'yes' if v['met'] else 'NO'} |")
    head = [(k, v) for h in HEADLINE for k, v in rep["targets"].items()
            if re.sub(r"^course of \d+", "course of 240", re.sub(r"^class of \d+", "class", k)).startswith(h)]
    load = f"load {rep['load_before'][0]:.1f} before / {rep['load_after'][0]:.1f} after"
    print(f"\nthe issue's figures (issue 43), measured side by side in this run ({load}):")
    for k, v in head:
        print(f"  {'ok ' if v['met'] else 'NO '} {k}: {v['measured']:.3g} (target {'>=' if 'loop' in k else '<='} "
              f"{v['target']})")


def print_report(rep: dict) -> None:
    mc = rep["machine"]
    print(f"\nmachine: {mc.get('cpu')}, {mc['nproc']} cores, {mc.get('mem_gib')} GiB, Python {mc['python']}, "
          f"load {rep['load_before'][0]:.1f} before / {rep['load_after'][0]:.1f} after, {rep['seconds']} s")
    print(f"\n| scenario (median of {rep['rounds']}) | wall s | CPU s | largest process MiB | code cells s |")
    print("|---|---:|---:|---:|---:|")
    for n, v in rep["medians"].items():
        if n.startswith("kernel"):
            continue
        cells = f"{v['cells_sum']:.3f}" if "cells_sum" in v else ""
        print(f"| {n} | {v['wall']:.2f} | {v['cpu']:.2f} | {v['maxrss_mib']:.0f} | {cells} |")
    for n in ("kernel_project", "kernel_stock"):
        v = rep["medians"][n]
        print(f"| {n}: ready / first cell / shutdown | {v['ready']:.2f} / {v['first_cell']:.3f} / "
              f"{v['shutdown']:.2f} | | | |")
    print("\n| ratio | wall (of medians) | wall (median per round) | CPU (of medians) |")
    print("|---|---:|---:|---:|")
    for k, v in rep["ratios"].items():
        print(f"| {k} | {v['wall']['of_medians']:.2f} | {v['wall']['median_per_round']:.2f} | "
              f"{v['cpu']['of_medians']:.2f} |")
    ph = rep.get("phases")
    if ph:
        print("\n| plain papermill, node install (median of 3, s) | runbook | empty notebook |")
        print("|---|---:|---:|")
        for f in ("import", "read", "kernel_launch", "kernel_until_ready", "cells_n", "cells_total", "saves_n",
                  "saves_total", "kernel_shutdown", "total_after_interpreter"):
            fmt = (lambda x: f"{x:.0f}") if f.endswith("_n") else (lambda x: f"{x:.3f}")
            print(f"| {f} | {fmt(ph['runbook'].get(f, 0))} | {fmt(ph['empty'].get(f, 0))} |")
    oc = rep.get("output_costs")
    if oc:
        print(f"\n| what each output costs plain papermill (model: {oc['per_kib_per_save_ms']:.3f} ms per KiB per save, "
              f"{oc['saves']} saves) | outputs | bytes | saves ms | messages ms |")
        print("|---|---:|---:|---:|---:|")
        for k, v in oc["by_kind"].items():
            print(f"| {k} | {v['outputs']} | {v['bytes']} | {v['saves_s'] * 1000:.1f} | {v['message_s'] * 1000:.1f} |")
        print(f"| all outputs | | {oc['notebook_bytes'] - oc['without_outputs_bytes']} | "
              f"{oc['outputs_total_s'] * 1000:.0f} (total) | |")
    e = rep["edit"]
    print("\n| edit alone (CPU) | lines | median ms | ms per 1000 lines |")
    print("|---|---:|---:|---:|")
    for label, v in [("containerd 1.6 default", e["default_1_6"])] + [("grown", g) for g in e["grown"]]:
        print(f"| {label} | {v['lines']} | {v['median_ms']:.1f} | {v['ms_per_1000_lines']:.1f} |")
    p = rep["parallel"]["medians"]
    print(f"\n| {rep['roots']} roots (median of {rep['par_rounds']}) | wall s | CPU s |")
    print("|---|---:|---:|")
    for k, v in p.items():
        print(f"| {k} | {v['wall']:.1f} | {v['cpu']:.1f} |")
    print("\n| peak memory of one run | process tree MiB (sampled) | largest process MiB |")
    print("|---|---:|---:|")
    for k, v in rep["memory"].items():
        print(f"| {k} | {v['tree_peak_mib']:.0f} | {v['maxrss_mib']:.0f} |")
    print_class(rep["class"])
    print_targets(rep)


if __name__ == "__main__":
    sys.exit(main())
