"""`make bench`: issue 52's four figures from one run, each beside its goal (docs/BENCHMARKS.md).

1. a course of 240 roots graded end to end by `runbook grade --jobs 2 --out DIR R1..R240` (results.json, junit.xml,
   grades.csv, index.html, the feedback pages): wall seconds, and in a run of its own the peak memory summed over
   all its processes (PSS from /proc/<pid>/smaps_rollup, the process tree sampled every 10 ms);
2. a class of 24: the instructor's loop (24 plain `papermill notebooks/run.ipynb OUT -p root R -p mode check`, one
   after another) over `runbook grade --jobs 2` on the same 24 roots;
3. `runbook grade --notebooks --jobs 2` on those 24 over stock papermill in a pool of 2 (the same 24 commands as
   the loop, two at a time); "not measured" while `runbook grade` has no `--notebooks`;
4. plain papermill on a node root (`-p root NODE -p profile node`, apply mode, a fresh root made from containerd
   1.6.20's default config each time) over the same notebook with every code cell `pass`: the median of the pairs'
   ratios, leaving out a pair in which either run stalled in its kernel's shutdown (STALL's note).

Roots are made by `runbook lab-init` (not timed): one finished and one for every mistake of `--list`, then copied,
half finished and half a mistake. Every round runs each command once, in a rotated order, so a drift of the
machine's load falls on all of them; the report gives medians over rounds, the median of the per-round ratios,
CPU time (user+sys of the whole process tree, from wait4) beside wall, and the load average before and after.
Standard library only, run by the project's .venv (its `runbook` and `papermill`); the notebook's kernel is the one
its metadata names. Results go to bench/results/latest.json (not committed).

    .venv/bin/python bench/run.py [--quick] [--rounds N] [--course 240] [--students 24] [--out FILE]
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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = REPO / ".venv" / "bin"
RUNBOOK, PAPERMILL, PYTHON = BIN / "runbook", BIN / "papermill", BIN / "python"
NOTEBOOK = REPO / "notebooks" / "run.ipynb"
NODE_CONFIG = REPO / "tests" / "fixtures" / "containerd" / "containerd-1.6.20-default.toml"
QUIET = ["--log-level", "WARNING", "--no-progress-bar"]
# A node's run is ~2 s, and one run on this shared 2-core machine can take 20 % longer than the next: each round
# takes the node's two runs this many times, one after the other in pairs, and the figure is the median of the
# pairs' ratios (a pair's two runs meet the same load).
NODE_PAIRS = 5
# jupyter_client asks a kernel to shut down, waits half its shutdown_wait_time (2.5 s) for the process to end, then
# SIGTERMs it. ipykernel 7.4 sometimes never ends by itself: its control thread, flushing stdout after the shutdown
# reply, waits on the IOPub thread that the main thread has just stopped (py-spy: MainThread in IPKernelApp.close
# joining Control, Control in OutStream.flush). It happens in about one run in five of either notebook, the `pass`
# one too, and that run waits 2.5 s doing nothing. A pair with such a run measures the race, not the notebook.
STALL = 2.0  # seconds a run waited beyond its CPU time (a node run waits ~0.3 s: its kernel's start and end)
MIB = 1024 * 1024

# (key, what is measured, goal, "max" or "min"): the figures `make bench` ends with
FIGURES = (
    ("course_wall", "1. a course of {course}: `runbook grade --jobs 2`, end to end, wall s", 5.0, "max"),
    ("course_pss", "1. a course of {course}: peak memory over all its processes, MiB PSS", 300.0, "max"),
    ("class_speedup", "2. a class of {students}: papermill loop / `runbook grade --jobs 2`, wall", 100.0, "min"),
    ("notebooks_ratio", "3. a class of {students}: `runbook grade --notebooks --jobs 2` / papermill pool of 2, wall",
     1.0, "max"),
    ("node_ratio", "4. a node: plain papermill / the same notebook with every code cell `pass`, wall", 1.10, "max"),
)


# --- pure parts (tests/bench/test_bench_run.py) --------------------------------------------------------------


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def ratio(num: list[dict], den: list[dict]) -> dict | None:
    """num over den from the same rounds: the median of the per-round wall ratios (the figure: a drift of the
    machine's load between rounds cancels), the ratio of the wall medians and of the CPU medians beside it."""
    pairs = [(a, b) for a, b in zip(num, den) if a and b]
    if not pairs:
        return None
    return {"median_per_round": med([a["wall"] / b["wall"] for a, b in pairs]),
            "of_medians": med([a["wall"] for a, _ in pairs]) / med([b["wall"] for _, b in pairs]),
            "cpu_of_medians": med([a["cpu"] for a, _ in pairs]) / med([b["cpu"] for _, b in pairs])}


def stalled(sample: dict) -> bool:
    """A run that waited STALL seconds or more beyond its CPU time: the kernel-shutdown race (NODE_PAIRS' note)."""
    return sample["wall"] - sample["cpu"] >= STALL


def node_ratio(plain: list[dict], floor: list[dict]) -> dict | None:
    """ratio() over the node's pairs in which neither run stalled (the figure), with every pair's median and how
    many runs of each side stalled beside it; over every pair when each one had a stalled run."""
    pairs = [(a, b) for a, b in zip(plain, floor) if a and b]
    if not pairs:
        return None
    clean = [(a, b) for a, b in pairs if not stalled(a) and not stalled(b)] or pairs
    res = ratio([a for a, _ in clean], [b for _, b in clean])
    res.update({"pairs": len(pairs), "pairs_counted": len(clean),
                "stalled": {"plain": sum(stalled(a) for a, _ in pairs), "floor": sum(stalled(b) for _, b in pairs)},
                "every_pair": ratio([a for a, _ in pairs], [b for _, b in pairs])["median_per_round"]})
    return res


def judge(value: float | None, goal: float, sense: str) -> bool | None:
    """Whether a measured value meets its goal ("max": at most, "min": at least); None when not measured."""
    if value is None:
        return None
    return value <= goal if sense == "max" else value >= goal


def mistake_kinds(listing: str) -> list[str]:
    """The mistake kinds in `runbook lab-init --list`'s output (each line that starts with two spaces and a kind)."""
    return re.findall(r"^  ([a-z0-9]+(?:-[a-z0-9]+)*)\s", listing, flags=re.MULTILINE)


def floor_notebook(nb: dict) -> dict:
    """The notebook with every code cell but the parameters cell `pass` and no outputs: the same cells, narrative
    and metadata (the kernel), so plain papermill pays for the notebook's shape and nothing of the runbook's work."""
    nb = json.loads(json.dumps(nb))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and "parameters" not in cell.get("metadata", {}).get("tags", []):
            cell["source"], cell["outputs"], cell["execution_count"] = "pass", [], None
    return nb


def tree(parents: dict[int, int], root: int) -> set[int]:
    """root and every descendant of it, from a map of pid -> parent pid."""
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    found, frontier = {root}, [root]
    while frontier:
        for child in children.get(frontier.pop(), []):
            if child not in found:
                found.add(child)
                frontier.append(child)
    return found


# --- running a command -----------------------------------------------------------------------------------


def _parents() -> dict[int, int]:
    out = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    out[int(entry.name)] = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass  # gone meanwhile
    return out


def _memory(pids) -> tuple[int, int]:
    """(RSS, PSS) summed over pids, in bytes: PSS counts a page k processes share 1/k in each, so its sum is what
    the tree really holds."""
    rss = pss = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
                for line in f:
                    if line.startswith(b"Rss:"):
                        rss += int(line.split()[1]) * 1024
                    elif line.startswith(b"Pss:"):
                        pss += int(line.split()[1]) * 1024
                        break
        except (OSError, IndexError, ValueError):
            pass
    return rss, pss


def run(cmd: list, *, cwd: Path, log: Path, sample_memory: bool = False) -> dict:
    """Run a command to its end: wall seconds, CPU seconds (user+sys of it and every descendant it waited for,
    from wait4), its exit code; with sample_memory, the peak of its process tree's summed RSS and PSS."""
    with open(log, "ab") as out:
        out.write(f"\n$ {' '.join(map(str, cmd))}\n".encode())
        out.flush()
        t0 = time.perf_counter()
        proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, stdout=out, stderr=out,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        peak, stop = [0, 0], threading.Event()

        def sampler():
            while not stop.is_set():
                rss, pss = _memory(tree(_parents(), proc.pid))
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
    res = {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rc": proc.returncode}
    if sample_memory:
        res["rss_peak_mib"], res["pss_peak_mib"] = peak[0] / MIB, peak[1] / MIB
    return res


class Failed(Exception):
    """A command did not do what the figure needs; the figure is then not measured."""


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-1500:] if log.exists() else ""


# --- inputs ----------------------------------------------------------------------------------------------


def make_roots(work: Path, log: Path) -> tuple[Path, Path, list[str]]:
    """One finished root and one root for every mistake kind, by `runbook lab-init` (two at a time, not timed)."""
    listing = subprocess.run([RUNBOOK, "lab-init", "--list"], capture_output=True, text=True, check=True).stdout
    kinds = mistake_kinds(listing)
    if not kinds:
        raise SystemExit(f"bench: no mistake kinds in `runbook lab-init --list`:\n{listing}")
    templates = work / "templates"
    jobs = [("finished", ["--finished"])] + [(k, ["--mistake", k]) for k in kinds]

    def init(job):
        name, flags = job
        with open(log, "ab") as out:
            subprocess.run([RUNBOOK, "lab-init", *flags, templates / name], check=True, stdout=out, stderr=out)

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(init, jobs))
    return templates, work, kinds


def class_folder(templates: Path, kinds: list[str], folder: Path, n: int) -> list[Path]:
    """n roots under folder: every other one finished, the others each a mistake, the kinds in turn."""
    roots = []
    for i in range(n):
        root = folder / f"s{i:03d}"
        shutil.copytree(templates / ("finished" if i % 2 == 0 else kinds[(i // 2) % len(kinds)]), root,
                        symlinks=True)
        roots.append(root)
    return roots


def node_root(parent: Path) -> Path:
    """A node's root as tests/engine/test_node_truth.py makes one (tests/helpers.py node_root): containerd 1.6.20's
    default config, the node's own CDI spec and the device files it names."""
    sys.path.insert(0, str(REPO / "tests"))
    from helpers import node_root as make  # the project's .venv runs this script (make bench)

    return make(Path(tempfile.mkdtemp(prefix="node-", dir=parent)) / "root", NODE_CONFIG)


def has_notebooks_option() -> bool:
    helptext = subprocess.run([RUNBOOK, "grade", "--help"], capture_output=True, text=True).stdout
    return "--notebooks" in helptext


# --- the scenarios ---------------------------------------------------------------------------------------


def grade(roots: list[Path], tmp: Path, log: Path, *, notebooks: bool = False, sample_memory: bool = False) -> dict:
    """`runbook grade --jobs 2 --out DIR ROOT...`, and what it must leave in DIR for the figure to count."""
    out = tmp / "grades"
    res = run([RUNBOOK, "grade", "--jobs", "2", "--out", out, *(["--notebooks"] if notebooks else []), *roots],
              cwd=tmp, log=log, sample_memory=sample_memory)
    if res["rc"] not in (0, 1):  # 1: a student has something to fix
        raise Failed(f"runbook grade exited {res['rc']}; its output ends with:\n{_tail(log)}")
    n = len(roots)
    results = len(list(out.glob("*/results.json"))) + (out / "results.json").exists()
    pages = len([p for p in out.rglob("*.html") if p.name != "index.html"])
    missing = [name for name in ("junit.xml", "grades.csv", "index.html") if not (out / name).exists()]
    missing += ["results.json"] if not results else []
    missing += [f"feedback pages ({pages} of {n})"] if pages < n else []
    if notebooks and len(list(out.rglob("*.ipynb"))) < n:
        raise Failed(f"runbook grade --notebooks left {len(list(out.rglob('*.ipynb')))} notebooks for {n} roots")
    res["missing"] = missing
    return res


def papermill_check(root: Path, tmp: Path, log: Path) -> dict:
    """Plain papermill in check mode on one root, as an instructor types it; exit 1 is a student's failed step."""
    out = tmp / f"{root.name}.ipynb"
    res = run([PAPERMILL, *QUIET, NOTEBOOK, out, "-p", "root", root, "-p", "mode", "check"], cwd=tmp, log=log)
    if res["rc"] not in (0, 1) or not out.exists():
        raise Failed(f"papermill on {root.name} exited {res['rc']}; its output ends with:\n{_tail(log)}")
    return res


def loop(roots: list[Path], tmp: Path, log: Path) -> dict:
    t0, cpu = time.perf_counter(), 0.0
    for root in roots:
        cpu += papermill_check(root, tmp, log)["cpu"]
    return {"wall": time.perf_counter() - t0, "cpu": cpu}


def pool(roots: list[Path], tmp: Path, log: Path) -> dict:
    t0 = time.perf_counter()
    with ThreadPoolExecutor(2) as ex:
        runs = list(ex.map(lambda r: papermill_check(r, tmp, log), roots))
    return {"wall": time.perf_counter() - t0, "cpu": sum(r["cpu"] for r in runs)}


def node(notebook: Path, tmp: Path, log: Path) -> dict:
    root = node_root(tmp)  # apply writes: a fresh root each time, not timed
    res = run([PAPERMILL, *QUIET, notebook, tmp / "out.ipynb", "-p", "root", root, "-p", "profile", "node"],
              cwd=tmp, log=log)
    if res["rc"] != 0:
        raise Failed(f"papermill {notebook.name} on a node root exited {res['rc']}; its output ends with:\n"
                     f"{_tail(log)}")
    return res


# --- the run ---------------------------------------------------------------------------------------------


def machine() -> dict:
    info = {"nproc": os.cpu_count(), "python": platform.python_version(), "kernel": platform.release()}
    try:
        info["cpu"] = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                           if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    code = ("import json, importlib.metadata as m\nout = {}\n"
            "for d in ('papermill', 'nbclient', 'jupyter_client', 'ipykernel', 'nbformat'):\n"
            "    try: out[d] = m.version(d)\n    except m.PackageNotFoundError: out[d] = None\n"
            "print(json.dumps(out))")
    info["versions"] = json.loads(subprocess.run([PYTHON, "-c", code], capture_output=True, text=True,
                                                 check=True).stdout)
    info["commit"] = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                                    text=True).stdout.strip()
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="one round instead of three (a look, not the figures)")
    ap.add_argument("--rounds", type=int, help="rounds (default 3, --quick 1)")
    ap.add_argument("--course", type=int, default=240, help="roots in the course (default 240)")
    ap.add_argument("--students", type=int, default=24, help="roots in the class (default 24)")
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "latest.json"))
    args = ap.parse_args(argv)
    rounds = args.rounds or (1 if args.quick else 3)
    if not RUNBOOK.exists():
        subprocess.run(["make", "-s", "-C", REPO, "venv"], check=True)
    out_path = Path(args.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    log = out_path.with_suffix(".log")
    log.write_text("")
    started, load_before = time.time(), os.getloadavg()
    work = Path(tempfile.mkdtemp(prefix="runbook-bench-"))
    try:
        report = measure(args, rounds, work, log, started)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.update({"load_before": load_before, "load_after": os.getloadavg(), "seconds": round(time.time() - started),
                   "rounds": rounds, "course": args.course, "students": args.students, "log": str(log)})
    out_path.write_text(json.dumps(report, indent=1) + "\n")
    print_report(report)
    print(f"\nbench: full results in {out_path}, the commands' output in {log}")
    return 1 if report["errors"] else 0


def measure(args, rounds: int, work: Path, log: Path, started: float) -> dict:
    report: dict = {"machine": machine()}
    print("bench: making the roots (runbook lab-init, not timed)", flush=True)
    templates, _, kinds = make_roots(work, log)
    course = class_folder(templates, kinds, work / "course", args.course)
    klass = class_folder(templates, kinds, work / "class", args.students)
    floor = work / "floor.ipynb"
    floor.write_text(json.dumps(floor_notebook(json.loads(NOTEBOOK.read_text(encoding="utf-8")))), encoding="utf-8")
    notebooks = has_notebooks_option()

    scenarios = {
        "course_grade": lambda tmp: grade(course, tmp, log),
        "class_grade": lambda tmp: grade(klass, tmp, log),
        "class_loop": lambda tmp: loop(klass, tmp, log),
        "class_grade_notebooks": lambda tmp: grade(klass, tmp, log, notebooks=True),
        "class_pool": lambda tmp: pool(klass, tmp, log),
        "node_plain": lambda tmp: node(NOTEBOOK, tmp, log),
        "node_floor": lambda tmp: node(floor, tmp, log),
    }
    errors: dict[str, str] = {}
    if not notebooks:
        errors["class_grade_notebooks"] = errors["class_pool"] = "not measured: `runbook grade` has no --notebooks"
    samples: dict[str, list] = {name: [] for name in scenarios}

    def once(name: str, fn, **kw) -> dict | None:
        if name in errors:
            return None
        tmp = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=work))
        try:
            return fn(tmp, **kw)
        except Failed as e:
            errors[name] = str(e)
            print(f"bench: {name} failed: {str(e).splitlines()[0]}", flush=True)
            return None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    names = [name for name in scenarios if name != "node_floor"]  # taken with node_plain, pair by pair
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            for _ in range(NODE_PAIRS if name == "node_plain" else 1):
                samples[name].append(once(name, scenarios[name]))
                if name == "node_plain":
                    samples["node_floor"].append(once("node_floor", scenarios["node_floor"]))
        print(f"bench: round {r + 1}/{rounds} done ({time.time() - started:.0f} s)", flush=True)
    print("bench: the course's memory, its process tree sampled every 10 ms", flush=True)
    memory = once("course_memory", lambda tmp: grade(course, tmp, log, sample_memory=True))

    medians = {name: {k: med([s[k] for s in v if s]) for k in ("wall", "cpu")} for name, v in samples.items()}
    class_ratio = ratio(samples["class_loop"], samples["class_grade"])
    notebooks_ratio = ratio(samples["class_grade_notebooks"], samples["class_pool"])
    node_res = node_ratio(samples["node_plain"], samples["node_floor"])
    missing = sorted({m for s in samples["course_grade"] if s for m in s["missing"]})
    measured = {
        "course_wall": medians["course_grade"]["wall"],
        "course_pss": memory and memory["pss_peak_mib"],
        "class_speedup": class_ratio and class_ratio["median_per_round"],
        "notebooks_ratio": notebooks_ratio and notebooks_ratio["median_per_round"],
        "node_ratio": node_res and node_res["median_per_round"],
    }
    figures = {}
    for key, label, goal, sense in FIGURES:
        met, note = judge(measured[key], goal, sense), ""
        if key in ("course_wall", "course_pss") and missing and met is not None:
            met, note = False, f"not end to end: no {', '.join(missing)}"  # a file the course needs is not there
        figures[key] = {"label": label.format(course=args.course, students=args.students), "measured": measured[key],
                        "goal": goal, "sense": sense, "met": met, "note": note}
    report.update({"samples": samples, "medians": medians, "memory": memory, "missing": missing,
                   "ratios": {"class": class_ratio, "notebooks": notebooks_ratio, "node": node_res},
                   "figures": figures, "errors": {k: v for k, v in errors.items() if "--notebooks" not in v},
                   "not_measured": {k: v for k, v in errors.items() if "--notebooks" in v}})
    return report


# --- the report ------------------------------------------------------------------------------------------


def _fmt(x, spec=".2f") -> str:
    return "-" if x is None else format(x, spec)


def print_report(rep: dict) -> None:
    mc, lb, la = rep["machine"], rep["load_before"], rep["load_after"]
    print(f"\nmachine: {mc.get('cpu')}, {mc['nproc']} cores, Python {mc['python']}, papermill "
          f"{mc['versions'].get('papermill')}, commit {mc.get('commit')}; load {lb[0]:.2f} {lb[1]:.2f} {lb[2]:.2f} "
          f"before, {la[0]:.2f} {la[1]:.2f} {la[2]:.2f} after; {rep['rounds']} round(s), {rep['seconds']} s")
    c, s = rep["course"], rep["students"]
    what = {
        "course_grade": f"`runbook grade --jobs 2`, {c} roots",
        "class_grade": f"`runbook grade --jobs 2`, {s} roots",
        "class_loop": f"{s} × plain `papermill ... -p mode check`, one after another",
        "class_grade_notebooks": f"`runbook grade --notebooks --jobs 2`, {s} roots",
        "class_pool": f"{s} × plain `papermill ... -p mode check`, 2 at a time",
        "node_plain": "plain papermill on a node root (apply)",
        "node_floor": "the same, every code cell `pass`",
    }
    print(f"\n| scenario (median of {rep['rounds']}) | wall s | CPU s |")
    print("|---|---:|---:|")
    for name, m in rep["medians"].items():
        print(f"| {what[name]} | {_fmt(m['wall'])} | {_fmt(m['cpu'])} |")
    mem = rep["memory"]
    if mem:
        print(f"\nthe course's peak memory over all its processes: {mem['pss_peak_mib']:.0f} MiB PSS "
              f"({mem['rss_peak_mib']:.0f} MiB RSS summed, shared pages counted in every process)")
    print("\n| figure | measured | goal | met |")
    print("|---|---:|---:|---|")
    for key, f in rep["figures"].items():
        why = next((v for k, v in {**rep["not_measured"], **rep["errors"]}.items() if _feeds(key, k)), "")
        # three decimals below 10: a ratio of 1.0998 is not printed as its goal, 1.1
        spec = ".3f" if f["measured"] is not None and f["measured"] < 10 else ".0f"
        value = _fmt(f["measured"], spec) if f["measured"] is not None else (why.splitlines()[0] if why else "-")
        met = {True: "yes", False: "NO", None: "-"}[f["met"]] + (f" ({f['note']})" if f["note"] else "")
        print(f"| {f['label']} | {value} | {'≤' if f['sense'] == 'max' else '≥'} {f['goal']:g} | {met} |")
    node = rep["ratios"].get("node")
    if node:
        print(f"\nfigure 4 counts {node['pairs_counted']} of the node's {node['pairs']} pairs: a kernel-shutdown stall "
              f"(a run that waited >= {STALL:g} s beyond its CPU time) hit the plain run of {node['stalled']['plain']} "
              f"and the `pass` run of {node['stalled']['floor']}; the median of every pair is "
              f"{node['every_pair']:.3f}")
    for name, err in rep["errors"].items():
        print(f"\nbench: {name} failed: {err}")


def _feeds(figure: str, scenario: str) -> bool:
    """Whether a scenario's failure leaves a figure unmeasured."""
    return scenario in {"course_wall": ("course_grade",), "course_pss": ("course_memory",),
                        "class_speedup": ("class_loop", "class_grade"),
                        "notebooks_ratio": ("class_grade_notebooks", "class_pool"),
                        "node_ratio": ("node_plain", "node_floor")}[figure]


if __name__ == "__main__":
    sys.exit(main())
